/* Where an MFMA instruction's operand elements and result items sit in a
 * 64-wide wavefront: the one implementation, used by the HIP kernels
 * (mfma_ops.h, matrix.hip) and by the C unit test tests/test_mfma_layout.c,
 * which checks it against AMD's matrix instruction calculator's tables
 * (tests/data/mfma-layouts). Plain C11, and __host__ __device__ under HIP. */
#ifndef MCF_MFMA_LAYOUT_H
#define MCF_MFMA_LAYOUT_H

#if defined(__HIP__) || defined(__HIPCC__)
#define MCF_LAYOUT_FN static inline __host__ __device__
#else
#define MCF_LAYOUT_FN static inline
#endif

/* An M x N x K instruction of BLK blocks whose result items are DBITS (32
 * or 64) bits wide. */
struct mfma_layout {
    int m, n, k, blk, dbits;
};

/* Lane `lane`'s operand element `v` (of its KL = K*M*BLK/64) is A[i][kk] of
 * block b; for B it is B[kk][i], i being the column. */
MCF_LAYOUT_FN void mfma_layout_operand(struct mfma_layout L, int lane, int v, int *i, int *kk,
                                       int *b)
{
    int kl = L.k * L.m * L.blk / 64, rest = lane / L.m;
    *i = lane % L.m;
    *b = rest % L.blk;
    *kk = (rest / L.blk) * kl + v;
}

/* Lane `lane`'s result item `r` is D[i][j] of block b. Lanes run over the
 * columns j, then over the blocks that fit side by side, then over groups of
 * rows; the items run down the rows of a group, then over further groups and
 * blocks. A group is 4 rows for 32-bit items but 1 row for 64-bit (fp64)
 * items: AMD's tables (tests/data/mfma-layouts) hold v_mfma_f64_16x16x4f64's
 * D[i][j] in lane j + 16 * (i % 4), item i / 4. */
MCF_LAYOUT_FN void mfma_layout_result(struct mfma_layout L, int lane, int r, int *i, int *j, int *b)
{
    int rg = L.dbits == 64 ? 1 : 4; /* rows per group */
    int bi = (64 + L.m * L.n / rg - 1) / (L.m * L.n / rg); /* blocks side by side in the lanes */
    int mi = 64 / bi / L.n; /* row groups side by side in the lanes */
    int g = L.m / (rg * mi); /* row groups down the items */
    int q = lane / L.n, t = r / rg;
    *j = lane % L.n;
    *i = (t % g) * rg * mi + (q / bi) * rg + r % rg;
    *b = (t / g) * bi + q % bi;
}

/* 2:4 sparse instructions (smfmac; mfma_list.h's MCF_SMFMAC_LIST), L.k the
 * logical k. B and D are laid out as above over the logical shape. A is held
 * compressed: the kept values, m x k/2 in order (src/run/sparsity.h). Lane
 * `lane`'s compressed element v (of K*M/128) is Ac[i][c] of block b: the
 * layout of a dense M x N x K/2 instruction. AMD's calculator prints it over
 * the logical A, every column of a chunk of 4 in the 32 or 16 bits that hold
 * the chunk's kept pair (tests/test_mfma_layout.c). */
MCF_LAYOUT_FN void mfma_layout_sparse_a(struct mfma_layout L, int lane, int v, int *i, int *c,
                                        int *b)
{
    struct mfma_layout H = L;
    H.k = L.k / 2;
    mfma_layout_operand(H, lane, v, i, c, b);
}

/* The index register (the instruction's src2; CBSZ = ABID = 0): bits
 * 4q .. 4q+3 of lane `lane` hold chunk `chunk` (logical columns 4*chunk ..
 * 4*chunk+3) of row i's kept pair, i0 | i1 << 2: the chunk of the lane's
 * compressed elements 2q and 2q+1, which always share one. */
MCF_LAYOUT_FN void mfma_layout_sparse_index(struct mfma_layout L, int lane, int q, int *i,
                                            int *chunk, int *b)
{
    int c;
    mfma_layout_sparse_a(L, lane, 2 * q, i, &c, b);
    *chunk = c / 2;
}

#endif
