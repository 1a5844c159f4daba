/* The MFMA instructions of kernels/hip/mfma_list.h as a C table: what the
 * layout self-test (mfma_selftest.h), its host emulator and the layout unit
 * test need to know of each, without HIP. */
#ifndef MCF_MFMA_INSN_H
#define MCF_MFMA_INSN_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "mfma_layout.h"
#include "mfma_list.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mcf_mfma_insn {
    enum mcf_mfma_id id;
    const char *name; /* the struct of kernels/hip/mfma_ops.h */
    const char *mnemonic[2]; /* AMD's, on CDNA2 and CDNA3; "" where absent */
    int m, n, k, blk; /* k: the logical k of a sparse instruction */
    int sparse; /* 1: 2:4 sparse A (smfmac, MCF_SMFMAC_LIST), compressed to k/2 */
    int ab_bits, dbits; /* bits per operand element, per result item */
    int on[2]; /* present on CDNA2, CDNA3 */
    enum mcf_dtype ta, tb; /* the operands' types */
    int cycles[2]; /* execution cycles on CDNA2, CDNA3 (AMD's calculator; 0 where absent) */
    int ops_per_cu_cycle[2]; /* dense operations per CU per cycle: the instruction's own peak */
};

extern const struct mcf_mfma_insn mcf_mfma_insns[MCF_MFMA_COUNT];

/* The CDNA generation (2 or 3) of a gfx target ("gfx90a:sramecc+:xnack-",
 * "gfx942"); 0 for anything else. */
int mcf_mfma_generation(const char *gfx);
/* A gfx target of CDNA generation gen (2: gfx90a, 3: gfx942), for messages */
const char *mcf_mfma_gfx(int gen);

static inline struct mfma_layout mcf_mfma_layout(const struct mcf_mfma_insn *in)
{
    struct mfma_layout L = { in->m, in->n, in->k, in->blk,
                             in->dbits }; /* positional: HIP includes this too */
    return L;
}
/* Result items per lane; operand elements per lane (KL; B's, for a sparse
 * instruction, whose A holds half as many). */
static inline int mcf_mfma_items(const struct mcf_mfma_insn *in)
{
    return in->m * in->n * in->blk / 64;
}
static inline int mcf_mfma_kl(const struct mcf_mfma_insn *in)
{
    return in->k * in->m * in->blk / 64;
}
/* Columns of A as the instruction holds it: k, or k/2 compressed */
static inline int mcf_mfma_a_cols(const struct mcf_mfma_insn *in)
{
    return in->sparse ? in->k / 2 : in->k;
}

/* The value the matrix unit reads in operand element idx of encoded tiles of
 * type t (an int8 element is its integer j, not mcfleet's j/8). */
double mcf_mfma_operand(enum mcf_dtype t, const void *tiles, size_t idx);
/* D_b[i][j] = sum_k A_b[i][k] B_b[k][j] of encoded tiles (blk x m x k and
 * blk x k x n, row-major), in long double: exact for the self-test's inputs.
 * Sparse: a_tiles hold the compressed blk x m x k/2 and meta the kept pairs
 * (blk x m x k/4 bytes, sparsity.h), each kept value multiplying B's row at
 * its logical column; meta is ignored for dense instructions. */
double mcf_mfma_dot(const struct mcf_mfma_insn *in, const void *a_tiles, const void *b_tiles,
                    const uint8_t *meta, int b, int i, int j);
/* Result registers: 64 lanes x items, lane-major, dbits each (double for
 * fp64, int32 for int8 operands, else float). Read and write item r of lane. */
double mcf_mfma_dreg_get(const struct mcf_mfma_insn *in, const void *dregs, int lane, int r);
void mcf_mfma_dreg_set(const struct mcf_mfma_insn *in, void *dregs, int lane, int r, double v);
size_t mcf_mfma_dreg_bytes(const struct mcf_mfma_insn *in);

#ifdef __cplusplus
}
#endif

#endif
