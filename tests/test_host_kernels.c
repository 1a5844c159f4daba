/* Every host kernel family through the backend table: it verifies its own
 * output, reports work, and catches a corrupted result. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "backend.h"
#include "family.h"
#include "power_run.h"   /* mcf_power_model_member */
#include "reference.h"
#include "sparsity.h"

static struct mcf_backend be;
static void *bstate;

static int setup_backend(void **state)
{
    (void)state;
    struct mcf_err e = { 0 };
    struct mcf_rank_env env = { 0, 1, 2 };
    if (mcf_backend_select("host", &be, &e) != MCF_OK || be.init(&bstate, &env, &e) != MCF_OK)
        return -1;
    return 0;
}

static int teardown_backend(void **state)
{
    (void)state;
    be.finalize(bstate);
    return 0;
}

/* Runs k twice and verifies; returns verify's rc. */
static int run(struct mcf_kernel k, struct mcf_sample *s)
{
    struct mcf_err e = { 0 };
    void *ks;
    const struct mcf_kernel_ops *ops = be.family[k.family];
    int rc = ops->setup(bstate, &k, &ks, &e);
    if (rc != MCF_OK)
        return rc;
    for (int i = 0; i < 2 && rc == MCF_OK; i++) {
        memset(s, 0, sizeof *s);
        rc = ops->run(ks, s, &e);
    }
    if (rc == MCF_OK)
        rc = ops->verify(ks, &e);
    ops->teardown(ks);
    return rc;
}

static void check_family(struct mcf_kernel k)
{
    struct mcf_sample s;
    mcf_kernel_label(&k);
    int rc = run(k, &s);
    if (rc != MCF_OK)
        fail_msg("%s: rc %d", k.label, rc);
    assert_true(s.seconds > 0 && isfinite(s.seconds));
    assert_true(s.units > 0);
    k.inject_fault = 1;
    rc = run(k, &s);
    if (rc != MCF_EVERIFY)
        fail_msg("%s: a corrupted result was not caught (rc %d)", k.label, rc);
}

static void matrix(void **state)
{
    (void)state;
    struct mcf_kernel k = { .family = MCF_FAMILY_MATRIX, .dtype = MCF_FP64, .shape = { 8, 8, 4 },
                            .occupancy = 2, .iterations = 100, .seed = 1 };
    check_family(k);
    k.dtype = MCF_FP32;
    k.shape[0] = 16; k.shape[1] = 16; k.shape[2] = 16;
    check_family(k);
    k.mode = MCF_MODE_LATENCY;
    check_family(k);
}

/* Every input kind at each host type, in both modes and as streams' work:
 * verified (random within its bound, exact and zero bit for bit), and a
 * corrupted element caught. */
static void matrix_inputs(void **state)
{
    (void)state;
    for (int in = 0; in < MCF_INPUTS_COUNT; in++)
        for (int t = 0; t < 2; t++)
            for (int latency = 0; latency < 2; latency++) {
                struct mcf_kernel k = { .family = MCF_FAMILY_MATRIX, .dtype = t ? MCF_FP32 : MCF_FP64,
                                        .shape = { 16, 8, 32 }, .occupancy = 3, .iterations = 1000, .seed = 9,
                                        .mode = latency ? MCF_MODE_LATENCY : MCF_MODE_THROUGHPUT,
                                        .inputs = (enum mcf_inputs)in };
                check_family(k);
            }
    struct mcf_kernel s = { .family = MCF_FAMILY_STREAMS, .streams = 3, .imbalance = 2, .work = MCF_WORK_MATRIX,
                            .dtype = MCF_FP32, .shape = { 8, 8, 16 }, .iterations = 300,
                            .inputs = MCF_INPUTS_RANDOM, .seed = 3 };
    check_family(s);
}

/* 2:4 pruning: every chunk keeps exactly its pair (i0 < i1), zeroes the
 * other two, the kept values in order; all six pairs are drawn. */
static void prune_24(void **state)
{
    (void)state;
    enum { M = 16, K = 64 };
    double a[M * K], orig[M * K], ac[M * K / 2];
    uint8_t idx[M * K / 4];
    uint64_t rng = 5;
    int seen[16] = { 0 };
    for (int i = 0; i < M * K; i++) orig[i] = a[i] = 1.0 + i;   /* no zeros of its own */
    mcf_prune_24(a, M, K, &rng, ac, idx);
    for (int r = 0; r < M; r++)
        for (int c = 0; c < K / 4; c++) {
            uint8_t p = idx[r * (K / 4) + c];
            int i0 = mcf_sparse_i0(p), i1 = mcf_sparse_i1(p);
            assert_true(i0 < i1 && i1 < 4);
            seen[p & 15] = 1;
            for (int q = 0; q < 4; q++) {
                double v = a[r * K + 4 * c + q];
                if (q == i0 || q == i1) assert_true(v == orig[r * K + 4 * c + q]);
                else assert_true(v == 0.0);
            }
            assert_true(ac[r * (K / 2) + 2 * c] == orig[r * K + 4 * c + i0]);
            assert_true(ac[r * (K / 2) + 2 * c + 1] == orig[r * K + 4 * c + i1]);
            assert_int_equal(mcf_sparse_col(idx, K, r, 2 * c + 1), 4 * c + i1);
        }
    int pairs = 0;
    for (int i = 0; i < 16; i++) pairs += seen[i];
    assert_int_equal(pairs, 6);
}

/* The host's 2:4 sparse tiles: verified at every input kind, type and mode
 * against the pruned A's product, a corrupted element caught; the dense-
 * equivalent rate and the executed half are both recorded, and "measured"
 * names the sparsity only where the test has it. */
static void matrix_sparse(void **state)
{
    (void)state;
    for (int in = 0; in < MCF_INPUTS_COUNT; in++)
        for (int t = 0; t < 2; t++)
            for (int latency = 0; latency < 2; latency++) {
                struct mcf_kernel k = { .family = MCF_FAMILY_MATRIX, .dtype = t ? MCF_FP32 : MCF_FP64,
                                        .shape = { 16, 8, 32 }, .occupancy = 2, .iterations = 301, .seed = 11,
                                        .mode = latency ? MCF_MODE_LATENCY : MCF_MODE_THROUGHPUT,
                                        .inputs = (enum mcf_inputs)in, .sparsity = MCF_SPARSITY_2_4 };
                check_family(k);
            }
    struct mcf_kernel k;
    struct mcf_metric m[MCF_MAX_METRICS];
    struct mcf_sample s = { .seconds = 1.0, .units = 1e6 };
    char text[512];
    mcf_kernel_defaults(MCF_FAMILY_MATRIX, &k);
    k.dtype = MCF_FP16; k.shape[0] = 16; k.shape[1] = 8; k.shape[2] = 32;
    assert_null(strstr(mcf_kernel_measured(&k, text, sizeof text), "sparsity"));
    k.sparsity = MCF_SPARSITY_2_4;
    assert_non_null(strstr(mcf_kernel_measured(&k, text, sizeof text), " sparsity=2:4"));
    int n = mcf_kernel_metrics(&k, 0, m, MCF_MAX_METRICS), gf = -1, ex = -1;
    for (int i = 0; i < n; i++) {
        if (!strcmp(m[i].name, "gflops")) gf = i;
        if (!strcmp(m[i].name, "gflops_executed")) ex = i;
    }
    assert_true(gf >= 0 && ex >= 0);
    assert_true(m[gf].value(&k, &s, 0) == 2.0 * 16 * 8 * 32 * 1e6 * 1e-9);   /* dense-equivalent */
    assert_true(m[ex].value(&k, &s, 0) == 0.5 * m[gf].value(&k, &s, 0));
    /* the power model P = a TFLOP/s + b is fitted over dense tests only: a
     * 2:4 rate counts work the power never paid for */
    struct mcf_power_model pm = { .family = MCF_FAMILY_MATRIX, .dtype = MCF_FP16, .inputs = MCF_INPUTS_RANDOM };
    assert_false(mcf_power_model_member(&pm, &k));
    k.sparsity = MCF_SPARSITY_DENSE;
    assert_true(mcf_power_model_member(&pm, &k));
    struct mcf_kernel g;
    mcf_kernel_defaults(MCF_FAMILY_GEMM, &g);
    g.dtype = MCF_FP16;
    pm.family = MCF_FAMILY_GEMM;
    assert_true(mcf_power_model_member(&pm, &g));
    g.sparsity = MCF_SPARSITY_2_4;
    assert_false(mcf_power_model_member(&pm, &g));
}

/* The units are the chain's steps: 2 * (iterations / 2) + 1 per worker. */
static void matrix_units_are_steps(void **state)
{
    (void)state;
    struct mcf_sample s;
    struct mcf_kernel k = { .family = MCF_FAMILY_MATRIX, .dtype = MCF_FP64, .shape = { 8, 8, 4 },
                            .mode = MCF_MODE_LATENCY, .iterations = 100, .seed = 1 };
    assert_int_equal(run(k, &s), MCF_OK);
    assert_true(s.units == 101);
    k.iterations = 101;
    assert_int_equal(run(k, &s), MCF_OK);
    assert_true(s.units == 101);
}

static void valu(void **state)
{
    (void)state;
    struct mcf_kernel k = { .family = MCF_FAMILY_VALU, .dtype = MCF_FP64, .occupancy = 2, .iterations = 1001 };
    check_family(k);
    k.dtype = MCF_FP32;
    check_family(k);
}

static void memory(void **state)
{
    (void)state;
    for (int op = 0; op < MCF_OP_COUNT; op++) {
        struct mcf_kernel k = { .family = MCF_FAMILY_MEMORY, .dtype = MCF_FP64, .op = (enum mcf_memop)op,
                                .bytes = 1 << 20, .intensity = 8, .occupancy = 3 };
        check_family(k);
        k.dtype = MCF_FP32;
        check_family(k);
    }
}

static void latency(void **state)
{
    (void)state;
    struct mcf_kernel k = { .family = MCF_FAMILY_LATENCY, .working_set = 64 << 10, .stride = 64,
                            .iterations = 3001, .seed = 7 };
    check_family(k);
}

static void streams(void **state)
{
    (void)state;
    struct mcf_kernel k = { .family = MCF_FAMILY_STREAMS, .streams = 3, .imbalance = 2,
                            .work = MCF_WORK_MEMORY, .dtype = MCF_FP64, .bytes = 1 << 20 };
    check_family(k);
    k.work = MCF_WORK_MATRIX;
    k.shape[0] = 8; k.shape[1] = 8; k.shape[2] = 4;
    k.iterations = 200;
    check_family(k);
}

static void unsupported_types_say_so(void **state)
{
    (void)state;
    struct mcf_sample s;
    struct mcf_kernel mm = { .family = MCF_FAMILY_MATRIX, .dtype = MCF_BF16, .shape = { 16, 8, 16 },
                             .iterations = 10 };
    assert_int_equal(run(mm, &s), MCF_EUNSUPPORTED);
    struct mcf_kernel lds = { .family = MCF_FAMILY_MEMORY, .dtype = MCF_FP64, .level = MCF_LEVEL_LDS,
                              .op = MCF_OP_READ, .bytes = 4096 };
    assert_int_equal(run(lds, &s), MCF_EUNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matrix),
        cmocka_unit_test(matrix_inputs),
        cmocka_unit_test(matrix_units_are_steps),
        cmocka_unit_test(prune_24),
        cmocka_unit_test(matrix_sparse),
        cmocka_unit_test(valu),
        cmocka_unit_test(memory),
        cmocka_unit_test(latency),
        cmocka_unit_test(streams),
        cmocka_unit_test(unsupported_types_say_so),
    };
    return cmocka_run_group_tests(tests, setup_backend, teardown_backend);
}
