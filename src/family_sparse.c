/* The gemm family's figures for a 2:4 structured-sparse A (family.c's
 * gemm_metrics adds them): `gflops` stays the dense-equivalent rate (2 n^3
 * per call, what a user compares with the dense GEMM), `gflops_executed` is
 * the rate of the multiply-adds the device really did (half of them on
 * sparse tensor cores; all of them where a dense BLAS multiplies the pruned
 * A, as the host does), and `encode_s` is one prune + compress of A, timed
 * apart from the products (seed paper 003, section 7.1.1: on MI300A that
 * fixed cost, not the product, decided the speedup). */
#include <math.h>
#include <stdio.h>

#include "backend.h"
#include "family.h"

static double m_gflops_executed(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)i;
    if (!(s->exec_fraction > 0)) return NAN;
    return s->units * mcf_kernel_flops_per_unit(k) * s->exec_fraction / s->seconds * 1e-9;
}

static double m_encode(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    (void)i;
    return s->encode_s > 0 ? s->encode_s : NAN;
}

/* encode_s only where the backend encodes (MCF_CAP_SPARSE_ENCODE): the host
 * masks A once at setup and has no per-call encoding to time */
int mcf_gemm_sparse_metrics(unsigned caps, struct mcf_metric *out, int n, int max)
{
    n = mcf_metric_add(out, n, max, "gflops_executed", "GFLOP/s", m_gflops_executed, 0,
                       MCF_METRIC_DETAIL);
    if (caps & MCF_CAP_SPARSE_ENCODE)
        n = mcf_metric_add(out, n, max, "encode_s", "s", m_encode, 0, MCF_METRIC_SUMMARY);
    return n;
}
