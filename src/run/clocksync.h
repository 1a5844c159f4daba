/* A common time base across ranks, in the style of ReproMPI and Open MPI's
 * mpisync: each node leader exchanges ping-pongs with rank 0 and keeps the
 * exchange with the smallest round trip; its offset is the remote reading
 * minus the midpoint of rank 0's send and receive. Ranks on one node share a
 * clock, so they share their leader's offset. All ranks then start each test
 * at one deadline on rank 0's clock, spinning to it. */
#ifndef MCF_CLOCKSYNC_H
#define MCF_CLOCKSYNC_H

#include <mpi.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One ping-pong as seen by rank 0: t_send and t_recv on rank 0's clock, t_remote
 * the remote clock when it answered. */
struct mcf_pingpong {
    double t_send, t_remote, t_recv;
};

/* Offset (remote - rank 0) from the exchange of least round trip; *rtt gets it. */
double mcf_offset_estimate(const struct mcf_pingpong *p, int n, double *rtt);

/* The monotonic clock all timestamps use, in seconds. */
double mcf_now(void);

struct mcf_clocksync {
    double offset; /* local clock - rank 0 clock, seconds */
    double rtt; /* round trip of the exchange the offset came from */
};

/* Collective over world. Node leaders (node_comm rank 0) measure with rank 0,
 * then share the offset with their node. */
int mcf_clocksync_run(MPI_Comm world, MPI_Comm node_comm, int rounds, struct mcf_clocksync *cs,
                      struct mcf_err *e);

/* Collective: after a barrier, rank 0 picks a deadline lead seconds ahead on
 * its clock and broadcasts it; every rank spins until its own clock reaches it. Returns the
 * rank's start on rank 0's time base; *skew_us gets start - deadline. */
int mcf_start_together(MPI_Comm world, const struct mcf_clocksync *cs, double lead,
                       double *start_common, double *skew_us, struct mcf_err *e);
/* The spin alone: deadline is on rank 0's time base (the runner's test
 * boundaries carry it, watchdog.c). */
void mcf_start_at(const struct mcf_clocksync *cs, double deadline, double *start_common,
                  double *skew_us);

#ifdef __cplusplus
}
#endif

#endif
