/* The watchdog: test boundaries with a deadline, so that one hung rank (a
 * GPU that never returns, a node that stopped) cannot stall the fleet.
 *
 * At each boundary every rank sends what it brings to rank 0 (point to
 * point, on a communicator of its own) and waits for the answer. Rank 0 waits
 * for each rank until a deadline, then answers every rank that came: the
 * maximum of what they brought, and which ranks did not come (hung). After a
 * boundary that found hung ranks, the ranks that answered stop, form a
 * communicator of their own (MPI_Comm_create_group involves only them) and
 * write the file from it; the hung ranks are listed with their host and
 * device, whose identity rank 0 gathered at the start.
 *
 * A blocking collective has no deadline, which is why boundaries are not
 * collectives. Rank 0 is the one rank that cannot be replaced: a rank that
 * waits for rank 0 past its own deadline says so and aborts the job. */
#ifndef MCF_WATCHDOG_H
#define MCF_WATCHDOG_H

#include <mpi.h>

#include "error.h"
#include "topo.h"

/* A rank is hung when it has not reached the boundary this long after the
 * test's time limit, or (no time limit) after rank 0 reached it, at least;
 * without a limit rank 0 also allows MCF_WATCHDOG_FACTOR x its own time for
 * the test. After a stop signal rank 0 waits at most MCF_WATCHDOG_STOP_S. */
#define MCF_WATCHDOG_GRACE_S 60.0
#define MCF_WATCHDOG_FACTOR 4.0
#define MCF_WATCHDOG_STOP_S 10.0
/* With a time limit, how long past it a rank may still come: max(this, limit / 4). */
#define MCF_WATCHDOG_LIMIT_GRACE_S 5.0
/* Added to the lead of each test's common start (runner.c). */
#define MCF_START_SLACK_S 0.01
/* How long a rank waiting at a boundary polls without sleeping (as a barrier
 * would): the answer carries the next start, which a napping rank would miss. */
#define MCF_WATCHDOG_SPIN_S 1.0

/* Identity of a rank, gathered to rank 0 at the start (fixed width). */
struct mcf_rank_ident {
    char hostname[64], device_uuid[64], pci_bus_id[32], device_name[96];
    int local_rank;
};

struct mcf_watchdog {
    MPI_Comm comm; /* a duplicate of the world, for boundaries only */
    int rank, size;
    int seq; /* boundary number: the message tag */
    int nhung;
    int *hung; /* world ranks found hung (every rank that answered holds them) */
    int *hung_at; /* rank 0: the boundary (test index) each one missed */
    int *alive; /* rank 0: per world rank */
    struct mcf_rank_ident *idents; /* rank 0: per world rank */
    double grace_s, stop_s; /* the defaults above; tests may shorten them */
};

/* Collective over world (every rank is there at the start). */
int mcf_watchdog_init(struct mcf_watchdog *w, MPI_Comm world, const struct mcf_rank_ident *mine,
                      struct mcf_err *e);
void mcf_watchdog_free(struct mcf_watchdog *w);

/* A boundary. mine[0..n-1] is what this rank brings; any[] receives the
 * maximum over the ranks that came. deadline (mcf_now's clock) is when rank 0
 * stops waiting (its own; the others wait longer for rank 0). index names
 * the boundary (the test about to start) for the hung list. Returns the
 * number of ranks newly found hung in *newly_hung, and in *start_at the
 * common start of the next test: rank 0's clock when it answered, plus lead
 * and the time its answers take to go out. The boundary is the start's only
 * synchronization: a rank stopped after it is found at the next one, where a
 * barrier would have held the others for ever. */
int mcf_watchdog_meet(struct mcf_watchdog *w, const int *mine, int *any, int n, double deadline,
                      int index, double lead, double *start_at, int *newly_hung, struct mcf_err *e);

/* After a boundary that found hung ranks: t's communicators are replaced by
 * ones of the ranks that answered (rank, size, local rank and size change;
 * w->rank keeps who each was in the world). Involves only those ranks. */
int mcf_watchdog_shrink(struct mcf_watchdog *w, struct mcf_topo *t, struct mcf_err *e);

#endif
