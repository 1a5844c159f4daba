/* A killed run's results file, rebuilt from its journal (journal.h) without
 * MPI: each segment's calls are replayed as gather mode's close replays them,
 * then /meta says how the run ended: complete = 0, the test that was cut. */
#define _GNU_SOURCE
#include "journal.h"

#include "h5out_int.h"
#include "outpath.h"
#include "record.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SEG_HEAD MCF_JOURNAL_SEG_HEAD
#define MAX_PLANNED 65536

struct rd {
    const char *p;
    size_t len, at;
    int bad;
};

static const char *take(struct rd *r, size_t n)
{
    if (r->bad || n > r->len - r->at) {
        r->bad = 1;
        return NULL;
    }
    r->at += n;
    return r->p + r->at - n;
}

static uint64_t take_u64(struct rd *r)
{
    uint64_t v = 0;
    const char *p = take(r, 8);
    if (p) memcpy(&v, p, 8);
    return v;
}

/* A length-prefixed string, copied with its NUL. */
static char *take_str(struct rd *r)
{
    uint64_t n = take_u64(r);
    const char *p = take(r, (size_t)n);
    char *s = p ? malloc((size_t)n + 1) : NULL;
    if (!s) {
        r->bad = 1;
        return NULL;
    }
    memcpy(s, p, (size_t)n);
    s[n] = '\0';
    return s;
}

static void free_ops(struct mcf_h5_op *ops, size_t n)
{
    for (size_t i = 0; ops && i < n; i++) {
        free(ops[i].path);
        free(ops[i].name);
        free(ops[i].text);
        free(ops[i].data);
    }
    free(ops);
}

struct seg {
    char *label, *planned;
    double unix_s;
    uint64_t nranks;
};

/* One segment's payload: its calls replayed into h. */
static int replay_segment(struct mcf_h5 *h, struct rd *r, struct seg *s, const char *where,
                          struct mcf_err *e)
{
    struct mcf_h5_op *ops = NULL;
    size_t *pos = NULL, *end = NULL;
    uint64_t nops = 0, total = 0;
    const char *d;
    s->label = take_str(r);
    if ((d = take(r, 8))) memcpy(&s->unix_s, d, 8);
    s->planned = take_str(r);
    s->nranks = take_u64(r);
    nops = take_u64(r);
    if (r->bad || s->nranks == 0 || s->nranks > (r->len - r->at) / 8 || nops > r->len / 64 ||
        !isfinite(s->unix_s) || s->unix_s < 0 || s->unix_s > 1e11)
        MCF_FAIL(e, MCF_EINPUT, "%s: a segment's header is not one mcfleet writes", where);
    MCF_ALLOC(e, ops, nops ? nops : 1);
    for (uint64_t i = 0; i < nops && !r->bad; i++) {
        struct mcf_h5_op *op = &ops[i];
        int64_t kind = (int64_t)take_u64(r), ncols = (int64_t)take_u64(r), l = (int64_t)take_u64(r);
        if ((d = take(r, 8))) memcpy(&op->d, d, 8);
        op->kind = (enum mcf_h5_op_kind)kind;
        op->ncols = (int)ncols;
        op->l = l;
        op->n = (size_t)take_u64(r);
        op->width = (size_t)take_u64(r);
        op->path = take_str(r);
        op->name = take_str(r);
        op->text = take_str(r);
        uint64_t nd = take_u64(r);
        const char *data = take(r, (size_t)nd);
        if (r->bad || kind < MCF_OP_GROUP || kind > MCF_OP_LIST_LONG || ncols < 0 ||
            ncols > (1 << 24) || !op->path || !op->name || !op->text) {
            r->bad = 1;
            break;
        }
        /* divisions, not products: a forged n must not wrap around */
        if ((kind == MCF_OP_LIST_LONG &&
             (nd % sizeof(long long) || op->n != nd / sizeof(long long))) ||
            (kind == MCF_OP_LIST_STR &&
             (op->width == 0 || nd % op->width || op->n != nd / op->width))) {
            r->bad = 1;
            break;
        }
        if (nd && !(op->data = malloc((size_t)nd)))
            MCF_FAIL(e, MCF_ERUNTIME, "out of memory rebuilding from %s", where);
        if (nd) memcpy(op->data, data, (size_t)nd);
    }
    if (r->bad)
        MCF_FAIL(e, MCF_EINPUT, "%s: segment '%s' holds a call mcfleet does not write", where,
                 s->label ? s->label : "?");
    MCF_ALLOC(e, pos, s->nranks);
    MCF_ALLOC(e, end, s->nranks);
    for (uint64_t k = 0; k < s->nranks; k++) {
        uint64_t n = take_u64(r);
        pos[k] = (size_t)total;
        total += n;
        end[k] = (size_t)total;
        if (total > r->len) r->bad = 1;
    }
    const char *rows = take(r, (size_t)total);
    if (r->bad || r->at != r->len)
        MCF_FAIL(e, MCF_EINPUT, "%s: segment '%s': its rows do not add up", where,
                 s->label ? s->label : "?");
    struct mcf_h5_rows g = { rows, pos, end, (int)s->nranks };
    mcf_h5_replay(h, ops, (size_t)nops, &g, e);
fail:
    free_ops(ops, (size_t)nops);
    free(pos);
    free(end);
    return e->rc;
}

/* The planned tests, from the start segment's comma-separated list. */
static size_t split(char *list, char **names, size_t max)
{
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t && n < max;
         t = strtok_r(NULL, ",", &save))
        names[n++] = t;
    return n;
}

/* Rank-free claim of <output>.partial: not while a live run holds it; one
 * this rebuild creates is its own to remove (*created). */
static int claim(struct mcf_h5 *h, int *created, struct mcf_err *e)
{
    struct stat st;
    *created = 0;
    /* the output rule (outpath.h): the rebuilt file replaces nothing but an empty regular file */
    if (lstat(h->path, &st) == 0 && mcf_output_kind(st.st_mode))
        MCF_FAIL(
            e, MCF_EINPUT,
            "'%s' is %s: mcfleet writes its output only to a new path or, with --force, over a "
            "regular file; never to a device, FIFO, socket, directory or through a symlink",
            h->path, mcf_output_kind(st.st_mode));
    if (lstat(h->path, &st) == 0 && st.st_size > 0)
        MCF_FAIL(e, MCF_EINPUT, "'%s' exists: nothing to rebuild", h->path);
    h->fd = open(h->partial, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (h->fd >= 0)
        *created = 1;
    else if (errno ==
             EEXIST) /* a killed run's: a regular file, never through a symlink nor a FIFO's wait */
        h->fd = open(h->partial, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (h->fd < 0) MCF_FAIL(e, MCF_ERUNTIME, "cannot open '%s': %s", h->partial, strerror(errno));
    if (fstat(h->fd, &st) != 0)
        MCF_FAIL(e, MCF_ERUNTIME, "cannot stat '%s': %s", h->partial, strerror(errno));
    if (mcf_output_kind(st.st_mode))
        MCF_FAIL(e, MCF_EINPUT, "'%s' is %s, not a killed run's results: not rebuilt over",
                 h->partial, mcf_output_kind(st.st_mode));
    if (flock(h->fd, LOCK_EX | LOCK_NB) != 0)
        MCF_FAIL(e, MCF_EINPUT,
                 "'%s' is being written by a live mcfleet run: its file appears when it ends",
                 h->partial);
    if (ftruncate(h->fd, 0) !=
        0) /* a killed run's: empty in gather mode, a cut image in collective mode */
        MCF_FAIL(e, MCF_ERUNTIME, "cannot truncate '%s': %s", h->partial, strerror(errno));
    if (lstat(h->path, &st) == 0 && st.st_size == 0)
        unlink(h->path); /* an empty file where the results go is nothing: replaced */
    return MCF_OK;
fail:
    return e->rc;
}

/* The journal, read whole while locked: a live run holds its lock (journal.c). */
static int read_journal(const char *path, int *fd, char **buf, size_t *len, struct mcf_err *e)
{
    struct stat st;
    size_t got = 0;
    *buf = NULL;
    *len = 0;
    /* a FIFO in the journal's place must not hold the report in open() */
    if ((*fd = mcf_open_regular(path, O_RDONLY, &st)) < 0)
        return errno == EINVAL ? mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                                             "'%s' is not a regular file: not "
                                             "a journal mcfleet wrote",
                                             path)
                               : mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                                             "cannot open '%s': %s", path, strerror(errno));
    if (flock(*fd, LOCK_EX | LOCK_NB) != 0)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "'%s' belongs to a live mcfleet run: its file "
                           "appears when it ends",
                           path);
    if (fstat(*fd, &st) != 0 || !(*buf = malloc((size_t)st.st_size + 1)))
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "cannot read '%s'", path);
    while (got < (size_t)st.st_size) {
        ssize_t n = read(*fd, *buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    *len = got;
    return MCF_OK;
}

int mcf_journal_rebuild(const char *output, FILE *notes, struct mcf_err *e)
{
    struct mcf_h5 h;
    char jpath[1100], *buf = NULL, *planned = NULL, **names = NULL, end_time[32] = "";
    size_t len = 0, at = 8, nplanned = 0, ndone = 0;
    uint64_t nranks = 0;
    const char *torn = NULL;
    int jfd = -1, created = 0, damaged = 0;
    memset(&h, 0, sizeof h);
    h.file = H5I_INVALID_HID;
    h.fd = -1;
    h.comm = MPI_COMM_NULL; /* no MPI: rank 0 alone, its calls act at once */
    h.mode = MCF_H5_COLLECTIVE;
    h.size = 1;
    snprintf(jpath, sizeof jpath, "%s%s", output, MCF_JOURNAL_SUFFIX);
    snprintf(h.path, sizeof h.path, "%s", output);
    snprintf(h.partial, sizeof h.partial, "%s.partial", output);
    MCF_TRY(read_journal(jpath, &jfd, &buf, &len, e));
    if (len < 8 || memcmp(buf, MCF_JOURNAL_MAGIC, 8) != 0)
        MCF_FAIL(e, MCF_EINPUT, "'%s' is not an mcfleet journal", jpath);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    MCF_TRY(claim(&h, &created, e));
    MCF_H5ID(e, h.file, mcf_h5_in_memory(h.partial));
    MCF_ALLOC(e, names, MAX_PLANNED);
    while (at < len) {
        uint64_t plen;
        uint32_t crc;
        char where[1200];
        struct seg s = { 0 };
        /* a kill can only cut the last write short (one write() a segment): a
         * bad segment with all its bytes there, or a bad head, is damage */
        if (len - at < SEG_HEAD || memcmp(buf + at, MCF_JOURNAL_SEG_MAGIC, 8) != 0) {
            torn = "a segment's head";
            damaged = len - at >= 8;
            break;
        }
        memcpy(&plen, buf + at + 8, 8);
        memcpy(&crc, buf + at + 16, 4);
        if (plen > len - at - SEG_HEAD) {
            torn = "a segment cut short"; /* the write the kill interrupted */
            break;
        }
        if (mcf_crc32((const unsigned char *)buf + at + SEG_HEAD, (size_t)plen) != crc) {
            torn = "a damaged segment";
            damaged = 1;
            break;
        }
        struct rd r = { buf + at + SEG_HEAD, (size_t)plen, 0, 0 };
        snprintf(where, sizeof where, "%s, byte %zu", jpath, at);
        int rc = replay_segment(&h, &r, &s, where, e);
        if (rc == MCF_OK && nranks && s.nranks != nranks)
            mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__, "%s: %llu ranks, the start had %llu",
                        where, (unsigned long long)s.nranks, (unsigned long long)nranks);
        if (rc == MCF_OK && !nranks && strcmp(s.label ? s.label : "", "start") != 0)
            mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                        "%s: the first segment is not the run's start", where);
        if (e->rc == MCF_OK && !nranks) {
            nranks = s.nranks;
            planned = s.planned;
            s.planned = NULL;
            nplanned = split(planned, names, MAX_PLANNED);
        } else if (e->rc == MCF_OK) {
            ndone++;
        }
        time_t t = (time_t)s.unix_s;
        struct tm tm;
        if (e->rc == MCF_OK && gmtime_r(&t, &tm))
            strftime(end_time, sizeof end_time, "%Y-%m-%dT%H:%M:%SZ", &tm);
        free(s.label);
        free(s.planned);
        if (e->rc != MCF_OK) goto fail;
        at += SEG_HEAD + (size_t)plen;
    }
    if (!nranks || !ndone)
        MCF_FAIL(e, MCF_EINPUT,
                 "%s: the run was killed before its first test finished: nothing to rebuild (the "
                 "journal and %s can go)",
                 jpath, h.partial);
    {
        const char *cut = ndone < nplanned ? names[ndone] : "";
        struct mcf_record_end end = {
            .complete = 0,
            .not_run = (const char *const *)names + (ndone < nplanned ? ndone : nplanned),
            .nnot = ndone < nplanned ? nplanned - ndone : 0,
            .cut_test = cut,
            .stop_reason =
                "killed: the run ended without writing its file (SIGKILL, a lost node, or a crash)",
            .end_time = end_time,
            .rebuilt_from = jpath,
            .world_size = (int)nranks,
            .nhung = 0,
            .hung_ranks = "",
        };
        MCF_TRY(mcf_h5_attr_long(&h, "/results", "ntests", (long long)ndone, e));
        MCF_TRY(mcf_record_meta_end(&h, &end, e));
        MCF_TRY(mcf_h5_write_image(&h, e));
        MCF_TRY(mcf_h5_publish(&h, e));
        if (notes)
            fprintf(notes,
                    "mcfleet: %s: the run did not end (killed%s%s); rebuilt from its journal: %zu "
                    "of %zu "
                    "tests%s\n",
                    output, cut[0] ? " in test " : " while writing its file", cut, ndone, nplanned,
                    torn && !damaged ? " (the last segment, cut by the kill, left out)" : "");
        if (notes && damaged)
            fprintf(
                notes,
                "mcfleet: %s: %s at byte %zu of %zu: what follows it is left out, and the journal "
                "is kept\n",
                jpath, torn, at, len);
    }
    if (!damaged) unlink(jpath); /* its content is in the file now */
fail:
    if (h.file >= 0) H5Fclose(h.file);
    if (h.fd >= 0) {
        if (e->rc != MCF_OK && created)
            unlink(h.partial); /* ours; a killed run's stays as it was found (emptied) */
        close(h.fd);
    }
    if (jfd >= 0) close(jfd); /* and its lock */
    free(names);
    free(planned);
    free(buf);
    return e->rc;
}

int mcf_journal_pending(const char *path, char *output, size_t size)
{
    static const char *const suffixes[] = { MCF_JOURNAL_SUFFIX, ".partial" };
    char j[1100];
    struct stat st;
    size_t n = strlen(path);
    snprintf(output, size, "%s", path);
    for (size_t i = 0; i < 2; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && strcmp(path + n - k, suffixes[i]) == 0 && n - k < size) {
            memcpy(output, path, n - k);
            output[n - k] = '\0';
        }
    }
    snprintf(j, sizeof j, "%s%s", output, MCF_JOURNAL_SUFFIX);
    if (stat(j, &st) != 0) return 0;
    return stat(output, &st) != 0 || st.st_size == 0;
}
