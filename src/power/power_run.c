#include "power_run.h"
#include "stop.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agree.h"
#include "clocksync.h"
#include "craypm.h"
#include "stats.h"
#include "verdict.h"

/* This rank's pm_counters accelerator: its GPU's place among the node's GPUs
 * sorted by PCI bus id ($MCFLEET_CRAYPM_ACCEL overrides, for sites that
 * number them otherwise). Collective over the node. */
static int accel_index(const struct mcf_topo *t, const char *bus, struct mcf_err *e)
{
    char *all = NULL;
    const char **list = NULL;
    int idx = -1;
    const char *forced = getenv("MCFLEET_CRAYPM_ACCEL");
    char mine[32];
    snprintf(mine, sizeof mine, "%s", bus);
    MCF_ALLOC(e, all, 32 * t->local_size);
    MCF_ALLOC(e, list, t->local_size);
    MCF_MPI(e, MPI_Allgather(mine, 32, MPI_CHAR, all, 32, MPI_CHAR, t->node));
    for (int i = 0; i < t->local_size; i++)
        list[i] = all + 32 * i;
    idx = forced && *forced ? atoi(forced) : mcf_craypm_accel_index(mine, list, t->local_size);
fail:
    free(all);
    free(list);
    return idx;
}

int mcf_power_begin(struct mcf_power_run *p, const struct mcf_topo *t, const struct mcf_device_info *dev,
                    double period_s, unsigned sources, int off, double clock_offset, double idle_s,
                    struct mcf_err *e)
{
    struct mcf_power_env env;
    int mine, all;
    memset(p, 0, sizeof *p);
    memset(&env, 0, sizeof env);
    snprintf(env.pci_bus_id, sizeof env.pci_bus_id, "%s", dev->pci_bus_id);
    env.local_rank = t->local_rank;
    env.node_leader = t->local_rank == 0;
    env.accel_index = accel_index(t, dev->pci_bus_id, e);
    MCF_TRY(mcf_agree(t->world, e));
    if (off) {
        p->sampler.nseries = 0;
    } else {
        MCF_TRY(mcf_sampler_open(&p->sampler, &env, period_s, clock_offset, sources, e));
    }
    mine = mcf_sampler_primary(&p->sampler) != NULL;   /* node-level sources do not count */
    MCF_MPI(e, MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, t->world));
    p->all_on = all;
    MCF_TRY(mcf_sampler_start(&p->sampler, e));
    MCF_TRY(mcf_agree(t->world, e));
    if (mcf_sampler_primary(&p->sampler) && idle_s > 0) {
        struct timespec ts = { (time_t)idle_s, (long)((idle_s - (time_t)idle_s) * 1e9) };
        p->idle_t0 = mcf_now() - clock_offset;
        nanosleep(&ts, NULL);
        p->idle_t1 = mcf_now() - clock_offset;
    }
    MCF_MPI(e, MPI_Barrier(t->world));
    return MCF_OK;
fail:
    return e->rc;
}

void mcf_power_free(struct mcf_power_run *p) { mcf_sampler_close(&p->sampler); }

/* A series on rank 0's time base, converted once and shared by every window.
 * Where the source stamps its values (pm_counters, rocm-smi's counter), a
 * sample's time is the stamp plus the source clock's offset, estimated as the
 * least lag between a stamp and its reading (as clock sync estimates offsets
 * by the least round trip): updates then sit where they happened, not where
 * the next poll found them. */
struct timed {
    struct mcf_psample *s;
    size_t n;
    double cadence;            /* the source's: its energy counter's, else its power's */
};

static int timed_make(const struct mcf_series *v, struct timed *t)
{
    double lag = INFINITY;
    t->n = v->n;
    t->cadence = NAN;
    if (!(t->s = malloc((v->n ? v->n : 1) * sizeof *t->s)))
        return -1;
    for (size_t i = 0; i < v->n; i++)
        if (isfinite(v->r[i].src_t) && v->r[i].s.t - v->r[i].src_t < lag)
            lag = v->r[i].s.t - v->r[i].src_t;
    for (size_t i = 0; i < v->n; i++) {
        t->s[i] = v->r[i].s;
        if (isfinite(lag) && isfinite(v->r[i].src_t))
            t->s[i].t = v->r[i].src_t + lag;
    }
    t->cadence = mcf_update_cadence(t->s, t->n);
    return 0;
}

static void timed_free(struct timed *t)
{
    free(t->s);
    t->s = NULL;
}

static struct mcf_window_figures window(const struct timed *t, double t0, double t1)
{
    return mcf_window(t->s, t->n, t0, t1, t->cadence);
}

/* Sampling goes on a little past the last test: a window's energy needs the
 * counter's first update after its end (three update intervals, 0.1-2 s).
 * Not after a stop signal: the launcher's kill may be a second away, and the
 * results matter more than the last test's energy. */
void mcf_power_end(struct mcf_power_run *p)
{
    const struct mcf_series *v = mcf_sampler_primary(&p->sampler);
    if (v && p->sampler.running && !mcf_stop_signal()) {
        struct timed t = { NULL, 0, NAN };
        pthread_mutex_lock(&p->sampler.lock);
        int made = timed_make(v, &t) == 0;
        pthread_mutex_unlock(&p->sampler.lock);
        double c = made ? t.cadence : NAN;
        timed_free(&t);
        double wait = isfinite(c) ? 3 * c : 0.5;
        wait = wait < 0.1 ? 0.1 : wait > 2.0 ? 2.0 : wait;
        struct timespec ts = { (time_t)wait, (long)((wait - (time_t)wait) * 1e9) };
        nanosleep(&ts, NULL);
    }
    mcf_sampler_stop(&p->sampler);
}

static int record_series(struct mcf_h5 *h, const struct mcf_power_run *p, int i, struct mcf_err *e)
{
    static const struct { const char *name, *unit; size_t off; } fields[] = {
        { "power_w", "W", offsetof(struct mcf_preading, s.power_w) },
        { "energy_j", "J", offsetof(struct mcf_preading, s.energy_j) },
        { "power_avg_w", "W", offsetof(struct mcf_preading, power_avg_w) },
        { "temp_c", "degC", offsetof(struct mcf_preading, temp_c) },
        { "sm_mhz", "MHz", offsetof(struct mcf_preading, sm_mhz) },
        { "mem_mhz", "MHz", offsetof(struct mcf_preading, mem_mhz) },
        { "cpu_power_w", "W", offsetof(struct mcf_preading, cpu_w) },
        { "memory_power_w", "W", offsetof(struct mcf_preading, memory_w) },
    };
    const struct mcf_series *v = &p->sampler.series[i];
    const struct mcf_power_source *src = mcf_power_sources[i];
    char g[128], path[192];
    double *col = NULL, idle = NAN, cp = NAN, ce = NAN;
    struct timed t = { NULL, 0, NAN };
    size_t n = v->on ? v->n : 0;
    if (v->on)
        timed_make(v, &t);   /* out of memory: NaN figures, never a rank missing from a collective */
    if (t.s) {
        cp = mcf_update_cadence_of(t.s, t.n, 0);
        ce = mcf_update_cadence_of(t.s, t.n, 1);
        if (p->idle_t1 > p->idle_t0)
            idle = window(&t, p->idle_t0, p->idle_t1).avg_power_w;
    }
    snprintf(g, sizeof g, "/power/%s", src->name);
    MCF_TRY(mcf_h5_group(h, g, e));
    MCF_TRY(mcf_h5_attr_str(h, g, "scope", src->scope, e));
    MCF_TRY(mcf_h5_attr_double(h, g, "period_s", p->sampler.period_s, e));
    snprintf(path, sizeof path, "%s/status", g);
    MCF_TRY(mcf_h5_rows_str(h, path, v->on ? "on" : (v->status[0] ? v->status : "off: disabled (--power off)"), e));
    snprintf(path, sizeof path, "%s/count", g);
    MCF_TRY(mcf_h5_rows_long(h, path, (long long)n, e));
    snprintf(path, sizeof path, "%s/cadence_s", g);
    MCF_TRY(mcf_h5_rows_double(h, path, &t.cadence, 0, "s", e));
    snprintf(path, sizeof path, "%s/cadence_power_s", g);
    MCF_TRY(mcf_h5_rows_double(h, path, &cp, 0, "s", e));
    snprintf(path, sizeof path, "%s/cadence_energy_s", g);
    MCF_TRY(mcf_h5_rows_double(h, path, &ce, 0, "s", e));
    snprintf(path, sizeof path, "%s/idle_power_w", g);
    MCF_TRY(mcf_h5_rows_double(h, path, &idle, 0, "W", e));
    MCF_TRY(mcf_h5_attr_long(h, g, "series_kept", p->keep_series, e));
    if (!p->keep_series)
        n = 0;   /* `power: series: false`: the datasets exist, empty; the figures above and per test remain */
    MCF_ALLOC(e, col, n);
    for (size_t k = 0; k < n; k++)
        col[k] = v->r[k].s.t;
    snprintf(path, sizeof path, "%s/t_s", g);
    MCF_TRY(mcf_h5_ragged_double(h, path, col, n, "s since rank 0's clock origin", e));
    for (size_t k = 0; k < n; k++)
        col[k] = v->r[k].src_t;
    snprintf(path, sizeof path, "%s/source_t_s", g);
    MCF_TRY(mcf_h5_ragged_double(h, path, col, n, "s on the source's own clock (NaN: none)", e));
    /* the clock-event (throttle) reason bits, exact as doubles below 2^53 */
    for (size_t k = 0; k < n; k++)
        col[k] = (double)v->r[k].throttle;
    snprintf(path, sizeof path, "%s/throttle_reasons", g);
    MCF_TRY(mcf_h5_ragged_double(h, path, col, n, "NVML clock-event reason bit mask", e));
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        for (size_t k = 0; k < n; k++)
            col[k] = *(const double *)((const char *)&v->r[k] + fields[f].off);
        snprintf(path, sizeof path, "%s/%s", g, fields[f].name);
        MCF_TRY(mcf_h5_ragged_double(h, path, col, n, fields[f].unit, e));
    }
    free(col);
    timed_free(&t);
    return MCF_OK;
fail:
    free(col);
    timed_free(&t);
    return e->rc;
}

struct mcf_evidence mcf_window_evidence(const struct mcf_preading *r, size_t n, double t0, double t1)
{
    struct mcf_evidence ev = { NAN, NAN, NAN };
    double *mhz = malloc((n ? n : 1) * sizeof *mhz);
    size_t m = 0;
    uint64_t mask = 0;
    int masks = 0;
    if (!mhz || !(t1 >= t0))
        goto out;
    for (size_t i = 0; i < n; i++) {
        double until = i + 1 < n ? r[i + 1].s.t : r[i].s.t;   /* the last reading holds only at its time */
        if (r[i].s.t > t1 || until < t0)
            continue;
        if (isfinite(r[i].sm_mhz))
            mhz[m++] = r[i].sm_mhz;
        if (isfinite(r[i].temp_c) && !(r[i].temp_c <= ev.temp_c_max))
            ev.temp_c_max = r[i].temp_c;
        if (r[i].throttle_read) {
            mask |= r[i].throttle;
            masks++;
        }
    }
    if (m)
        ev.sm_mhz = mcf_median(mhz, m);
    if (masks)
        ev.throttle = (double)mask;
out:
    free(mhz);
    return ev;
}

int mcf_result_window(const struct mcf_result *r, double *t0, double *t1)
{
    *t0 = *t1 = NAN;
    for (int k = 0; k < r->inst->repetitions; k++) {
        if (!isfinite(*t0) && isfinite(r->rep_start[k]))
            *t0 = r->rep_start[k];
        if (isfinite(r->rep_end[k]))
            *t1 = r->rep_end[k];
    }
    return *t1 >= *t0 ? 0 : -1;
}

/* The GPU's state during the test, whatever its status: a slow or failing
 * GPU's clock, temperature and throttle reasons are what a technician needs. */
static int record_test_evidence(struct mcf_h5 *h, const struct mcf_series *v, const struct mcf_result *r,
                                struct mcf_err *e)
{
    struct mcf_evidence ev = { NAN, NAN, NAN };
    double t0, t1;
    char path[384];
    if (v && mcf_result_window(r, &t0, &t1) == 0)
        ev = mcf_window_evidence(v->r, v->n, t0, t1);
    snprintf(path, sizeof path, "/results/%s/test_sm_mhz", r->inst->name);
    MCF_TRY(mcf_h5_rows_double(h, path, &ev.sm_mhz, 0, "MHz", e));
    snprintf(path, sizeof path, "/results/%s/test_temp_c_max", r->inst->name);
    MCF_TRY(mcf_h5_rows_double(h, path, &ev.temp_c_max, 0, "degC", e));
    snprintf(path, sizeof path, "/results/%s/test_throttle_reasons", r->inst->name);
    MCF_TRY(mcf_h5_rows_double(h, path, &ev.throttle, 0, "NVML clock-event reason bit mask", e));
    return MCF_OK;
fail:
    return e->rc;
}

static int metric_index(const struct mcf_result *r, const char *name)
{
    for (int m = 0; m < r->nmetrics; m++)
        if (!strcmp(r->metrics[m].name, name))
            return m;
    return -1;
}

/* Per repetition: energy, average power, readings, the under-sampled flag,
 * and the rate per watt. */
static int record_test_power(struct mcf_h5 *h, const struct timed *v, const struct mcf_result *r,
                             double *tflops_med, double *watts_med, struct mcf_err *e)
{
    int reps = r->inst->repetitions, gm = metric_index(r, "gflops"), bm = metric_index(r, "bandwidth_gbs");
    double *energy = NULL, *power = NULL, *count = NULL, *under = NULL, *eff = NULL, *mean = NULL;
    double span_w = NAN, span_mean_w = NAN, span_e = NAN, span_eff = NAN;
    char g[256], path[384];
    const char *rate = gm >= 0 ? "gflops_per_w" : bm >= 0 ? "gbs_per_w" : NULL;
    MCF_ALLOC(e, energy, reps);
    MCF_ALLOC(e, power, reps);
    MCF_ALLOC(e, count, reps);
    MCF_ALLOC(e, under, reps);
    MCF_ALLOC(e, eff, reps);
    MCF_ALLOC(e, mean, reps);
    for (int k = 0; k < reps; k++) {
        struct mcf_window_figures w = { NAN, NAN, NAN, 0, 1 };
        if (v->s && r->status == MCF_STATUS_VERIFIED)
            w = window(v, r->rep_start[k], r->rep_end[k]);
        energy[k] = w.energy_j;
        power[k] = w.avg_power_w;
        mean[k] = w.mean_power_w;
        count[k] = w.readings;
        under[k] = w.under_sampled;
        double x = gm >= 0 ? r->values[(size_t)gm * reps + k] : bm >= 0 ? r->values[(size_t)bm * reps + k] : NAN;
        eff[k] = x / w.avg_power_w;
    }
    /* the whole test, its repetitions back to back: long enough where one
     * repetition is shorter than the source's update interval */
    if (v->s && r->status == MCF_STATUS_VERIFIED && reps > 0) {
        struct mcf_window_figures w = window(v, r->rep_start[0], r->rep_end[reps - 1]);
        span_w = w.avg_power_w;
        span_mean_w = w.mean_power_w;
        span_e = w.energy_j;
    }
    snprintf(g, sizeof g, "/results/%s", r->inst->name);
    snprintf(path, sizeof path, "%s/test_avg_power_w", g);
    MCF_TRY(mcf_h5_rows_double(h, path, &span_w, 0, "W", e));
    snprintf(path, sizeof path, "%s/test_mean_power_w", g);
    MCF_TRY(mcf_h5_rows_double(h, path, &span_mean_w, 0, "W", e));
    snprintf(path, sizeof path, "%s/test_energy_j", g);
    MCF_TRY(mcf_h5_rows_double(h, path, &span_e, 0, "J", e));
    if (rate) {
        int m = gm >= 0 ? gm : bm;
        span_eff = mcf_median(r->values + (size_t)m * reps, (size_t)reps) / span_w;
        snprintf(path, sizeof path, "%s/test_%s", g, rate);
        MCF_TRY(mcf_h5_rows_double(h, path, &span_eff, 0, gm >= 0 ? "GFLOP/s/W" : "GB/s/W", e));
        MCF_TRY(mcf_h5_attr_str(h, path, "better", mcf_better_name(mcf_metric_better(path + strlen(g) + 1)), e));
    }
    snprintf(path, sizeof path, "%s/mean_power_w", g);
    MCF_TRY(mcf_h5_rows_double(h, path, mean, reps, "W", e));
    snprintf(path, sizeof path, "%s/energy_j", g);
    MCF_TRY(mcf_h5_rows_double(h, path, energy, reps, "J", e));
    snprintf(path, sizeof path, "%s/avg_power_w", g);
    MCF_TRY(mcf_h5_rows_double(h, path, power, reps, "W", e));
    snprintf(path, sizeof path, "%s/power_samples", g);
    MCF_TRY(mcf_h5_rows_double(h, path, count, reps, "1", e));
    snprintf(path, sizeof path, "%s/power_under_sampled", g);
    MCF_TRY(mcf_h5_rows_double(h, path, under, reps, "1", e));
    if (rate) {
        snprintf(path, sizeof path, "%s/%s", g, rate);
        MCF_TRY(mcf_h5_rows_double(h, path, eff, reps, gm >= 0 ? "GFLOP/s/W" : "GB/s/W", e));
    }
    /* the report prints the whole test's figures: never a shorter window */
    MCF_TRY(mcf_h5_attr_str(h, g, "power_summary",
                            rate ? (gm >= 0 ? "test_avg_power_w,test_gflops_per_w" : "test_avg_power_w,test_gbs_per_w")
                                 : "test_avg_power_w", e));
    *tflops_med = gm >= 0 ? mcf_median(r->values + (size_t)gm * reps, (size_t)reps) * 1e-3 : NAN;
    *watts_med = span_w;     /* the model uses the whole test's power */
fail:
    free(energy); free(power); free(count); free(under); free(eff); free(mean);
    return e->rc;
}

int mcf_power_record(struct mcf_h5 *h, const struct mcf_power_run *p, const struct mcf_result *res, int n,
                     struct mcf_err *e)
{
    double *tf = NULL, *w = NULL;
    const struct mcf_series *v = mcf_sampler_primary(&p->sampler);
    struct timed primary = { NULL, 0, NAN };
    MCF_TRY(mcf_h5_group(h, "/power", e));
    MCF_TRY(mcf_h5_attr_long(h, "/power", "per_test_figures", p->all_on, e));
    for (int i = 0; mcf_power_sources[i]; i++)
        MCF_TRY(record_series(h, p, i, e));
    if (!p->all_on)
        return MCF_OK;
    if (v)
        timed_make(v, &primary);   /* out of memory: NaN figures */
    MCF_ALLOC(e, tf, n);
    MCF_ALLOC(e, w, n);
    for (int i = 0; i < n; i++) {
        MCF_TRY(record_test_power(h, &primary, &res[i], &tf[i], &w[i], e));
        MCF_TRY(record_test_evidence(h, v, &res[i], e));
    }
    /* The power model per data type and input kind over its matrix
     * throughput tests: P = a * TFLOP/s + b (shared/seeds/000_*, Eq. 3).
     * Each input kind (random, zero, exact) is fitted apart: power depends on
     * the data. Library GEMMs count with the matrix tests of their type. */
    for (int d = 0; d < MCF_DTYPE_COUNT; d++)
        for (int in = 0; in < MCF_INPUTS_COUNT; in++) {
            double x[256], y[256], a, b, r2;
            size_t m = 0;
            for (int i = 0; i < n && m < 256; i++) {
                const struct mcf_kernel *k = &res[i].inst->kernel;
                int matrix = (k->family == MCF_FAMILY_MATRIX && k->mode == MCF_MODE_THROUGHPUT) ||
                             k->family == MCF_FAMILY_GEMM;
                if (!matrix || (int)k->dtype != d || (int)k->inputs != in)
                    continue;
                x[m] = tf[i];
                y[m] = w[i];
                m++;
            }
            if (m < 2)
                continue;   /* the same on every rank: the deck decides */
            mcf_linfit(x, y, m, &a, &b, &r2);
            char g[96], path[160];
            double pts = (double)m;
            snprintf(g, sizeof g, "/power_model/%s%s%s", mcf_dtype_names[d], in == MCF_INPUTS_RANDOM ? "" : "-",
                     in == MCF_INPUTS_RANDOM ? "" : mcf_inputs_names[in]);
            MCF_TRY(mcf_h5_group(h, g, e));
            MCF_TRY(mcf_h5_attr_str(h, g, "inputs", mcf_inputs_names[in], e));
            snprintf(path, sizeof path, "%s/slope", g);
            MCF_TRY(mcf_h5_rows_double(h, path, &a, 0, "W per TFLOP/s", e));
            snprintf(path, sizeof path, "%s/intercept", g);
            MCF_TRY(mcf_h5_rows_double(h, path, &b, 0, "W", e));
            snprintf(path, sizeof path, "%s/r2", g);
            MCF_TRY(mcf_h5_rows_double(h, path, &r2, 0, "1", e));
            snprintf(path, sizeof path, "%s/points", g);
            MCF_TRY(mcf_h5_rows_double(h, path, &pts, 0, "1", e));
        }
fail:
    free(tf);
    free(w);
    timed_free(&primary);
    return e->rc;
}
