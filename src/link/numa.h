/* Host memory on a chosen NUMA node, with no libnuma: where a PCI device
 * (a GPU) sits, which nodes hold memory, and an allocation bound to a node
 * (mmap + the mbind system call, its placement checked with get_mempolicy).
 * Plain C11 for the host backend and the GPU backends alike (the GPU side
 * pins the allocation afterwards: cudaHostRegister / hipHostRegister).
 *
 * sysroot is the sysfs mount ("/sys"; a test passes a fake tree): the
 * device's node is <sysroot>/bus/pci/devices/<dddd:bb:dd.f>/numa_node, the
 * nodes are <sysroot>/devices/system/node/{has_memory,has_cpu} (lists such as
 * "0-1,3") and nodeN/distance. */
#ifndef MCF_NUMA_H
#define MCF_NUMA_H

#include <stddef.h>

#include "error.h"
#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCF_NUMA_MAX_NODES 1024

/* sysfs's spelling of a PCI address: lower case, a domain of at least 4
 * hex digits ("0000:3b:00.0"), from any of the runtimes' spellings
 * ("00000000:3B:00.0", "0000:3B:00.0"); MCF_EINPUT if bus_id is none. */
int mcf_numa_pci_name(const char *bus_id, char *out, size_t len, struct mcf_err *e);

/* The NUMA node of a PCI device; -1 where the firmware gives none. */
int mcf_numa_pci_node(const char *sysroot, const char *bus_id, int *node, struct mcf_err *e);

/* The nodes with memory (and CPUs, where sysfs says which have CPUs: a
 * GPU's own memory shown as a node, as on Grace Hopper, is no host memory),
 * ascending, into nodes[max]; *count of them. */
int mcf_numa_memory_nodes(const char *sysroot, int *nodes, int max, int *count, struct mcf_err *e);

/* Parses a sysfs node list ("0-3,8,10-11") into nodes[max]; the count, or
 * -1 where the text is no list. */
int mcf_numa_parse_list(const char *text, int *nodes, int max);

/* The node to allocate on for a device: MCF_NUMA_LOCAL its own (where the
 * firmware gives none and one node holds memory, that one); MCF_NUMA_REMOTE
 * the farthest other node with memory (another socket; lowest number among
 * equals). MCF_EUNSUPPORTED, saying why, where there is no such node (a
 * machine of one node, or the device's node unknown). */
int mcf_numa_choose(const char *sysroot, const char *bus_id, enum mcf_numa which, int *node,
                    struct mcf_err *e);

/* bytes of anonymous memory bound to node (MPOL_BIND, every page faulted in
 * there and the first and last page's node read back); *bound says whether
 * the binding took: 0 where the kernel refused mbind (a container's seccomp
 * filter) on a machine with one memory node, where the memory is on that
 * node anyway. Elsewhere a refusal is MCF_EUNSUPPORTED naming mbind. Free
 * with mcf_numa_free. */
int mcf_numa_alloc(const char *sysroot, size_t bytes, int node, void **ptr, int *bound,
                   struct mcf_err *e);
void mcf_numa_free(void *ptr, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
