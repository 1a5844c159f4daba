/* NCCL (NVIDIA) and RCCL (AMD), loaded with dlopen so one binary runs where
 * neither is installed (a collective test is then unsupported, with the
 * reason). RCCL keeps NCCL's names, types and numbers, so one table serves
 * both. nccl.h is not needed to build: the few definitions used are declared
 * here with the values of NVIDIA's nccl.h (stable since NCCL 2.0; later
 * versions only append). Plain C: the loader is tested without a GPU against
 * tests/stub_nccl.c; the GPU side is kernels/gpu/gpu_collective.cu. */
#ifndef MCF_VENDOR_NCCL_H
#define MCF_VENDOR_NCCL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MCF_NCCL_LIB_ENV "MCFLEET_NCCL_LIB"

typedef int mcf_nccl_result_t; /* ncclResult_t */
typedef struct mcf_nccl_comm_st *mcf_nccl_comm_t; /* ncclComm_t (opaque) */
#define MCF_NCCL_ID_BYTES 128 /* NCCL_UNIQUE_ID_BYTES */
typedef struct {
    char internal[MCF_NCCL_ID_BYTES];
} mcf_nccl_id_t; /* ncclUniqueId, passed by value */
enum { MCF_NCCL_SUCCESS = 0, MCF_NCCL_IN_PROGRESS = 7 };
enum { MCF_NCCL_FLOAT32 = 7 }; /* ncclFloat32 */
enum { MCF_NCCL_SUM = 0 }; /* ncclSum */

/* The entry points required, as X(name, return, parameters). The stream is
 * a cudaStream_t / hipStream_t. */
#define MCF_NCCL_FUNCS(X)                                                                          \
    X(ncclGetVersion, mcf_nccl_result_t, (int *version))                                           \
    X(ncclGetErrorString, const char *, (mcf_nccl_result_t r))                                     \
    X(ncclGetUniqueId, mcf_nccl_result_t, (mcf_nccl_id_t * id))                                    \
    X(ncclCommInitRank, mcf_nccl_result_t,                                                         \
      (mcf_nccl_comm_t * comm, int nranks, mcf_nccl_id_t id, int rank))                            \
    X(ncclCommDestroy, mcf_nccl_result_t, (mcf_nccl_comm_t comm))                                  \
    X(ncclCommAbort, mcf_nccl_result_t, (mcf_nccl_comm_t comm))                                    \
    X(ncclCommGetAsyncError, mcf_nccl_result_t, (mcf_nccl_comm_t comm, mcf_nccl_result_t * async)) \
    X(ncclAllReduce, mcf_nccl_result_t,                                                            \
      (const void *send, void *recv, size_t count, int dtype, int op, mcf_nccl_comm_t comm,        \
       void *stream))                                                                              \
    X(ncclAllGather, mcf_nccl_result_t,                                                            \
      (const void *send, void *recv, size_t sendcount, int dtype, mcf_nccl_comm_t comm,            \
       void *stream))                                                                              \
    X(ncclReduceScatter, mcf_nccl_result_t,                                                        \
      (const void *send, void *recv, size_t recvcount, int dtype, int op, mcf_nccl_comm_t comm,    \
       void *stream))

struct mcf_nccl {
    void *dl;
    const char *name; /* "NCCL" or "RCCL" */
    char path[256]; /* the library that was opened */
    int code; /* ncclGetVersion's number */
    int major, minor, patch;
    char version[32]; /* "2.28.3" */
    char describe[320]; /* "NCCL 2.28.3 (/usr/lib/.../libnccl.so.2)", the file the loader
                           resolved: provenance for messages and logs */
#define MCF_NCCL_PTR(name, ret, params) ret(*name) params;
    MCF_NCCL_FUNCS(MCF_NCCL_PTR)
#undef MCF_NCCL_PTR
    const char *(*ncclGetLastError)(mcf_nccl_comm_t comm); /* 2.13 and later; may be NULL */
};

/* Loads NCCL (rccl = 0: libnccl.so.2) or RCCL (rccl = 1: librccl.so.1), or
 * the library $MCFLEET_NCCL_LIB names (then no other), checks every entry
 * point above and reads the version. 0, or -1 with the reason in why (the
 * names tried and why each failed, the missing entry point, an unreadable
 * version). */
int mcf_nccl_open(struct mcf_nccl *l, int rccl, char *why, size_t len);
void mcf_nccl_close(struct mcf_nccl *l);
/* ncclGetVersion's number as major, minor, patch: 2.9 and later encode
 * major*10000 + minor*100 + patch, earlier ones major*1000 + minor*100 + patch. */
void mcf_nccl_version_split(int code, int *major, int *minor, int *patch);
/* "ncclInvalidUsage-style text (the library's last error)" for r, the
 * communicator's last error added where the library has one (comm may be NULL). */
const char *mcf_nccl_error(const struct mcf_nccl *l, mcf_nccl_comm_t comm, mcf_nccl_result_t r,
                           char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
