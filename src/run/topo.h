/* Where each rank sits in the fleet: node, local rank, CPU affinity, device. */
#ifndef MCF_TOPO_H
#define MCF_TOPO_H

#include <mpi.h>

#include "error.h"

struct mcf_topo {
    MPI_Comm world; /* a duplicate: mcfleet's messages never mix with the caller's */
    MPI_Comm node; /* ranks sharing memory with this one */
    int rank, size;
    int local_rank, local_size;
    int node_index, nnodes; /* nodes numbered in order of their lowest world rank */
    char hostname[256];
    char affinity[256]; /* "0-3,8" */
    int ncpus; /* CPUs in the affinity mask */
    int oversubscribed_nodes; /* nodes with more ranks than CPUs whose MPI spins (set by the runner)
                               */
    int crowded_nodes; /* nodes with more ranks than online CPUs, spinning or not (set by the
                          runner) */
};

/* Fails with MCF_EINPUT (exit 2) on every rank when the launch is wrong
 * (mcf_check_launch), before the node split and everything after it. */
int mcf_topo_init(MPI_Comm comm, struct mcf_topo *t, struct mcf_err *e);
void mcf_topo_free(struct mcf_topo *t);

/* Device a rank uses: the only one when one is visible (the launcher already
 * bound it), else local rank modulo the count. -1 when there are none. */
int mcf_choose_device(int visible, int local_rank);

/* The launcher's binding of one node's ranks to GPUs, checked before any
 * test: every rank must see the same number of devices, and no two may use
 * one device unless allowed. counts[i] and ids[i] (fixed-width strings of
 * idlen bytes) are local rank i's. 0, or -1 with the reason in msg. */
/* More ranks on a node than it has online CPUs: ranks waiting in MPI spin and
 * take the CPU from those working, unless the MPI is told to yield (Open MPI:
 * mpi_yield_when_idle, which mpirun --oversubscribe implies; srun does not).
 * yield_env and oversub_env are the values of OMPI_MCA_mpi_yield_when_idle and
 * OMPI_MCA_mpi_oversubscribe (NULL: unset). Returns 1 and a warning in msg
 * when the ranks will spin, else 0. */
int mcf_oversubscribed(int local_size, int online_cpus, const char *yield_env,
                       const char *oversub_env, char *msg, size_t len);

int mcf_check_binding(const int *counts, const char *ids, size_t idlen, int n, int allow_shared,
                      char *msg, size_t len);

/* Inside a Slurm step (SLURM_STEP_ID set), the MPI world must hold the
 * step's tasks (SLURM_NTASKS, else SLURM_NPROCS): tasks started by srun
 * without the MPI's PMI plugin each start a world of one and would each
 * measure as if they were the fleet. Not checked where another launcher
 * (mpirun: OMPI_COMM_WORLD_SIZE; Hydra mpiexec: PMI_SIZE) started the ranks,
 * in a heterogeneous job (SLURM_HET_SIZE), or where the count is not a
 * number. getenv_fn is getenv, or a stand-in for the tests. 0, or -1 with
 * the reason and the fix in msg. */
int mcf_check_launch(int mpi_size, char *(*getenv_fn)(const char *), char *msg, size_t len);

/* Formats a CPU list like "0-3,8,10-11" from a 0/1 array; returns chars written. */
int mcf_format_cpulist(const unsigned char *cpus, int n, char *out, size_t len);

#endif
