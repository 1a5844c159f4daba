/* What every matrix-core path shares, NVIDIA's and AMD's: input tiles, their
 * encoding in each operand type, the reference product, the exact check of
 * every warp's (wavefront's) result, and the sample's clock and peak. Only
 * the kernels that issue the instructions are vendor-specific. */
#ifndef MCF_GPU_MTILES_H
#define MCF_GPU_MTILES_H

#include <stdint.h>

#include "gpu.h"
#include "operand.h" /* mcf_encode, mcf_decode, mcf_operand_bits */

/* A (m x k, row-major) and B (k x n, row-major) as the values their operand
 * types hold (inputs random: normal values rounded to the type, int8 j/8 for
 * j in -127..127; exact: j/8 for j in -8..8; zero), R = A*B and
 * S = sum_k |a_ik b_kj| in long double, and how the chain rounds. */
struct mtiles {
    int m, n, k;
    double *a, *b, *ref, *abs_sum;
    double unit; /* the accumulator's rounding (reference.h); 0: exact inputs, integers */
    /* sparsity 2:4 (sparsity.h): a is the pruned A, ac its kept values
     * (m x k/2), idx each chunk's kept pair (m x k/4); NULL when dense */
    double *ac;
    uint8_t *idx;
};
int mtiles_make(struct mtiles *t, int m, int n, int k, const struct mcf_kernel *kern,
                enum mcf_fp8_kind fp8, struct mcf_err *e);
void mtiles_free(struct mtiles *t);

/* One operand value of a type for an input kind, from the generator. */
extern "C" double mcf_operand_value(enum mcf_dtype t, enum mcf_inputs in, enum mcf_fp8_kind fp8,
                                    uint64_t *rng);
/* Encodes a rows x cols matrix (row-major values) into a device-ready byte array. */
int mtile_encode(enum mcf_dtype t, const double *v, int count, int negate, enum mcf_fp8_kind fp8,
                 uint8_t **out, struct mcf_err *e);
/* Encodes values (negated if asked) and copies them to a new device buffer. */
int mtile_upload(enum mcf_dtype t, const double *v, int count, int negate, enum mcf_fp8_kind fp8,
                 uint8_t **dev, struct mcf_err *e);

/* A matrix kernel's device buffers: A, B and -B encoded (B in its own FP8
 * format where a test pairs two), the result tiles and the clock stamps. */
struct mbuffers {
    struct mtiles tiles;
    uint8_t *dA, *dB, *dNB; /* sparse: dA holds ac, the kept values */
    uint8_t *dmeta; /* sparse: idx, a byte per chunk; NULL when dense */
    void *dout;
    struct gpu_clock *clk;
};
/* Makes the m x n x k tiles for kern, uploads them, and allocates out_bytes
 * of results; on failure everything made so far is released. */
int mbuffers_make(struct mbuffers *b, int m, int n, int k, const struct mcf_kernel *kern,
                  enum mcf_fp8_kind fp8, size_t out_bytes, struct mcf_err *e);
void mbuffers_free(struct mbuffers *b);

/* Fills a sample from a matrix launch's clock stamps: `per_chain` dependent
 * instructions in each of `chains` accumulators (the units); the dense peak
 * at the measured clock from per_cu_cycle, FLOP per SM (CU) per cycle: the
 * vendor's gpu_matrix_peak() for the type, or the instruction's own. */
void msample_fill(struct mcf_sample *smp, const struct gpu_state *s, double per_cu_cycle,
                  const struct gpu_clock *clk, double per_chain, double chains);
/* Dense matrix-unit FLOP per SM (CU) per cycle for a type on the open device;
 * 0 when not tabulated. The vendor's matrix code defines it. */
double gpu_matrix_peak(const struct gpu_state *s, enum mcf_dtype t);

/* Copies count tiles of m x n results (elements of out_bytes, decoded by
 * decode) from the device and checks them as a chain of `steps` (mcheck_tiles). */
int mverify_device(const void *dev, size_t count, int out_bytes,
                   double (*decode)(const void *, size_t), const struct mtiles *t, uint64_t steps,
                   const char *what, int inject_fault, struct mcf_err *e);
double mdecode_f64(const void *p, size_t i);
double mdecode_f32(const void *p, size_t i);
double mdecode_s32(const void *p, size_t i);
double mdecode_f16(const void *p, size_t i);

/* The tiles in out (count tiles of m x n, as doubles) after the kernels'
 * chain of `steps` (B and -B alternately, an odd number): exact inputs must
 * give ref exactly; full entropy within mcf_chain_bound of ref, every tile
 * equal to the first (mcf_check_tiles). */
int mcheck_tiles(const double *out, size_t count, const struct mtiles *t, uint64_t steps,
                 const char *what, int inject_fault, struct mcf_err *e);
/* Full-entropy inputs: the kernels run again with one pair and the final
 * step (3 steps), whose bound is tight, and check that too. */
#define MCHECK_SHORT_STEPS 3
static inline int mtiles_need_short_chain(const struct mtiles *t)
{
    return t->unit != 0;
}

#endif
