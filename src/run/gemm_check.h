/* Checking a library GEMM: the operands and their layout, sampled output
 * elements, and the error bound for each, shared by every backend's gemm
 * (kernels/host/host_gemm.c, kernels/gpu/gpu_gemm.cu).
 *
 * Layout (the one cuBLASLt needs for FP8 and int8, used for every type):
 * D (m x n) = A (m x k) * B (k x n), column-major, A passed transposed, so row
 * i of A is the k contiguous values from A + i*k and column j of B the k
 * contiguous values from B + j*k. Value (i, kk) of A is counter element
 * i*k + kk of stream 0 (src/run/counter_rng.h), (kk, j) of B element j*k + kk
 * of stream 1. */
#ifndef MCF_GEMM_CHECK_H
#define MCF_GEMM_CHECK_H

#include <stdint.h>

#include "counter_rng.h"
#include "error.h"
#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCF_GEMM_PROBES 64 /* output elements checked per verification */

/* Operand value (before rounding to the operand type) of element idx of
 * stream s, for the input kind: N(0,1) (int8: uniform over -127..127), exact
 * j/8 with j in -8..8 (int8: j) or zero. The same on host and GPU. */
static inline MCF_HD double mcf_gemm_value(enum mcf_dtype t, enum mcf_inputs in, uint64_t seed,
                                           uint64_t s, uint64_t idx)
{
    if (in == MCF_INPUTS_ZERO) return 0.0;
    if (in == MCF_INPUTS_EXACT)
        return t == MCF_INT8 ? mcf_counter_int(seed, s, idx, 8)
                             : mcf_counter_int(seed, s, idx, 8) / 8.0;
    return t == MCF_INT8 ? mcf_counter_int(seed, s, idx, 127) : mcf_counter_normal(seed, s, idx);
}

/* A 2:4 test's A (sparsity: 2:4): in each group of four values of a row
 * along k, two keep their generator values and two are zero. Which two is
 * drawn from the seed (stream 2, one draw per group), the same on host and
 * GPU, so the host knows the pruned A without reading it back. For fp32 and
 * tf32 the two are one of each pair (cuSPARSELt's 50% for float is 1:2,
 * which is 2:4 too). 1 where A's element (i, kk) of a k-long row is kept. */
static inline MCF_HD int mcf_gemm_kept(enum mcf_dtype t, uint64_t seed, uint64_t k, uint64_t i,
                                       uint64_t kk)
{
    uint64_t r = mcf_counter_bits(seed, 2, i * (k / 4) + kk / 4, 0);
    unsigned pos = (unsigned)(kk % 4), keep;
    if (t == MCF_FP32 || t == MCF_TF32)
        keep = (1u << (r & 1)) | (4u << ((r >> 1) & 1)); /* one of 0,1 and one of 2,3 */
    else
        keep = (unsigned)(0xca6953ull >> (4 * (r % 6))) & 0xf; /* the six pairs: 3 5 9 6 a c */
    return (int)(keep >> pos & 1u);
}

/* The output elements a verification checks: MCF_GEMM_PROBES (i, j) pairs
 * drawn from the seed, the corners always among them. */
void mcf_gemm_probes(uint64_t seed, uint64_t n, uint64_t *i, uint64_t *j);

/* Checks element (i, j) = got against sum_kk a[kk] b[kk] (the operands as the
 * library saw them, decoded to double): exact for int8, zero inputs and (but
 * for the output's rounding) exact inputs; for full entropy within the bound
 * of mcf_gemm_bound(). MCF_EVERIFY with the element, value, reference and
 * bound in e. */
int mcf_gemm_check(enum mcf_dtype t, enum mcf_inputs in, const double *a, const double *b,
                   uint64_t k, double got, uint64_t i, uint64_t j, struct mcf_err *e);

/* The bound on |D - A*B| for k products whose absolute values sum to
 * sum_abs and a result of magnitude ref (see gemm_check.c). */
double mcf_gemm_bound(enum mcf_dtype t, enum mcf_inputs in, uint64_t k, double sum_abs, double ref);

/* Full entropy is really there: a sampled row of random operands has the
 * spread of its distribution (its variance within six standard errors of
 * the distribution's), not a constant or a handful of values; rows shorter
 * than 256 are not judged. MCF_EVERIFY otherwise. */
int mcf_gemm_entropy(enum mcf_dtype t, const double *v, uint64_t k, const char *what,
                     struct mcf_err *e);

#ifdef __cplusplus
}
#endif

#endif
