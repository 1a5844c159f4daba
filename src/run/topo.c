#define _GNU_SOURCE
#include "topo.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agree.h"

int mcf_choose_device(int visible, int local_rank)
{
    if (visible <= 0) return -1;
    if (visible == 1) return 0;
    return local_rank % visible;
}

/* A task count from the environment: -1 when unset or not a whole positive number. */
static long env_count(char *(*getenv_fn)(const char *), const char *name)
{
    const char *v = getenv_fn(name);
    if (!v || !*v) return -1;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end || n <= 0) return -1;
    return n;
}

int mcf_check_launch(int mpi_size, char *(*getenv_fn)(const char *), char *msg, size_t len)
{
    msg[0] = '\0';
    if (!getenv_fn("SLURM_STEP_ID") || getenv_fn("SLURM_HET_SIZE"))
        return 0; /* not a task of an srun step, or a heterogeneous step's component */
    if (getenv_fn("OMPI_COMM_WORLD_SIZE") || getenv_fn("PMI_SIZE"))
        return 0; /* mpirun or mpiexec started the ranks, whatever the step holds */
    const char *name = "SLURM_NTASKS";
    long tasks = env_count(getenv_fn, name);
    if (tasks < 0) {
        name = "SLURM_NPROCS";
        tasks = env_count(getenv_fn, name);
    }
    if (tasks < 0 || tasks == mpi_size) return 0;
    const char *why = mpi_size == 1
        ? "srun started each task without the MPI's PMI plugin, so each is an MPI job "
          "of its own and would measure as if it were the fleet"
        : "the ranks are not the step's tasks";
    snprintf(
        msg, len,
        "Slurm's step has %ld tasks (%s=%ld) but the MPI world has %d rank%s: %s; launch with "
        "srun --mpi=pmix (Open MPI), or the --mpi type the site documents for its MPI (Cray MPICH: "
        "--mpi=cray_shasta)",
        tasks, name, tasks, mpi_size, mpi_size == 1 ? "" : "s", why);
    return -1;
}

int mcf_format_cpulist(const unsigned char *cpus, int n, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (!cpus[i]) continue;
        int j = i;
        while (j + 1 < n && cpus[j + 1]) j++;
        int w = (j > i) ? snprintf(out + used, len - used, "%s%d-%d", used ? "," : "", i, j)
                        : snprintf(out + used, len - used, "%s%d", used ? "," : "", i);
        if (w < 0 || (size_t)w >= len - used) {
            if (len > 4) strcpy(out + len - 4, "...");
            return (int)len - 1;
        }
        used += (size_t)w;
        i = j;
    }
    return (int)used;
}

static void read_affinity(struct mcf_topo *t)
{
    cpu_set_t set;
    unsigned char cpus[CPU_SETSIZE];
    t->ncpus = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(t->affinity, sizeof t->affinity, "unknown");
        return;
    }
    for (int i = 0; i < CPU_SETSIZE; i++) {
        cpus[i] = CPU_ISSET(i, &set) ? 1 : 0;
        t->ncpus += cpus[i];
    }
    mcf_format_cpulist(cpus, CPU_SETSIZE, t->affinity, sizeof t->affinity);
}

int mcf_topo_init(MPI_Comm comm, struct mcf_topo *t, struct mcf_err *e)
{
    MPI_Comm leaders = MPI_COMM_NULL;
    memset(t, 0, sizeof *t);
    t->world = t->node = MPI_COMM_NULL;
    MCF_MPI(e, MPI_Comm_dup(comm, &t->world));
    MCF_MPI(e, MPI_Comm_rank(t->world, &t->rank));
    MCF_MPI(e, MPI_Comm_size(t->world, &t->size));
    { /* every rank decides from its own environment; agreed, so none waits alone */
        char msg[512];
        if (mcf_check_launch(t->size, getenv, msg, sizeof msg) != 0)
            mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__, "%s", msg);
        MCF_TRY(mcf_agree(t->world, e));
    }
    MCF_MPI(e,
            MPI_Comm_split_type(t->world, MPI_COMM_TYPE_SHARED, t->rank, MPI_INFO_NULL, &t->node));
    MCF_MPI(e, MPI_Comm_rank(t->node, &t->local_rank));
    MCF_MPI(e, MPI_Comm_size(t->node, &t->local_size));
    /* Node index: rank among the node leaders, who are ordered by world rank. */
    MCF_MPI(e, MPI_Comm_split(t->world, t->local_rank == 0 ? 0 : MPI_UNDEFINED, t->rank, &leaders));
    if (leaders != MPI_COMM_NULL) {
        MCF_MPI(e, MPI_Comm_rank(leaders, &t->node_index));
        MCF_MPI(e, MPI_Comm_size(leaders, &t->nnodes));
        MPI_Comm_free(&leaders);
    }
    MCF_MPI(e, MPI_Bcast(&t->node_index, 1, MPI_INT, 0, t->node));
    MCF_MPI(e, MPI_Bcast(&t->nnodes, 1, MPI_INT, 0, t->world));
    if (gethostname(t->hostname, sizeof t->hostname) != 0)
        snprintf(t->hostname, sizeof t->hostname, "unknown");
    t->hostname[sizeof t->hostname - 1] = '\0';
    read_affinity(t);
    return MCF_OK;
fail:
    if (leaders != MPI_COMM_NULL) MPI_Comm_free(&leaders);
    mcf_topo_free(t);
    return e->rc;
}

void mcf_topo_free(struct mcf_topo *t)
{
    if (t->node != MPI_COMM_NULL) MPI_Comm_free(&t->node);
    if (t->world != MPI_COMM_NULL) MPI_Comm_free(&t->world);
    t->node = t->world = MPI_COMM_NULL;
}

int mcf_oversubscribed(int local_size, int online_cpus, const char *yield_env,
                       const char *oversub_env, char *msg, size_t len)
{
    msg[0] = '\0';
    if (online_cpus <= 0 || local_size <= online_cpus) return 0;
    if ((yield_env && atoi(yield_env) == 1) || (oversub_env && atoi(oversub_env) == 1)) return 0;
    snprintf(msg, len,
             "%d ranks on %d online CPUs: ranks waiting in MPI spin and slow the others "
             "(Open MPI: set OMPI_MCA_mpi_yield_when_idle=1, as mpirun --oversubscribe does)",
             local_size, online_cpus);
    return 1;
}

int mcf_check_binding(const int *counts, const char *ids, size_t idlen, int n, int allow_shared,
                      char *msg, size_t len)
{
    for (int i = 1; i < n; i++)
        if (counts[i] != counts[0]) {
            snprintf(
                msg, len,
                "local ranks 0 and %d see %d and %d GPUs: check the launcher's GPU binding "
                "(srun --gpus-per-task=1 --gpu-bind=closest, or the *_VISIBLE_DEVICES variables)",
                i, counts[0], counts[i]);
            return -1;
        }
    if (allow_shared) return 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strncmp(ids + i * idlen, ids + j * idlen, idlen) == 0) {
                snprintf(
                    msg, len,
                    "local ranks %d and %d both use GPU %.*s: mcfleet expects one rank per GPU "
                    "(one per GCD on MI250X); set 'allow_shared_devices: true' in the deck to "
                    "measure sharing",
                    i, j, (int)idlen, ids + i * idlen);
                return -1;
            }
    return 0;
}
