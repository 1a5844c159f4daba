/* The gemm family on the GPU: the vendor's BLAS library, loaded with dlopen
 * so one binary runs where it is missing (the test is then unsupported, with
 * the reason). NVIDIA: cuBLASLt, every type it multiplies (fp64, fp32, tf32,
 * fp16, bf16, fp8 e4m3, int8), D = A^T B in gemm_check.h's layout (the TN
 * form cuBLASLt needs for fp8 and int8), fp16 and bf16 out as torch does, fp8
 * out as bf16, int8 out as int32. The operands are filled on the device by
 * the counter-based generator (full entropy by default), and 64 output
 * elements are checked on the host against the operands the library read.
 * After each timed repetition a probe kernel reads the SM clock, so the rate
 * is also a fraction of the matrix-core peak at the clock the GEMMs left
 * (the probe, the timing and the check: gpu_gemm_common.h, shared with AMD's
 * path, kernels/hip/gemm.hip: hipBLASLt or rocBLAS). */
#if !defined(MCF_GPU_HIP) /* AMD's path is kernels/hip/gemm.hip */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "gpu_gemm_common.h"

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

/* The operand of type T from a generator value (each type's own rounding). */
template <typename T> __device__ inline T to_operand(double v);
template <> __device__ inline double to_operand<double>(double v)
{
    return v;
}
template <> __device__ inline float to_operand<float>(double v)
{
    return (float)v;
}
template <> __device__ inline __half to_operand<__half>(double v)
{
    return __double2half(v);
}
template <> __device__ inline __nv_bfloat16 to_operand<__nv_bfloat16>(double v)
{
    return __double2bfloat16(v);
}
template <> __device__ inline __nv_fp8_e4m3 to_operand<__nv_fp8_e4m3>(double v)
{
    return __nv_fp8_e4m3(v);
}
template <> __device__ inline int8_t to_operand<int8_t>(double v)
{
    return (int8_t)v;
}

template <typename T>
__global__ void k_fill(T *p, size_t n, enum mcf_dtype t, enum mcf_inputs in, uint64_t seed,
                       uint64_t stream)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = to_operand<T>(mcf_gemm_value(t, in, seed, stream, i));
}

/* The cuBLASLt functions used, by their own declarations. */
/* clang-format off */
#define LT_FUNCS(X) \
    X(cublasLtCreate) X(cublasLtDestroy) X(cublasLtGetVersion) X(cublasLtGetStatusName) \
    X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy) X(cublasLtMatmulDescSetAttribute) \
    X(cublasLtMatrixLayoutCreate) X(cublasLtMatrixLayoutDestroy) \
    X(cublasLtMatmulPreferenceCreate) X(cublasLtMatmulPreferenceDestroy) \
    X(cublasLtMatmulPreferenceSetAttribute) X(cublasLtMatmulAlgoGetHeuristic) X(cublasLtMatmul)
/* clang-format on */
struct lt_lib {
    void *dl;
    char path[256];
#define LT_PTR(f) decltype(&::f) fn_##f;
    LT_FUNCS(LT_PTR)
#undef LT_PTR
};

static int lt_open(struct lt_lib *l, char *why, size_t len)
{
    static const char *const names[] = { "libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so",
                                         NULL };
#define LT_NAME(f) #f,
    static const char *const syms[] = { LT_FUNCS(LT_NAME) NULL };
#undef LT_NAME
    char reasons[768];
    memset(l, 0, sizeof *l);
    l->dl = mcf_blas_dlopen("MCFLEET_CUBLASLT_LIB", names, syms, l->path, sizeof l->path, reasons,
                            sizeof reasons);
    if (!l->dl) {
        snprintf(why, len, "no cuBLASLt library (%s)", reasons);
        return -1;
    }
#define LT_SYM(f) *(void **)&l->fn_##f = dlsym(l->dl, #f);
    LT_FUNCS(LT_SYM)
#undef LT_SYM
    return 0;
}

/* A cuBLASLt call that must succeed: its name and status name in the error. */
#define LT_TRY(g, e, call)                                                                         \
    do {                                                                                           \
        cublasStatus_t lt_rc_ = (g)->lt.fn_##call;                                                 \
        if (lt_rc_ != CUBLAS_STATUS_SUCCESS) {                                                     \
            mcf_err_set((e), MCF_ERUNTIME, __FILE__, __LINE__, "cuBLASLt %.*s failed: %s",         \
                        (int)strcspn(#call, "("), #call,                                           \
                        (g)->lt.fn_cublasLtGetStatusName(lt_rc_));                                 \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* A type's library description. */
struct lt_type {
    cudaDataType_t ab, cd, scale;
    cublasComputeType_t compute;
    int ab_bytes, cd_bytes;
};
static int lt_type(enum mcf_dtype t, struct lt_type *o)
{
    switch (t) {
    case MCF_FP64: *o = { CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, 8, 8 }; return 0;
    case MCF_FP32: *o = { CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4 }; return 0;
    case MCF_TF32:
        *o = { CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4 };
        return 0;
    case MCF_FP16: *o = { CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2, 2 }; return 0;
    case MCF_BF16:
        *o = { CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2, 2 };
        return 0;
    case MCF_FP8_E4M3:
        *o = { CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1, 2 };
        return 0;
    case MCF_INT8: *o = { CUDA_R_8I, CUDA_R_32I, CUDA_R_32I, CUBLAS_COMPUTE_32I, 1, 4 }; return 0;
    default: return -1;
    }
}

/* An element read back from the device, as the library saw it. */
static double decode(enum mcf_dtype t, int out, const void *p, size_t i)
{
    switch (t) {
    case MCF_FP64: return ((const double *)p)[i];
    case MCF_FP32:
    case MCF_TF32: return ((const float *)p)[i];
    case MCF_FP16: return __half2float(((const __half *)p)[i]);
    case MCF_BF16: return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
    case MCF_FP8_E4M3:
        return out ? __bfloat162float(((const __nv_bfloat16 *)p)[i])
                   : (double)(float)((const __nv_fp8_e4m3 *)p)[i];
    case MCF_INT8: return out ? ((const int32_t *)p)[i] : ((const int8_t *)p)[i];
    default: return NAN;
    }
}

#define WORKSPACE (64u << 20)

struct gemm_run {
    struct gpu_state *s;
    struct mcf_kernel k;
    struct lt_lib lt;
    struct lt_type ty;
    uint64_t n;
    void *a, *b, *d, *ws;
    struct gpu_clock *clk;
    cublasLtHandle_t h;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, ld;
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulHeuristicResult_t algo;
    int have_h, have_op, have_la, have_lb, have_ld, have_pref;
};

static void gemm_free(struct gemm_run *g)
{
    if (!g) return;
    if (g->have_pref) g->lt.fn_cublasLtMatmulPreferenceDestroy(g->pref);
    if (g->have_la) g->lt.fn_cublasLtMatrixLayoutDestroy(g->la);
    if (g->have_lb) g->lt.fn_cublasLtMatrixLayoutDestroy(g->lb);
    if (g->have_ld) g->lt.fn_cublasLtMatrixLayoutDestroy(g->ld);
    if (g->have_op) g->lt.fn_cublasLtMatmulDescDestroy(g->op);
    if (g->have_h) g->lt.fn_cublasLtDestroy(g->h);
    if (g->a) GPU_RELEASE(gpuFree(g->a));
    if (g->b) GPU_RELEASE(gpuFree(g->b));
    if (g->d) GPU_RELEASE(gpuFree(g->d));
    if (g->ws) GPU_RELEASE(gpuFree(g->ws));
    if (g->clk) GPU_RELEASE(gpuFree(g->clk));
    if (g->lt.dl) dlclose(g->lt.dl);
    free(g);
}

template <typename T>
static int fill(struct gemm_run *g, void *p, uint64_t stream, struct mcf_err *e)
{
    k_fill<T><<<g->s->sms * 8, 256, 0, g->s->stream>>>((T *)p, (size_t)(g->n * g->n), g->k.dtype,
                                                       g->k.inputs, g->k.seed, stream);
    GPU_LAUNCHED(e, "operand fill");
    return MCF_OK;
fail:
    return e->rc;
}

static int fill_operands(struct gemm_run *g, struct mcf_err *e)
{
    for (uint64_t stream = 0; stream < 2; stream++) {
        void *p = stream ? g->b : g->a;
        switch (g->k.dtype) {
        case MCF_FP64: MCF_TRY(fill<double>(g, p, stream, e)); break;
        case MCF_FP32:
        case MCF_TF32: MCF_TRY(fill<float>(g, p, stream, e)); break;
        case MCF_FP16: MCF_TRY(fill<__half>(g, p, stream, e)); break;
        case MCF_BF16: MCF_TRY(fill<__nv_bfloat16>(g, p, stream, e)); break;
        case MCF_FP8_E4M3: MCF_TRY(fill<__nv_fp8_e4m3>(g, p, stream, e)); break;
        default: MCF_TRY(fill<int8_t>(g, p, stream, e)); break;
        }
    }
    GPU_TRY(e, gpuStreamSynchronize(g->s->stream));
    return MCF_OK;
fail:
    return e->rc;
}

static int gemm_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    struct gemm_run *g = NULL;
    char why[1024];
    int cc = s->prop.major * 10 + s->prop.minor, found = 0;
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    size_t ws = WORKSPACE;
    struct lt_type ty;
    if (lt_type(k->dtype, &ty) != 0)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "cuBLASLt has no %s GEMM",
                           mcf_dtype_names[k->dtype]);
    if (k->dtype == MCF_FP8_E4M3 && cc < 89)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "FP8 GEMMs need sm_89 or later (this GPU is sm_%d)", cc);
    if (k->dtype == MCF_INT8 && k->size % 4)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "cuBLASLt's int8 GEMM needs sizes that are multiples of 4");
    MCF_ALLOC(e, g, 1);
    g->s = s;
    g->k = *k;
    g->ty = ty;
    g->n = k->size;
    if (lt_open(&g->lt, why, sizeof why) != 0) {
        free(g);
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "%s", why);
    }
    GPU_TRY(e, gpuMalloc(&g->a, g->n * g->n * ty.ab_bytes));
    GPU_TRY(e, gpuMalloc(&g->b, g->n * g->n * ty.ab_bytes));
    GPU_TRY(e, gpuMalloc(&g->d, g->n * g->n * ty.cd_bytes));
    GPU_TRY(e, gpuMalloc(&g->ws, ws));
    GPU_TRY(e, gpuMalloc((void **)&g->clk, sizeof *g->clk));
    MCF_TRY(fill_operands(g, e));
    LT_TRY(g, e, cublasLtCreate(&g->h));
    g->have_h = 1;
    LT_TRY(g, e, cublasLtMatmulDescCreate(&g->op, ty.compute, ty.scale));
    g->have_op = 1;
    LT_TRY(g, e,
           cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    LT_TRY(g, e,
           cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    LT_TRY(g, e, cublasLtMatrixLayoutCreate(&g->la, ty.ab, g->n, g->n, (int64_t)g->n));
    g->have_la = 1;
    LT_TRY(g, e, cublasLtMatrixLayoutCreate(&g->lb, ty.ab, g->n, g->n, (int64_t)g->n));
    g->have_lb = 1;
    LT_TRY(g, e, cublasLtMatrixLayoutCreate(&g->ld, ty.cd, g->n, g->n, (int64_t)g->n));
    g->have_ld = 1;
    LT_TRY(g, e, cublasLtMatmulPreferenceCreate(&g->pref));
    g->have_pref = 1;
    LT_TRY(g, e,
           cublasLtMatmulPreferenceSetAttribute(g->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                &ws, sizeof ws));
    LT_TRY(g, e,
           cublasLtMatmulAlgoGetHeuristic(g->h, g->op, g->la, g->lb, g->ld, g->ld, g->pref, 1,
                                          &g->algo, &found));
    if (found < 1)
        MCF_FAIL(e, MCF_EUNSUPPORTED,
                 "cuBLASLt (%s) has no algorithm for a %s %llu^3 GEMM on sm_%d", g->lt.path,
                 mcf_dtype_names[k->dtype], (unsigned long long)g->n, cc);
    *ks = g;
    return MCF_OK;
fail:
    gemm_free(g);
    return e->rc;
}

static int gemm_call(struct gemm_run *g, struct mcf_err *e)
{
    double one64 = 1.0, zero64 = 0.0;
    float one32 = 1.0f, zero32 = 0.0f;
    int32_t one_i = 1, zero_i = 0;
    const void *alpha = g->ty.scale == CUDA_R_64F ? (const void *)&one64
        : g->ty.scale == CUDA_R_32I               ? (const void *)&one_i
                                                  : (const void *)&one32;
    const void *beta = g->ty.scale == CUDA_R_64F ? (const void *)&zero64
        : g->ty.scale == CUDA_R_32I              ? (const void *)&zero_i
                                                 : (const void *)&zero32;
    LT_TRY(g, e,
           cublasLtMatmul(g->h, g->op, alpha, g->a, g->la, g->b, g->lb, beta, g->d, g->ld, g->d,
                          g->ld, &g->algo.algo, g->ws, WORKSPACE, g->s->stream));
    return MCF_OK;
fail:
    return e->rc;
}

static int gemm_run_rep(void *ks, struct mcf_sample *smp, struct mcf_err *e)
{
    struct gemm_run *g = (struct gemm_run *)ks;
    return gemm_time(
        g->s, &g->k, g->clk, [g](struct mcf_err *er) { return gemm_call(g, er); }, smp, e);
}

static int gemm_verify(void *ks, struct mcf_err *e)
{
    struct gemm_run *g = (struct gemm_run *)ks;
    const struct gemm_view v = {
        g->s, &g->k, g->n, g->a, g->b, g->d, g->ty.ab_bytes, g->ty.cd_bytes
    };
    enum mcf_dtype t = g->k.dtype;
    return gemm_check_output(
        &v, [t](int out, const void *p, size_t i) { return decode(t, out, p, i); }, e);
}

static void gemm_teardown(void *ks)
{
    gemm_free((struct gemm_run *)ks);
}

GPU_HOST_OPS(gpu_gemm_ops, gemm_setup, gemm_run_rep, gemm_verify, gemm_teardown);

#endif
