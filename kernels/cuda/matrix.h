/* What the mma.sync and wgmma paths of the CUDA matrix family share: input
 * tiles, their encoding in each operand type, the reference product, the
 * exact check of every warp's (or warpgroup's) result, and the dense peak. */
#ifndef MCF_CUDA_MATRIX_H
#define MCF_CUDA_MATRIX_H

#include <stdint.h>

#include "gpu.h"

/* A (m x k, row-major) and B (k x n, row-major) as values j/8, and R = A*B. */
struct mtiles {
    int m, n, k;
    double *a, *b, *ref;
};
int mtiles_make(struct mtiles *t, int m, int n, int k, const struct mcf_kernel *kern, struct mcf_err *e);
void mtiles_free(struct mtiles *t);

/* The bits of v in an operand type (fp64, tf32, fp16, bf16, fp8, int8 as j*8). */
uint64_t mcf_encode(enum mcf_dtype t, double v);
int mcf_operand_bits(enum mcf_dtype t);
/* Encodes a rows x cols matrix (row-major values) into a device-ready byte array. */
int mtile_encode(enum mcf_dtype t, const double *v, int count, int negate, uint8_t **out, struct mcf_err *e);

/* Encodes values (negated if asked) and copies them to a new device buffer. */
int mtile_upload(enum mcf_dtype t, const double *v, int count, int negate, uint8_t **dev, struct mcf_err *e);

/* Fills a sample from a matrix launch's clock stamps: `per_chain` dependent
 * instructions in each of `chains` accumulators (the units). */
void msample_fill(struct mcf_sample *smp, const struct gpu_state *s, enum mcf_dtype t,
                  const struct gpu_clock *clk, double per_chain, double chains);

/* Copies count tiles of m x n results (elements of out_bytes, decoded by
 * decode) from the device and checks each against ref (mcheck_tiles). */
int mverify_device(const void *dev, size_t count, int out_bytes, double (*decode)(const void *, size_t),
                   const struct mtiles *t, const char *what, int inject_fault, struct mcf_err *e);
double mdecode_f32(const void *p, size_t i);
double mdecode_s32(const void *p, size_t i);

/* Every tile in out (count tiles of m x n, as doubles) must equal ref exactly:
 * the kernels apply B and -B alternately an odd number of times, and every
 * partial sum of these inputs is exact in the accumulator. */
int mcheck_tiles(const double *out, size_t count, const struct mtiles *t, const char *what, int inject_fault,
                 struct mcf_err *e);

/* Dense FLOP per SM per cycle of the matrix units for a type (NVIDIA
 * architecture whitepapers: A100 sm_80, H100 sm_90); 0 when not tabulated. */
double mcf_peak_flops_per_sm_cycle(int cc_major, int cc_minor, enum mcf_dtype t);

/* The wgmma path (wgmma.cu, built for sm_90a only). */
extern const struct mcf_kernel_ops cuda_wgmma_ops;
/* Whether this binary has wgmma code for the open device. */
int cuda_wgmma_available(const struct gpu_state *s);

#endif
