/* Pointer-chase latency: working_set / stride nodes linked into one random
 * cycle (Sattolo's shuffle), chased by one thread. The reference is the
 * shuffled order itself: after T loads from order[p0] the chase must stand at
 * order[(p0 + T) mod nodes]. */
#include <stdlib.h>
#include <string.h>

#include "clocksync.h"
#include "host.h"

struct chase {
    struct mcf_kernel k;
    char *buf;
    uint64_t nodes, steps, taken;
    uint64_t *order; /* node visited i-th */
    void **pos; /* where the chase stands between runs */
};

static void *chase_run(void *p, uint64_t steps)
{
    void **q = p;
    for (uint64_t i = 0; i < steps; i++) q = (void **)*q;
    return q;
}

/* Enough loads to dwarf the timer: 2^20, at least one lap of every set up to
 * 2^20 nodes (64 MiB at stride 64). No more for larger sets: a lap of 256 MiB
 * is 4 M loads that miss every cache and the TLB, 200-250 ns each on a 2-core
 * EPYC VM (a second a repetition, 12 s of the default deck), and they would
 * miss either way; the chase goes on where the last repetition stopped, so
 * the repetitions still go round the whole cycle. (The GPU kernel runs a lap:
 * milliseconds there.) */
uint64_t host_chase_steps(const struct mcf_kernel *k)
{
    return k->iterations ? k->iterations : (uint64_t)1 << 20;
}

static int latency_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct chase *c = NULL;
    (void)state;
    if (k->stride < sizeof(void *) || k->stride % sizeof(void *))
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "pointer chase stride %u must be a multiple of %zu", k->stride,
                           sizeof(void *));
    MCF_ALLOC(e, c, 1);
    c->k = *k;
    c->nodes = k->working_set / k->stride;
    if (c->nodes < 2)
        MCF_FAIL(e, MCF_EINPUT, "working set %llu with stride %u holds fewer than 2 nodes",
                 (unsigned long long)k->working_set, k->stride);
    c->steps = host_chase_steps(k);
    if (posix_memalign((void **)&c->buf, 4096, c->nodes * k->stride) != 0)
        MCF_FAIL(e, MCF_ERUNTIME, "cannot allocate %llu bytes", (unsigned long long)k->working_set);
    memset(c->buf, 0, c->nodes * k->stride);
    MCF_ALLOC(e, c->order, c->nodes);
    mcf_chase_order(c->order, c->nodes, k->seed);
    for (uint64_t i = 0; i < c->nodes; i++) {
        void **node = (void **)(c->buf + c->order[i] * k->stride);
        *node = c->buf + c->order[(i + 1) % c->nodes] * k->stride;
        /* linking a large set takes a while: a SIGTERM must not wait for it */
        if ((i & 0xffff) == 0xffff && mcf_cut_due(k->cut))
            MCF_FAIL(e, MCF_ECUT, "cut while linking the chase (%llu of %llu nodes)",
                     (unsigned long long)i, (unsigned long long)c->nodes);
    }
    c->pos = (void **)(c->buf + c->order[0] * k->stride);
    *ks = c;
    return MCF_OK;
fail:
    if (c) {
        free(c->buf);
        free(c->order);
        free(c);
    }
    return e->rc;
}

static int latency_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    struct chase *c = ks;
    const uint64_t chunk = host_chunk(64); /* a load may miss every cache: ~100 ns */
    uint64_t done = 0;
    double t0 = mcf_now();
    while (done < c->steps) {
        uint64_t n = c->steps - done < chunk ? c->steps - done : chunk;
        if (mcf_cut_due(c->k.cut)) break;
        c->pos = chase_run(c->pos, n);
        done += n;
    }
    s->seconds = mcf_now() - t0;
    s->units = (double)c->steps;
    c->taken += done; /* the chase stays verifiable: it must stand where `taken` loads lead */
    s->cut = done < c->steps;
    (void)e;
    return MCF_OK;
}

static int latency_verify(void *ks, struct mcf_err *e)
{
    struct chase *c = ks;
    if (c->k.inject_fault) c->pos = (void **)*c->pos; /* one step too many */
    char *want = c->buf + c->order[c->taken % c->nodes] * c->k.stride;
    if ((char *)c->pos != want)
        return mcf_err_set(
            e, MCF_EVERIFY, __FILE__, __LINE__,
            "pointer chase over %llu nodes ended at node %lld after %llu loads, expected node %llu",
            (unsigned long long)c->nodes, (long long)(((char *)c->pos - c->buf) / c->k.stride),
            (unsigned long long)c->taken, (unsigned long long)c->order[c->taken % c->nodes]);
    return MCF_OK;
}

static void latency_teardown(void *ks)
{
    struct chase *c = ks;
    free(c->buf);
    free(c->order);
    free(c);
}

const struct mcf_kernel_ops host_latency_ops = { latency_setup, latency_run, latency_verify,
                                                 latency_teardown };
