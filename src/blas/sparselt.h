/* cuSPARSELt, NVIDIA's library for GEMMs with a 2:4 structured-sparse
 * operand, loaded with dlopen so one binary runs where it is missing (a
 * 2:4 gemm test is then unsupported, with the reason). cusparseLt.h is a
 * separate download, not part of the CUDA toolkit, so the few definitions
 * used are declared here, with the values of NVIDIA's documentation for
 * cuSPARSELt 0.7 and later (the compute types were renumbered and the
 * opaque structures resized before 0.7: an older library is refused, not
 * called with the wrong numbers). Plain C: the loader is tested on hosts
 * without CUDA against tests/stub_cusparselt.c; the GPU side is
 * kernels/gpu/gpu_gemm_sparse.cu, which checks these values against the
 * toolkit's own headers where they overlap (library_types.h, cusparse.h). */
#ifndef MCF_SPARSELT_H
#define MCF_SPARSELT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The opaque structures are 512 bytes in 0.7 and 0.8; the library only
 * writes into them, so more room is harmless. */
#define MCF_SLT_OPAQUE 1024
typedef struct {
    uint8_t data[MCF_SLT_OPAQUE];
} mcf_slt_handle_t;
typedef struct {
    uint8_t data[MCF_SLT_OPAQUE];
} mcf_slt_mat_t;
typedef struct {
    uint8_t data[MCF_SLT_OPAQUE];
} mcf_slt_matmul_t;
typedef struct {
    uint8_t data[MCF_SLT_OPAQUE];
} mcf_slt_alg_t;
typedef struct {
    uint8_t data[MCF_SLT_OPAQUE];
} mcf_slt_plan_t;

typedef int mcf_slt_status_t; /* cusparseStatus_t */
enum { MCF_SLT_SUCCESS = 0, MCF_SLT_ARCH_MISMATCH = 4, MCF_SLT_NOT_SUPPORTED = 10 };
enum {
    MCF_SLT_R_32F = 0,
    MCF_SLT_R_16F = 2,
    MCF_SLT_R_8I = 3,
    MCF_SLT_R_32I = 10,
    MCF_SLT_R_16BF = 14,
    MCF_SLT_R_8F_E4M3 = 28
}; /* cudaDataType */
enum { MCF_SLT_ORDER_COL = 1 }; /* cusparseOrder_t */
enum { MCF_SLT_OP_N = 0, MCF_SLT_OP_T = 1 }; /* cusparseOperation_t */
enum {
    MCF_SLT_COMPUTE_32I = 0,
    MCF_SLT_COMPUTE_16F = 1,
    MCF_SLT_COMPUTE_32F = 2
}; /* cusparseComputeType */
enum { MCF_SLT_SPARSITY_50 = 0 }; /* cusparseLtSparsity_t */
enum { MCF_SLT_ALG_DEFAULT = 0 }; /* cusparseLtMatmulAlg_t */
enum { MCF_SLT_PRUNE_STRIP = 1 }; /* cusparseLtPruneAlg_t: the two smallest of each 1x4 strip */
enum { MCF_SLT_MAJOR = 0, MCF_SLT_MINOR = 1, MCF_SLT_PATCH = 2 }; /* libraryPropertyType */

/* The entry points used, as X(name, return, parameters). */
#define MCF_SLT_FUNCS(X)                                                                           \
    X(cusparseLtGetProperty, mcf_slt_status_t, (int prop, int *value))                             \
    X(cusparseLtGetErrorName, const char *, (mcf_slt_status_t st))                                 \
    X(cusparseLtGetErrorString, const char *, (mcf_slt_status_t st))                               \
    X(cusparseLtInit, mcf_slt_status_t, (mcf_slt_handle_t * h))                                    \
    X(cusparseLtDestroy, mcf_slt_status_t, (const mcf_slt_handle_t *h))                            \
    X(cusparseLtDenseDescriptorInit, mcf_slt_status_t,                                             \
      (const mcf_slt_handle_t *h, mcf_slt_mat_t *m, int64_t rows, int64_t cols, int64_t ld,        \
       uint32_t align, int type, int order))                                                       \
    X(cusparseLtStructuredDescriptorInit, mcf_slt_status_t,                                        \
      (const mcf_slt_handle_t *h, mcf_slt_mat_t *m, int64_t rows, int64_t cols, int64_t ld,        \
       uint32_t align, int type, int order, int sparsity))                                         \
    X(cusparseLtMatDescriptorDestroy, mcf_slt_status_t, (const mcf_slt_mat_t *m))                  \
    X(cusparseLtMatmulDescriptorInit, mcf_slt_status_t,                                            \
      (const mcf_slt_handle_t *h, mcf_slt_matmul_t *mm, int op_a, int op_b,                        \
       const mcf_slt_mat_t *a, const mcf_slt_mat_t *b, const mcf_slt_mat_t *c,                     \
       const mcf_slt_mat_t *d, int compute))                                                       \
    X(cusparseLtMatmulAlgSelectionInit, mcf_slt_status_t,                                          \
      (const mcf_slt_handle_t *h, mcf_slt_alg_t *alg, const mcf_slt_matmul_t *mm, int which))      \
    X(cusparseLtMatmulAlgSelectionDestroy, mcf_slt_status_t, (const mcf_slt_alg_t *alg))           \
    X(cusparseLtMatmulPlanInit, mcf_slt_status_t,                                                  \
      (const mcf_slt_handle_t *h, mcf_slt_plan_t *plan, const mcf_slt_matmul_t *mm,                \
       const mcf_slt_alg_t *alg))                                                                  \
    X(cusparseLtMatmulPlanDestroy, mcf_slt_status_t, (const mcf_slt_plan_t *plan))                 \
    X(cusparseLtMatmulGetWorkspace, mcf_slt_status_t,                                              \
      (const mcf_slt_handle_t *h, const mcf_slt_plan_t *plan, size_t *bytes))                      \
    X(cusparseLtSpMMAPrune, mcf_slt_status_t,                                                      \
      (const mcf_slt_handle_t *h, const mcf_slt_matmul_t *mm, const void *in, void *out, int alg,  \
       void *stream))                                                                              \
    X(cusparseLtSpMMAPruneCheck, mcf_slt_status_t,                                                 \
      (const mcf_slt_handle_t *h, const mcf_slt_matmul_t *mm, const void *in, int *d_valid,        \
       void *stream))                                                                              \
    X(cusparseLtSpMMACompressedSize, mcf_slt_status_t,                                             \
      (const mcf_slt_handle_t *h, const mcf_slt_plan_t *plan, size_t *bytes,                       \
       size_t *buffer_bytes))                                                                      \
    X(cusparseLtSpMMACompress, mcf_slt_status_t,                                                   \
      (const mcf_slt_handle_t *h, const mcf_slt_plan_t *plan, const void *dense, void *compressed, \
       void *buffer, void *stream))                                                                \
    X(cusparseLtMatmul, mcf_slt_status_t,                                                          \
      (const mcf_slt_handle_t *h, const mcf_slt_plan_t *plan, const void *alpha, const void *a,    \
       const void *b, const void *beta, const void *c, void *d, void *workspace, void **streams,   \
       int32_t nstreams))

struct mcf_sparselt {
    void *dl;
    char path[256]; /* the library that was opened */
    char version[32]; /* "0.8.1", from cusparseLtGetProperty */
    int major, minor, patch;
#define MCF_SLT_PTR(name, ret, params) ret(*name) params;
    MCF_SLT_FUNCS(MCF_SLT_PTR)
#undef MCF_SLT_PTR
};

/* Opens the first of $MCFLEET_CUSPARSELT_LIB (alone where set),
 * libcusparseLt.so.0, /usr/local/cuda/lib64/libcusparseLt.so.0 that has
 * every entry point, and reads its version. 0, or -1 with why ("cuSPARSELt
 * not found: <each name tried and what failed>", or the version refused). */
int mcf_sparselt_open(struct mcf_sparselt *l, char *why, size_t len);
void mcf_sparselt_close(struct mcf_sparselt *l);
/* A status as "NAME (the library's description)"; buf is returned. */
const char *mcf_sparselt_status(const struct mcf_sparselt *l, mcf_slt_status_t st, char *buf,
                                size_t len);

#ifdef __cplusplus
}
#endif

#endif
