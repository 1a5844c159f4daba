/* Writes a finished run into the results file: /meta, /ranks, /results.
 * The layout is documented in docs/results-format.md; later issues add to it
 * but never rename. */
#ifndef MCF_RECORD_H
#define MCF_RECORD_H

#include "backend.h"
#include "clocksync.h"
#include "deck.h"
#include "h5out.h"
#include "health.h"
#include "locality.h"
#include "options.h"
#include "power_run.h"
#include "results.h"
#include "topo.h"
#include "watchdog.h"

int mcf_record_run(struct mcf_h5 *h5, const struct mcf_topo *topo, const struct mcf_deck *deck,
                   const struct mcf_backend *be, const struct mcf_device_info *dev, int device,
                   const struct mcf_clocksync *cs, const struct mcf_options *o,
                   const char *start_time, const struct mcf_result *res, int n,
                   const struct mcf_power_run *power, const struct mcf_health *health, int complete, const struct mcf_locality *loc,
                   const struct mcf_watchdog *wd, struct mcf_err *e);

/* About how many bytes the file of a run of these tests will take (the
 * power series aside): checked against the free space before any test. */
double mcf_record_bytes(const struct mcf_instance *inst, int n, unsigned backend_caps, int nranks, size_t deck_len);

/* Datasets of a test group that are not metrics (the report skips them). */
extern const char *const mcf_test_bookkeeping[];

#endif
