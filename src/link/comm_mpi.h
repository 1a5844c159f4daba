/* The runner's struct mcf_comm (comm.h) over MPI. */
#ifndef MCF_COMM_MPI_H
#define MCF_COMM_MPI_H

#include <mpi.h>

#include "comm.h"
#include "stop.h"
#include "topo.h"

struct mcf_comm_mpi;

/* Collective over t->world: duplicates its communicators, learns every
 * node's ranks, fills c. cut: the deadline of the test in hand (stop.h),
 * which every call waits no longer than. */
int mcf_comm_mpi_init(struct mcf_comm *c, const struct mcf_topo *t, const struct mcf_cut *cut,
                      struct mcf_err *e);
void mcf_comm_mpi_free(struct mcf_comm *c);
/* Every later call fails at once, naming why (hung ranks dropped). */
void mcf_comm_mpi_break(struct mcf_comm *c, const char *why);

#endif
