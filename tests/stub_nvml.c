/* A stand-in for libnvidia-ml.so.1 with scripted values, loaded by the NVML
 * power source in place of the real one (MCFLEET_NVML_LIB). STUB_NVML sets
 * the script: "ok" (default), "init-fail", "reset" (the energy counter goes
 * back after 3 reads), "no-instant" (the instantaneous field unsupported).
 * Built twice: with STUB_NO_ENERGY the energy symbol is missing. */
#include <stdlib.h>
#include <string.h>

typedef union { double dVal; unsigned int uiVal; unsigned long ulVal; unsigned long long ullVal;
                long long sllVal; int siVal; unsigned short usVal; } nvmlValue_t;
typedef struct {
    unsigned int fieldId, scopeId;
    long long timestamp, latencyUsec;
    int valueType, nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;

static int mode_is(const char *m)
{
    const char *s = getenv("STUB_NVML");
    return strcmp(s ? s : "ok", m) == 0;
}

static int dev = 42;
static unsigned long long reads;

const char *nvmlErrorString(int rc) { return rc == 999 ? "Unknown Error (stub)" : "stub error"; }
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
    }
    return 0;
}
