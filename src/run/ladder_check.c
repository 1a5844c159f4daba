#include "ladder_check.h"

#include <math.h>
#include <stdlib.h>

uint64_t mcf_ladder_lines(uint64_t seed, uint64_t n, uint64_t salt, uint64_t *idx)
{
    if (n <= MCF_LADDER_ALL) {
        for (uint64_t x = 0; x < n; x++) idx[x] = x;
        return n;
    }
    for (uint64_t b = 0; b < MCF_LADDER_LINES; b++) {
        uint64_t lo = b * n / MCF_LADDER_LINES, hi = (b + 1) * n / MCF_LADDER_LINES;
        idx[b] = lo + mcf_counter_bits(seed, 9, b, salt) % (hi - lo);
    }
    idx[0] = 0;
    idx[MCF_LADDER_LINES - 1] = n - 1;
    return MCF_LADDER_LINES;
}

static double elem(const struct mcf_kernel *k, const void *c, uint64_t at)
{
    return k->dtype == MCF_FP64 ? ((const double *)c)[at] : ((const float *)c)[at];
}

int mcf_ladder_verify(const struct mcf_kernel *k, void *c, struct mcf_err *e)
{
    const uint64_t n = k->size, room = n > MCF_LADDER_LINES ? n : MCF_LADDER_LINES;
    uint64_t *rows = NULL, *cols = NULL, nr, nc;
    double *a = NULL,
           *b = NULL; /* the chosen rows of A; the chosen columns of B, each contiguous */
    MCF_ALLOC(e, rows, room);
    MCF_ALLOC(e, cols, room);
    nr = mcf_ladder_lines(k->seed, n, 0, rows);
    nc = mcf_ladder_lines(k->seed, n, 1, cols);
    MCF_ALLOC(e, a, nr * n);
    MCF_ALLOC(e, b, nc * n);
    for (uint64_t r = 0; r < nr; r++)
        for (uint64_t kk = 0; kk < n; kk++)
            a[r * n + kk] = mcf_ladder_a(k->dtype, k->inputs, k->seed, n, rows[r], kk);
    for (uint64_t q = 0; q < nc; q++)
        for (uint64_t kk = 0; kk < n; kk++)
            b[q * n + kk] = mcf_ladder_b(k->dtype, k->inputs, k->seed, n, kk, cols[q]);
    if (k->inputs == MCF_INPUTS_RANDOM) { /* the regenerated operands are full entropy */
        MCF_TRY(mcf_gemm_entropy(k->dtype, a, n, "A", e));
        MCF_TRY(mcf_gemm_entropy(k->dtype, b, n, "B", e));
    }
    if (k->inject_fault) { /* testing: a wrong element where the check looks */
        uint64_t at = rows[nr / 2] * n + cols[nc / 3];
        if (k->dtype == MCF_FP64)
            ((double *)c)[at] += 1e3 + 0.5 * ((double *)c)[at];
        else
            ((float *)c)[at] += 1e3f + 0.5f * ((float *)c)[at];
    }
    for (uint64_t r = 0; r < nr; r++)
        for (uint64_t q = 0; q < nc; q++) {
            const double *ar = a + r * n, *bq = b + q * n;
            long double ref = 0.0L, sum_abs = 0.0L;
            for (uint64_t kk = 0; kk < n; kk++) {
                long double p = (long double)ar[kk] * bq[kk];
                ref += p;
                sum_abs += fabsl(p);
            }
            double got = elem(k, c, rows[r] * n + cols[q]);
            double bound = mcf_gemm_bound(k->dtype, k->inputs, n, (double)sum_abs, (double)ref);
            if (!(fabs(got - (double)ref) <= bound)) /* NaN fails too */
                MCF_FAIL(
                    e, MCF_EVERIFY,
                    "ladder %s %s %llu^3: C[%llu][%llu] = %.9g, reference %.9Lg (|error| %.3g > "
                    "bound %.3g; sum |a b| %.6Lg)",
                    mcf_rung_names[k->rung], mcf_dtype_names[k->dtype], (unsigned long long)n,
                    (unsigned long long)rows[r], (unsigned long long)cols[q], got, ref,
                    fabs(got - (double)ref), bound, sum_abs);
        }
    free(rows);
    free(cols);
    free(a);
    free(b);
    return MCF_OK;
fail:
    free(rows);
    free(cols);
    free(a);
    free(b);
    return e->rc;
}
