/* The transfer family's peer links on the GPU: this rank's GPU and the GPU
 * of every other rank of the node (local rank j), found by PCI address in
 * this process (every GPU of the node must be visible to every rank). The
 * buffers on j's GPU are this process's own allocations there.
 *   out   this GPU's data written into j's memory
 *   in    j's data pulled into this GPU's memory by this GPU's stream
 *   both  the two at once, on two streams
 * by the copy engines (peer memcpy; staged through the host by the runtime
 * where the pair has no direct access) or by this GPU's SMs (a copy kernel
 * loading / storing j's memory: direct access only). One pair at a time;
 * link_seconds[j] is the gated span (gpu_transfer.h) over `iterations`
 * transfers, divided by them.
 * Latency (direction in, engine sm): one thread of this GPU follows a
 * dependent chain laid in j's memory (a node every 128 bytes over `bytes`,
 * a random order inside each 2 MiB page and the pages in turn: no node's
 * address is predictable, the TLB's reach is not what is measured), timed
 * by the device's nanosecond timer inside the kernel; `iterations` laps of
 * the chain per link per run (as the host backend), each run going on where
 * the last stopped. A chain that fits the peer's L2 (50 MB on an H100)
 * measures that L2 across the link, not its memory: nvbandwidth's 64 MiB
 * chain reaches HBM. The same chain in this GPU's own memory, one lap, is
 * measured at verify for the message. */
#include <math.h>
#include <stdlib.h>

#include "comm.h"
#include "counter_rng.h"
#include "gpu_transfer.h"

#define PX_STRIDE 128
#define PX_PAGE (2u << 20)

struct px_id {
    int ok;
    char bus[32];
};

struct px_link {
    int dev; /* this process's ordinal of local rank j's GPU; -1: this rank */
    int access; /* this GPU loads and stores j's memory directly */
    void *src, *dst; /* on j's GPU: its source (pattern GX_SID_PEER(j)), the destination of 'out' */
    void *mine_dst; /* on this GPU: the destination of 'in' from j */
    char *chain; /* latency: the chain in j's memory */
    uint64_t taken; /* loads chased so far */
    char *pos; /* where the chase stands */
    char bus[32];
};

struct px {
    struct gpu_state *s;
    struct mcf_kernel k;
    int me, n, measured;
    struct px_link l[MCF_MAX_PEERS];
    void *mine_src; /* this GPU's source (pattern GX_SID_PEER(me)) */
    struct gx_timer t;
    int timer;
    /* latency */
    uint64_t nodes, *order;
    struct px_link local; /* the same chain in this GPU's memory */
    void **end; /* device: where a chase ended */
    struct gpu_clock *clk; /* device */
    double local_ns;
};

/* an 8-byte load that no cache of this GPU's SM keeps */
__device__ static inline char *px_next(char *p)
{
#if defined(__HIP_DEVICE_COMPILE__)
    return (char *)__builtin_nontemporal_load((unsigned long long *)p);
#elif defined(__CUDA_ARCH__)
    unsigned long long v;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
    return (char *)v;
#else
    return p;
#endif
}

__global__ void k_px_chase(char *start, unsigned long long loads, void **end, struct gpu_clock *clk)
{
    char *p = start;
    gpu_clock_start(clk);
    for (unsigned long long i = 0; i < loads; i++) p = px_next(p);
    gpu_clock_stop(clk);
    *end = p;
}

/* cudaSetDevice back to this rank's GPU, whatever happened */
static void px_home(const struct px *x)
{
    GPU_RELEASE(gpuSetDevice(x->s->device));
}

static void px_release(int dev, void *p)
{
    if (!p) return;
    GPU_RELEASE(gpuSetDevice(dev));
    GPU_RELEASE(gpuFree(p));
}

static void px_free(struct px *x)
{
    if (!x) return;
    for (int j = 0; j < x->n; j++) {
        struct px_link *l = &x->l[j];
        px_release(l->dev, l->src);
        px_release(l->dev, l->dst);
        px_release(l->dev, l->chain);
        px_release(x->s->device, l->mine_dst);
    }
    px_release(x->s->device, x->mine_src);
    px_release(x->s->device, x->local.chain);
    px_release(x->s->device, x->end);
    px_release(x->s->device, x->clk);
    px_home(x);
    if (x->timer) gx_timer_free(&x->t);
    free(x->order);
    free(x);
}

/* a buffer of bytes on device dev, filled with pattern sid (0: zeros) */
static int px_alloc(struct px *x, int dev, unsigned sid, void **p, struct mcf_err *e)
{
    GPU_TRY(e, gpuSetDevice(dev));
    GPU_TRY(e, gpuMalloc(p, x->k.bytes));
    MCF_TRY(gx_fill(*p, x->k.bytes, x->k.seed, sid, (gpuStream_t)0, e));
    GPU_TRY(e, gpuSetDevice(x->s->device));
    return MCF_OK;
fail:
    px_home(x);
    return e->rc;
}

/* direct access from device a to device b's memory, where the pair has it */
static int px_enable(struct px *x, int a, int b, int *access, struct mcf_err *e)
{
    gpuError_t rc;
    GPU_TRY(e, gpuDeviceCanAccessPeer(access, a, b));
    if (*access) {
        GPU_TRY(e, gpuSetDevice(a));
        rc = gpuDeviceEnablePeerAccess(b, 0);
        if (rc == gpuErrorPeerAccessAlreadyEnabled)
            (void)gpuGetLastError();
        else
            GPU_TRY(e, rc);
    }
    GPU_TRY(e, gpuSetDevice(x->s->device));
    return MCF_OK;
fail:
    px_home(x);
    return e->rc;
}

/* The chase order: nodes in a random order inside each 2 MiB page, the
 * pages in turn (Fisher-Yates from the seed). */
static int px_order(struct px *x, struct mcf_err *e)
{
    uint64_t per_page = PX_PAGE / PX_STRIDE;
    x->nodes = x->k.bytes / PX_STRIDE;
    if (x->nodes < 2)
        MCF_FAIL(e, MCF_EINPUT,
                 "transfer peer latency: 'bytes' (%llu) holds fewer than 2 nodes of %d bytes",
                 (unsigned long long)x->k.bytes, PX_STRIDE);
    MCF_ALLOC(e, x->order, x->nodes);
    for (uint64_t a = 0; a < x->nodes; a += per_page) {
        uint64_t b = a + per_page < x->nodes ? a + per_page : x->nodes;
        for (uint64_t i = a; i < b; i++) x->order[i] = i;
        for (uint64_t i = b - 1; i > a; i--) {
            uint64_t r = a + mcf_counter_bits(x->k.seed, 0x6368u, i, 0) % (i - a + 1),
                     t = x->order[i];
            x->order[i] = x->order[r];
            x->order[r] = t;
        }
    }
    return MCF_OK;
fail:
    return e->rc;
}

/* lays the chain (node order[i] points to order[i + 1], the last to the
 * first) into bytes at l->chain, on device dev */
static int px_chain(struct px *x, int dev, struct px_link *l, uint64_t *image, struct mcf_err *e)
{
    const uint64_t words = PX_STRIDE / 8;
    GPU_TRY(e, gpuSetDevice(dev));
    GPU_TRY(e, gpuMalloc((void **)&l->chain, x->k.bytes));
    memset(image, 0, x->k.bytes);
    for (uint64_t i = 0; i < x->nodes; i++)
        image[x->order[i] * words] =
            (uint64_t)(uintptr_t)(l->chain + x->order[(i + 1) % x->nodes] * PX_STRIDE);
    GPU_TRY(e, gpuMemcpy(l->chain, image, x->k.bytes, gpuMemcpyDefault));
    l->pos = l->chain + x->order[0] * PX_STRIDE;
    GPU_TRY(e, gpuSetDevice(x->s->device));
    return MCF_OK;
fail:
    px_home(x);
    return e->rc;
}

/* Every local rank's GPU, by PCI address; collective over the node: every
 * rank takes part, whatever went wrong before. */
static int px_find(struct px *x, struct mcf_err *e)
{
    const struct mcf_comm *c = x->k.comm;
    struct px_id mine, *all = NULL;
    struct mcf_err pre = { MCF_OK, 0, "" };
    memset(&mine, 0, sizeof mine);
    if (gx_check_bytes(&x->k, &pre) == MCF_OK &&
        gpuDeviceGetPCIBusId(mine.bus, (int)sizeof mine.bus, x->s->device) == gpuSuccess)
        mine.ok = 1;
    else if (pre.rc == MCF_OK)
        mcf_err_set(&pre, MCF_ERUNTIME, __FILE__, __LINE__, "%sDeviceGetPCIBusId(%d) failed",
                    MCF_GPU_VENDOR, x->s->device);
    MCF_ALLOC(e, all, c->local_size);
    MCF_TRY(c->allgather(c->ctx, MCF_SCOPE_NODE, &mine, all, sizeof mine, e));
    if (pre.rc != MCF_OK) {
        *e = pre;
        goto fail;
    }
    if (c->local_size < 2)
        MCF_FAIL(e, MCF_EUNSUPPORTED,
                 "peer links: this rank is the only one on its node (one rank per GPU, "
                 "two or more on a node)");
    if (c->local_size > MCF_MAX_PEERS)
        MCF_FAIL(e, MCF_EUNSUPPORTED, "peer links: %d ranks on this node, at most %d measured",
                 c->local_size, MCF_MAX_PEERS);
    x->me = c->local_rank;
    x->n = c->local_size;
    for (int j = 0; j < x->n; j++) {
        struct px_link *l = &x->l[j];
        l->dev = -1;
        snprintf(l->bus, sizeof l->bus, "%s", all[j].bus);
        if (j == x->me) continue;
        if (!all[j].ok)
            MCF_FAIL(e, MCF_EUNSUPPORTED,
                     "peer links: local rank %d could not set the test up (its row says why)", j);
        if (gpuDeviceGetByPCIBusId(&l->dev, all[j].bus) != gpuSuccess) {
            const char *v = getenv(GPU_VISIBLE_ENV);
            (void)gpuGetLastError();
            MCF_FAIL(e, MCF_EUNSUPPORTED,
                     "peer links: local rank %d's GPU (PCI %s) is not visible in this process "
                     "(%s=%s): every rank must see every GPU of the node",
                     j, all[j].bus, GPU_VISIBLE_ENV, v ? v : "(unset)");
        }
        if (l->dev == x->s->device)
            MCF_FAIL(e, MCF_EUNSUPPORTED,
                     "peer links: local rank %d uses this rank's GPU (PCI %s): one GPU per "
                     "rank",
                     j, all[j].bus);
    }
    free(all);
    return MCF_OK;
fail:
    free(all);
    return e->rc;
}

static int px_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct px *x = NULL;
    uint64_t *image = NULL;
    int lat = k->mode == MCF_MODE_LATENCY, sm = k->engine == MCF_ENGINE_SM, back = 0;
    if (!k->comm)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "peer links need the other ranks (no "
                           "communicator in this run)");
    MCF_ALLOC(e, x, 1);
    x->s = (struct gpu_state *)state;
    x->k = *k;
    MCF_TRY(px_find(x, e));
    for (int j = 0; j < x->n; j++) {
        struct px_link *l = &x->l[j];
        if (j == x->me) continue;
        MCF_TRY(px_enable(x, x->s->device, l->dev, &l->access, e));
        MCF_TRY(px_enable(x, l->dev, x->s->device, &back, e)); /* the copy engines' way back */
        x->measured += !sm || l->access;
    }
    if (!x->measured)
        MCF_FAIL(e, MCF_EUNSUPPORTED,
                 "peer links by the SMs: no other GPU of the node is directly accessible "
                 "from this one (%sDeviceCanAccessPeer)",
                 MCF_GPU_VENDOR);
    MCF_TRY(gx_timer_create(&x->t, e));
    x->timer = 1;
    if (lat) {
        MCF_TRY(px_order(x, e));
        if (!(image = (uint64_t *)malloc(k->bytes)))
            MCF_FAIL(e, MCF_ERUNTIME, "out of memory for a %llu-byte chain",
                     (unsigned long long)k->bytes);
        for (int j = 0; j < x->n; j++)
            if (j != x->me && x->l[j].access) MCF_TRY(px_chain(x, x->l[j].dev, &x->l[j], image, e));
        MCF_TRY(px_chain(x, x->s->device, &x->local, image, e));
        GPU_TRY(e, gpuMalloc((void **)&x->end, sizeof *x->end));
        GPU_TRY(e, gpuMalloc((void **)&x->clk, sizeof *x->clk));
        free(image);
        image = NULL;
    } else {
        if (k->direction != MCF_DIR_IN)
            MCF_TRY(px_alloc(x, x->s->device, GX_SID_PEER(x->me), &x->mine_src, e));
        for (int j = 0; j < x->n; j++) {
            struct px_link *l = &x->l[j];
            if (j == x->me || (sm && !l->access)) continue;
            if (k->direction != MCF_DIR_OUT) {
                MCF_TRY(px_alloc(x, l->dev, GX_SID_PEER(j), &l->src, e));
                MCF_TRY(px_alloc(x, x->s->device, 0, &l->mine_dst, e));
            }
            if (k->direction != MCF_DIR_IN) MCF_TRY(px_alloc(x, l->dev, 0, &l->dst, e));
        }
    }
    *ks = x;
    return MCF_OK;
fail:
    free(image);
    px_free(x);
    return e->rc;
}

/* one chase of loads from l->pos on this GPU; seconds per load */
static int px_chase(struct px *x, struct px_link *l, uint64_t loads, double *per_load, double *span,
                    struct mcf_err *e)
{
    struct gpu_clock clk;
    k_px_chase<<<1, 1, 0, x->t.st[0]>>>(l->pos, loads, x->end, x->clk);
    GPU_LAUNCHED(e, "the peer latency chase");
    GPU_TRY(e, gpuStreamSynchronize(x->t.st[0]));
    GPU_TRY(e, gpuMemcpy(&l->pos, x->end, sizeof l->pos, gpuMemcpyDeviceToHost));
    GPU_TRY(e, gpuMemcpy(&clk, x->clk, sizeof clk, gpuMemcpyDeviceToHost));
    l->taken += loads;
    *span = (double)(clk.t1 - clk.t0) * 1e-9;
    *per_load = *span / (double)loads;
    return MCF_OK;
fail:
    return e->rc;
}

static int px_run_latency(struct px *x, struct mcf_sample *smp, struct mcf_err *e)
{
    uint64_t loads = x->k.iterations * x->nodes; /* iterations laps of the chain */
    double per = 0, span = 0;
    for (int j = 0; j < x->n; j++) {
        if (j == x->me || !x->l[j].access) continue;
        MCF_TRY(px_chase(x, &x->l[j], loads, &per, &span, e));
        smp->link_seconds[j] = per;
        smp->seconds += span;
    }
    return MCF_OK;
fail:
    return e->rc;
}

/* one pair's gated span, its destinations cleared first */
static int px_pair(struct px *x, int j, double *span, struct mcf_err *e)
{
    const struct mcf_kernel *k = &x->k;
    struct px_link *l = &x->l[j];
    int sm = k->engine == MCF_ENGINE_SM, both = k->direction == MCF_DIR_BOTH;
    int dir_of[2] = { k->direction == MCF_DIR_OUT ? 1 : 0, 1 }; /* 0: in, 1: out */
    if (l->mine_dst) MCF_TRY(gx_fill(l->mine_dst, k->bytes, 0, 0, x->t.st[0], e));
    if (l->dst) {
        GPU_TRY(e, gpuSetDevice(l->dev));
        MCF_TRY(gx_fill(l->dst, k->bytes, 0, 0, (gpuStream_t)0, e));
        GPU_TRY(e, gpuSetDevice(x->s->device));
    }
    {
        auto enqueue = [&](int i, gpuStream_t st, uint64_t first, uint64_t n) -> int {
            int out = dir_of[i];
            void *dst = out ? l->dst : l->mine_dst;
            const void *src = out ? x->mine_src : l->src;
            int dst_dev = out ? l->dev : x->s->device, src_dev = out ? x->s->device : l->dev;
            if (sm) { /* one kernel does every iteration: item 0 */
                if (first == 0 && n > 0) {
                    gx_copy_launch(dst, src, k->bytes, k->iterations, x->s->sms, 512, st);
                    GPU_LAUNCHED(e, "the SM copy over a peer link");
                }
                return MCF_OK;
            }
            for (uint64_t it = 0; it < n; it++)
                GPU_TRY(e, gpuMemcpyPeerAsync(dst, dst_dev, src, src_dev, k->bytes, st));
            return MCF_OK;
        fail:
            return e->rc;
        };
        MCF_TRY(gx_time(&x->t, both ? 2 : 1, sm ? 1 : k->iterations, enqueue, span, e));
    }
    return MCF_OK;
fail:
    px_home(x);
    return e->rc;
}

static int px_run(void *ks, struct mcf_sample *smp, struct mcf_err *e)
{
    struct px *x = (struct px *)ks;
    double span = 0.0;
    smp->nlinks = x->n;
    smp->units = (double)x->k.iterations;
    smp->seconds = 0.0;
    for (int j = 0; j < MCF_MAX_PEERS; j++) {
        smp->link_seconds[j] = NAN;
        smp->link_partner[j] = -1;
    }
    if (x->k.mode == MCF_MODE_LATENCY) return px_run_latency(x, smp, e);
    for (int j = 0; j < x->n; j++) {
        if (j == x->me || (x->k.engine == MCF_ENGINE_SM && !x->l[j].access)) continue;
        MCF_TRY(px_pair(x, j, &span, e));
        smp->link_seconds[j] = span / (double)x->k.iterations;
        smp->seconds += span;
    }
    return MCF_OK;
fail:
    return e->rc;
}

static int px_verify_latency(struct px *x, struct mcf_err *e)
{
    int inject = x->k.inject_fault;
    double per = 0, span = 0;
    /* the same chain in this GPU's own memory, one lap, for the message (here,
     * where every rank's chase is local: no turn needed) */
    MCF_TRY(px_chase(x, &x->local, x->nodes, &per, &span, e));
    x->local_ns = per * 1e9;
    for (int j = 0; j <= x->n; j++) { /* the peers' chains, then this GPU's own */
        struct px_link *l = j < x->n ? &x->l[j] : &x->local;
        if (!l->chain) continue;
        char *want = l->chain + x->order[l->taken % x->nodes] * PX_STRIDE;
        char *got = l->pos + (inject ? PX_STRIDE : 0); /* testing: the chase one node off */
        char where[96];
        inject = 0;
        if (j < x->n)
            snprintf(where, sizeof where, "in local rank %d's GPU (PCI %s)", j, l->bus);
        else
            snprintf(where, sizeof where, "in this GPU's own memory");
        if (got != want)
            MCF_FAIL(e, MCF_EVERIFY,
                     "peer latency chain %s: after %llu loads the chase stands at node %lld, "
                     "expected node %llu",
                     where, (unsigned long long)l->taken, (long long)((got - l->chain) / PX_STRIDE),
                     (unsigned long long)x->order[l->taken % x->nodes]);
    }
    return MCF_OK;
fail:
    return e->rc;
}

static int px_verify(void *ks, struct mcf_err *e)
{
    struct px *x = (struct px *)ks;
    const struct mcf_kernel *k = &x->k;
    int inject = k->inject_fault, len = 0;
    char what[200], note[MCF_ERRMSG_LEN] = "";
    if (k->mode == MCF_MODE_LATENCY) {
        MCF_TRY(px_verify_latency(x, e));
    } else {
        for (int j = 0; j < x->n; j++) {
            struct px_link *l = &x->l[j];
            if (l->mine_dst) {
                snprintf(what, sizeof what, "peer link in from local rank %d (PCI %s, %s)", j,
                         l->bus, mcf_engine_names[k->engine]);
                MCF_TRY(gx_check(l->mine_dst, k->bytes, k->seed, GX_SID_PEER(j), inject, what, e));
                inject = 0;
            }
            if (l->dst) {
                snprintf(what, sizeof what, "peer link out to local rank %d (PCI %s, %s)", j,
                         l->bus, mcf_engine_names[k->engine]);
                GPU_TRY(e, gpuSetDevice(l->dev));
                MCF_TRY(gx_check(l->dst, k->bytes, k->seed, GX_SID_PEER(x->me), inject, what, e));
                GPU_TRY(e, gpuSetDevice(x->s->device));
                inject = 0;
            }
        }
    }
    for (int j = 0; j < x->n && len < (int)sizeof note - 1; j++) {
        const struct px_link *l = &x->l[j];
        if (j == x->me) continue;
        len += snprintf(
            note + len, sizeof note - (size_t)len, "%slocal rank %d: PCI %s, %s%s", len ? "; " : "",
            j, l->bus, l->access ? "direct" : "no direct access (copies staged by the runtime)",
            !l->access && (k->engine == MCF_ENGINE_SM) ? ", not measured by the SMs" : "");
    }
    if (k->mode == MCF_MODE_LATENCY && len < (int)sizeof note - 1)
        snprintf(note + len, sizeof note - (size_t)len,
                 "; the same chain in this GPU's own memory: %.0f ns per "
                 "load",
                 x->local_ns);
    snprintf(e->msg, sizeof e->msg, "%s", note);
    return MCF_OK;
fail:
    px_home(x);
    return e->rc;
}

static void px_teardown(void *ks)
{
    px_free((struct px *)ks);
}

GPU_HOST_OPS(gpu_xfer_peer_ops, px_setup, px_run, px_verify, px_teardown);
