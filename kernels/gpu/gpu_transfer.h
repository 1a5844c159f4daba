/* The transfer family's host and peer links on the GPU (gpu_transfer_host.cu,
 * gpu_transfer_peer.cu) and what they share (gpu_transfer.cu): the runtime
 * calls beyond gpu_compat.h's, the pattern every source is filled with and
 * every destination checked against, the SM copy, and the gated timing.
 *
 * Gated timing (as nvbandwidth times its copies, reimplemented): the first
 * stream is held by a kernel spinning on a flag in pinned host memory while
 * the start event, the copies and the stop event are queued behind it; the
 * flag is raised once a first batch is queued, so the device runs the copies
 * back to back and the host's enqueue costs fall outside the span. */
#ifndef MCF_GPU_TRANSFER_H
#define MCF_GPU_TRANSFER_H

#include "gpu.h"

#if defined(__HIPCC__) || defined(MCF_GPU_HIP)
#define gpuHostRegister hipHostRegister
#define gpuHostRegisterMapped hipHostRegisterMapped
#define gpuHostRegisterPortable hipHostRegisterPortable
#define gpuHostUnregister hipHostUnregister
#define gpuHostGetDevicePointer hipHostGetDevicePointer
#define gpuHostAlloc hipHostMalloc
#define gpuHostAllocMapped hipHostMallocMapped
#define gpuHostAllocPortable hipHostMallocPortable
#define gpuFreeHost hipHostFree
#define gpuMemcpyPeerAsync hipMemcpyPeerAsync
#define gpuDeviceCanAccessPeer hipDeviceCanAccessPeer
#define gpuDeviceEnablePeerAccess hipDeviceEnablePeerAccess
#define gpuErrorPeerAccessAlreadyEnabled hipErrorPeerAccessAlreadyEnabled
#define gpuDeviceGetByPCIBusId hipDeviceGetByPCIBusId
#define gpuStreamWaitEvent hipStreamWaitEvent
#define gpuMemcpyDefault hipMemcpyDefault
#define GPU_VISIBLE_ENV "HIP_VISIBLE_DEVICES"
#else
#define gpuHostRegister cudaHostRegister
#define gpuHostRegisterMapped cudaHostRegisterMapped
#define gpuHostRegisterPortable cudaHostRegisterPortable
#define gpuHostUnregister cudaHostUnregister
#define gpuHostGetDevicePointer cudaHostGetDevicePointer
#define gpuHostAlloc cudaHostAlloc
#define gpuHostAllocMapped cudaHostAllocMapped
#define gpuHostAllocPortable cudaHostAllocPortable
#define gpuFreeHost cudaFreeHost
#define gpuMemcpyPeerAsync cudaMemcpyPeerAsync
#define gpuDeviceCanAccessPeer cudaDeviceCanAccessPeer
#define gpuDeviceEnablePeerAccess cudaDeviceEnablePeerAccess
#define gpuErrorPeerAccessAlreadyEnabled cudaErrorPeerAccessAlreadyEnabled
#define gpuDeviceGetByPCIBusId cudaDeviceGetByPCIBusId
#define gpuStreamWaitEvent cudaStreamWaitEvent
#define gpuMemcpyDefault cudaMemcpyDefault
#define GPU_VISIBLE_ENV "CUDA_VISIBLE_DEVICES"
#endif

/* the host and peer links' ops (the dispatcher, gpu_transfer.cu, picks) */
extern const struct mcf_kernel_ops gpu_xfer_host_ops, gpu_xfer_peer_ops;

/* The source patterns: word i of source `sid` under the test's seed. */
#define GX_SID_INTO 1u /* host link: host memory -> device */
#define GX_SID_OUT 2u /* host link: device -> host memory */
#define GX_SID_PEER(local_rank)                                                                    \
    (16u + (unsigned)(local_rank)) /* peer link: that rank's GPU's source */

/* Fills bytes (a multiple of 8) at dev (device memory, or host memory's
 * device address) with source sid's pattern, or zeros (sid 0), on the
 * current device's stream st; returns when done. */
int gx_fill(void *dev, size_t bytes, uint64_t seed, unsigned sid, gpuStream_t st,
            struct mcf_err *e);

/* Checks bytes at dev (readable by the current device) against source sid's
 * pattern, after flipping one word's bit (inject_fault); MCF_EVERIFY naming
 * what (the link and direction), the first bad offset and its value. */
int gx_check(const void *dev, size_t bytes, uint64_t seed, unsigned sid, int inject_fault,
             const char *what, struct mcf_err *e);

/* The SM copy: bytes (a multiple of 16) from src to dst, loops times over,
 * by blocks x threads threads of the current device, on st (not waited for).
 * Loads and stores around the L1 (ld/st .cg; AMD: nontemporal). */
void gx_copy_launch(void *dst, const void *src, size_t bytes, uint64_t loops, int blocks,
                    int threads, gpuStream_t st);

/* The streams and events of a gated span (on the current device). */
struct gx_timer {
    gpuStream_t st[2];
    gpuEvent_t start, stop, end1;
    volatile int *latch; /* pinned host memory */
    int *latch_dev; /* its device address */
    int nstreams;
};
int gx_timer_create(struct gx_timer *t, struct mcf_err *e);
void gx_timer_free(struct gx_timer *t);
/* holds st[0] until gx_gate_open (or a timeout of 60 s, a guard only) */
int gx_gate_close(struct gx_timer *t, struct mcf_err *e);
void gx_gate_open(struct gx_timer *t);

/* copies queued before the gate opens: enough to keep the device busy while
 * the host queues the rest, few enough never to fill the launch queue */
#define GX_FIRST_BATCH 32

/* One gated span over nstreams streams (1 or 2): enqueue(i, st, first, n)
 * queues work items [first, first + n) of stream i; count items each. The
 * span runs from the start event (after the gate) to the last stream's end. */
template <class Enqueue>
static inline int gx_time(struct gx_timer *t, int nstreams, uint64_t count, Enqueue enqueue,
                          double *seconds, struct mcf_err *e)
{
    float ms = 0.0f;
    int open = 0;
    uint64_t first = count < GX_FIRST_BATCH ? count : GX_FIRST_BATCH;
    MCF_TRY(gx_gate_close(t, e));
    GPU_TRY(e, gpuEventRecord(t->start, t->st[0]));
    for (int i = 1; i < nstreams; i++) GPU_TRY(e, gpuStreamWaitEvent(t->st[i], t->start, 0));
    for (int i = 0; i < nstreams; i++) MCF_TRY(enqueue(i, t->st[i], (uint64_t)0, first));
    gx_gate_open(t);
    open = 1;
    for (int i = 0; i < nstreams; i++) MCF_TRY(enqueue(i, t->st[i], first, count - first));
    if (nstreams > 1) {
        GPU_TRY(e, gpuEventRecord(t->end1, t->st[1]));
        GPU_TRY(e, gpuStreamWaitEvent(t->st[0], t->end1, 0));
    }
    GPU_TRY(e, gpuEventRecord(t->stop, t->st[0]));
    GPU_TRY(e, gpuEventSynchronize(t->stop));
    GPU_TRY(e, gpuEventElapsedTime(&ms, t->start, t->stop));
    *seconds = ms * 1e-3;
    return MCF_OK;
fail:
    if (!open) gx_gate_open(t); /* never leave the stream held */
    for (int i = 0; i < nstreams; i++) GPU_RELEASE(gpuStreamSynchronize(t->st[i]));
    return e->rc;
}

/* The size rules of both links (the SM copy moves 16-byte words) */
int gx_check_bytes(const struct mcf_kernel *k, struct mcf_err *e);

#endif
