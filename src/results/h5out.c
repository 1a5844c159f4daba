#define _GNU_SOURCE
#include "h5out_int.h"

#include "agree.h"
#include "outpath.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Does this rank touch the file? */
static int writer(const struct mcf_h5 *h)
{
    return h->mode == MCF_H5_COLLECTIVE || h->rank == 0;
}

/* After a step only rank 0 may have done (gather mode), every rank learns its outcome. */
int mcf_h5_agree(struct mcf_h5 *h, struct mcf_err *e)
{
    if (h->comm == MPI_COMM_NULL) /* a journal's rebuild: no MPI, one writer */
        return e->rc;
    return mcf_agree(h->comm, e);
}

/* ---- gather mode: calls are queued here and replayed at the close */
static int deferred(const struct mcf_h5 *h)
{
    return h->mode == MCF_H5_GATHER;
}

static char *dup_or_fail(const char *s, struct mcf_err *e)
{
    char *d = strdup(s ? s : "");
    if (!d) mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory queuing the results");
    return d;
}

/* Rank 0 notes a call; every other rank returns NULL, as does a failure (e set). */
static struct mcf_h5_op *note(struct mcf_h5 *h, enum mcf_h5_op_kind kind, const char *path,
                              const char *name, struct mcf_err *e)
{
    if (h->rank != 0 || e->rc != MCF_OK) return NULL;
    if (h->nops == h->opcap) {
        size_t cap = h->opcap ? 2 * h->opcap : 256;
        struct mcf_h5_op *ops = realloc(h->ops, cap * sizeof *ops);
        if (!ops) {
            mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory queuing the results");
            return NULL;
        }
        h->ops = ops;
        h->opcap = cap;
    }
    struct mcf_h5_op *op = &h->ops[h->nops];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    if (!(op->path = dup_or_fail(path, e)) || !(op->name = dup_or_fail(name, e))) {
        free(op->path);
        return NULL;
    }
    h->nops++;
    return op;
}

/* Every rank queues its row of a row or ragged dataset. */
static int queue_row(struct mcf_h5 *h, const void *row, size_t n, struct mcf_err *e)
{
    if (e->rc == MCF_OK && mcf_h5_queue_put(&h->queue, row, n) != 0)
        mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory queuing the results");
    return e->rc;
}

void mcf_h5_queue_clear(struct mcf_h5 *h)
{
    for (size_t i = 0; i < h->nops; i++) {
        free(h->ops[i].path);
        free(h->ops[i].name);
        free(h->ops[i].text);
        free(h->ops[i].data);
    }
    free(h->ops);
    free(h->queue.buf);
    h->ops = NULL;
    h->nops = h->opcap = 0;
    memset(&h->queue, 0, sizeof h->queue);
}

/* Opens obj (a group or dataset path) for attaching attributes. */
static hid_t open_object(struct mcf_h5 *h, const char *obj)
{
    return H5Oopen(h->file, obj, H5P_DEFAULT);
}

static int write_attr(struct mcf_h5 *h, const char *obj, const char *name, hid_t type,
                      const void *value, struct mcf_err *e)
{
    hid_t o = H5I_INVALID_HID, space = H5I_INVALID_HID, attr = H5I_INVALID_HID;
    if (writer(h)) {
        MCF_H5ID(e, o, open_object(h, obj));
        MCF_H5ID(e, space, H5Screate(H5S_SCALAR));
        MCF_H5ID(e, attr, H5Acreate2(o, name, type, space, H5P_DEFAULT, H5P_DEFAULT));
        MCF_H5(e, H5Awrite(attr, type, value));
    }
fail:
    mcf_err_context(e, "%s: writing attribute %s of %s", h->partial, name, obj);
    if (attr >= 0) H5Aclose(attr);
    if (space >= 0) H5Sclose(space);
    if (o >= 0) H5Oclose(o);
    return e->rc; /* collective mode (gather mode queues attributes): every rank did the same */
}

int mcf_h5_attr_str(struct mcf_h5 *h, const char *obj, const char *name, const char *value,
                    struct mcf_err *e)
{
    if (deferred(h)) {
        struct mcf_h5_op *op = note(h, MCF_OP_ATTR_STR, obj, name, e);
        if (op) op->text = dup_or_fail(value, e);
        return e->rc;
    }
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, strlen(value) + 1);
    H5Tset_strpad(type, H5T_STR_NULLTERM);
    int rc = write_attr(h, obj, name, type, value, e);
    H5Tclose(type);
    return rc;
}

int mcf_h5_attr_long(struct mcf_h5 *h, const char *obj, const char *name, long long value,
                     struct mcf_err *e)
{
    if (deferred(h)) {
        struct mcf_h5_op *op = note(h, MCF_OP_ATTR_LONG, obj, name, e);
        if (op) op->l = value;
        return e->rc;
    }
    return write_attr(h, obj, name, H5T_NATIVE_LLONG, &value, e);
}

int mcf_h5_attr_double(struct mcf_h5 *h, const char *obj, const char *name, double value,
                       struct mcf_err *e)
{
    if (deferred(h)) {
        struct mcf_h5_op *op = note(h, MCF_OP_ATTR_DOUBLE, obj, name, e);
        if (op) op->d = value;
        return e->rc;
    }
    return write_attr(h, obj, name, H5T_NATIVE_DOUBLE, &value, e);
}

int mcf_h5_group(struct mcf_h5 *h, const char *path, struct mcf_err *e)
{
    hid_t g = H5I_INVALID_HID, lcpl = H5I_INVALID_HID, gcpl = H5I_INVALID_HID;
    if (deferred(h)) {
        note(h, MCF_OP_GROUP, path, "", e);
        return e->rc;
    }
    if (writer(h)) {
        MCF_H5ID(e, lcpl, H5Pcreate(H5P_LINK_CREATE));
        MCF_H5(e, H5Pset_create_intermediate_group(lcpl, 1));
        /* readers list tests in the order they ran */
        MCF_H5ID(e, gcpl, H5Pcreate(H5P_GROUP_CREATE));
        MCF_H5(e, H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
        MCF_H5ID(e, g, H5Gcreate2(h->file, path, lcpl, gcpl, H5P_DEFAULT));
    }
fail:
    mcf_err_context(e, "%s: creating group %s", h->partial, path);
    if (g >= 0) H5Gclose(g);
    if (gcpl >= 0) H5Pclose(gcpl);
    if (lcpl >= 0) H5Pclose(lcpl);
    return e->rc; /* collective mode, as above */
}

/* Collective mode: this rank writes buf, described by mem, into the part of
 * dset that file_space selects (every rank calls, some with nothing). */
static int write_own_part(hid_t dset, hid_t type, hid_t mem, hid_t file_space, const void *buf,
                          struct mcf_err *e)
{
    hid_t dxpl = H5I_INVALID_HID;
    MCF_H5ID(e, dxpl, H5Pcreate(H5P_DATASET_XFER));
#ifdef H5_HAVE_PARALLEL
    MCF_H5(e, H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
#endif
    MCF_H5(e, H5Dwrite(dset, type, mem, file_space, dxpl, buf));
fail:
    if (dxpl >= 0) H5Pclose(dxpl);
    return e->rc;
}

/* Writes a [nranks, ncols] dataset of `type` from each rank's row of `esize` bytes. */
static int write_rows(struct mcf_h5 *h, const char *path, hid_t type, size_t esize, const void *row,
                      int ncols, struct mcf_err *e)
{
    hid_t space = H5I_INVALID_HID, mem = H5I_INVALID_HID, dset = H5I_INVALID_HID;
    hid_t lcpl = H5I_INVALID_HID;
    void *all = NULL;
    int rank2 = ncols > 0;
    hsize_t dims[2] = { (hsize_t)h->size, (hsize_t)(ncols > 0 ? ncols : 1) };
    size_t rowbytes = esize * (size_t)dims[1];
    /* Small datasets (one value per rank, at any scale we know of) are
     * gathered and written by rank 0 even in collective mode: one MPI_Gather
     * costs far less than MPI-IO's two-phase collective write of a few bytes
     * per rank. Large ones are written collectively, each rank its own row. */
    int gathered =
        rowbytes * (size_t)h->size <= MCF_H5_GATHER_BYTES; /* (gather mode queues rows) */

    if (gathered) {
        if (h->rank == 0 && !(all = malloc(rowbytes * (size_t)h->size)))
            mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory gathering '%s'", path);
        MCF_MPI(e,
                MPI_Gather(row, (int)rowbytes, MPI_BYTE, all, (int)rowbytes, MPI_BYTE, 0, h->comm));
        if (e->rc != MCF_OK) goto fail;
    }
    if (writer(h)) {
        MCF_H5ID(e, space, H5Screate_simple(rank2 ? 2 : 1, dims, NULL));
        MCF_H5ID(e, lcpl, H5Pcreate(H5P_LINK_CREATE));
        MCF_H5(e, H5Pset_create_intermediate_group(lcpl, 1));
        MCF_H5ID(e, dset, H5Dcreate2(h->file, path, type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT));
        if (gathered) {
            if (h->rank == 0) /* an independent write: the other ranks take no part */
                MCF_H5(e, H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, all));
        } else {
            hsize_t start[2] = { (hsize_t)h->rank, 0 }, count[2] = { 1, dims[1] };
            MCF_H5(e, H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL));
            MCF_H5ID(e, mem, H5Screate_simple(rank2 ? 2 : 1, count, NULL));
            MCF_TRY(write_own_part(dset, type, mem, space, row, e));
        }
    }
fail:
    mcf_err_context(e, "%s: writing dataset %s", h->partial, path);
    free(all);
    if (lcpl >= 0) H5Pclose(lcpl);
    if (dset >= 0) H5Dclose(dset);
    if (mem >= 0) H5Sclose(mem);
    if (space >= 0) H5Sclose(space);
    return gathered ? mcf_h5_agree(h, e) : (int)e->rc; /* rank 0 alone may have failed */
}

int mcf_h5_rows_double(struct mcf_h5 *h, const char *path, const double *row, int ncols,
                       const char *unit, struct mcf_err *e)
{
    if (deferred(h)) {
        struct mcf_h5_op *op = note(h, MCF_OP_ROWS_DOUBLE, path, unit, e);
        if (op) op->ncols = ncols;
        return queue_row(h, row, sizeof *row * (size_t)(ncols > 0 ? ncols : 1), e);
    }
    MCF_TRY(write_rows(h, path, H5T_NATIVE_DOUBLE, sizeof(double), row, ncols, e));
    MCF_TRY(mcf_h5_attr_str(h, path, "unit", unit, e));
    return MCF_OK;
fail:
    return e->rc;
}

int mcf_h5_rows_long(struct mcf_h5 *h, const char *path, long long value, struct mcf_err *e)
{
    return mcf_h5_rows_longs(h, path, &value, 0, e);
}

int mcf_h5_rows_longs(struct mcf_h5 *h, const char *path, const long long *row, int ncols,
                      struct mcf_err *e)
{
    if (deferred(h)) {
        struct mcf_h5_op *op = note(h, MCF_OP_ROWS_LONG, path, "", e);
        if (op) op->ncols = ncols;
        return queue_row(h, row, sizeof *row * (size_t)(ncols > 0 ? ncols : 1), e);
    }
    return write_rows(h, path, H5T_NATIVE_LLONG, sizeof *row, row, ncols, e);
}

int mcf_h5_rows_str(struct mcf_h5 *h, const char *path, const char *value, struct mcf_err *e)
{
    /* fixed-length strings: parallel HDF5 cannot write variable-length data */
    int len = (int)strlen(value) + 1, width = 0;
    hid_t type = H5I_INVALID_HID;
    char *buf = NULL;
    if (deferred(h)) {
        note(h, MCF_OP_ROWS_STR, path, "", e);
        return queue_row(h, value, (size_t)len, e);
    }
    MCF_MPI(e, MPI_Allreduce(&len, &width, 1, MPI_INT, MPI_MAX, h->comm));
    MCF_ALLOC(e, buf, width);
    memcpy(buf, value, (size_t)len);
    MCF_H5ID(e, type, H5Tcopy(H5T_C_S1));
    MCF_H5(e, H5Tset_size(type, (size_t)width));
    MCF_H5(e, H5Tset_strpad(type, H5T_STR_NULLTERM));
    MCF_TRY(write_rows(h, path, type, (size_t)width, buf, 0, e));
fail:
    if (type >= 0) H5Tclose(type);
    free(buf);
    return e->rc;
}

/* A 1-D dataset of n elements of type that rank 0 holds in buf (writers create it). */
static int write_list(struct mcf_h5 *h, const char *path, hid_t type, const void *buf, size_t n,
                      struct mcf_err *e)
{
    hid_t space = H5I_INVALID_HID, dset = H5I_INVALID_HID, lcpl = H5I_INVALID_HID;
    hsize_t dims = n;
    if (writer(h)) {
        MCF_H5ID(e, space, H5Screate_simple(1, &dims, NULL));
        MCF_H5ID(e, lcpl, H5Pcreate(H5P_LINK_CREATE));
        MCF_H5(e, H5Pset_create_intermediate_group(lcpl, 1));
        MCF_H5ID(e, dset, H5Dcreate2(h->file, path, type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT));
        if (h->rank == 0 && n) /* independent: the other writers of collective mode take no part */
            MCF_H5(e, H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    }
fail:
    mcf_err_context(e, "%s: writing dataset %s", h->partial, path);
    if (lcpl >= 0) H5Pclose(lcpl);
    if (dset >= 0) H5Dclose(dset);
    if (space >= 0) H5Sclose(space);
    return mcf_h5_agree(h, e);
}

/* n strings side by side, each width bytes (the longest, with its NUL). */
static char *pack_strings(const char *const *v, size_t n, size_t *width, struct mcf_err *e)
{
    char *buf;
    *width = 1;
    for (size_t i = 0; i < n; i++)
        if (strlen(v[i]) + 1 > *width) *width = strlen(v[i]) + 1;
    if (!(buf = calloc(n ? n : 1, *width)))
        mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory for %zu strings", n);
    for (size_t i = 0; buf && i < n; i++) memcpy(buf + i * *width, v[i], strlen(v[i]));
    return buf;
}

int mcf_h5_strings(struct mcf_h5 *h, const char *path, const char *const *v, size_t n,
                   struct mcf_err *e)
{
    hid_t type = H5I_INVALID_HID;
    size_t width = 1;
    char *buf = NULL;
    if (deferred(h)) {
        struct mcf_h5_op *op = note(h, MCF_OP_LIST_STR, path, "", e);
        if (op && (op->data = pack_strings(v, n, &op->width, e))) op->n = n;
        return e->rc;
    }
    if (writer(h)) {
        if (!(buf = pack_strings(v, n, &width, e))) goto fail;
        MCF_H5ID(e, type, H5Tcopy(H5T_C_S1));
        MCF_H5(e, H5Tset_size(type, width));
        MCF_H5(e, H5Tset_strpad(type, H5T_STR_NULLTERM));
    }
fail:
    if (e->rc == MCF_OK)
        write_list(h, path, type, buf, n, e);
    else
        mcf_h5_agree(h, e);
    free(buf);
    if (type >= 0) H5Tclose(type);
    return e->rc;
}

int mcf_h5_longs(struct mcf_h5 *h, const char *path, const long long *v, size_t n,
                 struct mcf_err *e)
{
    if (deferred(h)) {
        struct mcf_h5_op *op = note(h, MCF_OP_LIST_LONG, path, "", e);
        if (op && !(op->data = malloc(sizeof *v * (n ? n : 1))))
            return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                               "out of memory queuing the results");
        if (op) {
            memcpy(op->data, v, sizeof *v * n);
            op->n = n;
        }
        return e->rc;
    }
    return write_list(h, path, H5T_NATIVE_LLONG, v, n, e);
}

int mcf_h5_ragged_double(struct mcf_h5 *h, const char *path, const double *mine, size_t n,
                         const char *unit, struct mcf_err *e)
{
    unsigned long long mine_n = n, offset = 0, total = 0;
    hid_t space = H5I_INVALID_HID, mem = H5I_INVALID_HID, dset = H5I_INVALID_HID;
    hid_t dcpl = H5I_INVALID_HID, lcpl = H5I_INVALID_HID;
    if (deferred(h)) {
        note(h, MCF_OP_RAGGED, path, unit, e);
        return queue_row(h, mine, n * sizeof *mine, e);
    }
    MCF_MPI(e, MPI_Exscan(&mine_n, &offset, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, h->comm));
    if (h->rank == 0) offset = 0; /* MPI_Exscan leaves rank 0's result undefined */
    MCF_MPI(e, MPI_Allreduce(&mine_n, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, h->comm));
    if (writer(h)) {
        hsize_t dims = total, chunk = total < 65536 ? (total ? total : 1) : 65536;
        MCF_H5ID(e, space, H5Screate_simple(1, &dims, NULL));
        MCF_H5ID(e, dcpl, H5Pcreate(H5P_DATASET_CREATE));
        MCF_H5(e, H5Pset_chunk(dcpl, 1, &chunk));
        MCF_H5(e, H5Pset_deflate(dcpl, 4));
        MCF_H5ID(e, lcpl, H5Pcreate(H5P_LINK_CREATE));
        MCF_H5(e, H5Pset_create_intermediate_group(lcpl, 1));
        MCF_H5ID(e, dset,
                 H5Dcreate2(h->file, path, H5T_NATIVE_DOUBLE, space, lcpl, dcpl, H5P_DEFAULT));
        hsize_t start = offset, count = n;
        MCF_H5ID(e, mem, H5Screate_simple(1, &count, NULL));
        if (n)
            MCF_H5(e, H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &count, NULL));
        else {
            MCF_H5(e, H5Sselect_none(space));
            MCF_H5(e, H5Sselect_none(mem));
        }
        MCF_TRY(write_own_part(dset, H5T_NATIVE_DOUBLE, mem, space, mine, e));
    }
fail:
    mcf_err_context(e, "%s: writing dataset %s", h->partial, path);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (lcpl >= 0) H5Pclose(lcpl);
    if (dset >= 0) H5Dclose(dset);
    if (mem >= 0) H5Sclose(mem);
    if (space >= 0) H5Sclose(space);
    if (e->rc != MCF_OK) return e->rc;
    return mcf_h5_attr_str(h, path, "unit", unit, e);
}
