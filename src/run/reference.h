/* Inputs every backend's kernels start from, as closed formulas of the index,
 * and the generators behind random inputs. The same definitions serve the
 * device code that fills buffers and the host code that checks them, so a
 * kernel's output is compared with a formula, never with another kernel. */
#ifndef MCF_REFERENCE_H
#define MCF_REFERENCE_H

#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define MCF_HD __host__ __device__
#else
#define MCF_HD
#endif

/* Memory kernels (BabelStream-like): a, b, c start as these; triad's scalar
 * and the fma kernel's step y = y*s + t. */
#define MCF_TRIAD_S 0.4
#define MCF_FMA_S 0.999
#define MCF_FMA_T 0.001
static inline MCF_HD double mcf_init_a(uint64_t g) { return 1.0 + (double)(g % 1021) / 1024.0; }
static inline MCF_HD double mcf_init_b(uint64_t g) { return 0.5 + (double)(g % 509) / 512.0; }
static inline MCF_HD double mcf_init_c(uint64_t g) { return 0.25 + (double)(g % 257) / 256.0; }

/* VALU chains: x = a*x + b with a = -1, b = 0.5 from x0 = (j mod 512)/1024 is
 * exact in every format down to fp16: x_n = x0 (n even) or 0.5 - x0 (n odd). */
#define MCF_VALU_A (-1.0)
#define MCF_VALU_B 0.5
static inline MCF_HD double mcf_valu_x0(uint64_t j) { return (double)(j % 512) / 1024.0; }
static inline MCF_HD double mcf_valu_expect(uint64_t j, uint64_t steps)
{
    return (steps % 2) ? 0.5 - mcf_valu_x0(j) : mcf_valu_x0(j);
}

#ifdef __cplusplus
extern "C" {
#endif

/* splitmix64: the generator behind every random input, from the deck's seed. */
uint64_t mcf_rng(uint64_t *state);
double mcf_rng_unit(uint64_t *state);          /* uniform in [-1, 1) */
/* A matrix-core input: j/8 for j uniform in [-8, 8], exact in every type from
 * fp64 down to fp8 (e4m3 and e5m2) and, as j, in int8. */
int mcf_rng_eighths(uint64_t *state);

/* Sattolo's shuffle: order[] becomes one random cycle through 0..n-1. */
void mcf_chase_order(uint64_t *order, uint64_t n, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
