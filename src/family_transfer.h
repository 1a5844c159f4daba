/* The transfer family's row (src/family.c): the links between GPUs and
 * nodes. One key, link, picks what moves the bytes:
 *   host        the GPU's host link: pinned host memory (on the GPU's NUMA
 *               node or a remote one) to the GPU, back, or both at once, by
 *               the copy engines or the SMs;
 *   peer        this rank's GPU and every other GPU of its node (local rank
 *               j): one figure per peer, the row of the node's link matrix;
 *   collective  allreduce, allgather, reducescatter among the node's ranks
 *               or the job's (NCCL, RCCL; MPI on the host backend), the bus
 *               bandwidth as nccl-tests defines it;
 *   network     MPI between nodes: a rank and its namesake (same local rank)
 *               on a partner node, a different partner each round
 *               (mcf_network_partner, link/comm.h).
 * Host and peer tests run one rank of a node at a time (a link measured
 * alone, as nvbandwidth does); collective and network tests run every rank
 * together, their run() a collective call. */
#ifndef MCF_FAMILY_TRANSFER_H
#define MCF_FAMILY_TRANSFER_H

#include <stddef.h>

#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the runner starts a test's repetitions on the ranks. */
enum mcf_schedule {
    MCF_SCHED_EACH, /* every rank on its own, all at once (the other families) */
    MCF_SCHED_TURNS, /* the ranks of a node one after another; the nodes at once */
    MCF_SCHED_TOGETHER /* run() is collective: every rank calls it as often as the others */
};
enum mcf_schedule mcf_kernel_schedule(const struct mcf_kernel *k);

const char *mcf_transfer_check(struct mcf_kernel *k, unsigned given, char *why, size_t len);
double mcf_transfer_bytes(const struct mcf_kernel *k);
int mcf_transfer_metrics(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out,
                         int max);
void mcf_transfer_label(const struct mcf_kernel *k, char *buf, size_t len);
/* nccl-tests' bus bandwidth factor for a collective among n ranks (its
 * PERFORMANCE.md): allreduce 2(n-1)/n, allgather and reducescatter (n-1)/n */
double mcf_busbw_factor(enum mcf_collective c, int n);

#ifdef __cplusplus
}
#endif

#endif
