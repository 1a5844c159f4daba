/* rocm-smi-lib, loaded with dlopen (librocm_smi64.so, or $MCFLEET_RSMI_LIB
 * for the tests' stub): one loader for the power source and the health
 * counters, so one binary runs where ROCm is absent. The device is found by
 * PCI bus id (rsmi_dev_pci_id_get's BDFID). Only the library's entry points,
 * its init and the device are required; the rest may be NULL, and the part
 * that needs one says so. Declarations as in ROCm's rocm_smi.h. */
#ifndef MCF_VENDOR_RSMI_H
#define MCF_VENDOR_RSMI_H

#include <stdbool.h>
#include <stdint.h>

#include "amd_pages.h"
#include "error.h"

typedef int rsmi_status_t;
#define RSMI_OK 0
#define RSMI_STATUS_INSUFFICIENT_SIZE 11
#define RSMI_MAX_NUM_FREQUENCIES 33
#define RSMI_GPU_BLOCK_FIRST 0x1ull
#define RSMI_GPU_BLOCK_LAST 0x2000ull

typedef struct {
    uint64_t correctable_err, uncorrectable_err;
} rsmi_error_count_t;
typedef struct {
    bool has_deep_sleep;
    uint32_t num_supported, current;
    uint64_t frequency[RSMI_MAX_NUM_FREQUENCIES];
} rsmi_frequencies_t;
typedef struct {
    rsmi_frequencies_t transfer_rate; /* T/s */
    uint32_t lanes[RSMI_MAX_NUM_FREQUENCIES];
} rsmi_pcie_bandwidth_t;

struct mcf_rsmi {
    void *lib;
    char path[256];
    uint32_t dev;
    /* required */
    rsmi_status_t (*init)(uint64_t);
    rsmi_status_t (*shutdown)(void);
    rsmi_status_t (*status_string)(rsmi_status_t, const char **);
    rsmi_status_t (*count)(uint32_t *);
    rsmi_status_t (*pci)(uint32_t, uint64_t *);
    /* power (src/power/power_rsmi.c) */
    rsmi_status_t (*power_ave)(uint32_t, uint32_t, uint64_t *);
    rsmi_status_t (*socket_power)(uint32_t, uint64_t *); /* newer ROCm only */
    rsmi_status_t (*energy)(uint32_t, uint64_t *, float *, uint64_t *);
    rsmi_status_t (*temp)(uint32_t, uint32_t, int, int64_t *);
    /* health (src/power/health_rsmi.c) */
    rsmi_status_t (*ecc_enabled)(uint32_t, uint64_t *);
    rsmi_status_t (*ecc_count)(uint32_t, uint64_t, rsmi_error_count_t *);
    rsmi_status_t (*reserved_pages)(uint32_t, uint32_t *,
                                    struct mcf_amd_page *); /* rsmi_retired_page_record_t */
    rsmi_status_t (*pci_bandwidth)(uint32_t, rsmi_pcie_bandwidth_t *);
    rsmi_status_t (*serial)(uint32_t, char *, uint32_t);
    /* rsmi_xgmi_status_t: 0 no errors, 1 an error, 2 several, since the
     * driver loaded or the status was last reset */
    rsmi_status_t (*xgmi_error)(uint32_t, int *);
};

/* Loads, initializes and finds the device at bus. MCF_EUNSUPPORTED (no
 * library, not a PCI GPU) or MCF_ERUNTIME (init failed, no device there). */
int mcf_rsmi_open(struct mcf_rsmi *r, const char *bus, struct mcf_err *e);
void mcf_rsmi_close(struct mcf_rsmi *r);
const char *mcf_rsmi_error(const struct mcf_rsmi *r, rsmi_status_t rc);
int mcf_rsmi_need(const struct mcf_rsmi *r, int present, const char *name, struct mcf_err *e);
/* The PCIe link from rsmi_dev_pci_bandwidth_get: the current transfer rate's
 * generation and lanes, and the most of the supported list (max_* may be
 * NULL). 0, or -1 with every figure -1. */
int mcf_rsmi_link(const struct mcf_rsmi *r, int *gen, int *width, int *gen_max, int *width_max);
/* A PCIe transfer rate (T/s) as its generation: 2.5 G -> 1 ... 64 G -> 6; -1 for 0. */
int mcf_pcie_gen_of_rate(uint64_t rate);

#endif
