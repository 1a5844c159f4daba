/* The verdict's rules on arrays (src/report/verdict.c): the failures issue 10 found
 * in the old MAD rule, each as a case that the new rules must get right. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "backend.h"
#include "family.h"
#include "verdict.h"

/* A reproducible normal draw (xorshift and Box-Muller): the tests must not
 * depend on the C library's rand. */
static double normal(uint64_t *s)
{
    double u[2];
    for (int i = 0; i < 2; i++) {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        u[i] = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
    }
    return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

static void quantile_and_z(void **state)
{
    (void)state;
    assert_float_equal(mcf_normal_quantile_upper(0.025), 1.959964, 1e-5);
    assert_float_equal(mcf_normal_quantile_upper(1e-6), 4.753424, 1e-5);
    struct mcf_vrules r;
    mcf_vrules_default(&r);
    assert_float_equal(mcf_peer_z(&r, 8), 3.5, 0);              /* small fleets: the floor k_min */
    assert_float_equal(mcf_peer_z(&r, 10000), 4.753424, 1e-5);  /* alpha / n = 1e-6 */
    assert_true(mcf_peer_z(&r, 1000000) > mcf_peer_z(&r, 10000));
}

static void shorth_ignores_a_bad_half(void **state)
{
    (void)state;
    double same[] = { 1980, 1980, 1980, 1980 };
    assert_float_equal(mcf_shorth_rel_spread(same, 4), 0.0, 0);
    /* 9 good values spread 1%, 7 values 20% low: the spread is the good half's */
    double x[16];
    for (int i = 0; i < 9; i++)
        x[i] = 100 + (i - 4) * 0.25;
    for (int i = 9; i < 16; i++)
        x[i] = 80 + (i - 12) * 0.25;
    double s = mcf_shorth_rel_spread(x, 16);
    assert_true(s > 0 && s < 0.02);
}

/* The old rule flagged a 0.007% deviation: the relative floor does not. */
static void tiny_deviation_is_not_flagged(void **state)
{
    (void)state;
    double x[64];
    for (int i = 0; i < 64; i++)
        x[i] = 1000.0 + 1e-6 * i;
    x[17] = 1000.0 * (1 - 0.00007);
    struct mcf_peer p[64];
    struct mcf_vrules r;
    mcf_vrules_default(&r);
    assert_int_equal(mcf_peer_fleet(x, 64, 1, &r, p), 0);
    /* and 4% is a warning, 8% a failure */
    x[17] = 960;
    x[18] = 920;
    assert_int_equal(mcf_peer_fleet(x, 64, 1, &r, p), 2);
    assert_int_equal(p[17].level, MCF_V_WARN);
    assert_int_equal(p[18].level, MCF_V_FAIL);
    assert_float_equal(p[18].deviation, -0.08, 1e-4);
}

/* The old rule switched off at MAD = 0: identical clocks and one at 1500. */
static void identical_clocks_and_one_slow(void **state)
{
    (void)state;
    double x[32];
    for (int i = 0; i < 32; i++)
        x[i] = 1980;
    x[5] = 1500;
    x[6] = 2100;   /* faster: never bad for a clock */
    struct mcf_peer p[32];
    struct mcf_vrules r;
    mcf_vrules_default(&r);
    assert_int_equal(mcf_peer_fleet(x, 32, 1, &r, p), 1);
    assert_int_equal(p[5].level, MCF_V_FAIL);
    assert_int_equal(p[6].level, MCF_V_PASS);
}

static void direction_of_latency(void **state)
{
    (void)state;
    double x[16];
    for (int i = 0; i < 16; i++)
        x[i] = 500;
    x[3] = 560;   /* slower memory: bad */
    x[4] = 440;   /* faster: not bad */
    struct mcf_peer p[16];
    struct mcf_vrules r;
    mcf_vrules_default(&r);
    assert_int_equal(mcf_peer_fleet(x, 16, -1, &r, p), 1);
    assert_int_equal(p[3].level, MCF_V_FAIL);
    assert_int_equal(mcf_better_parse(mcf_better_name(-1)), -1);
    /* the directions are the family rows': a latency in cycles is lower-is-better */
    struct mcf_kernel k;
    struct mcf_metric m[MCF_MAX_METRICS];
    mcf_kernel_defaults(MCF_FAMILY_MATRIX, &k);
    k.mode = MCF_MODE_LATENCY;
    int n = mcf_kernel_metrics(&k, MCF_CAP_CLOCK, m, MCF_MAX_METRICS), seen = 0;
    for (int i = 0; i < n; i++) {
        if (!strcmp(m[i].name, "latency_cycles") || !strcmp(m[i].name, "latency_ns"))
            assert_int_equal(m[i].better, -1), seen++;
        if (!strcmp(m[i].name, "clock_mhz"))
            assert_int_equal(m[i].better, 1), seen++;
        if (!strcmp(m[i].name, "time_s"))
            assert_int_equal(m[i].better, 0), seen++;
    }
    assert_int_equal(seen, 4);
    mcf_kernel_defaults(MCF_FAMILY_STREAMS, &k);
    k.streams = 2;
    n = mcf_kernel_metrics(&k, 0, m, MCF_MAX_METRICS);
    for (int i = 0; i < n; i++)
        assert_int_equal(m[i].better, !strcmp(m[i].name, "speedup"));
}

/* Half of every node's GPUs 10% slow: the node rule sees it, and no healthy GPU
 * is flagged. */
static void half_the_fleet_slow(void **state)
{
    (void)state;
    enum { N = 64, G = 4 };
    double x[N];
    long long node[N];
    uint64_t seed = 42;
    for (int i = 0; i < N; i++) {
        node[i] = i / G;
        x[i] = 1000 * (1 + 0.003 * normal(&seed)) * (i % G >= 2 ? 0.90 : 1.0);
    }
    struct mcf_peer p[N];
    struct mcf_vrules r;
    mcf_vrules_default(&r);
    mcf_peer_node(x, node, N, 1, &r, p);
    for (int i = 0; i < N; i++)
        assert_int_equal(p[i].level, i % G >= 2 ? MCF_V_FAIL : MCF_V_PASS);
}

/* Eight healthy ranks of one node, 2% apart: the good side of 8 values is
 * too few to estimate a spread from, and none may be flagged (a throttled
 * host-rank test flagged healthy ranks 4-5% below the best before). */
static void small_node_is_not_flagged(void **state)
{
    (void)state;
    double x[8] = { 1.000, 0.968, 1.021, 0.957, 0.963, 1.011, 0.992, 0.948 };
    long long node[8] = { 0 };
    struct mcf_peer p[8];
    struct mcf_vrules r;
    mcf_vrules_default(&r);
    assert_int_equal(mcf_peer_node(x, node, 8, 1, &r, p), 0);
    x[5] = 0.3;   /* one rank at 30%: still seen (the thresholds here are 31% and 62%) */
    assert_int_equal(mcf_peer_node(x, node, 8, 1, &r, p), 1);
    assert_int_equal(p[5].level, MCF_V_FAIL);
}

/* 2, 3 or 4 GPUs of one node: too few to measure their spread, so the
 * prior (1 %) stands for it. One GPU at half speed fails both rules, on
 * either side of the list; a healthy set (the H100 pair's worst: 1.7 % apart)
 * passes; the measured spread is used again from prior_n GPUs on. */
static void small_fleet_prior(void **state)
{
    (void)state;
    struct mcf_vrules r;
    mcf_vrules_default(&r);
    for (size_t n = 2; n <= 4; n++) {
        for (size_t slow = 0; slow < n; slow++) {
            double x[4] = { 1000, 983, 992, 1007 };
            long long node[4] = { 0 };
            struct mcf_peer pf[4], pn[4];
            assert_int_equal(mcf_peer_fleet(x, n, 1, &r, pf), 0);
            assert_int_equal(mcf_peer_node(x, node, n, 1, &r, pn), 0);
            assert_int_equal(pf[0].prior, 1);
            x[slow] *= 0.5;
            assert_int_equal(mcf_peer_fleet(x, n, 1, &r, pf), 1);
            assert_int_equal(pf[slow].level, MCF_V_FAIL);
            assert_int_equal(mcf_peer_node(x, node, n, 1, &r, pn), 1);
            assert_int_equal(pn[slow].level, MCF_V_FAIL);
            /* a latency twice as long: the same, the other way */
            double y[4] = { 500, 508, 497, 503 };
            assert_int_equal(mcf_peer_fleet(y, n, -1, &r, pf), 0);
            y[slow] *= 2;
            assert_int_equal(mcf_peer_fleet(y, n, -1, &r, pf), 1);
            assert_int_equal(pf[slow].level, MCF_V_FAIL);
        }
    }
    /* 5 GPUs: the measured spread (the prior flag off) */
    double x[5] = { 1000, 983, 992, 1007, 500 };
    struct mcf_peer p[5];
    assert_int_equal(mcf_peer_fleet(x, 5, 1, &r, p), 1);
    assert_int_equal(p[4].level, MCF_V_FAIL);
    assert_int_equal(p[0].prior, 0);
    /* the host's prior (10 %): a pair 20 % apart passes the fleet rule */
    r.prior_rel = r.host_prior_rel;
    double h[2] = { 1000, 800 };
    assert_int_equal(mcf_peer_fleet(h, 2, 1, &r, p), 0);
}

/* One node's every GPU 10% slow: flagged by the fleet rule and attributed to
 * the node; one slow GPU elsewhere stays the GPU's. */
static void node_wide_attribution(void **state)
{
    (void)state;
    enum { N = 64, G = 4 };
    double x[N];
    long long node[N];
    for (int i = 0; i < N; i++) {
        node[i] = i / G;
        x[i] = 1000 + (i % 7) * 0.5;
    }
    for (int i = 20; i < 24; i++)
        x[i] *= 0.9;
    x[41] *= 0.9;
    struct mcf_peer p[N];
    struct mcf_vrules r;
    mcf_vrules_default(&r);
    assert_int_equal(mcf_peer_fleet(x, N, 1, &r, p), 5);
    struct mcf_causes c = { 0 };
    for (size_t i = 0; i < N; i++)
        if (p[i].level) {
            struct mcf_cause k = { .rank = i, .rule = MCF_RULE_FLEET, .level = p[i].level, .severity = 1 };
            strcpy(k.test, "hbm-triad");
            strcpy(k.metric, "bandwidth_gbs");
            mcf_causes_add(&c, &k);
        }
    mcf_causes_attribute_nodes(&c, N, node);
    for (size_t k = 0; k < c.n; k++)
        assert_int_equal(c.v[k].attr, c.v[k].rank != 41 ? MCF_ATTR_NODE : MCF_ATTR_GPU);
    struct mcf_rollup ro;
    assert_int_equal(mcf_rollup(&c, N, node, &ro), 0);
    assert_int_equal(ro.count[MCF_V_FAIL], 5);
    assert_int_equal(ro.node_count[MCF_V_FAIL], 2);
    assert_int_equal(ro.fleet, MCF_V_FAIL);
    mcf_rollup_free(&ro);
    mcf_causes_free(&c);
}

/* 10,000 GPUs with 1% noise: the old rule printed 55 false outliers. */
static void ten_thousand_with_noise(void **state)
{
    (void)state;
    enum { N = 10000 };
    double *x = malloc(sizeof *x * N);
    struct mcf_peer *p = malloc(sizeof *p * N);
    assert_non_null(x);
    assert_non_null(p);
    uint64_t seed = 7;
    for (int i = 0; i < N; i++)
        x[i] = 1000 * (1 + 0.01 * normal(&seed));
    x[1234] = 850;   /* 15% slow */
    struct mcf_vrules r;
    mcf_vrules_default(&r);
    size_t flagged = mcf_peer_fleet(x, N, 1, &r, p);
    assert_int_equal(p[1234].level, MCF_V_FAIL);
    assert_true(flagged <= 2);   /* alpha = 0.01 expected false flags: 1 is already unlucky */
    free(x);
    free(p);
}

static void rollup_orders_worst_first(void **state)
{
    (void)state;
    struct mcf_causes c = { 0 };
    struct mcf_cause a = { .rank = 3, .level = MCF_V_WARN, .severity = 9 },
                     b = { .rank = 1, .level = MCF_V_FAIL, .severity = 1.5 },
                     d = { .rank = 2, .level = MCF_V_FAIL, .severity = 4 };
    mcf_causes_add(&c, &a);
    mcf_causes_add(&c, &b);
    mcf_causes_add(&c, &d);
    struct mcf_rollup ro;
    assert_int_equal(mcf_rollup(&c, 5, NULL, &ro), 0);
    assert_int_equal(ro.norder, 3);
    assert_int_equal(ro.order[0], 2);
    assert_int_equal(ro.order[1], 1);
    assert_int_equal(ro.order[2], 3);
    assert_int_equal(ro.count[MCF_V_PASS], 2);
    mcf_rollup_free(&ro);
    mcf_causes_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quantile_and_z),
        cmocka_unit_test(shorth_ignores_a_bad_half),
        cmocka_unit_test(tiny_deviation_is_not_flagged),
        cmocka_unit_test(identical_clocks_and_one_slow),
        cmocka_unit_test(direction_of_latency),
        cmocka_unit_test(half_the_fleet_slow),
        cmocka_unit_test(small_node_is_not_flagged),
        cmocka_unit_test(small_fleet_prior),
        cmocka_unit_test(node_wide_attribution),
        cmocka_unit_test(ten_thousand_with_noise),
        cmocka_unit_test(rollup_orders_worst_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
