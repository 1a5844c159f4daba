/* Health counters through NVML (the library is loaded by src/power/vendor_nvml.c):
 * ECC totals (volatile and aggregate, corrected and uncorrected), remapped
 * rows (Ampere on) or, where the GPU does not remap rows, retired pages;
 * the PCIe link now and its maximum; the NVLinks (how many, how many up,
 * their error counters); the board serial. A missing entry point
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
static void put(struct mcf_health_snap *s, int c, const struct mcf_nvml *n, const char *call,
                nvmlReturn_t rc, unsigned long long v)
{
    if (rc == NVML_SUCCESS)
        s->v[c] = (long long)v;
    else
        mcf_health_none(s, c, "%s: %s", call, mcf_nvml_error(n, rc));
}

static void ecc(const struct mcf_nvml *n, struct mcf_health_snap *s)
{
    static const struct {
        int c, type, counter;
    } which[] = {
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
        nvmlReturn_t rc = n->ecc_total(n->dev, which[i].type, which[i].counter,
                                       &count); /* before count is read */
        put(s, which[i].c, n, "nvmlDeviceGetTotalEccErrors", rc, count);
    }
}

/* Remapped rows where the GPU remaps them; retired pages where it does not. */
static void memory_repair(const struct mcf_nvml *n, struct mcf_health_snap *s)
{
    static const int rows[] = { MCF_HC_REMAP_CORR, MCF_HC_REMAP_UNC, MCF_HC_REMAP_PENDING,
                                MCF_HC_REMAP_FAILED };
    unsigned corr = 0, unc = 0, pending = 0, failed = 0;
    nvmlReturn_t rc = n->remapped_rows ? n->remapped_rows(n->dev, &corr, &unc, &pending, &failed)
                                       : NVML_ERROR_NOT_SUPPORTED;
    if (rc == NVML_SUCCESS) {
        s->v[MCF_HC_REMAP_CORR] = corr;
        s->v[MCF_HC_REMAP_UNC] = unc;
        s->v[MCF_HC_REMAP_PENDING] = pending != 0;
        s->v[MCF_HC_REMAP_FAILED] = failed != 0;
        mcf_health_none(s, MCF_HC_RETIRED,
                        "the GPU remaps rows (see remapped_rows_*): no page retirement");
        mcf_health_none(s, MCF_HC_RETIRED_PENDING,
                        "the GPU remaps rows (see remap_pending): no page retirement");
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
        nvmlReturn_t a = n->retired_pages(
            n->dev, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, &single, NULL);
        nvmlReturn_t b =
            n->retired_pages(n->dev, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &dbl, NULL);
        if (a == NVML_ERROR_INSUFFICIENT_SIZE) a = NVML_SUCCESS;
        if (b == NVML_ERROR_INSUFFICIENT_SIZE) b = NVML_SUCCESS;
        put(s, MCF_HC_RETIRED, n, "nvmlDeviceGetRetiredPages", a != NVML_SUCCESS ? a : b,
            (unsigned long long)single + dbl);
    }
    if (!n->retired_pending) {
        mcf_health_none(s, MCF_HC_RETIRED_PENDING,
                        "NVML lacks nvmlDeviceGetRetiredPagesPendingStatus");
    } else {
        int state = 0;
        nvmlReturn_t p = n->retired_pending(n->dev, &state);
        put(s, MCF_HC_RETIRED_PENDING, n, "nvmlDeviceGetRetiredPagesPendingStatus", p,
            state == NVML_FEATURE_ENABLED);
    }
}

static void pcie_link(const struct mcf_nvml *n, struct mcf_health_snap *s)
{
    static const struct {
        int c;
        size_t off;
        const char *name;
    } which[] = {
        { MCF_HC_PCIE_GEN, offsetof(struct mcf_nvml, link_gen),
          "nvmlDeviceGetCurrPcieLinkGeneration" },
        { MCF_HC_PCIE_GEN_MAX, offsetof(struct mcf_nvml, link_gen_max),
          "nvmlDeviceGetMaxPcieLinkGeneration" },
        { MCF_HC_PCIE_WIDTH, offsetof(struct mcf_nvml, link_width),
          "nvmlDeviceGetCurrPcieLinkWidth" },
        { MCF_HC_PCIE_WIDTH_MAX, offsetof(struct mcf_nvml, link_width_max),
          "nvmlDeviceGetMaxPcieLinkWidth" },
    };
    for (size_t i = 0; i < sizeof which / sizeof which[0]; i++) {
        nvmlReturn_t (*get)(nvmlDevice_t, unsigned int *) =
            *(nvmlReturn_t(*const *)(nvmlDevice_t, unsigned int *))((const char *)n + which[i].off);
        unsigned v = 0;
        if (!get) {
            mcf_health_none(s, which[i].c, "NVML lacks %s", which[i].name);
        } else {
            nvmlReturn_t rc = get(n->dev, &v);
            put(s, which[i].c, n, which[i].name, rc, v);
        }
    }
}

/* The NVLink error counters summed over the GPU's links (up[l]: link l is
 * up). NVML counts them since the driver loaded or they were reset, so the
 * run's own are the after-reading less the before-reading. A link that is
 * down may have no counters (NOT_SUPPORTED): it adds nothing. */
static void nvlink_errors(const struct mcf_nvml *n, struct mcf_health_snap *s, unsigned links,
                          const int *up, const char *no_links)
{
    static const struct {
        int c, counter;
    } which[] = {
        { MCF_HC_NVLINK_REPLAY, NVML_NVLINK_ERROR_DL_REPLAY },
        { MCF_HC_NVLINK_RECOVERY, NVML_NVLINK_ERROR_DL_RECOVERY },
        { MCF_HC_NVLINK_CRC_FLIT, NVML_NVLINK_ERROR_DL_CRC_FLIT },
        { MCF_HC_NVLINK_CRC_DATA, NVML_NVLINK_ERROR_DL_CRC_DATA },
    };
    for (size_t i = 0; i < sizeof which / sizeof which[0]; i++) {
        unsigned long long sum = 0;
        nvmlReturn_t rc = NVML_SUCCESS;
        unsigned l;
        if (!n->nvlink_errors) {
            mcf_health_none(s, which[i].c, "NVML lacks nvmlDeviceGetNvLinkErrorCounter");
            continue;
        }
        if (links == 0) {
            mcf_health_none(s, which[i].c, "%s", no_links);
            continue;
        }
        for (l = 0; l < links; l++) {
            unsigned long long v = 0;
            rc = n->nvlink_errors(n->dev, l, which[i].counter, &v);
            if (rc == NVML_SUCCESS)
                sum += v;
            else if (!(rc == NVML_ERROR_NOT_SUPPORTED && up[l] == 0))
                break;
        }
        if (l < links)
            mcf_health_none(s, which[i].c, "nvmlDeviceGetNvLinkErrorCounter(link %u): %s", l,
                            mcf_nvml_error(n, rc));
        else
            s->v[which[i].c] = (long long)sum;
    }
}

/* The NVLinks: how many the GPU has (the field NVML_FI_DEV_NVLINK_LINK_COUNT;
 * where the driver lacks it, the links NVML answers for, from link 0 until
 * it says there is no such link), how many are up, their error counters.
 * A GPU without NVLink has 0 links, 0 up. A link whose state cannot be read
 * leaves nvlink_active unknown: a link not read is not a link down. */
static void nvlink(const struct mcf_nvml *n, struct mcf_health_snap *s)
{
    int up[NVML_NVLINK_MAX_LINKS];
    unsigned links = 0, active = 0, l;
    int counted = 0;
    nvmlReturn_t rc = NVML_SUCCESS;
    if (!n->nvlink_state) {
        mcf_health_none(s, MCF_HC_NVLINK_LINKS, "NVML lacks nvmlDeviceGetNvLinkState");
        mcf_health_none(s, MCF_HC_NVLINK_ACTIVE, "NVML lacks nvmlDeviceGetNvLinkState");
        nvlink_errors(n, s, 0, up, "NVML lacks nvmlDeviceGetNvLinkState");
        return;
    }
    if (n->fields) {
        nvmlFieldValue_t v;
        memset(&v, 0, sizeof v);
        v.fieldId = NVML_FI_DEV_NVLINK_LINK_COUNT;
        if (n->fields(n->dev, 1, &v) == NVML_SUCCESS && v.nvmlReturn == NVML_SUCCESS) {
            links = v.value.uiVal < NVML_NVLINK_MAX_LINKS ? v.value.uiVal : NVML_NVLINK_MAX_LINKS;
            counted = 1;
        }
    }
    for (l = 0; l < (counted ? links : NVML_NVLINK_MAX_LINKS); l++) {
        int on = 0;
        up[l] = -1;
        rc = n->nvlink_state(n->dev, l, &on);
        if (rc == NVML_SUCCESS) {
            up[l] = on != 0; /* enabled; a newer driver's sleep state (2) is a link up, resting */
            active += (unsigned)up[l];
            continue;
        }
        break;
    }
    /* probing, INVALID_ARGUMENT or NOT_SUPPORTED says there is no link l:
     * the links end there; any other error leaves the count unknown */
    if (!counted && l < NVML_NVLINK_MAX_LINKS && rc != NVML_ERROR_INVALID_ARGUMENT &&
        rc != NVML_ERROR_NOT_SUPPORTED) {
        mcf_health_none(s, MCF_HC_NVLINK_LINKS, "nvmlDeviceGetNvLinkState(link %u): %s", l,
                        mcf_nvml_error(n, rc));
        mcf_health_none(s, MCF_HC_NVLINK_ACTIVE, "%s", s->why[MCF_HC_NVLINK_LINKS]);
        nvlink_errors(n, s, l, up, s->why[MCF_HC_NVLINK_LINKS]); /* the links known to be there */
        return;
    }
    if (!counted) links = l;
    s->v[MCF_HC_NVLINK_LINKS] = links;
    if (l < links)
        mcf_health_none(s, MCF_HC_NVLINK_ACTIVE, "nvmlDeviceGetNvLinkState(link %u): %s", l,
                        mcf_nvml_error(n, rc));
    else
        s->v[MCF_HC_NVLINK_ACTIVE] = active;
    for (; l < links; l++) up[l] = -1;
    nvlink_errors(n, s, links, up, "the GPU has no NVLink");
}

static void read_nvml(void *state, struct mcf_health_snap *s)
{
    const struct mcf_nvml *n = state;
    mcf_health_snap_blank(s, "");
    ecc(n, s);
    memory_repair(n, s);
    pcie_link(n, s);
    nvlink(n, s);
    mcf_health_none(s, MCF_HC_XGMI_ERROR, "NVIDIA GPUs have NVLink, not xGMI (see nvlink_*)");
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
