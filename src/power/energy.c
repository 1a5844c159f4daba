#include "energy.h"

#include <math.h>
#include <stdlib.h>

#include "stats.h"

/* A new reading from the source: power or the energy counter changed. */
static int changed(const struct mcf_psample *a, const struct mcf_psample *b)
{
    return (isfinite(a->power_w) && isfinite(b->power_w) && a->power_w != b->power_w) ||
        (isfinite(a->energy_j) && isfinite(b->energy_j) && a->energy_j != b->energy_j);
}

double mcf_update_cadence_of(const struct mcf_psample *s, size_t n, int energy)
{
    double *gaps = malloc((n ? n : 1) * sizeof *gaps), last = NAN, r = NAN;
    size_t m = 0;
    if (!gaps) return NAN;
    for (size_t i = 1; i < n; i++) {
        double a = energy ? s[i - 1].energy_j : s[i - 1].power_w,
               b = energy ? s[i].energy_j : s[i].power_w;
        if (isfinite(a) && isfinite(b) && a != b) {
            if (isfinite(last)) gaps[m++] = s[i].t - last;
            last = s[i].t;
        }
    }
    if (m >= 2) r = mcf_median(gaps, m);
    free(gaps);
    return r;
}

double mcf_update_cadence(const struct mcf_psample *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(s[i].energy_j)) return mcf_update_cadence_of(s, n, 1);
    return mcf_update_cadence_of(s, n, 0);
}

/* The counter at time t. A counter is exact when it steps, and between steps
 * it stands still while energy flows: so interpolate linearly between the
 * update points (the first sample showing each new value), not between
 * samples, whose staircase would put up to one step of error on each edge. */
static double counter_at(const struct mcf_psample *s, size_t n, double t)
{
    double t_prev = NAN, e_prev = NAN;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(s[i].energy_j)) continue;
        int update = !isfinite(e_prev) || s[i].energy_j != e_prev;
        if (!update) continue;
        if (s[i].t >= t && isfinite(t_prev)) {
            if (s[i].energy_j < e_prev) return NAN; /* reset or wrap */
            return e_prev + (t - t_prev) / (s[i].t - t_prev) * (s[i].energy_j - e_prev);
        }
        t_prev = s[i].t;
        e_prev = s[i].energy_j;
    }
    return NAN; /* t lies outside the updates seen */
}

struct mcf_window_figures mcf_window(const struct mcf_psample *s, size_t n, double t0, double t1,
                                     double cadence)
{
    struct mcf_window_figures w = { NAN, NAN, NAN, 0, 0 };
    double weighted = 0.0, covered = 0.0;
    if (!(t1 > t0)) return w;
    double e0 = counter_at(s, n, t0), e1 = counter_at(s, n, t1);
    if (isfinite(e0) && isfinite(e1) &&
        e1 >= e0) /* a counter that went back was reset or wrapped */
        w.energy_j = e1 - e0;
    /* each power reading holds from its sample until the next */
    for (size_t i = 0; i + 1 < n; i++) {
        double a = s[i].t > t0 ? s[i].t : t0, b = s[i + 1].t < t1 ? s[i + 1].t : t1;
        if (b > a && isfinite(s[i].power_w)) {
            weighted += s[i].power_w * (b - a);
            covered += b - a;
        }
        if (s[i + 1].t > t0 && s[i + 1].t <= t1 && changed(&s[i], &s[i + 1])) w.readings++;
    }
    if (covered > 0) w.mean_power_w = weighted / covered;
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
            sx += x[i];
            sy += y[i];
            sxx += (long double)x[i] * x[i];
            sxy += (long double)x[i] * y[i];
            m++;
        }
    long double d = m * sxx - sx * sx;
    if (m < 2 || d <= 0) return;
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
