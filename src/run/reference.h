/* Inputs every backend's kernels start from, as closed formulas of the index,
 * and the generators behind random inputs. The same definitions serve the
 * device code that fills buffers and the host code that checks them, so a
 * kernel's output is compared with a formula, never with another kernel. */
#ifndef MCF_REFERENCE_H
#define MCF_REFERENCE_H

#include <stddef.h>
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
static inline MCF_HD double mcf_init_a(uint64_t g)
{
    return 1.0 + (double)(g % 1021) / 1024.0;
}
static inline MCF_HD double mcf_init_b(uint64_t g)
{
    return 0.5 + (double)(g % 509) / 512.0;
}
static inline MCF_HD double mcf_init_c(uint64_t g)
{
    return 0.25 + (double)(g % 257) / 256.0;
}
/* What the write op stores: 1 + (g mod 1024)/1024, exact in fp32 and fp64,
 * and cheap to make from bits on a GPU (a store-bound kernel has no cycles
 * to spare for a division). */
static inline MCF_HD double mcf_init_w(uint64_t g)
{
    return 1.0 + (double)(g % 1024) / 1024.0;
}

/* VALU chains: x = a*x + b with a = -1, b = 0.5 from x0 = (j mod 512)/1024 is
 * exact in every format down to fp16: x_n = x0 (n even) or 0.5 - x0 (n odd). */
#define MCF_VALU_A (-1.0)
#define MCF_VALU_B 0.5
static inline MCF_HD double mcf_valu_x0(uint64_t j)
{
    return (double)(j % 512) / 1024.0;
}
static inline MCF_HD double mcf_valu_expect(uint64_t j, uint64_t steps)
{
    return (steps % 2) ? 0.5 - mcf_valu_x0(j) : mcf_valu_x0(j);
}

#ifdef __cplusplus
extern "C" {
#endif

/* splitmix64: the generator behind every random input, from the deck's seed. */
uint64_t mcf_rng(uint64_t *state);
double mcf_rng_unit(uint64_t *state); /* uniform in [-1, 1) */
/* A matrix-core input: j/8 for j uniform in [-8, 8], exact in every type from
 * fp64 down to fp8 (e4m3 and e5m2) and, as j, in int8. */
int mcf_rng_eighths(uint64_t *state);

/* A standard normal value N(0, 1) (Box-Muller): full-entropy matrix inputs. */
double mcf_rng_normal(uint64_t *state);

/* ---- the matrix kernels' alternating chain and its error bound ----
 * Every matrix kernel (GPU and host) accumulates A*B, A*(-B), ..., A*B from a
 * zero accumulator: `steps` (odd) steps, each adding `terms` products. With
 * exact inputs every partial sum is exact and the result is A*B bit for bit;
 * with full-entropy inputs each step may round, bounded below. */
struct mcf_chain {
    uint64_t steps; /* accumulate steps (2 * pairs + 1) */
    int terms; /* products added per step: the tile's k */
    double unit; /* one rounding of the accumulator, relative to the largest
                    addend (MCF_UNIT_*); 0: integer, never rounds */
    double out_unit; /* rounding of the accumulator into the output; 0: none */
};
#define MCF_UNIT_FP64 1.1102230246251565e-16 /* 2^-53: fp64 FMAs round to nearest */
#define MCF_UNIT_FP32 5.9604644775390625e-08 /* 2^-24: fp32 on a CPU, round to nearest */
#define MCF_UNIT_FP32_TC 1.1920928955078125e-07 /* 2^-23: tensor cores truncate after aligning */
#define MCF_UNIT_FP16_TC 9.765625e-04 /* 2^-10: fp16 accumulators, truncating */
#define MCF_UNIT_FP8_TC 2.44140625e-04 /* 2^-12: Hopper's FP8 accumulation keeps ~14 bits */
/* The most the chain's result may differ from the exact R = sum_k a_k b_k
 * whose magnitudes sum to abs_sum; +inf where the bound says nothing. */
double mcf_chain_bound(const struct mcf_chain *c, double ref, double abs_sum);

/* Checks `count` result tiles of m x n (doubles, tile after tile) of the same
 * chain on the same operands. Exact chains (a zero bound everywhere): every
 * element must equal ref. Otherwise tile 0 must lie within
 * mcf_chain_bound(c, ref, abs_sum) of ref, element by element, and every other
 * tile must equal tile 0 bit for bit (a deterministic instruction given the
 * same inputs). The first element out is named with its tile, row, column,
 * value, reference and bound. inject_fault corrupts tile 0's first element by
 * far more than any bound (testing). `what` names the kernel. */
struct mcf_err;
int mcf_check_tiles(const double *out, size_t count, int m, int n, const double *ref,
                    const double *abs_sum, const struct mcf_chain *c, int inject_fault,
                    const char *what, struct mcf_err *e);

/* Sattolo's shuffle: order[] becomes one random cycle through 0..n-1. */
void mcf_chase_order(uint64_t *order, uint64_t n, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
