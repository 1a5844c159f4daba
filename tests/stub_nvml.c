/* A stand-in for libnvidia-ml.so.1 with scripted values, loaded by the NVML
 * power source and the health counters in place of the real one
 * (MCFLEET_NVML_LIB). STUB_NVML sets the script, comma-separated words:
 * "ok" (default), "init-fail", "reset" (the energy counter goes back after 3
 * reads), "no-instant" (the instantaneous field unsupported); health:
 * "ecc-uncorrected" (2 volatile, 5 aggregate), "ecc-off" (ECC counts not
 * supported), "remap-pending", "remap-failed", "no-remap" (the GPU does not
 * remap rows: retired pages instead), "retire-pending", "link-x8" (8 of 16
 * lanes), "no-serial". $STUB_NVML_GEN is the current link generation
 * (default 5, the maximum): an idle GPU's lower one. $STUB_NVML_PROCS is the
 * number of processes with a compute context on the GPU, one per world rank
 * ($OMPI_COMM_WORLD_RANK), comma-separated, the last repeated (default 1:
 * the rank itself); "procs-fail": the call fails.
 * NVLink: $STUB_NVML_NVLINKS, one value per world rank as above, is the
 * number of links the GPU has (default 0: none); $STUB_NVML_NVLINK_DOWN how
 * many of them (the last ones) are down (default 0); words "nvlink-errors"
 * (link 0's replay and CRC counters grow between health readings),
 * "nvlink-recovery" (its recovery counter too), "nvlink-no-field" (the
 * link-count field unsupported: mcfleet probes link by link).
 * Built three times: with STUB_NO_ENERGY the energy symbol is missing; with
 * STUB_OLD_DRIVER nvmlDeviceGetTotalEccErrors, nvmlDeviceGetRemappedRows and
 * the NVLink calls. */
#include <stdlib.h>
#include <string.h>

#include "stub_words.h"

typedef union { double dVal; unsigned int uiVal; unsigned long ulVal; unsigned long long ullVal;
                long long sllVal; int siVal; unsigned short usVal; } nvmlValue_t;
typedef struct {
    unsigned int fieldId, scopeId;
    long long timestamp, latencyUsec;
    int valueType, nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;

#define NOT_SUPPORTED 3
#define INSUFFICIENT_SIZE 7

static int mode_is(const char *m) { return stub_word("STUB_NVML", m); }

static int dev = 42;
static unsigned long long reads;

const char *nvmlErrorString(int rc)
{
    return rc == 999 ? "Unknown Error (stub)" : rc == NOT_SUPPORTED ? "Not Supported (stub)" : "stub error";
}
int nvmlInit_v2(void) { reads = 0; return mode_is("init-fail") ? 999 : 0; }
int nvmlShutdown(void) { return 0; }
int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **d)
{
    if (strcmp(bus, "0000:00:06.0") != 0) return 13;    /* NVML_ERROR_NOT_FOUND */
    *d = &dev;
    return 0;
}
int nvmlDeviceGetPowerUsage(void *d, unsigned int *mw) { (void)d; *mw = 250000; return 0; }
#ifndef STUB_NO_ENERGY
int nvmlDeviceGetTotalEnergyConsumption(void *d, unsigned long long *mj)
{
    (void)d;
    reads++;
    *mj = (mode_is("reset") && reads > 3) ? 5 * reads : 1000000 + 1000 * reads;
    return 0;
}
#endif
int nvmlDeviceGetTemperature(void *d, int s, unsigned int *t) { (void)d; (void)s; *t = 47; return 0; }
int nvmlDeviceGetClockInfo(void *d, int type, unsigned int *c) { (void)d; *c = type == 1 ? 1980 : 2619; return 0; }
int nvmlDeviceGetCurrentClocksEventReasons(void *d, unsigned long long *r) { (void)d; *r = 0x4; return 0; }
int nvmlDeviceGetFieldValues(void *d, int n, nvmlFieldValue_t *v)
{
    (void)d;
    for (int i = 0; i < n; i++) {
        v[i].nvmlReturn = (v[i].fieldId == 186 && !mode_is("no-instant")) ? 0 : 2;
        v[i].value.uiVal = 262500;
        if (v[i].fieldId == 91) {   /* the NVLink count */
            v[i].nvmlReturn = mode_is("nvlink-no-field") ? NOT_SUPPORTED : 0;
            v[i].value.uiVal = (unsigned)stub_rank_value("STUB_NVML_NVLINKS", 0);
        }
    }
    return 0;
}

/* ---- health: (error type corrected 0 / uncorrected 1) x (volatile 0 / aggregate 1) */
#ifndef STUB_OLD_DRIVER
int nvmlDeviceGetTotalEccErrors(void *d, int type, int counter, unsigned long long *n)
{
    static const unsigned long long ok[2][2] = { { 3, 10 }, { 0, 0 } }, bad[2][2] = { { 3, 10 }, { 2, 5 } };
    (void)d;
    if (mode_is("ecc-off")) return NOT_SUPPORTED;
    if (type < 0 || type > 1 || counter < 0 || counter > 1) return 2;   /* invalid argument */
    *n = mode_is("ecc-uncorrected") ? bad[type][counter] : ok[type][counter];
    return 0;
}
int nvmlDeviceGetRemappedRows(void *d, unsigned *corr, unsigned *unc, unsigned *pending, unsigned *failed)
{
    (void)d;
    if (mode_is("no-remap")) return NOT_SUPPORTED;
    *corr = 1;
    *unc = 0;
    *pending = mode_is("remap-pending");
    *failed = mode_is("remap-failed");
    return 0;
}
#endif
int nvmlDeviceGetRetiredPages(void *d, int cause, unsigned *count, unsigned long long *addresses)
{
    unsigned have = cause == 0 ? 2 : 1;   /* multiple single-bit: 2, double-bit: 1 */
    (void)d;
    if (*count < have || !addresses) {
        *count = have;
        return INSUFFICIENT_SIZE;
    }
    for (unsigned i = 0; i < have; i++) addresses[i] = 0x1000u * (i + 1);
    *count = have;
    return 0;
}
int nvmlDeviceGetRetiredPagesPendingStatus(void *d, int *pending) { (void)d; *pending = mode_is("retire-pending"); return 0; }
int nvmlDeviceGetMaxPcieLinkGeneration(void *d, unsigned *g) { (void)d; *g = 5; return 0; }
int nvmlDeviceGetMaxPcieLinkWidth(void *d, unsigned *w) { (void)d; *w = 16; return 0; }
int nvmlDeviceGetCurrPcieLinkGeneration(void *d, unsigned *g)
{
    const char *s = getenv("STUB_NVML_GEN");
    (void)d;
    *g = s && *s ? (unsigned)atoi(s) : 5;
    return 0;
}
int nvmlDeviceGetCurrPcieLinkWidth(void *d, unsigned *w) { (void)d; *w = mode_is("link-x8") ? 8 : 16; return 0; }
int nvmlDeviceGetSerial(void *d, char *serial, unsigned len)
{
    (void)d;
    if (mode_is("no-serial")) return NOT_SUPPORTED;
    if (len < 14) return INSUFFICIENT_SIZE;
    strcpy(serial, "1654922001234");
    return 0;
}

/* the count only, as mcfleet asks: (count 0, list NULL) gives INSUFFICIENT_SIZE
 * with the number, or success where there is none */
static unsigned procs_of_this_rank(void) { return (unsigned)stub_rank_value("STUB_NVML_PROCS", 1); }
int nvmlDeviceGetComputeRunningProcesses_v3(void *d, unsigned *count, void *infos)
{
    unsigned have = procs_of_this_rank();
    (void)d;
    if (mode_is("procs-fail")) return 999;
    if (*count < have || !infos) {
        *count = have;
        return have ? INSUFFICIENT_SIZE : 0;
    }
    memset(infos, 0, (size_t)have * 24);
    *count = have;
    return 0;
}

#ifndef STUB_OLD_DRIVER
/* ---- NVLink: links [0, n - down) up, the rest down; past n none (INVALID_ARGUMENT) */
int nvmlDeviceGetNvLinkState(void *d, unsigned link, int *active)
{
    unsigned n = (unsigned)stub_rank_value("STUB_NVML_NVLINKS", 0),
             down = (unsigned)stub_rank_value("STUB_NVML_NVLINK_DOWN", 0);
    (void)d;
    if (n == 0) return NOT_SUPPORTED;
    if (link >= n) return 2;
    *active = link + down < n;
    return 0;
}
/* every link counts a few errors since the driver loaded; with
 * "nvlink-errors" link 0 counts more at each health reading (a reading
 * starts with link 0's replay counter) */
static unsigned long long nvlink_readings;
int nvmlDeviceGetNvLinkErrorCounter(void *d, unsigned link, int counter, unsigned long long *v)
{
    static const unsigned long long base[4] = { 3, 0, 2, 1 }, grow[4] = { 40, 1, 25, 5 };
    unsigned n = (unsigned)stub_rank_value("STUB_NVML_NVLINKS", 0);
    (void)d;
    if (n == 0) return NOT_SUPPORTED;
    if (link >= n || counter < 0 || counter > 4) return 2;
    if (counter == 4) return NOT_SUPPORTED;   /* ECC data: not on this GPU */
    if (link == 0 && counter == 0) nvlink_readings++;
    *v = base[counter];
    if (link == 0 && nvlink_readings > 1 && mode_is("nvlink-errors") && (counter != 1 || mode_is("nvlink-recovery")))
        *v += grow[counter] * (nvlink_readings - 1);
    return 0;
}
#endif
