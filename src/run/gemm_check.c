#include "gemm_check.h"

#include <math.h>

void mcf_gemm_probes(uint64_t seed, uint64_t n, uint64_t *i, uint64_t *j)
{
    for (int p = 0; p < MCF_GEMM_PROBES; p++) {
        i[p] = mcf_counter_bits(seed, 7, (uint64_t)p, 0) % n;
        j[p] = mcf_counter_bits(seed, 7, (uint64_t)p, 1) % n;
    }
    i[0] = j[0] = 0; /* the first and last element: an */
    i[1] = j[1] = n - 1; /* offset error shows there first */
}

/* Unit roundoff of the output type, and of the accumulation. */
static double out_unit(enum mcf_dtype t)
{
    switch (t) {
    case MCF_FP64: return 0x1p-53;
    case MCF_FP16: return 0x1p-11;
    case MCF_BF16:
    case MCF_FP8_E4M3: return 0x1p-8; /* FP8 products come out as bf16 */
    case MCF_INT8: return 0.0;
    default: return 0x1p-24;
    }
}

/* |D - A*B| <= k u_acc sum|a b| + u_in sum|a b| + u_out |D|, the classic
 * bound for a sum of k products in any order (Higham, Accuracy and Stability,
 * 3.1), first order. u_acc is 2^-53 for fp64 and 2^-23 for everything that
 * accumulates in fp32: twice fp32's unit roundoff, because tensor cores add
 * their products with truncation rather than round-to-nearest. u_in is the
 * rounding of fp32 inputs to tf32 that the library does itself (two 11-bit
 * roundings per product); the other operands are already in their type. */
double mcf_gemm_bound(enum mcf_dtype t, enum mcf_inputs in, uint64_t k, double sum_abs, double ref)
{
    double uo = out_unit(t) * fabs(ref);
    if (t == MCF_INT8 || in == MCF_INPUTS_ZERO) return 0.0;
    if (in == MCF_INPUTS_EXACT) /* every partial sum exact: the output's rounding only */
        return uo;
    double uacc = t == MCF_FP64 ? 0x1p-53 : 0x1p-23;
    double uin = t == MCF_TF32 ? 0x1p-10 : 0.0;
    return (double)k * uacc * sum_abs + uin * sum_abs + uo;
}

int mcf_gemm_check(enum mcf_dtype t, enum mcf_inputs in, const double *a, const double *b,
                   uint64_t k, double got, uint64_t i, uint64_t j, struct mcf_err *e)
{
    long double ref = 0.0L, sum_abs = 0.0L;
    for (uint64_t kk = 0; kk < k; kk++) {
        long double p = (long double)a[kk] * b[kk];
        ref += p;
        sum_abs += fabsl(p);
    }
    double bound = mcf_gemm_bound(t, in, k, (double)sum_abs, (double)ref);
    if (!(fabs(got - (double)ref) <= bound)) /* NaN fails too */
        return mcf_err_set(
            e, MCF_EVERIFY, __FILE__, __LINE__,
            "gemm %s: D[%llu][%llu] = %.9g, reference %.9Lg (|error| %.3g > bound %.3g; "
            "sum |a b| %.6Lg over k = %llu)",
            mcf_dtype_names[t], (unsigned long long)i, (unsigned long long)j, got, ref,
            fabs(got - (double)ref), bound, sum_abs, (unsigned long long)k);
    return MCF_OK;
}

int mcf_gemm_entropy(enum mcf_dtype t, const double *v, uint64_t k, const char *what,
                     struct mcf_err *e)
{
    double mean = 0.0, var = 0.0;
    double want = t == MCF_INT8 ? 127.0 * 128.0 / 3.0 : 1.0; /* uniform -127..127; N(0,1) */
    for (uint64_t x = 0; x < k; x++) mean += v[x];
    mean /= (double)k;
    for (uint64_t x = 0; x < k; x++) var += (v[x] - mean) * (v[x] - mean);
    var /= (double)(k > 1 ? k - 1 : 1);
    /* the sample variance of k normal values is want x chi2(k-1)/(k-1): six
       of its standard deviations, sqrt(2/(k-1)), either side never fail a
       good draw (uniform integers spread less still); below 256 values the
       test could not tell, and is left out */
    double sd = sqrt(2.0 / (double)(k - 1)), lo = 1.0 - 6.0 * sd, hi = 1.0 + 6.0 * sd;
    if (k >= 256 && !(var > want * (lo > 0.25 ? lo : 0.25) && var < want * hi))
        return mcf_err_set(
            e, MCF_EVERIFY, __FILE__, __LINE__,
            "gemm %s: the random operands of %s have variance %.4g over %llu values, expected "
            "about %.4g: they are not the full-entropy inputs asked for",
            mcf_dtype_names[t], what, var, (unsigned long long)k, want);
    return MCF_OK;
}
