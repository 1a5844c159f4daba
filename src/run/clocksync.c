#include "clocksync.h"

#include <errno.h>
#include <time.h>

double mcf_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double mcf_offset_estimate(const struct mcf_pingpong *p, int n, double *rtt)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (p[i].t_recv - p[i].t_send < p[best].t_recv - p[best].t_send) best = i;
    if (rtt) *rtt = p[best].t_recv - p[best].t_send;
    return p[best].t_remote - 0.5 * (p[best].t_send + p[best].t_recv);
}

enum { TAG_PING = 7101, TAG_PONG = 7102 };

int mcf_clocksync_run(MPI_Comm world, MPI_Comm node_comm, int rounds, struct mcf_clocksync *cs,
                      struct mcf_err *e)
{
    int rank, size, local;
    struct mcf_pingpong pp[64];
    double result[2] = { 0.0, 0.0 }; /* offset, rtt */
    MPI_Comm leaders = MPI_COMM_NULL;
    if (rounds > 64) rounds = 64;
    if (rounds < 1) rounds = 1;
    MCF_MPI(e, MPI_Comm_rank(world, &rank));
    MCF_MPI(e, MPI_Comm_rank(node_comm, &local));
    MCF_MPI(e, MPI_Comm_split(world, local == 0 ? 0 : MPI_UNDEFINED, rank, &leaders));
    if (leaders != MPI_COMM_NULL) {
        int lrank;
        MCF_MPI(e, MPI_Comm_rank(leaders, &lrank));
        MCF_MPI(e, MPI_Comm_size(leaders, &size));
        /* rank 0 of world is local rank 0 of its node, hence leader 0 */
        if (lrank == 0) {
            for (int peer = 1; peer < size; peer++) {
                for (int r = 0; r < rounds; r++) {
                    double dummy = 0.0, remote;
                    pp[r].t_send = mcf_now();
                    MCF_MPI(e, MPI_Send(&dummy, 1, MPI_DOUBLE, peer, TAG_PING, leaders));
                    MCF_MPI(e,
                            MPI_Recv(&remote, 1, MPI_DOUBLE, peer, TAG_PONG, leaders,
                                     MPI_STATUS_IGNORE));
                    pp[r].t_recv = mcf_now();
                    pp[r].t_remote = remote;
                }
                double out[2];
                out[0] = mcf_offset_estimate(pp, rounds, &out[1]);
                MCF_MPI(e, MPI_Send(out, 2, MPI_DOUBLE, peer, TAG_PING, leaders));
            }
        } else {
            for (int r = 0; r < rounds; r++) {
                double dummy, now;
                MCF_MPI(e,
                        MPI_Recv(&dummy, 1, MPI_DOUBLE, 0, TAG_PING, leaders, MPI_STATUS_IGNORE));
                now = mcf_now();
                MCF_MPI(e, MPI_Send(&now, 1, MPI_DOUBLE, 0, TAG_PONG, leaders));
            }
            MCF_MPI(e, MPI_Recv(result, 2, MPI_DOUBLE, 0, TAG_PING, leaders, MPI_STATUS_IGNORE));
        }
        MPI_Comm_free(&leaders);
    }
    MCF_MPI(e, MPI_Bcast(result, 2, MPI_DOUBLE, 0, node_comm));
    cs->offset = result[0];
    cs->rtt = result[1];
    return MCF_OK;
fail:
    if (leaders != MPI_COMM_NULL) MPI_Comm_free(&leaders);
    return e->rc;
}

int mcf_start_together(MPI_Comm world, const struct mcf_clocksync *cs, double lead,
                       double *start_common, double *skew_us, struct mcf_err *e)
{
    int rank;
    double deadline = 0.0;
    MCF_MPI(e, MPI_Comm_rank(world, &rank));
    /* Everyone must have finished the previous test before the deadline is
     * chosen; otherwise a straggler receives a deadline already past. */
    MCF_MPI(e, MPI_Barrier(world));
    if (rank == 0) deadline = mcf_now() + lead;
    MCF_MPI(e, MPI_Bcast(&deadline, 1, MPI_DOUBLE, 0, world));
    mcf_start_at(cs, deadline, start_common, skew_us);
    return MCF_OK;
fail:
    return e->rc;
}

void mcf_start_at(const struct mcf_clocksync *cs, double deadline, double *start_common,
                  double *skew_us)
{
    double local_deadline = deadline + cs->offset, now;
    /* sleep to 1 ms before, then spin: a sleep alone wakes late by the
     * scheduler's granularity, and a long spin on a loaded core is preempted
     * (a task that slept is the one the scheduler runs first) */
    if (local_deadline - mcf_now() > 2e-3) {
        double wake = local_deadline - 1e-3;
        struct timespec ts = { (time_t)wake, (long)((wake - (double)(time_t)wake) * 1e9) };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
    }
    while ((now = mcf_now()) < local_deadline)
        ; /* spin */
    *start_common = now - cs->offset;
    *skew_us = (*start_common - deadline) * 1e6;
}
