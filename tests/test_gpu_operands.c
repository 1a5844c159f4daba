/* The GPU matrix kernels' operands (kernels/gpu/gpu_mtiles.cu, host side; built
 * with a GPU backend, runs without a GPU): full-entropy values are exactly
 * what their type holds, so the reference multiplies what the tensor cores
 * multiply; exact inputs are still j/8; tf32 words carry 10 significand bits. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kernel.h"
#include "reference.h"

enum mcf_fp8_kind { MCF_FP8_OCP, MCF_FP8_FNUZ };   /* as in kernels/gpu/gpu_mtiles.h */
uint64_t mcf_encode(enum mcf_dtype t, double v, enum mcf_fp8_kind fp8);
double mcf_decode(enum mcf_dtype t, uint64_t bits, enum mcf_fp8_kind fp8);
double mcf_operand_value(enum mcf_dtype t, enum mcf_inputs in, enum mcf_fp8_kind fp8, uint64_t *rng);

static const enum mcf_dtype types[] = { MCF_FP64, MCF_FP32, MCF_TF32, MCF_FP16, MCF_FP16_ACC16, MCF_BF16,
                                        MCF_FP8_E4M3, MCF_FP8_E5M2, MCF_INT8 };
#define NTYPES (sizeof types / sizeof *types)

/* significand bits a type keeps (int8: none, it is an integer) */
static int kept_bits(enum mcf_dtype t)
{
    switch (t) {
    case MCF_FP64: return 53;
    case MCF_FP32: return 24;
    case MCF_TF32: case MCF_FP16: case MCF_FP16_ACC16: return 11;
    case MCF_BF16: return 8;
    case MCF_FP8_E4M3: return 4;
    case MCF_FP8_E5M2: return 3;
    default: return 0;
    }
}

/* Random values round-trip through their encoding bit for bit, are spread
 * like N(0, 1), and use the type's low significand bit (full entropy). */
static void random_values_are_the_types_own(void **state)
{
    (void)state;
    for (int f = 0; f < 2; f++)
        for (size_t ti = 0; ti < NTYPES; ti++) {
            enum mcf_dtype t = types[ti];
            enum mcf_fp8_kind k = f ? MCF_FP8_FNUZ : MCF_FP8_OCP;
            uint64_t rng = 17;
            int odd = 0, distinct_low = 0, n = 4000;
            double sq = 0;
            for (int i = 0; i < n; i++) {
                double v = mcf_operand_value(t, MCF_INPUTS_RANDOM, k, &rng);
                assert_true(isfinite(v));
                assert_true(mcf_decode(t, mcf_encode(t, v, k), k) == v);
                if (t == MCF_INT8) {
                    assert_true(fabs(v * 8) <= 127 && v * 8 == nearbyint(v * 8));
                    odd += ((long)(v * 8)) & 1;
                    distinct_low += fabs(v * 8) > 64;
                    continue;
                }
                sq += v * v;
                if (v != 0) {
                    int e;
                    double m = frexp(fabs(v), &e);   /* m in [0.5, 1): the last kept bit is 2^-significand */
                    double last = ldexp(m, kept_bits(t));
                    odd += fmod(last, 2.0) == 1.0;
                }
            }
            if (t == MCF_INT8) {
                assert_true(odd > n / 3 && distinct_low > n / 8);   /* the whole range, every bit */
            } else {
                assert_true(fabs(sq / n - 1.0) < 0.15);
                assert_true(odd > n / 4);
            }
        }
}

/* exact inputs stay j/8 for j in -8..8; zero is zero */
static void exact_and_zero_inputs(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < NTYPES; ti++) {
        uint64_t rng = 5, ref = 5;
        for (int i = 0; i < 200; i++) {
            double v = mcf_operand_value(types[ti], MCF_INPUTS_EXACT, MCF_FP8_OCP, &rng);
            assert_true(v == mcf_rng_eighths(&ref) / 8.0);
            assert_true(mcf_decode(types[ti], mcf_encode(types[ti], v, MCF_FP8_OCP), MCF_FP8_OCP) == v);
            assert_true(mcf_operand_value(types[ti], MCF_INPUTS_ZERO, MCF_FP8_OCP, &rng) == 0.0);
            if (types[ti] == MCF_TF32) {   /* the same words as before tf32 was rounded: fp32's */
                float f = (float)v;
                uint32_t u;
                memcpy(&u, &f, 4);
                assert_true(mcf_encode(MCF_TF32, v, MCF_FP8_OCP) == u);
                assert_true(mcf_encode(MCF_TF32, -v, MCF_FP8_OCP) == (u ^ 0x80000000u));
            }
        }
    }
}

/* tf32 in an fp32 word: rounded to nearest even at 10 significand bits, the
 * low 13 bits zero (the tensor cores ignore them); j/8 unchanged from fp32 */
static void tf32_words(void **state)
{
    (void)state;
    assert_int_equal(mcf_encode(MCF_TF32, 1.0, MCF_FP8_OCP), 0x3f800000);
    assert_int_equal(mcf_encode(MCF_TF32, -0.375, MCF_FP8_OCP), 0xbec00000);
    assert_int_equal(mcf_encode(MCF_TF32, 1.0 + 1.0 / 2048, MCF_FP8_OCP), 0x3f800000);   /* tie: to even */
    assert_int_equal(mcf_encode(MCF_TF32, 1.0 + 3.0 / 2048, MCF_FP8_OCP), 0x3f804000);   /* tie: to even, up */
    assert_int_equal(mcf_encode(MCF_TF32, 1.0 + 1.0 / 1536, MCF_FP8_OCP), 0x3f802000);   /* above half: up */
    assert_int_equal(mcf_encode(MCF_TF32, -0.0, MCF_FP8_OCP), 0x80000000);
    assert_true(mcf_decode(MCF_TF32, 0x3f802000, MCF_FP8_OCP) == 1.0 + 1.0 / 1024);
    assert_true(mcf_decode(MCF_FP16, 0x0001, MCF_FP8_OCP) == ldexp(1.0, -24));
    assert_true(mcf_decode(MCF_FP8_E4M3, 0x01, MCF_FP8_OCP) == ldexp(1.0, -9));
    assert_true(isnan(mcf_decode(MCF_FP8_E4M3, 0x80, MCF_FP8_FNUZ)));
    assert_true(mcf_decode(MCF_INT8, 0xfb, MCF_FP8_OCP) == -0.625);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_values_are_the_types_own),
        cmocka_unit_test(exact_and_zero_inputs),
        cmocka_unit_test(tf32_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
