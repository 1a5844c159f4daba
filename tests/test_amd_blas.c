/* The AMD GEMM layer (src/blas/vendor_amdblas.c) without a GPU: its type
 * table against the numbers of AMD's headers, and the whole sequence against
 * stub libraries (tests/stub_hipblaslt.c, tests/stub_rocblas.c) that multiply
 * host matrices: hipBLASLt when it plans, rocBLAS when hipBLASLt is missing,
 * too old or refuses, the reason when neither runs, a missing symbol, and a
 * failing call with its status name. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gemm_check.h"
#include "vendor_amdblas.h"

static char lt_lib[512], lt_nomatmul[512], rb_lib[512];
static int (*lt_seen)(const char *), (*rb_seen)(const char *);

static void env(const char *lt, const char *rb)
{
    setenv("MCFLEET_HIPBLASLT_LIB", lt, 1);
    setenv("MCFLEET_ROCBLAS_LIB", rb, 1);
    unsetenv("STUB_HIPBLASLT_FAIL");
    unsetenv("STUB_HIPBLASLT_NOALGO");
    unsetenv("STUB_HIPBLASLT_VERSION");
    unsetenv("STUB_ROCBLAS_FAIL");
}

static void type_table(void **state)
{
    (void)state;
    struct mcf_amd_type t;
    struct mcf_err e = { 0 };
    /* the layout hipblasLtMatmulAlgoGetHeuristic writes (hipblaslt.h 0.6.0-0.11.0) */
    assert_int_equal(sizeof(struct mcf_hipblaslt_heuristic), 56);
    assert_int_equal(offsetof(struct mcf_hipblaslt_heuristic, state), 32);
    /* hipDataType, hipblasComputeType_t, rocblas_datatype numbers, cited in vendor_amdblas.h */
    assert_int_equal(mcf_amd_type(MCF_FP64, "gfx90a:sramecc+:xnack-", &t, &e), MCF_OK);
    assert_int_equal(t.ab, 1); assert_int_equal(t.cd, 1); assert_int_equal(t.scale, 1); assert_int_equal(t.compute, 7);
    assert_int_equal(t.rb_ab, 152); assert_int_equal(t.rb_compute, 152); assert_int_equal(t.ab_bytes, 8);
    assert_int_equal(mcf_amd_type(MCF_FP32, "gfx90a", &t, &e), MCF_OK);
    assert_int_equal(t.ab, 0); assert_int_equal(t.compute, 2); assert_int_equal(t.rb_ab, 151);
    assert_int_equal(mcf_amd_type(MCF_FP16, "gfx90a", &t, &e), MCF_OK);
    assert_int_equal(t.ab, 2); assert_int_equal(t.cd, 2); assert_int_equal(t.scale, 0); assert_int_equal(t.compute, 2);
    assert_int_equal(t.rb_ab, 150); assert_int_equal(t.rb_cd, 150); assert_int_equal(t.rb_compute, 151);
    assert_int_equal(mcf_amd_type(MCF_BF16, "gfx942", &t, &e), MCF_OK);
    assert_int_equal(t.ab, 14); assert_int_equal(t.cd, 14); assert_int_equal(t.rb_ab, 168); assert_int_equal(t.cd_bytes, 2);
    assert_int_equal(mcf_amd_type(MCF_INT8, "gfx942", &t, &e), MCF_OK);
    assert_int_equal(t.ab, 3); assert_int_equal(t.cd, 10); assert_int_equal(t.scale, 10); assert_int_equal(t.compute, 9);
    assert_int_equal(t.rb_ab, 160); assert_int_equal(t.rb_cd, 162); assert_int_equal(t.rb_compute, 162);
    assert_int_equal(t.ab_bytes, 1); assert_int_equal(t.cd_bytes, 4);
    /* xf32: MI300 only, hipBLASLt only */
    assert_int_equal(mcf_amd_type(MCF_TF32, "gfx942:sramecc+:xnack-", &t, &e), MCF_OK);
    assert_int_equal(t.ab, 0); assert_int_equal(t.compute, 6); assert_int_equal(t.rb_ab, 0);
    assert_int_equal(mcf_amd_type(MCF_TF32, "gfx90a", &t, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "xf32, which only gfx940-gfx942 (MI300) multiply (this GPU is gfx90a)"));
    mcf_err_clear(&e);
    assert_int_equal(mcf_amd_type(MCF_TF32, "gfx950", &t, &e), MCF_EUNSUPPORTED);
    mcf_err_clear(&e);
    /* fp8: MI300's e4m3fnuz (bias 8: 1.0 is 0x40), gfx950's OCP e4m3 (0x38), none on gfx90a */
    assert_int_equal(mcf_amd_type(MCF_FP8_E4M3, "gfx942:sramecc+:xnack-", &t, &e), MCF_OK);
    assert_int_equal(t.ab, 1000); assert_int_equal(t.cd, 14); assert_int_equal(t.compute, 2); assert_int_equal(t.rb_ab, 0);
    assert_int_equal(t.fp8, MCF_FP8_FNUZ);
    assert_int_equal(mcf_encode(MCF_FP8_E4M3, 1.0, t.fp8), 0x40);
    assert_int_equal(mcf_amd_type(MCF_FP8_E4M3, "gfx950", &t, &e), MCF_OK);
    assert_int_equal(t.ab, 28); assert_int_equal(t.fp8, MCF_FP8_OCP);
    assert_int_equal(mcf_encode(MCF_FP8_E4M3, 1.0, t.fp8), 0x38);
    assert_int_equal(mcf_amd_type(MCF_FP8_E4M3, "gfx90a", &t, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "FP8 GEMMs need gfx940 or later"));
    mcf_err_clear(&e);
    assert_int_equal(mcf_amd_type(MCF_FP16_ACC16, "gfx942", &t, &e), MCF_EUNSUPPORTED);
    assert_string_equal(mcf_hipblas_status_name(7), "HIPBLAS_STATUS_NOT_SUPPORTED");
    assert_string_equal(mcf_hipblas_status_name(99), "an unknown hipblasStatus_t");
}

/* A host GEMM of n^3 through g, checked at the 64 probes as the GPU's is. */
static void multiply_and_check(struct mcf_amd_gemm *g, enum mcf_dtype t, uint64_t n)
{
    size_t es = t == MCF_FP64 ? 8 : 4;
    char *a = calloc(n * n, es), *b = calloc(n * n, es), *d = calloc(n * n, es);
    double ra[64], rb[64];
    uint64_t pi[MCF_GEMM_PROBES], pj[MCF_GEMM_PROBES];
    struct mcf_err e = { 0 };
    for (uint64_t i = 0; i < n * n; i++) {
        double va = mcf_gemm_value(t, MCF_INPUTS_RANDOM, 7, 0, i), vb = mcf_gemm_value(t, MCF_INPUTS_RANDOM, 7, 1, i);
        if (t == MCF_FP64) { ((double *)a)[i] = va; ((double *)b)[i] = vb; }
        else { ((float *)a)[i] = (float)va; ((float *)b)[i] = (float)vb; }
    }
    assert_int_equal(mcf_amd_gemm_call(g, a, b, d, NULL, (void *)0x1234, &e), MCF_OK);
    mcf_gemm_probes(7, n, pi, pj);
    for (int p = 0; p < MCF_GEMM_PROBES; p++) {
        for (uint64_t x = 0; x < n; x++) {
            ra[x] = t == MCF_FP64 ? ((double *)a)[pi[p] * n + x] : ((float *)a)[pi[p] * n + x];
            rb[x] = t == MCF_FP64 ? ((double *)b)[pj[p] * n + x] : ((float *)b)[pj[p] * n + x];
        }
        double got = t == MCF_FP64 ? ((double *)d)[pj[p] * n + pi[p]] : ((float *)d)[pj[p] * n + pi[p]];
        assert_int_equal(mcf_gemm_check(t, MCF_INPUTS_RANDOM, ra, rb, n, got, pi[p], pj[p], &e), MCF_OK);
    }
    free(a); free(b); free(d);
}

static void hipblaslt_runs(void **state)
{
    (void)state;
    struct mcf_amd_gemm g;
    struct mcf_err e = { 0 };
    char want[600];
    env(lt_lib, "/nonexistent/librocblas.so");
    assert_int_equal(mcf_amd_gemm_open(&g, MCF_FP32, "gfx942:sramecc+:xnack-", 48, 1u << 20, NULL, &e), MCF_OK);
    assert_int_equal(g.lib, MCF_AMD_HIPBLASLT);
    snprintf(want, sizeof want, "hipBLASLt 0.11.0 (%s)", lt_lib);
    assert_string_equal(g.provenance, want);
    assert_string_equal(g.not_lt, "");
    /* D = A^T B, fp32 compute and scale, the workspace offered */
    assert_int_equal(lt_seen("compute"), 2);
    assert_int_equal(lt_seen("scale"), 0);
    assert_int_equal(lt_seen("transa"), 112);
    assert_int_equal(lt_seen("transb"), 111);
    assert_int_equal(lt_seen("ab"), 0);
    assert_int_equal(lt_seen("cd"), 0);
    assert_int_equal(lt_seen("workspace"), 1 << 20);
    multiply_and_check(&g, MCF_FP32, 48);
    mcf_amd_gemm_close(&g);
    assert_int_equal(lt_seen("live"), 0);            /* every handle and descriptor released */
    /* fp64 and int8 plan with their own numbers */
    setenv("STUB_HIPBLASLT_VERSION", "100203", 1);   /* hipBLASLt 1.2.3 */
    assert_int_equal(mcf_amd_gemm_open(&g, MCF_FP64, "gfx90a", 16, 4096, NULL, &e), MCF_OK);
    assert_non_null(strstr(g.provenance, "hipBLASLt 1.2.3 ("));
    assert_int_equal(lt_seen("compute"), 7);
    assert_int_equal(lt_seen("scale"), 1);
    multiply_and_check(&g, MCF_FP64, 16);
    mcf_amd_gemm_close(&g);
    assert_int_equal(mcf_amd_gemm_open(&g, MCF_INT8, "gfx90a", 16, 4096, NULL, &e), MCF_OK);
    assert_int_equal(lt_seen("compute"), 9);
    assert_int_equal(lt_seen("scale"), 10);
    assert_int_equal(lt_seen("ab"), 3);
    assert_int_equal(lt_seen("cd"), 10);
    mcf_amd_gemm_close(&g);
    assert_int_equal(lt_seen("live"), 0);
}

/* rocBLAS runs it, and the provenance says why not hipBLASLt */
static void expect_rocblas(enum mcf_dtype t, const char *why)
{
    struct mcf_amd_gemm g;
    struct mcf_err e = { 0 };
    int before = rb_seen("calls");
    assert_int_equal(mcf_amd_gemm_open(&g, t, "gfx90a", 16, 4096, (void *)0x1234, &e), MCF_OK);
    assert_int_equal(g.lib, MCF_AMD_ROCBLAS);
    assert_non_null(strstr(g.provenance, "rocBLAS 4.4.0.stub ("));
    assert_non_null(strstr(g.provenance, why));
    assert_int_equal(rb_seen("stream"), 0x1234);
    multiply_and_check(&g, t, 16);
    assert_int_equal(rb_seen("calls"), before + 1);
    assert_int_equal(rb_seen("transa"), 112);
    assert_int_equal(rb_seen("transb"), 111);
    assert_int_equal(rb_seen("a_type"), t == MCF_FP64 ? 152 : 151);
    assert_int_equal(rb_seen("compute"), t == MCF_FP64 ? 152 : 151);
    mcf_amd_gemm_close(&g);
    assert_int_equal(rb_seen("live"), 0);
    assert_int_equal(lt_seen("live"), 0);
}

static void rocblas_fallback(void **state)
{
    (void)state;
    env("/nonexistent/libhipblaslt.so.0", rb_lib);
    expect_rocblas(MCF_FP64, "no hipBLASLt library (/nonexistent/libhipblaslt.so.0: ");
    env(lt_lib, rb_lib);
    setenv("STUB_HIPBLASLT_NOALGO", "1", 1);
    expect_rocblas(MCF_FP32, "has no algorithm for a fp32 16^3 GEMM");
    env(lt_lib, rb_lib);
    setenv("STUB_HIPBLASLT_VERSION", "500", 1);
    expect_rocblas(MCF_FP64, "hipBLASLt 0.5.0 (");
    expect_rocblas(MCF_FP64, "is older than 0.6.0");
    env(lt_lib, rb_lib);
    setenv("STUB_HIPBLASLT_FAIL", "hipblasLtMatmulDescCreate=7", 1);
    expect_rocblas(MCF_FP32, "refuses a fp32 GEMM: hipblasLtMatmulDescCreate HIPBLAS_STATUS_NOT_SUPPORTED");
    env(lt_nomatmul, rb_lib);
    expect_rocblas(MCF_FP32, "libstub_hipblaslt_nomatmul.so: lacks hipblasLtMatmul");
}

static void failures(void **state)
{
    (void)state;
    struct mcf_amd_gemm g;
    struct mcf_err e = { 0 };
    /* neither library: unsupported, both reasons */
    env("/nonexistent/libhipblaslt.so.0", "/nonexistent/librocblas.so.4");
    assert_int_equal(mcf_amd_gemm_open(&g, MCF_FP16, "gfx942", 16, 4096, NULL, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "no hipBLASLt library (/nonexistent/libhipblaslt.so.0: "));
    assert_non_null(strstr(e.msg, "; no rocBLAS library (/nonexistent/librocblas.so.4: "));
    /* a symbol missing and no rocBLAS */
    mcf_err_clear(&e);
    env(lt_nomatmul, "/nonexistent/librocblas.so.4");
    assert_int_equal(mcf_amd_gemm_open(&g, MCF_FP32, "gfx942", 16, 4096, NULL, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "lacks hipblasLtMatmul"));
    /* hipBLASLt refuses fp8: rocBLAS's gemm_ex has none, never tried */
    mcf_err_clear(&e);
    env(lt_lib, rb_lib);
    setenv("STUB_HIPBLASLT_NOALGO", "1", 1);
    assert_int_equal(mcf_amd_gemm_open(&g, MCF_FP8_E4M3, "gfx942", 16, 4096, NULL, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "has no algorithm for a fp8-e4m3 16^3 GEMM; rocBLAS's gemm_ex has no fp8-e4m3 GEMM"));
    assert_int_equal(lt_seen("ab"), 1000);
    assert_int_equal(lt_seen("live"), 0);
    /* a failure that is no refusal is an error, not a fallback */
    mcf_err_clear(&e);
    env(lt_lib, rb_lib);
    setenv("STUB_HIPBLASLT_FAIL", "hipblasLtCreate=1", 1);
    assert_int_equal(mcf_amd_gemm_open(&g, MCF_FP32, "gfx942", 16, 4096, NULL, &e), MCF_ERUNTIME);
    assert_non_null(strstr(e.msg, "hipBLASLt hipblasLtCreate failed: HIPBLAS_STATUS_NOT_INITIALIZED (1)"));
    /* the call's status, by name */
    mcf_err_clear(&e);
    env(lt_lib, rb_lib);
    setenv("STUB_HIPBLASLT_FAIL", "hipblasLtMatmul=5", 1);
    assert_int_equal(mcf_amd_gemm_open(&g, MCF_FP32, "gfx942", 16, 4096, NULL, &e), MCF_OK);
    assert_int_equal(mcf_amd_gemm_call(&g, NULL, NULL, NULL, NULL, NULL, &e), MCF_ERUNTIME);
    assert_non_null(strstr(e.msg, "hipBLASLt hipblasLtMatmul failed: HIPBLAS_STATUS_EXECUTION_FAILED (5)"));
    mcf_amd_gemm_close(&g);
    mcf_err_clear(&e);
    env("/nonexistent/libhipblaslt.so.0", rb_lib);
    setenv("STUB_ROCBLAS_FAIL", "2", 1);
    assert_int_equal(mcf_amd_gemm_open(&g, MCF_BF16, "gfx90a", 16, 4096, NULL, &e), MCF_OK);
    assert_int_equal(mcf_amd_gemm_call(&g, NULL, NULL, NULL, NULL, NULL, &e), MCF_ERUNTIME);
    assert_non_null(strstr(e.msg, "rocBLAS rocblas_gemm_ex failed: rocblas_status_not_implemented (2)"));
    mcf_amd_gemm_close(&g);
    assert_int_equal(lt_seen("live"), 0);
    assert_int_equal(rb_seen("live"), 0);
}

int main(void)
{
    const char *b = getenv("builddir");
    snprintf(lt_lib, sizeof lt_lib, "%s/tests/libstub_hipblaslt.so", b ? b : ".");
    snprintf(lt_nomatmul, sizeof lt_nomatmul, "%s/tests/libstub_hipblaslt_nomatmul.so", b ? b : ".");
    snprintf(rb_lib, sizeof rb_lib, "%s/tests/libstub_rocblas.so", b ? b : ".");
    /* held open here, so the layer's dlopen finds the same copy and its counters */
    void *lt = dlopen(lt_lib, RTLD_NOW | RTLD_LOCAL), *rb = dlopen(rb_lib, RTLD_NOW | RTLD_LOCAL);
    if (!lt || !rb) {
        fprintf(stderr, "cannot load the stubs: %s\n", dlerror());
        return 1;
    }
    *(void **)&lt_seen = dlsym(lt, "stub_hipblaslt_seen");
    *(void **)&rb_seen = dlsym(rb, "stub_rocblas_seen");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(type_table),
        cmocka_unit_test(hipblaslt_runs),
        cmocka_unit_test(rocblas_fallback),
        cmocka_unit_test(failures),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    dlclose(lt);
    dlclose(rb);
    return rc;
}
