/* Health counters through rocm-smi (the library is loaded by
 * src/power/vendor_rsmi.c). ECC: correctable and uncorrectable errors summed over
 * the blocks with ECC enabled; amdgpu counts them since the driver loaded,
 * so they are the volatile pair and the aggregate pair is -1. Memory repair:
 * AMD retires pages (rsmi_dev_memory_reserved_pages_get): reserved pages are
 * retired_pages, pending ones retired_pages_pending, and pages that could not
 * be reserved count as remap_failed; rows are not remapped (-1). PCIe: the
 * current transfer rate's generation and lanes against the most of the
 * supported list (rsmi_dev_pci_bandwidth_get). xGMI: the error status
 * (rsmi_dev_xgmi_error_status). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "vendor_rsmi.h"

static int open_rsmi(void **state, const char *pci_bus_id, struct mcf_err *e)
{
    struct mcf_rsmi *r = NULL;
    MCF_ALLOC(e, r, 1);
    MCF_TRY(mcf_rsmi_open(r, pci_bus_id, e));
    *state = r;
    return MCF_OK;
fail:
    free(r);
    return e->rc;
}

static void close_rsmi(void *state)
{
    mcf_rsmi_close(state);
    free(state);
}

static void ecc(const struct mcf_rsmi *r, struct mcf_health_snap *s)
{
    uint64_t enabled = 0;
    long long corr = 0, unc = 0;
    rsmi_status_t rc;
    mcf_health_none(s, MCF_HC_ECC_CORR_AGG,
                    "rocm-smi counts errors since the driver loaded (see *_volatile)");
    mcf_health_none(s, MCF_HC_ECC_UNC_AGG,
                    "rocm-smi counts errors since the driver loaded (see *_volatile)");
    if (!r->ecc_enabled || !r->ecc_count) {
        const char *missing =
            r->ecc_enabled ? "rsmi_dev_ecc_count_get" : "rsmi_dev_ecc_enabled_get";
        mcf_health_none(s, MCF_HC_ECC_CORR_VOL, "rocm-smi lacks %s", missing);
        mcf_health_none(s, MCF_HC_ECC_UNC_VOL, "rocm-smi lacks %s", missing);
        return;
    }
    if ((rc = r->ecc_enabled(r->dev, &enabled)) != RSMI_OK) {
        mcf_health_none(s, MCF_HC_ECC_CORR_VOL, "rsmi_dev_ecc_enabled_get: %s",
                        mcf_rsmi_error(r, rc));
        mcf_health_none(s, MCF_HC_ECC_UNC_VOL, "rsmi_dev_ecc_enabled_get: %s",
                        mcf_rsmi_error(r, rc));
        return;
    }
    for (uint64_t b = RSMI_GPU_BLOCK_FIRST; b <= RSMI_GPU_BLOCK_LAST; b <<= 1) {
        rsmi_error_count_t ec = { 0, 0 };
        if (!(enabled & b)) continue;
        if ((rc = r->ecc_count(r->dev, b, &ec)) != RSMI_OK) {
            mcf_health_none(s, MCF_HC_ECC_CORR_VOL, "rsmi_dev_ecc_count_get(block 0x%llx): %s",
                            (unsigned long long)b, mcf_rsmi_error(r, rc));
            mcf_health_none(s, MCF_HC_ECC_UNC_VOL, "%s", s->why[MCF_HC_ECC_CORR_VOL]);
            return;
        }
        corr += (long long)ec.correctable_err;
        unc += (long long)ec.uncorrectable_err;
    }
    s->v[MCF_HC_ECC_CORR_VOL] = corr;
    s->v[MCF_HC_ECC_UNC_VOL] = unc;
}

static int rsmi_pages(const void *lib, uint32_t *n, struct mcf_amd_page *rec, const char **why)
{
    const struct mcf_rsmi *r = lib;
    rsmi_status_t rc = r->reserved_pages(r->dev, n, rec);
    *why = mcf_rsmi_error(r, rc);
    return rc == RSMI_OK ? 0 : rc == RSMI_STATUS_INSUFFICIENT_SIZE && rec ? 1 : -1;
}

static void pcie_link(const struct mcf_rsmi *r, struct mcf_health_snap *s)
{
    int g, w, gm, wm;
    static const int all[] = { MCF_HC_PCIE_GEN, MCF_HC_PCIE_GEN_MAX, MCF_HC_PCIE_WIDTH,
                               MCF_HC_PCIE_WIDTH_MAX };
    if (mcf_rsmi_link(r, &g, &w, &gm, &wm) != 0) {
        for (size_t i = 0; i < 4; i++)
            mcf_health_none(s, all[i],
                            r->pci_bandwidth ? "rsmi_dev_pci_bandwidth_get failed or gave no list"
                                             : "rocm-smi lacks rsmi_dev_pci_bandwidth_get");
        return;
    }
    s->v[MCF_HC_PCIE_GEN] = g;
    s->v[MCF_HC_PCIE_GEN_MAX] = gm;
    s->v[MCF_HC_PCIE_WIDTH] = w;
    s->v[MCF_HC_PCIE_WIDTH_MAX] = wm;
}

/* The xGMI error status (the links between AMD GPUs): rocm-smi reads no
 * count or state of the links themselves, so the NVLink counters say so. */
static void xgmi(const struct mcf_rsmi *r, struct mcf_health_snap *s)
{
    int st = 0;
    rsmi_status_t rc;
    for (int c = MCF_HC_NVLINK_LINKS; c <= MCF_HC_NVLINK_CRC_DATA; c++)
        mcf_health_none(s, c,
                        "AMD GPUs link by xGMI, not NVLink: see xgmi_error_status (no xGMI link "
                        "count is read)");
    if (!r->xgmi_error) {
        mcf_health_none(s, MCF_HC_XGMI_ERROR, "rocm-smi lacks rsmi_dev_xgmi_error_status");
    } else if ((rc = r->xgmi_error(r->dev, &st)) != RSMI_OK) {
        mcf_health_none(s, MCF_HC_XGMI_ERROR, "rsmi_dev_xgmi_error_status: %s",
                        mcf_rsmi_error(r, rc));
    } else {
        s->v[MCF_HC_XGMI_ERROR] = st;
    }
}

static void read_rsmi(void *state, struct mcf_health_snap *s)
{
    const struct mcf_rsmi *r = state;
    mcf_health_snap_blank(s, "");
    ecc(r, s);
    mcf_health_amd_pages(s, r, r->reserved_pages ? rsmi_pages : NULL, "rocm-smi",
                         "rsmi_dev_memory_reserved_pages_get");
    pcie_link(r, s);
    xgmi(r, s);
}

static int serial_rsmi(void *state, char *buf, size_t len)
{
    const struct mcf_rsmi *r = state;
    char s[64] = "";
    buf[0] = '\0';
    if (!r->serial || r->serial(r->dev, s, sizeof s - 1) != RSMI_OK) return -1;
    s[sizeof s - 1] = '\0';
    snprintf(buf, len, "%s", s);
    return 0;
}

const struct mcf_health_source mcf_health_rsmi = {
    .name = "rsmi",
    .open = open_rsmi,
    .read = read_rsmi,
    .serial = serial_rsmi,
    .close = close_rsmi,
};
