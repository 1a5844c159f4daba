/* Health counters through amd-smi (the library is loaded by
 * src/power/vendor_amdsmi.c), counted as rocm-smi's are (health_rsmi.c):
 * ECC: amdsmi_get_gpu_total_ecc_count, the correctable and uncorrectable
 * errors summed by the library over the blocks with ECC enabled, since the
 * driver loaded: the volatile pair (uint64 correctable_count at 0,
 * uncorrectable_count at 8 of amdsmi_error_count_t, in every release); the
 * aggregate pair is -1. Memory repair: reserved pages
 * (amdsmi_get_gpu_memory_reserved_pages) are retired_pages, pending ones
 * retired_pages_pending, unreservable ones remap_failed; rows are not
 * remapped (-1). PCIe: amdsmi_get_pcie_info's current link against its
 * maximum. xGMI: amdsmi_gpu_xgmi_error_status. Serial: none from here: amdsmi_board_info_t's layout
 * moved its product_serial twice (ROCm 6.0, 6.1, 6.2), and amd-smi reads it from amdgpu's sysfs
 * serial_number, which the run's fallback serial already is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "vendor_amdsmi.h"

static int open_amdsmi(void **state, const char *pci_bus_id, struct mcf_err *e)
{
    struct mcf_amdsmi *a = NULL;
    MCF_ALLOC(e, a, 1);
    MCF_TRY(mcf_amdsmi_open(a, pci_bus_id, e));
    *state = a;
    return MCF_OK;
fail:
    free(a);
    return e->rc;
}

static void close_amdsmi(void *state)
{
    mcf_amdsmi_close(state);
    free(state);
}

static void ecc(const struct mcf_amdsmi *a, struct mcf_health_snap *s)
{
    uint64_t buf[32]; /* 256 bytes: amdsmi_error_count_t is 64 */
    amdsmi_status_t rc;
    mcf_health_none(s, MCF_HC_ECC_CORR_AGG,
                    "amd-smi counts errors since the driver loaded (see *_volatile)");
    mcf_health_none(s, MCF_HC_ECC_UNC_AGG,
                    "amd-smi counts errors since the driver loaded (see *_volatile)");
    memset(buf, 0, sizeof buf);
    if (!a->ecc_total) {
        mcf_health_none(s, MCF_HC_ECC_CORR_VOL, "amd-smi lacks amdsmi_get_gpu_total_ecc_count");
        mcf_health_none(s, MCF_HC_ECC_UNC_VOL, "amd-smi lacks amdsmi_get_gpu_total_ecc_count");
        return;
    }
    if ((rc = a->ecc_total(a->dev, buf)) != AMDSMI_STATUS_SUCCESS) {
        mcf_health_none(s, MCF_HC_ECC_CORR_VOL, "amdsmi_get_gpu_total_ecc_count: %s",
                        mcf_amdsmi_error(a, rc));
        mcf_health_none(s, MCF_HC_ECC_UNC_VOL, "amdsmi_get_gpu_total_ecc_count: %s",
                        mcf_amdsmi_error(a, rc));
        return;
    }
    s->v[MCF_HC_ECC_CORR_VOL] = (long long)buf[0];
    s->v[MCF_HC_ECC_UNC_VOL] = (long long)buf[1];
}

static int amdsmi_pages(const void *lib, uint32_t *n, struct mcf_amd_page *rec, const char **why)
{
    const struct mcf_amdsmi *a = lib;
    amdsmi_status_t rc = a->reserved_pages(a->dev, n, rec);
    *why = mcf_amdsmi_error(a, rc);
    return rc == AMDSMI_STATUS_SUCCESS ? 0 : rc == AMDSMI_STATUS_INSUFFICIENT_SIZE && rec ? 1 : -1;
}

static void pcie_link(const struct mcf_amdsmi *a, struct mcf_health_snap *s)
{
    int g, w, gm, wm;
    static const int all[] = { MCF_HC_PCIE_GEN, MCF_HC_PCIE_GEN_MAX, MCF_HC_PCIE_WIDTH,
                               MCF_HC_PCIE_WIDTH_MAX };
    if (mcf_amdsmi_link(a, &g, &w, &gm, &wm) != 0) {
        for (size_t i = 0; i < 4; i++)
            mcf_health_none(s, all[i],
                            !a->pcie ? "amd-smi lacks amdsmi_get_pcie_info"
                                : a->version < 24
                                ? "amdsmi_get_pcie_info's struct before ROCm 6.1 is not read"
                                : "amdsmi_get_pcie_info failed or gave no link");
        return;
    }
    s->v[MCF_HC_PCIE_GEN] = g;
    s->v[MCF_HC_PCIE_WIDTH] = w;
    if (gm > 0)
        s->v[MCF_HC_PCIE_GEN_MAX] = gm;
    else
        mcf_health_none(s, MCF_HC_PCIE_GEN_MAX, "amdsmi_get_pcie_info gave no maximum speed");
    if (wm > 0)
        s->v[MCF_HC_PCIE_WIDTH_MAX] = wm;
    else
        mcf_health_none(s, MCF_HC_PCIE_WIDTH_MAX, "amdsmi_get_pcie_info gave no maximum width");
}

/* The xGMI error status, as rocm-smi's (health_rsmi.c). */
static void xgmi(const struct mcf_amdsmi *a, struct mcf_health_snap *s)
{
    int st = 0;
    amdsmi_status_t rc;
    for (int c = MCF_HC_NVLINK_LINKS; c <= MCF_HC_NVLINK_CRC_DATA; c++)
        mcf_health_none(s, c,
                        "AMD GPUs link by xGMI, not NVLink: see xgmi_error_status (no xGMI link "
                        "count is read)");
    if (!a->xgmi_error) {
        mcf_health_none(s, MCF_HC_XGMI_ERROR, "amd-smi lacks amdsmi_gpu_xgmi_error_status");
    } else if ((rc = a->xgmi_error(a->dev, &st)) != AMDSMI_STATUS_SUCCESS) {
        mcf_health_none(s, MCF_HC_XGMI_ERROR, "amdsmi_gpu_xgmi_error_status: %s",
                        mcf_amdsmi_error(a, rc));
    } else {
        s->v[MCF_HC_XGMI_ERROR] = st;
    }
}

static void read_amdsmi(void *state, struct mcf_health_snap *s)
{
    const struct mcf_amdsmi *a = state;
    mcf_health_snap_blank(s, "");
    ecc(a, s);
    mcf_health_amd_pages(s, a, a->reserved_pages ? amdsmi_pages : NULL, "amd-smi",
                         "amdsmi_get_gpu_memory_reserved_pages");
    pcie_link(a, s);
    xgmi(a, s);
}

static int serial_amdsmi(void *state, char *buf, size_t len)
{
    (void)state;
    if (len) buf[0] = '\0';
    return -1; /* the fallback: amdgpu's sysfs serial, which amd-smi itself reports */
}

const struct mcf_health_source mcf_health_amdsmi = {
    .name = "amdsmi",
    .open = open_amdsmi,
    .read = read_amdsmi,
    .serial = serial_amdsmi,
    .close = close_amdsmi,
};
