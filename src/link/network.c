/* The network test (network.h): each round, every rank exchanges `bytes`
 * (latency mode: 8 bytes) with its partner, k->iterations times back to back
 * on the host's monotonic clock, after a job-wide barrier that starts the
 * round's pairs together (the fabric loaded as a job loads it). What arrived
 * is checked against the partner's pattern each round, outside the timing. */
#define _GNU_SOURCE
#include "network.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clocksync.h"
#include "comm.h"
#include "counter_rng.h"

#define LATENCY_BYTES 8

int mcf_network_partner(const struct mcf_comm *c, int round)
{
    if (!c || c->nnodes < 2) return -1;
    int p = (int)(((long long)round + 1 - c->node) % c->nnodes);
    if (p < 0) p += c->nnodes;
    if (p == c->node) return -1;
    return c->rank_at[p * c->max_local + c->local_rank];
}

struct net {
    struct mcf_kernel k;
    size_t len, words;
    uint64_t *send, *recv;
    char bad[256]; /* the first mismatch seen, checked in verify */
};

/* word i of what world rank r sends */
static uint64_t pattern(uint64_t seed, int r, size_t i)
{
    return mcf_counter_bits(seed, 0x6e6574ull + (uint64_t)r, i, 0);
}

static int net_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    (void)state;
    struct net *n = NULL;
    if (!k->comm)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "no other ranks to reach (no comm)");
    if (k->comm->nnodes < 2)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "the job has one node: the network test needs "
                           "ranks on two nodes or more");
    MCF_ALLOC(e, n, 1);
    n->k = *k;
    n->len = k->mode == MCF_MODE_LATENCY ? LATENCY_BYTES : (size_t)k->bytes;
    n->words = (n->len + 7) / 8;
    if (!(n->send = malloc(n->words * 8)) || !(n->recv = malloc(n->words * 8)))
        MCF_FAIL(e, MCF_ERUNTIME, "out of memory for two network buffers of %zu bytes", n->len);
    for (size_t i = 0; i < n->words; i++) n->send[i] = pattern(k->seed, k->comm->rank, i);
    *ks = n;
    return MCF_OK;
fail:
    if (n) {
        free(n->send);
        free(n->recv);
    }
    free(n);
    return e->rc;
}

static void check_round(struct net *n, int partner, int round)
{
    if (n->bad[0]) return;
    size_t whole = n->len / 8;
    for (size_t i = 0; i < whole; i++)
        if (n->recv[i] != pattern(n->k.seed, partner, i)) {
            snprintf(n->bad, sizeof n->bad,
                     "round %d: word %zu (byte %zu) from rank %d is %#llx, it sent %#llx", round, i,
                     8 * i, partner, (unsigned long long)n->recv[i],
                     (unsigned long long)pattern(n->k.seed, partner, i));
            return;
        }
}

void mcf_link_sleep(double s)
{
    if (!(s > 0)) return;
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int net_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    struct net *n = ks;
    const struct mcf_comm *c = n->k.comm;
    int rounds = n->k.rounds < MCF_MAX_PEERS ? n->k.rounds : MCF_MAX_PEERS;
    s->nlinks = rounds;
    s->seconds = 0.0;
    s->units = 0.0;
    for (int r = 0; r < rounds; r++) {
        int partner = mcf_network_partner(c, r);
        s->link_partner[r] = partner;
        s->link_seconds[r] = NAN;
        MCF_TRY(c->barrier(c->ctx, MCF_SCOPE_JOB, e));
        if (partner < 0) continue;
        if (n->k.inject_fault && r == 0) /* testing: what arrives is not what was sent */
            n->send[0] ^= 1;
        double t0 = mcf_now();
        for (uint64_t it = 0; it < n->k.iterations; it++) {
            double a = mcf_now();
            MCF_TRY(c->exchange(c->ctx, partner, n->send, n->recv, n->len, e));
            if (n->k.inject_slow > 1) /* testing (inject.h): this rank's side of the link is slow */
                mcf_link_sleep((n->k.inject_slow - 1) * (mcf_now() - a));
        }
        double dt = mcf_now() - t0;
        if (n->k.inject_fault && r == 0) n->send[0] ^= 1;
        s->link_seconds[r] = dt / (double)n->k.iterations;
        s->seconds += dt;
        s->units += (double)n->k.iterations;
        check_round(n, partner, r);
    }
    return MCF_OK;
fail:
    return e->rc;
}

static int net_verify(void *ks, struct mcf_err *e)
{
    struct net *n = ks;
    if (n->bad[0]) return mcf_err_set(e, MCF_EVERIFY, __FILE__, __LINE__, "network: %s", n->bad);
    return MCF_OK;
}

static void net_teardown(void *ks)
{
    struct net *n = ks;
    if (!n) return;
    free(n->send);
    free(n->recv);
    free(n);
}

const struct mcf_kernel_ops mcf_network_ops = {
    .setup = net_setup, .run = net_run, .verify = net_verify, .teardown = net_teardown
};
