/* Options of "mcfleet report": the output format, where SKU profiles are
 * found, and the peer rule's thresholds. Parsed apart from a run's options
 * (options.c hands everything after "report" here). */
#ifndef MCF_REPORT_OPTS_H
#define MCF_REPORT_OPTS_H

#include <stdio.h>

#include "error.h"
#include "verdict.h"

/* TESTS: the JSON's "tests" and each GPU's "environment" alone, for the
 * tools that read a file's tests through the report (a fleet's full JSON is
 * 80 MB at 10^4 GPUs) */
enum mcf_report_format {
    MCF_FORMAT_TEXT,
    MCF_FORMAT_JSON,
    MCF_FORMAT_CSV,
    MCF_FORMAT_LINKS_CSV,
    MCF_FORMAT_TESTS
};

struct mcf_report_opts {
    int format; /* enum mcf_report_format */
    const char *profiles; /* --profiles DIR; NULL: $MCFLEET_PROFILES, then the installed profiles */
    int no_profiles; /* --no-profiles: the peer verdict alone */
    struct mcf_vrules rules; /* --warn, --fail */
    long max_rows; /* --rows N: flagged GPUs printed in text (0: all) */
};

void mcf_report_opts_default(struct mcf_report_opts *o);

/* ARGV[0] is "report"; FILE is the one operand. MCF_EINPUT naming the option
 * on a bad one; *help set for --help (the usage is printed by the caller). */
int mcf_report_opts_parse(int argc, char **argv, struct mcf_report_opts *o, const char **file,
                          int *help, struct mcf_err *e);
void mcf_report_usage(FILE *out);

#endif
