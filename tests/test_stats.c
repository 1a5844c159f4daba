#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "stats.h"

static void median_odd_even_and_nan(void **state)
{
    (void)state;
    double odd[] = { 5, 1, 3 };
    double even[] = { 4, 1, 3, 2 };
    double withnan[] = { NAN, 7, 1, NAN, 4 };
    assert_float_equal(mcf_median(odd, 3), 3.0, 0);
    assert_float_equal(mcf_median(even, 4), 2.5, 0);
    assert_float_equal(mcf_median(withnan, 5), 4.0, 0);
    assert_true(isnan(mcf_median(withnan, 1)));
    assert_int_equal(mcf_count_finite(withnan, 5), 3);
}

static void mad_cv_minmax(void **state)
{
    (void)state;
    double x[] = { 1, 2, 3, 4, 100 };
    /* |x - 3| = 2 1 0 1 97 -> median 1 */
    assert_float_equal(mcf_mad(x, 5), 1.0, 0);
    assert_float_equal(mcf_min(x, 5), 1.0, 0);
    assert_float_equal(mcf_max(x, 5), 100.0, 0);
    double y[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
    /* mean 5, sample stddev sqrt(32/7) */
    assert_float_equal(mcf_mean(y, 8), 5.0, 1e-12);
    assert_float_equal(mcf_stddev(y, 8), sqrt(32.0 / 7.0), 1e-12);
    assert_float_equal(mcf_cv(y, 8), sqrt(32.0 / 7.0) / 5.0, 1e-12);
}

static void outliers_by_mad_rule(void **state)
{
    (void)state;
    /* median 10, MAD 0.1 -> band 10 +- 3.5*1.4826*0.1 = 10 +- 0.519 */
    double x[] = { 10.0, 10.1, 9.9, 10.0, 10.1, 9.9, 10.6, 9.45 };
    int flag[8];
    assert_int_equal(mcf_outliers(x, 8, MCF_OUTLIER_K, flag), 2);
    assert_int_equal(flag[6], 1);   /* 10.6 is outside */
    assert_int_equal(flag[7], 1);   /* 9.45 is outside */
    assert_int_equal(flag[0] + flag[1] + flag[2] + flag[3] + flag[4] + flag[5], 0);
    /* just inside the band is not flagged */
    double y[] = { 10.0, 10.1, 9.9, 10.0, 10.1, 9.9, 10.5 };
    assert_int_equal(mcf_outliers(y, 7, MCF_OUTLIER_K, flag), 0);
}

static void identical_values_have_no_outliers(void **state)
{
    (void)state;
    double x[] = { 3, 3, 3, 3, 3.0001 };
    int flag[5];
    /* MAD 0: nothing is flagged, even the odd one (no scale to judge it by) */
    assert_int_equal(mcf_outliers(x, 5, MCF_OUTLIER_K, flag), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(median_odd_even_and_nan),
        cmocka_unit_test(mad_cv_minmax),
        cmocka_unit_test(outliers_by_mad_rule),
        cmocka_unit_test(identical_values_have_no_outliers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
