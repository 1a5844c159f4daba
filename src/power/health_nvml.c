/* Health counters through NVML (the library is loaded by src/power/vendor_nvml.c):
 * ECC totals (volatile and aggregate, corrected and uncorrected), remapped
 * rows (Ampere on) or, where the GPU does not remap rows, retired pages;
 * the PCIe link now and its maximum; the board serial. A missing entry point
 * or a vendor error makes that counter -1 with the reason; the others stand. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "vendor_nvml.h"

static int open_nvml(void **state, const char *pci_bus_id, struct mcf_err *e)
{
    struct mcf_nvml *n = NULL;
    MCF_ALLOC(e, n, 1);
    MCF_TRY(mcf_nvml_open(n, pci_bus_id, e));
    *state = n;
    return MCF_OK;
fail:
    free(n);
    return e->rc;
}

static void close_nvml(void *state)
{
    mcf_nvml_close(state);
    free(state);
}

/* Counter c from an unsigned reading: its value, or -1 with the call and NVML's words. */
static void put(struct mcf_health_snap *s, int c, const struct mcf_nvml *n, const char *call, nvmlReturn_t rc,
                unsigned long long v)
{
    if (rc == NVML_SUCCESS)
        s->v[c] = (long long)v;
    else
        mcf_health_none(s, c, "%s: %s", call, mcf_nvml_error(n, rc));
}

static void ecc(const struct mcf_nvml *n, struct mcf_health_snap *s)
{
    static const struct { int c, type, counter; } which[] = {
        { MCF_HC_ECC_CORR_VOL, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC },
        { MCF_HC_ECC_UNC_VOL, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC },
        { MCF_HC_ECC_CORR_AGG, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC },
        { MCF_HC_ECC_UNC_AGG, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC },
    };
    for (size_t i = 0; i < sizeof which / sizeof which[0]; i++) {
        unsigned long long count = 0;
        if (!n->ecc_total) {
            mcf_health_none(s, which[i].c, "NVML lacks nvmlDeviceGetTotalEccErrors");
            continue;
        }
        nvmlReturn_t rc = n->ecc_total(n->dev, which[i].type, which[i].counter, &count);   /* before count is read */
        put(s, which[i].c, n, "nvmlDeviceGetTotalEccErrors", rc, count);
    }
}

/* Remapped rows where the GPU remaps them; retired pages where it does not. */
static void memory_repair(const struct mcf_nvml *n, struct mcf_health_snap *s)
{
    static const int rows[] = { MCF_HC_REMAP_CORR, MCF_HC_REMAP_UNC, MCF_HC_REMAP_PENDING, MCF_HC_REMAP_FAILED };
    unsigned corr = 0, unc = 0, pending = 0, failed = 0;
    nvmlReturn_t rc = n->remapped_rows ? n->remapped_rows(n->dev, &corr, &unc, &pending, &failed)
                                       : NVML_ERROR_NOT_SUPPORTED;
    if (rc == NVML_SUCCESS) {
        s->v[MCF_HC_REMAP_CORR] = corr;
        s->v[MCF_HC_REMAP_UNC] = unc;
        s->v[MCF_HC_REMAP_PENDING] = pending != 0;
        s->v[MCF_HC_REMAP_FAILED] = failed != 0;
        mcf_health_none(s, MCF_HC_RETIRED, "the GPU remaps rows (see remapped_rows_*): no page retirement");
        mcf_health_none(s, MCF_HC_RETIRED_PENDING, "the GPU remaps rows (see remap_pending): no page retirement");
        return;
    }
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (n->remapped_rows)
            mcf_health_none(s, rows[i], "nvmlDeviceGetRemappedRows: %s", mcf_nvml_error(n, rc));
        else
            mcf_health_none(s, rows[i], "NVML lacks nvmlDeviceGetRemappedRows");
    }
    if (!n->retired_pages) {
        mcf_health_none(s, MCF_HC_RETIRED, "NVML lacks nvmlDeviceGetRetiredPages");
    } else {
        /* both causes; a count of 0 asks for the number alone */
        unsigned single = 0, dbl = 0;
        nvmlReturn_t a = n->retired_pages(n->dev, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, &single,
                                          NULL);
        nvmlReturn_t b = n->retired_pages(n->dev, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &dbl, NULL);
        if (a == NVML_ERROR_INSUFFICIENT_SIZE) a = NVML_SUCCESS;
        if (b == NVML_ERROR_INSUFFICIENT_SIZE) b = NVML_SUCCESS;
        put(s, MCF_HC_RETIRED, n, "nvmlDeviceGetRetiredPages", a != NVML_SUCCESS ? a : b,
            (unsigned long long)single + dbl);
    }
    if (!n->retired_pending) {
        mcf_health_none(s, MCF_HC_RETIRED_PENDING, "NVML lacks nvmlDeviceGetRetiredPagesPendingStatus");
    } else {
        int state = 0;
        nvmlReturn_t p = n->retired_pending(n->dev, &state);
        put(s, MCF_HC_RETIRED_PENDING, n, "nvmlDeviceGetRetiredPagesPendingStatus", p,
            state == NVML_FEATURE_ENABLED);
    }
}

static void pcie_link(const struct mcf_nvml *n, struct mcf_health_snap *s)
{
    static const struct { int c; size_t off; const char *name; } which[] = {
        { MCF_HC_PCIE_GEN, offsetof(struct mcf_nvml, link_gen), "nvmlDeviceGetCurrPcieLinkGeneration" },
        { MCF_HC_PCIE_GEN_MAX, offsetof(struct mcf_nvml, link_gen_max), "nvmlDeviceGetMaxPcieLinkGeneration" },
        { MCF_HC_PCIE_WIDTH, offsetof(struct mcf_nvml, link_width), "nvmlDeviceGetCurrPcieLinkWidth" },
        { MCF_HC_PCIE_WIDTH_MAX, offsetof(struct mcf_nvml, link_width_max), "nvmlDeviceGetMaxPcieLinkWidth" },
    };
    for (size_t i = 0; i < sizeof which / sizeof which[0]; i++) {
        nvmlReturn_t (*get)(nvmlDevice_t, unsigned int *) =
            *(nvmlReturn_t (*const *)(nvmlDevice_t, unsigned int *))((const char *)n + which[i].off);
        unsigned v = 0;
        if (!get) {
            mcf_health_none(s, which[i].c, "NVML lacks %s", which[i].name);
        } else {
            nvmlReturn_t rc = get(n->dev, &v);
            put(s, which[i].c, n, which[i].name, rc, v);
        }
    }
}

static void read_nvml(void *state, struct mcf_health_snap *s)
{
    const struct mcf_nvml *n = state;
    mcf_health_snap_blank(s, "");
    ecc(n, s);
    memory_repair(n, s);
    pcie_link(n, s);
}

static int serial_nvml(void *state, char *buf, size_t len)
{
    const struct mcf_nvml *n = state;
    char s[NVML_DEVICE_SERIAL_BUFFER_SIZE + 1] = "";
    buf[0] = '\0';
    if (!n->serial || n->serial(n->dev, s, NVML_DEVICE_SERIAL_BUFFER_SIZE) != NVML_SUCCESS)
        return -1;
    s[NVML_DEVICE_SERIAL_BUFFER_SIZE] = '\0';
    snprintf(buf, len, "%s", s);
    return 0;
}

const struct mcf_health_source mcf_health_nvml = {
    .name = "nvml",
    .open = open_nvml,
    .read = read_nvml,
    .serial = serial_nvml,
    .close = close_nvml,
};
