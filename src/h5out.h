/* The results file writer. Every call is collective over the communicator
 * and takes the same arguments on every rank, except the row a rank
 * contributes. Two strategies behind one interface:
 *  - collective: parallel HDF5 over MPI-IO, each rank writes its own row;
 *  - gather: rank 0 gathers the rows and writes alone (serial HDF5, or on
 *    request with a parallel build).
 * The file is written as <path>.partial and renamed when complete, so a
 * killed or failing run never leaves a file that looks complete. */
#ifndef MCF_H5OUT_H
#define MCF_H5OUT_H

#include <hdf5.h>
#include <mpi.h>

#include "error.h"

enum mcf_h5_mode { MCF_H5_COLLECTIVE, MCF_H5_GATHER };

/* --hdf5-mode auto (the default): gather below this many ranks, collective
 * (with parallel HDF5) from it on. Measured on 2 cores, 64 ranks: gather
 * 1.1 s, collective 4.2 s at the end of a run (docs/scaling.md); at fleet
 * scale the collective write keeps rank 0's link and memory out of the path. */
#define MCF_H5_COLLECTIVE_FROM 1024
enum mcf_h5_mode mcf_h5_auto_mode(int nranks);

/* In collective mode, datasets up to this size in all (rows × ranks) are
 * gathered to rank 0 and written by it; larger ones are written collectively. */
#define MCF_H5_GATHER_BYTES (4u << 20)

struct mcf_h5 {
    MPI_Comm comm;
    int rank, size;
    enum mcf_h5_mode mode;
    hid_t file;                 /* valid on rank 0 in gather mode, on all in collective mode */
    char path[1024], partial[1040];
};

/* Collective mode needs an HDF5 built with MPI-IO. */
int mcf_h5_parallel_available(void);
const char *mcf_h5_mode_name(enum mcf_h5_mode m);

int mcf_h5_create(struct mcf_h5 *h, const char *path, MPI_Comm comm, enum mcf_h5_mode mode,
                  struct mcf_err *e);
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

/* A 1-D float64 dataset that concatenates every rank's n values in rank
 * order (a ragged array: the caller records the counts), chunked and
 * compressed. Each rank gives its own part; n may differ and be 0. */
int mcf_h5_ragged_double(struct mcf_h5 *h, const char *path, const double *mine, size_t n, const char *unit,
                         struct mcf_err *e);

/* Closes; when complete, renames <path>.partial to <path> (collective). */
int mcf_h5_close(struct mcf_h5 *h, int complete, struct mcf_err *e);

#endif
