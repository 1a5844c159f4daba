#include "energy.h"

#include <math.h>
#include <stdlib.h>

#include "stats.h"

static double value_of(const struct mcf_psample *p, int use_energy)
{
    return use_energy ? p->energy_j : p->power_w;
}

/* Which field shows the source's updates: power when it has it, else energy. */
static int tracks_energy(const struct mcf_psample *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(s[i].power_w))
            return 0;
    return 1;
}

double mcf_update_cadence(const struct mcf_psample *s, size_t n)
{
    int e = tracks_energy(s, n);
    double *gaps = malloc((n ? n : 1) * sizeof *gaps), last = NAN, r = NAN;
    size_t m = 0;
    if (!gaps)
        return NAN;
    for (size_t i = 1; i < n; i++) {
        double a = value_of(&s[i - 1], e), b = value_of(&s[i], e);
        if (isfinite(a) && isfinite(b) && a != b) {
            if (isfinite(last))
                gaps[m++] = s[i].t - last;
            last = s[i].t;
        }
    }
    if (m >= 2)
        r = mcf_median(gaps, m);
    free(gaps);
    return r;
}

/* The counter at time t, interpolated between the samples around it. */
static double counter_at(const struct mcf_psample *s, size_t n, double t)
{
    size_t lo = 0;
    while (lo + 1 < n && s[lo + 1].t <= t)
        lo++;
    if (lo + 1 >= n || !isfinite(s[lo].energy_j) || !isfinite(s[lo + 1].energy_j) || s[lo].t > t)
        return NAN;
    double f = (t - s[lo].t) / (s[lo + 1].t - s[lo].t);
    return s[lo].energy_j + f * (s[lo + 1].energy_j - s[lo].energy_j);
}

struct mcf_window_figures mcf_window(const struct mcf_psample *s, size_t n, double t0, double t1, double cadence)
{
    struct mcf_window_figures w = { NAN, NAN, NAN, 0, 0 };
    int e = tracks_energy(s, n);
    double weighted = 0.0, covered = 0.0;
    if (!(t1 > t0))
        return w;
    double e0 = counter_at(s, n, t0), e1 = counter_at(s, n, t1);
    if (isfinite(e0) && isfinite(e1) && e1 >= e0)   /* a counter that went back was reset or wrapped */
        w.energy_j = e1 - e0;
    /* each power reading holds from its sample until the next */
    for (size_t i = 0; i + 1 < n; i++) {
        double a = s[i].t > t0 ? s[i].t : t0, b = s[i + 1].t < t1 ? s[i + 1].t : t1;
        if (b > a && isfinite(s[i].power_w)) {
            weighted += s[i].power_w * (b - a);
            covered += b - a;
        }
        if (s[i + 1].t > t0 && s[i + 1].t <= t1 && isfinite(value_of(&s[i], e)) &&
            value_of(&s[i + 1], e) != value_of(&s[i], e))
            w.readings++;
    }
    if (covered > 0)
        w.mean_power_w = weighted / covered;
    w.avg_power_w = isfinite(w.energy_j) ? w.energy_j / (t1 - t0) : w.mean_power_w;
    w.under_sampled = !isfinite(cadence) || (t1 - t0) < 3.0 * cadence;
    return w;
}

void mcf_linfit(const double *x, const double *y, size_t n, double *a, double *b, double *r2)
{
    long double sx = 0, sy = 0, sxx = 0, sxy = 0;
    size_t m = 0;
    *a = *b = *r2 = NAN;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && isfinite(y[i])) {
            sx += x[i]; sy += y[i]; sxx += (long double)x[i] * x[i]; sxy += (long double)x[i] * y[i];
            m++;
        }
    long double d = m * sxx - sx * sx;
    if (m < 2 || d <= 0)
        return;
    *a = (double)((m * sxy - sx * sy) / d);
    *b = (double)((sy - *a * sx) / m);
    long double mean = sy / m, ss_res = 0, ss_tot = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && isfinite(y[i])) {
            long double r = y[i] - (*a * x[i] + *b), t = y[i] - mean;
            ss_res += r * r;
            ss_tot += t * t;
        }
    *r2 = ss_tot > 0 ? (double)(1.0L - ss_res / ss_tot) : 1.0;
}
