/* rocm-smi-lib, loaded with dlopen (librocm_smi64.so, or $MCFLEET_RSMI_LIB),
 * so one binary runs where ROCm is absent. The device is found by PCI bus id
 * (rsmi_dev_pci_id_get's BDFID). Power: the socket power where this ROCm has
 * rsmi_dev_current_socket_power_get, else rsmi_dev_power_ave_get (µW); energy:
 * the counter times its reported resolution (µJ), with the counter's own
 * timestamp (ns). On MI250X only the primary GCD of a package reports power,
 * and its reading covers the whole package: a GCD that reports none is off,
 * with that reason, and the scope says "package". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "power.h"

typedef int rsmi_status_t;
#define RSMI_OK 0

struct rsmi {
    void *lib;
    uint32_t dev;
    rsmi_status_t (*init)(uint64_t);
    rsmi_status_t (*shutdown)(void);
    rsmi_status_t (*status_string)(rsmi_status_t, const char **);
    rsmi_status_t (*count)(uint32_t *);
    rsmi_status_t (*pci)(uint32_t, uint64_t *);
    rsmi_status_t (*power_ave)(uint32_t, uint32_t, uint64_t *);
    rsmi_status_t (*socket_power)(uint32_t, uint64_t *);     /* newer ROCm only */
    rsmi_status_t (*energy)(uint32_t, uint64_t *, float *, uint64_t *);
    rsmi_status_t (*temp)(uint32_t, uint32_t, int, int64_t *);
};

static const char *rsmi_err(const struct rsmi *r, rsmi_status_t rc)
{
    const char *s = NULL;
    if (!r->status_string || r->status_string(rc, &s) != RSMI_OK || !s)
        return "unknown rocm-smi error";
    return s;
}

/* "0000:c1:00.0" -> BDFID */
static int parse_bdf(const char *bus, uint64_t *bdfid)
{
    unsigned dom, b, d, f;
    if (sscanf(bus, "%x:%x:%x.%x", &dom, &b, &d, &f) != 4)
        return -1;
    *bdfid = ((uint64_t)dom << 32) | ((uint64_t)(b & 0xff) << 8) | ((d & 0x1f) << 3) | (f & 0x7);
    return 0;
}

static int read_power(const struct rsmi *r, double *w)
{
    uint64_t uw = 0;
    if (r->socket_power && r->socket_power(r->dev, &uw) == RSMI_OK && uw) { *w = uw * 1e-6; return 0; }
    if (r->power_ave(r->dev, 0, &uw) == RSMI_OK && uw) { *w = uw * 1e-6; return 0; }
    return -1;
}

#define RSYM(field, name)                                                                  \
    do { *(void **)&r->field = dlsym(r->lib, name);                                       \
         if (!r->field) MCF_FAIL(e, MCF_EUNSUPPORTED, "rocm-smi: %s lacks %s", path, name); } while (0)

static int rsmi_open(void **state, const struct mcf_power_env *env, struct mcf_err *e)
{
    struct rsmi *r = NULL;
    const char *path = getenv("MCFLEET_RSMI_LIB");
    uint64_t want, got;
    uint32_t n = 0;
    double w;
    int initialized = 0;
    if (!path || !*path)
        path = "librocm_smi64.so";
    if (parse_bdf(env->pci_bus_id, &want) != 0)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "rocm-smi: this rank's device is not a PCI GPU");
    MCF_ALLOC(e, r, 1);
    if (!(r->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
        MCF_FAIL(e, MCF_EUNSUPPORTED, "rocm-smi: cannot load %s: %s", path, dlerror());
    RSYM(status_string, "rsmi_status_string");
    RSYM(init, "rsmi_init");
    RSYM(shutdown, "rsmi_shut_down");
    RSYM(count, "rsmi_num_monitor_devices");
    RSYM(pci, "rsmi_dev_pci_id_get");
    RSYM(power_ave, "rsmi_dev_power_ave_get");
    RSYM(energy, "rsmi_dev_energy_count_get");
    RSYM(temp, "rsmi_dev_temp_metric_get");
    *(void **)&r->socket_power = dlsym(r->lib, "rsmi_dev_current_socket_power_get");
    rsmi_status_t rc = r->init(0);
    if (rc != RSMI_OK)
        MCF_FAIL(e, MCF_ERUNTIME, "rocm-smi: rsmi_init failed: %s", rsmi_err(r, rc));
    initialized = 1;
    if ((rc = r->count(&n)) != RSMI_OK)
        MCF_FAIL(e, MCF_ERUNTIME, "rocm-smi: rsmi_num_monitor_devices failed: %s", rsmi_err(r, rc));
    for (r->dev = 0; r->dev < n; r->dev++)
        if (r->pci(r->dev, &got) == RSMI_OK && got == want)
            break;
    if (r->dev == n)
        MCF_FAIL(e, MCF_ERUNTIME, "rocm-smi: no device at PCI %s", env->pci_bus_id);
    if (read_power(r, &w) != 0)
        MCF_FAIL(e, MCF_EUNSUPPORTED, "rocm-smi: this GCD reports no power (on MI250X its package's primary GCD "
                                      "does, for the whole package)");
    *state = r;
    return MCF_OK;
fail:
    if (r) {
        if (initialized) r->shutdown();
        if (r->lib) dlclose(r->lib);
        free(r);
    }
    return e->rc;
}

static int rsmi_read(void *state, struct mcf_preading *p, struct mcf_err *e)
{
    struct rsmi *r = state;
    uint64_t counter, ts;
    float res;
    int64_t mdeg;
    double w;
    (void)e;
    mcf_preading_blank(p);
    if (read_power(r, &w) == 0)
        p->s.power_w = w;
    if (r->energy(r->dev, &counter, &res, &ts) == RSMI_OK) {
        p->s.energy_j = (double)counter * res * 1e-6;
        p->src_t = ts * 1e-9;
    }
    if (r->temp(r->dev, 0 /* edge */, 0 /* current */, &mdeg) == RSMI_OK)
        p->temp_c = mdeg * 1e-3;
    return MCF_OK;
}

static void rsmi_close(void *state)
{
    struct rsmi *r = state;
    r->shutdown();
    dlclose(r->lib);
    free(r);
}

const struct mcf_power_source mcf_power_rsmi = { "rsmi", "device; on MI250X the package, read on its primary GCD",
                                                 0, rsmi_open, rsmi_read, rsmi_close };
