#define _GNU_SOURCE
#include "vendor_rsmi.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    size_t off;
    const char *name;
} symbols[] = {
    { offsetof(struct mcf_rsmi, init), "rsmi_init" },
    { offsetof(struct mcf_rsmi, shutdown), "rsmi_shut_down" },
    { offsetof(struct mcf_rsmi, status_string), "rsmi_status_string" },
    { offsetof(struct mcf_rsmi, count), "rsmi_num_monitor_devices" },
    { offsetof(struct mcf_rsmi, pci), "rsmi_dev_pci_id_get" },
    { offsetof(struct mcf_rsmi, power_ave), "rsmi_dev_power_ave_get" },
    { offsetof(struct mcf_rsmi, socket_power), "rsmi_dev_current_socket_power_get" },
    { offsetof(struct mcf_rsmi, energy), "rsmi_dev_energy_count_get" },
    { offsetof(struct mcf_rsmi, temp), "rsmi_dev_temp_metric_get" },
    { offsetof(struct mcf_rsmi, ecc_enabled), "rsmi_dev_ecc_enabled_get" },
    { offsetof(struct mcf_rsmi, ecc_count), "rsmi_dev_ecc_count_get" },
    { offsetof(struct mcf_rsmi, reserved_pages), "rsmi_dev_memory_reserved_pages_get" },
    { offsetof(struct mcf_rsmi, pci_bandwidth), "rsmi_dev_pci_bandwidth_get" },
    { offsetof(struct mcf_rsmi, serial), "rsmi_dev_serial_number_get" },
    { offsetof(struct mcf_rsmi, xgmi_error), "rsmi_dev_xgmi_error_status" },
};

const char *mcf_rsmi_error(const struct mcf_rsmi *r, rsmi_status_t rc)
{
    const char *s = NULL;
    if (!r->status_string || r->status_string(rc, &s) != RSMI_OK || !s)
        return "unknown rocm-smi error";
    return s;
}

int mcf_rsmi_need(const struct mcf_rsmi *r, int present, const char *name, struct mcf_err *e)
{
    if (present) return MCF_OK;
    return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "rocm-smi: %s lacks %s", r->path,
                       name);
}

/* "0000:c1:00.0" -> BDFID */
static int parse_bdf(const char *bus, uint64_t *bdfid)
{
    unsigned dom, b, d, f;
    if (sscanf(bus, "%x:%x:%x.%x", &dom, &b, &d, &f) != 4) return -1;
    *bdfid = ((uint64_t)dom << 32) | ((uint64_t)(b & 0xff) << 8) | ((d & 0x1f) << 3) | (f & 0x7);
    return 0;
}

int mcf_rsmi_open(struct mcf_rsmi *r, const char *bus, struct mcf_err *e)
{
    const char *path = getenv("MCFLEET_RSMI_LIB");
    uint64_t want, got;
    uint32_t n = 0;
    rsmi_status_t rc;
    int initialized = 0;
    memset(r, 0, sizeof *r);
    snprintf(r->path, sizeof r->path, "%s", path && *path ? path : "librocm_smi64.so");
    if (parse_bdf(bus, &want) != 0)
        MCF_FAIL(e, MCF_EUNSUPPORTED, "rocm-smi: this rank's device is not a PCI GPU");
    if (!(r->lib = dlopen(r->path, RTLD_NOW | RTLD_LOCAL)))
        MCF_FAIL(e, MCF_EUNSUPPORTED, "rocm-smi: cannot load %s: %s", r->path, dlerror());
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++)
        *(void **)((char *)r + symbols[i].off) = dlsym(r->lib, symbols[i].name);
    MCF_TRY(mcf_rsmi_need(r, r->status_string != NULL, "rsmi_status_string", e));
    MCF_TRY(mcf_rsmi_need(r, r->init != NULL, "rsmi_init", e));
    MCF_TRY(mcf_rsmi_need(r, r->shutdown != NULL, "rsmi_shut_down", e));
    MCF_TRY(mcf_rsmi_need(r, r->count != NULL, "rsmi_num_monitor_devices", e));
    MCF_TRY(mcf_rsmi_need(r, r->pci != NULL, "rsmi_dev_pci_id_get", e));
    if ((rc = r->init(0)) != RSMI_OK)
        MCF_FAIL(e, MCF_ERUNTIME, "rocm-smi: rsmi_init failed: %s", mcf_rsmi_error(r, rc));
    initialized = 1;
    if ((rc = r->count(&n)) != RSMI_OK)
        MCF_FAIL(e, MCF_ERUNTIME, "rocm-smi: rsmi_num_monitor_devices failed: %s",
                 mcf_rsmi_error(r, rc));
    for (r->dev = 0; r->dev < n; r->dev++)
        if (r->pci(r->dev, &got) == RSMI_OK && got == want) break;
    if (r->dev == n) MCF_FAIL(e, MCF_ERUNTIME, "rocm-smi: no device at PCI %s", bus);
    return MCF_OK;
fail:
    if (initialized) r->shutdown();
    if (r->lib) dlclose(r->lib);
    r->lib = NULL;
    return e->rc;
}

void mcf_rsmi_close(struct mcf_rsmi *r)
{
    if (!r->lib) return;
    r->shutdown();
    dlclose(r->lib);
    r->lib = NULL;
}

int mcf_pcie_gen_of_rate(uint64_t rate)
{
    /* 2.5, 5, 8, 16, 32, 64 GT/s: the midpoints between them */
    static const double edges[] = { 1.0e9, 3.75e9, 6.5e9, 12e9, 24e9, 48e9 };
    int gen = -1;
    for (int i = 0; i < 6; i++)
        if ((double)rate >= edges[i]) gen = i + 1;
    return gen;
}

int mcf_rsmi_link(const struct mcf_rsmi *r, int *gen, int *width, int *gen_max, int *width_max)
{
    rsmi_pcie_bandwidth_t bw;
    int gm = -1, wm = -1;
    *gen = *width = -1;
    if (gen_max) *gen_max = -1;
    if (width_max) *width_max = -1;
    memset(&bw, 0, sizeof bw);
    if (!r->pci_bandwidth || r->pci_bandwidth(r->dev, &bw) != RSMI_OK) return -1;
    uint32_t n = bw.transfer_rate.num_supported;
    if (n == 0 || n > RSMI_MAX_NUM_FREQUENCIES || bw.transfer_rate.current >= n) return -1;
    for (uint32_t i = 0; i < n; i++) {
        int g = mcf_pcie_gen_of_rate(bw.transfer_rate.frequency[i]);
        if (g > gm) gm = g;
        if ((int)bw.lanes[i] > wm) wm = (int)bw.lanes[i];
    }
    *gen = mcf_pcie_gen_of_rate(bw.transfer_rate.frequency[bw.transfer_rate.current]);
    *width = (int)bw.lanes[bw.transfer_rate.current];
    if (gen_max) *gen_max = gm;
    if (width_max) *width_max = wm;
    return 0;
}
