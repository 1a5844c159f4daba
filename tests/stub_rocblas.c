/* A stand-in for librocblas.so, written from the declarations in
 * src/blas/vendor_amdblas.h (AMD's rocblas-functions.h): rocblas_gemm_ex
 * multiplies host fp32 / fp64 matrices itself, so tests/test_amd_blas.c runs
 * the fallback without a GPU. STUB_ROCBLAS_FAIL=STATUS makes rocblas_gemm_ex
 * return STATUS; stub_rocblas_seen() reads back what the layer passed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int live, last_ta, last_tb, last_a, last_d, last_compute, last_stream, calls;

int stub_rocblas_seen(const char *what)
{
    if (!strcmp(what, "live")) return live;
    if (!strcmp(what, "transa")) return last_ta;
    if (!strcmp(what, "transb")) return last_tb;
    if (!strcmp(what, "a_type")) return last_a;
    if (!strcmp(what, "d_type")) return last_d;
    if (!strcmp(what, "compute")) return last_compute;
    if (!strcmp(what, "stream")) return last_stream;
    if (!strcmp(what, "calls")) return calls;
    return -1;
}

int rocblas_create_handle(void **h) { live++; *h = calloc(1, 16); return 0; }
int rocblas_destroy_handle(void *h) { live--; free(h); return 0; }
int rocblas_set_stream(void *h, void *stream) { (void)h; last_stream = (int)(intptr_t)stream; return 0; }
int rocblas_get_version_string(char *buf, size_t len) { snprintf(buf, len, "4.4.0.stub"); return 0; }
const char *rocblas_status_to_string(int st)
{
    switch (st) {
    case 0: return "rocblas_status_success";
    case 2: return "rocblas_status_not_implemented";
    case 3: return "rocblas_status_invalid_pointer";
    default: return "<undefined rocblas_status value>";
    }
}

#define MUL(T)                                                                                          \
    for (int j = 0; j < n; j++)                                                                         \
        for (int i = 0; i < m; i++) {                                                                   \
            T s = 0;                                                                                    \
            for (int p = 0; p < k; p++)                                                                 \
                s += (ta == 112 ? ((const T *)a)[i * lda + p] : ((const T *)a)[p * lda + i]) *          \
                     ((const T *)b)[j * ldb + p];                                                       \
            ((T *)d)[j * ldd + i] = *(const T *)alpha * s + *(const T *)beta * ((const T *)c)[j * ldc + i]; \
        }
int rocblas_gemm_ex(void *h, int ta, int tb, int m, int n, int k, const void *alpha, const void *a, int at, int lda,
                    const void *b, int bt, int ldb, const void *beta, const void *c, int ct, int ldc, void *d, int dt,
                    int ldd, int compute, int algo, int32_t sol, uint32_t flags)
{
    const char *f = getenv("STUB_ROCBLAS_FAIL");
    (void)h; (void)bt; (void)ct; (void)algo; (void)sol; (void)flags;
    if (f && *f) return atoi(f);
    last_ta = ta; last_tb = tb; last_a = at; last_d = dt; last_compute = compute;
    calls++;
    if (at == 151) { MUL(float) }
    else if (at == 152) { MUL(double) }
    return 0;
}
