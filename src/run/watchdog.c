#define _GNU_SOURCE
#include "watchdog.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clocksync.h"

#define MAXN 8 /* fields a boundary carries */
#define TAG_GROUP 0x6d63 /* MPI_Comm_create_group's tag */

int mcf_watchdog_init(struct mcf_watchdog *w, MPI_Comm world, const struct mcf_rank_ident *mine,
                      struct mcf_err *e)
{
    memset(w, 0, sizeof *w);
    w->comm = MPI_COMM_NULL;
    w->grace_s = MCF_WATCHDOG_GRACE_S;
    w->stop_s = MCF_WATCHDOG_STOP_S;
    MCF_MPI(e, MPI_Comm_dup(world, &w->comm));
    MCF_MPI(e, MPI_Comm_rank(w->comm, &w->rank));
    MCF_MPI(e, MPI_Comm_size(w->comm, &w->size));
    MCF_ALLOC(e, w->hung, w->size);
    if (w->rank == 0) {
        MCF_ALLOC(e, w->hung_at, w->size);
        MCF_ALLOC(e, w->alive, w->size);
        MCF_ALLOC(e, w->idents, w->size);
        for (int i = 0; i < w->size; i++) w->alive[i] = 1;
    }
    MCF_MPI(e,
            MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, w->idents, (int)sizeof *mine, MPI_BYTE, 0,
                       w->comm));
    return MCF_OK;
fail:
    return e->rc;
}

void mcf_watchdog_free(struct mcf_watchdog *w)
{
    /* after a hang the duplicate cannot be freed collectively: it is left to MPI_Abort */
    if (w->comm != MPI_COMM_NULL && w->nhung == 0) MPI_Comm_free(&w->comm);
    free(w->hung);
    free(w->hung_at);
    free(w->alive);
    free(w->idents);
    memset(w, 0, sizeof *w);
    w->comm = MPI_COMM_NULL;
}

/* Polls until every request completes or the deadline passes; returns 1 when all completed.
 * For the first MCF_WATCHDOG_SPIN_S it yields between polls (the answer is
 * usually that close, and it carries the next start: a rank must see it at
 * once), then naps: a rank much earlier than the others must leave them the
 * CPU on an oversubscribed node. */
static int wait_until(int n, MPI_Request *req, double deadline, struct mcf_err *e)
{
    int done = 0;
    double spin_until = mcf_now() + MCF_WATCHDOG_SPIN_S;
    for (;;) {
        MCF_MPI(e, MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE));
        if (done) return 1;
        double now = mcf_now();
        if (now > deadline) return 0;
        if (now < spin_until) {
            sched_yield();
        } else {
            struct timespec ts = { 0, 100000 }; /* 0.1 ms, well inside the start's lead */
            nanosleep(&ts, NULL);
        }
    }
fail:
    return -1;
}

/* The answer: the maxima, how many are hung, the next start (a double in two ints), the hung ranks.
 */
#define REPLY_HEAD(n) ((n) + 3)

static int root_meet(struct mcf_watchdog *w, const int *mine, int *any, int n, double deadline,
                     int index, double lead, double *start_at, int *newly_hung, struct mcf_err *e)
{
    int *got = NULL, *from = NULL, *reply = NULL, tag = w->seq, nreq = 0;
    MPI_Request *req = NULL;
    MCF_ALLOC(e, got, (size_t)w->size * MAXN);
    MCF_ALLOC(e, from, w->size);
    MCF_ALLOC(e, req, w->size);
    for (int i = 0; i < n; i++) any[i] = mine[i];
    for (int r = 1; r < w->size; r++)
        if (w->alive[r]) {
            from[nreq] = r;
            MCF_MPI(e, MPI_Irecv(got + (size_t)r * MAXN, n, MPI_INT, r, tag, w->comm, &req[nreq]));
            nreq++;
        }
    /* wait for all, or until the deadline; a stop (here or brought by a rank
     * that came) shortens it to stop_s, since the launcher will not wait long */
    double stop_since = mine[0] ? mcf_now() : INFINITY;
    for (;;) {
        double until = stop_since + w->stop_s < deadline ? stop_since + w->stop_s : deadline;
        double step = mcf_now() + 0.25 < until ? mcf_now() + 0.25 : until;
        int ok = wait_until(nreq, req, step, e);
        if (ok < 0) goto fail;
        if (ok || mcf_now() >= until) break;
        for (int q = 0; q < nreq && stop_since == INFINITY; q++) {
            int flag = 0;
            MCF_MPI(e, MPI_Request_get_status(req[q], &flag, MPI_STATUS_IGNORE));
            if (flag && got[(size_t)from[q] * MAXN] != 0) stop_since = mcf_now();
        }
    }
    *newly_hung = 0;
    for (int q = 0; q < nreq; q++) {
        int flag = 0, r = from[q];
        MCF_MPI(e, MPI_Test(&req[q], &flag, MPI_STATUS_IGNORE));
        if (!flag) { /* never came: hung */
            MPI_Cancel(&req[q]);
            MPI_Request_free(&req[q]);
            w->alive[r] = 0;
            w->hung_at[w->nhung] = index;
            w->hung[w->nhung++] = r;
            (*newly_hung)++;
            continue;
        }
        for (int i = 0; i < n; i++)
            if (got[(size_t)r * MAXN + i] > any[i]) any[i] = got[(size_t)r * MAXN + i];
    }
    /* the answer; the start leaves time for every answer to go out (a few us each) */
    MCF_ALLOC(e, reply, REPLY_HEAD(MAXN) + w->size);
    memcpy(reply, any, sizeof(int) * (size_t)n);
    reply[n] = w->nhung;
    *start_at = mcf_now() + lead + 5e-6 * (w->size - w->nhung);
    memcpy(reply + n + 1, start_at, sizeof *start_at);
    memcpy(reply + REPLY_HEAD(n), w->hung, sizeof(int) * (size_t)w->nhung);
    nreq = 0;
    for (int r = 1; r < w->size; r++)
        if (w->alive[r])
            MCF_MPI(
                e,
                MPI_Isend(reply, REPLY_HEAD(n) + w->nhung, MPI_INT, r, tag, w->comm, &req[nreq++]));
    /* the ranks that came are waiting for exactly this: it completes */
    MCF_MPI(e, MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
fail:
    free(got);
    free(from);
    free(req);
    free(reply);
    return e->rc;
}

static int other_meet(struct mcf_watchdog *w, const int *mine, int *any, int n, double deadline,
                      double *start_at, int *newly_hung, struct mcf_err *e)
{
    int *reply = NULL, tag = w->seq, before = w->nhung;
    MPI_Request req[2];
    MCF_ALLOC(e, reply, REPLY_HEAD(MAXN) + w->size);
    MCF_MPI(e, MPI_Isend((void *)mine, n, MPI_INT, 0, tag, w->comm, &req[0]));
    MCF_MPI(e, MPI_Irecv(reply, REPLY_HEAD(n) + w->size, MPI_INT, 0, tag, w->comm, &req[1]));
    /* rank 0 may wait its whole deadline for another rank, and a stop's wait, before answering */
    int ok = wait_until(2, req, deadline + w->stop_s + w->grace_s, e);
    if (ok < 0) goto fail;
    if (!ok) {
        fprintf(stderr,
                "mcfleet: rank %d: rank 0 has not answered at a test boundary for %.0f s: it is "
                "hung or "
                "gone, and only rank 0 writes the results; ending the job (MPI_Abort)\n",
                w->rank, deadline + w->stop_s + w->grace_s - mcf_now());
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    memcpy(any, reply, sizeof(int) * (size_t)n);
    w->nhung = reply[n];
    memcpy(start_at, reply + n + 1, sizeof *start_at);
    memcpy(w->hung, reply + REPLY_HEAD(n), sizeof(int) * (size_t)w->nhung);
    *newly_hung = w->nhung - before;
fail:
    free(reply);
    return e->rc;
}

int mcf_watchdog_meet(struct mcf_watchdog *w, const int *mine, int *any, int n, double deadline,
                      int index, double lead, double *start_at, int *newly_hung, struct mcf_err *e)
{
    if (n > MAXN)
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                           "a boundary carries at most %d fields", MAXN);
    w->seq = (w->seq + 1) % 32000; /* MPI guarantees tags up to 32767 */
    *newly_hung = 0;
    if (w->size == 1) {
        memcpy(any, mine, sizeof(int) * (size_t)n);
        *start_at = mcf_now() + lead;
        return MCF_OK;
    }
    return w->rank == 0 ? root_meet(w, mine, any, n, deadline, index, lead, start_at, newly_hung, e)
                        : other_meet(w, mine, any, n, deadline, start_at, newly_hung, e);
}

int mcf_watchdog_shrink(struct mcf_watchdog *w, struct mcf_topo *t, struct mcf_err *e)
{
    MPI_Group all = MPI_GROUP_NULL, live = MPI_GROUP_NULL;
    MPI_Comm comm = MPI_COMM_NULL, node = MPI_COMM_NULL;
    MCF_MPI(e, MPI_Comm_group(w->comm, &all));
    MCF_MPI(e, MPI_Group_excl(all, w->nhung, w->hung, &live));
    MCF_MPI(e, MPI_Comm_create_group(w->comm, live, TAG_GROUP, &comm));
    MCF_MPI(e, MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    /* the old communicators include the hung ranks: freeing them would wait for them */
    t->world = comm;
    t->node = node;
    MCF_MPI(e, MPI_Comm_rank(comm, &t->rank));
    MCF_MPI(e, MPI_Comm_size(comm, &t->size));
    MCF_MPI(e, MPI_Comm_rank(node, &t->local_rank));
    MCF_MPI(e, MPI_Comm_size(node, &t->local_size));
fail:
    if (live != MPI_GROUP_NULL) MPI_Group_free(&live);
    if (all != MPI_GROUP_NULL) MPI_Group_free(&all);
    return e->rc;
}
