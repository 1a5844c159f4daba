/* What the gemm family's two GPU paths share (kernels/gpu/gpu_gemm.cu:
 * cuBLASLt; kernels/hip/gemm.hip: hipBLASLt or rocBLAS): the clock probe
 * after the library's calls, the timed repetition, and the check of 64
 * output elements on the host against the operands the library read
 * (src/run/gemm_check.h). Each path fills its operands in its own types. */
#ifndef MCF_GPU_GEMM_COMMON_H
#define MCF_GPU_GEMM_COMMON_H

#include <stdint.h>
#include <stdlib.h>

#include "gemm_check.h"
#include "gpu.h"
#include "gpu_mtiles.h"

/* The clock the SMs (CUs) run at right after the GEMMs: every one spins for
 * GEMM_PROBE_NS of wall time; one thread stamps cycles and nanoseconds. */
#define GEMM_PROBE_NS 1000000ull
static __global__ void k_clock_probe(struct gpu_clock *clk)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) gpu_clock_start(clk);
    unsigned long long t0 = gpu_globaltimer();
    while (gpu_globaltimer() - t0 < GEMM_PROBE_NS)
        ;
    if (threadIdx.x == 0 && blockIdx.x == 0) gpu_clock_stop(clk);
}

/* One timed repetition: k's iterations of call(e) between events on s's
 * stream, then the probe into dclk (device memory); the sample's rate is
 * also a fraction of the matrix peak at the probed clock. */
template <class Call>
static int gemm_time(struct gpu_state *s, const struct mcf_kernel *k, struct gpu_clock *dclk,
                     Call call, struct mcf_sample *smp, struct mcf_err *e)
{
    struct gpu_clock clk;
    float ms = 0.0f;
    GPU_TRY(e, gpuEventRecord(s->ev0, s->stream));
    for (uint64_t i = 0; i < k->iterations; i++) MCF_TRY(call(e));
    GPU_TRY(e, gpuEventRecord(s->ev1, s->stream));
    k_clock_probe<<<s->sms, 32, 0, s->stream>>>(dclk);
    GPU_LAUNCHED(e, "clock probe");
    /* the stream is non-blocking: a plain copy would not wait for the probe */
    GPU_TRY(e, gpuStreamSynchronize(s->stream));
    GPU_TRY(e, gpuEventElapsedTime(&ms, s->ev0, s->ev1));
    GPU_TRY(e, gpuMemcpy(&clk, dclk, sizeof clk, gpuMemcpyDeviceToHost));
    smp->seconds = ms * 1e-3;
    smp->units = (double)k->iterations;
    smp->clock_mhz = gpu_clock_mhz(&clk);
    smp->peak_gflops = gpu_matrix_peak(s, k->dtype) * s->sms * smp->clock_mhz * 1e-3;
    return MCF_OK;
fail:
    return e->rc;
}

/* A GEMM's device buffers as the check reads them: A, B (n x n of ab_bytes,
 * gemm_check.h's layout) and D (n x n of cd_bytes). */
struct gemm_view {
    struct gpu_state *s;
    const struct mcf_kernel *k;
    uint64_t n;
    const void *a, *b;
    void *d;
    int ab_bytes, cd_bytes;
};

/* The 64 probes of D against row i of A and column j of B read back from the
 * device; decode(out, p, i) is element i of an operand (out 0) or of D (out
 * 1) as the library saw it. */
template <class Decode>
static int gemm_check_output(const struct gemm_view *v, Decode decode, struct mcf_err *e)
{
    uint64_t n = v->n, pi[MCF_GEMM_PROBES], pj[MCF_GEMM_PROBES];
    uint8_t *raw = NULL;
    double *a = NULL, *b = NULL;
    unsigned char out[8];
    MCF_ALLOC(e, raw, n * v->ab_bytes);
    MCF_ALLOC(e, a, n);
    MCF_ALLOC(e, b, n);
    mcf_gemm_probes(v->k->seed, n, pi, pj);
    GPU_TRY(e, gpuStreamSynchronize(v->s->stream));
    if (v->k->inject_fault) { /* testing: one wrong element where the check looks */
        uint64_t at = pj[2] * n + pi[2];
        GPU_TRY(e, gpuMemset((uint8_t *)v->d + at * v->cd_bytes, 0x5a, v->cd_bytes));
    }
    for (int p = 0; p < MCF_GEMM_PROBES; p++) {
        /* row i of A and column j of B are contiguous (gemm_check.h) */
        GPU_TRY(e,
                gpuMemcpy(raw, (const uint8_t *)v->a + pi[p] * n * v->ab_bytes, n * v->ab_bytes,
                          gpuMemcpyDeviceToHost));
        for (uint64_t x = 0; x < n; x++) a[x] = decode(0, raw, x);
        GPU_TRY(e,
                gpuMemcpy(raw, (const uint8_t *)v->b + pj[p] * n * v->ab_bytes, n * v->ab_bytes,
                          gpuMemcpyDeviceToHost));
        for (uint64_t x = 0; x < n; x++) b[x] = decode(0, raw, x);
        if (p == 0 && v->k->inputs == MCF_INPUTS_RANDOM) {
            MCF_TRY(mcf_gemm_entropy(v->k->dtype, a, n, "A", e));
            MCF_TRY(mcf_gemm_entropy(v->k->dtype, b, n, "B", e));
        }
        GPU_TRY(e,
                gpuMemcpy(out, (uint8_t *)v->d + (pj[p] * n + pi[p]) * v->cd_bytes, v->cd_bytes,
                          gpuMemcpyDeviceToHost));
        MCF_TRY(
            mcf_gemm_check(v->k->dtype, v->k->inputs, a, b, n, decode(1, out, 0), pi[p], pj[p], e));
    }
    free(raw);
    free(a);
    free(b);
    return MCF_OK;
fail:
    free(raw);
    free(a);
    free(b);
    return e->rc;
}

#endif
