/* Concurrent-stream metrics, as defined in the MI300A paper
 * (shared/seeds/003_*, section 3: overlap efficiency is the fraction of total
 * execution time with more than one kernel running; fairness is
 * 1 - (tmax - tmin)/tmean over per-stream execution times). Pure functions: the
 * backends only return each stream's interval. */
#ifndef MCF_CONCURRENCY_H
#define MCF_CONCURRENCY_H

#ifdef __cplusplus
extern "C" {
#endif

/* Fraction of [min start, max end] during which at least two intervals overlap. */
double mcf_overlap_efficiency(const double *start, const double *end, int n);
/* 1 - (tmax - tmin) / tmean of the durations; 1 for a single stream. */
double mcf_fairness(const double *duration, int n);
/* Wall time of the concurrent run: max end - min start. */
double mcf_wall_time(const double *start, const double *end, int n);

#ifdef __cplusplus
}
#endif

#endif
