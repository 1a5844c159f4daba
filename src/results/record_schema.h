/* The results file's schema: what each kernel family is, written from its
 * row of mcf_families[] into /meta/families, so that every reader (the C
 * report, compare, baseline, study, health, the exports) takes a test's keys
 * from the file it reads, never from a list of its own. */
#ifndef MCF_RECORD_SCHEMA_H
#define MCF_RECORD_SCHEMA_H

#include "error.h"
#include "h5out.h"

/* /meta/families/<family>, one group a family, attributes:
 *   keys         its keys in their order, comma-separated (the common seed last)
 *   amounts      those that say how much or how long (iterations, seed ...),
 *                left out of the test's "measured" text
 *   quiet        those left out of "measured" at their implied value
 *   implied_KEY  the value a file without KEY implies ("=K": key K's value)
 *   kind         the workload it is: matrix, compute, memory or link
 * /meta/families attribute schema: 1. Each metric's unit and direction are
 * the attributes unit and better of its dataset (docs/results-format.md). */
int mcf_record_schema(struct mcf_h5 *h, struct mcf_err *e);

#endif
