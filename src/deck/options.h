/* Command-line options of a run. */
#ifndef MCF_OPTIONS_H
#define MCF_OPTIONS_H

#include <stdio.h>

#include "error.h"
#include "report_opts.h"

/* The longest --deck or -o path, with its NUL: what the run's buffers hold
 * (the output also as FILE.partial). Longer ones are refused, never cut. */
#define MCF_PATH_MAX 1024

struct mcf_options {
    const char *deck; /* NULL: the built-in default deck */
    const char *output; /* NULL: mcfleet-<SLURM_JOB_ID or timestamp>.h5 */
    const char *backend; /* auto, host, cuda, hip */
    const char *h5_mode; /* NULL or "auto": by the results' size (mcf_h5_auto_mode); "collective";
                            "gather" */
    int quick, list, verbose, help, version;
    int force; /* --force: replace an existing output, or a killed run's .partial */
    int power_off; /* --power off: no sampling at all */
    double time_limit_s; /* --time-limit: 0 none given (a Slurm job's time left), -1 'none' */
    int report; /* "mcfleet report FILE" */
    const char *report_file;
    struct mcf_report_opts report_opts; /* "mcfleet report FILE [OPTIONS]" */
    int report_help;
    int sync_rounds;
    char command_line[4096];
    int acceptance; /* --acceptance: the acceptance deck of rank 0's architecture */
};

/* Parses argv; MCF_EINPUT naming the option on a bad one. */
int mcf_options_parse(int argc, char **argv, struct mcf_options *o, struct mcf_err *e);
void mcf_usage(FILE *out);

#endif
