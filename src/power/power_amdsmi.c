/* The amd-smi power source (the library is loaded by src/power/vendor_amdsmi.c).
 * Power: the socket power of amdsmi_get_power_info (W; mcf_amdsmi_power says
 * which fields of which layouts, chosen by the library's version); energy:
 * amdsmi_get_energy_count's counter times its resolution (µJ), with the counter's own timestamp
 * (ns); temperature: amdsmi_get_temp_metric, the edge sensor, else the hotspot (MI300 has no edge
 * sensor), in °C (the library of the ROCm 6.3 line divides the driver's millidegrees, whatever its
 * header's comment says; a value above 1000 is taken for millidegrees); the GFX and memory clocks
 * of amdsmi_get_clock_info (MHz); every MCF_LINK_EVERY reads, the current PCIe link of
 * amdsmi_get_pcie_info.
 *
 * MI250X: amd-smi reads the same driver data as rocm-smi (the GCD's
 * gpu_metrics and hwmon), so it attributes power the same way: only the
 * primary GCD of a package reports socket power, and its reading covers the
 * whole package (both GCDs); the secondary GCD reports none (amd-smi prints
 * N/A or 0 W). A GCD that reports no power is off, with that reason, and the
 * scope says "package". MI300X has one
 * device per package (in SPX mode), so its reading is the device's. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "power.h"
#include "vendor_amdsmi.h"

struct amdsmi {
    struct mcf_amdsmi a;
    unsigned long reads;
};

static int amdsmi_open(void **state, const struct mcf_power_env *env, struct mcf_err *e)
{
    struct amdsmi *p = NULL;
    int opened = 0;
    double w;
    MCF_ALLOC(e, p, 1);
    MCF_TRY(mcf_amdsmi_open(&p->a, env->pci_bus_id, e));
    opened = 1;
    MCF_TRY(mcf_amdsmi_need(&p->a, p->a.power_info != NULL, "amdsmi_get_power_info", e));
    MCF_TRY(mcf_amdsmi_need(&p->a, p->a.energy != NULL, "amdsmi_get_energy_count", e));
    MCF_TRY(mcf_amdsmi_need(&p->a, p->a.temp != NULL, "amdsmi_get_temp_metric", e));
    MCF_TRY(mcf_amdsmi_need(&p->a, p->a.lib_version != NULL, "amdsmi_get_lib_version", e));
    if (p->a.version == 0)
        MCF_FAIL(e, MCF_EUNSUPPORTED,
                 "amd-smi: amdsmi_get_lib_version gave no version, which the layout of "
                 "amdsmi_power_info_t depends on");
    if (p->a.version < 23)
        MCF_FAIL(e, MCF_EUNSUPPORTED,
                 "amd-smi: library version %u predates ROCm 6.0: its amdsmi_power_info_t "
                 "layout is not known here",
                 (unsigned)p->a.version);
    if (mcf_amdsmi_power(&p->a, &w) != 0)
        MCF_FAIL(e, MCF_EUNSUPPORTED,
                 "amd-smi: this GCD reports no power (on MI250X its package's primary GCD "
                 "does, for the whole package)");
    *state = p;
    return MCF_OK;
fail:
    if (opened) mcf_amdsmi_close(&p->a);
    free(p);
    return e->rc;
}

static int amdsmi_read(void *state, struct mcf_preading *out, struct mcf_err *e)
{
    struct amdsmi *p = state;
    const struct mcf_amdsmi *a = &p->a;
    uint64_t counter, ts;
    float res;
    int64_t deg;
    double w;
    (void)e;
    mcf_preading_blank(out);
    if (mcf_amdsmi_power(a, &w) == 0) out->s.power_w = w;
    if (a->energy(a->dev, &counter, &res, &ts) == AMDSMI_STATUS_SUCCESS) {
        out->s.energy_j = (double)counter * res * 1e-6;
        out->src_t = ts * 1e-9;
    }
    if (a->temp(a->dev, AMDSMI_TEMPERATURE_TYPE_EDGE, AMDSMI_TEMP_CURRENT, &deg) ==
            AMDSMI_STATUS_SUCCESS ||
        a->temp(a->dev, AMDSMI_TEMPERATURE_TYPE_HOTSPOT, AMDSMI_TEMP_CURRENT, &deg) ==
            AMDSMI_STATUS_SUCCESS)
        out->temp_c = deg > 1000
            ? deg * 1e-3
            : (double)deg; /* millidegrees, should a release pass them through */
    out->sm_mhz = mcf_amdsmi_clock(a, AMDSMI_CLK_TYPE_GFX);
    out->mem_mhz = mcf_amdsmi_clock(a, AMDSMI_CLK_TYPE_MEM);
    if (p->reads++ % MCF_LINK_EVERY == 0)
        mcf_amdsmi_link(a, &out->pcie_gen, &out->pcie_width, NULL, NULL);
    return MCF_OK;
}

static void amdsmi_close(void *state)
{
    struct amdsmi *p = state;
    mcf_amdsmi_close(&p->a);
    free(p);
}

const struct mcf_power_source mcf_power_amdsmi = {
    .name = "amdsmi",
    .kind = MCF_POWER_AMDSMI,
    .scope = "device; on MI250X the package, read on its primary GCD",
    .node_level = 0,
    .open = amdsmi_open,
    .read = amdsmi_read,
    .close = amdsmi_close,
};
