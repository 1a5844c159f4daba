/* hipBLASLt, with rocBLAS behind it, for the gemm family on AMD GPUs
 * (vendor_amdblas.h). */
#include "vendor_amdblas.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"

static int prefix(const char *s, const char *p)
{
    return s && strncmp(s, p, strlen(p)) == 0;
}

int mcf_amd_type(enum mcf_dtype t, const char *arch, struct mcf_amd_type *o, struct mcf_err *e)
{
    /* MI300 (gfx940-942) multiplies e4m3fnuz; gfx950 and RDNA4 (gfx12) OCP's e4m3 */
    int fnuz = prefix(arch, "gfx94"), ocp = prefix(arch, "gfx950") || prefix(arch, "gfx12");
    int xf32 = prefix(arch, "gfx940") || prefix(arch, "gfx941") || prefix(arch, "gfx942");
    const struct mcf_amd_type f64 = { MCF_HIP_R_64F,
                                      MCF_HIP_R_64F,
                                      MCF_HIP_R_64F,
                                      MCF_HIPBLAS_COMPUTE_64F,
                                      MCF_ROCBLAS_F64,
                                      MCF_ROCBLAS_F64,
                                      MCF_ROCBLAS_F64,
                                      8,
                                      8,
                                      MCF_FP8_OCP };
    const struct mcf_amd_type f32 = { MCF_HIP_R_32F,
                                      MCF_HIP_R_32F,
                                      MCF_HIP_R_32F,
                                      MCF_HIPBLAS_COMPUTE_32F,
                                      MCF_ROCBLAS_F32,
                                      MCF_ROCBLAS_F32,
                                      MCF_ROCBLAS_F32,
                                      4,
                                      4,
                                      MCF_FP8_OCP };
    /* xf32: rocblas_gemm_ex has no compute type for it (its math mode is a handle setting):
     * hipBLASLt only */
    const struct mcf_amd_type x32 = { MCF_HIP_R_32F,
                                      MCF_HIP_R_32F,
                                      MCF_HIP_R_32F,
                                      MCF_HIPBLAS_COMPUTE_32F_FAST_TF32,
                                      0,
                                      0,
                                      0,
                                      4,
                                      4,
                                      MCF_FP8_OCP };
    const struct mcf_amd_type f16 = { MCF_HIP_R_16F,
                                      MCF_HIP_R_16F,
                                      MCF_HIP_R_32F,
                                      MCF_HIPBLAS_COMPUTE_32F,
                                      MCF_ROCBLAS_F16,
                                      MCF_ROCBLAS_F16,
                                      MCF_ROCBLAS_F32,
                                      2,
                                      2,
                                      MCF_FP8_OCP };
    const struct mcf_amd_type b16 = { MCF_HIP_R_16BF,
                                      MCF_HIP_R_16BF,
                                      MCF_HIP_R_32F,
                                      MCF_HIPBLAS_COMPUTE_32F,
                                      MCF_ROCBLAS_BF16,
                                      MCF_ROCBLAS_BF16,
                                      MCF_ROCBLAS_F32,
                                      2,
                                      2,
                                      MCF_FP8_OCP };
    /* fp8: rocblas_gemm_ex has none (rocblas_gemm_ex3 is deprecated): hipBLASLt only */
    const struct mcf_amd_type f8 = { fnuz ? MCF_HIP_R_8F_E4M3_FNUZ : MCF_HIP_R_8F_E4M3,
                                     MCF_HIP_R_16BF,
                                     MCF_HIP_R_32F,
                                     MCF_HIPBLAS_COMPUTE_32F,
                                     0,
                                     0,
                                     0,
                                     1,
                                     2,
                                     fnuz ? MCF_FP8_FNUZ : MCF_FP8_OCP };
    const struct mcf_amd_type i8 = { MCF_HIP_R_8I,
                                     MCF_HIP_R_32I,
                                     MCF_HIP_R_32I,
                                     MCF_HIPBLAS_COMPUTE_32I,
                                     MCF_ROCBLAS_I8,
                                     MCF_ROCBLAS_I32,
                                     MCF_ROCBLAS_I32,
                                     1,
                                     4,
                                     MCF_FP8_OCP };
    switch (t) {
    case MCF_FP64: *o = f64; return MCF_OK;
    case MCF_FP32: *o = f32; return MCF_OK;
    case MCF_TF32:
        if (!xf32)
            return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                               "tf32 on AMD is xf32, which only gfx940-gfx942 "
                               "(MI300) multiply (this GPU is %s)",
                               arch && *arch ? arch : "unknown");
        *o = x32;
        return MCF_OK;
    case MCF_FP16: *o = f16; return MCF_OK;
    case MCF_BF16: *o = b16; return MCF_OK;
    case MCF_FP8_E4M3:
        if (!fnuz && !ocp)
            return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                               "FP8 GEMMs need gfx940 or later (MI300: "
                               "e4m3fnuz; gfx950: OCP e4m3); this GPU is %s",
                               arch && *arch ? arch : "unknown");
        *o = f8;
        return MCF_OK;
    case MCF_INT8: *o = i8; return MCF_OK;
    default:
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "AMD's GEMM libraries have no %s GEMM", mcf_dtype_names[t]);
    }
}

const char *mcf_hipblas_status_name(int status)
{
    static const char *const names[] = {
        "HIPBLAS_STATUS_SUCCESS",        "HIPBLAS_STATUS_NOT_INITIALIZED",
        "HIPBLAS_STATUS_ALLOC_FAILED",   "HIPBLAS_STATUS_INVALID_VALUE",
        "HIPBLAS_STATUS_MAPPING_ERROR",  "HIPBLAS_STATUS_EXECUTION_FAILED",
        "HIPBLAS_STATUS_INTERNAL_ERROR", "HIPBLAS_STATUS_NOT_SUPPORTED",
        "HIPBLAS_STATUS_ARCH_MISMATCH",  "HIPBLAS_STATUS_HANDLE_IS_NULLPTR",
        "HIPBLAS_STATUS_INVALID_ENUM",   "HIPBLAS_STATUS_UNKNOWN",
    };
    return status >= 0 && status < (int)(sizeof names / sizeof names[0])
        ? names[status]
        : "an unknown hipblasStatus_t";
}

/* The library's symbols into a table: syms[i] lands at offs[i]. */
struct sym {
    const char *name;
    size_t off;
};
static void *open_lib(const char *env, const char *const *names, const struct sym *syms, int nsyms,
                      void *table, char *path, size_t path_len, char *why, size_t len)
{
    const char *list[24];
    for (int i = 0; i < nsyms && i < 23; i++) list[i] = syms[i].name;
    list[nsyms < 23 ? nsyms : 23] = NULL;
    void *dl = mcf_blas_dlopen(env, names, list, path, path_len, why, len);
    for (int i = 0; dl && i < nsyms; i++)
        *(void **)((char *)table + syms[i].off) = dlsym(dl, syms[i].name);
    return dl;
}

#define LT(f, name)                                                                                \
    {                                                                                              \
        name, offsetof(struct mcf_hipblaslt, f)                                                    \
    }
int mcf_hipblaslt_open(struct mcf_hipblaslt *l, char *why, size_t len)
{
    static const char *const names[] = { "libhipblaslt.so.1", "libhipblaslt.so.0",
                                         "libhipblaslt.so", "/opt/rocm/lib/libhipblaslt.so", NULL };
    static const struct sym syms[] = {
        LT(create, "hipblasLtCreate"),
        LT(destroy, "hipblasLtDestroy"),
        LT(get_version, "hipblasLtGetVersion"),
        LT(desc_create, "hipblasLtMatmulDescCreate"),
        LT(desc_destroy, "hipblasLtMatmulDescDestroy"),
        LT(desc_set, "hipblasLtMatmulDescSetAttribute"),
        LT(layout_create, "hipblasLtMatrixLayoutCreate"),
        LT(layout_destroy, "hipblasLtMatrixLayoutDestroy"),
        LT(pref_create, "hipblasLtMatmulPreferenceCreate"),
        LT(pref_destroy, "hipblasLtMatmulPreferenceDestroy"),
        LT(pref_set, "hipblasLtMatmulPreferenceSetAttribute"),
        LT(heuristic, "hipblasLtMatmulAlgoGetHeuristic"),
        LT(matmul, "hipblasLtMatmul"),
    };
    char reasons[768];
    memset(l, 0, sizeof *l);
    l->dl = open_lib("MCFLEET_HIPBLASLT_LIB", names, syms, (int)(sizeof syms / sizeof syms[0]), l,
                     l->path, sizeof l->path, reasons, sizeof reasons);
    if (!l->dl) {
        snprintf(why, len, "no hipBLASLt library (%s)", reasons);
        return -1;
    }
    return 0;
}

#define RB(f, name)                                                                                \
    {                                                                                              \
        name, offsetof(struct mcf_rocblas, f)                                                      \
    }
int mcf_rocblas_open(struct mcf_rocblas *l, char *why, size_t len)
{
    static const char *const names[] = { "librocblas.so.5", "librocblas.so.4", "librocblas.so",
                                         "/opt/rocm/lib/librocblas.so", NULL };
    static const struct sym syms[] = {
        RB(create_handle, "rocblas_create_handle"),
        RB(destroy_handle, "rocblas_destroy_handle"),
        RB(set_stream, "rocblas_set_stream"),
        RB(get_version_string, "rocblas_get_version_string"),
        RB(status_to_string, "rocblas_status_to_string"),
        RB(gemm_ex, "rocblas_gemm_ex"),
    };
    char reasons[768];
    memset(l, 0, sizeof *l);
    l->dl = open_lib("MCFLEET_ROCBLAS_LIB", names, syms, (int)(sizeof syms / sizeof syms[0]), l,
                     l->path, sizeof l->path, reasons, sizeof reasons);
    if (!l->dl) {
        snprintf(why, len, "no rocBLAS library (%s)", reasons);
        return -1;
    }
    return 0;
}

/* hipBLASLt's answer that it does not do this (fall back), not a failure */
static int refusal(int st)
{
    return st == MCF_HIPBLAS_STATUS_NOT_SUPPORTED || st == MCF_HIPBLAS_STATUS_INVALID_VALUE ||
        st == MCF_HIPBLAS_STATUS_INVALID_ENUM || st == MCF_HIPBLAS_STATUS_ARCH_MISMATCH;
}

/* A hipBLASLt call in the plan: a refusal goes to why (returns 1), another
 * failure to e (MCF_ERUNTIME, returns -1). */
#define LT_PLAN(g, e, call, why)                                                                   \
    do {                                                                                           \
        int st_ = (g)->lt.call;                                                                    \
        if (st_ != MCF_HIPBLAS_STATUS_SUCCESS) {                                                   \
            if (refusal(st_)) {                                                                    \
                snprintf((why), sizeof(why), "hipBLASLt %.32s (%.200s) refuses a %s GEMM: %s %s",  \
                         (g)->provenance, (g)->lt.path, mcf_dtype_names[(g)->dtype],               \
                         lt_name(#call), mcf_hipblas_status_name(st_));                            \
                return 1;                                                                          \
            }                                                                                      \
            mcf_err_set((e), MCF_ERUNTIME, __FILE__, __LINE__, "hipBLASLt %s failed: %s (%d)",     \
                        lt_name(#call), mcf_hipblas_status_name(st_), st_);                        \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

/* "hipblasLtMatmulDescCreate" from the table's "desc_create(&g->op, ...)" */
static const char *lt_name(const char *call)
{
    static const struct {
        const char *f, *name;
    } map[] = {
        { "create", "hipblasLtCreate" },
        { "get_version", "hipblasLtGetVersion" },
        { "desc_create", "hipblasLtMatmulDescCreate" },
        { "desc_set", "hipblasLtMatmulDescSetAttribute" },
        { "layout_create", "hipblasLtMatrixLayoutCreate" },
        { "pref_create", "hipblasLtMatmulPreferenceCreate" },
        { "pref_set", "hipblasLtMatmulPreferenceSetAttribute" },
        { "heuristic", "hipblasLtMatmulAlgoGetHeuristic" },
        { "matmul", "hipblasLtMatmul" },
    };
    size_t n = strcspn(call, "(");
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strlen(map[i].f) == n && strncmp(call, map[i].f, n) == 0) return map[i].name;
    return call;
}

static void lt_release(struct mcf_amd_gemm *g)
{
    if (g->pref) g->lt.pref_destroy(g->pref);
    if (g->la) g->lt.layout_destroy(g->la);
    if (g->lb) g->lt.layout_destroy(g->lb);
    if (g->ld) g->lt.layout_destroy(g->ld);
    if (g->op) g->lt.desc_destroy(g->op);
    if (g->h) g->lt.destroy(g->h);
    g->pref = g->la = g->lb = g->ld = g->op = g->h = NULL;
    if (g->lt.dl) dlclose(g->lt.dl);
    memset(&g->lt, 0, sizeof g->lt);
}

/* hipBLASLt's plan: 0 done, 1 refused (why in g->not_lt), -1 failed (e). */
static int lt_plan(struct mcf_amd_gemm *g, struct mcf_err *e)
{
    int ta = MCF_HIPBLAS_OP_T, tb = MCF_HIPBLAS_OP_N, found = 0;
    uint64_t ws = g->workspace_bytes, n = g->n;
    if (mcf_hipblaslt_open(&g->lt, g->not_lt, sizeof g->not_lt) != 0) return 1;
    snprintf(g->provenance, sizeof g->provenance, "(version unknown)");
    LT_PLAN(g, e, create(&g->h), g->not_lt);
    LT_PLAN(g, e, get_version(g->h, &g->version), g->not_lt);
    snprintf(g->provenance, sizeof g->provenance, "%d.%d.%d", g->version / 100000,
             g->version / 100 % 1000, g->version % 100);
    if (g->version < MCF_HIPBLASLT_MIN_VERSION) {
        snprintf(g->not_lt, sizeof g->not_lt,
                 "hipBLASLt %.32s (%.200s) is older than 0.6.0 (ROCm 6.0), whose type "
                 "numbers mcfleet uses",
                 g->provenance, g->lt.path);
        return 1;
    }
    LT_PLAN(g, e, desc_create(&g->op, g->ty.compute, g->ty.scale), g->not_lt);
    LT_PLAN(g, e, desc_set(g->op, MCF_HIPBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), g->not_lt);
    LT_PLAN(g, e, desc_set(g->op, MCF_HIPBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), g->not_lt);
    LT_PLAN(g, e, layout_create(&g->la, g->ty.ab, n, n, (int64_t)n), g->not_lt);
    LT_PLAN(g, e, layout_create(&g->lb, g->ty.ab, n, n, (int64_t)n), g->not_lt);
    LT_PLAN(g, e, layout_create(&g->ld, g->ty.cd, n, n, (int64_t)n), g->not_lt);
    LT_PLAN(g, e, pref_create(&g->pref), g->not_lt);
    LT_PLAN(g, e, pref_set(g->pref, MCF_HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
            g->not_lt);
    LT_PLAN(g, e, heuristic(g->h, g->op, g->la, g->lb, g->ld, g->ld, g->pref, 1, &g->algo, &found),
            g->not_lt);
    if (found < 1 || g->algo.state != MCF_HIPBLAS_STATUS_SUCCESS) {
        snprintf(g->not_lt, sizeof g->not_lt,
                 "hipBLASLt %.32s (%.200s) has no algorithm for a %s %llu^3 GEMM", g->provenance,
                 g->lt.path, mcf_dtype_names[g->dtype], (unsigned long long)n);
        return 1;
    }
    return 0;
}

static int rb_plan(struct mcf_amd_gemm *g, void *stream, char *why, size_t len, struct mcf_err *e)
{
    char version[128] = "";
    int st;
    if (mcf_rocblas_open(&g->rb, why, len) != 0) return 1;
    if ((st = g->rb.create_handle(&g->h)) != MCF_ROCBLAS_STATUS_SUCCESS)
        MCF_FAIL(e, MCF_ERUNTIME, "rocBLAS rocblas_create_handle failed: %s",
                 g->rb.status_to_string(st));
    if ((st = g->rb.set_stream(g->h, stream)) != MCF_ROCBLAS_STATUS_SUCCESS)
        MCF_FAIL(e, MCF_ERUNTIME, "rocBLAS rocblas_set_stream failed: %s",
                 g->rb.status_to_string(st));
    if ((st = g->rb.get_version_string(version, sizeof version)) != MCF_ROCBLAS_STATUS_SUCCESS)
        snprintf(version, sizeof version, "(version unknown: %s)", g->rb.status_to_string(st));
    snprintf(g->provenance, sizeof g->provenance, "rocBLAS %.127s (%.255s; hipBLASLt: %.600s)",
             version, g->rb.path, g->not_lt);
    return 0;
fail:
    return -1;
}

int mcf_amd_gemm_open(struct mcf_amd_gemm *g, enum mcf_dtype t, const char *arch, uint64_t n,
                      size_t workspace_bytes, void *stream, struct mcf_err *e)
{
    char rb_why[768] = "";
    int rc;
    memset(g, 0, sizeof *g);
    g->dtype = t;
    g->n = n;
    g->workspace_bytes = workspace_bytes;
    MCF_TRY(mcf_amd_type(t, arch, &g->ty, e));
    rc = lt_plan(g, e);
    if (rc < 0) goto fail;
    if (rc == 0) {
        char v[64];
        snprintf(v, sizeof v, "%.32s", g->provenance);
        snprintf(g->provenance, sizeof g->provenance, "hipBLASLt %s (%.256s)", v, g->lt.path);
        g->lib = MCF_AMD_HIPBLASLT;
        return MCF_OK;
    }
    lt_release(g);
    if (!g->ty.rb_ab)
        MCF_FAIL(e, MCF_EUNSUPPORTED, "%s; rocBLAS's gemm_ex has no %s GEMM", g->not_lt,
                 mcf_dtype_names[t]);
    rc = rb_plan(g, stream, rb_why, sizeof rb_why, e);
    if (rc < 0) goto fail;
    if (rc > 0) MCF_FAIL(e, MCF_EUNSUPPORTED, "%s; %s", g->not_lt, rb_why);
    g->lib = MCF_AMD_ROCBLAS;
    return MCF_OK;
fail:
    mcf_amd_gemm_close(g);
    return e->rc;
}

int mcf_amd_gemm_call(struct mcf_amd_gemm *g, const void *a, const void *b, void *d,
                      void *workspace, void *stream, struct mcf_err *e)
{
    double one64 = 1.0, zero64 = 0.0;
    float one32 = 1.0f, zero32 = 0.0f;
    int32_t one_i = 1, zero_i = 0;
    int n = (int)g->n, st;
    int f64 = g->ty.scale == MCF_HIP_R_64F, i32 = g->ty.scale == MCF_HIP_R_32I;
    const void *alpha = f64 ? (const void *)&one64
        : i32               ? (const void *)&one_i
                            : (const void *)&one32;
    const void *beta = f64 ? (const void *)&zero64
        : i32              ? (const void *)&zero_i
                           : (const void *)&zero32;
    if (g->lib == MCF_AMD_HIPBLASLT) {
        st = g->lt.matmul(g->h, g->op, alpha, a, g->la, b, g->lb, beta, d, g->ld, d, g->ld,
                          &g->algo.algo, workspace, g->workspace_bytes, stream);
        if (st != MCF_HIPBLAS_STATUS_SUCCESS)
            return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                               "hipBLASLt hipblasLtMatmul failed: %s (%d)",
                               mcf_hipblas_status_name(st), st);
        return MCF_OK;
    }
    if (g->lib == MCF_AMD_ROCBLAS) {
        st = g->rb.gemm_ex(g->h, MCF_ROCBLAS_OP_TRANSPOSE, MCF_ROCBLAS_OP_NONE, n, n, n, alpha, a,
                           g->ty.rb_ab, n, b, g->ty.rb_ab, n, beta, d, g->ty.rb_cd, n, d,
                           g->ty.rb_cd, n, g->ty.rb_compute, MCF_ROCBLAS_GEMM_ALGO_STANDARD, 0, 0);
        if (st != MCF_ROCBLAS_STATUS_SUCCESS)
            return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                               "rocBLAS rocblas_gemm_ex failed: %s (%d)",
                               g->rb.status_to_string(st), st);
        return MCF_OK;
    }
    return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "no AMD GEMM library was opened");
}

void mcf_amd_gemm_close(struct mcf_amd_gemm *g)
{
    if (g->lt.dl) lt_release(g);
    if (g->rb.dl) {
        if (g->h) g->rb.destroy_handle(g->h);
        g->h = NULL;
        dlclose(g->rb.dl);
        memset(&g->rb, 0, sizeof g->rb);
    }
    g->lib = MCF_AMD_NONE;
}
