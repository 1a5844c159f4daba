/* src/link/numa.c: sysfs parsing on fake trees, the choice of local and
 * remote nodes, and an allocation bound to node 0 of this machine. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "numa.h"

static char root[256];

/* writes text to root/rel, making its directories */
static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void clean(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

static void fresh_root(void)
{
    snprintf(root, sizeof root, "%s/mcf-numa-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(root));
}

static void pci_names(void **state)
{
    (void)state;
    char out[64];
    struct mcf_err e = { 0 };
    assert_int_equal(mcf_numa_pci_name("00000000:3B:00.0", out, sizeof out, &e), MCF_OK);   /* NVML's */
    assert_string_equal(out, "0000:3b:00.0");
    assert_int_equal(mcf_numa_pci_name("0000:C1:1f.7", out, sizeof out, &e), MCF_OK);       /* CUDA's, HIP's */
    assert_string_equal(out, "0000:c1:1f.7");
    assert_int_equal(mcf_numa_pci_name("10000:01:00.0", out, sizeof out, &e), MCF_OK);      /* a VMD domain */
    assert_string_equal(out, "10000:01:00.0");
    assert_int_equal(mcf_numa_pci_name("0000:3b:00", out, sizeof out, &e), MCF_EINPUT);
    assert_non_null(strstr(e.msg, "'0000:3b:00' is no PCI address"));
    mcf_err_clear(&e);
    assert_int_equal(mcf_numa_pci_name("0000:3b:00.0 ", out, sizeof out, &e), MCF_EINPUT);
}

static void node_lists(void **state)
{
    (void)state;
    int n[16];
    assert_int_equal(mcf_numa_parse_list("0-3,8,10-11", n, 16), 7);
    assert_int_equal(n[0], 0);
    assert_int_equal(n[3], 3);
    assert_int_equal(n[4], 8);
    assert_int_equal(n[6], 11);
    assert_int_equal(mcf_numa_parse_list("1\n", n, 16), 1);
    assert_int_equal(n[0], 1);
    assert_int_equal(mcf_numa_parse_list("", n, 16), 0);
    assert_int_equal(mcf_numa_parse_list("x", n, 16), -1);
    assert_int_equal(mcf_numa_parse_list("3-1", n, 16), -1);
    assert_int_equal(mcf_numa_parse_list("0-20", n, 16), -1);   /* more than max */
}

/* two sockets, and two more nodes of memory without CPUs (a GPU's HBM shown
 * as nodes, as on Grace Hopper): remote is the other socket, never the HBM */
static void two_sockets(void **state)
{
    (void)state;
    struct mcf_err e = { 0 };
    int node = -9, nodes[8], n = 0;
    fresh_root();
    put("bus/pci/devices/0000:3b:00.0/numa_node", "1\n");
    put("devices/system/node/online", "0-3\n");
    put("devices/system/node/has_memory", "0-3\n");
    put("devices/system/node/has_cpu", "0-1\n");
    put("devices/system/node/node1/distance", "21 10 80 80\n");
    assert_int_equal(mcf_numa_memory_nodes(root, nodes, 8, &n, &e), MCF_OK);
    assert_int_equal(n, 2);
    assert_int_equal(nodes[0], 0);
    assert_int_equal(nodes[1], 1);
    assert_int_equal(mcf_numa_pci_node(root, "00000000:3B:00.0", &node, &e), MCF_OK);
    assert_int_equal(node, 1);
    assert_int_equal(mcf_numa_choose(root, "0000:3B:00.0", MCF_NUMA_LOCAL, &node, &e), MCF_OK);
    assert_int_equal(node, 1);
    assert_int_equal(mcf_numa_choose(root, "0000:3B:00.0", MCF_NUMA_REMOTE, &node, &e), MCF_OK);
    assert_int_equal(node, 0);
    /* a device that is not there: the path in the message */
    assert_int_equal(mcf_numa_pci_node(root, "0000:99:00.0", &node, &e), MCF_ERUNTIME);
    assert_non_null(strstr(e.msg, "bus/pci/devices/0000:99:00.0/numa_node"));
    clean();
}

/* four sockets: remote is the farthest other node */
static void farthest(void **state)
{
    (void)state;
    struct mcf_err e = { 0 };
    int node = -9;
    fresh_root();
    put("bus/pci/devices/0000:c1:00.0/numa_node", "0");
    put("devices/system/node/online", "0-3");
    put("devices/system/node/has_memory", "0-3");
    put("devices/system/node/node0/distance", "10 12 32 12");
    assert_int_equal(mcf_numa_choose(root, "0000:c1:00.0", MCF_NUMA_REMOTE, &node, &e), MCF_OK);
    assert_int_equal(node, 2);
    /* garbage in numa_node is an error naming the file, not node 0 */
    put("bus/pci/devices/0000:c1:00.0/numa_node", "zero");
    assert_int_equal(mcf_numa_choose(root, "0000:c1:00.0", MCF_NUMA_LOCAL, &node, &e), MCF_ERUNTIME);
    assert_non_null(strstr(e.msg, "not a NUMA node"));
    clean();
}

/* one node, the firmware naming none (-1): local is node 0, remote unsupported */
static void one_node(void **state)
{
    (void)state;
    struct mcf_err e = { 0 };
    int node = -9;
    fresh_root();
    put("bus/pci/devices/0000:3b:00.0/numa_node", "-1");
    put("devices/system/node/has_memory", "0");
    assert_int_equal(mcf_numa_choose(root, "0000:3b:00.0", MCF_NUMA_LOCAL, &node, &e), MCF_OK);
    assert_int_equal(node, 0);
    assert_int_equal(mcf_numa_choose(root, "0000:3b:00.0", MCF_NUMA_REMOTE, &node, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "no remote host memory: the machine has 1 NUMA node with memory"));
    /* unknown node on a machine of two: neither can be chosen */
    mcf_err_clear(&e);
    put("devices/system/node/has_memory", "0-1");
    assert_int_equal(mcf_numa_choose(root, "0000:3b:00.0", MCF_NUMA_LOCAL, &node, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "is unknown (numa_node -1)"));
    /* no node information at all */
    mcf_err_clear(&e);
    clean();
    fresh_root();
    put("bus/pci/devices/0000:3b:00.0/numa_node", "0");
    assert_int_equal(mcf_numa_choose(root, "0000:3b:00.0", MCF_NUMA_LOCAL, &node, &e), MCF_ERUNTIME);
    assert_non_null(strstr(e.msg, "neither has_memory nor online"));
    clean();
}

/* this machine: memory bound to node 0, written and read back; on a machine
 * of one node, a remote choice for any PCI device is unsupported */
static void this_machine(void **state)
{
    (void)state;
    struct mcf_err e = { 0 };
    int nodes[MCF_NUMA_MAX_NODES], n = 0, bound = -1, node = -9;
    void *p = NULL;
    size_t bytes = (4u << 20) + 4096;   /* not a multiple of a huge page */
    assert_int_equal(mcf_numa_memory_nodes("/sys", nodes, MCF_NUMA_MAX_NODES, &n, &e), MCF_OK);
    assert_true(n >= 1);
    assert_int_equal(mcf_numa_alloc("/sys", bytes, nodes[0], &p, &bound, &e), MCF_OK);
    assert_non_null(p);
    assert_true(bound == 1 || n == 1);
    unsigned char *b = (unsigned char *)p;
    assert_int_equal(b[0], 0);
    assert_int_equal(b[bytes - 1], 0);
    memset(b, 0xa5, bytes);
    assert_int_equal(b[bytes / 2], 0xa5);
    mcf_numa_free(p, bytes);
    /* a node that does not exist is refused, not silently taken */
    mcf_err_clear(&e);
    int missing = nodes[n - 1] + 1;
    p = NULL;
    assert_int_not_equal(mcf_numa_alloc("/sys", bytes, missing, &p, &bound, &e), MCF_OK);
    assert_null(p);
    mcf_err_clear(&e);
    assert_int_equal(mcf_numa_alloc("/sys", 0, 0, &p, &bound, &e), MCF_EINPUT);
    if (n == 1) {
        FILE *f = popen("ls /sys/bus/pci/devices 2>/dev/null | head -1", "r");
        char dev[64] = "";
        if (f) {
            if (!fgets(dev, sizeof dev, f))
                dev[0] = '\0';
            pclose(f);
        }
        dev[strcspn(dev, "\n")] = '\0';
        if (dev[0]) {
            mcf_err_clear(&e);
            assert_int_equal(mcf_numa_choose("/sys", dev, MCF_NUMA_REMOTE, &node, &e), MCF_EUNSUPPORTED);
            assert_non_null(strstr(e.msg, "no remote host memory"));
            mcf_err_clear(&e);
            assert_int_equal(mcf_numa_choose("/sys", dev, MCF_NUMA_LOCAL, &node, &e), MCF_OK);
            assert_int_equal(node, nodes[0]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pci_names), cmocka_unit_test(node_lists), cmocka_unit_test(two_sockets),
        cmocka_unit_test(farthest), cmocka_unit_test(one_node), cmocka_unit_test(this_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
