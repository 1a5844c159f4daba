/* Power sources as tables, like the backends: NVML (NVIDIA), rocm-smi-lib
 * and amd-smi (AMD), HPE Cray pm_counters. Each may be absent: opening one that cannot
 * work disables it with its reason (recorded), and the run goes on. Vendor
 * libraries are loaded with dlopen, so one binary runs where they are not. */
#ifndef MCF_POWER_H
#define MCF_POWER_H

#include <stdint.h>

#include "energy.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a source needs to find this rank's device. */
struct mcf_power_env {
    char pci_bus_id[32]; /* e.g. 0000:00:06.0 */
    int local_rank;
    int node_leader; /* local rank 0: reads node-level counters */
    int accel_index; /* pm_counters accelN for this rank, -1 unknown */
};

/* One reading beyond power and energy. NaN / 0 where the source has none. */
struct mcf_preading {
    struct mcf_psample s; /* t (set by the sampler), power_w, energy_j */
    double src_t; /* the source's own timestamp of the values (s, its clock), NaN if none */
    double power_avg_w; /* the source's own averaged power, where it has both */
    double temp_c, sm_mhz, mem_mhz;
    double cpu_w, memory_w; /* node sources: the node's CPU and memory power */
    uint64_t throttle; /* vendor bit mask of clock-limiting reasons */
    int throttle_read; /* 1: the source read the mask (NVML); 0: it has none */
    int pcie_gen,
        pcie_width; /* the current PCIe link, read every MCF_LINK_EVERY readings; -1 otherwise */
    int gpu_procs; /* processes with a compute context on the device (this rank's own
                    * included), read with the link; -1 otherwise or where the source has none */
};

/* The link and the GPU's process count are read every this many readings
 * (every 0.2 s at the default 20 ms period): cheap, and enough to see them
 * during any test. */
#define MCF_LINK_EVERY 10

/* A reading with nothing in it: every figure NaN, no reasons, no stamp. */
static inline void mcf_preading_blank(struct mcf_preading *r)
{
    r->s.power_w = r->s.energy_j = r->power_avg_w = r->temp_c = r->sm_mhz = r->mem_mhz = 0.0 / 0.0;
    r->cpu_w = r->memory_w = r->src_t = 0.0 / 0.0;
    r->throttle = 0;
    r->throttle_read = 0;
    r->pcie_gen = r->pcie_width = r->gpu_procs = -1;
}

/* The kinds of source a deck names under `power: sources:` (bit k of its
 * mask): the one list of those names. craypm covers both Cray counters.
 * New kinds go last, so a kind's bit never changes. */
enum mcf_power_kind {
    MCF_POWER_NVML,
    MCF_POWER_RSMI,
    MCF_POWER_CRAYPM,
    MCF_POWER_AMDSMI,
    MCF_POWER_KINDS
};
static inline const char *mcf_power_kind_name(int k)
{
    static const char *const names[MCF_POWER_KINDS] = { "nvml", "rsmi", "craypm", "amdsmi" };
    return k >= 0 && k < MCF_POWER_KINDS ? names[k] : "?";
}

struct mcf_power_source {
    const char *name;
    enum mcf_power_kind kind;
    const char *scope; /* what the reading covers: "device", "package", "node accelerator" */
    int node_level; /* read by local rank 0 only; never a rank's per-test source */
    /* MCF_OK, or MCF_EUNSUPPORTED / MCF_ERUNTIME with why the source is off */
    int (*open)(void **state, const struct mcf_power_env *env, struct mcf_err *e);
    int (*read)(void *state, struct mcf_preading *r, struct mcf_err *e);
    void (*close)(void *state);
};

extern const struct mcf_power_source mcf_power_nvml, mcf_power_rsmi, mcf_power_amdsmi,
    mcf_power_craypm, mcf_power_craypm_node;
/* NULL-terminated, in the order they are tried (power_sources.c). */
extern const struct mcf_power_source *const mcf_power_sources[];

#ifdef __cplusplus
}
#endif

#endif
