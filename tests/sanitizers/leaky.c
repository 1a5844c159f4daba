/* The sanitizer build's own check (tests/sanitizers/selftest.sh): a program
 * that commits, on request, each kind of error the sanitizer build must catch,
 * the way mcfleet would (after MPI_Init, with hwloc), and a clean mode that
 * uses MPI and hwloc as mcfleet does and must produce no report under
 * tests/sanitizers/lsan.supp. Built only by configure --enable-sanitizers.
 *     leaky clean|leak|overflow|use-after-free|ubsan
 * Exit: 0 when the mode ran to its end, 2 for an unknown mode. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#ifdef MCF_HAVE_HWLOC
#include <hwloc.h>
#endif

static void *volatile keep;   /* defeats the optimiser, not the leak checker */

/* an hwloc topology as src/run/locality.c uses one */
static int topology(void)
{
#ifdef MCF_HAVE_HWLOC
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0)
        return -1;
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    int rc = hwloc_topology_load(t);
    hwloc_topology_destroy(t);
    return rc;
#else
    return 0;
#endif
}

/* out of line, so that the store can be neither dropped nor checked for
 * object size by UBSan: ASan must be the one to see it */
__attribute__((noinline)) static void fill(char *p, size_t n)
{
    memset(p, 1, n);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int rc = 0;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "leaky: MPI_Init failed\n");
        return 3;
    }
    if (!strcmp(mode, "clean")) {
        rc = topology() == 0 ? 0 : 3;
    } else if (!strcmp(mode, "leak")) {
        keep = malloc(4096);
        keep = NULL;
    } else if (!strcmp(mode, "overflow")) {
        char *p = malloc(16);
        keep = p;
        fill(p, 17);
        free(p);
    } else if (!strcmp(mode, "use-after-free")) {
        int *p = malloc(sizeof *p);
        keep = p;
        free(p);
        rc = ((int *)keep)[0] == 42 ? 3 : 0;   /* the read is the error */
    } else if (!strcmp(mode, "ubsan")) {
        volatile int big = 2147483647;
        volatile int sum = big + argc;   /* signed overflow */
        (void)sum;
    } else {
        fprintf(stderr, "leaky: unknown mode '%s'\n", mode);
        rc = 2;
    }
    MPI_Finalize();
    return rc;
}
