/* The vendor BLAS libraries behind the gemm family, each loaded with dlopen
 * so one binary runs where a library is missing: the test is then
 * unsupported, with the reason (as the NVML power source does). */
#ifndef MCF_BLAS_H
#define MCF_BLAS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CBLAS (OpenBLAS, or the reference BLAS's libcblas): the host backend's GEMM.
 * The library is the first of $MCFLEET_CBLAS_LIB, libopenblas.so.0,
 * libcblas.so.3, libblas.so.3 that opens and has both functions. */
enum mcf_cblas_order { MCF_CBLAS_COL_MAJOR = 102 };
enum mcf_cblas_trans { MCF_CBLAS_NO_TRANS = 111, MCF_CBLAS_TRANS = 112 };
struct mcf_cblas {
    void *dl;
    char path[256]; /* the library that was opened */
    char version[128]; /* openblas_get_config() where there is one */
    void (*dgemm)(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a,
                  int lda, const double *b, int ldb, double beta, double *c, int ldc);
    void (*sgemm)(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                  int lda, const float *b, int ldb, float beta, float *c, int ldc);
};
/* 0, or -1 with why (every name tried, and what failed) in why. */
int mcf_cblas_open(struct mcf_cblas *b, char *why, size_t len);
void mcf_cblas_close(struct mcf_cblas *b);

/* The names tried, in order, for a library: $env_var first where it is set,
 * then names[]; the first that dlopens and has every symbol of syms wins. On
 * failure, why says what each attempt lacked. */
void *mcf_blas_dlopen(const char *env_var, const char *const *names, const char *const *syms,
                      char *path, size_t path_len, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
