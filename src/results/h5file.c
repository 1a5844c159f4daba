#define _GNU_SOURCE
/* The results file's life (h5out.h): its write mode, the .partial claimed
 * and opened (in memory on rank 0 in gather mode), the communicator swapped
 * after hung ranks, the free space, and the close that replays a gathered
 * run's writes (h5replay.c) and publishes the file. The writers themselves
 * are h5out.c's. */
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

enum mcf_h5_mode mcf_h5_auto_mode(double bytes)
{
    return mcf_h5_parallel_available() && bytes > MCF_H5_GATHER_MAX ? MCF_H5_COLLECTIVE
                                                                    : MCF_H5_GATHER;
}

/* Rank 0 claims <path>.partial: created here, never taken over from someone
 * else, and locked for the run so that another run can tell it is alive. */
static int claim(struct mcf_h5 *h, struct mcf_err *e)
{
    struct stat st;
    /* the output rule (outpath.h), before anything is written: a FIFO,
     * device or symlink at <path> is refused even with --force, as the
     * rename at the end would replace it */
    MCF_TRY(mcf_output_check("-o", h->path, h->force, e));
    h->fd = open(h->partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (h->fd < 0 && errno == EEXIST) {
        int other = open(h->partial, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        int live = other >= 0 && flock(other, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
        if (other >= 0) close(other);
        if (live)
            MCF_FAIL(e, MCF_EINPUT,
                     "'%s' is being written by another mcfleet run right now: choose another -o",
                     h->partial);
        char journal[1100];
        snprintf(journal, sizeof journal, "%s.journal", h->path);
        if (!h->force && access(journal, F_OK) == 0)
            MCF_FAIL(e, MCF_EINPUT,
                     "'%s' and '%s' exist, left by a run that was killed: 'mcfleet report %s' "
                     "rebuilds its results from the journal (or pass --force to replace both)",
                     h->partial, journal, h->path);
        if (!h->force)
            MCF_FAIL(
                e, MCF_EINPUT,
                "'%s' exists, left by a run that was killed before it could write: look at it, "
                "remove it, or pass --force to replace it",
                h->partial);
        if (lstat(h->partial, &st) == 0 &&
            mcf_output_kind(st.st_mode)) /* only a killed run's file goes */
            MCF_FAIL(e, MCF_EINPUT,
                     "-o '%s': '%s' is %s, not a killed run's results: not removed, not even "
                     "with --force",
                     h->path, h->partial, mcf_output_kind(st.st_mode));
        if (unlink(h->partial) != 0)
            MCF_FAIL(e, MCF_ERUNTIME, "--force: cannot remove '%s': %s", h->partial,
                     strerror(errno));
        h->fd = open(h->partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }
    if (h->fd < 0)
        MCF_FAIL(e, MCF_ERUNTIME, "cannot create results file '%s': %s", h->partial,
                 strerror(errno));
    if (flock(h->fd, LOCK_EX | LOCK_NB) != 0)
        MCF_FAIL(e, MCF_ERUNTIME, "cannot lock '%s': %s", h->partial, strerror(errno));
    return MCF_OK;
fail:
    return e->rc;
}

static int open_file(struct mcf_h5 *h, struct mcf_err *e)
{
    hid_t fapl = H5I_INVALID_HID;
    if (h->mode == MCF_H5_GATHER) {
        if (h->rank == 0 && (h->file = mcf_h5_in_memory(h->partial)) < 0)
            mcf_err_h5(e, "H5Fcreate (in memory)", __FILE__, __LINE__);
        return e->rc;
    }
    MCF_H5ID(e, fapl, H5Pcreate(H5P_FILE_ACCESS));
#ifdef H5_HAVE_PARALLEL
    MCF_H5(e, H5Pset_fapl_mpio(fapl, h->comm, MPI_INFO_NULL));
    MCF_H5(e, H5Pset_all_coll_metadata_ops(fapl, 1));
    MCF_H5(e, H5Pset_coll_metadata_write(fapl, 1));
#endif
    /* truncates the file rank 0 created: its own */
    MCF_H5ID(e, h->file, H5Fcreate(h->partial, H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
fail:
    if (fapl >= 0) H5Pclose(fapl);
    return e->rc;
}

int mcf_h5_create(struct mcf_h5 *h, const char *path, MPI_Comm comm, enum mcf_h5_mode mode,
                  int force, struct mcf_err *e)
{
    memset(h, 0, sizeof *h);
    h->file = H5I_INVALID_HID;
    h->fd = -1;
    h->comm = comm;
    h->mode = mode;
    h->force = force;
    MPI_Comm_rank(comm, &h->rank);
    MPI_Comm_size(comm, &h->size);
    if ((size_t)snprintf(h->path, sizeof h->path, "%s", path) >= sizeof h->path)
        MCF_FAIL(e, MCF_EINPUT, "-o: the path is longer than %zu characters", sizeof h->path - 1);
    snprintf(h->partial, sizeof h->partial, "%s.partial", path);
    if (mode == MCF_H5_COLLECTIVE && !mcf_h5_parallel_available())
        MCF_FAIL(e, MCF_ERUNTIME, "this HDF5 has no MPI-IO: use the gather mode");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors are reported through mcf_err */
    if (h->rank == 0) claim(h, e);
    if (mcf_h5_agree(h, e) == MCF_OK) /* the .partial exists before any rank opens it */
        open_file(h, e);
fail:
    mcf_h5_agree(h, e);
    if (e->rc != MCF_OK && h->rank == 0 && h->fd >= 0) { /* ours, and empty: not left behind */
        if (h->file >= 0) H5Fclose(h->file);
        h->file = H5I_INVALID_HID;
        unlink(h->partial);
        close(h->fd);
        h->fd = -1;
    }
    return e->rc;
}

int mcf_h5_rebind(struct mcf_h5 *h, MPI_Comm comm, struct mcf_err *e)
{
    h->comm = comm;
    MCF_MPI(e, MPI_Comm_rank(comm, &h->rank));
    MCF_MPI(e, MPI_Comm_size(comm, &h->size));
    if (h->mode == MCF_H5_COLLECTIVE) {
        /* closing it would wait for the hung ranks: left open for MPI_Abort */
        h->file = H5I_INVALID_HID;
        h->mode = MCF_H5_GATHER;
        if (h->rank == 0 && (h->file = mcf_h5_in_memory(h->partial)) < 0)
            mcf_err_h5(e, "H5Fcreate (in memory)", __FILE__, __LINE__);
    }
fail:
    return mcf_h5_agree(h, e);
}

long long mcf_h5_free_bytes(const struct mcf_h5 *h)
{
    struct statvfs vfs;
    if (h->fd < 0 || fstatvfs(h->fd, &vfs) != 0) return -1;
    return (long long)vfs.f_bavail * (long long)vfs.f_frsize;
}

int mcf_h5_close(struct mcf_h5 *h, int publish, struct mcf_err *e)
{
    if (h->mode == MCF_H5_GATHER) return mcf_h5_close_gathered(h, publish, e);
    if (h->file >= 0) {
        if (H5Fclose(h->file) < 0 && e->rc == MCF_OK) mcf_err_h5(e, "H5Fclose", __FILE__, __LINE__);
        h->file = H5I_INVALID_HID;
    }
    if (mcf_h5_agree(h, e) != MCF_OK) publish = 0;
    if (h->rank == 0 && h->fd >= 0) {
        if (publish && h->mode == MCF_H5_COLLECTIVE && fsync(h->fd) != 0)
            mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "fsync('%s') failed: %s", h->partial,
                        strerror(errno));
        if (publish && e->rc == MCF_OK)
            mcf_h5_publish(h, e);
        else
            unlink(h->partial); /* ours, and not a whole file */
        close(h->fd); /* and the lock with it */
        h->fd = -1;
    }
    return mcf_h5_agree(h, e);
}
