/* The gemm family on AMD GPUs: hipBLASLt, or rocBLAS's gemm_ex where
 * hipBLASLt is missing or refuses the type, both loaded with dlopen behind
 * src/blas/vendor_amdblas.c (which picks the library, plans the call and says
 * why where neither runs it: unsupported, never an abort). fp64, fp32, xf32
 * (the deck's tf32; gfx940-942 only), fp16, bf16, fp8 e4m3 (e4m3fnuz on
 * MI300, OCP on gfx950), int8; D = A^T B in gemm_check.h's layout, as on
 * NVIDIA. The operands are filled on the device from the counter-based
 * generator, rounded to each type by operand.c's rule (nearest even, fp8 in
 * the GPU's own encoding); the probe, timing and 64-element check are
 * kernels/gpu/gpu_gemm_common.h's. Errors name the library that ran. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_gemm_common.h"
#include "operand.h"
#include "vendor_amdblas.h"

/* v in a binary format of ebits exponent and mbits mantissa bits, rounded to
 * nearest even: the rule of src/run/operand.c's minifloat(), on the device
 * (ROCm 5.2 has no FP8 types; its half conversions go through float) */
static __device__ inline uint32_t dev_minifloat(double v, int ebits, int mbits, int bias, int fnuz)
{
    uint32_t sign = v < 0 || (v == 0 && signbit(v) && !fnuz) ? 1 : 0;
    double a = fabs(v);
    int e2 = 0;
    if (a == 0) return sign << (ebits + mbits);
    double f = frexp(a, &e2);
    int exp = e2 - 1 + bias;
    uint32_t mant;
    if (exp > 0) {
        mant = (uint32_t)nearbyint((2 * f - 1) * ldexp(1.0, mbits));
        if (mant >> mbits) {
            mant = 0;
            exp++;
        }
    } else {
        mant = (uint32_t)nearbyint(a * ldexp(1.0, bias - 1 + mbits));
        exp = mant >> mbits ? 1 : 0;
        mant &= (1u << mbits) - 1;
    }
    return sign << (ebits + mbits) | (uint32_t)exp << mbits | mant;
}

__global__ void k_fill(void *p, size_t n, enum mcf_dtype t, int fnuz, enum mcf_inputs in,
                       uint64_t seed, uint64_t stream)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        double v = mcf_gemm_value(t, in, seed, stream, i);
        switch (t) {
        case MCF_FP64: ((double *)p)[i] = v; break;
        case MCF_FP32:
        case MCF_TF32: ((float *)p)[i] = (float)v; break;
        case MCF_FP16: ((uint16_t *)p)[i] = (uint16_t)dev_minifloat(v, 5, 10, 15, 0); break;
        case MCF_BF16: ((uint16_t *)p)[i] = (uint16_t)dev_minifloat(v, 8, 7, 127, 0); break;
        case MCF_FP8_E4M3:
            ((uint8_t *)p)[i] = (uint8_t)dev_minifloat(v, 4, 3, fnuz ? 8 : 7, fnuz);
            break;
        default: ((int8_t *)p)[i] = (int8_t)v; break;
        }
    }
}

/* An element read back, as the library saw it (operand.c's decoder, not the
 * vendor's conversions). */
static double decode(const struct mcf_amd_type *ty, enum mcf_dtype t, int out, const void *p,
                     size_t i)
{
    switch (t) {
    case MCF_FP64: return ((const double *)p)[i];
    case MCF_FP32:
    case MCF_TF32: return ((const float *)p)[i];
    case MCF_FP16: return mcf_decode(MCF_FP16, ((const uint16_t *)p)[i], MCF_FP8_OCP);
    case MCF_BF16: return mcf_decode(MCF_BF16, ((const uint16_t *)p)[i], MCF_FP8_OCP);
    case MCF_FP8_E4M3:
        return out ? mcf_decode(MCF_BF16, ((const uint16_t *)p)[i], MCF_FP8_OCP)
                   : mcf_decode(MCF_FP8_E4M3, ((const uint8_t *)p)[i], ty->fp8);
    case MCF_INT8: return out ? ((const int32_t *)p)[i] : ((const int8_t *)p)[i];
    default: return NAN;
    }
}

#define WORKSPACE (64u << 20)

struct hgemm {
    struct gpu_state *s;
    struct mcf_kernel k;
    struct mcf_amd_gemm lib;
    int have_lib;
    uint64_t n;
    void *a, *b, *d, *ws;
    struct gpu_clock *clk;
};

static void gemm_free(struct hgemm *g)
{
    if (!g) return;
    if (g->have_lib) mcf_amd_gemm_close(&g->lib);
    if (g->a) GPU_RELEASE(gpuFree(g->a));
    if (g->b) GPU_RELEASE(gpuFree(g->b));
    if (g->d) GPU_RELEASE(gpuFree(g->d));
    if (g->ws) GPU_RELEASE(gpuFree(g->ws));
    if (g->clk) GPU_RELEASE(gpuFree(g->clk));
    free(g);
}

static int gemm_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    struct hgemm *g = NULL;
    uint64_t n = k->size;
    MCF_ALLOC(e, g, 1);
    g->s = s;
    g->k = *k;
    g->n = n;
    MCF_TRY(mcf_amd_gemm_open(&g->lib, k->dtype, s->prop.gcnArchName, n, WORKSPACE,
                              (void *)s->stream, e));
    g->have_lib = 1;
    GPU_TRY(e, gpuMalloc(&g->a, n * n * g->lib.ty.ab_bytes));
    GPU_TRY(e, gpuMalloc(&g->b, n * n * g->lib.ty.ab_bytes));
    GPU_TRY(e, gpuMalloc(&g->d, n * n * g->lib.ty.cd_bytes));
    if (g->lib.lib == MCF_AMD_HIPBLASLT) GPU_TRY(e, gpuMalloc(&g->ws, WORKSPACE));
    GPU_TRY(e, gpuMalloc((void **)&g->clk, sizeof *g->clk));
    for (uint64_t stream = 0; stream < 2; stream++) {
        k_fill<<<s->sms * 8, 256, 0, s->stream>>>(stream ? g->b : g->a, (size_t)(n * n), k->dtype,
                                                  g->lib.ty.fp8 == MCF_FP8_FNUZ, k->inputs, k->seed,
                                                  stream);
        GPU_LAUNCHED(e, "operand fill");
    }
    GPU_TRY(e, gpuStreamSynchronize(s->stream));
    *ks = g;
    return MCF_OK;
fail:
    gemm_free(g);
    return e->rc;
}

static int gemm_run_rep(void *ks, struct mcf_sample *smp, struct mcf_err *e)
{
    struct hgemm *g = (struct hgemm *)ks;
    auto call = [g](struct mcf_err *er) {
        return mcf_amd_gemm_call(&g->lib, g->a, g->b, g->d, g->ws, (void *)g->s->stream, er);
    };
    if (gemm_time(g->s, &g->k, g->clk, call, smp, e) != MCF_OK)
        mcf_err_context(e, "%s", g->lib.provenance);
    return e->rc;
}

static int gemm_verify(void *ks, struct mcf_err *e)
{
    struct hgemm *g = (struct hgemm *)ks;
    const struct gemm_view v = {
        g->s, &g->k, g->n, g->a, g->b, g->d, g->lib.ty.ab_bytes, g->lib.ty.cd_bytes
    };
    const struct mcf_amd_type *ty = &g->lib.ty;
    enum mcf_dtype t = g->k.dtype;
    if (gemm_check_output(
            &v, [ty, t](int out, const void *p, size_t i) { return decode(ty, t, out, p, i); },
            e) != MCF_OK)
        mcf_err_context(e, "%s",
                        g->lib.provenance); /* a wrong result names the library that gave it */
    return e->rc;
}

static void gemm_teardown(void *ks)
{
    gemm_free((struct hgemm *)ks);
}

GPU_HOST_OPS(gpu_gemm_ops, gemm_setup, gemm_run_rep, gemm_verify, gemm_teardown);
