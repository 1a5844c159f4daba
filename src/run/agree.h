/* Collective agreement on errors: after a step that may fail on some ranks,
 * every rank learns whether any failed and gets the lowest failing rank's
 * message, so all take the same path and none waits in a collective alone. */
#ifndef MCF_AGREE_H
#define MCF_AGREE_H

#include <mpi.h>

#include "error.h"

/* Returns the agreed rc (the most severe, the lowest failing rank's message). */
int mcf_agree(MPI_Comm comm, struct mcf_err *e);

#endif
