/* NVML, loaded with dlopen (libnvidia-ml.so.1, or $MCFLEET_NVML_LIB for the
 * tests' stub): one loader for every part that reads NVML (the power source,
 * the health counters), so one binary runs where there is no NVIDIA driver.
 * Only the library's entry points, its init and this rank's device are
 * required; every other entry point is looked up and may be NULL, and the
 * part that needs it says so (a reading it cannot take, with the reason). */
#ifndef MCF_VENDOR_NVML_H
#define MCF_VENDOR_NVML_H

#include "error.h"

/* The few NVML definitions used here (nvml.h is not needed to build; values
 * as documented in NVIDIA's nvml.h). */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef union {
    double dVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    long long sllVal;
    int siVal;
    unsigned short usVal;
} nvmlValue_t;
typedef struct {
    unsigned int fieldId, scopeId;
    long long timestamp, latencyUsec;
    int valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_FI_DEV_POWER_INSTANT 186
#define NVML_TEMPERATURE_GPU 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_MEMORY_ERROR_TYPE_CORRECTED 0
#define NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1
#define NVML_VOLATILE_ECC 0
#define NVML_AGGREGATE_ECC 1
#define NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS 0
#define NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR 1
#define NVML_FEATURE_ENABLED 1
#define NVML_DEVICE_SERIAL_BUFFER_SIZE 30
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_FI_DEV_NVLINK_LINK_COUNT 91 /* the NVLinks the device has (uiVal) */
#define NVML_NVLINK_MAX_LINKS 18
/* nvmlNvLinkErrorCounter_t: data-link transmit replays and recoveries,
 * receive CRC errors on flow-control digits and on data */
#define NVML_NVLINK_ERROR_DL_REPLAY 0
#define NVML_NVLINK_ERROR_DL_RECOVERY 1
#define NVML_NVLINK_ERROR_DL_CRC_FLIT 2
#define NVML_NVLINK_ERROR_DL_CRC_DATA 3

struct mcf_nvml {
    void *lib;
    char path[256];
    nvmlDevice_t dev;
    /* required */
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*shutdown)(void);
    const char *(*error_string)(nvmlReturn_t);
    nvmlReturn_t (*by_bus)(const char *, nvmlDevice_t *);
    /* power (src/power/power_nvml.c) */
    nvmlReturn_t (*power)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long *);
    nvmlReturn_t (*temp)(nvmlDevice_t, int, unsigned int *);
    nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int *);
    nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long *);
    nvmlReturn_t (*fields)(nvmlDevice_t, int, nvmlFieldValue_t *);
    /* health (src/power/health_nvml.c) */
    nvmlReturn_t (*ecc_total)(nvmlDevice_t, int, int, unsigned long long *);
    nvmlReturn_t (*remapped_rows)(nvmlDevice_t, unsigned int *, unsigned int *, unsigned int *,
                                  unsigned int *);
    nvmlReturn_t (*retired_pages)(nvmlDevice_t, int, unsigned int *, unsigned long long *);
    nvmlReturn_t (*retired_pending)(nvmlDevice_t, int *);
    nvmlReturn_t (*link_gen)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*link_gen_max)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*link_width)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*link_width_max)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*serial)(nvmlDevice_t, char *, unsigned int);
    /* NVLink (src/power/health_nvml.c): a link's state (nvmlEnableState_t)
     * and its error counters (nvmlNvLinkErrorCounter_t) */
    nvmlReturn_t (*nvlink_state)(nvmlDevice_t, unsigned int, int *);
    nvmlReturn_t (*nvlink_errors)(nvmlDevice_t, unsigned int, int, unsigned long long *);
    /* the processes with a compute context on the device (only counted: the
     * list's entry layout differs between versions, its length does not) */
    nvmlReturn_t (*compute_procs)(nvmlDevice_t, unsigned int *, void *);
};

/* Loads the library, initializes it and finds the device at bus (e.g.
 * 0000:00:06.0). MCF_EUNSUPPORTED (no library, not a PCI GPU) or
 * MCF_ERUNTIME (init failed, no device there) with the reason. */
int mcf_nvml_open(struct mcf_nvml *n, const char *bus, struct mcf_err *e);
void mcf_nvml_close(struct mcf_nvml *n);
const char *mcf_nvml_error(const struct mcf_nvml *n, nvmlReturn_t rc);
/* MCF_EUNSUPPORTED "NVML: <path> lacks <name>" where the entry point is missing (present = 0). */
int mcf_nvml_need(const struct mcf_nvml *n, int present, const char *name, struct mcf_err *e);
/* The current PCIe link: 0, or -1 where either reading failed (each -1 then). */
int mcf_nvml_link(const struct mcf_nvml *n, int *gen, int *width);
/* How many processes hold a compute context on the device (mcfleet's own
 * rank among them, once it has one): >= 0, or -1 where it cannot be read. */
int mcf_nvml_compute_procs(const struct mcf_nvml *n);

#endif
