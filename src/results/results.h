/* What one rank measured for one test instance, before it is written. */
#ifndef MCF_RESULTS_H
#define MCF_RESULTS_H

#include "deck.h"
#include "error.h"
#include "kernel.h"

struct mcf_sustained;

enum mcf_status {
    MCF_STATUS_VERIFIED = 1, /* ran, and the output matched the reference */
    MCF_STATUS_WRONG = 0, /* ran, and the output was wrong: no timing is reported */
    MCF_STATUS_UNSUPPORTED = -1, /* the backend cannot run this kernel */
    MCF_STATUS_ERROR = -2, /* a runtime failure (allocation, device, timer) */
    MCF_STATUS_NOT_RUN = -3, /* the run was stopped (a signal) before this test */
    MCF_STATUS_HUNG = -4, /* the rank did not reach the test's end in time (watchdog) */
    MCF_STATUS_CUT = -5 /* a repetition was cut short (a stop, or the test's time
                         * limit): no figure, since the output cannot be verified */
};

struct mcf_result {
    const struct mcf_instance *inst;
    enum mcf_status status;
    char message[MCF_ERRMSG_LEN];
    int nmetrics;
    struct mcf_metric metrics[MCF_MAX_METRICS];
    double *values; /* nmetrics x repetitions, NaN where not measured */
    double *rep_start, *rep_end; /* per repetition, on rank 0's time base */
    double start_skew_us;
    int warmup_runs;
    int reps_done; /* timed repetitions completed (fewer when a stop signal came) */
    int any_verified; /* some rank verified it (learnt at the boundary after it) */
    int listed_not_run; /* no rank ran it: in /meta's not-run list (decided at the boundary
                         * that stopped the run, alike on every rank; a row's status -3 is
                         * that rank's alone) */
    double elapsed_s;
    int shared_cores; /* host streams: the node's ranks' stream threads outnumber its CPUs, so a
                       * rank's speedup is its neighbours' doing: recorded, not judged (better
                       * "none", attribute not_judged; alike on every rank) */
    struct mcf_sustained
        *sustained; /* a test with a duration: its trace and figures (sustained.h); else NULL */
};

void mcf_results_free(struct mcf_result *r, int n);

/* Every status as "CODE=name" pairs, comma-separated, written to /results as
 * the attribute status_codes so that readers (analysis/mcfleet_results.py)
 * take the codes from the file, not from a copy of this enum. */
extern const char mcf_status_codes[];

#endif
