/* Power over a run: sources opened and sampled from before the first test
 * (idle power) to after the last; per-repetition energy and power for every
 * test; the power model per data type; the series in the results file
 * (docs/results-format.md, /power and /power_model). */
#ifndef MCF_POWER_RUN_H
#define MCF_POWER_RUN_H

#include "backend.h"
#include "deck.h"
#include "h5out.h"
#include "results.h"
#include "sampler.h"
#include "topo.h"

struct mcf_power_run {
    struct mcf_sampler sampler;
    int all_on;                /* every rank has a source: per-test figures are recorded */
    int keep_series;           /* write every sample (/power/<source>/t_s ...), or only the figures */
    double idle_t0, idle_t1;   /* the idle window, rank 0's time base */
};

/* Opens the sources (none when off), starts sampling, waits idle_s for the
 * idle window. Collective. */
int mcf_power_begin(struct mcf_power_run *p, const struct mcf_topo *t, const struct mcf_device_info *dev,
                    double period_s, unsigned sources, int off, double clock_offset, double idle_s,
                    struct mcf_err *e);
void mcf_power_end(struct mcf_power_run *p);
/* Collective: /power/<source>/..., the tests' power datasets, /power_model. */
int mcf_power_record(struct mcf_h5 *h, const struct mcf_power_run *p, const struct mcf_result *res, int n,
                     struct mcf_err *e);
void mcf_power_free(struct mcf_power_run *p);

/* Evidence for a GPU's figures over a test window [t0, t1] (rank 0's time
 * base), from the readings whose time held inside it (a reading holds from
 * its sample until the next, as for power): the median SM clock (MHz), the
 * highest temperature (degC), and the OR of NVML's clock-event (throttle)
 * reasons. NaN where the source has no such reading or none fell in. */
struct mcf_evidence {
    double sm_mhz, temp_c_max, throttle;   /* throttle: the bit mask, exact as a double below 2^53 */
};
struct mcf_evidence mcf_window_evidence(const struct mcf_preading *r, size_t n, double t0, double t1);
/* A test's whole window: its first repetition's start to its last one's end
 * (a stopped test keeps its first repetitions); 0, or -1 where it has none. */
int mcf_result_window(const struct mcf_result *r, double *t0, double *t1);

#endif
