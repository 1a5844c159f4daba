/* NVML, loaded with dlopen (libnvidia-ml.so.1, or $MCFLEET_NVML_LIB for the
 * tests' stub), so one binary runs where there is no NVIDIA driver. Reads the
 * averaged power (nvmlDeviceGetPowerUsage), the instantaneous power field
 * NVML_FI_DEV_POWER_INSTANT where the GPU has it, the total-energy counter
 * (mJ), temperature, SM and memory clocks and the clock-event reasons. Every
 * return code is checked; a reading that fails is NaN, never a number. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "power.h"

/* The few NVML definitions used here (nvml.h is not needed to build). */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef union { double dVal; unsigned int uiVal; unsigned long ulVal; unsigned long long ullVal;
                long long sllVal; int siVal; unsigned short usVal; } nvmlValue_t;
typedef struct {
    unsigned int fieldId, scopeId;
    long long timestamp, latencyUsec;
    int valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;
#define NVML_SUCCESS 0
#define NVML_FI_DEV_POWER_INSTANT 186
#define NVML_TEMPERATURE_GPU 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2

struct nvml {
    void *lib;
    nvmlDevice_t dev;
    int instant;                       /* the instantaneous field works on this GPU */
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*shutdown)(void);
    const char *(*error_string)(nvmlReturn_t);
    nvmlReturn_t (*by_bus)(const char *, nvmlDevice_t *);
    nvmlReturn_t (*power)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long *);
    nvmlReturn_t (*temp)(nvmlDevice_t, int, unsigned int *);
    nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int *);
    nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long *);
    nvmlReturn_t (*fields)(nvmlDevice_t, int, nvmlFieldValue_t *);
};

static const char *nvml_err(const struct nvml *n, nvmlReturn_t rc)
{
    return n->error_string ? n->error_string(rc) : "unknown NVML error";
}

#define SYM(e, n, field, name)                                                            \
    do { *(void **)&(n)->field = dlsym((n)->lib, name);                                   \
         if (!(n)->field) MCF_FAIL(e, MCF_EUNSUPPORTED, "NVML: %s lacks %s", path, name); } while (0)

static int nvml_open(void **state, const struct mcf_power_env *env, struct mcf_err *e)
{
    struct nvml *n = NULL;
    const char *path = getenv("MCFLEET_NVML_LIB");
    nvmlReturn_t rc;
    int initialized = 0;
    if (!path || !*path)
        path = "libnvidia-ml.so.1";
    if (!env->pci_bus_id[0] || !strcmp(env->pci_bus_id, "none"))
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "NVML: this rank's device is not a PCI GPU");
    MCF_ALLOC(e, n, 1);
    if (!(n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
        MCF_FAIL(e, MCF_EUNSUPPORTED, "NVML: cannot load %s: %s", path, dlerror());
    SYM(e, n, error_string, "nvmlErrorString");
    SYM(e, n, init, "nvmlInit_v2");
    SYM(e, n, shutdown, "nvmlShutdown");
    SYM(e, n, by_bus, "nvmlDeviceGetHandleByPciBusId_v2");
    SYM(e, n, power, "nvmlDeviceGetPowerUsage");
    SYM(e, n, energy, "nvmlDeviceGetTotalEnergyConsumption");
    SYM(e, n, temp, "nvmlDeviceGetTemperature");
    SYM(e, n, clock, "nvmlDeviceGetClockInfo");
    SYM(e, n, fields, "nvmlDeviceGetFieldValues");
    /* renamed in newer drivers; either will do */
    *(void **)&n->reasons = dlsym(n->lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!n->reasons)
        *(void **)&n->reasons = dlsym(n->lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    if ((rc = n->init()) != NVML_SUCCESS)
        MCF_FAIL(e, MCF_ERUNTIME, "NVML: nvmlInit_v2 failed: %s", nvml_err(n, rc));
    initialized = 1;
    if ((rc = n->by_bus(env->pci_bus_id, &n->dev)) != NVML_SUCCESS)
        MCF_FAIL(e, MCF_ERUNTIME, "NVML: no device at PCI %s: %s", env->pci_bus_id, nvml_err(n, rc));
    {
        nvmlFieldValue_t fv;
        memset(&fv, 0, sizeof fv);
        fv.fieldId = NVML_FI_DEV_POWER_INSTANT;
        n->instant = n->fields(n->dev, 1, &fv) == NVML_SUCCESS && fv.nvmlReturn == NVML_SUCCESS;
    }
    *state = n;
    return MCF_OK;
fail:
    if (n) {
        if (initialized) n->shutdown();
        if (n->lib) dlclose(n->lib);
        free(n);
    }
    return e->rc;
}

static int nvml_read(void *state, struct mcf_preading *r, struct mcf_err *e)
{
    struct nvml *n = state;
    unsigned int mw, v;
    unsigned long long mj, reasons;
    (void)e;
    mcf_preading_blank(r);
    if (n->power(n->dev, &mw) == NVML_SUCCESS)
        r->power_avg_w = mw * 1e-3;
    r->s.power_w = r->power_avg_w;
    if (n->instant) {
        nvmlFieldValue_t fv;
        memset(&fv, 0, sizeof fv);
        fv.fieldId = NVML_FI_DEV_POWER_INSTANT;
        if (n->fields(n->dev, 1, &fv) == NVML_SUCCESS && fv.nvmlReturn == NVML_SUCCESS)
            r->s.power_w = fv.value.uiVal * 1e-3;
    }
    if (n->energy(n->dev, &mj) == NVML_SUCCESS)
        r->s.energy_j = (double)mj * 1e-3;
    if (n->temp(n->dev, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) r->temp_c = v;
    if (n->clock(n->dev, NVML_CLOCK_SM, &v) == NVML_SUCCESS) r->sm_mhz = v;
    if (n->clock(n->dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS) r->mem_mhz = v;
    if (n->reasons && n->reasons(n->dev, &reasons) == NVML_SUCCESS) r->throttle = reasons;
    return MCF_OK;
}

static void nvml_close(void *state)
{
    struct nvml *n = state;
    n->shutdown();
    dlclose(n->lib);
    free(n);
}

const struct mcf_power_source mcf_power_nvml = { "nvml", "device", 0, nvml_open, nvml_read, nvml_close };
