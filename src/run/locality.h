/* Which cores are closest to a rank's GPU (hwloc): the CPU set of the GPU's
 * nearest non-I/O ancestor, its NUMA node, and whether the rank's own cores
 * lie inside it. Cores far from their GPU are a common binding mistake. */
#ifndef MCF_LOCALITY_H
#define MCF_LOCALITY_H

#include <stddef.h>

struct mcf_locality {
    char gpu_cpus[256]; /* e.g. "0-15,64-79"; "" when unknown */
    int numa_node; /* -1 unknown */
    int local; /* 1: the rank's cores are all local to its GPU, 0: not, -1: unknown */
    char why[160]; /* why it is unknown */
};

/* pci_bus_id as "0000:c1:00.0". Never fails: unknowns say why. */
void mcf_gpu_locality(const char *pci_bus_id, struct mcf_locality *l);

#endif
