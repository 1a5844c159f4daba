/* The fleet summary of a results file: per test metric, the median, min, max
 * and CV across ranks of each rank's median, then the ranks whose median lies
 * outside median +- 3.5 * 1.4826 * MAD, then what did not verify. Printed at
 * the end of a run and by "mcfleet report FILE", from the file in both cases. */
#ifndef MCF_REPORT_H
#define MCF_REPORT_H

#include <stdio.h>

#include "error.h"

int mcf_report_file(const char *path, FILE *out, struct mcf_err *e);

#endif
