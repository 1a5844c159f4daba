/* struct mcf_comm over MPI (comm.h): non-blocking collectives polled
 * against the test's deadline, so that a missing rank costs a test, never
 * the run. */
#define _GNU_SOURCE
#include "comm_mpi.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clocksync.h"

#define EXCHANGE_TAG 2929
#define SPIN_S 2e-3 /* poll without yielding this long: a network latency is timed through it */

struct mcf_comm_mpi {
    MPI_Comm world, node; /* duplicates: an abandoned request never meets the runner's messages */
    const struct mcf_cut *cut;
    int broken;
    char broken_what[96];
    int *rank_at;
};

static MPI_Comm scope_comm(const struct mcf_comm_mpi *x, enum mcf_scope s)
{
    return s == MCF_SCOPE_NODE ? x->node : x->world;
}

static int refuse_broken(const struct mcf_comm_mpi *x, const char *what, struct mcf_err *e)
{
    return mcf_err_set(e, MCF_ECUT, __FILE__, __LINE__,
                       "%s not tried: an earlier call among the ranks (%s) was "
                       "abandoned, so their link calls cannot be matched any more",
                       what, x->broken_what);
}

/* Waits for n requests until the test's deadline (at most MCF_COMM_WAIT_S)
 * or a stop; past it the communicator is broken for the rest of the run. */
static int wait_all(struct mcf_comm_mpi *x, int n, MPI_Request *req, const char *what,
                    struct mcf_err *e)
{
    double t0 = mcf_now(), limit = t0 + MCF_COMM_WAIT_S;
    if (x->cut && x->cut->deadline < limit) limit = x->cut->deadline;
    for (;;) {
        int done = 0;
        MCF_MPI(e, MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE));
        if (done) return MCF_OK;
        double now = mcf_now();
        if (mcf_stop_signal() || now > limit) {
            x->broken = 1;
            snprintf(x->broken_what, sizeof x->broken_what, "%s", what);
            return mcf_err_set(e, MCF_ECUT, __FILE__, __LINE__,
                               "%s: gave up after %.1f s waiting for the other "
                               "ranks (%s)",
                               what, now - t0,
                               mcf_stop_signal()
                                   ? "a stop"
                                   : "the test's time limit or the link calls' limit of 120 s");
        }
        if (now - t0 > SPIN_S) /* a loaded node: let the ranks that work have the CPU */
            mcf_link_sleep(50e-6);
    }
fail:
    return e->rc;
}

static int c_barrier(void *ctx, enum mcf_scope s, struct mcf_err *e)
{
    struct mcf_comm_mpi *x = ctx;
    MPI_Request r;
    if (x->broken) return refuse_broken(x, "a barrier", e);
    MCF_MPI(e, MPI_Ibarrier(scope_comm(x, s), &r));
    return wait_all(x, 1, &r, "a barrier", e);
fail:
    return e->rc;
}

static int c_bcast(void *ctx, enum mcf_scope s, void *buf, size_t len, int root, struct mcf_err *e)
{
    struct mcf_comm_mpi *x = ctx;
    MPI_Request r;
    if (x->broken) return refuse_broken(x, "a broadcast", e);
    if (len > INT_MAX)
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                           "a broadcast of %zu bytes: above 2 GiB", len);
    MCF_MPI(e, MPI_Ibcast(buf, (int)len, MPI_BYTE, root, scope_comm(x, s), &r));
    return wait_all(x, 1, &r, "a broadcast", e);
fail:
    return e->rc;
}

static int c_allgather(void *ctx, enum mcf_scope s, const void *mine, void *all, size_t len,
                       struct mcf_err *e)
{
    struct mcf_comm_mpi *x = ctx;
    MPI_Request r;
    if (x->broken) return refuse_broken(x, "an allgather", e);
    if (len > INT_MAX)
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                           "an allgather of %zu bytes: above 2 GiB", len);
    MCF_MPI(
        e, MPI_Iallgather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, scope_comm(x, s), &r));
    return wait_all(x, 1, &r, "an allgather", e);
fail:
    return e->rc;
}

static int c_collective(void *ctx, enum mcf_scope s, enum mcf_collective c, const double *send,
                        double *recv, size_t count, struct mcf_err *e)
{
    struct mcf_comm_mpi *x = ctx;
    MPI_Comm comm = scope_comm(x, s);
    MPI_Request r;
    if (x->broken) return refuse_broken(x, mcf_collective_names[c], e);
    if (count > INT_MAX)
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                           "%s of %zu elements: above MPI's int count", mcf_collective_names[c],
                           count);
    switch (c) {
    case MCF_COLL_ALLREDUCE:
        MCF_MPI(e, MPI_Iallreduce(send, recv, (int)count, MPI_DOUBLE, MPI_SUM, comm, &r));
        break;
    case MCF_COLL_ALLGATHER:
        MCF_MPI(
            e,
            MPI_Iallgather(send, (int)count, MPI_DOUBLE, recv, (int)count, MPI_DOUBLE, comm, &r));
        break;
    default:
        MCF_MPI(e,
                MPI_Ireduce_scatter_block(send, recv, (int)count, MPI_DOUBLE, MPI_SUM, comm, &r));
        break;
    }
    return wait_all(x, 1, &r, mcf_collective_names[c], e);
fail:
    return e->rc;
}

static int c_exchange(void *ctx, int peer, const void *send, void *recv, size_t len,
                      struct mcf_err *e)
{
    struct mcf_comm_mpi *x = ctx;
    MPI_Request r[2];
    if (x->broken) return refuse_broken(x, "an exchange", e);
    if (len > INT_MAX)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "a network message of %zu bytes: 2 GiB at most", len);
    MCF_MPI(e, MPI_Irecv(recv, (int)len, MPI_BYTE, peer, EXCHANGE_TAG, x->world, &r[0]));
    MCF_MPI(e, MPI_Isend(send, (int)len, MPI_BYTE, peer, EXCHANGE_TAG, x->world, &r[1]));
    return wait_all(x, 2, r, "an exchange with a partner rank", e);
fail:
    return e->rc;
}

struct shared {
    MPI_Win win;
};

static int c_node_alloc(void *ctx, size_t bytes, void **mine, void **all, void **handle,
                        struct mcf_err *e)
{
    struct mcf_comm_mpi *x = ctx;
    struct shared *sh = NULL;
    int n = 0;
    *handle = NULL;
    if (x->broken) return refuse_broken(x, "a node allocation", e);
    /* every rank of the node here first: the allocation itself blocks */
    MCF_TRY(c_barrier(ctx, MCF_SCOPE_NODE, e));
    MCF_ALLOC(e, sh, 1);
    MCF_MPI(e, MPI_Win_allocate_shared((MPI_Aint)bytes, 1, MPI_INFO_NULL, x->node, mine, &sh->win));
    MCF_MPI(e, MPI_Comm_size(x->node, &n));
    for (int i = 0; i < n; i++) {
        MPI_Aint size;
        int unit;
        MCF_MPI(e, MPI_Win_shared_query(sh->win, i, &size, &unit, &all[i]));
    }
    *handle = sh;
    return MCF_OK;
fail:
    free(sh); /* a window made half way is left to MPI_Finalize: freeing it is collective */
    return e->rc;
}

static void c_node_free(void *ctx, void *handle)
{
    struct mcf_comm_mpi *x = ctx;
    struct shared *sh = handle;
    struct mcf_err e = { 0 };
    if (!sh) return;
    /* freeing blocks: only where every rank of the node is known to come */
    if (!x->broken && c_barrier(ctx, MCF_SCOPE_NODE, &e) == MCF_OK) MPI_Win_free(&sh->win);
    free(sh);
}

int mcf_comm_mpi_init(struct mcf_comm *c, const struct mcf_topo *t, const struct mcf_cut *cut,
                      struct mcf_err *e)
{
    struct mcf_comm_mpi *x = NULL;
    int *pairs = NULL, *at = NULL;
    memset(c, 0, sizeof *c);
    MCF_ALLOC(e, x, 1);
    x->world = x->node = MPI_COMM_NULL;
    x->cut = cut;
    MCF_MPI(e, MPI_Comm_dup(t->world, &x->world));
    MCF_MPI(e, MPI_Comm_dup(t->node, &x->node));
    int mine[2] = { t->node_index, t->local_rank }, max_local = 0;
    MCF_ALLOC(e, pairs, 2 * (size_t)t->size);
    MCF_MPI(e, MPI_Allgather(mine, 2, MPI_INT, pairs, 2, MPI_INT, x->world));
    for (int r = 0; r < t->size; r++)
        if (pairs[2 * r + 1] + 1 > max_local) max_local = pairs[2 * r + 1] + 1;
    MCF_ALLOC(e, at, (size_t)t->nnodes * (size_t)max_local);
    for (int i = 0; i < t->nnodes * max_local; i++) at[i] = -1;
    for (int r = 0; r < t->size; r++)
        if (pairs[2 * r] >= 0 && pairs[2 * r] < t->nnodes)
            at[pairs[2 * r] * max_local + pairs[2 * r + 1]] = r;
    free(pairs);
    x->rank_at = at;
    *c = (struct mcf_comm){ .ctx = x,
                            .rank = t->rank,
                            .size = t->size,
                            .local_rank = t->local_rank,
                            .local_size = t->local_size,
                            .node = t->node_index,
                            .nnodes = t->nnodes,
                            .max_local = max_local,
                            .rank_at = at,
                            .barrier = c_barrier,
                            .bcast = c_bcast,
                            .allgather = c_allgather,
                            .collective = c_collective,
                            .exchange = c_exchange,
                            .node_alloc = c_node_alloc,
                            .node_free = c_node_free };
    return MCF_OK;
fail:
    free(pairs);
    free(at);
    if (x) {
        if (x->world != MPI_COMM_NULL) MPI_Comm_free(&x->world);
        if (x->node != MPI_COMM_NULL) MPI_Comm_free(&x->node);
    }
    free(x);
    return e->rc;
}

void mcf_comm_mpi_free(struct mcf_comm *c)
{
    struct mcf_comm_mpi *x = c->ctx;
    if (!x) return;
    /* the communicators are left to MPI_Finalize: freeing them is collective,
     * and this is also the path of a run whose ranks failed apart */
    free(x->rank_at);
    free(x);
    memset(c, 0, sizeof *c);
}

/* After the watchdog dropped hung ranks: the communicators hold them. */
void mcf_comm_mpi_break(struct mcf_comm *c, const char *why)
{
    struct mcf_comm_mpi *x = c->ctx;
    if (!x) return;
    x->broken = 1;
    snprintf(x->broken_what, sizeof x->broken_what, "%s", why);
}
