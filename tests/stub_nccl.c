/* A stand-in for libnccl.so.2 / librccl.so.1, loaded by tests/test_nccl
 * through MCFLEET_NCCL_LIB: every entry point src/link/vendor_nccl.h names,
 * the version code from $STUB_NCCL_VERSION (22803, NCCL 2.28.3, unless set;
 * "fail": ncclGetVersion fails), NCCL's result strings and a last-error text.
 * Nothing here moves bytes: the collectives need GPUs. Built with
 * -DSTUB_NO_ABORT it lacks ncclCommAbort, a library mcfleet must refuse
 * (without it a hung collective could not be ended). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vendor_nccl.h"

static int stub_comm;   /* what a communicator handle points at */

mcf_nccl_result_t ncclGetVersion(int *version)
{
    const char *v = getenv("STUB_NCCL_VERSION");
    if (v && !strcmp(v, "fail"))
        return 3;   /* ncclInternalError */
    *version = v && *v ? atoi(v) : 22803;
    return MCF_NCCL_SUCCESS;
}

const char *ncclGetErrorString(mcf_nccl_result_t r)
{
    static const char *const text[] = { "no error", "unhandled cuda error", "unhandled system error",
        "internal error", "invalid argument", "invalid usage", "remote process exited or there was a network error",
        "NCCL operation in progress" };
    return r >= 0 && r <= 7 ? text[r] : "unknown result code";
}

const char *ncclGetLastError(mcf_nccl_comm_t comm)
{
    (void)comm;
    return "stub: the last error's words";
}

mcf_nccl_result_t ncclGetUniqueId(mcf_nccl_id_t *id)
{
    memset(id, 0, sizeof *id);
    snprintf(id->internal, sizeof id->internal, "stub-id");
    return MCF_NCCL_SUCCESS;
}

mcf_nccl_result_t ncclCommInitRank(mcf_nccl_comm_t *comm, int nranks, mcf_nccl_id_t id, int rank)
{
    if (nranks < 1 || rank < 0 || rank >= nranks || strcmp(id.internal, "stub-id"))
        return 4;   /* ncclInvalidArgument */
    *comm = (mcf_nccl_comm_t)&stub_comm;
    return MCF_NCCL_SUCCESS;
}

mcf_nccl_result_t ncclCommDestroy(mcf_nccl_comm_t comm) { return comm ? MCF_NCCL_SUCCESS : 4; }
#ifndef STUB_NO_ABORT
mcf_nccl_result_t ncclCommAbort(mcf_nccl_comm_t comm) { return comm ? MCF_NCCL_SUCCESS : 4; }
#endif

mcf_nccl_result_t ncclCommGetAsyncError(mcf_nccl_comm_t comm, mcf_nccl_result_t *async)
{
    (void)comm;
    *async = MCF_NCCL_SUCCESS;
    return MCF_NCCL_SUCCESS;
}

/* no GPU: a call is invalid usage, as NCCL's would be without a device */
mcf_nccl_result_t ncclAllReduce(const void *send, void *recv, size_t count, int dtype, int op, mcf_nccl_comm_t comm,
                                void *stream)
{
    (void)send; (void)recv; (void)count; (void)dtype; (void)op; (void)comm; (void)stream;
    return 5;
}

mcf_nccl_result_t ncclAllGather(const void *send, void *recv, size_t sendcount, int dtype, mcf_nccl_comm_t comm,
                                void *stream)
{
    (void)send; (void)recv; (void)sendcount; (void)dtype; (void)comm; (void)stream;
    return 5;
}

mcf_nccl_result_t ncclReduceScatter(const void *send, void *recv, size_t recvcount, int dtype, int op,
                                    mcf_nccl_comm_t comm, void *stream)
{
    (void)send; (void)recv; (void)recvcount; (void)dtype; (void)op; (void)comm; (void)stream;
    return 5;
}
