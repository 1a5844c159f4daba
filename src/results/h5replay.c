/* Gather mode's replay on rank 0 alone, and the in-memory file's write-through
 * (h5out_int.h); a journal's rebuild (journal.c) uses the same. */
#define _GNU_SOURCE
#include "h5out_int.h"

#include "outpath.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

hid_t mcf_h5_in_memory(const char *path)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f = H5I_INVALID_HID;
    if (fapl < 0) return H5I_INVALID_HID;
    if (H5Pset_fapl_core(fapl, (size_t)1 << 20, 0) >= 0)
        f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    return f;
}

/* A whole dataset from rank 0's buffer (chunked and compressed when asked). */
static int put_dataset(struct mcf_h5 *h, const char *path, hid_t type, int rank,
                       const hsize_t *dims, const void *buf, int compress, struct mcf_err *e)
{
    hid_t space = H5I_INVALID_HID, dset = H5I_INVALID_HID, lcpl = H5I_INVALID_HID,
          dcpl = H5P_DEFAULT;
    hsize_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    MCF_H5ID(e, space, H5Screate_simple(rank, dims, NULL));
    MCF_H5ID(e, lcpl, H5Pcreate(H5P_LINK_CREATE));
    MCF_H5(e, H5Pset_create_intermediate_group(lcpl, 1));
    if (compress) {
        hsize_t chunk = n < 65536 ? (n ? n : 1) : 65536;
        MCF_H5ID(e, dcpl, H5Pcreate(H5P_DATASET_CREATE));
        MCF_H5(e, H5Pset_chunk(dcpl, 1, &chunk));
        MCF_H5(e, H5Pset_deflate(dcpl, 4));
    }
    MCF_H5ID(e, dset, H5Dcreate2(h->file, path, type, space, lcpl, dcpl, H5P_DEFAULT));
    if (n) MCF_H5(e, H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
fail:
    mcf_err_context(e, "%s: writing dataset %s", h->partial, path);
    if (dcpl != H5P_DEFAULT && dcpl >= 0) H5Pclose(dcpl);
    if (lcpl >= 0) H5Pclose(lcpl);
    if (dset >= 0) H5Dclose(dset);
    if (space >= 0) H5Sclose(space);
    return e->rc;
}

static hid_t string_type(size_t width)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, width) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0)) {
        H5Tclose(t);
        t = H5I_INVALID_HID;
    }
    return t;
}

/* Every rank's next item of one call, in rank order. */
static int next_items(struct mcf_h5 *h, struct mcf_h5_rows *g, const char **item, size_t *n,
                      const char *path, struct mcf_err *e)
{
    for (int r = 0; r < g->size; r++)
        if (mcf_h5_queue_next(g->all, g->end[r], &g->pos[r], &item[r], &n[r]) != 0)
            return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                               "%s: rank %d gave no row for %s (the ranks' calls differ)",
                               h->partial, r, path);
    return MCF_OK;
}

static int replay_rows(struct mcf_h5 *h, const struct mcf_h5_op *op, struct mcf_h5_rows *g,
                       struct mcf_err *e)
{
    const char **item = NULL;
    size_t *n = NULL, width = 1, total = 0;
    char *buf = NULL;
    hid_t type = H5I_INVALID_HID;
    MCF_ALLOC(e, item, g->size);
    MCF_ALLOC(e, n, g->size);
    MCF_TRY(next_items(h, g, item, n, op->path, e));
    for (int r = 0; r < g->size; r++) {
        width = n[r] > width ? n[r] : width;
        total += n[r];
        /* every row as wide as the call says (8-byte values): a journal's rows are read from disk
         */
        size_t want = 8 * (size_t)(op->ncols > 0 ? op->ncols : 1);
        if ((op->kind == MCF_OP_ROWS_DOUBLE || op->kind == MCF_OP_ROWS_LONG) && n[r] != want)
            MCF_FAIL(e, MCF_ERUNTIME, "%s: rank %d's row of %s has %zu bytes, %zu expected",
                     h->partial, r, op->path, n[r], want);
        if ((op->kind == MCF_OP_RAGGED && n[r] % 8) || (op->kind == MCF_OP_ROWS_STR && n[r] == 0))
            MCF_FAIL(e, MCF_ERUNTIME, "%s: rank %d's row of %s has %zu bytes", h->partial, r,
                     op->path, n[r]);
    }
    if (op->kind == MCF_OP_ROWS_STR) { /* fixed-length strings, as wide as the longest */
        hsize_t dims = (hsize_t)g->size;
        MCF_ALLOC(e, buf, width * (size_t)g->size);
        for (int r = 0; r < g->size; r++) memcpy(buf + (size_t)r * width, item[r], n[r]);
        MCF_H5ID(e, type, string_type(width));
        MCF_TRY(put_dataset(h, op->path, type, 1, &dims, buf, 0, e));
    } else {
        MCF_ALLOC(e, buf, total);
        for (int r = 0, at = 0; r < g->size; at += (int)n[r], r++) memcpy(buf + at, item[r], n[r]);
        if (op->kind == MCF_OP_RAGGED) {
            hsize_t dims = total / sizeof(double);
            MCF_TRY(put_dataset(h, op->path, H5T_NATIVE_DOUBLE, 1, &dims, buf, 1, e));
        } else if (op->kind == MCF_OP_ROWS_LONG) {
            hsize_t dims[2] = { (hsize_t)g->size, (hsize_t)(op->ncols > 0 ? op->ncols : 1) };
            MCF_TRY(
                put_dataset(h, op->path, H5T_NATIVE_LLONG, op->ncols > 0 ? 2 : 1, dims, buf, 0, e));
        } else {
            hsize_t dims[2] = { (hsize_t)g->size, (hsize_t)(op->ncols > 0 ? op->ncols : 1) };
            MCF_TRY(put_dataset(h, op->path, H5T_NATIVE_DOUBLE, op->ncols > 0 ? 2 : 1, dims, buf, 0,
                                e));
        }
        if (op->name[0]) MCF_TRY(mcf_h5_attr_str(h, op->path, "unit", op->name, e));
    }
fail:
    if (type >= 0) H5Tclose(type);
    free(buf);
    free(item);
    free(n);
    return e->rc;
}

static int replay(struct mcf_h5 *h, const struct mcf_h5_op *op, struct mcf_h5_rows *g,
                  struct mcf_err *e)
{
    hid_t type = H5I_INVALID_HID;
    hsize_t dims = op->n;
    switch (op->kind) {
    case MCF_OP_GROUP: return mcf_h5_group(h, op->path, e);
    case MCF_OP_ATTR_STR: return mcf_h5_attr_str(h, op->path, op->name, op->text, e);
    case MCF_OP_ATTR_LONG: return mcf_h5_attr_long(h, op->path, op->name, op->l, e);
    case MCF_OP_ATTR_DOUBLE: return mcf_h5_attr_double(h, op->path, op->name, op->d, e);
    case MCF_OP_LIST_LONG:
        return put_dataset(h, op->path, H5T_NATIVE_LLONG, 1, &dims, op->data, 0, e);
    case MCF_OP_LIST_STR:
        MCF_H5ID(e, type, string_type(op->width));
        put_dataset(h, op->path, type, 1, &dims, op->data, 0, e);
        break;
    default: return replay_rows(h, op, g, e);
    }
fail:
    if (type >= 0) H5Tclose(type);
    return e->rc;
}

/* Gather mode's close, in four collectives whatever the file holds: every
 * rank's outcome and the size of its rows to rank 0; rank 0's go; the rows
 * (one MPI_Gatherv); rank 0's outcome to all. Rank 0 replays the calls,
 * writes the image through and renames. */

int mcf_h5_replay(struct mcf_h5 *h, const struct mcf_h5_op *ops, size_t nops, struct mcf_h5_rows *g,
                  struct mcf_err *e)
{
    for (size_t i = 0; i < nops && e->rc == MCF_OK; i++) replay(h, &ops[i], g, e);
    return e->rc;
}

int mcf_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errno;
        if (w == 0) return EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Somewhere else for an image the output's disk refused: nothing measured is lost. */
static void rescue(struct mcf_h5 *h, const void *image, size_t n)
{
    const char *tmp = getenv("TMPDIR"), *base = strrchr(h->path, '/');
    char path[sizeof h->rescued];
    snprintf(path, sizeof path, "%s/mcfleet-rescued-%ld-%s", tmp && *tmp ? tmp : "/tmp",
             (long)getpid(), base ? base + 1 : h->path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return;
    int err = mcf_write_all(fd, image, n);
    if (!err && fsync(fd) != 0) err = errno;
    if (close(fd) != 0 && !err) err = errno;
    if (err)
        unlink(path);
    else
        snprintf(h->rescued, sizeof h->rescued, "%s", path);
}

/* Gather mode, rank 0: the in-memory file, written through with every error checked. */
int mcf_h5_write_image(struct mcf_h5 *h, struct mcf_err *e)
{
    void *image = NULL;
    ssize_t n = 0;
    int err = 0;
    MCF_H5(e, H5Fflush(h->file, H5F_SCOPE_GLOBAL));
    MCF_H5(e, n = H5Fget_file_image(h->file, NULL, 0));
    if (!(image = malloc((size_t)n)))
        MCF_FAIL(e, MCF_ERUNTIME, "out of memory for the file image (%zd bytes)", n);
    MCF_H5(e, H5Fget_file_image(h->file, image, (size_t)n));
    if ((err = mcf_write_all(h->fd, image, (size_t)n)) == 0 && fsync(h->fd) != 0) err = errno;
    if (err) {
        rescue(h, image, (size_t)n);
        if (ftruncate(h->fd, 0) !=
            0) { /* a partial image is worth nothing: the rescued copy is the record */
        }
        mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                    "writing the results to '%s' (%zd bytes) failed: %s; %s%s", h->partial, n,
                    strerror(err),
                    h->rescued[0] ? "they were saved to "
                                  : "and could not be saved "
                                    "elsewhere (TMPDIR)",
                    h->rescued);
    }
fail:
    free(image);
    return e->rc;
}

/* <partial> to <path>, never over a file that appeared meanwhile unless forced. */
int mcf_h5_publish(struct mcf_h5 *h, struct mcf_err *e)
{
    struct stat st;
    /* rename replaces whatever entry is there: with --force, only a regular
     * file (outpath.h; checked at the start, again here for one that came) */
    if (h->force && lstat(h->path, &st) == 0 && mcf_output_kind(st.st_mode))
        MCF_FAIL(e, MCF_ERUNTIME,
                 "-o '%s' became %s during the run: not replaced; the results stay in '%s'",
                 h->path, mcf_output_kind(st.st_mode), h->partial);
    int rc = h->force ? rename(h->partial, h->path)
                      : renameat2(AT_FDCWD, h->partial, AT_FDCWD, h->path, RENAME_NOREPLACE);
    if (rc != 0 && !h->force &&
        (errno == EINVAL || errno == ENOSYS)) { /* a file system without it */
        rc = link(h->partial, h->path);
        if (rc == 0) unlink(h->partial);
    }
    if (rc != 0)
        MCF_FAIL(e, MCF_ERUNTIME, "renaming '%s' to '%s' failed: %s%s", h->partial, h->path,
                 strerror(errno),
                 errno == EEXIST ? " (it appeared during the run; the results stay in the .partial)"
                                 : "");
    return MCF_OK;
fail:
    return e->rc;
}

/* Gather mode's close, in four collectives whatever the file holds: every
 * rank's outcome and the size of its rows to rank 0; rank 0's go; the rows
 * (one MPI_Gatherv); rank 0's outcome to all. Rank 0 replays the calls,
 * writes the image through and renames. */
int mcf_h5_close_gathered(struct mcf_h5 *h, int publish, struct mcf_err *e)
{
    unsigned long long mine[2] = { (unsigned long long)e->rc, h->queue.len }, *got = NULL,
                       total = 0;
    int *counts = NULL, *displs = NULL, go = 0;
    char *all = NULL;
    struct mcf_h5_rows g = { NULL, NULL, NULL, h->size };
    if (h->rank == 0 &&
        (!(got = calloc((size_t)h->size * 2, sizeof *got)) ||
         !(counts = calloc((size_t)h->size, sizeof *counts)) ||
         !(displs = calloc((size_t)h->size, sizeof *displs))))
        mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory closing the results");
    if (MPI_Gather(mine, 2, MPI_UNSIGNED_LONG_LONG, got, 2, MPI_UNSIGNED_LONG_LONG, 0, h->comm) !=
        MPI_SUCCESS)
        mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "MPI_Gather of the results' sizes failed");
    if (h->rank == 0 && e->rc == MCF_OK && publish) {
        go = 1;
        for (int r = 0; r < h->size; r++) {
            go &= got[2 * r] == MCF_OK; /* a rank that failed says why in the agreement below */
            displs[r] = (int)total;
            counts[r] = (int)got[2 * r + 1];
            total += got[2 * r + 1];
        }
        if (go && total > INT_MAX) { /* MPI counts are ints */
            go = 0;
            mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                        "%llu bytes of results are too many to gather to "
                        "rank 0: use --hdf5-mode collective",
                        total);
        } else if (go && !(all = malloc(total ? total : 1))) {
            go = 0;
            mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                        "out of memory gathering %llu bytes of results", total);
        }
    }
    MCF_MPI(e, MPI_Bcast(&go, 1, MPI_INT, 0, h->comm));
    if (go)
        MCF_MPI(e,
                MPI_Gatherv(h->queue.buf, (int)h->queue.len, MPI_BYTE, all, counts, displs,
                            MPI_BYTE, 0, h->comm));
    if (h->rank == 0 && go) {
        MCF_ALLOC(e, g.pos, h->size);
        MCF_ALLOC(e, g.end, h->size);
        g.all = all;
        for (int r = 0; r < h->size; r++) {
            g.pos[r] = (size_t)displs[r];
            g.end[r] = (size_t)displs[r] + (size_t)counts[r];
        }
        h->mode = MCF_H5_COLLECTIVE; /* the calls act at once: rank 0 alone, on its own file */
        mcf_h5_replay(h, h->ops, h->nops, &g, e);
        h->mode = MCF_H5_GATHER;
        if (e->rc == MCF_OK) mcf_h5_write_image(h, e);
    }
fail:
    if (h->rank == 0) {
        if (h->file >= 0 && H5Fclose(h->file) < 0 && e->rc == MCF_OK)
            mcf_err_h5(e, "H5Fclose", __FILE__, __LINE__);
        h->file = H5I_INVALID_HID;
        if (h->fd >= 0) {
            if (go && e->rc == MCF_OK)
                mcf_h5_publish(h, e);
            else
                unlink(
                    h->partial); /* ours: empty, or a cut image (the rescued copy is the record) */
            close(h->fd); /* and the lock with it */
            h->fd = -1;
        }
    }
    free(got);
    free(counts);
    free(displs);
    free(all);
    free(g.pos);
    free(g.end);
    mcf_h5_queue_clear(h);
    return mcf_h5_agree(h, e);
}
