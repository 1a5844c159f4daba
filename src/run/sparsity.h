/* 2:4 structured sparsity of a matrix operand: in every row, each run of four
 * elements along k (a chunk) keeps two and zeroes two. The kept pair of each
 * chunk is drawn from the test's generator (all six pairs equally likely), so
 * the instruction's metadata is exercised in every combination, and the
 * reference multiplies the pruned matrix: a product that ignored the
 * metadata, or read it in the wrong place, is a wrong result. */
#ifndef MCF_SPARSITY_H
#define MCF_SPARSITY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The positions (0..3) of the two kept elements of a chunk, i0 < i1, as one
 * byte i0 | i1 << 2: the 4-bit index the PTX ISA (mma.sp::ordered_metadata,
 * wgmma .sp) and AMD (smfmac) both take for 16- and 8-bit types. */
static inline int mcf_sparse_i0(uint8_t idx)
{
    return idx & 3;
}
static inline int mcf_sparse_i1(uint8_t idx)
{
    return (idx >> 2) & 3;
}

/* Prunes a (m x k, row-major; k a multiple of 4) in place, drawing each
 * chunk's kept pair from rng. ac (m x k/2, row-major) receives the kept
 * values in order, idx (m x k/4) each chunk's pair. */
void mcf_prune_24(double *a, int m, int k, uint64_t *rng, double *ac, uint8_t *idx);

/* The logical column (0..k-1) of compressed element (row, c) (c in 0..k/2-1). */
static inline int mcf_sparse_col(const uint8_t *idx, int k, int row, int c)
{
    uint8_t p = idx[row * (k / 4) + c / 2];
    return (c / 2) * 4 + (c % 2 ? mcf_sparse_i1(p) : mcf_sparse_i0(p));
}

#ifdef __cplusplus
}
#endif

#endif
