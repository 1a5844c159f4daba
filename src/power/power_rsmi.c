/* The rocm-smi power source (the library is loaded by src/power/vendor_rsmi.c).
 * Power: the socket power where this ROCm has
 * rsmi_dev_current_socket_power_get, else rsmi_dev_power_ave_get (µW); energy:
 * the counter times its reported resolution (µJ), with the counter's own
 * timestamp (ns); every MCF_LINK_EVERY reads, the current PCIe link. On
 * MI250X only the primary GCD of a package reports power, and its reading
 * covers the whole package: a GCD that reports none is off, with that
 * reason, and the scope says "package". */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "power.h"
#include "vendor_rsmi.h"

struct rsmi {
    struct mcf_rsmi r;
    unsigned long reads;
};

static int read_power(const struct mcf_rsmi *r, double *w)
{
    uint64_t uw = 0;
    if (r->socket_power && r->socket_power(r->dev, &uw) == RSMI_OK && uw) {
        *w = uw * 1e-6;
        return 0;
    }
    if (r->power_ave(r->dev, 0, &uw) == RSMI_OK && uw) {
        *w = uw * 1e-6;
        return 0;
    }
    return -1;
}

static int rsmi_open(void **state, const struct mcf_power_env *env, struct mcf_err *e)
{
    struct rsmi *p = NULL;
    int opened = 0;
    double w;
    MCF_ALLOC(e, p, 1);
    MCF_TRY(mcf_rsmi_open(&p->r, env->pci_bus_id, e));
    opened = 1;
    MCF_TRY(mcf_rsmi_need(&p->r, p->r.power_ave != NULL, "rsmi_dev_power_ave_get", e));
    MCF_TRY(mcf_rsmi_need(&p->r, p->r.energy != NULL, "rsmi_dev_energy_count_get", e));
    MCF_TRY(mcf_rsmi_need(&p->r, p->r.temp != NULL, "rsmi_dev_temp_metric_get", e));
    if (read_power(&p->r, &w) != 0)
        MCF_FAIL(e, MCF_EUNSUPPORTED,
                 "rocm-smi: this GCD reports no power (on MI250X its package's primary GCD "
                 "does, for the whole package)");
    *state = p;
    return MCF_OK;
fail:
    if (opened) mcf_rsmi_close(&p->r);
    free(p);
    return e->rc;
}

static int rsmi_read(void *state, struct mcf_preading *out, struct mcf_err *e)
{
    struct rsmi *p = state;
    const struct mcf_rsmi *r = &p->r;
    uint64_t counter, ts;
    float res;
    int64_t mdeg;
    double w;
    (void)e;
    mcf_preading_blank(out);
    if (read_power(r, &w) == 0) out->s.power_w = w;
    if (r->energy(r->dev, &counter, &res, &ts) == RSMI_OK) {
        out->s.energy_j = (double)counter * res * 1e-6;
        out->src_t = ts * 1e-9;
    }
    if (r->temp(r->dev, 0 /* edge */, 0 /* current */, &mdeg) == RSMI_OK) out->temp_c = mdeg * 1e-3;
    if (p->reads++ % MCF_LINK_EVERY == 0)
        mcf_rsmi_link(r, &out->pcie_gen, &out->pcie_width, NULL, NULL);
    return MCF_OK;
}

static void rsmi_close(void *state)
{
    struct rsmi *p = state;
    mcf_rsmi_close(&p->r);
    free(p);
}

const struct mcf_power_source mcf_power_rsmi = {
    .name = "rsmi",
    .kind = MCF_POWER_RSMI,
    .scope = "device; on MI250X the package, read on its primary GCD",
    .node_level = 0,
    .open = rsmi_open,
    .read = rsmi_read,
    .close = rsmi_close,
};
