/* The run's journal, <output>.journal: rank 0 appends the run's start before
 * the first test and each test as it finishes (one segment each, checksummed,
 * written with one write() and fdatasync), so that a run killed at any moment
 * (SIGKILL of mpirun or of every rank, an OOM killer, a lost node) keeps what
 * it finished. `mcfleet report OUTPUT` rebuilds OUTPUT from it, without MPI:
 * /meta complete = 0, cut_test names the test in hand, and power and health
 * (computed at the end) are absent. A run that ends writes its file as
 * before and then removes the journal.
 *
 * A segment is the record layer's own calls (record.c), queued by a writer
 * with no file (gather mode's queue, h5queue.h) and gathered to rank 0: the
 * rebuild replays them exactly as gather mode's close does. */
#ifndef MCF_JOURNAL_H
#define MCF_JOURNAL_H

#include <stdio.h>

#include "h5out.h"

#define MCF_JOURNAL_SUFFIX ".journal"
/* The file starts with MAGIC; each segment with SEG_MAGIC, its payload's
 * length (u64) and CRC-32 (u32, then 4 zero bytes): SEG_HEAD bytes. */
#define MCF_JOURNAL_MAGIC "MCFJRNL1"
#define MCF_JOURNAL_SEG_MAGIC "MCFJSEG1"
#define MCF_JOURNAL_SEG_HEAD 24

struct mcf_journal {
    struct mcf_h5 q; /* a writer with no file: the calls are queued until the commit */
    int fd; /* rank 0: the journal; -1 elsewhere, or once it failed */
    int on; /* the same on every rank: commits gather */
    int segments; /* rank 0: segments written */
    double cost_s; /* this rank's time in commits, in all */
    double last_s; /* ... and in the last one (rank 0's delays the next start: runner.c) */
    unsigned long long *got; /* rank 0: each rank's queue length and failure */
    int *counts, *displs; /* rank 0: MPI_Gatherv's */
    long long bytes; /* rank 0: bytes written */
    char path[1100];
};

/* Collective. Rank 0 creates <output>.journal (never an existing one unless
 * force: that is a killed run's, and `mcfleet report OUTPUT` rebuilds it: an
 * input error) and holds it locked for the run, so that no rebuild takes a
 * live run's journal. Any other failure warns and leaves the journal off. */
int mcf_journal_open(struct mcf_journal *j, const char *output, MPI_Comm comm, int force,
                     struct mcf_err *e);
/* Collective: what the record layer queued on every rank since the last
 * commit becomes one segment named label (a test's name, or "start" with
 * planned: the tests in order, comma-separated). A failure to write is not
 * the run's: rank 0 warns once and the journal stops. failed: this rank's
 * calls failed (out of memory): the segment is not written. */
void mcf_journal_commit(struct mcf_journal *j, const char *label, const char *planned, int failed);
/* Stops journalling (after hung ranks: no collective over them). */
void mcf_journal_stop(struct mcf_journal *j);
/* Rank 0 closes it; remove: the results file is in place, the journal goes
 * (so it does when no test finished). Kept, it says how to rebuild. */
void mcf_journal_close(struct mcf_journal *j, int remove);

/* Without MPI: the results file output rebuilt from its journal (output's
 * .journal), published as output. notes: what was done, for the user.
 * MCF_EINPUT: nothing to rebuild from, or the journal is not one. */
int mcf_journal_rebuild(const char *output, FILE *notes, struct mcf_err *e);
/* The results file a path names: itself, or output for output.journal and
 * output.partial; whether it must be rebuilt first (it is absent or empty,
 * and a journal is there). */
int mcf_journal_pending(const char *path, char *output, size_t size);

#endif
