/* Pointer-chase latency, single-source: one thread follows a random cycle of
 * working_set / stride nodes (src/run/reference.c's Sattolo order). The time is
 * taken by events, the cycles by clock64 inside the kernel. The reference is
 * the order itself: after T loads the chase stands at order[T mod nodes]. */
#include <stdlib.h>

#include "gpu.h"

__global__ void k_chase(void **start, unsigned long long steps, void ***end, struct gpu_clock *clk)
{
    void **p = start;
    gpu_clock_start(clk);
    for (unsigned long long i = 0; i < steps; i++) p = (void **)*p;
    gpu_clock_stop(clk);
    *end = p;
}

struct chase_run {
    struct gpu_state *s;
    struct mcf_kernel k;
    char *buf; /* device */
    uint64_t nodes, steps, taken;
    uint64_t *order; /* host */
    void **pos; /* device address the chase stands at */
    void ***end; /* device slot for the end position */
    struct gpu_clock *clk;
};

static void chase_free(struct chase_run *c)
{
    if (!c) return;
    if (c->buf) GPU_RELEASE(gpuFree(c->buf));
    if (c->end) GPU_RELEASE(gpuFree(c->end));
    if (c->clk) GPU_RELEASE(gpuFree(c->clk));
    free(c->order);
    free(c);
}

static int latency_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    struct chase_run *c = NULL;
    char **links = NULL;
    if (k->stride < sizeof(void *) || k->stride % sizeof(void *))
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__, "stride %u must be a multiple of %zu",
                           k->stride, sizeof(void *));
    MCF_ALLOC(e, c, 1);
    c->s = s;
    c->k = *k;
    c->nodes = k->working_set / k->stride;
    if (c->nodes < 2)
        MCF_FAIL(e, MCF_EINPUT, "working set %llu with stride %u holds fewer than 2 nodes",
                 (unsigned long long)k->working_set, k->stride);
    /* one lap at least, and enough loads that launch costs vanish */
    c->steps = k->iterations ? k->iterations : (c->nodes > (1u << 18) ? c->nodes : (1u << 18));
    MCF_ALLOC(e, c->order, c->nodes);
    mcf_chase_order(c->order, c->nodes, k->seed);
    GPU_TRY(e, gpuMalloc((void **)&c->buf, c->nodes * k->stride));
    GPU_TRY(e, gpuMalloc((void **)&c->end, sizeof(void **)));
    GPU_TRY(e, gpuMalloc((void **)&c->clk, sizeof(struct gpu_clock)));
    /* the links hold device addresses; only each node's first word is used */
    MCF_ALLOC(e, links, c->nodes * (k->stride / sizeof(char *)));
    for (uint64_t i = 0; i < c->nodes; i++)
        links[c->order[i] * (k->stride / sizeof(char *))] =
            c->buf + c->order[(i + 1) % c->nodes] * k->stride;
    GPU_TRY(e, gpuMemcpy(c->buf, links, c->nodes * k->stride, gpuMemcpyHostToDevice));
    free(links);
    c->pos = (void **)(c->buf + c->order[0] * k->stride);
    *ks = c;
    return MCF_OK;
fail:
    free(links);
    chase_free(c);
    return e->rc;
}

static int latency_run(void *ks, struct mcf_sample *smp, struct mcf_err *e)
{
    struct chase_run *c = (struct chase_run *)ks;
    struct gpu_clock clk;
    gpuStream_t st = c->s->stream;
    MCF_TRY(gpu_time(
        c->s, [&] { k_chase<<<1, 1, 0, st>>>(c->pos, c->steps, c->end, c->clk); }, &smp->seconds,
        e));
    GPU_TRY(e, gpuMemcpy(&c->pos, c->end, sizeof c->pos, gpuMemcpyDeviceToHost));
    GPU_TRY(e, gpuMemcpy(&clk, c->clk, sizeof clk, gpuMemcpyDeviceToHost));
    c->taken += c->steps;
    /* the chase itself, on the in-kernel timer: the launch is not a load */
    smp->seconds = (double)(clk.t1 - clk.t0) * 1e-9;
    smp->units = (double)c->steps;
    smp->clock_mhz = gpu_clock_mhz(&clk);
    return MCF_OK;
fail:
    return e->rc;
}

static int latency_verify(void *ks, struct mcf_err *e)
{
    struct chase_run *c = (struct chase_run *)ks;
    char *want = c->buf + c->order[c->taken % c->nodes] * c->k.stride;
    char *got = (char *)c->pos + (c->k.inject_fault ? c->k.stride : 0);
    if (got != want)
        return mcf_err_set(
            e, MCF_EVERIFY, __FILE__, __LINE__,
            "pointer chase over %llu nodes ended at node %lld after %llu loads, expected node %llu",
            (unsigned long long)c->nodes, (long long)((got - c->buf) / c->k.stride),
            (unsigned long long)c->taken, (unsigned long long)c->order[c->taken % c->nodes]);
    return MCF_OK;
}

static void latency_teardown(void *ks)
{
    chase_free((struct chase_run *)ks);
}

GPU_HOST_OPS(gpu_latency_ops, latency_setup, latency_run, latency_verify, latency_teardown);
