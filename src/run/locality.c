#define _GNU_SOURCE
#include "locality.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

#ifdef MCF_HAVE_HWLOC
#include <hwloc.h>

void mcf_gpu_locality(const char *pci_bus_id, struct mcf_locality *l)
{
    hwloc_topology_t t;
    unsigned dom, bus, dev, fn;
    cpu_set_t set;
    memset(l, 0, sizeof *l);
    l->numa_node = -1;
    l->local = -1;
    if (sscanf(pci_bus_id, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4) {
        snprintf(l->why, sizeof l->why, "device '%s' is not on PCI", pci_bus_id);
        return;
    }
    if (hwloc_topology_init(&t) != 0) {
        snprintf(l->why, sizeof l->why, "hwloc_topology_init failed");
        return;
    }
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(t) != 0) {
        snprintf(l->why, sizeof l->why, "hwloc_topology_load failed");
        hwloc_topology_destroy(t);
        return;
    }
    hwloc_obj_t pci = hwloc_get_pcidev_by_busid(t, dom, bus, dev, fn);
    hwloc_obj_t near = pci ? hwloc_get_non_io_ancestor_obj(t, pci) : NULL;
    if (!near) {
        snprintf(l->why, sizeof l->why, "hwloc sees no PCI device %s", pci_bus_id);
        hwloc_topology_destroy(t);
        return;
    }
    hwloc_bitmap_list_snprintf(l->gpu_cpus, sizeof l->gpu_cpus, near->cpuset);
    if (near->nodeset && !hwloc_bitmap_iszero(near->nodeset) &&
        hwloc_bitmap_weight(near->nodeset) == 1)
        l->numa_node = hwloc_bitmap_first(near->nodeset);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        hwloc_bitmap_t mine = hwloc_bitmap_alloc();
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set)) hwloc_bitmap_set(mine, (unsigned)c);
        l->local = hwloc_bitmap_isincluded(mine, near->cpuset) ? 1 : 0;
        hwloc_bitmap_free(mine);
    } else {
        snprintf(l->why, sizeof l->why, "sched_getaffinity failed");
    }
    hwloc_topology_destroy(t);
}
#else
void mcf_gpu_locality(const char *pci_bus_id, struct mcf_locality *l)
{
    (void)pci_bus_id;
    memset(l, 0, sizeof *l);
    l->numa_node = -1;
    l->local = -1;
    snprintf(l->why, sizeof l->why, "mcfleet was built without hwloc");
}
#endif
