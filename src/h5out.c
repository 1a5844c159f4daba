#include "h5out.h"

#include "agree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mcf_h5_parallel_available(void)
{
#ifdef H5_HAVE_PARALLEL
    return 1;
#else
    return 0;
#endif
}

const char *mcf_h5_mode_name(enum mcf_h5_mode m)
{
    return m == MCF_H5_COLLECTIVE ? "collective" : "gather";
}

enum mcf_h5_mode mcf_h5_auto_mode(int nranks)
{
    return mcf_h5_parallel_available() && nranks >= MCF_H5_COLLECTIVE_FROM ? MCF_H5_COLLECTIVE : MCF_H5_GATHER;
}

/* Does this rank touch the file? */
static int writer(const struct mcf_h5 *h)
{
    return h->mode == MCF_H5_COLLECTIVE || h->rank == 0;
}

/* After a step only rank 0 may have done (gather mode), every rank learns its outcome. */
static int agree(struct mcf_h5 *h, struct mcf_err *e)
{
    return mcf_agree(h->comm, e);
}

int mcf_h5_create(struct mcf_h5 *h, const char *path, MPI_Comm comm, enum mcf_h5_mode mode,
                  struct mcf_err *e)
{
    hid_t fapl = H5I_INVALID_HID;
    memset(h, 0, sizeof *h);
    h->file = H5I_INVALID_HID;
    h->comm = comm;
    h->mode = mode;
    MPI_Comm_rank(comm, &h->rank);
    MPI_Comm_size(comm, &h->size);
    snprintf(h->path, sizeof h->path, "%s", path);
    snprintf(h->partial, sizeof h->partial, "%s.partial", path);
    if (mode == MCF_H5_COLLECTIVE && !mcf_h5_parallel_available())
        MCF_FAIL(e, MCF_ERUNTIME, "this HDF5 has no MPI-IO: use the gather mode");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);   /* errors are reported through mcf_err */
    if (writer(h)) {
        MCF_H5ID(e, fapl, H5Pcreate(H5P_FILE_ACCESS));
#ifdef H5_HAVE_PARALLEL
        if (mode == MCF_H5_COLLECTIVE) {
            MCF_H5(e, H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL));
            MCF_H5(e, H5Pset_all_coll_metadata_ops(fapl, 1));
            MCF_H5(e, H5Pset_coll_metadata_write(fapl, 1));
        }
#endif
        h->file = H5Fcreate(h->partial, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        if (h->file < 0) {
            H5Eclear2(H5E_DEFAULT);
            /* the OS's reason is what the user needs: try the path ourselves */
            FILE *probe = fopen(h->partial, "wb");
            int err = probe ? 0 : errno;
            if (probe) { fclose(probe); unlink(h->partial); }
            mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "cannot create results file '%s': %s",
                        h->partial, err ? strerror(err) : "HDF5 refused it");
        }
    }
fail:
    if (fapl >= 0)
        H5Pclose(fapl);
    return agree(h, e);
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
    return h->mode == MCF_H5_GATHER ? agree(h, e) : (int)e->rc;
}

int mcf_h5_attr_str(struct mcf_h5 *h, const char *obj, const char *name, const char *value,
                    struct mcf_err *e)
{
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
    return write_attr(h, obj, name, H5T_NATIVE_LLONG, &value, e);
}

int mcf_h5_attr_double(struct mcf_h5 *h, const char *obj, const char *name, double value,
                       struct mcf_err *e)
{
    return write_attr(h, obj, name, H5T_NATIVE_DOUBLE, &value, e);
}

int mcf_h5_group(struct mcf_h5 *h, const char *path, struct mcf_err *e)
{
    hid_t g = H5I_INVALID_HID, lcpl = H5I_INVALID_HID, gcpl = H5I_INVALID_HID;
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
    return h->mode == MCF_H5_GATHER ? agree(h, e) : (int)e->rc;
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
static int write_rows(struct mcf_h5 *h, const char *path, hid_t type, size_t esize,
                      const void *row, int ncols, struct mcf_err *e)
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
    int gathered = h->mode == MCF_H5_GATHER || rowbytes * (size_t)h->size <= MCF_H5_GATHER_BYTES;

    if (gathered) {
        if (h->rank == 0 && !(all = malloc(rowbytes * (size_t)h->size)))
            mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory gathering '%s'", path);
        MCF_MPI(e, MPI_Gather(row, (int)rowbytes, MPI_BYTE, all, (int)rowbytes, MPI_BYTE, 0, h->comm));
        if (e->rc != MCF_OK)
            goto fail;
    }
    if (writer(h)) {
        MCF_H5ID(e, space, H5Screate_simple(rank2 ? 2 : 1, dims, NULL));
        MCF_H5ID(e, lcpl, H5Pcreate(H5P_LINK_CREATE));
        MCF_H5(e, H5Pset_create_intermediate_group(lcpl, 1));
        MCF_H5ID(e, dset, H5Dcreate2(h->file, path, type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT));
        if (gathered) {
            if (h->rank == 0)   /* an independent write: the other ranks take no part */
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
    return gathered ? agree(h, e) : (int)e->rc;   /* rank 0 alone may have failed */
}

int mcf_h5_rows_double(struct mcf_h5 *h, const char *path, const double *row, int ncols,
                       const char *unit, struct mcf_err *e)
{
    MCF_TRY(write_rows(h, path, H5T_NATIVE_DOUBLE, sizeof(double), row, ncols, e));
    MCF_TRY(mcf_h5_attr_str(h, path, "unit", unit, e));
    return MCF_OK;
fail:
    return e->rc;
}

int mcf_h5_rows_long(struct mcf_h5 *h, const char *path, long long value, struct mcf_err *e)
{
    return write_rows(h, path, H5T_NATIVE_LLONG, sizeof value, &value, 0, e);
}

int mcf_h5_rows_str(struct mcf_h5 *h, const char *path, const char *value, struct mcf_err *e)
{
    /* fixed-length strings: parallel HDF5 cannot write variable-length data */
    int len = (int)strlen(value) + 1, width = 0;
    hid_t type = H5I_INVALID_HID;
    char *buf = NULL;
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

int mcf_h5_ragged_double(struct mcf_h5 *h, const char *path, const double *mine, size_t n, const char *unit,
                         struct mcf_err *e)
{
    unsigned long long mine_n = n, offset = 0, total = 0;
    hid_t space = H5I_INVALID_HID, mem = H5I_INVALID_HID, dset = H5I_INVALID_HID;
    hid_t dcpl = H5I_INVALID_HID, lcpl = H5I_INVALID_HID;
    double *all = NULL;
    int *counts = NULL, *displs = NULL;
    MCF_MPI(e, MPI_Exscan(&mine_n, &offset, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, h->comm));
    if (h->rank == 0)
        offset = 0;   /* MPI_Exscan leaves rank 0's result undefined */
    MCF_MPI(e, MPI_Allreduce(&mine_n, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, h->comm));
    if (h->mode == MCF_H5_GATHER) {
        int c = (int)n;
        if (h->rank == 0) {
            MCF_ALLOC(e, counts, h->size);
            MCF_ALLOC(e, displs, h->size);
            MCF_ALLOC(e, all, total);
        }
        MCF_MPI(e, MPI_Gather(&c, 1, MPI_INT, counts, 1, MPI_INT, 0, h->comm));
        if (h->rank == 0)
            for (int i = 1; i < h->size; i++)
                displs[i] = displs[i - 1] + counts[i - 1];
        MCF_MPI(e, MPI_Gatherv(mine, c, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, h->comm));
    }
    if (writer(h)) {
        hsize_t dims = total, chunk = total < 65536 ? (total ? total : 1) : 65536;
        MCF_H5ID(e, space, H5Screate_simple(1, &dims, NULL));
        MCF_H5ID(e, dcpl, H5Pcreate(H5P_DATASET_CREATE));
        MCF_H5(e, H5Pset_chunk(dcpl, 1, &chunk));
        MCF_H5(e, H5Pset_deflate(dcpl, 4));
        MCF_H5ID(e, lcpl, H5Pcreate(H5P_LINK_CREATE));
        MCF_H5(e, H5Pset_create_intermediate_group(lcpl, 1));
        MCF_H5ID(e, dset, H5Dcreate2(h->file, path, H5T_NATIVE_DOUBLE, space, lcpl, dcpl, H5P_DEFAULT));
        if (h->mode == MCF_H5_GATHER) {
            if (total)
                MCF_H5(e, H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all));
        } else {
            hsize_t start = offset, count = n;
            MCF_H5ID(e, mem, H5Screate_simple(1, &count, NULL));
            if (n) MCF_H5(e, H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &count, NULL));
            else { MCF_H5(e, H5Sselect_none(space)); MCF_H5(e, H5Sselect_none(mem)); }
            MCF_TRY(write_own_part(dset, H5T_NATIVE_DOUBLE, mem, space, mine, e));
        }
    }
fail:
    mcf_err_context(e, "%s: writing dataset %s", h->partial, path);
    free(all); free(counts); free(displs);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (lcpl >= 0) H5Pclose(lcpl);
    if (dset >= 0) H5Dclose(dset);
    if (mem >= 0) H5Sclose(mem);
    if (space >= 0) H5Sclose(space);
    if (h->mode == MCF_H5_GATHER)
        agree(h, e);
    if (e->rc != MCF_OK)
        return e->rc;
    return mcf_h5_attr_str(h, path, "unit", unit, e);
}

int mcf_h5_close(struct mcf_h5 *h, int complete, struct mcf_err *e)
{
    if (writer(h) && h->file >= 0) {
        if (H5Fclose(h->file) < 0 && e->rc == MCF_OK)
            mcf_err_h5(e, "H5Fclose", __FILE__, __LINE__);
        h->file = H5I_INVALID_HID;
    }
    if (agree(h, e) != MCF_OK)
        return e->rc;
    if (complete && h->rank == 0 && rename(h->partial, h->path) != 0)
        mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "rename('%s', '%s') failed: %s",
                    h->partial, h->path, strerror(errno));
    return agree(h, e);
}
