#include <math.h>
#include <string.h>

#include "error.h"
#include "reference.h"

uint64_t mcf_rng(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double mcf_rng_unit(uint64_t *state)
{
    return (double)(mcf_rng(state) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

int mcf_rng_eighths(uint64_t *state)
{
    return (int)(mcf_rng(state) % 17) - 8;
}

void mcf_chase_order(uint64_t *order, uint64_t n, uint64_t seed)
{
    uint64_t rng = seed;
    for (uint64_t i = 0; i < n; i++) order[i] = i;
    for (uint64_t i = n - 1; i > 0; i--) {
        uint64_t j = mcf_rng(&rng) % i; /* j < i: Sattolo, not Fisher-Yates */
        uint64_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

double mcf_rng_normal(uint64_t *state)
{
    /* Box-Muller from two uniforms in (0, 1]; one value per call keeps the
     * sequence a plain function of the state */
    double u1 = (double)((mcf_rng(state) >> 11) + 1) / 9007199254740992.0;
    double u2 = (double)(mcf_rng(state) >> 11) / 9007199254740992.0;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Why this bound. One step adds `terms` products to the accumulator c.
 * Whatever the order of the additions, each rounding loses at most one unit
 * of a magnitude no larger than |c| + S, S = sum_k |a_k b_k|: rounding to
 * nearest (CPUs, fp64 FMAs: unit 2^-p of a p-bit significand), or aligning
 * every addend to the largest and truncating it (NVIDIA's tensor cores: unit
 * 2^(1-p)). There are at most terms + 2 roundings (every addend, a CPU's
 * rounded product included, and the result), so one step is off by at most
 *     delta (|c| + S),   delta = (terms + 2) unit.
 * The chain A*B, A*(-B), ... keeps |c| <= |R| + E after every step (E the
 * error so far), so after N steps E <= N delta (|R| + S + E), that is
 *     E <= N delta (|R| + S) / (1 - N delta).
 * It has to grow with N: a step from c near R (A*(-B)) has other partial sums
 * than a step from c near 0 (A*B), so a pair's roundings do not cancel, and
 * chains drift by about a third of a unit of (|R| + S) per step, on a CPU and
 * in a truncating tensor-core model alike (tests/test_chain.c). Once N delta
 * reaches 1/2 the bound says no more than the value's own size and is +inf
 * (the result must still be finite): then tile-to-tile agreement
 * (mcf_check_tiles) and the kernels' 3-step verification chain are the checks
 * that count. Rounding into the output type adds out_unit (|R| + E). */
double mcf_chain_bound(const struct mcf_chain *c, double ref, double abs_sum)
{
    double delta = (c->terms + 2) * c->unit, nd = (double)c->steps * delta;
    if (nd >= 0.5) return INFINITY;
    double chain = nd * (fabs(ref) + abs_sum) / (1.0 - nd);
    return chain + c->out_unit * (fabs(ref) + chain);
}

/* Element j of tile i as checked: tile 0's first one corrupted when asked,
 * by far more than any finite bound */
static double checked(const double *out, size_t i, size_t mn, size_t j, const double *ref,
                      const double *abs_sum, int exact, int inject_fault)
{
    double v = out[i * mn + j];
    if (inject_fault && i == 0 && j == 0)
        v += exact ? 1.0 : 16.0 * (fabs(ref[0]) + abs_sum[0]) + 1.0;
    return v;
}

int mcf_check_tiles(const double *out, size_t count, int m, int n, const double *ref,
                    const double *abs_sum, const struct mcf_chain *c, int inject_fault,
                    const char *what, struct mcf_err *e)
{
    size_t mn = (size_t)m * n;
    int exact = c->unit == 0 && c->out_unit == 0;
    for (size_t i = 0; i < count; i++)
        for (size_t j = 0; j < mn; j++) {
            double got = checked(out, i, mn, j, ref, abs_sum, exact, inject_fault);
            if (exact) {
                if (got != ref[j])
                    return mcf_err_set(e, MCF_EVERIFY, __FILE__, __LINE__,
                                       "%s: tile %zu element (%zu, %zu) is %.9g, expected %.9g",
                                       what, i, j / n, j % n, got, ref[j]);
            } else if (i == 0) {
                double bound = mcf_chain_bound(c, ref[j], abs_sum[j]);
                if (!isfinite(got) || !(fabs(got - ref[j]) <= bound))
                    return mcf_err_set(
                        e, MCF_EVERIFY, __FILE__, __LINE__,
                        "%s: tile 0 element (%zu, %zu) is %.9g, reference %.9g, bound %.3g "
                        "(%llu steps of %d products)",
                        what, j / n, j % n, got, ref[j], bound, (unsigned long long)c->steps,
                        c->terms);
            } else {
                double first = checked(out, 0, mn, j, ref, abs_sum, exact, inject_fault);
                if (memcmp(&got, &first, sizeof got) != 0)
                    return mcf_err_set(
                        e, MCF_EVERIFY, __FILE__, __LINE__,
                        "%s: tile %zu element (%zu, %zu) is %.9g but tile 0 has %.9g: the same "
                        "chain on the same operands must give the same bits",
                        what, i, j / n, j % n, got, first);
            }
        }
    return MCF_OK;
}
