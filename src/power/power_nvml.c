/* The NVML power source (the library is loaded by src/power/vendor_nvml.c). Reads
 * the averaged power (nvmlDeviceGetPowerUsage), the instantaneous power field
 * NVML_FI_DEV_POWER_INSTANT where the GPU has it, the total-energy counter
 * (mJ), temperature, SM and memory clocks and the clock-event reasons, and
 * every MCF_LINK_EVERY reads the current PCIe link (health.h: the link at
 * work, which an idle GPU lowers to save power) and how many processes hold
 * a compute context on the GPU (another job's on a GPU under test is the
 * first thing a slow GPU's evidence should rule out). Every return code is
 * checked; a reading that fails is NaN, never a number. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "power.h"
#include "vendor_nvml.h"

struct nvml {
    struct mcf_nvml n;
    int instant; /* the instantaneous field works on this GPU */
    unsigned long reads;
};

static int nvml_open(void **state, const struct mcf_power_env *env, struct mcf_err *e)
{
    struct nvml *p = NULL;
    int opened = 0;
    MCF_ALLOC(e, p, 1);
    MCF_TRY(mcf_nvml_open(&p->n, env->pci_bus_id, e));
    opened = 1;
    MCF_TRY(mcf_nvml_need(&p->n, p->n.power != NULL, "nvmlDeviceGetPowerUsage", e));
    MCF_TRY(mcf_nvml_need(&p->n, p->n.energy != NULL, "nvmlDeviceGetTotalEnergyConsumption", e));
    MCF_TRY(mcf_nvml_need(&p->n, p->n.temp != NULL, "nvmlDeviceGetTemperature", e));
    MCF_TRY(mcf_nvml_need(&p->n, p->n.clock != NULL, "nvmlDeviceGetClockInfo", e));
    MCF_TRY(mcf_nvml_need(&p->n, p->n.fields != NULL, "nvmlDeviceGetFieldValues", e));
    {
        nvmlFieldValue_t fv;
        memset(&fv, 0, sizeof fv);
        fv.fieldId = NVML_FI_DEV_POWER_INSTANT;
        p->instant = p->n.fields(p->n.dev, 1, &fv) == NVML_SUCCESS && fv.nvmlReturn == NVML_SUCCESS;
    }
    *state = p;
    return MCF_OK;
fail:
    if (opened) mcf_nvml_close(&p->n);
    free(p);
    return e->rc;
}

static int nvml_read(void *state, struct mcf_preading *r, struct mcf_err *e)
{
    struct nvml *p = state;
    const struct mcf_nvml *n = &p->n;
    unsigned int mw, v;
    unsigned long long mj, reasons;
    (void)e;
    mcf_preading_blank(r);
    if (n->power(n->dev, &mw) == NVML_SUCCESS) r->power_avg_w = mw * 1e-3;
    r->s.power_w = r->power_avg_w;
    if (p->instant) {
        nvmlFieldValue_t fv;
        memset(&fv, 0, sizeof fv);
        fv.fieldId = NVML_FI_DEV_POWER_INSTANT;
        if (n->fields(n->dev, 1, &fv) == NVML_SUCCESS && fv.nvmlReturn == NVML_SUCCESS)
            r->s.power_w = fv.value.uiVal * 1e-3;
    }
    if (n->energy(n->dev, &mj) == NVML_SUCCESS) r->s.energy_j = (double)mj * 1e-3;
    if (n->temp(n->dev, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) r->temp_c = v;
    if (n->clock(n->dev, NVML_CLOCK_SM, &v) == NVML_SUCCESS) r->sm_mhz = v;
    if (n->clock(n->dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS) r->mem_mhz = v;
    if (n->reasons && n->reasons(n->dev, &reasons) == NVML_SUCCESS) {
        r->throttle = reasons;
        r->throttle_read = 1;
    }
    if (p->reads++ % MCF_LINK_EVERY == 0) {
        mcf_nvml_link(n, &r->pcie_gen, &r->pcie_width);
        r->gpu_procs = mcf_nvml_compute_procs(n);
    }
    return MCF_OK;
}

static void nvml_close(void *state)
{
    struct nvml *p = state;
    mcf_nvml_close(&p->n);
    free(p);
}

const struct mcf_power_source mcf_power_nvml = {
    .name = "nvml",
    .kind = MCF_POWER_NVML,
    .scope = "device",
    .node_level = 0,
    .open = nvml_open,
    .read = nvml_read,
    .close = nvml_close,
};
