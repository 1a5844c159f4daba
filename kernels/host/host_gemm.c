/* The gemm family on the host: CBLAS (OpenBLAS from Debian), loaded with
 * dlopen (src/blas/vendor_cblas.c). fp64 and fp32, the types CBLAS has; the
 * operands and the check are those of every backend (src/run/gemm_check.h),
 * so CI exercises the family for real. A 2:4 test (sparsity: 2:4) multiplies
 * the pruned A (gemm_check.h's mask) with the same dense BLAS: the masking,
 * the check against the pruned operand and the figures are exercised, with
 * no sparse speedup, which the test's message says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "clocksync.h"
#include "gemm_check.h"
#include "host.h"

struct gemm {
    struct mcf_kernel k;
    struct mcf_cblas lib;
    int n;
    void *a, *b, *c; /* double or float, n x n each (gemm_check.h's layout) */
};

static double elem(const struct gemm *g, const void *p, size_t i)
{
    return g->k.dtype == MCF_FP64 ? ((const double *)p)[i] : ((const float *)p)[i];
}

static void fill(struct gemm *g, void *p, uint64_t stream)
{
    size_t n = (size_t)g->n * g->n;
    for (size_t i = 0; i < n; i++) {
        double v = mcf_gemm_value(g->k.dtype, g->k.inputs, g->k.seed, stream, i);
        if (stream == 0 && g->k.sparsity != MCF_SPARSITY_DENSE &&
            !mcf_gemm_kept(g->k.dtype, g->k.seed, (uint64_t)g->n, i / (size_t)g->n,
                           i % (size_t)g->n))
            v = 0.0;
        if (g->k.dtype == MCF_FP64)
            ((double *)p)[i] = v;
        else
            ((float *)p)[i] = (float)v;
    }
}

static void gemm_free(struct gemm *g)
{
    free(g->a);
    free(g->b);
    free(g->c);
    mcf_cblas_close(&g->lib);
    free(g);
}

static int gemm_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct gemm *g = NULL;
    char why[768];
    size_t es = k->dtype == MCF_FP64 ? 8 : 4;
    (void)state;
    if (k->dtype != MCF_FP64 && k->dtype != MCF_FP32)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "CBLAS multiplies fp64 and fp32 only; %s GEMMs need a GPU library",
                           mcf_dtype_names[k->dtype]);
    MCF_ALLOC(e, g, 1);
    g->k = *k;
    g->n = (int)k->size;
    if (mcf_cblas_open(&g->lib, why, sizeof why) != 0) {
        free(g);
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "%s", why);
    }
    size_t bytes = (size_t)g->n * g->n * es;
    if (!(g->a = malloc(bytes)) || !(g->b = malloc(bytes)) || !(g->c = calloc(1, bytes)))
        MCF_FAIL(e, MCF_ERUNTIME, "cannot allocate 3 x %zu bytes for a %d^3 gemm", bytes, g->n);
    fill(g, g->a, 0);
    fill(g, g->b, 1);
    if (k->sparsity != MCF_SPARSITY_DENSE) /* the verified test's message (run_test.c) */
        snprintf(e->msg, sizeof e->msg,
                 "host: dense BLAS (%s) on the pruned operand, no sparse speedup", g->lib.path);
    *ks = g;
    return MCF_OK;
fail:
    gemm_free(g);
    return e->rc;
}

static void call(struct gemm *g)
{
    int n = g->n;
    if (g->k.dtype == MCF_FP64)
        g->lib.dgemm(MCF_CBLAS_COL_MAJOR, MCF_CBLAS_TRANS, MCF_CBLAS_NO_TRANS, n, n, n, 1.0, g->a,
                     n, g->b, n, 0.0, g->c, n);
    else
        g->lib.sgemm(MCF_CBLAS_COL_MAJOR, MCF_CBLAS_TRANS, MCF_CBLAS_NO_TRANS, n, n, n, 1.0f, g->a,
                     n, g->b, n, 0.0f, g->c, n);
}

static int gemm_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    struct gemm *g = ks;
    uint64_t done = 0;
    double t0 = mcf_now();
    (void)e;
    /* a call cannot be cut; between calls the cut is polled */
    while (done < g->k.iterations && !mcf_cut_due(g->k.cut)) {
        call(g);
        done++;
    }
    s->seconds = mcf_now() - t0;
    s->units = (double)done;
    s->cut = done < g->k.iterations;
    s->exec_fraction = 1.0; /* a dense BLAS multiplies the pruned zeros too */
    return MCF_OK;
}

static int gemm_verify(void *ks, struct mcf_err *e)
{
    struct gemm *g = ks;
    uint64_t n = (uint64_t)g->n, pi[MCF_GEMM_PROBES], pj[MCF_GEMM_PROBES];
    double *a = NULL, *b = NULL, *kept = NULL;
    MCF_ALLOC(e, a, n);
    MCF_ALLOC(e, b, n);
    MCF_ALLOC(e, kept, n);
    mcf_gemm_probes(g->k.seed, n, pi, pj);
    if (g->k.inject_fault) { /* testing: a wrong element where the check looks */
        size_t at = pj[2] * n + pi[2];
        if (g->k.dtype == MCF_FP64)
            ((double *)g->c)[at] += 1e3 + 0.5 * ((double *)g->c)[at];
        else
            ((float *)g->c)[at] += 1e3f + 0.5f * ((float *)g->c)[at];
    }
    for (int p = 0; p < MCF_GEMM_PROBES; p++) {
        for (uint64_t kk = 0; kk < n; kk++) {
            a[kk] = elem(g, g->a, pi[p] * n + kk); /* row i of A */
            b[kk] = elem(g, g->b, pj[p] * n + kk); /* column j of B */
        }
        if (p == 0 && g->k.inputs == MCF_INPUTS_RANDOM) {
            uint64_t nk = 0; /* a 2:4 row: its kept half has the distribution's spread */
            for (uint64_t kk = 0; kk < n; kk++)
                if (g->k.sparsity == MCF_SPARSITY_DENSE ||
                    mcf_gemm_kept(g->k.dtype, g->k.seed, n, pi[p], kk))
                    kept[nk++] = a[kk];
            MCF_TRY(mcf_gemm_entropy(g->k.dtype, kept, nk, "A", e));
            MCF_TRY(mcf_gemm_entropy(g->k.dtype, b, n, "B", e));
        }
        MCF_TRY(mcf_gemm_check(g->k.dtype, g->k.inputs, a, b, n, elem(g, g->c, pj[p] * n + pi[p]),
                               pi[p], pj[p], e));
    }
    free(a);
    free(b);
    free(kept);
    return MCF_OK;
fail:
    free(a);
    free(b);
    free(kept);
    return e->rc;
}

static void gemm_teardown(void *ks)
{
    gemm_free(ks);
}

const struct mcf_kernel_ops host_gemm_ops = { gemm_setup, gemm_run, gemm_verify, gemm_teardown };
