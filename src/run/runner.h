/* A whole run: deck, backend, synchronized tests, results file, report. */
#ifndef MCF_RUNNER_H
#define MCF_RUNNER_H

#include <mpi.h>

#include "options.h"

/* Collective over comm. Returns an enum mcf_exit value, the same on every rank. */
int mcf_run(const struct mcf_options *o, MPI_Comm comm);

#endif
