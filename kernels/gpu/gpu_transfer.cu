/* The transfer family on the GPU: a dispatcher by link (host and peer here,
 * in gpu_transfer_host.cu and gpu_transfer_peer.cu; collectives through
 * NCCL / RCCL in gpu_collective.cu; the network through MPI, link/network.c)
 * and what the host and peer links share (gpu_transfer.h). */
#include <stdlib.h>

#include "counter_rng.h"
#include "gpu_transfer.h"
#include "network.h"

/* ---- the pattern ---- */

__global__ void k_gx_fill(unsigned long long *p, size_t n, uint64_t seed, unsigned sid)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = sid ? mcf_counter_bits(seed, sid, i, 0) : 0ull;
}

/* the lowest index whose word is not the pattern's, into *bad (n: none) */
__global__ void k_gx_check(const unsigned long long *p, size_t n, uint64_t seed, unsigned sid,
                           unsigned long long *bad)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        if (p[i] != mcf_counter_bits(seed, sid, i, 0)) atomicMin(bad, (unsigned long long)i);
}

__global__ void k_gx_flip(unsigned long long *p)
{
    *p ^= 1ull;
}

int gx_fill(void *dev, size_t bytes, uint64_t seed, unsigned sid, gpuStream_t st, struct mcf_err *e)
{
    k_gx_fill<<<1024, 256, 0, st>>>((unsigned long long *)dev, bytes / 8, seed, sid);
    GPU_LAUNCHED(e, "the transfer pattern's fill");
    GPU_TRY(e, gpuStreamSynchronize(st));
    return MCF_OK;
fail:
    return e->rc;
}

int gx_check(const void *dev, size_t bytes, uint64_t seed, unsigned sid, int inject_fault,
             const char *what, struct mcf_err *e)
{
    size_t n = bytes / 8;
    unsigned long long *bad = NULL, first = n, got = 0;
    const unsigned long long *p = (const unsigned long long *)dev;
    GPU_TRY(e, gpuMalloc((void **)&bad, sizeof *bad));
    GPU_TRY(e, gpuMemcpy(bad, &first, sizeof first, gpuMemcpyHostToDevice));
    if (inject_fault) { /* testing: one word of what arrived, wrong */
        k_gx_flip<<<1, 1>>>((unsigned long long *)p + n / 2);
        GPU_LAUNCHED(e, "the injected fault");
    }
    k_gx_check<<<1024, 256>>>(p, n, seed, sid, bad);
    GPU_LAUNCHED(e, "the transfer check");
    GPU_TRY(e, gpuDeviceSynchronize());
    GPU_TRY(e, gpuMemcpy(&first, bad, sizeof first, gpuMemcpyDeviceToHost));
    if (first < n) {
        GPU_TRY(e, gpuMemcpy(&got, p + first, sizeof got, gpuMemcpyDefault));
        MCF_FAIL(e, MCF_EVERIFY, "%s: byte offset %llu of %zu holds %#llx, its source held %#llx",
                 what, first * 8ull, bytes, got,
                 (unsigned long long)mcf_counter_bits(seed, sid, first, 0));
    }
    GPU_TRY(e, gpuFree(bad));
    return MCF_OK;
fail:
    if (bad) GPU_RELEASE(gpuFree(bad));
    return e->rc;
}

/* ---- the SM copy: each thread keeps 8 16-byte loads in flight ---- */

#define GX_UNROLL 8

__global__ void k_gx_copy(gpu_u32x4 *dst, const gpu_u32x4 *src, size_t n, uint64_t loops)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, all = (size_t)gridDim.x * blockDim.x;
    for (uint64_t l = 0; l < loops; l++) {
        size_t i = t;
        for (; i + (GX_UNROLL - 1) * all < n; i += GX_UNROLL * all) {
            gpu_u32x4 v[GX_UNROLL];
#pragma unroll
            for (int u = 0; u < GX_UNROLL; u++) v[u] = gpu_load_l2(src + i + u * all);
#pragma unroll
            for (int u = 0; u < GX_UNROLL; u++) gpu_store_l2(dst + i + u * all, v[u]);
        }
        for (; i < n; i += all) gpu_store_l2(dst + i, gpu_load_l2(src + i));
    }
}

void gx_copy_launch(void *dst, const void *src, size_t bytes, uint64_t loops, int blocks,
                    int threads, gpuStream_t st)
{
    k_gx_copy<<<blocks, threads, 0, st>>>((gpu_u32x4 *)dst, (const gpu_u32x4 *)src, bytes / 16,
                                          loops);
}

/* ---- the gate ---- */

__global__ void k_gx_spin(volatile int *latch, unsigned long long timeout_ns)
{
    unsigned long long t0 = gpu_globaltimer();
    while (!*latch && gpu_globaltimer() - t0 < timeout_ns) {
    }
}

int gx_timer_create(struct gx_timer *t, struct mcf_err *e)
{
    memset(t, 0, sizeof *t);
    for (int i = 0; i < 2; i++)
        GPU_TRY(e, gpuStreamCreateWithFlags(&t->st[i], gpuStreamNonBlocking));
    GPU_TRY(e, gpuEventCreate(&t->start));
    GPU_TRY(e, gpuEventCreate(&t->stop));
    GPU_TRY(e, gpuEventCreate(&t->end1));
    GPU_TRY(e, gpuHostAlloc((void **)&t->latch, sizeof(int), gpuHostAllocMapped));
    GPU_TRY(e, gpuHostGetDevicePointer((void **)&t->latch_dev, (void *)t->latch, 0));
    *t->latch = 1;
    t->nstreams = 2;
    return MCF_OK;
fail:
    return e->rc;
}

void gx_timer_free(struct gx_timer *t)
{
    for (int i = 0; i < 2; i++)
        if (t->st[i]) GPU_RELEASE(gpuStreamDestroy(t->st[i]));
    if (t->start) GPU_RELEASE(gpuEventDestroy(t->start));
    if (t->stop) GPU_RELEASE(gpuEventDestroy(t->stop));
    if (t->end1) GPU_RELEASE(gpuEventDestroy(t->end1));
    if (t->latch) GPU_RELEASE(gpuFreeHost((void *)t->latch));
    memset(t, 0, sizeof *t);
}

int gx_gate_close(struct gx_timer *t, struct mcf_err *e)
{
    *t->latch = 0;
    __sync_synchronize();
    k_gx_spin<<<1, 1, 0, t->st[0]>>>(t->latch_dev, 60ull * 1000000000ull);
    GPU_LAUNCHED(e, "the gate's spin kernel");
    return MCF_OK;
fail:
    *t->latch = 1;
    return e->rc;
}

void gx_gate_open(struct gx_timer *t)
{
    __sync_synchronize();
    *t->latch = 1;
    __sync_synchronize();
}

int gx_check_bytes(const struct mcf_kernel *k, struct mcf_err *e)
{
    if (k->bytes < 16 || k->bytes % 16)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "transfer on the GPU: 'bytes' (%llu) must be a "
                           "positive multiple of 16",
                           (unsigned long long)k->bytes);
    if (k->iterations < 1)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "transfer on the GPU: 'iterations' must be at least 1");
    return MCF_OK;
}

/* ---- the dispatcher ---- */

static const struct mcf_kernel_ops *link_ops(enum mcf_link link)
{
    switch (link) {
    case MCF_LINK_HOST: return &gpu_xfer_host_ops;
    case MCF_LINK_PEER: return &gpu_xfer_peer_ops;
    case MCF_LINK_COLLECTIVE: return &gpu_collective_ops;
    case MCF_LINK_NETWORK: return &mcf_network_ops;
    default: return NULL;
    }
}

static int tr_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    const struct mcf_kernel_ops *ops = link_ops(k->link);
    if (!ops)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "transfer: link %d is none of host, peer, collective, "
                           "network",
                           (int)k->link);
    return mcf_forward_setup(ops, state, k, ks, e);
}

GPU_HOST_OPS(gpu_transfer_ops, tr_setup, mcf_forward_run, mcf_forward_verify, mcf_forward_teardown);
