/* What every matrix-core path shares, NVIDIA's and AMD's: input tiles, their
 * encoding in each operand type, the reference product, the exact check of
 * every warp's (wavefront's) result, and the sample's clock and peak. Only
 * the kernels that issue the instructions are vendor-specific. */
#ifndef MCF_GPU_MTILES_H
#define MCF_GPU_MTILES_H

#include <stdint.h>

#include "gpu.h"

/* A (m x k, row-major) and B (k x n, row-major) as values j/8, and R = A*B. */
struct mtiles {
    int m, n, k;
    double *a, *b, *ref;
};
int mtiles_make(struct mtiles *t, int m, int n, int k, const struct mcf_kernel *kern, struct mcf_err *e);
void mtiles_free(struct mtiles *t);

/* FP8 comes in two encodings: OCP's (NVIDIA, exponent bias 7 / 15) and the
 * "fnuz" one of AMD CDNA3 (bias 8 / 16, no negative zero: 0x80 is NaN). */
enum mcf_fp8_kind { MCF_FP8_OCP, MCF_FP8_FNUZ };

/* The bits of v in an operand type (fp64, tf32, fp16, bf16, fp8, int8 as j*8),
 * rounded to nearest even; computed here in plain arithmetic, not by the
 * vendor's conversion intrinsics, so the reference is independent of them. */
extern "C" uint64_t mcf_encode(enum mcf_dtype t, double v, enum mcf_fp8_kind fp8);
int mcf_operand_bits(enum mcf_dtype t);
/* Encodes a rows x cols matrix (row-major values) into a device-ready byte array. */
int mtile_encode(enum mcf_dtype t, const double *v, int count, int negate, enum mcf_fp8_kind fp8, uint8_t **out,
                 struct mcf_err *e);
/* Encodes values (negated if asked) and copies them to a new device buffer. */
int mtile_upload(enum mcf_dtype t, const double *v, int count, int negate, enum mcf_fp8_kind fp8, uint8_t **dev,
                 struct mcf_err *e);

/* A matrix kernel's device buffers: A, B and -B encoded (B in its own FP8
 * format where a test pairs two), the result tiles and the clock stamps. */
struct mbuffers {
    struct mtiles tiles;
    uint8_t *dA, *dB, *dNB;
    void *dout;
    struct gpu_clock *clk;
};
/* Makes the m x n x k tiles for kern, uploads them, and allocates out_bytes
 * of results; on failure everything made so far is released. */
int mbuffers_make(struct mbuffers *b, int m, int n, int k, const struct mcf_kernel *kern, enum mcf_fp8_kind fp8,
                  size_t out_bytes, struct mcf_err *e);
void mbuffers_free(struct mbuffers *b);

/* Fills a sample from a matrix launch's clock stamps: `per_chain` dependent
 * instructions in each of `chains` accumulators (the units); the dense peak
 * at the measured clock from the vendor's gpu_matrix_peak(). */
void msample_fill(struct mcf_sample *smp, const struct gpu_state *s, enum mcf_dtype t,
                  const struct gpu_clock *clk, double per_chain, double chains);
/* Dense matrix-unit FLOP per SM (CU) per cycle for a type on the open device;
 * 0 when not tabulated. The vendor's matrix code defines it. */
double gpu_matrix_peak(const struct gpu_state *s, enum mcf_dtype t);

/* Copies count tiles of m x n results (elements of out_bytes, decoded by
 * decode) from the device and checks each against ref (mcheck_tiles). */
int mverify_device(const void *dev, size_t count, int out_bytes, double (*decode)(const void *, size_t),
                   const struct mtiles *t, const char *what, int inject_fault, struct mcf_err *e);
double mdecode_f64(const void *p, size_t i);
double mdecode_f32(const void *p, size_t i);
double mdecode_s32(const void *p, size_t i);
double mdecode_f16(const void *p, size_t i);

/* Every tile in out (count tiles of m x n, as doubles) must equal ref exactly:
 * the kernels apply B and -B alternately an odd number of times, and every
 * partial sum of these inputs is exact in the accumulator. */
int mcheck_tiles(const double *out, size_t count, const struct mtiles *t, const char *what, int inject_fault,
                 struct mcf_err *e);

#endif
