#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Copies the finite values of x into a fresh buffer; *m is their count. */
static double *finite_copy(const double *x, size_t n, size_t *m)
{
    double *c = malloc((n ? n : 1) * sizeof *c);
    *m = 0;
    if (!c) return NULL;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) c[(*m)++] = x[i];
    return c;
}

size_t mcf_count_finite(const double *x, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) m += isfinite(x[i]) ? 1 : 0;
    return m;
}

double mcf_median(const double *x, size_t n)
{
    size_t m;
    double *c = finite_copy(x, n, &m);
    double r = NAN;
    if (c && m > 0) {
        qsort(c, m, sizeof *c, dcmp);
        r = (m % 2) ? c[m / 2] : 0.5 * (c[m / 2 - 1] + c[m / 2]);
    }
    free(c);
    return r;
}

double mcf_mad(const double *x, size_t n)
{
    size_t m;
    double *c = finite_copy(x, n, &m);
    double r = NAN;
    if (c && m > 0) {
        double med = mcf_median(c, m);
        for (size_t i = 0; i < m; i++) c[i] = fabs(c[i] - med);
        r = mcf_median(c, m);
    }
    free(c);
    return r;
}

double mcf_mean(const double *x, size_t n)
{
    double s = 0.0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) {
            s += x[i];
            m++;
        }
    return m ? s / m : NAN;
}

double mcf_stddev(const double *x, size_t n)
{
    double mean = mcf_mean(x, n), s = 0.0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) {
            s += (x[i] - mean) * (x[i] - mean);
            m++;
        }
    return m > 1 ? sqrt(s / (m - 1)) : (m == 1 ? 0.0 : NAN);
}

double mcf_cv(const double *x, size_t n)
{
    double mean = mcf_mean(x, n);
    return mean != 0.0 ? mcf_stddev(x, n) / fabs(mean) : NAN;
}

double mcf_min(const double *x, size_t n)
{
    double r = NAN;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && (isnan(r) || x[i] < r)) r = x[i];
    return r;
}

double mcf_max(const double *x, size_t n)
{
    double r = NAN;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && (isnan(r) || x[i] > r)) r = x[i];
    return r;
}

size_t mcf_outliers(const double *x, size_t n, double k, int *flag)
{
    double med = mcf_median(x, n), mad = mcf_mad(x, n);
    size_t count = 0;
    memset(flag, 0, n * sizeof *flag);
    if (!isfinite(med) || !isfinite(mad) || mad == 0.0) return 0;
    double half = k * MCF_MAD_SCALE * mad;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && fabs(x[i] - med) > half) {
            flag[i] = 1;
            count++;
        }
    return count;
}
