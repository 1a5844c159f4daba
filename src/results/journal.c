#define _GNU_SOURCE
#include "journal.h"

#include "h5out_int.h"
#include "clocksync.h"
#include "outpath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

#define SEG_HEAD MCF_JOURNAL_SEG_HEAD

/* ---- a segment's bytes */

struct buf {
    char *p;
    size_t len, cap;
    int oom;
};

static void put(struct buf *b, const void *v, size_t n)
{
    if (b->oom ||
        n == 0) /* nothing: v may be NULL (a call without data), which memcpy must not get */
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->len + n) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, v, n);
    b->len += n;
}

static void put_u64(struct buf *b, uint64_t v)
{
    put(b, &v, sizeof v);
}
static void put_blob(struct buf *b, const void *v, size_t n)
{
    put_u64(b, n);
    put(b, v, n);
}
static void put_str(struct buf *b, const char *s)
{
    put_blob(b, s ? s : "", s ? strlen(s) : 0);
}

static size_t op_data_bytes(const struct mcf_h5_op *op)
{
    if (op->kind == MCF_OP_LIST_LONG) return op->n * sizeof(long long);
    if (op->kind == MCF_OP_LIST_STR) return op->n * op->width;
    return 0;
}

/* Rank 0: the segment from its calls, every rank's row counts and the rows. */
static void build(struct buf *b, const struct mcf_h5 *q, const char *label, const char *planned,
                  const int *counts, int size, const char *rows, size_t nrows)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    double unix_s = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
    put(b, MCF_JOURNAL_SEG_MAGIC, 8);
    put_u64(b, 0); /* length and checksum, filled in below */
    put_u64(b, 0);
    put_str(b, label);
    put(b, &unix_s, sizeof unix_s);
    put_str(b, planned);
    put_u64(b, (uint64_t)size);
    put_u64(b, q->nops);
    for (size_t i = 0; i < q->nops; i++) {
        const struct mcf_h5_op *op = &q->ops[i];
        int64_t kind = op->kind, ncols = op->ncols, l = op->l;
        put(b, &kind, 8);
        put(b, &ncols, 8);
        put(b, &l, 8);
        put(b, &op->d, 8);
        put_u64(b, op->n);
        put_u64(b, op->width);
        put_str(b, op->path);
        put_str(b, op->name);
        put_str(b, op->text);
        put_blob(b, op->data, op->data ? op_data_bytes(op) : 0);
    }
    for (int r = 0; r < size; r++) put_u64(b, (uint64_t)counts[r]);
    put(b, rows, nrows);
    if (!b->oom) {
        uint64_t len = b->len - SEG_HEAD;
        uint32_t crc = mcf_crc32((const unsigned char *)b->p + SEG_HEAD, len);
        memcpy(b->p + 8, &len, 8);
        memcpy(b->p + 16, &crc, 4);
    }
}

/* ---- writing, during the run */

static void journal_failed(struct mcf_journal *j, const char *what, int err)
{
    if (j->fd >= 0)
        fprintf(stderr,
                "mcfleet: warning: the journal '%s' stops (%s%s%s): a run killed from now on keeps "
                "nothing; the results file is still written at the end\n",
                j->path, what, err ? ": " : "", err ? strerror(err) : "");
    if (j->fd >= 0) close(j->fd);
    j->fd = -1;
}

int mcf_journal_open(struct mcf_journal *j, const char *output, MPI_Comm comm, int force,
                     struct mcf_err *e)
{
    int refuse = 0;
    memset(j, 0, sizeof *j);
    j->fd = -1;
    j->q.comm = comm;
    j->q.mode = MCF_H5_GATHER; /* no file: every call is queued */
    j->q.file = H5I_INVALID_HID;
    j->q.fd = -1;
    MPI_Comm_rank(comm, &j->q.rank);
    MPI_Comm_size(comm, &j->q.size);
    snprintf(j->path, sizeof j->path, "%s%s", output, MCF_JOURNAL_SUFFIX);
    snprintf(j->q.partial, sizeof j->q.partial, "%.1000s", output); /* messages name the output */
    if (j->q.rank == 0) {
        struct stat st;
        const char *kind = NULL;
        j->fd = open(j->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_APPEND, 0644);
        if (j->fd < 0 &&
            errno == EEXIST) { /* only a killed run's journal, a regular file, is replaced */
            kind = lstat(j->path, &st) == 0 ? mcf_output_kind(st.st_mode) : NULL;
            if (!kind && force && unlink(j->path) == 0)
                j->fd = open(j->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_APPEND, 0644);
            else
                errno = EEXIST;
        }
        if (kind) {
            refuse = 1;
            mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                        "-o '%s': '%s' is %s, not a killed run's journal: not "
                        "removed, not even with --force",
                        output, j->path, kind);
        } else if (j->fd < 0 && errno == EEXIST) {
            refuse = 1;
            mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                        "'%s' exists: a killed run's journal; 'mcfleet report "
                        "%s' rebuilds its results (or pass --force to replace it)",
                        j->path, output);
        } else if (j->fd < 0) {
            fprintf(stderr,
                    "mcfleet: warning: no journal: cannot create '%s' (%s): a run killed before "
                    "its end "
                    "keeps nothing; the results file is written at the end as usual\n",
                    j->path, strerror(errno));
        } else if (flock(j->fd, LOCK_EX | LOCK_NB) != 0 ||
                   mcf_write_all(j->fd, MCF_JOURNAL_MAGIC, 8) != 0 ||
                   !(j->got = calloc((size_t)j->q.size * 2, sizeof *j->got)) ||
                   !(j->counts = calloc((size_t)j->q.size, sizeof *j->counts)) ||
                   !(j->displs = calloc((size_t)j->q.size, sizeof *j->displs))) {
            /* held for the run: `mcfleet report` never rebuilds a live run's journal */
            fprintf(stderr,
                    "mcfleet: warning: no journal: '%s': %s: a run killed before its end keeps "
                    "nothing; "
                    "the results file is written at the end as usual\n",
                    j->path, errno ? strerror(errno) : "out of memory");
            close(j->fd);
            unlink(j->path);
            j->fd = -1;
        }
    }
    /* a killed run's journal refuses the run (rank 0's message); any other failure only turns it
     * off */
    int state[2] = { refuse, j->fd >= 0 };
    MCF_MPI(e, MPI_Bcast(state, 2, MPI_INT, 0, comm));
    j->on = state[1];
    if (state[0] && j->q.rank != 0) {
        e->rc = MCF_EINPUT;
        e->agreed = 1;
    }
fail:
    return e->rc;
}

void mcf_journal_commit(struct mcf_journal *j, const char *label, const char *planned, int failed)
{
    double t0 = mcf_now();
    unsigned long long mine[2] = { (unsigned long long)j->q.queue.len, failed != 0 };
    int go = 0;
    char *rows = NULL;
    struct buf b = { 0 };
    if (!j->on) return;
    /* a rank whose queue failed (out of memory) says so: the segment is then not written */
    if (MPI_Gather(mine, 2, MPI_UNSIGNED_LONG_LONG, j->got, 2, MPI_UNSIGNED_LONG_LONG, 0,
                   j->q.comm) != MPI_SUCCESS)
        goto out;
    if (j->q.rank == 0) {
        unsigned long long total = 0;
        go = j->fd >= 0;
        for (int r = 0; r < j->q.size; r++) {
            go &= j->got[2 * r + 1] == 0;
            j->displs[r] = (int)total;
            j->counts[r] = (int)j->got[2 * r];
            total += j->got[2 * r];
        }
        if (go && (total > INT_MAX || !(rows = malloc(total ? total : 1)))) {
            go = 0;
            journal_failed(j, total > INT_MAX ? "a segment over 2 GiB" : "out of memory", 0);
        }
    }
    if (MPI_Bcast(&go, 1, MPI_INT, 0, j->q.comm) != MPI_SUCCESS || !go) goto out;
    if (MPI_Gatherv(j->q.queue.buf, (int)j->q.queue.len, MPI_BYTE, rows, j->counts, j->displs,
                    MPI_BYTE, 0, j->q.comm) != MPI_SUCCESS)
        goto out;
    if (j->q.rank == 0) {
        size_t total = (size_t)j->displs[j->q.size - 1] + (size_t)j->counts[j->q.size - 1];
        int err;
        build(&b, &j->q, label, planned, j->counts, j->q.size, rows, total);
        if (b.oom) {
            journal_failed(j, "out of memory", 0);
        } else if ((err = mcf_write_all(j->fd, b.p, b.len)) != 0 ||
                   (fdatasync(j->fd) != 0 && (err = errno))) {
            journal_failed(j, "writing a segment", err);
        } else {
            j->bytes += (long long)b.len;
            j->segments++;
        }
    }
out:
    free(rows);
    free(b.p);
    mcf_h5_queue_clear(&j->q);
    j->last_s = mcf_now() - t0;
    j->cost_s += j->last_s;
}

void mcf_journal_stop(struct mcf_journal *j)
{
    j->on = 0;
    mcf_h5_queue_clear(&j->q);
}

void mcf_journal_close(struct mcf_journal *j, int remove)
{
    mcf_h5_queue_clear(&j->q);
    free(j->got);
    free(j->counts);
    free(j->displs);
    j->got = NULL;
    j->counts = j->displs = NULL;
    if (j->q.rank == 0 && j->segments < 2)
        remove = 1; /* no test written: nothing to rebuild */
    else if (!remove && j->q.rank == 0)
        fprintf(stderr,
                "mcfleet: the %d test%s finished before this are in '%s': 'mcfleet report %.1000s' "
                "rebuilds the results file from it\n",
                j->segments - 1, j->segments == 2 ? "" : "s", j->path, j->q.partial);
    if (j->q.rank == 0 && j->path[0] && remove) unlink(j->path);
    if (j->fd >= 0) close(j->fd);
    j->fd = -1;
    j->on = 0;
}
