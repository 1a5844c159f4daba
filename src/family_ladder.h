/* The ladder family: its row's functions (src/family_ladder.c, for
 * family.c's mcf_families[]) and the tile sizes its kernels are built with
 * (kernels/host/host_ladder.c, kernels/gpu/gpu_ladder.cu), from which the
 * bytes each rung moves from global memory follow. */
#ifndef MCF_FAMILY_LADDER_H
#define MCF_FAMILY_LADDER_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCF_LADDER_TILE                                                                            \
    16 /* shared: T x T tiles of A and B staged, one thread per output element */
#define MCF_LADDER_BLOCK                                                                           \
    64 /* register: the B x B output tile of a block (a host worker's tile)                        \
        */
#define MCF_LADDER_BK 16 /* register: its k step, B x BK of A and BK x B of B staged per step */
#define MCF_LADDER_MICRO 4 /* register: the M x M outputs a thread holds in registers */

/* How many output elements share each element loaded from global memory:
 * the edge of the output tile whose operands are staged together. */
static inline uint64_t mcf_ladder_reuse(enum mcf_rung r)
{
    return r == MCF_RUNG_REGISTER ? MCF_LADDER_BLOCK : r == MCF_RUNG_SHARED ? MCF_LADDER_TILE : 1;
}

/* Elements one C = A*B of n x n moves to and from global memory, by the
 * kernels' loop structure (docs/decks.md, "ladder"): each row panel of A and
 * column panel of B is loaded once per output tile beside it, ceil(n/t) times,
 * every element of each; C is stored once: (2 ceil(n/t) + 1) n^2. naive, t = 1:
 * two loads per FMA. */
static inline double mcf_ladder_elements(uint64_t n, enum mcf_rung r)
{
    uint64_t t = mcf_ladder_reuse(r);
    return (2.0 * (double)((n + t - 1) / t) + 1.0) * (double)n * (double)n;
}

const char *mcf_ladder_check(struct mcf_kernel *k, unsigned given, char *why, size_t len);
double mcf_ladder_flops(const struct mcf_kernel *k);
double mcf_ladder_bytes(const struct mcf_kernel *k);
int mcf_ladder_metrics(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out, int max);
void mcf_ladder_label(const struct mcf_kernel *k, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
