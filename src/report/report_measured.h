/* What a test of a results file measured, as one line of text
 * ("kernel=matrix dtype=fp64 shape=16x8x16 ..."; docs/results-format.md,
 * attribute "measured"). */
#ifndef MCF_REPORT_MEASURED_H
#define MCF_REPORT_MEASURED_H

#include <stddef.h>

#include "report_read.h"

/* The test group g's "measured" attribute, or in an older file the same text
 * rebuilt from its parameter attributes. 1: read into buf; 0: the group has
 * no kernel attribute (nothing to say); -1: malformed (recorded in rd). */
int mcf_rd_measured(struct mcf_rd *rd, hid_t g, const char *gname, char *buf, size_t len);

#endif
