#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "energy.h"

/* A source updating every 0.1 s, sampled every 0.02 s: power 100 W until
 * t = 1, then 300 W; its energy counter integrates that exactly. */
static size_t synth(struct mcf_psample *s, size_t max)
{
    size_t n = 0;
    for (double t = 0.0; t <= 3.0 + 1e-9 && n < max; t += 0.02, n++) {
        double upd = floor(t / 0.1 + 1e-9) * 0.1;           /* the source's last update */
        s[n].t = t;
        s[n].power_w = upd < 1.0 ? 100.0 : 300.0;
        s[n].energy_j = upd <= 1.0 ? 100.0 * upd : 100.0 + 300.0 * (upd - 1.0);
    }
    return n;
}

static void cadence_is_the_update_interval(void **state)
{
    (void)state;
    struct mcf_psample s[200];
    size_t n = synth(s, 200);
    /* power changes only once, the energy counter every 0.1 s: the source's
     * cadence is its counter's */
    assert_float_equal(mcf_update_cadence(s, n), 0.1, 1e-9);
    assert_true(isnan(mcf_update_cadence_of(s, n, 0)));
    for (size_t i = 0; i < n; i++) s[i].power_w = NAN;
    assert_float_equal(mcf_update_cadence(s, n), 0.1, 1e-9);
    /* nothing ever changes: no cadence */
    for (size_t i = 0; i < n; i++) s[i].energy_j = 5.0;
    assert_true(isnan(mcf_update_cadence(s, n)));
}

static void window_energy_and_power(void **state)
{
    (void)state;
    struct mcf_psample s[200];
    size_t n = synth(s, 200);
    /* 1.5 s to 2.5 s: all at 300 W, 1 s long, 10 updates of the source */
    struct mcf_window_figures w = mcf_window(s, n, 1.5, 2.5, 0.1);
    assert_float_equal(w.energy_j, 300.0, 1e-6);
    assert_float_equal(w.avg_power_w, 300.0, 1e-6);
    assert_float_equal(w.mean_power_w, 300.0, 1e-6);
    assert_int_equal(w.under_sampled, 0);
    /* across the step, 0.5 to 1.5: 50 J + 150 J by the counter */
    w = mcf_window(s, n, 0.5, 1.5, 0.1);
    assert_float_equal(w.energy_j, 200.0, 1e-6);
    /* a window of 0.25 s is under three updates long */
    w = mcf_window(s, n, 2.0, 2.25, 0.1);
    assert_int_equal(w.under_sampled, 1);
    /* no counter: the average is the time-weighted mean of the readings */
    for (size_t i = 0; i < n; i++) s[i].energy_j = NAN;
    w = mcf_window(s, n, 1.5, 2.5, 0.1);
    assert_true(isnan(w.energy_j));
    assert_float_equal(w.avg_power_w, 300.0, 1e-6);
}

static void fit_recovers_known_coefficients(void **state)
{
    (void)state;
    /* P = 0.35 W per TFLOP/s + 92 W, with small symmetric noise */
    double x[] = { 0, 100, 200, 300, 400, 500 }, y[6], noise[] = { 1, -1, 1, -1, 1, -1 };
    for (int i = 0; i < 6; i++) y[i] = 0.35 * x[i] + 92.0 + noise[i];
    double a, b, r2;
    mcf_linfit(x, y, 6, &a, &b, &r2);
    assert_float_equal(a, 0.35, 0.01);
    assert_float_equal(b, 92.0, 1.5);
    assert_true(r2 > 0.99 && r2 < 1.0);
    /* exact line: R^2 = 1; one distinct x: no fit */
    double yy[] = { 2, 4, 6 }, xx[] = { 1, 2, 3 }, same[] = { 5, 5, 5 };
    mcf_linfit(xx, yy, 3, &a, &b, &r2);
    assert_float_equal(a, 2.0, 1e-12);
    assert_float_equal(b, 0.0, 1e-12);
    assert_float_equal(r2, 1.0, 1e-12);
    mcf_linfit(same, yy, 3, &a, &b, &r2);
    assert_true(isnan(a) && isnan(r2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cadence_is_the_update_interval),
        cmocka_unit_test(window_energy_and_power),
        cmocka_unit_test(fit_recovers_known_coefficients),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
