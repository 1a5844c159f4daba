/* A stand-in for librocm_smi64.so with scripted values (MCFLEET_RSMI_LIB).
 * Two devices: index 0 at PCI 0000:c1:00.0 (reports power), index 1 at
 * 0000:c6:00.0 (an MI250X secondary GCD: no power). STUB_RSMI, comma-separated
 * words: "ok" or "init-fail"; health: "ecc-uncorrected", "page-unreservable"
 * (one page that could not be retired), "link-x8", "no-health" (the health
 * entry points fail: not supported), "xgmi-error" (the xGMI error status is
 * 1, an error). $STUB_RSMI_GEN is the current link
 * generation (default 5, the maximum of the supported list). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stub_words.h"

static int mode_is(const char *m) { return stub_word("STUB_RSMI", m); }
static uint64_t reads;

#define NOT_SUPPORTED 2
#define INSUFFICIENT_SIZE 11

int rsmi_status_string(int rc, const char **s)
{
    *s = rc == 8 ? "RSMI_STATUS_INIT_ERROR (stub)" : rc == NOT_SUPPORTED ? "RSMI_STATUS_NOT_SUPPORTED (stub)" : "stub";
    return 0;
}
int rsmi_init(uint64_t f) { (void)f; reads = 0; return mode_is("init-fail") ? 8 : 0; }
int rsmi_shut_down(void) { return 0; }
int rsmi_num_monitor_devices(uint32_t *n) { *n = 2; return 0; }
int rsmi_dev_pci_id_get(uint32_t d, uint64_t *bdf) { *bdf = ((uint64_t)0 << 32) | ((d ? 0xc6u : 0xc1u) << 8); return 0; }
int rsmi_dev_power_ave_get(uint32_t d, uint32_t s, uint64_t *uw) { (void)s; *uw = d ? 0 : 480000000ull; return 0; }
int rsmi_dev_energy_count_get(uint32_t d, uint64_t *c, float *res, uint64_t *ts)
{
    (void)d;
    reads++;
    *c = 1000000 * reads;          /* x 15.3 uJ */
    *res = 15.3f;
    *ts = 5000000000ull + 100000000ull * reads;
    return 0;
}
int rsmi_dev_temp_metric_get(uint32_t d, uint32_t s, int m, int64_t *t) { (void)d; (void)s; (void)m; *t = 51000; return 0; }

/* ---- health (declarations as in rocm_smi.h) */
typedef struct { uint64_t correctable_err, uncorrectable_err; } rsmi_error_count_t;
typedef struct { uint64_t page_address, page_size; int status; } rsmi_retired_page_record_t;
typedef struct { bool has_deep_sleep; uint32_t num_supported, current; uint64_t frequency[33]; } rsmi_frequencies_t;
typedef struct { rsmi_frequencies_t transfer_rate; uint32_t lanes[33]; } rsmi_pcie_bandwidth_t;

int rsmi_dev_ecc_enabled_get(uint32_t d, uint64_t *blocks)
{
    (void)d;
    if (mode_is("no-health")) return NOT_SUPPORTED;
    *blocks = 0x1 | 0x4;   /* UMC, GFX */
    return 0;
}
int rsmi_dev_ecc_count_get(uint32_t d, uint64_t block, rsmi_error_count_t *ec)
{
    (void)d;
    if (block == 0x1) { ec->correctable_err = 4; ec->uncorrectable_err = mode_is("ecc-uncorrected"); return 0; }
    if (block == 0x4) { ec->correctable_err = 1; ec->uncorrectable_err = 0; return 0; }
    return NOT_SUPPORTED;
}
int rsmi_dev_memory_reserved_pages_get(uint32_t d, uint32_t *num, rsmi_retired_page_record_t *rec)
{
    /* two reserved, one pending; one unreservable where asked */
    static const int status[] = { 0, 0, 1, 2 };
    uint32_t have = mode_is("page-unreservable") ? 4 : 3;
    (void)d;
    if (mode_is("no-health")) return NOT_SUPPORTED;
    if (!rec) { *num = have; return 0; }
    uint32_t n = *num < have ? *num : have;
    for (uint32_t i = 0; i < n; i++) {
        rec[i].page_address = 0x10000u * i;
        rec[i].page_size = 4096;
        rec[i].status = status[i];
    }
    *num = have;
    return n < have ? INSUFFICIENT_SIZE : 0;
}
int rsmi_dev_pci_bandwidth_get(uint32_t d, rsmi_pcie_bandwidth_t *bw)
{
    static const uint64_t rates[] = { 2500000000ull, 5000000000ull, 8000000000ull, 16000000000ull, 32000000000ull };
    const char *g = getenv("STUB_RSMI_GEN");
    (void)d;
    if (mode_is("no-health")) return NOT_SUPPORTED;
    memset(bw, 0, sizeof *bw);
    bw->transfer_rate.num_supported = 5;
    bw->transfer_rate.current = (uint32_t)((g && *g ? atoi(g) : 5) - 1);
    for (int i = 0; i < 5; i++) {
        bw->transfer_rate.frequency[i] = rates[i];
        bw->lanes[i] = mode_is("link-x8") ? 8 : 16;
    }
    return 0;
}
int rsmi_dev_serial_number_get(uint32_t d, char *s, uint32_t len)
{
    (void)d;
    if (mode_is("no-health")) return NOT_SUPPORTED;
    if (len < 9) return INSUFFICIENT_SIZE;
    strcpy(s, "PCB-0042");
    return 0;
}
int rsmi_dev_xgmi_error_status(uint32_t d, int *status)
{
    (void)d;
    if (mode_is("no-health")) return NOT_SUPPORTED;
    *status = mode_is("xgmi-error");
    return 0;
}
