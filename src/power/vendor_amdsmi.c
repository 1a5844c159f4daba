#define _GNU_SOURCE
#include "vendor_amdsmi.h"

#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vendor_rsmi.h" /* mcf_pcie_gen_of_rate */

static const struct {
    size_t off;
    const char *name;
} symbols[] = {
    { offsetof(struct mcf_amdsmi, init), "amdsmi_init" },
    { offsetof(struct mcf_amdsmi, shutdown), "amdsmi_shut_down" },
    { offsetof(struct mcf_amdsmi, status_string), "amdsmi_status_code_to_string" },
    { offsetof(struct mcf_amdsmi, sockets), "amdsmi_get_socket_handles" },
    { offsetof(struct mcf_amdsmi, processors), "amdsmi_get_processor_handles" },
    { offsetof(struct mcf_amdsmi, bdf), "amdsmi_get_gpu_device_bdf" },
    { offsetof(struct mcf_amdsmi, lib_version), "amdsmi_get_lib_version" },
    { offsetof(struct mcf_amdsmi, power_info), "amdsmi_get_power_info" },
    { offsetof(struct mcf_amdsmi, energy), "amdsmi_get_energy_count" },
    { offsetof(struct mcf_amdsmi, temp), "amdsmi_get_temp_metric" },
    { offsetof(struct mcf_amdsmi, clock), "amdsmi_get_clock_info" },
    { offsetof(struct mcf_amdsmi, pcie), "amdsmi_get_pcie_info" },
    { offsetof(struct mcf_amdsmi, ecc_total), "amdsmi_get_gpu_total_ecc_count" },
    { offsetof(struct mcf_amdsmi, reserved_pages), "amdsmi_get_gpu_memory_reserved_pages" },
    { offsetof(struct mcf_amdsmi, xgmi_error), "amdsmi_gpu_xgmi_error_status" },
};

const char *mcf_amdsmi_error(const struct mcf_amdsmi *a, amdsmi_status_t rc)
{
    const char *s = NULL;
    if (!a->status_string || a->status_string(rc, &s) != AMDSMI_STATUS_SUCCESS || !s)
        return "unknown amd-smi error";
    return s;
}

int mcf_amdsmi_need(const struct mcf_amdsmi *a, int present, const char *name, struct mcf_err *e)
{
    if (present) return MCF_OK;
    return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "amd-smi: %s lacks %s", a->path,
                       name);
}

int mcf_amdsmi_parse_bdf(const char *bus, uint64_t *bdf)
{
    unsigned long long dom;
    unsigned b, d, f;
    int used = 0;
    if (sscanf(bus, "%llx:%x:%x.%x%n", &dom, &b, &d, &f, &used) != 4 || bus[used] != '\0' ||
        b > 0xff || d > 0x1f || f > 0x7)
        return -1;
    *bdf = ((uint64_t)dom << 16) | ((uint64_t)b << 8) | ((uint64_t)d << 3) | f;
    return 0;
}

/* The processor handles of one socket, found by BDF: 1 found, 0 not, -1 error (e set). */
static int find_in_socket(struct mcf_amdsmi *a, amdsmi_socket_handle s, uint64_t want,
                          struct mcf_err *e)
{
    amdsmi_processor_handle *h = NULL;
    uint32_t n = 0;
    amdsmi_status_t rc;
    int found = 0;
    if ((rc = a->processors(s, &n, NULL)) != AMDSMI_STATUS_SUCCESS)
        MCF_FAIL(e, MCF_ERUNTIME, "amd-smi: amdsmi_get_processor_handles failed: %s",
                 mcf_amdsmi_error(a, rc));
    if (n == 0) return 0;
    MCF_ALLOC(e, h, n);
    if ((rc = a->processors(s, &n, h)) != AMDSMI_STATUS_SUCCESS)
        MCF_FAIL(e, MCF_ERUNTIME, "amd-smi: amdsmi_get_processor_handles failed: %s",
                 mcf_amdsmi_error(a, rc));
    for (uint32_t i = 0; i < n && !found; i++) {
        uint64_t got = 0;
        if (a->bdf(h[i], &got) == AMDSMI_STATUS_SUCCESS && got == want) {
            a->dev = h[i];
            found = 1;
        }
    }
    free(h);
    return found;
fail:
    free(h);
    return -1;
}

int mcf_amdsmi_open(struct mcf_amdsmi *a, const char *bus, struct mcf_err *e)
{
    const char *path = getenv("MCFLEET_AMDSMI_LIB");
    amdsmi_socket_handle *sockets = NULL;
    uint64_t want;
    uint32_t n = 0;
    amdsmi_status_t rc;
    int initialized = 0, found = 0;
    memset(a, 0, sizeof *a);
    snprintf(a->path, sizeof a->path, "%s", path && *path ? path : "libamd_smi.so");
    if (mcf_amdsmi_parse_bdf(bus, &want) != 0)
        MCF_FAIL(e, MCF_EUNSUPPORTED, "amd-smi: this rank's device is not a PCI GPU");
    if (!(a->lib = dlopen(a->path, RTLD_NOW | RTLD_LOCAL)))
        MCF_FAIL(e, MCF_EUNSUPPORTED, "amd-smi: cannot load %s: %s", a->path, dlerror());
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++)
        *(void **)((char *)a + symbols[i].off) = dlsym(a->lib, symbols[i].name);
    MCF_TRY(mcf_amdsmi_need(a, a->status_string != NULL, "amdsmi_status_code_to_string", e));
    MCF_TRY(mcf_amdsmi_need(a, a->init != NULL, "amdsmi_init", e));
    MCF_TRY(mcf_amdsmi_need(a, a->shutdown != NULL, "amdsmi_shut_down", e));
    MCF_TRY(mcf_amdsmi_need(a, a->sockets != NULL, "amdsmi_get_socket_handles", e));
    MCF_TRY(mcf_amdsmi_need(a, a->processors != NULL, "amdsmi_get_processor_handles", e));
    MCF_TRY(mcf_amdsmi_need(a, a->bdf != NULL, "amdsmi_get_gpu_device_bdf", e));
    if ((rc = a->init(AMDSMI_INIT_AMD_GPUS)) != AMDSMI_STATUS_SUCCESS)
        MCF_FAIL(e, MCF_ERUNTIME, "amd-smi: amdsmi_init failed: %s", mcf_amdsmi_error(a, rc));
    initialized = 1;
    if (a->lib_version) {
        uint64_t v[16]; /* 128 bytes: amdsmi_version_t is 24 */
        memset(v, 0, sizeof v);
        if (a->lib_version(v) == AMDSMI_STATUS_SUCCESS) memcpy(&a->version, v, sizeof a->version);
    }
    if ((rc = a->sockets(&n, NULL)) != AMDSMI_STATUS_SUCCESS)
        MCF_FAIL(e, MCF_ERUNTIME, "amd-smi: amdsmi_get_socket_handles failed: %s",
                 mcf_amdsmi_error(a, rc));
    if (n > 0) {
        MCF_ALLOC(e, sockets, n);
        if ((rc = a->sockets(&n, sockets)) != AMDSMI_STATUS_SUCCESS)
            MCF_FAIL(e, MCF_ERUNTIME, "amd-smi: amdsmi_get_socket_handles failed: %s",
                     mcf_amdsmi_error(a, rc));
    }
    for (uint32_t i = 0; i < n && !found; i++)
        if ((found = find_in_socket(a, sockets[i], want, e)) < 0) goto fail;
    if (!found) MCF_FAIL(e, MCF_ERUNTIME, "amd-smi: no device at PCI %s", bus);
    free(sockets);
    return MCF_OK;
fail:
    free(sockets);
    if (initialized) a->shutdown();
    if (a->lib) dlclose(a->lib);
    a->lib = NULL;
    return e->rc;
}

void mcf_amdsmi_close(struct mcf_amdsmi *a)
{
    if (!a->lib) return;
    a->shutdown();
    dlclose(a->lib);
    a->lib = NULL;
}

/* A power or clock field that holds a reading: amd-smi marks one it has not
 * as 0xFFFF (a gpu_metrics field's "none", ROCm 6.1-6.3) or UINT32_MAX
 * (ROCm 6.4 onward). */
static int held(uint32_t v)
{
    return v != 0 && v < 0xFFFFu;
}

static uint32_t u32_at(const void *buf, size_t off)
{
    uint32_t v;
    memcpy(&v, (const char *)buf + off, sizeof v);
    return v;
}

/* amdsmi_power_info_t has had three layouts, all in W on bare metal; the
 * library's version (a->version) tells which:
 *   23, ROCm 6.0 (as released): uint32 average_socket_power at 0
 *   24, ROCm 6.1-6.3:   uint32 current_socket_power at 0, average at 4
 *                       (0xFFFF: the GPU has none; MI300 has only the
 *                       current, MI200 and earlier only the average)
 *   25 on, ROCm 6.4 on: uint64 socket_power at 0 (filled on bare metal from
 *                       ROCm 7.0), uint32 current_socket_power at 8, average
 *                       at 12 (UINT32_MAX: none)
 * The power is the first of a layout's fields that holds a reading. The
 * library's major version should change with every struct change, but
 * which 25.x release took the 64-bit layout is not documented (6.4.1's has
 * it), so a 25-on reading is checked: the word at 4, the high half of
 * socket_power, is 0 or all ones, and the word at 0 is never 6.1-6.3's
 * 0xFFFF; a reading that fails that is read as 6.1-6.3's layout. */
int mcf_amdsmi_power(const struct mcf_amdsmi *a, double *w)
{
    uint64_t buf[128]; /* 1 KiB: more than any release's struct (192 bytes in 7.0) */
    size_t off[2] = { 0, 0 }, n;
    if (a->version >= 25) {
        off[0] = 8;
        off[1] = 12;
        n = 2;
    } else if (a->version == 24) {
        off[0] = 0;
        off[1] = 4;
        n = 2;
    } else if (a->version == 23) {
        n = 1;
    } else
        return -1; /* unknown: no guess at the layout */
    memset(buf, 0, sizeof buf);
    if (!a->power_info || a->power_info(a->dev, buf) != AMDSMI_STATUS_SUCCESS) return -1;
    if (a->version >= 25 &&
        ((u32_at(buf, 4) != 0 && u32_at(buf, 4) != UINT32_MAX) || u32_at(buf, 0) == 0xFFFFu)) {
        off[0] = 0; /* 6.1-6.3's layout after all */
        off[1] = 4;
    } else if (a->version >= 25 && buf[0] > 0 && buf[0] < 0xFFFFu) { /* socket_power */
        *w = (double)buf[0];
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if (held(u32_at(buf, off[i]))) {
            *w = u32_at(buf, off[i]);
            return 0;
        }
    return -1;
}

/* amdsmi_clk_info_t: uint32 clk (MHz) at 0 in every release. */
double mcf_amdsmi_clock(const struct mcf_amdsmi *a, int type)
{
    uint64_t buf[32];
    memset(buf, 0, sizeof buf);
    if (!a->clock || a->clock(a->dev, type, buf) != AMDSMI_STATUS_SUCCESS || !held(u32_at(buf, 0)))
        return NAN;
    return u32_at(buf, 0);
}

/* A link speed in MT/s (a value below 1000 is in GT/s, as later headers
 * document max_pcie_speed) as its generation; -1 where it holds none. */
static int gen_of(uint32_t speed)
{
    if (speed == 0 || speed == 0xFFFFu || speed == UINT32_MAX) return -1;
    return mcf_pcie_gen_of_rate((uint64_t)speed * (speed < 1000 ? 1000000000ull : 1000000ull));
}

/* amdsmi_pcie_info_t since ROCm 6.1 (version 24 on): pcie_static, 96 bytes
 * in every release since (uint16 max_pcie_width at 0, uint32 max_pcie_speed
 * at 4, then fields and reserved words), then pcie_metric: uint16
 * pcie_width at 96, uint32 pcie_speed (MT/s) at 100. ROCm 6.0's struct was
 * another (the current lanes and speed only): not read. */
int mcf_amdsmi_link(const struct mcf_amdsmi *a, int *gen, int *width, int *gen_max, int *width_max)
{
    uint64_t buf[256]; /* 2 KiB: more than any release's struct (about 0.5 KiB) */
    uint16_t w, wm;
    *gen = *width = -1;
    if (gen_max) *gen_max = -1;
    if (width_max) *width_max = -1;
    memset(buf, 0, sizeof buf);
    if (a->version < 24 || !a->pcie || a->pcie(a->dev, buf) != AMDSMI_STATUS_SUCCESS) return -1;
    memcpy(&wm, (const char *)buf + 0, sizeof wm);
    memcpy(&w, (const char *)buf + 96, sizeof w);
    if (w == 0 || w == 0xFFFFu || gen_of(u32_at(buf, 100)) < 0) return -1;
    *gen = gen_of(u32_at(buf, 100));
    *width = w;
    if (gen_max) *gen_max = gen_of(u32_at(buf, 4));
    if (width_max) *width_max = wm && wm != 0xFFFFu ? wm : -1;
    return 0;
}
