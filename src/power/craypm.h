/* HPE Cray /sys/cray/pm_counters. Each value file holds "<value> <unit>
 * <timestamp> us" (e.g. "724 W 7810213855886 us"). `freshness` changes when
 * the counters are updated (about raw_scan_hz times a second): a snapshot
 * reads it before and after the value files and retries when it changed in
 * between (a torn read). `generation` and `startup` change when the counters
 * are reset: energies are comparable only while both stay the same. */
#ifndef MCF_CRAYPM_H
#define MCF_CRAYPM_H

/* The longest pm_counters directory: its file paths fit craypm.c's buffers. */
#define MCF_CRAYPM_ROOT_MAX 960

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCF_CRAYPM_MAX_ACCEL 8
#define MCF_CRAYPM_RETRIES 5

struct mcf_craypm_value {
    int present;
    double value; /* W or J */
    double t_us; /* the file's own timestamp */
};

struct mcf_craypm_snapshot {
    long long freshness, generation, startup;
    double raw_scan_hz;
    struct mcf_craypm_value power, energy, cpu_power, cpu_energy, memory_power, memory_energy;
    struct mcf_craypm_value accel_power[MCF_CRAYPM_MAX_ACCEL], accel_energy[MCF_CRAYPM_MAX_ACCEL];
    int naccel; /* accelN_power files found */
    int retries; /* torn reads retried */
};

/* Reads a consistent snapshot from root (normally /sys/cray/pm_counters).
 * between(ctx), when given, runs between the first freshness read and the
 * value files: the tests use it to tear a read. MCF_EUNSUPPORTED when root
 * has no pm_counters; MCF_ERUNTIME when every retry was torn. */
int mcf_craypm_read(const char *root, struct mcf_craypm_snapshot *s, void (*between)(void *),
                    void *ctx, struct mcf_err *e);

/* Whether energies of a and b may be subtracted (same generation and startup). */
int mcf_craypm_comparable(const struct mcf_craypm_snapshot *a, const struct mcf_craypm_snapshot *b);

/* pm_counters numbers a node's accelerators accel0, accel1, ... without
 * saying which is which; mcfleet maps them in the order of the GPUs' PCI bus
 * ids (sorted as strings), as HPE's own tools list them. Returns the index of
 * mine among the node's bus ids, or -1. */
int mcf_craypm_accel_index(const char *mine, const char *const *node_buses, int n);

#ifdef __cplusplus
}
#endif

#endif
