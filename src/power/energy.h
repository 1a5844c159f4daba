/* Energy and power over a test window, from a source's samples. Vendor power
 * readings are averaged over windows and updated only every so often, so:
 * energy comes from the cumulative counter (interpolated at the window's
 * edges), the number of distinct readings inside the window is reported, and
 * a window shorter than three update intervals is flagged as under-sampled
 * (Yang, Adamek & Armour, "Part-time Power Measurements", SC'24). */
#ifndef MCF_ENERGY_H
#define MCF_ENERGY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One sample: when it was read (rank 0's time base, s), the power reading
 * (W) and the cumulative energy counter (J); NaN where the source has none. */
struct mcf_psample {
    double t, power_w, energy_j;
};

struct mcf_window_figures {
    double energy_j; /* counter delta interpolated at the edges; NaN without a counter */
    double
        avg_power_w; /* energy / duration, or the time-weighted mean of power without a counter */
    double mean_power_w; /* time-weighted mean of the power readings in the window */
    int readings; /* new readings (power or energy changed) inside the window */
    int under_sampled; /* window < 3 update intervals of the source */
};

/* A reading's update cadence: the median gap between the samples at which
 * its value changed (energy = 1: the counter; 0: power). NaN with fewer than 3. */
double mcf_update_cadence_of(const struct mcf_psample *s, size_t n, int energy);
/* The source's cadence: its energy counter's where it has one (energies come
 * from the counter), else its power reading's. */
double mcf_update_cadence(const struct mcf_psample *s, size_t n);

/* Figures for [t0, t1] from samples sorted by time. cadence may be NaN. */
struct mcf_window_figures mcf_window(const struct mcf_psample *s, size_t n, double t0, double t1,
                                     double cadence);

/* Least-squares fit y = a x + b with the coefficient of determination; NaN
 * where fewer than 2 distinct x. The MI250X Matrix Core paper's power model
 * P = a * TFLOP/s + b (shared/seeds/000_*, Eq. 3). */
void mcf_linfit(const double *x, const double *y, size_t n, double *a, double *b, double *r2);

#ifdef __cplusplus
}
#endif

#endif
