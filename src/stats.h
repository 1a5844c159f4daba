/* Robust statistics for fleet variation. NaN values (ranks that did not
 * produce a figure) are ignored by every function; n counts what was passed. */
#ifndef MCF_STATS_H
#define MCF_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The outlier rule: outside median +- MCF_OUTLIER_K * 1.4826 * MAD. */
#define MCF_OUTLIER_K 3.5
#define MCF_MAD_SCALE 1.4826

double mcf_median(const double *x, size_t n);
double mcf_mad(const double *x, size_t n); /* unscaled median absolute deviation */
double mcf_mean(const double *x, size_t n);
double mcf_stddev(const double *x, size_t n); /* sample (n-1) */
double mcf_cv(const double *x, size_t n); /* stddev / mean */
double mcf_min(const double *x, size_t n);
double mcf_max(const double *x, size_t n);
size_t mcf_count_finite(const double *x, size_t n);

/* Flags x[i] outside median +- k * 1.4826 * MAD (flag[i] = 1). A zero MAD
 * flags nothing: identical values are not outliers of each other. Returns
 * the number flagged. */
size_t mcf_outliers(const double *x, size_t n, double k, int *flag);

#ifdef __cplusplus
}
#endif

#endif
