/* A stand-in for a CBLAS library, loaded by tests/gemm_run.sh through
 * MCFLEET_CBLAS_LIB: a plain triple loop for the column-major calls mcfleet
 * makes (A transposed, B not). STUB_CBLAS_MODE=notrans multiplies A without
 * transposing it, the layout mistake verification must catch. Built without
 * cblas_sgemm (-DSTUB_NO_SGEMM), it is a library mcfleet must refuse. */
#include <stdlib.h>
#include <string.h>

#define GEMM(NAME, T)                                                                              \
    void NAME(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda,         \
              const T *b, int ldb, T beta, T *c, int ldc)                                          \
    {                                                                                              \
        const char *mode = getenv("STUB_CBLAS_MODE");                                              \
        int notrans = mode && !strcmp(mode, "notrans");                                            \
        (void)order; (void)ta; (void)tb;                                                           \
        for (int j = 0; j < n; j++)                                                                \
            for (int i = 0; i < m; i++) {                                                          \
                T s = 0;                                                                           \
                for (int p = 0; p < k; p++)                                                        \
                    s += (notrans ? a[p * lda + i] : a[i * lda + p]) * b[j * ldb + p];             \
                c[j * ldc + i] = alpha * s + beta * c[j * ldc + i];                                \
            }                                                                                      \
    }

GEMM(cblas_dgemm, double)
#ifndef STUB_NO_SGEMM
GEMM(cblas_sgemm, float)
#endif
