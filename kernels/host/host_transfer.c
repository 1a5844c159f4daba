/* The transfer family on the host backend, so that the suite drives every
 * link through the same runner, recorder and report as a GPU's:
 *   host        the rank's "device" buffer and a "host" buffer in its
 *               memory: memcpy by one thread (the copy engine's part) or a
 *               team of threads copying slices (the SMs' part);
 *   peer        a node-shared segment per rank (MPI shared memory): this
 *               rank's data copied into local rank j's receive area, or j's
 *               data into its own; latency: a dependent chase through j's
 *               chain;
 *   collective  MPI's own allreduce, allgather, reduce_scatter (its link);
 *   network     link/network.c, as on every backend.
 * Sources hold a pattern from the seed; every destination is checked
 * against the pattern its source was given, computed again here. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clocksync.h"
#include "comm.h"
#include "counter_rng.h"
#include "host.h"
#include "network.h"

#define CHAIN_STRIDE 64 /* bytes between chased slots: one cache line */

/* word i of the data rank r's buffer `which` holds */
static uint64_t pattern(uint64_t seed, int r, int which, size_t i)
{
    return mcf_counter_bits(seed, 0x7472ull + 4u * (uint64_t)r + (uint64_t)which, i, 0);
}

static void fill(uint64_t *p, size_t words, uint64_t seed, int r, int which)
{
    for (size_t i = 0; i < words; i++) p[i] = pattern(seed, r, which, i);
}

/* NULL, or the first word of p that is not source (r, which)'s */
static const char *mismatch(const uint64_t *p, size_t words, uint64_t seed, int r, int which,
                            char *buf, size_t len)
{
    for (size_t i = 0; i < words; i++)
        if (p[i] != pattern(seed, r, which, i)) {
            snprintf(buf, len, "word %zu is %#llx, the source held %#llx", i,
                     (unsigned long long)p[i], (unsigned long long)pattern(seed, r, which, i));
            return buf;
        }
    return NULL;
}

/* ---- one copy job for a team: up to two directions, each split among its workers ---- */
struct copy_job {
    uint64_t *dst[2];
    const uint64_t *src[2];
    size_t words;
    int ndir, per_dir; /* directions, workers per direction */
    uint64_t times;
};

static void copy_work(void *arg, int worker, int nworkers)
{
    struct copy_job *j = arg;
    (void)nworkers;
    int d = worker / j->per_dir, part = worker % j->per_dir;
    if (d >= j->ndir) return;
    size_t lo = j->words * (size_t)part / (size_t)j->per_dir,
           hi = j->words * (size_t)(part + 1) / (size_t)j->per_dir;
    for (uint64_t t = 0; t < j->times; t++) {
        if (j->per_dir == 1) {
            memcpy(j->dst[d] + lo, j->src[d] + lo,
                   (hi - lo) * 8); /* one engine: one stream of bytes */
        } else {
            uint64_t *dst = j->dst[d];
            const uint64_t *src = j->src[d];
            for (size_t i = lo; i < hi; i++) /* the SMs: every worker its words */
                dst[i] = src[i];
        }
        __asm__ __volatile__("" ::: "memory"); /* each time is a copy, not folded into one */
    }
}

/* Runs the job; the span from the first worker's start to the last one's end. */
static int run_copies(struct copy_job *j, int engine_workers, double *seconds, struct mcf_err *e)
{
    double start[2 * 64], end[2 * 64];
    j->per_dir = engine_workers < 1 ? 1 : engine_workers > 64 ? 64 : engine_workers;
    int n = j->ndir * j->per_dir;
    MCF_TRY(host_team_run(n, copy_work, j, start, end, e));
    double a = start[0], b = end[0];
    for (int i = 1; i < n; i++) {
        a = start[i] < a ? start[i] : a;
        b = end[i] > b ? end[i] : b;
    }
    *seconds = b - a;
    return MCF_OK;
fail:
    return e->rc;
}

/* ---- the state of one test ---- */
struct xfer {
    struct mcf_kernel k;
    size_t words;
    int workers;
    uint64_t *dev[2], *host[2]; /* link host: [0] into the device, [1] out of it */
    void *shared, **seg; /* link peer: the node's segments, seg[j] = local rank j's */
    double *coll_in, *coll_out; /* link collective */
    size_t coll_count; /* elements per rank's block */
    int coll_n, coll_me;
    char bad[320];
};

static int host_link_setup(struct xfer *x, struct mcf_err *e)
{
    if (x->k.host_memory == MCF_NUMA_REMOTE)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "host_memory: remote is not measured on the "
                           "host backend (its buffers are all the rank's own memory)");
    for (int d = 0; d < 2; d++) {
        if (!(x->dev[d] = malloc(x->words * 8)) || !(x->host[d] = malloc(x->words * 8)))
            return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                               "out of memory for the %zu-byte buffers", x->words * 8);
        fill(x->host[d], x->words, x->k.seed, x->k.comm ? x->k.comm->rank : 0,
             0); /* into the device */
        fill(x->dev[d], x->words, x->k.seed, x->k.comm ? x->k.comm->rank : 0, 1); /* out of it */
    }
    return MCF_OK;
}

static int host_link_run(struct xfer *x, struct mcf_sample *s, struct mcf_err *e)
{
    struct copy_job j = { .words = x->words, .times = x->k.iterations };
    if (x->k.direction != MCF_DIR_OUT) {
        j.dst[j.ndir] = x->dev[0];
        j.src[j.ndir++] = x->host[0];
    }
    if (x->k.direction != MCF_DIR_IN) {
        j.dst[j.ndir] = x->host[1];
        j.src[j.ndir++] = x->dev[1];
    }
    int w = x->k.engine == MCF_ENGINE_SM ? (x->workers > 1 ? x->workers / j.ndir : 1) : 1;
    MCF_TRY(run_copies(&j, w < 1 ? 1 : w, &s->seconds, e));
    s->units = (double)x->k.iterations;
    return MCF_OK;
fail:
    return e->rc;
}

static int host_link_verify(struct xfer *x, struct mcf_err *e)
{
    char buf[200];
    int r = x->k.comm ? x->k.comm->rank : 0;
    const char *why;
    if (x->k.inject_fault)
        x->k.direction == MCF_DIR_OUT ? (x->host[1][x->words / 2] ^= 4)
                                      : (x->dev[0][x->words / 2] ^= 4);
    if (x->k.direction != MCF_DIR_OUT &&
        (why = mismatch(x->dev[0], x->words, x->k.seed, r, 0, buf, sizeof buf)))
        return mcf_err_set(e, MCF_EVERIFY, __FILE__, __LINE__, "host to device: %s", why);
    if (x->k.direction != MCF_DIR_IN &&
        (why = mismatch(x->host[1], x->words, x->k.seed, r, 1, buf, sizeof buf)))
        return mcf_err_set(e, MCF_EVERIFY, __FILE__, __LINE__, "device to host: %s", why);
    return MCF_OK;
}

/* ---- peer: the node's shared segments ---- */
static size_t chain_slots(const struct xfer *x)
{
    return x->words * 8 / CHAIN_STRIDE;
}

/* the chain local rank j lays: a cycle through its slots in a random order */
static int chain_order(uint64_t seed, int j, size_t slots, uint64_t **out, struct mcf_err *e)
{
    uint64_t *o = malloc(slots * sizeof *o);
    if (!o)
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                           "out of memory for a chain of %zu slots", slots);
    for (size_t i = 0; i < slots; i++) o[i] = i;
    for (size_t i = slots - 1; i > 0; i--) { /* Fisher-Yates from the counter generator */
        size_t r = (size_t)(mcf_counter_bits(seed, 0x636861ull + (uint64_t)j, i, 0) % (i + 1));
        uint64_t t = o[i];
        o[i] = o[r];
        o[r] = t;
    }
    *out = o;
    return MCF_OK;
}

static int peer_setup(struct xfer *x, struct mcf_err *e)
{
    const struct mcf_comm *c = x->k.comm;
    uint64_t *mine, *order = NULL;
    if (c->local_size < 2)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "this node has one rank: no peer to reach");
    if (!(x->seg = calloc((size_t)c->local_size, sizeof *x->seg)))
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory");
    MCF_TRY(c->node_alloc(c->ctx, 2 * x->words * 8, (void **)&mine, x->seg, &x->shared, e));
    if (x->k.mode == MCF_MODE_LATENCY) {
        size_t slots = chain_slots(x);
        MCF_TRY(chain_order(x->k.seed, c->local_rank, slots, &order, e));
        for (size_t t = 0; t < slots; t++)
            mine[order[t] * (CHAIN_STRIDE / 8)] = order[(t + 1) % slots];
        free(order);
    } else {
        fill(mine, x->words, x->k.seed, c->rank, 2);
    }
    /* the peers' segments are read from the first turn on: all laid first */
    return c->barrier(c->ctx, MCF_SCOPE_NODE, e);
fail:
    return e->rc;
}

static void peer_check(struct xfer *x, const uint64_t *p, int from_local, const char *what)
{
    char buf[200];
    const struct mcf_comm *c = x->k.comm;
    int from = c->rank_at[c->node * c->max_local + from_local];
    if (x->bad[0]) return;
    if (x->k.inject_fault) ((uint64_t *)p)[x->words / 3] ^= 8;
    const char *why = mismatch(p, x->words, x->k.seed, from, 2, buf, sizeof buf);
    if (why) snprintf(x->bad, sizeof x->bad, "%s local rank %d: %s", what, from_local, why);
}

static int peer_run(struct xfer *x, struct mcf_sample *s, struct mcf_err *e)
{
    const struct mcf_comm *c = x->k.comm;
    int me = c->local_rank;
    uint64_t *own = x->seg[me];
    s->nlinks = c->local_size;
    s->seconds = 0.0;
    for (int j = 0; j < c->local_size && j < MCF_MAX_PEERS; j++) {
        s->link_seconds[j] = NAN;
        if (j == me) continue;
        uint64_t *peer = x->seg[j];
        double dt;
        if (x->k.mode == MCF_MODE_LATENCY) {
            size_t slots = chain_slots(x), at = 0;
            uint64_t steps = x->k.iterations * (uint64_t)slots;
            double t0 = mcf_now();
            for (uint64_t i = 0; i < steps; i++)
                at = (size_t)((volatile uint64_t *)peer)[at * (CHAIN_STRIDE / 8)];
            dt = mcf_now() - t0;
            s->link_seconds[j] = dt / (double)steps;
            own[x->words + (size_t)j] =
                at; /* where it ended, for the check (the receive area is unused) */
        } else {
            struct copy_job jb = { .words = x->words, .times = x->k.iterations };
            if (x->k.direction != MCF_DIR_IN) { /* out: its data into j's receive area */
                jb.dst[jb.ndir] = peer + x->words;
                jb.src[jb.ndir++] = own;
            }
            if (x->k.direction != MCF_DIR_OUT) { /* in: j's data into its own receive area */
                jb.dst[jb.ndir] = own + x->words;
                jb.src[jb.ndir++] = peer;
            }
            int w = x->k.engine == MCF_ENGINE_SM ? (x->workers > 1 ? x->workers / jb.ndir : 1) : 1;
            MCF_TRY(run_copies(&jb, w < 1 ? 1 : w, &dt, e));
            s->link_seconds[j] = dt / (double)x->k.iterations;
            if (x->k.direction != MCF_DIR_IN)
                peer_check(x, peer + x->words, me, "what this rank wrote to");
            if (x->k.direction != MCF_DIR_OUT)
                peer_check(x, own + x->words, j, "what this rank read from");
        }
        s->seconds += dt;
    }
    s->units = (double)x->k.iterations;
    return MCF_OK;
fail:
    return e->rc;
}

static int peer_verify(struct xfer *x, struct mcf_err *e)
{
    const struct mcf_comm *c = x->k.comm;
    if (x->bad[0]) return mcf_err_set(e, MCF_EVERIFY, __FILE__, __LINE__, "peer: %s", x->bad);
    if (x->k.mode != MCF_MODE_LATENCY) return MCF_OK;
    size_t slots = chain_slots(x);
    uint64_t steps = x->k.iterations * (uint64_t)slots;
    for (int j = 0; j < c->local_size && j < MCF_MAX_PEERS; j++) {
        uint64_t *order = NULL;
        if (j == c->local_rank) continue;
        MCF_TRY(chain_order(x->k.seed, j, slots, &order, e));
        size_t t0 = 0; /* the chase starts at slot 0: where 0 is in the cycle */
        while (order[t0] != 0) t0++;
        uint64_t want = order[(t0 + steps) % slots],
                 got = ((uint64_t *)x->seg[c->local_rank])[x->words + (size_t)j];
        free(order);
        if (x->k.inject_fault) got ^= 1;
        if (got != want)
            return mcf_err_set(e, MCF_EVERIFY, __FILE__, __LINE__,
                               "peer latency: the chase through local rank "
                               "%d's chain ended at slot %llu, its chain leads to %llu",
                               j, (unsigned long long)got, (unsigned long long)want);
    }
    return MCF_OK;
fail:
    return e->rc;
}

/* ---- collective: MPI's ---- */
static double coll_value(uint64_t seed, int r, size_t i)
{
    return (double)((i * 7 + (uint64_t)r * 13 + seed) % 17) -
        8.0; /* small integers: every sum exact */
}

static int coll_setup(struct xfer *x, struct mcf_err *e)
{
    const struct mcf_comm *c = x->k.comm;
    int node = x->k.scope == MCF_SCOPE_NODE;
    size_t all = (size_t)(x->k.bytes / 8), in, out;
    x->coll_n = node ? c->local_size : c->size;
    x->coll_me = node ? c->local_rank : c->rank;
    if (x->coll_n < 2)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "a collective of one rank moves nothing (the %s "
                           "has one rank)",
                           mcf_scope_names[x->k.scope]);
    if (x->k.collective == MCF_COLL_ALLREDUCE) {
        x->coll_count = all;
        in = out = all;
    } else { /* the size rounded down to whole blocks, as nccl-tests does */
        x->coll_count = all / (size_t)x->coll_n;
        in = x->k.collective == MCF_COLL_ALLGATHER ? x->coll_count
                                                   : x->coll_count * (size_t)x->coll_n;
        out = x->k.collective == MCF_COLL_ALLGATHER ? x->coll_count * (size_t)x->coll_n
                                                    : x->coll_count;
    }
    if (x->coll_count == 0)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "%llu bytes split among %d ranks leaves none to "
                           "each",
                           (unsigned long long)x->k.bytes, x->coll_n);
    if (!(x->coll_in = malloc(in * 8)) || !(x->coll_out = calloc(out, 8)))
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                           "out of memory for the collective's buffers");
    size_t base = x->k.collective == MCF_COLL_ALLGATHER ? (size_t)x->coll_me * x->coll_count : 0;
    for (size_t i = 0; i < in; i++) x->coll_in[i] = coll_value(x->k.seed, x->coll_me, base + i);
    return MCF_OK;
}

static int coll_run(struct xfer *x, struct mcf_sample *s, struct mcf_err *e)
{
    const struct mcf_comm *c = x->k.comm;
    double t0 = mcf_now();
    for (uint64_t i = 0; i < x->k.iterations; i++) {
        double a = mcf_now();
        MCF_TRY(c->collective(c->ctx, x->k.scope, x->k.collective, x->coll_in, x->coll_out,
                              x->coll_count, e));
        if (x->k.inject_slow > 1) /* testing (inject.h): this rank late to every next one */
            mcf_link_sleep((x->k.inject_slow - 1) * (mcf_now() - a));
    }
    s->seconds = mcf_now() - t0;
    s->coll_ranks = x->coll_n;
    /* the bytes moved: the size rounded down to whole blocks */
    double moved = x->k.collective == MCF_COLL_ALLREDUCE ? (double)x->coll_count * 8
                                                         : (double)x->coll_count * 8 * x->coll_n;
    s->units = (double)x->k.iterations * moved / (double)x->k.bytes;
    return MCF_OK;
fail:
    return e->rc;
}

static int coll_verify(struct xfer *x, struct mcf_err *e)
{
    size_t c = x->coll_count, n = x->k.collective == MCF_COLL_ALLGATHER ? c * (size_t)x->coll_n : c;
    if (x->k.inject_fault) x->coll_out[n / 2] += 1.0;
    for (size_t i = 0; i < n; i++) {
        double want = 0.0;
        if (x->k.collective == MCF_COLL_ALLGATHER)
            want = coll_value(x->k.seed, (int)(i / c), i);
        else
            for (int r = 0; r < x->coll_n; r++)
                want += coll_value(
                    x->k.seed, r,
                    (x->k.collective == MCF_COLL_REDUCESCATTER ? (size_t)x->coll_me * c : 0) + i);
        if (x->coll_out[i] != want)
            return mcf_err_set(e, MCF_EVERIFY, __FILE__, __LINE__,
                               "%s: element %zu is %.17g, expected %.17g",
                               mcf_collective_names[x->k.collective], i, x->coll_out[i], want);
    }
    return MCF_OK;
}

/* ---- the table: each link's part ---- */
static void tr_teardown(void *ks)
{
    struct xfer *x = ks;
    if (!x) return;
    for (int d = 0; d < 2; d++) {
        free(x->dev[d]);
        free(x->host[d]);
    }
    if (x->shared) x->k.comm->node_free(x->k.comm->ctx, x->shared);
    free(x->seg);
    free(x->coll_in);
    free(x->coll_out);
    free(x);
}

static int tr_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct xfer *x = calloc(1, sizeof *x);
    if (!x) return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory");
    x->k = *k;
    x->words = (size_t)(k->bytes / 8);
    x->workers = host_workers(state, k);
    *ks = x;
    if (k->link != MCF_LINK_HOST &&
        !k->comm) { /* (the network is link/network.c's: host_transfer_ops) */
        mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "no other ranks to reach (no comm)");
        goto fail;
    }
    switch (k->link) {
    case MCF_LINK_HOST: MCF_TRY(host_link_setup(x, e)); break;
    case MCF_LINK_PEER: MCF_TRY(peer_setup(x, e)); break;
    default: MCF_TRY(coll_setup(x, e)); break;
    }
    return MCF_OK;
fail:
    tr_teardown(x);
    *ks = NULL;
    return e->rc;
}

static int tr_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    struct xfer *x = ks;
    switch (x->k.link) {
    case MCF_LINK_HOST: return host_link_run(x, s, e);
    case MCF_LINK_PEER: return peer_run(x, s, e);
    default: return coll_run(x, s, e);
    }
}

static int tr_verify(void *ks, struct mcf_err *e)
{
    struct xfer *x = ks;
    switch (x->k.link) {
    case MCF_LINK_HOST: return host_link_verify(x, e);
    case MCF_LINK_PEER: return peer_verify(x, e);
    default: return coll_verify(x, e);
    }
}

static const struct mcf_kernel_ops host_links_ops = {
    .setup = tr_setup, .run = tr_run, .verify = tr_verify, .teardown = tr_teardown
};

/* the network is every backend's (link/network.c); the other links are these */
static int links_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    return mcf_forward_setup(k->link == MCF_LINK_NETWORK ? &mcf_network_ops : &host_links_ops,
                             state, k, ks, e);
}

const struct mcf_kernel_ops host_transfer_ops = { .setup = links_setup,
                                                  .run = mcf_forward_run,
                                                  .verify = mcf_forward_verify,
                                                  .teardown = mcf_forward_teardown };
