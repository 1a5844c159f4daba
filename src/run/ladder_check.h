/* Checking a ladder multiply (src/family_ladder.h), for every backend's
 * kernels (kernels/host/host_ladder.c, kernels/gpu/gpu_ladder.cu).
 *
 * Layout: C = A B, each n x n, row-major. A's element (i, kk) is counter
 * element i*n + kk of stream 0 (src/run/counter_rng.h, drawn as the gemm
 * family's operands: mcf_gemm_value), B's (kk, j) element kk*n + j of stream
 * 1, each rounded to the test's type; the GPU fills them in place and the
 * host regenerates the rows and columns it checks. */
#ifndef MCF_LADDER_CHECK_H
#define MCF_LADDER_CHECK_H

#include <stdint.h>

#include "error.h"
#include "gemm_check.h"
#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCF_LADDER_ALL 512 /* up to this size every output element is checked */
#define MCF_LADDER_LINES 16 /* beyond it, 16 rows x 16 columns: 256 elements */

/* Operand values as the kernels hold them: A(i, kk) and B(kk, j) of k's
 * dtype, inputs and seed. */
static inline MCF_HD double mcf_ladder_a(enum mcf_dtype t, enum mcf_inputs in, uint64_t seed,
                                         uint64_t n, uint64_t i, uint64_t kk)
{
    double v = mcf_gemm_value(t, in, seed, 0, i * n + kk);
    return t == MCF_FP32 ? (double)(float)v : v;
}
static inline MCF_HD double mcf_ladder_b(enum mcf_dtype t, enum mcf_inputs in, uint64_t seed,
                                         uint64_t n, uint64_t kk, uint64_t j)
{
    double v = mcf_gemm_value(t, in, seed, 1, kk * n + j);
    return t == MCF_FP32 ? (double)(float)v : v;
}

/* The rows (salt 0) or columns (salt 1) a check reads, into idx (room for
 * max(n, MCF_LADDER_LINES)): all n for n <= MCF_LADDER_ALL; else one in each
 * sixteenth of the matrix, drawn from the seed, the first and the last line
 * among them (the edge tiles, where a partial tile shows). Returns how many. */
uint64_t mcf_ladder_lines(uint64_t seed, uint64_t n, uint64_t salt, uint64_t *idx);

/* Checks c (n x n of k's dtype, row-major, on the host) at every chosen row
 * and column crossing against the dot product of A's row and B's column in
 * long double, regenerated here, within mcf_gemm_bound() (the sum of |a b|
 * over the k products: gemm_check.h). inject_fault (testing) first corrupts
 * one checked element of c. MCF_EVERIFY names the element, its value, the
 * reference and the bound. */
int mcf_ladder_verify(const struct mcf_kernel *k, void *c, struct mcf_err *e);

#ifdef __cplusplus
}
#endif

#endif
