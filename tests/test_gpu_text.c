/* Host-side pieces of the GPU backend (built with a GPU backend): the text it
 * reads from the system, and the operand encoders the matrix references use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernel.h"

void gpu_module_version(const char *line, char *out, size_t len);
enum mcf_fp8_kind { MCF_FP8_OCP, MCF_FP8_FNUZ };   /* as in kernels/gpu/gpu_mtiles.h */
uint64_t mcf_encode(enum mcf_dtype t, double v, enum mcf_fp8_kind fp8);

/* Bit patterns from the formats' definitions (IEEE 754 binary16, bfloat16,
 * OCP FP8 E4M3/E5M2, and AMD CDNA3's fnuz FP8 with biases 8 and 16). */
static void operand_encodings(void **state)
{
    (void)state;
    assert_int_equal(mcf_encode(MCF_FP16, 1.0, MCF_FP8_OCP), 0x3c00);
    assert_int_equal(mcf_encode(MCF_FP16, -0.375, MCF_FP8_OCP), 0xb600);
    assert_int_equal(mcf_encode(MCF_FP16, 1.0 + 1.0 / 2048, MCF_FP8_OCP), 0x3c00);     /* tie: to even */
    assert_int_equal(mcf_encode(MCF_FP16, 1.0 + 3.0 / 2048, MCF_FP8_OCP), 0x3c02);     /* tie: to even, up */
    assert_int_equal(mcf_encode(MCF_FP16, 0x1p-24, MCF_FP8_OCP), 0x0001);              /* smallest subnormal */
    assert_int_equal(mcf_encode(MCF_BF16, 1.0, MCF_FP8_OCP), 0x3f80);
    assert_int_equal(mcf_encode(MCF_BF16, -0.875, MCF_FP8_OCP), 0xbf60);
    assert_int_equal(mcf_encode(MCF_FP8_E4M3, 1.0, MCF_FP8_OCP), 0x38);
    assert_int_equal(mcf_encode(MCF_FP8_E4M3, -0.5, MCF_FP8_OCP), 0xb0);
    assert_int_equal(mcf_encode(MCF_FP8_E4M3, 0.125, MCF_FP8_OCP), 0x20);
    assert_int_equal(mcf_encode(MCF_FP8_E4M3, 0x1p-9, MCF_FP8_OCP), 0x01);            /* subnormal */
    assert_int_equal(mcf_encode(MCF_FP8_E4M3, 0.875, MCF_FP8_OCP), 0x36);
    assert_int_equal(mcf_encode(MCF_FP8_E5M2, 1.0, MCF_FP8_OCP), 0x3c);
    assert_int_equal(mcf_encode(MCF_FP8_E5M2, -0.75, MCF_FP8_OCP), 0xba);
    assert_int_equal(mcf_encode(MCF_FP8_E4M3, 1.0, MCF_FP8_FNUZ), 0x40);
    assert_int_equal(mcf_encode(MCF_FP8_E4M3, -0.5, MCF_FP8_FNUZ), 0xb8);
    assert_int_equal(mcf_encode(MCF_FP8_E5M2, 1.0, MCF_FP8_FNUZ), 0x40);
    assert_int_equal(mcf_encode(MCF_FP8_E5M2, 0.375, MCF_FP8_FNUZ), 0x3a);
    /* negative zero: a value in OCP, NaN (0x80) in fnuz, so it must encode as +0 there */
    assert_int_equal(mcf_encode(MCF_FP8_E4M3, -0.0, MCF_FP8_OCP), 0x80);
    assert_int_equal(mcf_encode(MCF_FP8_E4M3, -0.0, MCF_FP8_FNUZ), 0x00);
    assert_int_equal(mcf_encode(MCF_FP8_E5M2, -0.0, MCF_FP8_FNUZ), 0x00);
    assert_int_equal(mcf_encode(MCF_INT8, -0.625, MCF_FP8_OCP), 0xfb);                 /* j = -5 */
}

static void driver_versions(void **state)
{
    (void)state;
    char v[64];
    /* the open kernel module's banner, as on the H200 machines (2026-11-22) */
    gpu_module_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
                       "(dvs-builder@U22)  Thu Oct 9 2025", v, sizeof v);
    assert_string_equal(v, "580.159.04");
    /* the proprietary module's */
    gpu_module_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023",
                       v, sizeof v);
    assert_string_equal(v, "535.104.05");
    gpu_module_version("something else entirely", v, sizeof v);
    assert_string_equal(v, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(driver_versions), cmocka_unit_test(operand_encodings) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
