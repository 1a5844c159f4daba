/* The warp-level matrix path, shared by NVIDIA's mma.sync and AMD's MFMA:
 * setup, timing, verification and the streams family's matrix work. Each
 * warp (wavefront) keeps `acc` independent accumulators and issues `half`
 * pairs of instructions into each, with B then -B, plus one more: every
 * accumulator ends near A*B (exactly, with exact inputs). Latency: one warp, one accumulator, the
 * chain timed in-kernel. The vendor supplies gpu_mrun_bind(): which
 * instruction, and the kernel that issues it. */
#ifndef MCF_GPU_MRUN_H
#define MCF_GPU_MRUN_H

#include "gpu_mtiles.h"

struct mrun {
    struct gpu_state *s;
    struct mcf_kernel k;
    /* bound by the vendor: instruction shape, blocks per instruction (AMD's
     * multi-block MFMAs; 1 elsewhere), operand types, result element size and decoder, the
     * FP8 encoding, the default warps per SM, the instruction's name */
    int m, n, kk, blk, out_bytes, default_warps;
    int one_acc; /* throughput with 1 accumulator per warp, not 4 (an instruction
                    whose 4 chains would spill registers) */
    enum mcf_dtype ta, tb; /* the types the instruction multiplies, A's and B's */
    enum mcf_fp8_kind fp8;
    double (*decode)(const void *out, size_t i);
    void (*launch)(struct mrun *r);
    char insn[64];
    double peak_per_cu_cycle; /* the instruction's own FLOP per SM (CU) per cycle (dense-equivalent
                                 for sparse ones); 0: the type's dense figure; < 0: unknown */
    /* set up here */
    int blocks, threads, acc;
    long long half;
    size_t warps;
    struct mbuffers b; /* b.dout: [warp][acc][block] tiles of m x n */
    gpuStream_t stream; /* where launches go */
    unsigned long long *span; /* device, or NULL: the streams family's kernel span */
};

/* Vendor: binds the instruction for k's type and shape on the open device,
 * or returns MCF_EUNSUPPORTED saying why there is none. */
int gpu_mrun_bind(struct mrun *r, const struct mcf_kernel *k, struct mcf_err *e);

/* the path's kernel ops (setup binds through gpu_mrun_bind) */
extern const struct mcf_kernel_ops gpu_mrun_ops;

#endif
