/* A sustained test's trace and figures at the limit in the results file
 * (src/run/sustained.h computes them; docs/results-format.md). */
#ifndef MCF_RECORD_SUSTAINED_H
#define MCF_RECORD_SUSTAINED_H

#include "deck.h"
#include "h5out.h"
#include "results.h"

/* Under the test's group g: trace/<field> [nranks, windows], repetitions_run
 * [nranks], and where some rank verified (any_ran) the figures [nranks, 1],
 * named in the group's attribute sustained_summary. Nothing for a test
 * without a duration. Collective; the same calls on every rank. */
int mcf_record_sustained(struct mcf_h5 *h, const char *g, const struct mcf_result *r, int any_ran,
                         struct mcf_err *e);

/* About how many bytes a test's trace and figures take (0 without a duration). */
double mcf_sustained_bytes(const struct mcf_instance *in, int nranks);

#endif
