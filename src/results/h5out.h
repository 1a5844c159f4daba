/* The results file writer. Every call is collective over the communicator
 * and takes the same arguments on every rank, except the row a rank
 * contributes. Two strategies behind one interface:
 *  - collective: parallel HDF5 over MPI-IO, each rank writes its own row;
 *  - gather: rank 0 gathers the rows and writes alone (serial HDF5, or on
 *    request with a parallel build).
 * The file is written as <path>.partial, which rank 0 creates (never an
 * existing file) and holds locked for the run, and renamed to <path> once
 * written through: a killed or failing run never leaves a file under <path>,
 * and a second run with the same output is refused instead of destroying the
 * first's. In gather mode the file is built in memory (HDF5's core driver)
 * and written with one checked write at the end, so a full disk is reported
 * as such and the image saved elsewhere instead of crashing HDF5. */
#ifndef MCF_H5OUT_H
#define MCF_H5OUT_H

#include <hdf5.h>
#include <mpi.h>

#include "error.h"
#include "h5queue.h"

enum mcf_h5_mode { MCF_H5_COLLECTIVE, MCF_H5_GATHER };

/* --hdf5-mode auto (the default): gather, unless the results would be more
 * than rank 0 should hold and send (MCF_H5_GATHER_MAX, about: mcf_record_bytes)
 * and this HDF5 has MPI-IO. Measured on 64 cores (docs/scaling.md): at 1,024
 * ranks the end of the run takes 0.09 s gathered and 34 s collective, whose
 * every dataset creation and write is a collective over all ranks. */
#define MCF_H5_GATHER_MAX (1024.0 * 1024 * 1024)
enum mcf_h5_mode mcf_h5_auto_mode(double bytes);

/* In collective mode, datasets up to this size in all (rows × ranks) are
 * gathered to rank 0 and written by it; larger ones are written collectively. */
#define MCF_H5_GATHER_BYTES (4u << 20)

struct mcf_h5 {
    MPI_Comm comm;
    int rank, size;
    enum mcf_h5_mode mode;
    hid_t file; /* valid on rank 0 in gather mode, on all in collective mode */
    int fd; /* rank 0: the .partial it created and locks; -1 elsewhere */
    int force; /* replace an existing output or a killed run's .partial */
    char path[1024], partial[1040];
    char rescued[1100]; /* rank 0: where the image went when the disk refused it ("" if not) */
    /* gather mode: every call is deferred to the close (h5queue.h) */
    struct mcf_h5_queue queue; /* this rank's rows */
    struct mcf_h5_op *ops; /* rank 0: the calls */
    size_t nops, opcap;
};

/* Collective mode needs an HDF5 built with MPI-IO. */
int mcf_h5_parallel_available(void);
const char *mcf_h5_mode_name(enum mcf_h5_mode m);

/* Refuses (MCF_EINPUT) an existing path, or a .partial of another run,
 * unless force (a .partial another live run holds is refused even then). */
int mcf_h5_create(struct mcf_h5 *h, const char *path, MPI_Comm comm, enum mcf_h5_mode mode,
                  int force, struct mcf_err *e);
/* After ranks hung: carry on with comm, the ranks that answered (rank 0
 * among them). A collective-mode file belongs to the old communicator: it is
 * left behind and rank 0 writes the results alone, in gather mode. */
int mcf_h5_rebind(struct mcf_h5 *h, MPI_Comm comm, struct mcf_err *e);
/* n strings of any length (the same on every rank), as a 1-D fixed-length
 * string dataset written by rank 0: text that an attribute (64 KiB at most)
 * cannot hold. */
int mcf_h5_strings(struct mcf_h5 *h, const char *path, const char *const *v, size_t n,
                   struct mcf_err *e);
/* n int64 values rank 0 holds, as a 1-D dataset. */
int mcf_h5_longs(struct mcf_h5 *h, const char *path, const long long *v, size_t n,
                 struct mcf_err *e);
/* Bytes free where the file goes (rank 0's view), or -1 when unknown. */
long long mcf_h5_free_bytes(const struct mcf_h5 *h);
int mcf_h5_group(struct mcf_h5 *h, const char *path, struct mcf_err *e);
int mcf_h5_attr_str(struct mcf_h5 *h, const char *obj, const char *name, const char *value,
                    struct mcf_err *e);
int mcf_h5_attr_long(struct mcf_h5 *h, const char *obj, const char *name, long long value,
                     struct mcf_err *e);
int mcf_h5_attr_double(struct mcf_h5 *h, const char *obj, const char *name, double value,
                       struct mcf_err *e);
/* [nranks, ncols] float64; each rank gives its row. unit becomes an attribute. */
int mcf_h5_rows_double(struct mcf_h5 *h, const char *path, const double *row, int ncols,
                       const char *unit, struct mcf_err *e);
/* [nranks] int64 and fixed-length string datasets, one value per rank. */
int mcf_h5_rows_long(struct mcf_h5 *h, const char *path, long long value, struct mcf_err *e);
int mcf_h5_rows_str(struct mcf_h5 *h, const char *path, const char *value, struct mcf_err *e);
/* [nranks, ncols] int64 (ncols 0: [nranks]); each rank gives its row. */
int mcf_h5_rows_longs(struct mcf_h5 *h, const char *path, const long long *row, int ncols,
                      struct mcf_err *e);

/* A 1-D float64 dataset that concatenates every rank's n values in rank
 * order (a ragged array: the caller records the counts), chunked and
 * compressed. Each rank gives its own part; n may differ and be 0. */
int mcf_h5_ragged_double(struct mcf_h5 *h, const char *path, const double *mine, size_t n,
                         const char *unit, struct mcf_err *e);

/* Closes (collective). publish: write the file through and rename
 * <path>.partial to <path> (the run measured something: complete or not,
 * /meta/complete says which). Otherwise the .partial this run created is
 * removed: it holds nothing. */
int mcf_h5_close(struct mcf_h5 *h, int publish, struct mcf_err *e);

/* Writes all of buf to fd (EINTR and short writes handled); 0 or an errno. */
int mcf_write_all(int fd, const void *buf, size_t n);

#endif
