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

#endif
