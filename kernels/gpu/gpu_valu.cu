/* Vector FMA peak, single-source: each thread runs 8 independent chains of
 * x = a*x + b (a = -1, b = 0.5 passed at run time). Every step is exact, so
 * the output is checked bit for bit against src/run/reference.h's closed form.
 * fp16x2 runs the chains in packed halves (__hfma2): 2 FMAs per instruction;
 * fp32x2 in packed floats (v_pk_fma_f32, AMD CDNA2 and later only). */
#include <stdlib.h>

#include "gpu.h"
#include "gpu_mtiles.h" /* mcf_encode */

#define CHAINS 8
#define UNROLL_STEPS 64

static __device__ inline float fma_t(float a, float x, float b)
{
    return fmaf(a, x, b);
}
static __device__ inline double fma_t(double a, double x, double b)
{
    return fma(a, x, b);
}
static __device__ inline __half2 fma_t(__half2 a, __half2 x, __half2 b)
{
    return __hfma2(a, x, b);
}
#if defined(MCF_GPU_HIP)
typedef float gpu_f32x2 __attribute__((ext_vector_type(2)));
/* contracted to one v_pk_fma_f32 (tests/hip_isa.py checks the instruction) */
static __device__ inline gpu_f32x2 fma_t(gpu_f32x2 a, gpu_f32x2 x, gpu_f32x2 b)
{
#pragma clang fp contract(fast)
    return a * x + b;
}
#define GPU_HAVE_PACKED_FP32 1
#else
#define GPU_HAVE_PACKED_FP32 0
#endif

template <typename T>
__global__ void k_valu(T *x, T a, T b, long long iterations, struct gpu_clock *clk)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    T v[CHAINS];
    if (t == 0) gpu_clock_start(clk);
    for (int l = 0; l < CHAINS; l++) v[l] = x[t * CHAINS + l];
    /* 64 steps of the 8 chains per trip: the loop's own 5 instructions take
     * 1% of the issue slots (with 8 steps per trip they took 8%, and fp32
     * reached 237 of 256 flop/clk/SM on an H100; with 32, 248) */
    long long i = 0;
    for (; i + UNROLL_STEPS <= iterations; i += UNROLL_STEPS)
#pragma unroll
        for (int u = 0; u < UNROLL_STEPS; u++)
#pragma unroll
            for (int l = 0; l < CHAINS; l++) v[l] = fma_t(a, v[l], b);
    for (; i < iterations; i++)
#pragma unroll
        for (int l = 0; l < CHAINS; l++) v[l] = fma_t(a, v[l], b);
    for (int l = 0; l < CHAINS; l++) x[t * CHAINS + l] = v[l];
    if (t == 0) gpu_clock_stop(clk);
}

struct valu_run {
    struct gpu_state *s;
    struct mcf_kernel k;
    int blocks, threads;
    size_t lanes; /* scalar lanes: threads x chains (x2 for fp16x2) */
    void *x; /* device */
    struct gpu_clock *clk; /* device */
    unsigned long long steps; /* applied so far, warm-up included */
};

/* bytes per scalar lane */
static size_t elem_size(enum mcf_dtype t)
{
    return t == MCF_FP64 ? 8 : t == MCF_FP32 || t == MCF_FP32X2 ? 4 : 2;
}
static int packed(enum mcf_dtype t)
{
    return t == MCF_FP16X2 || t == MCF_FP32X2;
}

static int valu_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    struct valu_run *r = NULL;
    void *host = NULL;
    size_t es = elem_size(k->dtype);
    if (k->dtype == MCF_FP32X2 && !GPU_HAVE_PACKED_FP32)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "packed FP32 FMA (fp32x2) is AMD's v_pk_fma_f32: this is an NVIDIA GPU");
    if (k->dtype != MCF_FP64 && k->dtype != MCF_FP32 && !packed(k->dtype))
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "GPU VALU kernels are fp64, fp32, fp16x2 and fp32x2");
    MCF_ALLOC(e, r, 1);
    r->s = s;
    r->k = *k;
    gpu_fill(s, k->occupancy, 32, &r->blocks, &r->threads);
    r->lanes = (size_t)r->blocks * r->threads * CHAINS * (packed(k->dtype) ? 2 : 1);
    if (!(host = malloc(r->lanes * es))) MCF_FAIL(e, MCF_ERUNTIME, "out of host memory");
    for (size_t j = 0; j < r->lanes; j++) {
        double x0 = mcf_valu_x0(j);
        if (k->dtype == MCF_FP64)
            ((double *)host)[j] = x0;
        else if (k->dtype == MCF_FP32 || k->dtype == MCF_FP32X2)
            ((float *)host)[j] = (float)x0;
        else
            ((uint16_t *)host)[j] = (uint16_t)mcf_encode(MCF_FP16, x0, MCF_FP8_OCP);
    }
    GPU_TRY(e, gpuMalloc(&r->x, r->lanes * es));
    GPU_TRY(e, gpuMalloc((void **)&r->clk, sizeof *r->clk));
    GPU_TRY(e, gpuMemcpy(r->x, host, r->lanes * es, gpuMemcpyHostToDevice));
    free(host);
    *ks = r;
    return MCF_OK;
fail:
    free(host);
    if (r) {
        if (r->x) GPU_RELEASE(gpuFree(r->x));
        if (r->clk) GPU_RELEASE(gpuFree(r->clk));
        free(r);
    }
    return e->rc;
}

static int valu_run(void *ks, struct mcf_sample *smp, struct mcf_err *e)
{
    struct valu_run *r = (struct valu_run *)ks;
    struct gpu_clock clk;
    long long it = (long long)r->k.iterations;
    gpuStream_t st = r->s->stream;
    if (r->k.dtype == MCF_FP64)
        MCF_TRY(gpu_time(
            r->s,
            [&] {
                k_valu<double><<<r->blocks, r->threads, 0, st>>>((double *)r->x, MCF_VALU_A,
                                                                 MCF_VALU_B, it, r->clk);
            },
            &smp->seconds, e));
    else if (r->k.dtype == MCF_FP32)
        MCF_TRY(gpu_time(
            r->s,
            [&] {
                k_valu<float><<<r->blocks, r->threads, 0, st>>>((float *)r->x, (float)MCF_VALU_A,
                                                                (float)MCF_VALU_B, it, r->clk);
            },
            &smp->seconds, e));
#if GPU_HAVE_PACKED_FP32
    else if (r->k.dtype == MCF_FP32X2) {
        const gpu_f32x2 a = { (float)MCF_VALU_A, (float)MCF_VALU_A },
                        b = { (float)MCF_VALU_B, (float)MCF_VALU_B };
        MCF_TRY(gpu_time(
            r->s,
            [&] {
                k_valu<gpu_f32x2>
                    <<<r->blocks, r->threads, 0, st>>>((gpu_f32x2 *)r->x, a, b, it, r->clk);
            },
            &smp->seconds, e));
    }
#endif
    else
        MCF_TRY(gpu_time(
            r->s,
            [&] {
                k_valu<__half2><<<r->blocks, r->threads, 0, st>>>(
                    (__half2 *)r->x, __float2half2_rn((float)MCF_VALU_A),
                    __float2half2_rn((float)MCF_VALU_B), it, r->clk);
            },
            &smp->seconds, e));
    GPU_TRY(e, gpuMemcpy(&clk, r->clk, sizeof clk, gpuMemcpyDeviceToHost));
    r->steps += r->k.iterations;
    smp->units = (double)r->k.iterations * r->blocks * r->threads * CHAINS;
    smp->clock_mhz = gpu_clock_mhz(&clk);
    return MCF_OK;
fail:
    return e->rc;
}

static int valu_verify(void *ks, struct mcf_err *e)
{
    struct valu_run *r = (struct valu_run *)ks;
    size_t es = elem_size(r->k.dtype);
    void *host = malloc(r->lanes * es);
    if (!host) MCF_FAIL(e, MCF_ERUNTIME, "out of host memory");
    GPU_TRY(e, gpuMemcpy(host, r->x, r->lanes * es, gpuMemcpyDeviceToHost));
    if (r->k.inject_fault) {
        if (r->k.dtype == MCF_FP64)
            ((double *)host)[0] += 0.25;
        else if (r->k.dtype == MCF_FP32 || r->k.dtype == MCF_FP32X2)
            ((float *)host)[0] += 0.25f;
        else
            ((__half *)host)[0] = __float2half(__half2float(((__half *)host)[0]) + 0.25f);
    }
    for (size_t j = 0; j < r->lanes; j++) {
        double got = r->k.dtype == MCF_FP64 ? ((double *)host)[j]
            : r->k.dtype == MCF_FP32 || r->k.dtype == MCF_FP32X2
            ? ((float *)host)[j]
            : __half2float(((__half *)host)[j]);
        double want = mcf_valu_expect(j, r->steps);
        if (got != want)
            MCF_FAIL(e, MCF_EVERIFY, "valu %s lane %zu: %.17g after %llu steps, expected %.17g",
                     mcf_dtype_names[r->k.dtype], j, got, r->steps, want);
    }
    free(host);
    return MCF_OK;
fail:
    free(host);
    return e->rc;
}

static void valu_teardown(void *ks)
{
    struct valu_run *r = (struct valu_run *)ks;
    GPU_RELEASE(gpuFree(r->x));
    GPU_RELEASE(gpuFree(r->clk));
    free(r);
}

GPU_HOST_OPS(gpu_valu_ops, valu_setup, valu_run, valu_verify, valu_teardown);
