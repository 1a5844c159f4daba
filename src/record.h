/* Writes a finished run into the results file: /meta, /ranks, /results.
 * The layout is documented in docs/results-format.md; later issues add to it
 * but never rename. */
#ifndef MCF_RECORD_H
#define MCF_RECORD_H

#include "backend.h"
#include "clocksync.h"
#include "deck.h"
#include "h5out.h"
#include "locality.h"
#include "options.h"
#include "power_run.h"
#include "results.h"
#include "topo.h"

int mcf_record_run(struct mcf_h5 *h5, const struct mcf_topo *topo, const struct mcf_deck *deck,
                   const struct mcf_backend *be, const struct mcf_device_info *dev, int device,
                   const struct mcf_clocksync *cs, const struct mcf_options *o,
                   const char *start_time, const struct mcf_instance *inst,
                   const struct mcf_result *res, int n, const struct mcf_power_run *power, int complete,
                   const struct mcf_locality *loc, struct mcf_err *e);

/* Datasets of a test group that are not metrics (the report skips them). */
extern const char *const mcf_test_bookkeeping[];

#endif
