/* Writes the power figures (struct mcf_power_figures, computed by
 * src/power/power_run.c) and the sampled series into the results file:
 * /power/<source>, the tests' power datasets, /power_model. Collective. */
#ifndef MCF_RECORD_POWER_H
#define MCF_RECORD_POWER_H

#include "h5out.h"
#include "power_run.h"

int mcf_record_power(struct mcf_h5 *h, const struct mcf_power_figures *f,
                     const struct mcf_result *res, int n, struct mcf_err *e);

#endif
