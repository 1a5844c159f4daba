/* AMD's GEMM libraries behind the gemm family on the HIP backend: hipBLASLt,
 * and rocBLAS (rocblas_gemm_ex) where hipBLASLt is missing, too old or
 * refuses a type. Both are loaded with dlopen. Plain C with no HIP header
 * (handles and streams are opaque pointers, device buffers plain pointers),
 * so the loading, the type table, the call sequence and the failure paths are
 * unit-tested against stub libraries without a GPU (tests/test_amd_blas.c,
 * tests/stub_hipblaslt.c, tests/stub_rocblas.c); kernels/hip/gemm.hip adds
 * the device memory, the operands, the timing and the check. */
#ifndef MCF_VENDOR_AMDBLAS_H
#define MCF_VENDOR_AMDBLAS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kernel.h"
#include "operand.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The numbers of AMD's enums that are used, declared here: Debian's ROCm 5.2
 * packages ship neither library's headers. Values from AMD's published
 * headers, the same from ROCm 6.0 (hipBLASLt 0.6.0, the first to take
 * hipDataType and hipblasComputeType_t) through ROCm 6.3 (hipBLASLt 0.11.0,
 * rocBLAS 4.4.0):
 *   hipDataType: HIP's include/hip/amd_detail/amd_library_types.h (ROCm/clr);
 *   hipblasComputeType_t, hipblasOperation_t, hipblasStatus_t:
 *     hipblas-common/hipblas-common.h (ROCm/hipBLAS-common);
 *   hipblasLtMatmulDescAttributes_t, hipblasLtMatmulPreferenceAttributes_t,
 *     hipblasLtMatmulHeuristicResult_t: library/include/hipblaslt.h
 *     (ROCm/hipBLASLt 0.6.0 to 0.11.0);
 *   rocblas_datatype, rocblas_operation, rocblas_gemm_algo, rocblas_status:
 *     library/include/internal/rocblas-types.h (ROCm/rocBLAS 4.4.0).
 * tests/test_amd_blas.c checks the type table against these numbers. */
enum mcf_hip_datatype {
    MCF_HIP_R_32F = 0,
    MCF_HIP_R_64F = 1,
    MCF_HIP_R_16F = 2,
    MCF_HIP_R_8I = 3,
    MCF_HIP_R_32I = 10,
    MCF_HIP_R_16BF = 14,
    MCF_HIP_R_8F_E4M3 = 28,
    MCF_HIP_R_8F_E4M3_FNUZ = 1000
};
enum mcf_hipblas_compute {
    MCF_HIPBLAS_COMPUTE_32F = 2,
    MCF_HIPBLAS_COMPUTE_32F_FAST_TF32 = 6,
    MCF_HIPBLAS_COMPUTE_64F = 7,
    MCF_HIPBLAS_COMPUTE_32I = 9
};
enum { MCF_HIPBLAS_OP_N = 111, MCF_HIPBLAS_OP_T = 112 };
enum {
    MCF_HIPBLAS_STATUS_SUCCESS = 0,
    MCF_HIPBLAS_STATUS_INVALID_VALUE = 3,
    MCF_HIPBLAS_STATUS_NOT_SUPPORTED = 7,
    MCF_HIPBLAS_STATUS_ARCH_MISMATCH = 8,
    MCF_HIPBLAS_STATUS_INVALID_ENUM = 10
};
enum { MCF_HIPBLASLT_MATMUL_DESC_TRANSA = 0, MCF_HIPBLASLT_MATMUL_DESC_TRANSB = 1 };
enum { MCF_HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1 };
enum mcf_rocblas_datatype {
    MCF_ROCBLAS_F16 = 150,
    MCF_ROCBLAS_F32 = 151,
    MCF_ROCBLAS_F64 = 152,
    MCF_ROCBLAS_I8 = 160,
    MCF_ROCBLAS_I32 = 162,
    MCF_ROCBLAS_BF16 = 168
};
enum {
    MCF_ROCBLAS_OP_NONE = 111,
    MCF_ROCBLAS_OP_TRANSPOSE = 112,
    MCF_ROCBLAS_GEMM_ALGO_STANDARD = 0,
    MCF_ROCBLAS_STATUS_SUCCESS = 0
};
/* hipBLASLt's version number: major * 100000 + minor * 100 + patch
 * (hipblasLtGetVersion); hipDataType arrived in 0.6.0 */
#define MCF_HIPBLASLT_MIN_VERSION 600

/* hipblasLtMatmulHeuristicResult_t (56 bytes on LP64): the algorithm is
 * opaque and passed back to hipblasLtMatmul as it came */
struct mcf_hipblaslt_algo {
    uint8_t data[16];
    size_t max_workspace_bytes;
};
struct mcf_hipblaslt_heuristic {
    struct mcf_hipblaslt_algo algo;
    size_t workspace_size;
    int state;
    float waves_count;
    int reserved[4];
};

/* A gemm type as AMD's libraries name it: D = A^T B (gemm_check.h's layout),
 * fp16 and bf16 out in their own type, fp8 out as bf16, int8 out as int32. */
struct mcf_amd_type {
    int ab, cd, scale, compute; /* hipDataType, hipblasComputeType_t */
    int rb_ab, rb_cd, rb_compute; /* rocblas_datatype; rb_ab 0: rocblas_gemm_ex has no such GEMM */
    int ab_bytes, cd_bytes;
    enum mcf_fp8_kind fp8; /* the operands' FP8 encoding */
};
/* The type on the gfx target arch: MCF_OK, or MCF_EUNSUPPORTED with why (a
 * type neither library multiplies there: fp8 before gfx940, xf32 outside
 * gfx940-gfx942). FP8 is e4m3fnuz on gfx94x (MI300), OCP e4m3 on gfx950 and
 * gfx12. */
int mcf_amd_type(enum mcf_dtype t, const char *arch, struct mcf_amd_type *o, struct mcf_err *e);

/* hipblasStatus_t's name (the libraries give none of their own). */
const char *mcf_hipblas_status_name(int status);

struct mcf_hipblaslt {
    void *dl;
    char path[256];
    int (*create)(void **handle);
    int (*destroy)(void *handle);
    int (*get_version)(void *handle, int *version);
    int (*desc_create)(void **desc, int compute, int scale);
    int (*desc_destroy)(void *desc);
    int (*desc_set)(void *desc, int attr, const void *buf, size_t bytes);
    int (*layout_create)(void **layout, int type, uint64_t rows, uint64_t cols, int64_t ld);
    int (*layout_destroy)(void *layout);
    int (*pref_create)(void **pref);
    int (*pref_destroy)(void *pref);
    int (*pref_set)(void *pref, int attr, const void *buf, size_t bytes);
    int (*heuristic)(void *handle, void *desc, void *a, void *b, void *c, void *d, void *pref,
                     int requested, struct mcf_hipblaslt_heuristic *results, int *returned);
    int (*matmul)(void *handle, void *desc, const void *alpha, const void *a, void *la,
                  const void *b, void *lb, const void *beta, const void *c, void *lc, void *d,
                  void *ld, const struct mcf_hipblaslt_algo *algo, void *workspace,
                  size_t workspace_bytes, void *stream);
};
struct mcf_rocblas {
    void *dl;
    char path[256];
    int (*create_handle)(void **handle);
    int (*destroy_handle)(void *handle);
    int (*set_stream)(void *handle, void *stream);
    int (*get_version_string)(char *buf, size_t len);
    const char *(*status_to_string)(int status);
    int (*gemm_ex)(void *handle, int ta, int tb, int m, int n, int k, const void *alpha,
                   const void *a, int a_type, int lda, const void *b, int b_type, int ldb,
                   const void *beta, const void *c, int c_type, int ldc, void *d, int d_type,
                   int ldd, int compute, int algo, int32_t solution, uint32_t flags);
};
/* The first of $MCFLEET_HIPBLASLT_LIB (then the only one tried),
 * libhipblaslt.so.1, .so.0, .so, /opt/rocm/lib's that opens with every
 * symbol; 0, or -1 with every name tried and what it lacked in why. */
int mcf_hipblaslt_open(struct mcf_hipblaslt *l, char *why, size_t len);
/* Likewise $MCFLEET_ROCBLAS_LIB, librocblas.so.5, .so.4, .so, /opt/rocm/lib's. */
int mcf_rocblas_open(struct mcf_rocblas *l, char *why, size_t len);

enum mcf_amd_lib { MCF_AMD_NONE, MCF_AMD_HIPBLASLT, MCF_AMD_ROCBLAS };

/* One GEMM of size n^3 planned with one of the libraries. */
struct mcf_amd_gemm {
    enum mcf_amd_lib lib; /* the library that runs it */
    enum mcf_dtype dtype;
    struct mcf_amd_type ty;
    uint64_t n;
    size_t workspace_bytes;
    struct mcf_hipblaslt lt;
    struct mcf_rocblas rb;
    void *h, *op, *la, *lb, *ld,
        *pref; /* hipBLASLt's handle and descriptors, rocBLAS's handle in h */
    struct mcf_hipblaslt_heuristic algo;
    int version; /* hipBLASLt's number */
    char provenance[1024]; /* "hipBLASLt 0.11.0 (libhipblaslt.so.0)", "rocBLAS 4.4.0... (path;
                             hipBLASLt: why not)" */
    char not_lt[640]; /* why hipBLASLt does not run it ("" where it does) */
};

/* Loads a library for a dtype GEMM of n^3 on arch and plans it on stream
 * (hipBLASLt: handle, descriptors, the heuristic's first algorithm within
 * workspace_bytes; rocBLAS: handle and stream). hipBLASLt first; rocBLAS
 * where hipBLASLt is missing, older than 0.6.0 or refuses the type (no
 * algorithm, or a NOT_SUPPORTED / INVALID_VALUE / INVALID_ENUM /
 * ARCH_MISMATCH status) and rocBLAS has it. MCF_EUNSUPPORTED with both
 * reasons where neither runs it; MCF_ERUNTIME where a library call fails
 * otherwise, with its name and status name. Closes g on failure. */
int mcf_amd_gemm_open(struct mcf_amd_gemm *g, enum mcf_dtype t, const char *arch, uint64_t n,
                      size_t workspace_bytes, void *stream, struct mcf_err *e);
/* D = A^T B on stream (the one the plan was made for, for rocBLAS). */
int mcf_amd_gemm_call(struct mcf_amd_gemm *g, const void *a, const void *b, void *d,
                      void *workspace, void *stream, struct mcf_err *e);
void mcf_amd_gemm_close(struct mcf_amd_gemm *g);

#ifdef __cplusplus
}
#endif

#endif
