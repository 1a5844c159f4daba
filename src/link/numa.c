/* Host memory on a chosen NUMA node (numa.h). */
#define _GNU_SOURCE
#include "numa.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* <linux/mempolicy.h>'s values (stable kernel ABI), without numaif.h */
#define MCF_MPOL_BIND 2
#define MCF_MPOL_MF_STRICT 1
#define MCF_MPOL_MF_MOVE 2
#define MCF_MPOL_F_NODE 1
#define MCF_MPOL_F_ADDR 2

#define BITS_PER_WORD (8 * sizeof(unsigned long))

/* The first line of a sysfs file; 0 where it cannot be read. */
static int read_line(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int ok = fgets(out, (int)len, f) != NULL;
    fclose(f);
    if (ok) out[strcspn(out, "\n")] = '\0';
    return ok;
}

int mcf_numa_pci_name(const char *bus_id, char *out, size_t len, struct mcf_err *e)
{
    unsigned long dom = 0;
    unsigned bus = 0, dev = 0, fn = 0;
    int used = 0;
    if (!bus_id || sscanf(bus_id, "%lx:%x:%x.%x%n", &dom, &bus, &dev, &fn, &used) != 4 ||
        bus_id[used] != '\0' || bus > 0xff || dev > 0x1f || fn > 7)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "'%s' is no PCI address (domain:bus:device.function)",
                           bus_id ? bus_id : "(null)");
    snprintf(out, len, "%04lx:%02x:%02x.%x", dom, bus, dev, fn);
    return MCF_OK;
}

int mcf_numa_pci_node(const char *sysroot, const char *bus_id, int *node, struct mcf_err *e)
{
    char name[64], path[512], line[64], *end = NULL;
    MCF_TRY(mcf_numa_pci_name(bus_id, name, sizeof name, e));
    snprintf(path, sizeof path, "%s/bus/pci/devices/%s/numa_node", sysroot, name);
    if (!read_line(path, line, sizeof line))
        MCF_FAIL(e, MCF_ERUNTIME, "reading %s: %s", path, strerror(errno ? errno : EIO));
    long v = strtol(line, &end, 10);
    if (end == line || *end != '\0' || v < -1 || v >= MCF_NUMA_MAX_NODES)
        MCF_FAIL(e, MCF_ERUNTIME, "%s holds '%s', not a NUMA node", path, line);
    *node = (int)v;
    return MCF_OK;
fail:
    return e->rc;
}

int mcf_numa_parse_list(const char *text, int *nodes, int max)
{
    int n = 0;
    const char *p = text;
    while (*p && isspace((unsigned char)*p)) p++;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b;
        if (end == p || a < 0 || a >= MCF_NUMA_MAX_NODES) return -1;
        b = a;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a || b >= MCF_NUMA_MAX_NODES) return -1;
            p = end;
        }
        for (long i = a; i <= b; i++) {
            if (n >= max) return -1;
            nodes[n++] = (int)i;
        }
        if (*p == ',')
            p++;
        else if (*p && !isspace((unsigned char)*p))
            return -1;
        while (*p && isspace((unsigned char)*p)) p++;
    }
    return n;
}

/* a node list file of <sysroot>/devices/system/node; -1 where absent */
static int node_list(const char *sysroot, const char *file, int *nodes, int max, struct mcf_err *e)
{
    char path[512], line[4096];
    snprintf(path, sizeof path, "%s/devices/system/node/%s", sysroot, file);
    if (!read_line(path, line, sizeof line)) return -1;
    int n = mcf_numa_parse_list(line, nodes, max);
    if (n < 0)
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "%s holds '%s', not a node list",
                           path, line),
               -2;
    return n;
}

int mcf_numa_memory_nodes(const char *sysroot, int *nodes, int max, int *count, struct mcf_err *e)
{
    int mem[MCF_NUMA_MAX_NODES], cpu[MCF_NUMA_MAX_NODES];
    int nmem = node_list(sysroot, "has_memory", mem, MCF_NUMA_MAX_NODES, e), ncpu, n = 0;
    if (nmem == -1) /* kernels before 2.6.36 have no has_memory: every online node */
        nmem = node_list(sysroot, "online", mem, MCF_NUMA_MAX_NODES, e);
    if (nmem == -1)
        MCF_FAIL(e, MCF_ERUNTIME,
                 "%s/devices/system/node has neither has_memory nor online: no NUMA information",
                 sysroot);
    if (nmem < 0) goto fail;
    ncpu = node_list(sysroot, "has_cpu", cpu, MCF_NUMA_MAX_NODES, e);
    if (ncpu == -2) goto fail;
    for (int i = 0; i < nmem; i++) {
        int with_cpu = ncpu < 0; /* no has_cpu file: every memory node counts */
        for (int j = 0; j < ncpu && !with_cpu; j++) with_cpu = cpu[j] == mem[i];
        if (!with_cpu) continue;
        if (n >= max) MCF_FAIL(e, MCF_ERUNTIME, "more than %d NUMA nodes with memory", max);
        nodes[n++] = mem[i];
    }
    *count = n;
    return MCF_OK;
fail:
    return e->rc;
}

/* the distance from node a to node b (nodeA/distance lists one per online
 * node, in order); -1 where unknown */
static int distance(const char *sysroot, int a, int b)
{
    int online[MCF_NUMA_MAX_NODES];
    char path[512], line[8192];
    struct mcf_err ignore = { 0 };
    int n = node_list(sysroot, "online", online, MCF_NUMA_MAX_NODES, &ignore);
    snprintf(path, sizeof path, "%s/devices/system/node/node%d/distance", sysroot, a);
    if (n <= 0 || !read_line(path, line, sizeof line)) return -1;
    char *p = line;
    for (int i = 0; i < n; i++) {
        char *end;
        long d = strtol(p, &end, 10);
        if (end == p) return -1;
        if (online[i] == b) return (int)d;
        p = end;
    }
    return -1;
}

int mcf_numa_choose(const char *sysroot, const char *bus_id, enum mcf_numa which, int *node,
                    struct mcf_err *e)
{
    int nodes[MCF_NUMA_MAX_NODES], n = 0, gpu = -1, best = -1, best_d = -1;
    MCF_TRY(mcf_numa_pci_node(sysroot, bus_id, &gpu, e));
    MCF_TRY(mcf_numa_memory_nodes(sysroot, nodes, MCF_NUMA_MAX_NODES, &n, e));
    if (gpu < 0 && n == 1) gpu = nodes[0]; /* the firmware names no node, and there is only one */
    if (gpu < 0)
        MCF_FAIL(e, MCF_EUNSUPPORTED,
                 "the NUMA node of PCI device %s is unknown (numa_node -1) on a machine of %d "
                 "memory nodes: no local or remote memory to choose",
                 bus_id, n);
    if (which == MCF_NUMA_LOCAL) {
        *node = gpu;
        return MCF_OK;
    }
    for (int i = 0; i < n; i++) {
        if (nodes[i] == gpu) continue;
        int d = distance(sysroot, gpu, nodes[i]);
        if (best < 0 || d > best_d) best = nodes[i], best_d = d;
    }
    if (best < 0)
        MCF_FAIL(e, MCF_EUNSUPPORTED,
                 "no remote host memory: the machine has %d NUMA node%s with memory and CPUs "
                 "(node %d, PCI device %s's own)",
                 n, n == 1 ? "" : "s", gpu, bus_id);
    *node = best;
    return MCF_OK;
fail:
    return e->rc;
}

/* the node that holds the page at p (get_mempolicy); -1 where unknown */
static int page_node(void *p)
{
    int node = -1;
    if (syscall(SYS_get_mempolicy, &node, NULL, 0UL, p,
                (unsigned long)(MCF_MPOL_F_NODE | MCF_MPOL_F_ADDR)) != 0)
        return -1;
    return node;
}

int mcf_numa_alloc(const char *sysroot, size_t bytes, int node, void **ptr, int *bound,
                   struct mcf_err *e)
{
    unsigned long mask[MCF_NUMA_MAX_NODES / BITS_PER_WORD] = { 0 };
    int nodes[MCF_NUMA_MAX_NODES], n = 0;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *p = MAP_FAILED;
    *ptr = NULL;
    *bound = 0;
    if (bytes == 0 || node < 0 || node >= MCF_NUMA_MAX_NODES)
        MCF_FAIL(e, MCF_EINPUT, "NUMA allocation of %zu bytes on node %d", bytes, node);
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) MCF_FAIL(e, MCF_ERUNTIME, "mmap of %zu bytes: %s", bytes, strerror(errno));
    mask[node / BITS_PER_WORD] |= 1UL << (node % BITS_PER_WORD);
    if (syscall(SYS_mbind, p, bytes, (unsigned long)MCF_MPOL_BIND, mask,
                (unsigned long)MCF_NUMA_MAX_NODES + 1,
                (unsigned long)(MCF_MPOL_MF_STRICT | MCF_MPOL_MF_MOVE)) == 0) {
        *bound = 1;
    } else {
        int err = errno;
        MCF_TRY(mcf_numa_memory_nodes(sysroot, nodes, MCF_NUMA_MAX_NODES, &n, e));
        if (!(n == 1 && nodes[0] == node))
            MCF_FAIL(e, MCF_EUNSUPPORTED,
                     "mbind to NUMA node %d: %s (a container may forbid it; the machine has "
                     "%d memory nodes)",
                     node, strerror(err), n);
    }
    memset(p, 0, bytes); /* every page faulted in, under the policy */
    if (*bound) {
        char *first = (char *)p, *last = (char *)p + (bytes - 1) / page * page;
        int a = page_node(first), b = page_node(last);
        /* -1: get_mempolicy refused; MPOL_BIND's strict placement stands */
        if ((a >= 0 && a != node) || (b >= 0 && b != node))
            MCF_FAIL(e, MCF_ERUNTIME,
                     "memory bound to NUMA node %d lies on node %d (first page) and %d (last page)",
                     node, a, b);
    }
    *ptr = p;
    return MCF_OK;
fail:
    if (p != MAP_FAILED) munmap(p, bytes);
    return e->rc;
}

void mcf_numa_free(void *ptr, size_t bytes)
{
    if (ptr && munmap(ptr, bytes) != 0)
        fprintf(stderr, "mcfleet: munmap of %zu bytes of NUMA memory: %s\n", bytes,
                strerror(errno));
}
