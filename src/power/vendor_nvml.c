#define _GNU_SOURCE
#include "vendor_nvml.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every entry point, where it goes. The clock-event reasons were renamed in
 * newer drivers, and the process list is versioned: the new name first, the
 * old one where it is missing. */
static const struct {
    size_t off;
    const char *name;
} symbols[] = {
    { offsetof(struct mcf_nvml, init), "nvmlInit_v2" },
    { offsetof(struct mcf_nvml, shutdown), "nvmlShutdown" },
    { offsetof(struct mcf_nvml, error_string), "nvmlErrorString" },
    { offsetof(struct mcf_nvml, by_bus), "nvmlDeviceGetHandleByPciBusId_v2" },
    { offsetof(struct mcf_nvml, power), "nvmlDeviceGetPowerUsage" },
    { offsetof(struct mcf_nvml, energy), "nvmlDeviceGetTotalEnergyConsumption" },
    { offsetof(struct mcf_nvml, temp), "nvmlDeviceGetTemperature" },
    { offsetof(struct mcf_nvml, clock), "nvmlDeviceGetClockInfo" },
    { offsetof(struct mcf_nvml, reasons), "nvmlDeviceGetCurrentClocksEventReasons" },
    { offsetof(struct mcf_nvml, reasons), "nvmlDeviceGetCurrentClocksThrottleReasons" },
    { offsetof(struct mcf_nvml, fields), "nvmlDeviceGetFieldValues" },
    { offsetof(struct mcf_nvml, ecc_total), "nvmlDeviceGetTotalEccErrors" },
    { offsetof(struct mcf_nvml, remapped_rows), "nvmlDeviceGetRemappedRows" },
    { offsetof(struct mcf_nvml, retired_pages), "nvmlDeviceGetRetiredPages" },
    { offsetof(struct mcf_nvml, retired_pending), "nvmlDeviceGetRetiredPagesPendingStatus" },
    { offsetof(struct mcf_nvml, link_gen), "nvmlDeviceGetCurrPcieLinkGeneration" },
    { offsetof(struct mcf_nvml, link_gen_max), "nvmlDeviceGetMaxPcieLinkGeneration" },
    { offsetof(struct mcf_nvml, link_width), "nvmlDeviceGetCurrPcieLinkWidth" },
    { offsetof(struct mcf_nvml, link_width_max), "nvmlDeviceGetMaxPcieLinkWidth" },
    { offsetof(struct mcf_nvml, serial), "nvmlDeviceGetSerial" },
    { offsetof(struct mcf_nvml, nvlink_state), "nvmlDeviceGetNvLinkState" },
    { offsetof(struct mcf_nvml, nvlink_errors), "nvmlDeviceGetNvLinkErrorCounter" },
    { offsetof(struct mcf_nvml, compute_procs), "nvmlDeviceGetComputeRunningProcesses_v3" },
    { offsetof(struct mcf_nvml, compute_procs), "nvmlDeviceGetComputeRunningProcesses_v2" },
    { offsetof(struct mcf_nvml, compute_procs), "nvmlDeviceGetComputeRunningProcesses" },
};

const char *mcf_nvml_error(const struct mcf_nvml *n, nvmlReturn_t rc)
{
    const char *s = n->error_string ? n->error_string(rc) : NULL;
    return s ? s : "unknown NVML error";
}

int mcf_nvml_need(const struct mcf_nvml *n, int present, const char *name, struct mcf_err *e)
{
    if (present) return MCF_OK;
    return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "NVML: %s lacks %s", n->path, name);
}

int mcf_nvml_open(struct mcf_nvml *n, const char *bus, struct mcf_err *e)
{
    const char *path = getenv("MCFLEET_NVML_LIB");
    nvmlReturn_t rc;
    int initialized = 0;
    memset(n, 0, sizeof *n);
    snprintf(n->path, sizeof n->path, "%s", path && *path ? path : "libnvidia-ml.so.1");
    if (!bus[0] || !strcmp(bus, "none"))
        MCF_FAIL(e, MCF_EUNSUPPORTED, "NVML: this rank's device is not a PCI GPU");
    if (!(n->lib = dlopen(n->path, RTLD_NOW | RTLD_LOCAL)))
        MCF_FAIL(e, MCF_EUNSUPPORTED, "NVML: cannot load %s: %s", n->path, dlerror());
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        void **slot = (void **)((char *)n + symbols[i].off);
        if (!*slot) *slot = dlsym(n->lib, symbols[i].name);
    }
    MCF_TRY(mcf_nvml_need(n, n->error_string != NULL, "nvmlErrorString", e));
    MCF_TRY(mcf_nvml_need(n, n->init != NULL, "nvmlInit_v2", e));
    MCF_TRY(mcf_nvml_need(n, n->shutdown != NULL, "nvmlShutdown", e));
    MCF_TRY(mcf_nvml_need(n, n->by_bus != NULL, "nvmlDeviceGetHandleByPciBusId_v2", e));
    if ((rc = n->init()) != NVML_SUCCESS)
        MCF_FAIL(e, MCF_ERUNTIME, "NVML: nvmlInit_v2 failed: %s", mcf_nvml_error(n, rc));
    initialized = 1;
    if ((rc = n->by_bus(bus, &n->dev)) != NVML_SUCCESS)
        MCF_FAIL(e, MCF_ERUNTIME, "NVML: no device at PCI %s: %s", bus, mcf_nvml_error(n, rc));
    return MCF_OK;
fail:
    if (initialized) n->shutdown();
    if (n->lib) dlclose(n->lib);
    n->lib = NULL;
    return e->rc;
}

void mcf_nvml_close(struct mcf_nvml *n)
{
    if (!n->lib) return;
    n->shutdown();
    dlclose(n->lib);
    n->lib = NULL;
}

int mcf_nvml_link(const struct mcf_nvml *n, int *gen, int *width)
{
    unsigned g, w;
    *gen = n->link_gen && n->link_gen(n->dev, &g) == NVML_SUCCESS ? (int)g : -1;
    *width = n->link_width && n->link_width(n->dev, &w) == NVML_SUCCESS ? (int)w : -1;
    return *gen >= 0 && *width >= 0 ? 0 : -1;
}

int mcf_nvml_compute_procs(const struct mcf_nvml *n)
{
    /* a count of 0 asks for the number only: INSUFFICIENT_SIZE with the
     * number, or SUCCESS where there is none (NVML's documented use) */
    unsigned count = 0;
    nvmlReturn_t rc;
    if (!n->compute_procs) return -1;
    rc = n->compute_procs(n->dev, &count, NULL);
    return rc == NVML_SUCCESS ? 0 : rc == NVML_ERROR_INSUFFICIENT_SIZE ? (int)count : -1;
}
