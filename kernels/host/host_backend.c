/* The host backend's table and device identity. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "host.h"
#include "numparse.h"

#define HOST_MAX_THREADS 4096

static int host_init(void **state, const struct mcf_rank_env *env, struct mcf_err *e)
{
    struct host_state *s = NULL;
    MCF_ALLOC(e, s, 1);
    const char *forced = getenv("MCFLEET_HOST_THREADS");
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t want = 0;
    if (forced && *forced) { /* set: exactly a thread count, never quietly replaced */
        int rc = mcf_parse_uint(forced, HOST_MAX_THREADS, &want);
        if (rc != MCF_NUM_OK || want < 1)
            MCF_FAIL(e, MCF_EINPUT,
                     "MCFLEET_HOST_THREADS='%.64s': expected a number of worker threads "
                     "from 1 to %d (%s)",
                     forced, HOST_MAX_THREADS,
                     rc == MCF_NUM_MALFORMED ? mcf_uint_problem(forced) : "out of range");
        s->threads = (int)want;
    } else if (env->ncpus > 0 && env->ncpus < online) {
        s->threads = env->ncpus; /* the launcher bound us: use what we were given */
    } else {
        /* unbound: share the node's CPUs among its ranks */
        s->threads = (int)(online / (env->local_size > 0 ? env->local_size : 1));
    }
    if (s->threads < 1) s->threads = 1;
    *state = s;
    return MCF_OK;
fail:
    free(s);
    return e->rc;
}

static void host_finalize(void *state)
{
    free(state);
}

/* First value of "key : value" lines in a file, like /proc/cpuinfo. */
static void file_field(const char *path, const char *key, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    char line[512];
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, strlen(key)) != 0) continue;
        char *colon = strchr(line, ':');
        if (!colon) continue;
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(out, len, "%s", colon);
        break;
    }
    fclose(f);
}

static uint64_t cache_size(int index)
{
    char path[128], text[64] = "";
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    if (!fgets(text, sizeof text, f)) text[0] = '\0';
    fclose(f);
    char *end;
    uint64_t v = strtoull(text, &end, 10);
    if (*end == 'K')
        v <<= 10;
    else if (*end == 'M')
        v <<= 20;
    return v;
}

static int host_device_info(void *state, struct mcf_device_info *d, struct mcf_err *e)
{
    const struct host_state *s = state;
    struct utsname u;
    char mhz[32] = "";
    (void)e;
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "host CPU");
    file_field("/proc/cpuinfo", "model name", d->name, sizeof d->name);
    file_field("/proc/cpuinfo", "cpu MHz", mhz, sizeof mhz);
    d->clock_mhz = atof(mhz);
    snprintf(d->uuid, sizeof d->uuid, "unknown");
    FILE *f = fopen("/etc/machine-id", "r");
    if (f) {
        char id[64] = "";
        if (fgets(id, sizeof id, f)) {
            id[strcspn(id, "\n")] = '\0';
            snprintf(d->uuid, sizeof d->uuid, "machine-id:%s", id);
        }
        fclose(f);
    }
    /* testing: the host rank stands for the GPU at this PCI address, so that
     * the vendor power and health sources run end to end against the stub
     * libraries (tests/clock_check.sh); /ranks/device_pci_bus records it */
    const char *bus = getenv("MCFLEET_HOST_PCI_BUS_ID");
    snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%s", bus && *bus ? bus : "none");
    if (uname(&u) == 0) {
        snprintf(d->driver, sizeof d->driver, "linux %.56s", u.release);
        snprintf(d->arch, sizeof d->arch, "%.31s", u.machine);
    }
    d->memory_bytes = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    d->l1_bytes = cache_size(0);
    for (int i = 0; i < 8; i++) { /* the last cache level listed */
        uint64_t c = cache_size(i);
        if (c) d->cache_bytes = c;
    }
    d->compute_units = s->threads;
    return MCF_OK;
}

const struct mcf_backend mcf_backend_host = {
    .name = "host",
    .summary = "CPU threads with the semantics of the GPU kernels (always built)",
    .caps = 0,
    .is_gpu = 0,
    .init = host_init,
    .finalize = host_finalize,
    .device_info = host_device_info,
    .family = {
        [MCF_FAMILY_MATRIX] = &host_matrix_ops,
        [MCF_FAMILY_VALU] = &host_valu_ops,
        [MCF_FAMILY_MEMORY] = &host_memory_ops,
        [MCF_FAMILY_LATENCY] = &host_latency_ops,
        [MCF_FAMILY_STREAMS] = &host_streams_ops,
        [MCF_FAMILY_GEMM] = &host_gemm_ops,
        [MCF_FAMILY_LADDER] = &host_ladder_ops,
        [MCF_FAMILY_TRANSFER] = &host_transfer_ops,
    },
    .mfma_exec = host_mfma_exec,
};
