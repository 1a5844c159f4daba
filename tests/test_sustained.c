/* Sustained tests (src/run/sustained.c): the windows a repetition goes to,
 * steady-state detection on synthetic traces, the figures at the limit, the
 * time to reach it and the time throttled. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "sustained.h"

#define N 20

/* A trace of n windows, every column NaN but a full second of span. */
struct trace {
    double col[MCF_TRACE_COUNT][64];
    double *p[MCF_TRACE_COUNT];
};

static void blank(struct trace *t, int n)
{
    for (int f = 0; f < MCF_TRACE_COUNT; f++) {
        t->p[f] = t->col[f];
        for (int w = 0; w < 64; w++)
            t->col[f][w] = f == MCF_TRACE_SPAN && w < n ? 1.0 : NAN;
    }
}

/* rate[w] with the work of a whole busy second, power[w]. */
static void fill(struct trace *t, int n, const double *rate, const double *power)
{
    blank(t, n);
    for (int w = 0; w < n; w++) {
        t->col[MCF_TRACE_RATE][w] = rate[w];
        t->col[MCF_TRACE_WORK][w] = rate[w];
        t->col[MCF_TRACE_POWER][w] = power ? power[w] : NAN;
        t->col[MCF_TRACE_CLOCK][w] = 1500 + w;
    }
}

/* A GPU reaching its cap: power climbs from idle for 3 s, the clock (and the
 * rate) falls while the chip heats for 8 s, then both hold within 0.5 %. */
static void ramp_then_flat(void **state)
{
    (void)state;
    double rate[N], power[N];
    struct trace t;
    for (int w = 0; w < N; w++) {
        power[w] = w < 3 ? 100.0 + 70.0 * w : 300.0 * (1 + 0.004 * ((w % 3) - 1));
        rate[w] = w < 8 ? 1000.0 * (1.10 - 0.01 * w) : 1000.0 * (1 + 0.003 * ((w % 2) ? 1 : -1));
    }
    assert_int_equal(mcf_steady_from(rate, power, N, MCF_STEADY_BAND), 8);   /* window 7: 1030, 3 % above */
    fill(&t, N, rate, power);
    struct mcf_steady st = mcf_steady_figures(t.p, N);
    assert_int_equal(st.found, 1);
    assert_int_equal(st.from, 8);
    assert_int_equal(st.to, N);
    assert_float_equal(st.start_s, 8.0, 1e-12);
    double work = 0, joules = 0;
    for (int w = 8; w < N; w++) {
        work += rate[w];
        joules += power[w];
    }
    assert_float_equal(st.rate, work / (N - 8), 1e-9);          /* each window's work took one second */
    assert_float_equal(st.power_w, joules / (N - 8), 1e-9);
    assert_float_equal(st.j_per_unit, joules / work, 1e-12);
    assert_float_equal(st.clock_mhz, 1500 + (8 + N - 1) / 2.0, 1e-9);   /* median of 1508..1519 */
    assert_true(isnan(st.sm_mhz));                               /* no source clock read */
    assert_true(isnan(st.throttled_fraction) && isnan(st.throttle_reasons));
    /* only the power moving: the detection sees it alone */
    for (int w = 0; w < N; w++)
        rate[w] = 1000.0;
    assert_int_equal(mcf_steady_from(rate, power, N, MCF_STEADY_BAND), 3);
}

static void flat_from_the_start(void **state)
{
    (void)state;
    double rate[N], power[N];
    struct trace t;
    for (int w = 0; w < N; w++) {
        rate[w] = 500.0;
        power[w] = 200.0;
    }
    assert_int_equal(mcf_steady_from(rate, power, N, MCF_STEADY_BAND), 0);
    fill(&t, N, rate, power);
    struct mcf_steady st = mcf_steady_figures(t.p, N);
    assert_int_equal(st.found, 1);
    assert_int_equal(st.from, 0);
    assert_float_equal(st.start_s, 0.0, 0);
    assert_float_equal(st.rate, 500.0, 1e-9);
    assert_float_equal(st.j_per_unit, 200.0 / 500.0, 1e-12);
    /* two windows are the least that can be steady; one is never */
    assert_int_equal(mcf_steady_from(rate, power, 2, MCF_STEADY_BAND), 0);
    assert_int_equal(mcf_steady_from(rate, power, 1, MCF_STEADY_BAND), -1);
}

/* A rate that swings by 10 % to the end: never steady; the figures are over
 * the last half and say so. */
static void never_steady(void **state)
{
    (void)state;
    double rate[N], power[N];
    struct trace t;
    for (int w = 0; w < N; w++) {
        rate[w] = w % 2 ? 1100.0 : 900.0;
        power[w] = 300.0;
    }
    assert_int_equal(mcf_steady_from(rate, power, N, MCF_STEADY_BAND), -1);
    fill(&t, N, rate, power);
    struct mcf_steady st = mcf_steady_figures(t.p, N);
    assert_int_equal(st.found, 0);
    assert_int_equal(st.from, N / 2);
    assert_true(isnan(st.start_s));
    /* work over time: (10 x 900 + 10 x 1100 units... ) over the seconds they took */
    double work = 0, busy = 0;
    for (int w = N / 2; w < N; w++) {
        work += rate[w];
        busy += 1.0;
    }
    assert_float_equal(st.rate, work / busy, 1e-9);
    /* steady only in the last 3 windows of 20: shorter than the last quarter */
    for (int w = 0; w < N; w++)
        rate[w] = w < N - 3 ? 700.0 + 10 * w : 1000.0;
    assert_int_equal(mcf_steady_from(rate, power, N, MCF_STEADY_BAND), -1);
    /* a change in the last window: never steady, however flat before */
    for (int w = 0; w < N; w++)
        rate[w] = w < N - 1 ? 1000.0 : 900.0;
    assert_int_equal(mcf_steady_from(rate, power, N, MCF_STEADY_BAND), -1);
}

/* No power reading at all, or in some windows: the rate decides alone, and
 * the energy is over the windows that have power. */
static void power_missing(void **state)
{
    (void)state;
    double rate[N], power[N];
    struct trace t;
    for (int w = 0; w < N; w++) {
        rate[w] = w < 5 ? 2000.0 - 100 * w : 1000.0;
        power[w] = NAN;
    }
    assert_int_equal(mcf_steady_from(rate, power, N, MCF_STEADY_BAND), 5);
    fill(&t, N, rate, power);
    struct mcf_steady st = mcf_steady_figures(t.p, N);
    assert_int_equal(st.from, 5);
    assert_float_equal(st.rate, 1000.0, 1e-9);
    assert_true(isnan(st.power_w) && isnan(st.j_per_unit));
    /* power in every other window, and one far off where there is none: a
     * missing reading is no evidence against steadiness */
    for (int w = 0; w < N; w++)
        power[w] = w % 2 ? 250.0 : NAN;
    assert_int_equal(mcf_steady_from(rate, power, N, MCF_STEADY_BAND), 5);
    fill(&t, N, rate, power);
    st = mcf_steady_figures(t.p, N);
    assert_float_equal(st.power_w, 250.0, 1e-9);
    assert_float_equal(st.j_per_unit, 250.0 / 1000.0, 1e-12);   /* only the windows with power count their work */
    /* neither series has a reading: nothing to decide from */
    for (int w = 0; w < N; w++)
        rate[w] = power[w] = NAN;
    assert_int_equal(mcf_steady_from(rate, power, N, MCF_STEADY_BAND), -1);
    fill(&t, N, rate, power);   /* a latency test without a source: no figures, and not "never steady" */
    t.col[MCF_TRACE_THROTTLE][0] = 0x4;
    st = mcf_steady_figures(t.p, N);
    assert_int_equal(st.from, -1);
    assert_int_equal(st.found, 0);
    assert_true(isnan(st.rate) && isnan(st.clock_mhz) && isnan(st.start_s));
    assert_float_equal(st.throttled_fraction, 1.0, 0);   /* what was read is still said */
}

static void throttled_fraction(void **state)
{
    (void)state;
    double rate[N], power[N];
    struct trace t;
    for (int w = 0; w < N; w++) {
        rate[w] = 1000.0;
        power[w] = 300.0;
    }
    fill(&t, N, rate, power);
    for (int w = 0; w < N; w++)   /* 0-9 free, 10-17 at the power cap, 18 thermal too, 19 not read */
        t.col[MCF_TRACE_THROTTLE][w] = w < 10 ? 0.0 : w < 18 ? 0x4 : w == 18 ? 0x44 : NAN;
    t.col[MCF_TRACE_THROTTLE][3] = 0x1;    /* idle: not a limit */
    t.col[MCF_TRACE_THROTTLE][4] = 0x10;   /* sync boost: not a limit */
    struct mcf_steady st = mcf_steady_figures(t.p, N);
    assert_float_equal(st.throttled_fraction, 9.0 / 19.0, 1e-12);
    assert_float_equal(st.throttle_reasons, (double)0x44, 0);
    for (int w = 0; w < N; w++)
        t.col[MCF_TRACE_THROTTLE][w] = 0.0;
    st = mcf_steady_figures(t.p, N);
    assert_float_equal(st.throttled_fraction, 0.0, 0);
    assert_float_equal(st.throttle_reasons, 0.0, 0);
}

/* Repetitions of 0.4 s going to 1 s windows: a rate is work over device time
 * in the window (a repetition split between windows by its time in each),
 * another metric the median of the repetitions overlapping the window. */
static void windows_of_repetitions(void **state)
{
    (void)state;
    const unsigned char is_rate[2] = { 1, 0 };
    struct mcf_sustained_acc a;
    double values[2 * 6], span[2 * 6];
    assert_int_equal(mcf_acc_init(&a, 6, is_rate, 2), 0);
    for (int k = 0; k < 5; k++) {   /* [0, 0.4], [0.4, 0.8], ... [1.6, 2.0]: rates 10..50, clocks 100..500 */
        double v[2] = { 10.0 * (k + 1), 100.0 * (k + 1) };
        assert_int_equal(mcf_acc_add(&a, 0.4 * k, 0.4 * (k + 1), 0.4, v), 0);
    }
    double v[2] = { 7.0, 700.0 };   /* one repetition of 3 s, from 2.5 s: through windows 2 to 5 */
    assert_int_equal(mcf_acc_add(&a, 2.5, 5.5, 3.0, v), 0);
    assert_int_equal(mcf_acc_close(&a, values, span), 6);
    /* window 0: 0.4 s at 10, 0.4 s at 20, 0.2 s of the third at 30 */
    assert_float_equal(values[0], (0.4 * 10 + 0.4 * 20 + 0.2 * 30) / 1.0, 1e-12);
    assert_float_equal(values[6 + 0], 200.0, 0);   /* median of 100, 200, 300 */
    /* window 1: the rest of the third, the fourth and the fifth */
    assert_float_equal(values[1], (0.2 * 30 + 0.4 * 40 + 0.4 * 50) / 1.0, 1e-12);
    assert_float_equal(values[6 + 1], 400.0, 0);   /* median of 300, 400, 500 */
    /* windows 2-5: the long repetition alone (window 2 has no other) */
    for (int w = 2; w < 6; w++) {
        assert_float_equal(values[w], 7.0, 1e-12);
        assert_float_equal(values[6 + w], 700.0, 0);
    }
    /* spans: the windows between the first start and the last end */
    assert_float_equal(span[0], 0.0, 0);
    assert_float_equal(span[1], 1.0, 0);
    assert_float_equal(span[2 * 5], 5.0, 0);
    assert_float_equal(span[2 * 5 + 1], 5.5, 0);
    mcf_acc_free(&a);

    /* a stop after 1.5 s of 6: the windows after it have no figure and no span */
    assert_int_equal(mcf_acc_init(&a, 6, is_rate, 2), 0);
    for (int k = 0; k < 3; k++)
        assert_int_equal(mcf_acc_add(&a, 0.5 * k, 0.5 * (k + 1), 0.5, v), 0);
    assert_int_equal(mcf_acc_close(&a, values, span), 2);
    assert_float_equal(values[1], 7.0, 1e-12);
    assert_float_equal(span[3], 1.5, 0);
    for (int w = 2; w < 6; w++)
        assert_true(isnan(values[w]) && isnan(values[6 + w]) && isnan(span[2 * w]));
    mcf_acc_free(&a);
}

/* The whole path over a rank's readings: a source at 20 ms whose power
 * climbs from 100 W to its 300 W cap in 0.5 s, held there with the
 * power-cap reason; a test of 4 one-second windows from t0 = 10 s. */
static void finish_from_readings(void **state)
{
    (void)state;
    struct mcf_metric m[2] = { { .name = "gflops", .unit = "GFLOP/s" }, { .name = "clock_mhz", .unit = "MHz" } };
    struct mcf_sustained s;
    double values[2 * 4], start[4], end[4];
    size_t n = 0;
    struct mcf_preading *r = calloc(400, sizeof *r);
    assert_non_null(r);
    assert_int_equal(mcf_sustained_init(&s, 4, m, 2), 0);
    mcf_sustained_start(&s, 10.0);
    for (int k = 0; k < 40; k++) {   /* 0.1 s repetitions at 1000 GFLOP/s and 1700 MHz */
        double v[2] = { 1000.0, 1700.0 };
        assert_int_equal(mcf_sustained_add(&s, 10.0 + 0.1 * k, 10.0 + 0.1 * (k + 1), 0.1, v), 0);
    }
    assert_int_equal(mcf_sustained_close(&s, values, start, end), 4);
    assert_int_equal(s.reps, 40);
    for (double t = 9.0; t < 15.0; t += 0.02, n++) {
        mcf_preading_blank(&r[n]);
        r[n].s.t = t;
        r[n].s.power_w = t < 10.0 ? 100.0 : t < 10.5 ? 100.0 + 400.0 * (t - 10.0) : 300.0;
        r[n].sm_mhz = 1755;
        r[n].temp_c = 50 + (t - 9.0);
        r[n].throttle = t < 10.5 ? 0 : 0x4;
        r[n].throttle_read = 1;
    }
    assert_int_equal(mcf_sustained_finish(&s, r, n, start, end, 1, 1), 0);
    for (int w = 0; w < 4; w++) {
        assert_float_equal(s.trace[MCF_TRACE_RATE][w], 1000.0, 1e-9);
        assert_float_equal(s.trace[MCF_TRACE_WORK][w], 1000.0, 1e-6);
        assert_float_equal(s.trace[MCF_TRACE_CLOCK][w], 1700.0, 0);
        assert_float_equal(s.trace[MCF_TRACE_SM_MHZ][w], 1755.0, 0);
        assert_float_equal(s.trace[MCF_TRACE_SPAN][w], 1.0, 1e-9);
    }
    assert_true(s.trace[MCF_TRACE_POWER][0] > 200 && s.trace[MCF_TRACE_POWER][0] < 300);   /* the climb */
    assert_float_equal(s.trace[MCF_TRACE_POWER][2], 300.0, 1e-9);
    assert_float_equal(s.trace[MCF_TRACE_THROTTLE][0], (double)0x4, 0);   /* capped in part of it */
    assert_true(s.trace[MCF_TRACE_TEMP][3] > s.trace[MCF_TRACE_TEMP][0]);
    const struct mcf_steady *st = &s.steady;
    assert_int_equal(st->found, 1);
    assert_int_equal(st->from, 1);                        /* window 0 is the climb */
    assert_float_equal(st->power_w, 300.0, 1e-9);
    assert_float_equal(st->j_per_unit, 0.3, 1e-9);        /* 300 J per 1000 GFLOP */
    assert_float_equal(st->sm_mhz, 1755.0, 0);
    /* 97 % of 300 W: 291 W, read first at 10.48 s */
    assert_float_equal(st->time_to_limit_s, 0.48, 1e-6);
    assert_float_equal(st->throttled_fraction, 1.0, 0);   /* every window had the cap in it */

    /* a cut test keeps its kernel's trace but has no figures; a wrong one keeps neither */
    assert_int_equal(mcf_sustained_finish(&s, r, n, start, end, 0, 0), 0);
    assert_true(isnan(s.trace[MCF_TRACE_RATE][1]) && isnan(s.trace[MCF_TRACE_CLOCK][1]));
    assert_float_equal(s.trace[MCF_TRACE_POWER][2], 300.0, 1e-9);
    mcf_sustained_free(&s);
    free(r);
}

static void time_to_level(void **state)
{
    (void)state;
    struct mcf_psample s[5] = { { 0.0, 300, NAN }, { 1.0, 100, NAN }, { 1.5, 250, NAN }, { 2.0, NAN, NAN },
                                { 2.5, 299, NAN } };
    assert_float_equal(mcf_time_to_level(s, 5, 1.0, 3.0, 291.0), 1.5, 0);   /* not the reading before t0 */
    assert_true(isnan(mcf_time_to_level(s, 5, 1.0, 2.4, 291.0)));          /* not after t1 */
}

static void instances_and_limits(void **state)
{
    (void)state;
    struct mcf_instance in[2] = { { .repetitions = 10, .warmup = 2, .time_limit = 30, .duration = 60 },
                                  { .repetitions = 10, .warmup = 2, .time_limit = 30 } };
    assert_int_equal(mcf_sustained_time_limit(&in[0]), 90);   /* the limit counts from the duration's end */
    assert_int_equal(mcf_sustained_time_limit(&in[1]), 30);
    mcf_sustained_instances(in, 2);
    assert_int_equal(in[0].repetitions, 60);
    assert_int_equal(in[0].warmup, 0);
    assert_int_equal(in[1].repetitions, 10);
    assert_int_equal(in[1].warmup, 2);
    in[0].time_limit = 0;
    assert_int_equal(mcf_sustained_time_limit(&in[0]), 0);    /* none: the watchdog's own rule */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ramp_then_flat),
        cmocka_unit_test(flat_from_the_start),
        cmocka_unit_test(never_steady),
        cmocka_unit_test(power_missing),
        cmocka_unit_test(throttled_fraction),
        cmocka_unit_test(windows_of_repetitions),
        cmocka_unit_test(finish_from_readings),
        cmocka_unit_test(time_to_level),
        cmocka_unit_test(instances_and_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
