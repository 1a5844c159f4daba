/* The pm_counters power source: this rank's accelerator (accelN, mapped by
 * PCI bus id, see craypm.h), with the files' own timestamps. The root is
 * /sys/cray/pm_counters, or $MCFLEET_CRAYPM_ROOT (tests, other mounts). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "craypm.h"
#include "power.h"

struct craypm_src {
    const char *root;
    int accel;
    struct mcf_craypm_snapshot first; /* generation and startup at open */
};

/* Both pm_counters sources: the root, and a first snapshot that must read. */
static int craypm_start(struct craypm_src **out, struct mcf_err *e)
{
    struct craypm_src *c = NULL;
    MCF_ALLOC(e, c, 1);
    c->root = getenv("MCFLEET_CRAYPM_ROOT");
    if (!c->root || !*c->root) c->root = "/sys/cray/pm_counters";
    if (strlen(c->root) > MCF_CRAYPM_ROOT_MAX) /* craypm.c's paths would cut it */
        MCF_FAIL(e, MCF_EUNSUPPORTED,
                 "MCFLEET_CRAYPM_ROOT is %zu characters long; at most %d are supported",
                 strlen(c->root), MCF_CRAYPM_ROOT_MAX);
    MCF_TRY(mcf_craypm_read(c->root, &c->first, NULL, NULL, e));
    *out = c;
    return MCF_OK;
fail:
    free(c);
    return e->rc;
}

static int craypm_open(void **state, const struct mcf_power_env *env, struct mcf_err *e)
{
    struct craypm_src *c = NULL;
    MCF_TRY(craypm_start(&c, e));
    c->accel = env->accel_index;
    if (c->accel < 0 || c->accel >= c->first.naccel)
        MCF_FAIL(e, MCF_EUNSUPPORTED,
                 "pm_counters: %d accelerators, none mapped to this rank's GPU (%s)",
                 c->first.naccel, env->pci_bus_id);
    *state = c;
    return MCF_OK;
fail:
    free(c);
    return e->rc;
}

/* A reading's time where it carries an energy: the energy's own stamp. The
 * firmware writes each file, then freshness, so a read that falls inside an
 * update sees an unchanged freshness and may take the power from one update
 * and the energy from the next (more often on a loaded node, where a reader
 * is descheduled between two files). The windows' energies come from the
 * counter interpolated between its update times: stamped with the power's
 * time, a new energy would sit one update early, up to a whole update's
 * joules on a window's edge. The power reading, a figure of lesser weight,
 * is then at most one update off. */
static double energy_time(const struct mcf_craypm_value *power,
                          const struct mcf_craypm_value *energy)
{
    return (energy->present ? energy->t_us : power->t_us) * 1e-6;
}

static int craypm_read_src(void *state, struct mcf_preading *r, struct mcf_err *e)
{
    struct craypm_src *c = state;
    struct mcf_craypm_snapshot s;
    mcf_preading_blank(r);
    MCF_TRY(mcf_craypm_read(c->root, &s, NULL, NULL, e));
    r->s.power_w = s.accel_power[c->accel].value;
    r->src_t = s.accel_power[c->accel].t_us * 1e-6;
    /* after a counter reset the energies are not comparable with earlier ones */
    if (mcf_craypm_comparable(&s, &c->first)) {
        r->s.energy_j = s.accel_energy[c->accel].value;
        r->src_t = energy_time(&s.accel_power[c->accel], &s.accel_energy[c->accel]);
    }
    return MCF_OK;
fail:
    return e->rc;
}

static void craypm_close(void *state)
{
    free(state);
}

const struct mcf_power_source mcf_power_craypm = {
    .name = "craypm",
    .kind = MCF_POWER_CRAYPM,
    .scope = "node accelerator",
    .node_level = 0,
    .open = craypm_open,
    .read = craypm_read_src,
    .close = craypm_close,
};

/* The node's own counters (node, CPU, memory), read by local rank 0 only. */
static int node_open(void **state, const struct mcf_power_env *env, struct mcf_err *e)
{
    struct craypm_src *c = NULL;
    if (!env->node_leader)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "node counters are read by local rank 0");
    MCF_TRY(craypm_start(&c, e));
    if (!c->first.power.present)
        MCF_FAIL(e, MCF_EUNSUPPORTED, "pm_counters at %s has no node power file", c->root);
    *state = c;
    return MCF_OK;
fail:
    free(c);
    return e->rc;
}

static int node_read(void *state, struct mcf_preading *r, struct mcf_err *e)
{
    struct craypm_src *c = state;
    struct mcf_craypm_snapshot s;
    mcf_preading_blank(r);
    MCF_TRY(mcf_craypm_read(c->root, &s, NULL, NULL, e));
    r->s.power_w = s.power.value;
    r->src_t = s.power.t_us * 1e-6;
    if (mcf_craypm_comparable(&s, &c->first) && s.energy.present) {
        r->s.energy_j = s.energy.value;
        r->src_t = energy_time(&s.power, &s.energy);
    }
    if (s.cpu_power.present) r->cpu_w = s.cpu_power.value;
    if (s.memory_power.present) r->memory_w = s.memory_power.value;
    return MCF_OK;
fail:
    return e->rc;
}

const struct mcf_power_source mcf_power_craypm_node = {
    .name = "craypm_node",
    .kind = MCF_POWER_CRAYPM,
    .scope = "node (read by local rank 0)",
    .node_level = 1,
    .open = node_open,
    .read = node_read,
    .close = craypm_close,
};
