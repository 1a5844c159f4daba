/* Health counters through rocm-smi (the library is loaded by
 * src/power/vendor_rsmi.c). ECC: correctable and uncorrectable errors summed over
 * the blocks with ECC enabled; amdgpu counts them since the driver loaded,
 * so they are the volatile pair and the aggregate pair is -1. Memory repair:
 * AMD retires pages (rsmi_dev_memory_reserved_pages_get): reserved pages are
 * retired_pages, pending ones retired_pages_pending, and pages that could not
 * be reserved count as remap_failed; rows are not remapped (-1). PCIe: the
 * current transfer rate's generation and lanes against the most of the
 * supported list (rsmi_dev_pci_bandwidth_get). */
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
    mcf_health_none(s, MCF_HC_ECC_CORR_AGG, "rocm-smi counts errors since the driver loaded (see *_volatile)");
    mcf_health_none(s, MCF_HC_ECC_UNC_AGG, "rocm-smi counts errors since the driver loaded (see *_volatile)");
    if (!r->ecc_enabled || !r->ecc_count) {
        const char *missing = r->ecc_enabled ? "rsmi_dev_ecc_count_get" : "rsmi_dev_ecc_enabled_get";
        mcf_health_none(s, MCF_HC_ECC_CORR_VOL, "rocm-smi lacks %s", missing);
        mcf_health_none(s, MCF_HC_ECC_UNC_VOL, "rocm-smi lacks %s", missing);
        return;
    }
    if ((rc = r->ecc_enabled(r->dev, &enabled)) != RSMI_OK) {
        mcf_health_none(s, MCF_HC_ECC_CORR_VOL, "rsmi_dev_ecc_enabled_get: %s", mcf_rsmi_error(r, rc));
        mcf_health_none(s, MCF_HC_ECC_UNC_VOL, "rsmi_dev_ecc_enabled_get: %s", mcf_rsmi_error(r, rc));
        return;
    }
    for (uint64_t b = RSMI_GPU_BLOCK_FIRST; b <= RSMI_GPU_BLOCK_LAST; b <<= 1) {
        rsmi_error_count_t ec = { 0, 0 };
        if (!(enabled & b))
            continue;
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

static void pages(const struct mcf_rsmi *r, struct mcf_health_snap *s)
{
    static const int counted[] = { MCF_HC_RETIRED, MCF_HC_RETIRED_PENDING, MCF_HC_REMAP_FAILED };
    rsmi_retired_page_record_t *rec = NULL;
    uint32_t n = 0;
    rsmi_status_t rc;
    const char *call = "rsmi_dev_memory_reserved_pages_get";
    for (int c = MCF_HC_REMAP_CORR; c <= MCF_HC_REMAP_PENDING; c++)
        mcf_health_none(s, c, "AMD GPUs retire pages, not rows (see retired_pages*)");
    if (!r->reserved_pages) {
        for (size_t i = 0; i < 3; i++)
            mcf_health_none(s, counted[i], "rocm-smi lacks %s", call);
        return;
    }
    /* the count first, then the records; a page retired in between is the next reading's */
    rc = r->reserved_pages(r->dev, &n, NULL);
    if (rc == RSMI_OK && n > 0) {
        if (!(rec = calloc(n, sizeof *rec))) {
            for (size_t i = 0; i < 3; i++)
                mcf_health_none(s, counted[i], "out of memory for %u page records", n);
            return;
        }
        rc = r->reserved_pages(r->dev, &n, rec);
        if (rc == RSMI_STATUS_INSUFFICIENT_SIZE)
            rc = RSMI_OK;   /* the records it had room for */
    }
    if (rc != RSMI_OK) {
        for (size_t i = 0; i < 3; i++)
            mcf_health_none(s, counted[i], "%s: %s", call, mcf_rsmi_error(r, rc));
        free(rec);
        return;
    }
    s->v[MCF_HC_RETIRED] = s->v[MCF_HC_RETIRED_PENDING] = s->v[MCF_HC_REMAP_FAILED] = 0;
    for (uint32_t i = 0; rec && i < n; i++) {
        if (rec[i].status == RSMI_MEM_PAGE_STATUS_RESERVED) s->v[MCF_HC_RETIRED]++;
        else if (rec[i].status == RSMI_MEM_PAGE_STATUS_PENDING) s->v[MCF_HC_RETIRED_PENDING]++;
        else s->v[MCF_HC_REMAP_FAILED]++;   /* unreservable: the retirement failed */
    }
    free(rec);
}

static void pcie_link(const struct mcf_rsmi *r, struct mcf_health_snap *s)
{
    int g, w, gm, wm;
    static const int all[] = { MCF_HC_PCIE_GEN, MCF_HC_PCIE_GEN_MAX, MCF_HC_PCIE_WIDTH, MCF_HC_PCIE_WIDTH_MAX };
    if (mcf_rsmi_link(r, &g, &w, &gm, &wm) != 0) {
        for (size_t i = 0; i < 4; i++)
            mcf_health_none(s, all[i], r->pci_bandwidth ? "rsmi_dev_pci_bandwidth_get failed or gave no list"
                                                         : "rocm-smi lacks rsmi_dev_pci_bandwidth_get");
        return;
    }
    s->v[MCF_HC_PCIE_GEN] = g;
    s->v[MCF_HC_PCIE_GEN_MAX] = gm;
    s->v[MCF_HC_PCIE_WIDTH] = w;
    s->v[MCF_HC_PCIE_WIDTH_MAX] = wm;
}

static void read_rsmi(void *state, struct mcf_health_snap *s)
{
    const struct mcf_rsmi *r = state;
    mcf_health_snap_blank(s, "");
    ecc(r, s);
    pages(r, s);
    pcie_link(r, s);
}

static int serial_rsmi(void *state, char *buf, size_t len)
{
    const struct mcf_rsmi *r = state;
    char s[64] = "";
    buf[0] = '\0';
    if (!r->serial || r->serial(r->dev, s, sizeof s - 1) != RSMI_OK)
        return -1;
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
