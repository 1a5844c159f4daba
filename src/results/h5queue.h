/* Gather mode's deferred write (h5out.c): every call is queued, nothing is
 * sent, and at the close one MPI_Gatherv brings every rank's rows to rank 0,
 * which replays the calls into its file. The end of a run then costs two
 * collectives instead of two per dataset: on an oversubscribed, loaded node a
 * collective waits for its slowest rank to be scheduled, and a run stopped
 * by mpirun has 1 s to write before SIGKILL. */
#ifndef MCF_H5QUEUE_H
#define MCF_H5QUEUE_H

#include <stddef.h>
#include <stdint.h>

enum mcf_h5_op_kind {
    MCF_OP_GROUP,
    MCF_OP_ATTR_STR,
    MCF_OP_ATTR_LONG,
    MCF_OP_ATTR_DOUBLE,
    MCF_OP_ROWS_DOUBLE,
    MCF_OP_ROWS_LONG,
    MCF_OP_ROWS_STR,
    MCF_OP_RAGGED,
    MCF_OP_LIST_STR,
    MCF_OP_LIST_LONG
};

/* One call, as rank 0 saw it. Rows come from every rank's queue, in order. */
struct mcf_h5_op {
    enum mcf_h5_op_kind kind;
    char *path, *name; /* name: the attribute, or a dataset's unit ("" none) */
    char *text; /* a string attribute's value */
    long long l;
    double d;
    int ncols; /* rows of doubles: columns (0: one value per rank) */
    size_t n, width; /* lists: rank 0's n values, strings of width bytes */
    void *data;
};

/* A byte queue of length-prefixed items. */
struct mcf_h5_queue {
    char *buf;
    size_t len, cap;
};

int mcf_h5_queue_put(struct mcf_h5_queue *q, const void *item, size_t n);
/* The next item at *pos in buf[0..len): its bytes and size; -1 past the end. */
int mcf_h5_queue_next(const char *buf, size_t len, size_t *pos, const char **item, size_t *n);

/* CRC-32 (the zlib polynomial) of n bytes: the journal's segments carry one. */
uint32_t mcf_crc32(const unsigned char *p, size_t n);

#endif
