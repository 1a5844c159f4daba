/* A stand-in for libamd_smi.so with scripted values (MCFLEET_AMDSMI_LIB).
 * Two sockets of one GCD each, like an MI250X package as amd-smi lists it:
 * 0000:c1:00.0 (the primary GCD: reports socket power for the package) and
 * 0000:c6:00.0 (the secondary GCD: power 0). STUB_AMDSMI, comma-separated
 * words: "ok" or "init-fail"; the library's version and the
 * amdsmi_power_info_t layout that goes with it: 26 (ROCm 7) by default,
 * "layout-6.4" (25: socket_power left 0, as 6.4 fills it only on a
 * virtualization host; the current power at 8, an MI300), "layout-6.1"
 * (year 24, ROCm 6.1-6.3: the current power missing and the average given,
 * an MI200), "version-25-old-layout" (25 with 6.1-6.3's layout),
 * "layout-6.0" (year 23: the average at 0), "no-version"
 * (amdsmi_get_lib_version fails); "no-edge" (no edge sensor, as MI300: the
 * hotspot answers), "millidegrees" (the hotspot in m°C); health:
 * "ecc-uncorrected", "page-unreservable" (one page that could not be
 * retired), "no-health" (the health entry points fail: not supported),
 * "xgmi-errors" (the xGMI error status is 2, several errors).
 * $STUB_AMDSMI_SCALE scales its power and energy, one factor per world rank
 * ($OMPI_COMM_WORLD_RANK), comma-separated, the last repeated (default 1):
 * a library that reads unlike rocm-smi's stub on that rank.
 * Built with -DSTUB_NO_ENERGY it lacks amdsmi_get_energy_count. The
 * declarations are this file's own (names and values of amdsmi.h). */
#include <stdint.h>
#include <string.h>

#include "stub_words.h"

static int mode_is(const char *m) { return stub_word("STUB_AMDSMI", m); }
static uint64_t reads;
static int gcd[2] = { 0, 1 };              /* the processor handles point here */
static int socket_of[2] = { 0, 1 };        /* the socket handles point here */

#define SUCCESS 0
#define NOT_SUPPORTED 2
#define INIT_ERROR 18
#define INVAL 1
#define INSUFFICIENT_SIZE 41

static int which(void *h) { return h == &gcd[1]; }

int amdsmi_status_code_to_string(int rc, const char **s)
{
    *s = rc == INIT_ERROR ? "AMDSMI_STATUS_INIT_ERROR (stub)" : rc == NOT_SUPPORTED ? "AMDSMI_STATUS_NOT_SUPPORTED (stub)" : "stub";
    return SUCCESS;
}
int amdsmi_init(uint64_t flags)
{
    reads = 0;
    if (flags != (1u << 1)) return INVAL;   /* AMDSMI_INIT_AMD_GPUS */
    return mode_is("init-fail") ? INIT_ERROR : SUCCESS;
}
int amdsmi_shut_down(void) { return SUCCESS; }
int amdsmi_get_socket_handles(uint32_t *n, void **h)
{
    if (h) {
        if (*n < 2) return INVAL;
        h[0] = &socket_of[0];
        h[1] = &socket_of[1];
    }
    *n = 2;
    return SUCCESS;
}
int amdsmi_get_processor_handles(void *socket, uint32_t *n, void **h)
{
    if (h) {
        if (*n < 1) return INVAL;
        h[0] = socket == &socket_of[1] ? &gcd[1] : &gcd[0];
    }
    *n = 1;
    return SUCCESS;
}
int amdsmi_get_gpu_device_bdf(void *h, uint64_t *bdf)
{
    *bdf = ((uint64_t)0 << 16) | ((which(h) ? 0xc6u : 0xc1u) << 8);   /* domain 0, device 0, function 0 */
    return SUCCESS;
}
int amdsmi_get_lib_version(void *v)
{
    /* the first word: the year until 25.3 (ROCm 6.4), then the major version */
    uint32_t first = mode_is("layout-6.0") ? 23 : mode_is("layout-6.1") ? 24 : mode_is("layout-6.4") ? 25
                   : mode_is("version-25-old-layout") ? 25 : 26;
    uint32_t rest[3] = { 7, 0, 0 };
    if (mode_is("no-version")) return NOT_SUPPORTED;
    memcpy(v, &first, sizeof first);
    memcpy((char *)v + 4, rest, sizeof rest);
    return SUCCESS;
}
int amdsmi_get_power_info(void *h, void *info)
{
    /* 7.0: uint64 socket_power at 0; 6.1-6.3: uint32 current at 0, average at 4 (0xFFFF: none);
     * 6.0: average at 0, the GFX voltage (mV) at 4 */
    uint32_t w = which(h) ? 0 : (uint32_t)(480 * stub_rank_value("STUB_AMDSMI_SCALE", 1) + 0.5);
    if (mode_is("layout-6.0")) {
        uint32_t f[2] = { w, 850 };
        memcpy(info, f, sizeof f);
    } else if (mode_is("layout-6.1") || mode_is("version-25-old-layout")) {
        uint32_t f[4] = { 0xFFFFu, w, 850, 900 };   /* an MI200: no current power; GFX and SoC mV at 8, 12 */
        memcpy(info, f, sizeof f);
    } else if (mode_is("layout-6.4")) {
        uint32_t f[2] = { w ? w : 0xFFFFFFFFu, 0xFFFFFFFFu };   /* current, average */
        memset(info, 0, 8);
        memcpy((char *)info + 8, f, sizeof f);
    } else {
        uint64_t socket = w;
        uint32_t f[2] = { 0xFFFFFFFFu, 0xFFFFFFFFu };    /* current, average: not given */
        memcpy(info, &socket, sizeof socket);
        memcpy((char *)info + 8, f, sizeof f);
    }
    return SUCCESS;
}
#ifndef STUB_NO_ENERGY
int amdsmi_get_energy_count(void *h, uint64_t *c, float *res, uint64_t *ts)
{
    (void)h;
    reads++;
    *c = (uint64_t)(1000000 * stub_rank_value("STUB_AMDSMI_SCALE", 1)) * reads;   /* x 15.3 uJ */
    *res = 15.3f;
    *ts = 5000000000ull + 100000000ull * reads;
    return SUCCESS;
}
#endif
int amdsmi_get_temp_metric(void *h, int sensor, int metric, int64_t *t)
{
    (void)h;
    if (metric != 0) return NOT_SUPPORTED;
    if (sensor == 0 && !mode_is("no-edge")) { *t = 51; return SUCCESS; }   /* edge, degrees C */
    if (sensor == 1) { *t = mode_is("millidegrees") ? 77000 : 77; return SUCCESS; }   /* hotspot */
    return NOT_SUPPORTED;
}
int amdsmi_get_clock_info(void *h, int type, void *info)
{
    uint32_t mhz = type == 0 ? 1700 : type == 4 ? 1600 : 0;   /* GFX, MEM */
    (void)h;
    if (!mhz) return NOT_SUPPORTED;
    memcpy(info, &mhz, sizeof mhz);   /* clk at 0 */
    return SUCCESS;
}
int amdsmi_get_pcie_info(void *h, void *info)
{
    /* pcie_static: max width at 0, max speed (MT/s) at 4; pcie_metric at 96: width, speed at 100 */
    uint16_t wmax = 16, w = 16;
    uint32_t smax = 32000, s = 16000;
    (void)h;
    if (mode_is("no-health")) return NOT_SUPPORTED;
    memcpy((char *)info + 0, &wmax, sizeof wmax);
    memcpy((char *)info + 4, &smax, sizeof smax);
    memcpy((char *)info + 96, &w, sizeof w);
    memcpy((char *)info + 100, &s, sizeof s);
    return SUCCESS;
}

/* ---- health */
int amdsmi_get_gpu_total_ecc_count(void *h, void *ec)
{
    /* correctable at 0, uncorrectable at 8, deferred at 16 */
    uint64_t c[3] = { 5, (uint64_t)mode_is("ecc-uncorrected"), 0 };
    (void)h;
    if (mode_is("no-health")) return NOT_SUPPORTED;
    memcpy(ec, c, sizeof c);
    return SUCCESS;
}
struct page { uint64_t page_address, page_size; int status; };
int amdsmi_get_gpu_memory_reserved_pages(void *h, uint32_t *num, struct page *rec)
{
    /* two reserved, one pending; one unreservable where asked */
    static const int status[] = { 0, 0, 1, 2 };
    uint32_t have = mode_is("page-unreservable") ? 4 : 3;
    (void)h;
    if (mode_is("no-health")) return NOT_SUPPORTED;
    if (!rec) { *num = have; return SUCCESS; }
    uint32_t n = *num < have ? *num : have;
    for (uint32_t i = 0; i < n; i++) {
        rec[i].page_address = 0x10000u * i;
        rec[i].page_size = 4096;
        rec[i].status = status[i];
    }
    *num = have;
    return n < have ? INSUFFICIENT_SIZE : SUCCESS;
}
int amdsmi_gpu_xgmi_error_status(void *h, int *status)
{
    (void)h;
    if (mode_is("no-health")) return NOT_SUPPORTED;
    *status = mode_is("xgmi-errors") ? 2 : 0;
    return 0;
}
