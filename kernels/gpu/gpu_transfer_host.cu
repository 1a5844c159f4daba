/* The transfer family's host link on the GPU: pinned host memory on the
 * GPU's NUMA node or a remote one (link/numa.h: mmap + mbind, then
 * registered with the runtime), into the device, out of it, or both at once
 * on two streams; moved by the copy engines (async memcpy) or by the SMs (a
 * copy kernel loading / storing the mapped host memory). The span of
 * `iterations` transfers each way is timed by events behind a gate
 * (gpu_transfer.h); the figure is each direction's bytes over it. */
#include <stdlib.h>

#include "gpu_transfer.h"
#include "numa.h"

struct hx {
    struct gpu_state *s;
    struct mcf_kernel k;
    char bus[32];
    int node, bound;
    void *host[2]; /* [0]: the source into the device, [1]: the destination out of it */
    void *host_dev[2]; /* their device addresses */
    int registered[2];
    void *dev[2]; /* [0]: the destination in the device, [1]: the source out of it */
    struct gx_timer t;
    int timer;
};

static void hx_free(struct hx *x)
{
    if (!x) return;
    for (int d = 0; d < 2; d++) {
        if (x->registered[d]) GPU_RELEASE(gpuHostUnregister(x->host[d]));
        mcf_numa_free(x->host[d], x->k.bytes);
        if (x->dev[d]) GPU_RELEASE(gpuFree(x->dev[d]));
    }
    if (x->timer) gx_timer_free(&x->t);
    free(x);
}

static int hx_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    struct hx *x = NULL;
    MCF_TRY(gx_check_bytes(k, e));
    MCF_ALLOC(e, x, 1);
    x->s = s;
    x->k = *k;
    GPU_TRY(e, gpuDeviceGetPCIBusId(x->bus, (int)sizeof x->bus, s->device));
    MCF_TRY(mcf_numa_choose("/sys", x->bus, k->host_memory, &x->node, e));
    MCF_TRY(gx_timer_create(&x->t, e));
    x->timer = 1;
    for (int d = 0; d < 2; d++) {
        if ((d == 0 && k->direction == MCF_DIR_OUT) || (d == 1 && k->direction == MCF_DIR_IN))
            continue;
        MCF_TRY(mcf_numa_alloc("/sys", k->bytes, x->node, &x->host[d], &x->bound, e));
        GPU_TRY(
            e,
            gpuHostRegister(x->host[d], k->bytes, gpuHostRegisterMapped | gpuHostRegisterPortable));
        x->registered[d] = 1;
        GPU_TRY(e, gpuHostGetDevicePointer(&x->host_dev[d], x->host[d], 0));
        GPU_TRY(e, gpuMalloc(&x->dev[d], k->bytes));
    }
    /* the sources' patterns, written by the device (through the link for host memory) */
    if (x->host[0]) MCF_TRY(gx_fill(x->host_dev[0], k->bytes, k->seed, GX_SID_INTO, x->t.st[0], e));
    if (x->dev[1]) MCF_TRY(gx_fill(x->dev[1], k->bytes, k->seed, GX_SID_OUT, x->t.st[0], e));
    *ks = x;
    return MCF_OK;
fail:
    hx_free(x);
    return e->rc;
}

static int hx_run(void *ks, struct mcf_sample *smp, struct mcf_err *e)
{
    struct hx *x = (struct hx *)ks;
    const struct mcf_kernel *k = &x->k;
    int both = k->direction == MCF_DIR_BOTH, sm = k->engine == MCF_ENGINE_SM, blocks = x->s->sms,
        threads = 512;
    double span = 0.0;
    /* stream i's direction: into the device first where it is measured */
    int dir_of[2] = { k->direction == MCF_DIR_OUT ? 1 : 0, 1 };
    /* the destinations cleared, so that what verify sees is the last repetition's */
    if (x->dev[0]) MCF_TRY(gx_fill(x->dev[0], k->bytes, 0, 0, x->t.st[0], e));
    if (x->host[1]) MCF_TRY(gx_fill(x->host_dev[1], k->bytes, 0, 0, x->t.st[0], e));
    {
        auto enqueue = [&](int i, gpuStream_t st, uint64_t first, uint64_t n) -> int {
            int d = dir_of[i];
            void *dst = d == 0 ? x->dev[0] : x->host_dev[1];
            const void *src = d == 0 ? x->host_dev[0] : x->dev[1];
            (void)first;
            if (sm) { /* one kernel does every iteration: item 0 */
                if (first == 0 && n > 0) {
                    gx_copy_launch(dst, src, k->bytes, k->iterations, blocks, threads, st);
                    GPU_LAUNCHED(e, "the SM copy over the host link");
                }
                return MCF_OK;
            }
            for (uint64_t it = 0; it < n; it++)
                GPU_TRY(e,
                        gpuMemcpyAsync(d == 0 ? x->dev[0] : x->host[1],
                                       d == 0 ? x->host[0] : x->dev[1], k->bytes,
                                       d == 0 ? gpuMemcpyHostToDevice : gpuMemcpyDeviceToHost, st));
            return MCF_OK;
        fail:
            return e->rc;
        };
        MCF_TRY(gx_time(&x->t, both ? 2 : 1, sm ? 1 : k->iterations, enqueue, &span, e));
    }
    smp->seconds = span;
    smp->units = (double)k->iterations;
    return MCF_OK;
fail:
    return e->rc;
}

static int hx_verify(void *ks, struct mcf_err *e)
{
    struct hx *x = (struct hx *)ks;
    const struct mcf_kernel *k = &x->k;
    char what[160];
    int inject = k->inject_fault;
    if (x->dev[0]) {
        snprintf(what, sizeof what, "host link into the device (%s, host memory on NUMA node %d)",
                 mcf_engine_names[k->engine], x->node);
        MCF_TRY(gx_check(x->dev[0], k->bytes, k->seed, GX_SID_INTO, inject, what, e));
        inject = 0;
    }
    if (x->host[1]) {
        snprintf(what, sizeof what, "host link out of the device (%s, host memory on NUMA node %d)",
                 mcf_engine_names[k->engine], x->node);
        MCF_TRY(gx_check(x->host_dev[1], k->bytes, k->seed, GX_SID_OUT, inject, what, e));
    }
    snprintf(e->msg, sizeof e->msg, "pinned host memory on NUMA node %d (%s; GPU %s)%s", x->node,
             k->host_memory == MCF_NUMA_LOCAL ? "the GPU's own" : "a remote node", x->bus,
             x->bound ? ""
                      : ", not bound: the kernel refused mbind on a machine of one memory node");
    return MCF_OK;
fail:
    return e->rc;
}

static void hx_teardown(void *ks)
{
    hx_free((struct hx *)ks);
}

GPU_HOST_OPS(gpu_xfer_host_ops, hx_setup, hx_run, hx_verify, hx_teardown);
