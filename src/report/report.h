/* The acceptance verdict of a results file: PASS, WARN or FAIL per GPU, node
 * and fleet (verdict.h; docs/acceptance.md), the flagged GPUs worst first
 * with their identity and evidence, then per test metric the median, min,
 * max and CV across ranks of each rank's median, what did not verify and the
 * ranks that hung; as text, JSON or CSV (report_opts.h). Printed at the end
 * of a run and by "mcfleet report FILE", from the file in both cases. The
 * file may be hostile: every object is checked before it is read
 * (report_read.h). */
#ifndef MCF_REPORT_H
#define MCF_REPORT_H

#include <stdio.h>

#include "error.h"
#include "report_opts.h"

/* Prints the report of PATH to OUT (OPTS NULL: the defaults) and returns the
 * file's verdict as an exit code (enum mcf_exit):
 *   0  a complete run whose verdict is PASS or WARN;
 *   1  FAIL: some GPU failed a rule (a peer or profile rule, its health, a
 *      test unsupported in an acceptance deck) or a wrong result (status 0);
 *   2  the file cannot be opened or is not a valid mcfleet results file: e
 *      names the file and the first malformed object (all are in the report);
 *   3  the run is incomplete: stopped (complete = 0), tests not run, hung
 *      ranks (status -4 or /hung), repetitions cut short (-5) or runtime
 *      errors (-2); or the report itself failed (out of memory: e says so).
 * When several apply, the first of 2, 3, 1 wins. */
int mcf_report(const char *path, const struct mcf_report_opts *opts, FILE *out, struct mcf_err *e);

/* "mcfleet report": mcf_report in a child process, its messages on ERR; a
 * crash of the reader (the HDF5 library on a corrupt file) is exit 2 with a
 * message naming the file, never a crash of mcfleet. */
int mcf_report_guarded(const char *path, const struct mcf_report_opts *opts, FILE *out, FILE *err);

/* The same for the end of a run, with the default options: returns the
 * report's exit code (the verdict, as mcf_report); an error that kept the
 * file from being read is also set in e unless e already holds one. */
int mcf_report_file(const char *path, FILE *out, struct mcf_err *e);

#endif
