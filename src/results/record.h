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

/* What the file says of the run and of each rank before any test: the same
 * in the journal's start (journal.h) and in the file. */
struct mcf_record_ctx {
    const struct mcf_topo *topo;
    const struct mcf_deck *deck;
    const struct mcf_backend *be;
    const struct mcf_device_info *dev;
    int device;
    const struct mcf_clocksync *cs;
    const struct mcf_options *o;
    const char *start_time;
    const struct mcf_locality *loc;
    int world_rank;
    const char *serial;
    const char *write_mode; /* the file's (gather, collective): the journal's writer is another */
    double clock_origin; /* mcf_record_clock_origin */
};

/* Rank 0's CLOCK_REALTIME - CLOCK_MONOTONIC into c, on every rank. Collective,
 * once before any record: the record calls themselves hold no collective
 * outside the writer's, so a rank that fails in one cannot miss it. */
int mcf_record_clock_origin(struct mcf_record_ctx *c, struct mcf_err *e);

/* How the run ended: /meta's last attributes (complete the very last). */
struct mcf_record_end {
    int complete;
    const char *const *not_run; /* the tests not run, in order */
    size_t nnot;
    const char *cut_test; /* the test in hand when the run stopped ("" none) */
    const char *stop_reason; /* what stopped it ("" it ran to the end) */
    const char *end_time; /* NULL: now */
    const char *rebuilt_from; /* a journal's rebuild: the journal ("" or NULL otherwise) */
    int world_size, nhung;
    const char *hung_ranks;
};

/* The whole file of a finished (or stopped) run. end: complete, cut_test,
 * stop_reason set by the caller; the rest is filled here. */
int mcf_record_run(struct mcf_h5 *h5, const struct mcf_record_ctx *c, const struct mcf_result *res,
                   int n, const struct mcf_power_run *power, const struct mcf_health *health,
                   struct mcf_record_end *end, const struct mcf_watchdog *wd, struct mcf_err *e);
/* Pieces of it, for the journal: /ranks, /results (ntests < 0: left out),
 * /meta's attributes known at the start; one test; /meta's end. */
int mcf_record_start(struct mcf_h5 *h5, const struct mcf_record_ctx *c, int ntests,
                     struct mcf_err *e);
int mcf_record_test(struct mcf_h5 *h5, const struct mcf_result *r, struct mcf_err *e);
int mcf_record_meta_end(struct mcf_h5 *h5, const struct mcf_record_end *end, struct mcf_err *e);

/* About how many bytes the file of a run of these tests will take (the
 * power series aside): checked against the free space before any test. */
double mcf_record_bytes(const struct mcf_instance *inst, int n, unsigned backend_caps, int nranks,
                        size_t deck_len);

/* Datasets of a test group that are not metrics (the report skips them). */
extern const char *const mcf_test_bookkeeping[];

#endif
