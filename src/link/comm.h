/* What the transfer family asks of the other ranks, with no MPI in the
 * backends: the runner fills one struct mcf_comm per run (comm_mpi.c, over
 * its own duplicates of the job's communicators) and hands it to every
 * kernel (struct mcf_kernel's comm). The host backend moves its bytes
 * through it (MPI is its link); the GPU backends use it only to agree
 * (NCCL's unique id, who opens which peer).
 *
 * Every call is collective over its scope (or, for exchange, over the
 * pair), waits at most until the deadline the runner set for the test in
 * hand (and never longer than MCF_COMM_WAIT_S), and gives up at a stop
 * signal: MCF_ECUT, naming the call. A rank that gave up leaves the
 * communicator broken (MPI cannot cancel a collective): every later call
 * fails at once, saying so, and the test boundaries (the watchdog's own
 * messages) are not touched. */
#ifndef MCF_COMM_H
#define MCF_COMM_H

#include <stddef.h>

#include "error.h"
#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCF_COMM_WAIT_S 120.0

struct mcf_comm {
    void *ctx;
    int rank, size; /* the job */
    int local_rank, local_size; /* this node */
    int node, nnodes; /* nodes numbered in order of their lowest world rank */
    int max_local; /* the most ranks any node has */
    const int *rank_at; /* [nnodes * max_local]: world rank of (node, local rank), -1: none */
    int (*barrier)(void *ctx, enum mcf_scope scope, struct mcf_err *e);
    int (*bcast)(void *ctx, enum mcf_scope scope, void *buf, size_t len, int root,
                 struct mcf_err *e);
    /* all[i * len ...] receives rank i's (local rank i's for MCF_SCOPE_NODE) len bytes */
    int (*allgather)(void *ctx, enum mcf_scope scope, const void *mine, void *all, size_t len,
                     struct mcf_err *e);
    /* The host's collectives, sums of doubles: allreduce count in and out;
     * allgather count of each rank's in, size*count out; reducescatter
     * size*count in, count (this rank's block) out. */
    int (*collective)(void *ctx, enum mcf_scope scope, enum mcf_collective c, const double *send,
                      double *recv, size_t count, struct mcf_err *e);
    /* Sends len bytes to world rank peer and receives len from it, both at
     * once; the peer makes the same call. */
    int (*exchange)(void *ctx, int peer, const void *send, void *recv, size_t len,
                    struct mcf_err *e);
    /* Node memory every local rank maps (collective over the node): this
     * rank's `bytes` at *mine, local rank i's at all[i] (all: local_size
     * entries); node_free ends it (collective; skipped on a broken comm). */
    int (*node_alloc)(void *ctx, size_t bytes, void **mine, void **all, void **handle,
                      struct mcf_err *e);
    void (*node_free)(void *ctx, void *handle);
};

/* The network schedule (every backend's): in round r, node i is paired with
 * node (r + 1 - i) mod nnodes, a matching in which the pairs of all rounds
 * differ; a node paired with itself sits the round out. Each rank meets the
 * rank of its own local rank on the partner node. Returns the partner's
 * world rank, or -1 (no partner this round). */
int mcf_network_partner(const struct mcf_comm *c, int round);

/* Sleeps s seconds (none for s <= 0 or NaN): the links' polling between
 * checks, and a rank's injected slowness (inject.h), which pauses
 * (factor - 1) times each call's own time after it. */
void mcf_link_sleep(double s);

#ifdef __cplusplus
}
#endif

#endif
