/* Concurrency on a GPU: N streams, each with its own triad arrays or matrix
 * work (the vendor's mma kernel), each kernel's span taken on the device (the earliest block start
 * and the latest block end on %globaltimer). A repetition runs each stream's kernel alone, then all
 * at once; src/run/concurrency.c derives speedup, overlap and fairness exactly as for every other
 * backend. Stream 0 carries `imbalance` times the work. A kernel uses at most one block per SM of
 * 256 threads, so N of them can share the device; what they actually do is what is measured. */
#include <limits.h>
#include <stdlib.h>

#include "family.h" /* mcf_streams_work */
#include "gpu.h"

#define BLOCK 256

template <typename T>
__global__ void k_span_triad(T *__restrict__ a, const T *__restrict__ b, const T *__restrict__ c,
                             T s, size_t n, unsigned long long *span)
{
    if (threadIdx.x == 0) atomicMin(&span[0], gpu_globaltimer());
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        a[i] = b[i] + s * c[i];
    __syncthreads();
    if (threadIdx.x == 0) atomicMax(&span[1], gpu_globaltimer());
}

struct streams_run {
    struct gpu_state *s;
    struct mcf_kernel k;
    int n;
    gpuStream_t st[MCF_MAX_STREAMS];
    void *a[MCF_MAX_STREAMS], *b[MCF_MAX_STREAMS], *c[MCF_MAX_STREAMS];
    size_t len[MCF_MAX_STREAMS];
    unsigned long long *span; /* device: 2 per stream */
    int blocks[MCF_MAX_STREAMS];
    void *mwork[MCF_MAX_STREAMS]; /* work: matrix */
};

static void streams_free(struct streams_run *r)
{
    if (!r) return;
    for (int i = 0; i < MCF_MAX_STREAMS; i++) {
        if (r->mwork[i]) gpu_mwork_free(r->mwork[i]);
        if (r->st[i]) GPU_RELEASE(gpuStreamDestroy(r->st[i]));
        if (r->a[i]) GPU_RELEASE(gpuFree(r->a[i]));
        if (r->b[i]) GPU_RELEASE(gpuFree(r->b[i]));
        if (r->c[i]) GPU_RELEASE(gpuFree(r->c[i]));
    }
    if (r->span) GPU_RELEASE(gpuFree(r->span));
    free(r);
}

static int streams_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    struct streams_run *r = NULL;
    size_t es = (size_t)mcf_dtype_size(k->dtype);
    if (k->work == MCF_WORK_MEMORY && k->dtype != MCF_FP64 && k->dtype != MCF_FP32)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "streams: dtype fp64 or fp32 for memory work");
    MCF_ALLOC(e, r, 1);
    r->s = s;
    r->k = *k;
    r->n = k->streams;
    GPU_TRY(e, gpuMalloc((void **)&r->span, sizeof(unsigned long long) * 2 * r->n));
    for (int i = 0; i < r->n; i++) {
        struct mcf_kernel w;
        mcf_streams_work(k, i, &w);
        GPU_TRY(e, gpuStreamCreateWithFlags(&r->st[i], gpuStreamNonBlocking));
        if (k->work == MCF_WORK_MATRIX) {
            MCF_TRY(gpu_mwork_create(s, &w, r->st[i], r->span + 2 * i, &r->mwork[i], e));
            continue;
        }
        r->len[i] = w.bytes / es;
        size_t want = (r->len[i] + BLOCK * 4 - 1) / (BLOCK * 4);
        r->blocks[i] = want < (size_t)s->sms ? (int)want : s->sms;
        GPU_TRY(e, gpuMalloc(&r->a[i], r->len[i] * es));
        GPU_TRY(e, gpuMalloc(&r->b[i], r->len[i] * es));
        GPU_TRY(e, gpuMalloc(&r->c[i], r->len[i] * es));
        MCF_TRY(gpu_init_arrays(k->dtype, r->a[i], r->b[i], r->c[i], r->len[i], s->sms * 4,
                                r->st[i], e));
    }
    GPU_TRY(e, gpuDeviceSynchronize());
    *ks = r;
    return MCF_OK;
fail:
    streams_free(r);
    return e->rc;
}

static void launch_one(struct streams_run *r, int i)
{
    if (r->mwork[i])
        gpu_mwork_launch(r->mwork[i]);
    else if (r->k.dtype == MCF_FP64)
        k_span_triad<double><<<r->blocks[i], BLOCK, 0, r->st[i]>>>(
            (double *)r->a[i], (const double *)r->b[i], (const double *)r->c[i], MCF_TRIAD_S,
            r->len[i], r->span + 2 * i);
    else
        k_span_triad<float><<<r->blocks[i], BLOCK, 0, r->st[i]>>>(
            (float *)r->a[i], (const float *)r->b[i], (const float *)r->c[i], (float)MCF_TRIAD_S,
            r->len[i], r->span + 2 * i);
}

/* Resets the spans, runs the given streams (all, or only `only`), reads the spans back. */
static int run_spans(struct streams_run *r, int only, unsigned long long *span, struct mcf_err *e)
{
    for (int i = 0; i < r->n; i++) {
        span[2 * i] = ULLONG_MAX;
        span[2 * i + 1] = 0;
    }
    GPU_TRY(e,
            gpuMemcpy(r->span, span, sizeof(unsigned long long) * 2 * r->n, gpuMemcpyHostToDevice));
    for (int i = 0; i < r->n; i++)
        if (only < 0 || only == i) {
            launch_one(r, i);
            GPU_LAUNCHED(e, "stream work");
        }
    GPU_TRY(e, gpuDeviceSynchronize());
    GPU_TRY(e,
            gpuMemcpy(span, r->span, sizeof(unsigned long long) * 2 * r->n, gpuMemcpyDeviceToHost));
    return MCF_OK;
fail:
    return e->rc;
}

static int streams_run(void *ks, struct mcf_sample *smp, struct mcf_err *e)
{
    struct streams_run *r = (struct streams_run *)ks;
    unsigned long long span[2 * MCF_MAX_STREAMS], origin = ULLONG_MAX;
    for (int i = 0; i < r->n; i++) {
        MCF_TRY(run_spans(r, i, span, e));
        smp->stream_alone[i] = (double)(span[2 * i + 1] - span[2 * i]) * 1e-9;
    }
    MCF_TRY(run_spans(r, -1, span, e));
    for (int i = 0; i < r->n; i++)
        if (span[2 * i] < origin) origin = span[2 * i];
    smp->nstreams = r->n;
    smp->seconds = 0;
    for (int i = 0; i < r->n; i++) {
        smp->stream_start[i] = (double)(span[2 * i] - origin) * 1e-9;
        smp->stream_end[i] = (double)(span[2 * i + 1] - origin) * 1e-9;
        if (smp->stream_end[i] > smp->seconds) smp->seconds = smp->stream_end[i];
    }
    smp->units = r->n;
    return MCF_OK;
fail:
    return e->rc;
}

static int streams_verify(void *ks, struct mcf_err *e)
{
    struct streams_run *r = (struct streams_run *)ks;
    for (int i = 0; i < r->n; i++) {
        if (r->mwork[i])
            MCF_TRY(gpu_mwork_check(r->mwork[i], r->k.inject_fault && i == 0, e));
        else
            MCF_TRY(gpu_check_output(MCF_OP_TRIAD, r->k.dtype, 0, r->a[i], r->len[i],
                                     r->k.inject_fault && i == 0, e));
    }
    return MCF_OK;
fail:
    return e->rc;
}

static void streams_teardown(void *ks)
{
    streams_free((struct streams_run *)ks);
}

GPU_HOST_OPS(gpu_streams_ops, streams_setup, streams_run, streams_verify, streams_teardown);
