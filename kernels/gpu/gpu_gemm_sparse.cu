/* The gemm family's library call, dense or 2:4. gpu_gemm_lib_ops is the
 * backend's gemm table: a dense test goes to gpu_gemm_ops (cuBLASLt,
 * gpu_gemm.cu), a `sparsity: 2:4` test to cuSPARSELt here (loaded with
 * dlopen, src/blas/vendor_cusparselt.c; missing: unsupported, with the
 * reason). The 2:4 path: A is filled on the device by the counter generator
 * with gemm_check.h's 2:4 mask along k (the library's own check,
 * cusparseLtSpMMAPruneCheck, must accept it), then every repetition encodes
 * it as a user of the library would, cusparseLtSpMMAPrune (strip) and
 * cusparseLtSpMMACompress, timed by events apart from the products that
 * follow (encode_s; seed paper 003 found that fixed cost, 3.5-5.8 us on
 * MI300A, decides the speedup). Types: fp16 and bf16 (out in their type),
 * tf32 (fp32 operands, 1:2), fp8 e4m3 (out bf16, sm_90), int8 (out int32),
 * each in gemm_check.h's TN layout. Verification reads back the pruned rows
 * of A the product used: each must be the 2:4 fill exactly (zeros where the
 * mask drops, the fill's values where it keeps), and 64 output elements are
 * checked against those rows times B. AMD (hipSPARSELt): unsupported, said
 * so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_check.h"
#include "gpu.h"
#include "sparselt.h"

extern const struct mcf_kernel_ops gpu_gemm_sparse_ops;

/* ---- the table the backend uses: each test to its own path ---- */

struct gemm_box {
    const struct mcf_kernel_ops *ops;
    void *inner;
};

static int lib_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct gemm_box *box = NULL;
    MCF_ALLOC(e, box, 1);
    box->ops = k->sparsity == MCF_SPARSITY_DENSE ? &gpu_gemm_ops : &gpu_gemm_sparse_ops;
    if (box->ops->setup(state, k, &box->inner, e) != MCF_OK) goto fail;
    *ks = box;
    return MCF_OK;
fail:
    free(box);
    return e->rc;
}
static int lib_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    return ((struct gemm_box *)ks)->ops->run(((struct gemm_box *)ks)->inner, s, e);
}
static int lib_verify(void *ks, struct mcf_err *e)
{
    return ((struct gemm_box *)ks)->ops->verify(((struct gemm_box *)ks)->inner, e);
}
static void lib_teardown(void *ks)
{
    struct gemm_box *box = (struct gemm_box *)ks;
    box->ops->teardown(box->inner);
    free(box);
}

#if !defined(MCF_GPU_HIP)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cusparse.h>
#include <library_types.h>

/* sparselt.h's numbers are the toolkit's where the toolkit has them */
#define SAME(a, b) ((int)(a) == (int)(b))
static_assert(SAME(MCF_SLT_R_32F, CUDA_R_32F) && SAME(MCF_SLT_R_16F, CUDA_R_16F) &&
                  SAME(MCF_SLT_R_8I, CUDA_R_8I) && SAME(MCF_SLT_R_32I, CUDA_R_32I) &&
                  SAME(MCF_SLT_R_16BF, CUDA_R_16BF) && SAME(MCF_SLT_R_8F_E4M3, CUDA_R_8F_E4M3),
              "cudaDataType values");
static_assert(SAME(MCF_SLT_ORDER_COL, CUSPARSE_ORDER_COL) &&
                  SAME(MCF_SLT_OP_N, CUSPARSE_OPERATION_NON_TRANSPOSE) &&
                  SAME(MCF_SLT_OP_T, CUSPARSE_OPERATION_TRANSPOSE),
              "cuSPARSE layout and operation values");
static_assert(SAME(MCF_SLT_SUCCESS, CUSPARSE_STATUS_SUCCESS) &&
                  SAME(MCF_SLT_ARCH_MISMATCH, CUSPARSE_STATUS_ARCH_MISMATCH) &&
                  SAME(MCF_SLT_NOT_SUPPORTED, CUSPARSE_STATUS_NOT_SUPPORTED),
              "cusparseStatus_t values");
static_assert(SAME(MCF_SLT_MAJOR, MAJOR_VERSION) && SAME(MCF_SLT_MINOR, MINOR_VERSION) &&
                  SAME(MCF_SLT_PATCH, PATCH_LEVEL),
              "libraryPropertyType values");

namespace
{

template <typename T> __device__ inline T slt_operand(double v);
template <> __device__ inline float slt_operand<float>(double v)
{
    return (float)v;
}
template <> __device__ inline __half slt_operand<__half>(double v)
{
    return __double2half(v);
}
template <> __device__ inline __nv_bfloat16 slt_operand<__nv_bfloat16>(double v)
{
    return __double2bfloat16(v);
}
template <> __device__ inline __nv_fp8_e4m3 slt_operand<__nv_fp8_e4m3>(double v)
{
    return __nv_fp8_e4m3(v);
}
template <> __device__ inline int8_t slt_operand<int8_t>(double v)
{
    return (int8_t)v;
}

/* rows of k values; A (stream 0) with the 2:4 mask, B (stream 1) dense */
template <typename T>
__global__ void k_fill_sparse(T *p, size_t n, uint64_t k, enum mcf_dtype t, enum mcf_inputs in,
                              uint64_t seed, uint64_t stream)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        int keep = stream != 0 || mcf_gemm_kept(t, seed, k, i / k, i % k);
        p[i] = slt_operand<T>(keep ? mcf_gemm_value(t, in, seed, stream, i) : 0.0);
    }
}

/* the SM clock right after the products (gpu_gemm.cu's probe: a kernel
 * cannot be shared between files without relocatable device code) */
__global__ void k_sparse_clock_probe(struct gpu_clock *clk)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) gpu_clock_start(clk);
    unsigned long long t0 = gpu_globaltimer();
    while (gpu_globaltimer() - t0 < 1000000ull)
        ;
    if (threadIdx.x == 0 && blockIdx.x == 0) gpu_clock_stop(clk);
}

} // namespace

struct slt_type {
    int ab, cd, compute;
    int ab_bytes, cd_bytes;
};

static const char *slt_type(enum mcf_dtype t, int cc, struct slt_type *o)
{
    switch (t) {
    case MCF_FP16: *o = { MCF_SLT_R_16F, MCF_SLT_R_16F, MCF_SLT_COMPUTE_32F, 2, 2 }; return NULL;
    case MCF_BF16: *o = { MCF_SLT_R_16BF, MCF_SLT_R_16BF, MCF_SLT_COMPUTE_32F, 2, 2 }; return NULL;
    case MCF_TF32: *o = { MCF_SLT_R_32F, MCF_SLT_R_32F, MCF_SLT_COMPUTE_32F, 4, 4 }; return NULL;
    case MCF_INT8: *o = { MCF_SLT_R_8I, MCF_SLT_R_32I, MCF_SLT_COMPUTE_32I, 1, 4 }; return NULL;
    case MCF_FP8_E4M3:
        *o = { MCF_SLT_R_8F_E4M3, MCF_SLT_R_16BF, MCF_SLT_COMPUTE_32F, 1, 2 };
        return cc < 90 ? "cuSPARSELt's fp8 e4m3 sparse GEMM needs sm_90 or later" : NULL;
    case MCF_FP32:
        return "cuSPARSELt multiplies fp32 operands on TF32 sparse tensor cores: a 2:4 fp32 test "
               "would be a tf32 "
               "one (use dtype: tf32)";
    default:
        return "cuSPARSELt has no sparse GEMM of this type (sparse tensor cores take 8-, 16- and "
               "32-bit operands)";
    }
}

/* An element read back, as the library saw it (out: of D). */
static double slt_decode(enum mcf_dtype t, int out, const void *p, size_t i)
{
    switch (t) {
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

struct sparse_run {
    struct gpu_state *s;
    struct mcf_kernel k;
    struct mcf_sparselt lib;
    struct slt_type ty;
    uint64_t n;
    void *a, *ap, *ac, *cbuf, *b, *d,
        *ws; /* A as filled, pruned, compressed; the compressor's buffer */
    int *valid;
    struct gpu_clock *clk;
    size_t ws_bytes;
    gpuEvent_t enc0, enc1;
    int have_enc0, have_enc1, have_h, have_ma, have_mb, have_mc, have_alg, have_plan;
    mcf_slt_handle_t h;
    mcf_slt_mat_t ma, mb, mc;
    mcf_slt_matmul_t mm;
    mcf_slt_alg_t alg;
    mcf_slt_plan_t plan;
};

/* A cuSPARSELt call that must succeed; the library refusing a type or an
 * architecture is "unsupported", any other failure an error. */
#define SLT_TRY(g, e, fn, ...)                                                                     \
    do {                                                                                           \
        mcf_slt_status_t st_ = (g)->lib.fn(__VA_ARGS__);                                           \
        if (st_ != MCF_SLT_SUCCESS) {                                                              \
            char why_[256];                                                                        \
            mcf_err_set((e),                                                                       \
                        st_ == MCF_SLT_NOT_SUPPORTED || st_ == MCF_SLT_ARCH_MISMATCH               \
                            ? MCF_EUNSUPPORTED                                                     \
                            : MCF_ERUNTIME,                                                        \
                        __FILE__, __LINE__, "cuSPARSELt %s (%s) %s for a %s %llu^3 2:4 GEMM: %s",  \
                        (g)->lib.version, (g)->lib.path, #fn, mcf_dtype_names[(g)->k.dtype],       \
                        (unsigned long long)(g)->n,                                                \
                        mcf_sparselt_status(&(g)->lib, st_, why_, sizeof why_));                   \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

static void sparse_free(struct sparse_run *g)
{
    if (!g) return;
    if (g->have_plan) g->lib.cusparseLtMatmulPlanDestroy(&g->plan);
    if (g->have_alg) g->lib.cusparseLtMatmulAlgSelectionDestroy(&g->alg);
    if (g->have_ma) g->lib.cusparseLtMatDescriptorDestroy(&g->ma);
    if (g->have_mb) g->lib.cusparseLtMatDescriptorDestroy(&g->mb);
    if (g->have_mc) g->lib.cusparseLtMatDescriptorDestroy(&g->mc);
    if (g->have_h) g->lib.cusparseLtDestroy(&g->h);
    void *bufs[] = { g->a, g->ap, g->ac, g->cbuf, g->b, g->d, g->ws, g->valid, g->clk };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]) GPU_RELEASE(gpuFree(bufs[i]));
    if (g->have_enc0) GPU_RELEASE(gpuEventDestroy(g->enc0));
    if (g->have_enc1) GPU_RELEASE(gpuEventDestroy(g->enc1));
    mcf_sparselt_close(&g->lib);
    free(g);
}

template <typename T>
static int fill(struct sparse_run *g, void *p, uint64_t stream, struct mcf_err *e)
{
    k_fill_sparse<T><<<g->s->sms * 8, 256, 0, g->s->stream>>>(
        (T *)p, (size_t)(g->n * g->n), g->n, g->k.dtype, g->k.inputs, g->k.seed, stream);
    GPU_LAUNCHED(e, "operand fill");
    return MCF_OK;
fail:
    return e->rc;
}

static int fill_operands(struct sparse_run *g, struct mcf_err *e)
{
    for (uint64_t stream = 0; stream < 2; stream++) {
        void *p = stream ? g->b : g->a;
        switch (g->k.dtype) {
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

/* One encoding of A, as the library's user does it: prune, then compress. */
static int encode(struct sparse_run *g, struct mcf_err *e)
{
    void *st = (void *)g->s->stream;
    SLT_TRY(g, e, cusparseLtSpMMAPrune, &g->h, &g->mm, g->a, g->ap, MCF_SLT_PRUNE_STRIP, st);
    SLT_TRY(g, e, cusparseLtSpMMACompress, &g->h, &g->plan, g->ap, g->ac, g->cbuf, st);
    return MCF_OK;
fail:
    return e->rc;
}

static int sparse_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    struct sparse_run *g = NULL;
    char why[1024];
    int cc = s->prop.major * 10 + s->prop.minor, valid = -1;
    size_t c_bytes = 0, cbuf_bytes = 0, ab;
    struct slt_type ty;
    const char *no = slt_type(k->dtype, cc, &ty);
    if (no) return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "%s", no);
    if (cc < 80)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "2:4 sparse tensor cores need sm_80 or later (this GPU is sm_%d)", cc);
    MCF_ALLOC(e, g, 1);
    g->s = s;
    g->k = *k;
    g->ty = ty;
    g->n = k->size;
    if (mcf_sparselt_open(&g->lib, why, sizeof why) != 0) {
        free(g);
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "%s", why);
    }
    ab = g->n * g->n * ty.ab_bytes;
    GPU_TRY(e, gpuMalloc(&g->a, ab));
    GPU_TRY(e, gpuMalloc(&g->ap, ab));
    GPU_TRY(e, gpuMalloc(&g->b, ab));
    GPU_TRY(e, gpuMalloc(&g->d, g->n * g->n * ty.cd_bytes));
    GPU_TRY(e, gpuMalloc((void **)&g->valid, sizeof *g->valid));
    GPU_TRY(e, gpuMalloc((void **)&g->clk, sizeof *g->clk));
    GPU_TRY(e, gpuEventCreate(&g->enc0));
    g->have_enc0 = 1;
    GPU_TRY(e, gpuEventCreate(&g->enc1));
    g->have_enc1 = 1;
    MCF_TRY(fill_operands(g, e));
    SLT_TRY(g, e, cusparseLtInit, &g->h);
    g->have_h = 1;
    /* gemm_check.h's TN layout, every matrix column-major: A is stored k x m
       (row i of A is column i), used transposed, so its 2:4 groups run along k */
    SLT_TRY(g, e, cusparseLtStructuredDescriptorInit, &g->h, &g->ma, (int64_t)g->n, (int64_t)g->n,
            (int64_t)g->n, 16, ty.ab, MCF_SLT_ORDER_COL, MCF_SLT_SPARSITY_50);
    g->have_ma = 1;
    SLT_TRY(g, e, cusparseLtDenseDescriptorInit, &g->h, &g->mb, (int64_t)g->n, (int64_t)g->n,
            (int64_t)g->n, 16, ty.ab, MCF_SLT_ORDER_COL);
    g->have_mb = 1;
    SLT_TRY(g, e, cusparseLtDenseDescriptorInit, &g->h, &g->mc, (int64_t)g->n, (int64_t)g->n,
            (int64_t)g->n, 16, ty.cd, MCF_SLT_ORDER_COL);
    g->have_mc = 1;
    SLT_TRY(g, e, cusparseLtMatmulDescriptorInit, &g->h, &g->mm, MCF_SLT_OP_T, MCF_SLT_OP_N, &g->ma,
            &g->mb, &g->mc, &g->mc, ty.compute);
    SLT_TRY(g, e, cusparseLtMatmulAlgSelectionInit, &g->h, &g->alg, &g->mm, MCF_SLT_ALG_DEFAULT);
    g->have_alg = 1;
    SLT_TRY(g, e, cusparseLtMatmulPlanInit, &g->h, &g->plan, &g->mm, &g->alg);
    g->have_plan = 1;
    SLT_TRY(g, e, cusparseLtMatmulGetWorkspace, &g->h, &g->plan, &g->ws_bytes);
    SLT_TRY(g, e, cusparseLtSpMMACompressedSize, &g->h, &g->plan, &c_bytes, &cbuf_bytes);
    GPU_TRY(e, gpuMalloc(&g->ac, c_bytes));
    if (cbuf_bytes) GPU_TRY(e, gpuMalloc(&g->cbuf, cbuf_bytes));
    if (g->ws_bytes) GPU_TRY(e, gpuMalloc(&g->ws, g->ws_bytes));
    /* the fill is 2:4 in the library's own eyes, or the mask and the layout disagree */
    SLT_TRY(g, e, cusparseLtSpMMAPruneCheck, &g->h, &g->mm, g->a, g->valid, (void *)s->stream);
    GPU_TRY(e, gpuStreamSynchronize(s->stream));
    GPU_TRY(e, gpuMemcpy(&valid, g->valid, sizeof valid, gpuMemcpyDeviceToHost));
    if (valid != 0)
        MCF_FAIL(e, MCF_ERUNTIME,
                 "cuSPARSELt %s: cusparseLtSpMMAPruneCheck finds A's 2:4 fill not 2:4 (%d): the "
                 "mask (gemm_check.h) and the library's layout disagree",
                 g->lib.version, valid);
    /* the verified test's message (run_test.c): which library did it */
    snprintf(e->msg, sizeof e->msg,
             "cuSPARSELt %s (%s); A pruned (strip) and compressed every repetition, "
             "timed apart as encode_s",
             g->lib.version, g->lib.path);
    *ks = g;
    return MCF_OK;
fail:
    sparse_free(g);
    return e->rc;
}

static int sparse_run_rep(void *ks, struct mcf_sample *smp, struct mcf_err *e)
{
    struct sparse_run *g = (struct sparse_run *)ks;
    struct gpu_state *s = g->s;
    struct gpu_clock clk;
    float alpha = 1.0f, beta = 0.0f, enc_ms = 0.0f, ms = 0.0f;
    void *st = (void *)s->stream;
    GPU_TRY(e, gpuEventRecord(g->enc0, s->stream));
    MCF_TRY(encode(g, e));
    GPU_TRY(e, gpuEventRecord(g->enc1, s->stream));
    GPU_TRY(e, gpuEventRecord(s->ev0, s->stream));
    for (uint64_t i = 0; i < g->k.iterations; i++)
        SLT_TRY(g, e, cusparseLtMatmul, &g->h, &g->plan, &alpha, g->ac, g->b, &beta, g->d, g->d,
                g->ws, &st, 1);
    GPU_TRY(e, gpuEventRecord(s->ev1, s->stream));
    k_sparse_clock_probe<<<s->sms, 32, 0, s->stream>>>(g->clk);
    GPU_LAUNCHED(e, "clock probe");
    GPU_TRY(e, gpuStreamSynchronize(s->stream));
    GPU_TRY(e, gpuEventElapsedTime(&enc_ms, g->enc0, g->enc1));
    GPU_TRY(e, gpuEventElapsedTime(&ms, s->ev0, s->ev1));
    GPU_TRY(e, gpuMemcpy(&clk, g->clk, sizeof clk, gpuMemcpyDeviceToHost));
    smp->seconds = ms * 1e-3;
    smp->units = (double)g->k.iterations;
    smp->encode_s = enc_ms * 1e-3;
    smp->exec_fraction = 0.5; /* sparse tensor cores skip the pruned half */
    smp->clock_mhz = gpu_clock_mhz(&clk);
    return MCF_OK;
fail:
    return e->rc;
}

/* Row i of A as filled and as pruned: the pruned one must be the 2:4 fill. */
static int pruned_row(struct sparse_run *g, uint64_t i, uint8_t *raw, double *a, struct mcf_err *e)
{
    uint64_t n = g->n;
    size_t row = n * g->ty.ab_bytes;
    GPU_TRY(e, gpuMemcpy(raw, (uint8_t *)g->a + i * row, row, gpuMemcpyDeviceToHost));
    GPU_TRY(e, gpuMemcpy(raw + row, (uint8_t *)g->ap + i * row, row, gpuMemcpyDeviceToHost));
    for (uint64_t kk = 0; kk < n; kk++) {
        double filled = slt_decode(g->k.dtype, 0, raw, kk),
               pruned = slt_decode(g->k.dtype, 0, raw + row, kk);
        int keep = mcf_gemm_kept(g->k.dtype, g->k.seed, n, i, kk);
        if (keep ? !(pruned == filled) : pruned != 0.0)
            return mcf_err_set(e, MCF_EVERIFY, __FILE__, __LINE__,
                               "gemm %s 2:4: cuSPARSELt's pruned A[%llu][%llu] "
                               "= %.9g, the 2:4 fill has %.9g there (%s by the mask)",
                               mcf_dtype_names[g->k.dtype], (unsigned long long)i,
                               (unsigned long long)kk, pruned, keep ? filled : 0.0,
                               keep ? "kept" : "dropped");
        a[kk] = pruned;
    }
    return MCF_OK;
fail:
    return e->rc;
}

static int sparse_verify(void *ks, struct mcf_err *e)
{
    struct sparse_run *g = (struct sparse_run *)ks;
    uint64_t n = g->n, pi[MCF_GEMM_PROBES], pj[MCF_GEMM_PROBES];
    uint8_t *raw = NULL;
    double *a = NULL, *b = NULL, *kept = NULL;
    unsigned char out[8];
    MCF_ALLOC(e, raw, 2 * n * g->ty.ab_bytes);
    MCF_ALLOC(e, a, n);
    MCF_ALLOC(e, b, n);
    MCF_ALLOC(e, kept, n);
    mcf_gemm_probes(g->k.seed, n, pi, pj);
    GPU_TRY(e, gpuStreamSynchronize(g->s->stream));
    if (g->k.inject_fault) { /* testing: one wrong element where the check looks */
        uint64_t at = pj[2] * n + pi[2];
        GPU_TRY(e, gpuMemset((uint8_t *)g->d + at * g->ty.cd_bytes, 0x5a, g->ty.cd_bytes));
    }
    for (int p = 0; p < MCF_GEMM_PROBES; p++) {
        MCF_TRY(pruned_row(g, pi[p], raw, a, e));
        GPU_TRY(e,
                gpuMemcpy(raw, (uint8_t *)g->b + pj[p] * n * g->ty.ab_bytes, n * g->ty.ab_bytes,
                          gpuMemcpyDeviceToHost));
        for (uint64_t x = 0; x < n; x++) b[x] = slt_decode(g->k.dtype, 0, raw, x);
        if (p == 0 && g->k.inputs == MCF_INPUTS_RANDOM) {
            uint64_t nk = 0; /* the kept half has the distribution's spread */
            for (uint64_t x = 0; x < n; x++)
                if (mcf_gemm_kept(g->k.dtype, g->k.seed, n, pi[p], x)) kept[nk++] = a[x];
            MCF_TRY(mcf_gemm_entropy(g->k.dtype, kept, nk, "A", e));
            MCF_TRY(mcf_gemm_entropy(g->k.dtype, b, n, "B", e));
        }
        GPU_TRY(e,
                gpuMemcpy(out, (uint8_t *)g->d + (pj[p] * n + pi[p]) * g->ty.cd_bytes,
                          g->ty.cd_bytes, gpuMemcpyDeviceToHost));
        MCF_TRY(mcf_gemm_check(g->k.dtype, g->k.inputs, a, b, n, slt_decode(g->k.dtype, 1, out, 0),
                               pi[p], pj[p], e));
    }
    free(raw);
    free(a);
    free(b);
    free(kept);
    return MCF_OK;
fail:
    free(raw);
    free(a);
    free(b);
    free(kept);
    return e->rc;
}

static void sparse_teardown(void *ks)
{
    sparse_free((struct sparse_run *)ks);
}

#else /* HIP */

static int sparse_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    (void)state;
    (void)k;
    (void)ks;
    return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                       "2:4 GEMMs are not yet wired to hipSPARSELt on AMD GPUs");
}
static int sparse_run_rep(void *ks, struct mcf_sample *smp, struct mcf_err *e)
{
    (void)ks;
    (void)smp;
    (void)e;
    return MCF_OK;
}
static int sparse_verify(void *ks, struct mcf_err *e)
{
    (void)ks;
    (void)e;
    return MCF_OK;
}
static void sparse_teardown(void *ks)
{
    (void)ks;
}

#endif

GPU_HOST_OPS(gpu_gemm_sparse_ops, sparse_setup, sparse_run_rep, sparse_verify, sparse_teardown);
GPU_HOST_OPS(gpu_gemm_lib_ops, lib_setup, lib_run, lib_verify, lib_teardown);
