/* A stand-in for libcusparseLt.so.0, loaded by tests/test_sparselt through
 * MCFLEET_CUSPARSELT_LIB: every entry point src/blas/sparselt.h names, the
 * version from $STUB_SPARSELT_VERSION ("0.8.1" unless set), status names for
 * the loader's messages. Nothing here multiplies: the GPU path needs a GPU.
 * Built with -DSTUB_NO_COMPRESS it lacks cusparseLtSpMMACompress, a library
 * mcfleet must refuse. */
#include <stdio.h>
#include <stdlib.h>

#include "sparselt.h"

#define UNUSED_OK(name, params) mcf_slt_status_t name params { return MCF_SLT_SUCCESS; }

mcf_slt_status_t cusparseLtGetProperty(int prop, int *value)
{
    const char *v = getenv("STUB_SPARSELT_VERSION");
    int part[3] = { 0, 8, 1 };
    if (v && sscanf(v, "%d.%d.%d", &part[0], &part[1], &part[2]) != 3)
        return 7;   /* an internal error: the version is unreadable */
    if (prop < 0 || prop > 2)
        return 3;
    *value = part[prop];
    return MCF_SLT_SUCCESS;
}

const char *cusparseLtGetErrorName(mcf_slt_status_t st)
{
    static const char *const names[] = { "CUSPARSE_STATUS_SUCCESS", "CUSPARSE_STATUS_NOT_INITIALIZED",
        "CUSPARSE_STATUS_ALLOC_FAILED", "CUSPARSE_STATUS_INVALID_VALUE", "CUSPARSE_STATUS_ARCH_MISMATCH",
        "CUSPARSE_STATUS_MAPPING_ERROR", "CUSPARSE_STATUS_EXECUTION_FAILED", "CUSPARSE_STATUS_INTERNAL_ERROR",
        "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED", "CUSPARSE_STATUS_ZERO_PIVOT", "CUSPARSE_STATUS_NOT_SUPPORTED" };
    return st >= 0 && st <= 10 ? names[st] : "CUSPARSE_STATUS_UNKNOWN";
}

const char *cusparseLtGetErrorString(mcf_slt_status_t st)
{
    return st == 10 ? "the operation or data type combination is currently not supported" : "stub status";
}

UNUSED_OK(cusparseLtInit, (mcf_slt_handle_t *h))
UNUSED_OK(cusparseLtDestroy, (const mcf_slt_handle_t *h))
UNUSED_OK(cusparseLtDenseDescriptorInit, (const mcf_slt_handle_t *h, mcf_slt_mat_t *m, int64_t rows, int64_t cols,
                                          int64_t ld, uint32_t align, int type, int order))
UNUSED_OK(cusparseLtStructuredDescriptorInit, (const mcf_slt_handle_t *h, mcf_slt_mat_t *m, int64_t rows,
                                               int64_t cols, int64_t ld, uint32_t align, int type, int order,
                                               int sparsity))
UNUSED_OK(cusparseLtMatDescriptorDestroy, (const mcf_slt_mat_t *m))
UNUSED_OK(cusparseLtMatmulDescriptorInit, (const mcf_slt_handle_t *h, mcf_slt_matmul_t *mm, int op_a, int op_b,
                                           const mcf_slt_mat_t *a, const mcf_slt_mat_t *b, const mcf_slt_mat_t *c,
                                           const mcf_slt_mat_t *d, int compute))
UNUSED_OK(cusparseLtMatmulAlgSelectionInit, (const mcf_slt_handle_t *h, mcf_slt_alg_t *alg,
                                             const mcf_slt_matmul_t *mm, int which))
UNUSED_OK(cusparseLtMatmulAlgSelectionDestroy, (const mcf_slt_alg_t *alg))
UNUSED_OK(cusparseLtMatmulPlanInit, (const mcf_slt_handle_t *h, mcf_slt_plan_t *plan, const mcf_slt_matmul_t *mm,
                                     const mcf_slt_alg_t *alg))
UNUSED_OK(cusparseLtMatmulPlanDestroy, (const mcf_slt_plan_t *plan))
UNUSED_OK(cusparseLtMatmulGetWorkspace, (const mcf_slt_handle_t *h, const mcf_slt_plan_t *plan, size_t *bytes))
UNUSED_OK(cusparseLtSpMMAPrune, (const mcf_slt_handle_t *h, const mcf_slt_matmul_t *mm, const void *in, void *out,
                                 int alg, void *stream))
UNUSED_OK(cusparseLtSpMMAPruneCheck, (const mcf_slt_handle_t *h, const mcf_slt_matmul_t *mm, const void *in,
                                      int *d_valid, void *stream))
UNUSED_OK(cusparseLtSpMMACompressedSize, (const mcf_slt_handle_t *h, const mcf_slt_plan_t *plan, size_t *bytes,
                                          size_t *buffer_bytes))
#ifndef STUB_NO_COMPRESS
UNUSED_OK(cusparseLtSpMMACompress, (const mcf_slt_handle_t *h, const mcf_slt_plan_t *plan, const void *dense,
                                    void *compressed, void *buffer, void *stream))
#endif
UNUSED_OK(cusparseLtMatmul, (const mcf_slt_handle_t *h, const mcf_slt_plan_t *plan, const void *alpha,
                             const void *a, const void *b, const void *beta, const void *c, void *d,
                             void *workspace, void **streams, int32_t nstreams))
