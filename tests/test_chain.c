/* The matrix kernels' error bound (src/run/reference.c): chains computed the
 * way CPUs and tensor cores round stay within it, a value one ulp beyond it
 * fails, exact chains demand equality, and tiles of one chain must agree bit
 * for bit. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"
#include "reference.h"

#define M 8
#define N 8
#define K 16

/* A (M x K), B (K x N) normal values with 11-bit significands (fp16-like, so
 * every product is exact in double), R = A*B and S = sum |a b| exactly. */
struct case_ {
    double a[M * K], b[K * N], ref[M * N], abs_sum[M * N];
};

static double round_bits(double v, int bits)
{
    int e;
    double f = frexp(v, &e);
    return ldexp(nearbyint(ldexp(f, bits)), e - bits);
}

static void make_case(struct case_ *c, uint64_t seed)
{
    uint64_t rng = seed;
    for (int i = 0; i < M * K; i++) c->a[i] = round_bits(mcf_rng_normal(&rng), 11);
    for (int i = 0; i < K * N; i++) c->b[i] = round_bits(mcf_rng_normal(&rng), 11);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            long double s = 0, sa = 0;
            for (int p = 0; p < K; p++) {
                long double q = (long double)c->a[i * K + p] * c->b[p * N + j];
                s += q;
                sa += fabsl(q);
            }
            c->ref[i * N + j] = (double)s;
            c->abs_sum[i * N + j] = (double)sa;
        }
}

/* One step as a CPU does it in fp32: c += a*b term by term, rounding each. */
static double step_cpu(double acc, const struct case_ *c, int i, int j, double sign)
{
    float f = (float)acc;
    for (int p = 0; p < K; p++)
        f += (float)c->a[i * K + p] * (float)(sign * c->b[p * N + j]);
    return f;
}

/* One step as the tensor-core model without extra bits: the products and c
 * aligned to the largest exponent, each truncated to 24 bits there, summed
 * exactly, the sum truncated to 24 bits. Truncating after aligning to a large
 * |c| is what lets this accumulator drift along the chain. */
static double trunc_to(double v, double grid) { return trunc(v / grid) * grid; }
static double step_tc(double acc, const struct case_ *c, int i, int j, double sign)
{
    double terms[K + 1];
    int emax = acc != 0 ? ilogb(acc) : INT_MIN;
    terms[K] = acc;
    for (int p = 0; p < K; p++) {
        terms[p] = c->a[i * K + p] * sign * c->b[p * N + j];
        if (terms[p] != 0 && ilogb(terms[p]) > emax) emax = ilogb(terms[p]);
    }
    double grid = ldexp(1.0, emax - 23), sum = 0;
    for (int p = 0; p <= K; p++) sum += trunc_to(terms[p], grid);
    return sum == 0 ? 0 : trunc_to(sum, ldexp(1.0, ilogb(sum) - 23));
}

typedef double (*step_fn)(double, const struct case_ *, int, int, double);

/* The alternating chain of `steps` steps for every element, into out. */
static void chain(const struct case_ *c, step_fn step, uint64_t steps, double *out)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (uint64_t s = 0; s < steps; s++)
                acc = step(acc, c, i, j, s % 2 ? -1.0 : 1.0);
            out[i * N + j] = acc;
        }
}

static int check(const struct case_ *c, const double *out, size_t count, const struct mcf_chain *ch, int fault)
{
    struct mcf_err e = { 0 };
    return mcf_check_tiles(out, count, M, N, c->ref, c->abs_sum, ch, fault, "test", &e);
}

static void correct_chains_pass(void **state)
{
    (void)state;
    static const uint64_t lengths[] = { 1, 3, 101, 4097 };
    double out[M * N];
    for (int seed = 1; seed <= 3; seed++) {
        struct case_ c;
        make_case(&c, (uint64_t)seed);
        for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
            struct mcf_chain cpu = { lengths[l], K, MCF_UNIT_FP32, 0 }, tc = { lengths[l], K, MCF_UNIT_FP32_TC, 0 };
            chain(&c, step_cpu, lengths[l], out);
            assert_int_equal(check(&c, out, 1, &cpu, 0), MCF_OK);
            assert_int_equal(check(&c, out, 1, &cpu, 1), MCF_EVERIFY);
            chain(&c, step_tc, lengths[l], out);
            assert_int_equal(check(&c, out, 1, &tc, 0), MCF_OK);
            assert_int_equal(check(&c, out, 1, &tc, 1), MCF_EVERIFY);
        }
    }
}

/* Why the bound grows with the chain: both accumulators drift away from their
 * first step's value (the partial sums of A*B and A*(-B) differ, so their
 * roundings do not cancel): about a third of 2^-23 (|R| + S) per step. */
static void truncating_accumulator_drifts(void **state)
{
    (void)state;
    struct case_ c;
    double one[M * N], many[M * N];
    make_case(&c, 3);
    for (int model = 0; model < 2; model++) {
        step_fn step = model ? step_tc : step_cpu;
        struct mcf_chain three = { 3, K, model ? MCF_UNIT_FP32_TC : MCF_UNIT_FP32, 0 };
        chain(&c, step, 1, one);
        chain(&c, step, 4097, many);
        int moved = 0;
        for (int i = 0; i < M * N; i++) moved += one[i] != many[i];
        assert_true(moved > 0);
        assert_int_equal(check(&c, many, 1, &three, 0), MCF_EVERIFY);   /* beyond a short chain's bound */
    }
}

/* At the bound passes; the next double beyond it fails, either side. */
static void one_ulp_beyond_fails(void **state)
{
    (void)state;
    struct case_ c;
    make_case(&c, 5);
    struct mcf_chain ch = { 4097, K, MCF_UNIT_FP32_TC, 0 };
    for (int side = -1; side <= 1; side += 2) {
        double out[M * N];
        memcpy(out, c.ref, sizeof out);
        double b = mcf_chain_bound(&ch, c.ref[0], c.abs_sum[0]);
        assert_true(b > 0 && isfinite(b));
        double g = c.ref[0] + side * b;
        while (fabs(g - c.ref[0]) > b) g = nextafter(g, c.ref[0]);   /* the last value inside */
        out[0] = g;
        assert_int_equal(check(&c, out, 1, &ch, 0), MCF_OK);
        out[0] = nextafter(g, side * INFINITY);
        while (fabs(out[0] - c.ref[0]) <= b) out[0] = nextafter(out[0], side * INFINITY);
        assert_true(fabs(out[0] - g) <= 4 * fabs(nextafter(g, side * INFINITY) - g));   /* an ulp or so away */
        assert_int_equal(check(&c, out, 1, &ch, 0), MCF_EVERIFY);
        out[0] = NAN;
        assert_int_equal(check(&c, out, 1, &ch, 0), MCF_EVERIFY);
    }
}

static void the_bound_by_hand(void **state)
{
    (void)state;
    struct mcf_chain ch = { 1, 2, ldexp(1.0, -24), 0 };
    double nd = ldexp(1.0, -22);   /* (2 + 2) * 2^-24 */
    assert_true(mcf_chain_bound(&ch, 1.0, 2.0) == nd * 3.0 / (1.0 - nd));
    assert_true(mcf_chain_bound(&ch, -1.0, 2.0) == nd * 3.0 / (1.0 - nd));
    ch.out_unit = ldexp(1.0, -11);
    double chainb = nd * 3.0 / (1.0 - nd);
    assert_true(mcf_chain_bound(&ch, 1.0, 2.0) == chainb + ldexp(1.0, -11) * (1.0 + chainb));
    ch.out_unit = 0;
    ch.steps = 1 << 21;            /* N delta = 1/2: says nothing */
    assert_true(isinf(mcf_chain_bound(&ch, 1.0, 2.0)));
    ch.steps = 3; ch.unit = 0;     /* integers: exact */
    assert_true(mcf_chain_bound(&ch, 5.0, 9.0) == 0);
    struct mcf_chain a = { 3, 16, MCF_UNIT_FP32_TC, 0 }, b = { 4097, 16, MCF_UNIT_FP32_TC, 0 };
    assert_true(mcf_chain_bound(&a, 1.0, 10.0) < mcf_chain_bound(&b, 1.0, 10.0));
}

static void exact_chains_demand_equality(void **state)
{
    (void)state;
    struct case_ c;
    make_case(&c, 7);
    struct mcf_chain ch = { 4097, K, 0, 0 };
    double out[2 * M * N];
    memcpy(out, c.ref, sizeof c.ref);
    memcpy(out + M * N, c.ref, sizeof c.ref);
    assert_int_equal(check(&c, out, 2, &ch, 0), MCF_OK);
    assert_int_equal(check(&c, out, 2, &ch, 1), MCF_EVERIFY);
    out[M * N + 5] = nextafter(out[M * N + 5], INFINITY);
    assert_int_equal(check(&c, out, 2, &ch, 0), MCF_EVERIFY);
}

/* Tiles of one chain agree bit for bit, even where the bound says nothing. */
static void tiles_must_agree(void **state)
{
    (void)state;
    struct case_ c;
    make_case(&c, 9);
    struct mcf_chain ch = { 1u << 30, K, MCF_UNIT_FP32_TC, 0 };
    double out[3 * M * N];
    struct mcf_err e = { 0 };
    for (int t = 0; t < 3; t++) memcpy(out + t * M * N, c.ref, sizeof c.ref);
    assert_true(isinf(mcf_chain_bound(&ch, c.ref[0], c.abs_sum[0])));
    assert_int_equal(check(&c, out, 3, &ch, 0), MCF_OK);
    assert_int_equal(check(&c, out, 3, &ch, 1), MCF_EVERIFY);   /* the fault in tile 0 */
    out[2 * M * N + 9] = nextafter(out[2 * M * N + 9], 0);
    assert_int_equal(mcf_check_tiles(out, 3, M, N, c.ref, c.abs_sum, &ch, 0, "test", &e), MCF_EVERIFY);
    assert_non_null(strstr(e.msg, "tile 2 element (1, 1)"));
    assert_non_null(strstr(e.msg, "same bits"));
    out[2 * M * N + 9] = c.ref[9];
    out[3] = NAN;                  /* tile 0 is not a number, or infinite: fails */
    assert_int_equal(check(&c, out, 3, &ch, 0), MCF_EVERIFY);
    out[3] = INFINITY;
    assert_int_equal(check(&c, out, 3, &ch, 0), MCF_EVERIFY);
}

static void the_message_names_the_element(void **state)
{
    (void)state;
    struct case_ c;
    make_case(&c, 11);
    struct mcf_chain ch = { 3, K, MCF_UNIT_FP32_TC, 0 };
    double out[M * N];
    struct mcf_err e = { 0 };
    memcpy(out, c.ref, sizeof out);
    out[2 * N + 3] += 1.0 + c.abs_sum[2 * N + 3];
    assert_int_equal(mcf_check_tiles(out, 1, M, N, c.ref, c.abs_sum, &ch, 0, "wgmma fp16", &e), MCF_EVERIFY);
    assert_non_null(strstr(e.msg, "wgmma fp16: tile 0 element (2, 3) is"));
    assert_non_null(strstr(e.msg, "reference"));
    assert_non_null(strstr(e.msg, "bound"));
    assert_non_null(strstr(e.msg, "3 steps of 16 products"));
}

/* Full entropy: mean 0, variance 1, and the low significand bits of fp32
 * values are all used (the point of these inputs). */
static void normal_inputs_have_entropy(void **state)
{
    (void)state;
    uint64_t rng = 42, low_bits[4] = { 0 };
    double sum = 0, sq = 0;
    const int n = 200000;
    for (int i = 0; i < n; i++) {
        double v = mcf_rng_normal(&rng);
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        low_bits[u & 3]++;
        sum += v;
        sq += v * v;
    }
    assert_true(fabs(sum / n) < 0.01);
    assert_true(fabs(sq / n - 1.0) < 0.02);
    for (int i = 0; i < 4; i++) assert_true(low_bits[i] > n / 5);
    uint64_t a = 1, b = 1;
    assert_true(mcf_rng_normal(&a) == mcf_rng_normal(&b));   /* a function of the seed */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(correct_chains_pass),
        cmocka_unit_test(truncating_accumulator_drifts),
        cmocka_unit_test(one_ulp_beyond_fails),
        cmocka_unit_test(the_bound_by_hand),
        cmocka_unit_test(exact_chains_demand_equality),
        cmocka_unit_test(tiles_must_agree),
        cmocka_unit_test(the_message_names_the_element),
        cmocka_unit_test(normal_inputs_have_entropy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
