/* The transfer family's collectives (link: collective) through NCCL on
 * NVIDIA and RCCL on AMD, loaded with dlopen (src/link/vendor_nccl.h), as
 * nccl-tests measures them: fp32 sums, out of place, `bytes` being its
 * "size" (allreduce: the vector reduced; allgather: the vector gathered,
 * each rank sending bytes/n; reducescatter: the input vector, each rank
 * receiving bytes/n), the bus bandwidth from family_transfer.c.
 *
 * Each run() enqueues `iterations` collectives back to back between two
 * events on the rank's stream and waits for them, polling with a deadline
 * (a peer that never comes costs the test, not the run: the communicator is
 * aborted). The runner calls run() on every rank of the scope as often, so
 * every call is matched. A scope of one rank is unsupported (nothing moves).
 * Inputs are small integers (mcf_coll_value), so every sum is exact in fp32
 * whatever order the library adds in, and verify checks every element
 * against the formula summed on the host.
 *
 * Not bounded: ncclCommInitRank (blocking mode) waits for every rank of the
 * scope; the ranks agree beforehand that each is ready (co_agree), so only a
 * rank dying inside it leaves the others there, for the run's watchdog. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm.h"
#include "gpu.h"
#include "stop.h"
#include "vendor_nccl.h"

#if defined(__HIPCC__) || defined(MCF_GPU_HIP)
#define co_query hipStreamQuery
#define co_not_ready hipErrorNotReady
#define CO_RCCL 1
#else
#define co_query cudaStreamQuery
#define co_not_ready cudaErrorNotReady
#define CO_RCCL 0
#endif

/* rank r's input element at global index i (the host backend's formula):
 * an integer in [-8, 8] */
static __host__ __device__ inline float mcf_coll_value(uint64_t seed, int r, uint64_t i)
{
    return (float)((int)((i * 7 + (uint64_t)r * 13 + seed) % 17) - 8);
}

static __global__ void co_fill(float *x, size_t n, uint64_t seed, int r, uint64_t base)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = mcf_coll_value(seed, r, base + i);
}

struct coll {
    struct gpu_state *s;
    struct mcf_kernel k;
    struct mcf_nccl lib;
    int have_lib;
    mcf_nccl_comm_t comm;
    int broken; /* aborted: no later call can be matched */
    int n, me; /* ranks in the collective, this one's place */
    size_t count; /* allreduce: the vector; allgather, reducescatter: one rank's block */
    size_t in_elems, out_elems;
    float *send, *recv;
};

/* what each rank says before the communicator is made (agreed over the scope) */
struct co_hello {
    int rc; /* its setup so far: MCF_OK, else what failed */
    mcf_nccl_id_t id; /* the scope's rank 0: the unique id */
};

static double co_clock(void) /* mcf_now's clock (CLOCK_MONOTONIC), which the cut's deadline is on */
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *co_what(const struct coll *g)
{
    return mcf_collective_names[g->k.collective];
}

/* An NCCL call: its text, the library's words, file:line. */
#define CO_NCCL(g, e, rcode, call)                                                                 \
    do {                                                                                           \
        mcf_nccl_result_t co_r_ = (g)->lib.call;                                                   \
        if (co_r_ != MCF_NCCL_SUCCESS) {                                                           \
            char co_b_[512];                                                                       \
            mcf_err_set((e), (rcode), __FILE__, __LINE__, "%s: %s failed: %s", (g)->lib.describe,  \
                        #call, mcf_nccl_error(&(g)->lib, (g)->comm, co_r_, co_b_, sizeof co_b_));  \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

static void co_abort(struct coll *g)
{
    if (g->comm) g->lib.ncclCommAbort(g->comm);
    g->comm = NULL;
    g->broken = 1;
}

static void co_teardown(void *ks)
{
    struct coll *g = (struct coll *)ks;
    if (!g) return;
    if (g->comm) {
        mcf_nccl_result_t r = g->lib.ncclCommDestroy(g->comm);
        if (r != MCF_NCCL_SUCCESS) {
            char b[512];
            fprintf(stderr, "mcfleet: %s:%d: ncclCommDestroy failed: %s\n", __FILE__, __LINE__,
                    mcf_nccl_error(&g->lib, g->comm, r, b, sizeof b));
        }
    }
    if (g->send) GPU_RELEASE(gpuFree(g->send));
    if (g->recv) GPU_RELEASE(gpuFree(g->recv));
    if (g->have_lib) mcf_nccl_close(&g->lib);
    free(g);
}

/* This rank's part before the communicator: the library, the buffers, the
 * inputs. Its outcome is told to the others whatever it is. */
static int co_prepare(struct coll *g, struct mcf_err *e)
{
    char why[1024];
    size_t all = (size_t)(g->k.bytes / sizeof(float));
    if (g->k.collective == MCF_COLL_ALLREDUCE) {
        g->count = all;
        g->in_elems = g->out_elems = all;
    } else { /* the size rounded down to whole blocks, as nccl-tests does */
        g->count = all / (size_t)g->n;
        g->in_elems = g->k.collective == MCF_COLL_ALLGATHER ? g->count : g->count * (size_t)g->n;
        g->out_elems = g->k.collective == MCF_COLL_ALLGATHER ? g->count * (size_t)g->n : g->count;
    }
    if (g->count == 0)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "%llu bytes split among %d ranks leaves none to each",
                           (unsigned long long)g->k.bytes, g->n);
    if (mcf_nccl_open(&g->lib, CO_RCCL, why, sizeof why) != 0)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "%s", why);
    g->have_lib = 1;
    GPU_TRY(e, gpuSetDevice(g->s->device));
    GPU_TRY(e, gpuMalloc((void **)&g->send, g->in_elems * sizeof(float)));
    GPU_TRY(e, gpuMalloc((void **)&g->recv, g->out_elems * sizeof(float)));
    {
        int blocks = g->s->sms > 0 ? 4 * g->s->sms : 256;
        uint64_t base = g->k.collective == MCF_COLL_ALLGATHER ? (uint64_t)g->me * g->count : 0;
        co_fill<<<blocks, 256, 0, g->s->stream>>>(g->send, g->in_elems, g->k.seed, g->me, base);
        GPU_LAUNCHED(e, "co_fill");
    }
    GPU_TRY(e, gpuStreamSynchronize(g->s->stream));
    return MCF_OK;
fail:
    return e->rc;
}

static int co_unique_id(struct coll *g, mcf_nccl_id_t *id, struct mcf_err *e)
{
    CO_NCCL(g, e, MCF_ERUNTIME, ncclGetUniqueId(id));
    return MCF_OK;
fail:
    return e->rc;
}

/* Every rank of the scope says how its preparation went, and rank 0 gives the
 * unique id in the same call, so that no rank waits in ncclCommInitRank for
 * one that failed before it. */
static int co_agree(struct coll *g, struct mcf_err *e)
{
    const struct mcf_comm *c = g->k.comm;
    struct co_hello mine, *all = (struct co_hello *)calloc((size_t)g->n, sizeof(struct co_hello));
    struct mcf_err ce = {};
    memset(&mine, 0, sizeof mine);
    if (!all) MCF_FAIL(e, MCF_ERUNTIME, "out of memory (%d ranks' words)", g->n);
    if (e->rc == MCF_OK && g->me == 0) co_unique_id(g, &mine.id, e);
    mine.rc = e->rc;
    if (c->allgather(c->ctx, g->k.scope, &mine, all, sizeof mine, &ce) != MCF_OK) {
        if (e->rc == MCF_OK)
            mcf_err_set(e, ce.rc, __FILE__, __LINE__,
                        "telling the other ranks how the setup went: %s", ce.msg);
        goto fail;
    }
    if (e->rc != MCF_OK) goto fail;
    for (int i = 0; i < g->n; i++)
        if (all[i].rc != MCF_OK)
            MCF_FAIL(e, all[i].rc == MCF_EUNSUPPORTED ? MCF_EUNSUPPORTED : MCF_ERUNTIME,
                     "%s rank %d of the %s could not set the collective up (its row says why)",
                     g->k.scope == MCF_SCOPE_NODE ? "local" : "world", i,
                     mcf_scope_names[g->k.scope]);
    { /* kept only once made: a failed init's handle is not one to destroy */
        mcf_nccl_comm_t comm = NULL;
        CO_NCCL(g, e, MCF_ERUNTIME, ncclCommInitRank(&comm, g->n, all[0].id, g->me));
        g->comm = comm;
    }
    free(all);
    return MCF_OK;
fail:
    free(all);
    return e->rc;
}

static int co_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct coll *g = NULL;
    const struct mcf_comm *c = k->comm;
    if (!c)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "a collective needs the other ranks: none given");
    if ((k->scope == MCF_SCOPE_NODE ? c->local_size : c->size) <
        2) /* the same answer on each rank of it */
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "a collective of one rank moves nothing (the %s "
                           "has one rank)",
                           mcf_scope_names[k->scope]);
    MCF_ALLOC(e, g, 1);
    g->s = (struct gpu_state *)state;
    g->k = *k;
    g->n = k->scope == MCF_SCOPE_NODE ? c->local_size : c->size;
    g->me = k->scope == MCF_SCOPE_NODE ? c->local_rank : c->rank;
    co_prepare(g, e); /* its outcome goes to the others */
    MCF_TRY(co_agree(g, e));
    *ks = g;
    return MCF_OK;
fail:
    co_teardown(g);
    return e->rc;
}

static int co_enqueue(struct coll *g, struct mcf_err *e)
{
    void *st = (void *)g->s->stream;
    switch (g->k.collective) {
    case MCF_COLL_ALLREDUCE:
        CO_NCCL(
            g, e, MCF_ERUNTIME,
            ncclAllReduce(g->send, g->recv, g->count, MCF_NCCL_FLOAT32, MCF_NCCL_SUM, g->comm, st));
        break;
    case MCF_COLL_ALLGATHER:
        CO_NCCL(g, e, MCF_ERUNTIME,
                ncclAllGather(g->send, g->recv, g->count, MCF_NCCL_FLOAT32, g->comm, st));
        break;
    default:
        CO_NCCL(g, e, MCF_ERUNTIME,
                ncclReduceScatter(g->send, g->recv, g->count, MCF_NCCL_FLOAT32, MCF_NCCL_SUM,
                                  g->comm, st));
        break;
    }
    return MCF_OK;
fail:
    return e->rc;
}

/* Waits for the stream until the test's deadline (at most MCF_COMM_WAIT_S)
 * or a stop; an asynchronous NCCL error ends it at once. */
static int co_wait(struct coll *g, struct mcf_err *e)
{
    double t0 = co_clock(), limit = t0 + MCF_COMM_WAIT_S;
    for (;;) {
        gpuError_t q = co_query(g->s->stream);
        if (q == gpuSuccess) return MCF_OK;
        if (q != co_not_ready) {
            co_abort(g);
            return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                               "%s: waiting for the %s: %s (%s)", g->lib.describe, co_what(g),
                               gpuGetErrorString(q), gpuGetErrorName(q));
        }
        mcf_nccl_result_t ar = MCF_NCCL_SUCCESS;
        if (g->lib.ncclCommGetAsyncError(g->comm, &ar) == MCF_NCCL_SUCCESS &&
            ar != MCF_NCCL_SUCCESS && ar != MCF_NCCL_IN_PROGRESS) {
            char b[512];
            mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "%s: the %s failed: %s",
                        g->lib.describe, co_what(g),
                        mcf_nccl_error(&g->lib, g->comm, ar, b, sizeof b));
            co_abort(g);
            return e->rc;
        }
        double now = co_clock();
        if (mcf_stop_signal() || mcf_cut_due(g->k.cut) || now > limit) {
            co_abort(g);
            return mcf_err_set(e, MCF_ECUT, __FILE__, __LINE__,
                               "%s: the %s gave up after %.1f s waiting for the "
                               "other ranks (%s); the communicator was aborted",
                               g->lib.describe, co_what(g), now - t0,
                               mcf_stop_signal()
                                   ? "a stop"
                                   : "the test's time limit or the link calls' limit of 120 s");
        }
        if (now - t0 > 0.01) /* a long wait: leave the CPU to the ranks that work */
            mcf_link_sleep(50e-6);
    }
}

static int co_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    struct coll *g = (struct coll *)ks;
    float ms = 0.0f;
    if (g->broken)
        return mcf_err_set(e, MCF_ECUT, __FILE__, __LINE__,
                           "%s not tried: an earlier one was abandoned and its "
                           "communicator aborted",
                           co_what(g));
    /* all ones (a NaN in fp32): an element the collective did not write fails verify */
    GPU_TRY(e, gpuMemsetAsync(g->recv, 0xff, g->out_elems * sizeof(float), g->s->stream));
    GPU_TRY(e, gpuEventRecord(g->s->ev0, g->s->stream));
    for (uint64_t i = 0; i < g->k.iterations; i++) {
        double t = co_clock();
        MCF_TRY(co_enqueue(g, e));
        /* testing (inject.h): this rank pauses after each call for (inject_slow
         * - 1) times its time, the stream idle between its events, so its own
         * figure and every peer's (whose next call waits for it) are slower,
         * as the host backend's are; without it the calls go back to back */
        if (g->k.inject_slow > 1) {
            MCF_TRY(co_wait(g, e));
            mcf_link_sleep((g->k.inject_slow - 1) * (co_clock() - t));
        }
    }
    GPU_TRY(e, gpuEventRecord(g->s->ev1, g->s->stream));
    MCF_TRY(co_wait(g, e));
    GPU_TRY(e, gpuEventElapsedTime(&ms, g->s->ev0, g->s->ev1));
    s->seconds = ms * 1e-3;
    s->coll_ranks = g->n;
    { /* the bytes moved: the size rounded down to whole blocks */
        double moved =
            (double)(g->k.collective == MCF_COLL_ALLREDUCE ? g->count : g->count * (size_t)g->n) *
            sizeof(float);
        s->units = (double)g->k.iterations * moved / (double)g->k.bytes;
    }
    return MCF_OK;
fail: /* the others may wait on calls this rank will not make: end the communicator */
    co_abort(g);
    return e->rc;
}

static int co_verify(void *ks, struct mcf_err *e)
{
    struct coll *g = (struct coll *)ks;
    float *out = NULL;
    size_t c = g->count;
    MCF_ALLOC(e, out, g->out_elems);
    GPU_TRY(e, gpuMemcpy(out, g->recv, g->out_elems * sizeof(float), gpuMemcpyDeviceToHost));
    if (g->k.inject_fault) out[g->out_elems / 2] += 1.0f;
    for (size_t i = 0; i < g->out_elems; i++) {
        double want = 0.0;
        if (g->k.collective == MCF_COLL_ALLGATHER)
            want = mcf_coll_value(g->k.seed, (int)(i / c), i);
        else
            for (int r = 0; r < g->n; r++)
                want += mcf_coll_value(
                    g->k.seed, r,
                    (g->k.collective == MCF_COLL_REDUCESCATTER ? (uint64_t)g->me * c : 0) + i);
        if (!((double)out[i] == want))
            MCF_FAIL(e, MCF_EVERIFY, "%s %s (%s): element %zu is %.9g, expected %.9g", co_what(g),
                     mcf_scope_names[g->k.scope], g->lib.describe, i, (double)out[i], want);
    }
    free(out);
    return MCF_OK;
fail:
    free(out);
    return e->rc;
}

GPU_HOST_OPS(gpu_collective_ops, co_setup, co_run, co_verify, co_teardown);
