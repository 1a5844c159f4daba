/* Counter-based random operands: value i of stream s under a seed is a pure
 * function of (seed, s, i), so a GPU fills an 8192 x 8192 matrix in place and
 * the host regenerates any element of it to check the result. The normal
 * deviate is Irwin-Hall (the sum of 12 uniforms, minus 6: mean 0, variance 1,
 * range [-6, 6]) in double arithmetic: additions of exact 53-bit fractions,
 * rounded the IEEE way on every device, so host and GPU draw bit-identical
 * values (Box-Muller's log and cos differ between libm and the GPU's). Each
 * value has every mantissa bit random: full entropy. Usable from C and from
 * CUDA/HIP device code. */
#ifndef MCF_COUNTER_RNG_H
#define MCF_COUNTER_RNG_H

#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIPCC__) /* as src/run/reference.h */
#define MCF_HD __host__ __device__
#else
#define MCF_HD
#endif

/* splitmix64's output function: a bijection that mixes every input bit */
static inline MCF_HD uint64_t mcf_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The j-th 64 random bits of element i of stream s. */
static inline MCF_HD uint64_t mcf_counter_bits(uint64_t seed, uint64_t s, uint64_t i, uint64_t j)
{
    return mcf_mix64(mcf_mix64(seed ^ mcf_mix64(s * 0x100000001b3ull + 1)) + i * 16 + j);
}

/* N(0, 1) by Irwin-Hall: bit-identical on host and device. */
static inline MCF_HD double mcf_counter_normal(uint64_t seed, uint64_t s, uint64_t i)
{
    double sum = 0.0;
    for (uint64_t j = 0; j < 12; j++)
        sum += (double)(mcf_counter_bits(seed, s, i, j) >> 11) * 0x1.0p-53;
    return sum - 6.0;
}

/* A uniform integer in [-m, m]. */
static inline MCF_HD int mcf_counter_int(uint64_t seed, uint64_t s, uint64_t i, int m)
{
    return (int)(mcf_counter_bits(seed, s, i, 0) % (uint64_t)(2 * m + 1)) - m;
}

#endif
