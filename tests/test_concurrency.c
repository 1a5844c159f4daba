#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "backend.h"
#include "concurrency.h"
#include "kernel.h"

static void overlap_of_known_intervals(void **state)
{
    (void)state;
    /* [0,4] and [2,6]: two running during [2,4] of a 6 s wall */
    double s[] = { 0, 2 }, e[] = { 4, 6 };
    assert_float_equal(mcf_overlap_efficiency(s, e, 2), 2.0 / 6.0, 1e-12);
    assert_float_equal(mcf_wall_time(s, e, 2), 6.0, 0);
    /* serial, touching: no overlap */
    double s2[] = { 0, 1 }, e2[] = { 1, 2 };
    assert_float_equal(mcf_overlap_efficiency(s2, e2, 2), 0.0, 0);
    /* three streams fully together */
    double s3[] = { 0, 0, 0 }, e3[] = { 5, 5, 5 };
    assert_float_equal(mcf_overlap_efficiency(s3, e3, 3), 1.0, 1e-12);
    /* one stream: never overlapped */
    assert_float_equal(mcf_overlap_efficiency(s, e, 1), 0.0, 0);
}

static void fairness_matches_paper_definition(void **state)
{
    (void)state;
    double d[] = { 1.0, 2.0, 3.0 };     /* 1 - (3-1)/2 = 0 */
    assert_float_equal(mcf_fairness(d, 3), 0.0, 1e-12);
    double even[] = { 2.0, 2.0 };
    assert_float_equal(mcf_fairness(even, 2), 1.0, 1e-12);
    double pair[] = { 1.0, 1.5 };        /* 1 - 0.5/1.25 = 0.6 */
    assert_float_equal(mcf_fairness(pair, 2), 0.6, 1e-12);
}

static double metric(const struct mcf_metric *m, int n, const char *name,
                     const struct mcf_kernel *k, const struct mcf_sample *s)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(m[i].name, name))
            return m[i].value(k, s, m[i].index);
    fail_msg("no metric %s", name);
    return NAN;
}

static void streams_metrics_from_a_sample(void **state)
{
    (void)state;
    struct mcf_kernel k = { .family = MCF_FAMILY_STREAMS, .streams = 2 };
    struct mcf_sample s = { .nstreams = 2 };
    s.stream_alone[0] = 1.0; s.stream_alone[1] = 1.0;
    s.stream_start[0] = 0.0; s.stream_end[0] = 1.5;
    s.stream_start[1] = 0.5; s.stream_end[1] = 1.5;
    struct mcf_metric m[MCF_MAX_METRICS];
    int n = mcf_kernel_metrics(&k, 0, m, MCF_MAX_METRICS);
    assert_float_equal(metric(m, n, "speedup", &k, &s), 2.0 / 1.5, 1e-12);
    assert_float_equal(metric(m, n, "overlap_efficiency", &k, &s), 1.0 / 1.5, 1e-12);
    assert_float_equal(metric(m, n, "stream1_speedup", &k, &s), 1.0, 1e-12);
    assert_float_equal(metric(m, n, "fairness", &k, &s), 1.0 - 0.5 / 1.25, 1e-12);
}

static void rates_from_work_per_unit(void **state)
{
    (void)state;
    struct mcf_kernel mm = { .family = MCF_FAMILY_MATRIX, .shape = { 16, 8, 16 } };
    struct mcf_kernel triad = { .family = MCF_FAMILY_MEMORY, .op = MCF_OP_TRIAD, .dtype = MCF_FP64 };
    struct mcf_sample s = { .seconds = 2.0, .units = 1e9 };
    struct mcf_metric m[MCF_MAX_METRICS];
    int n = mcf_kernel_metrics(&mm, 0, m, MCF_MAX_METRICS);
    assert_float_equal(metric(m, n, "gflops", &mm, &s), 2.0 * 16 * 8 * 16 / 2.0, 1e-9);
    n = mcf_kernel_metrics(&triad, 0, m, MCF_MAX_METRICS);
    assert_float_equal(metric(m, n, "bandwidth_gbs", &triad, &s), 24.0 / 2.0, 1e-12);
    /* a backend that measures clocks adds clock_mhz */
    n = mcf_kernel_metrics(&mm, MCF_CAP_CLOCK, m, MCF_MAX_METRICS);
    s.clock_mhz = 1755;
    assert_float_equal(metric(m, n, "clock_mhz", &mm, &s), 1755, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overlap_of_known_intervals),
        cmocka_unit_test(fairness_matches_paper_definition),
        cmocka_unit_test(streams_metrics_from_a_sample),
        cmocka_unit_test(rates_from_work_per_unit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
