/* A stand-in for librocm_smi64.so with scripted values (MCFLEET_RSMI_LIB).
 * Two devices: index 0 at PCI 0000:c1:00.0 (reports power), index 1 at
 * 0000:c6:00.0 (an MI250X secondary GCD: no power). STUB_RSMI: "ok" or
 * "init-fail". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int mode_is(const char *m) { const char *s = getenv("STUB_RSMI"); return strcmp(s ? s : "ok", m) == 0; }
static uint64_t reads;

int rsmi_status_string(int rc, const char **s) { *s = rc == 8 ? "RSMI_STATUS_INIT_ERROR (stub)" : "stub"; return 0; }
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
