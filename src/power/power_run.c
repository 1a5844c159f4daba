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
    for (int i = 0; i < t->local_size; i++) list[i] = all + 32 * i;
    idx = forced && *forced ? atoi(forced) : mcf_craypm_accel_index(mine, list, t->local_size);
fail:
    free(all);
    free(list);
    return idx;
}

int mcf_power_begin(struct mcf_power_run *p, const struct mcf_topo *t,
                    const struct mcf_device_info *dev, double period_s, unsigned sources, int off,
                    double clock_offset, double idle_s, struct mcf_err *e)
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
    mine = mcf_sampler_primary(&p->sampler) != NULL; /* node-level sources do not count */
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

void mcf_power_free(struct mcf_power_run *p)
{
    mcf_sampler_close(&p->sampler);
}

/* A series on rank 0's time base, converted once and shared by every window.
 * Where the source stamps its values (pm_counters, rocm-smi's counter), a
 * sample's time is the stamp plus the source clock's offset, estimated as the
 * least lag between a stamp and its reading (as clock sync estimates offsets
 * by the least round trip): updates then sit where they happened, not where
 * the next poll found them. */
struct timed {
    struct mcf_psample *s;
    size_t n;
    double cadence; /* the source's: its energy counter's, else its power's */
};

static int timed_make(const struct mcf_series *v, struct timed *t)
{
    double lag = INFINITY;
    t->n = v->n;
    t->cadence = NAN;
    if (!(t->s = malloc((v->n ? v->n : 1) * sizeof *t->s))) return -1;
    for (size_t i = 0; i < v->n; i++)
        if (isfinite(v->r[i].src_t) && v->r[i].s.t - v->r[i].src_t < lag)
            lag = v->r[i].s.t - v->r[i].src_t;
    for (size_t i = 0; i < v->n; i++) {
        t->s[i] = v->r[i].s;
        if (isfinite(lag) && isfinite(v->r[i].src_t)) t->s[i].t = v->r[i].src_t + lag;
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

struct mcf_evidence mcf_window_evidence(const struct mcf_preading *r, size_t n, double t0,
                                        double t1)
{
    struct mcf_evidence ev = { NAN, NAN, NAN, NAN };
    double *mhz = malloc((n ? n : 1) * sizeof *mhz);
    size_t m = 0;
    uint64_t mask = 0;
    int masks = 0, procs = -1;
    if (!mhz || !(t1 >= t0)) goto out;
    for (size_t i = 0; i < n; i++) {
        double until =
            i + 1 < n ? r[i + 1].s.t : r[i].s.t; /* the last reading holds only at its time */
        if (r[i].gpu_procs >= 0) procs = r[i].gpu_procs;
        if (r[i].s.t > t1 || until < t0) continue;
        if (procs >= 0 && !(procs <= ev.gpu_procs_max)) ev.gpu_procs_max = procs;
        if (isfinite(r[i].sm_mhz)) mhz[m++] = r[i].sm_mhz;
        if (isfinite(r[i].temp_c) && !(r[i].temp_c <= ev.temp_c_max)) ev.temp_c_max = r[i].temp_c;
        if (r[i].throttle_read) {
            mask |= r[i].throttle;
            masks++;
        }
    }
    if (m) ev.sm_mhz = mcf_median(mhz, m);
    if (masks) ev.throttle = (double)mask;
out:
    free(mhz);
    return ev;
}

int mcf_result_window(const struct mcf_result *r, double *t0, double *t1)
{
    *t0 = *t1 = NAN;
    for (int k = 0; k < r->inst->repetitions; k++) {
        if (!isfinite(*t0) && isfinite(r->rep_start[k])) *t0 = r->rep_start[k];
        if (isfinite(r->rep_end[k])) *t1 = r->rep_end[k];
    }
    return *t1 >= *t0 ? 0 : -1;
}

static int metric_index(const struct mcf_result *r, const char *name)
{
    for (int m = 0; m < r->nmetrics; m++)
        if (!strcmp(r->metrics[m].name, name)) return m;
    return -1;
}

/* A source's figures over the run: its update cadences and idle power. */
static void source_figures(const struct mcf_power_run *p, const struct mcf_power_source *src,
                           struct mcf_source_figures *f)
{
    struct timed t = { NULL, 0, NAN };
    f->src = src;
    f->series = NULL;
    f->cadence = f->cadence_power = f->cadence_energy = f->idle_w = NAN;
    for (int i = 0; i < p->sampler.nseries; i++) /* keyed by the source, not by a place in a list */
        if (p->sampler.series[i].src == src) f->series = &p->sampler.series[i];
    if (!f->series || !f->series->on || timed_make(f->series, &t) != 0)
        goto out; /* out of memory: NaN figures, never a rank missing from a collective */
    f->cadence = t.cadence;
    f->cadence_power = mcf_update_cadence_of(t.s, t.n, 0);
    f->cadence_energy = mcf_update_cadence_of(t.s, t.n, 1);
    if (p->idle_t1 > p->idle_t0) f->idle_w = window(&t, p->idle_t0, p->idle_t1).avg_power_w;
out:
    timed_free(&t);
}

/* The in-kernel clock beside the source's, repetition by repetition: the
 * same windows, so a disagreement is the readings', not the timing's. */
static int clock_figures(const struct mcf_series *series, const struct mcf_result *r,
                         struct mcf_test_power *f, struct mcf_err *e)
{
    int reps = r->inst->repetitions, cm = metric_index(r, "clock_mhz"), m = 0;
    double *ok = NULL;
    MCF_ALLOC(e, ok, reps);
    for (int k = 0; k < reps; k++) {
        f->sm_mhz[k] = f->clock_ratio[k] = NAN;
        if (series && isfinite(r->rep_start[k]) && isfinite(r->rep_end[k]))
            f->sm_mhz[k] =
                mcf_window_evidence(series->r, series->n, r->rep_start[k], r->rep_end[k]).sm_mhz;
        double in = cm >= 0 ? r->values[(size_t)cm * reps + k] : NAN;
        if (in > 0 && f->sm_mhz[k] > 0) ok[m++] = f->clock_ratio[k] = in / f->sm_mhz[k];
    }
    if (m) f->clock_ratio_med = mcf_median(ok, (size_t)m);
    free(ok);
    return MCF_OK;
fail:
    return e->rc;
}

/* Per repetition: energy, average power, readings, the under-sampled flag
 * and the rate per watt; the whole test's figures; the GPU's state during the
 * test, whatever its status (a slow or failing GPU's clock, temperature and
 * throttle reasons are what a technician needs). */
static int test_figures(const struct timed *v, const struct mcf_series *series,
                        const struct mcf_result *r, struct mcf_test_power *f, struct mcf_err *e)
{
    int reps = r->inst->repetitions, gm = metric_index(r, "gflops"),
        bm = metric_index(r, "bandwidth_gbs");
    double t0, t1;
    f->rate = gm >= 0 ? MCF_RATE_FLOPS : bm >= 0 ? MCF_RATE_BYTES : MCF_RATE_NONE;
    f->span_w = f->span_mean_w = f->span_e = f->span_eff = f->tflops_med = NAN;
    f->ev = (struct mcf_evidence){ NAN, NAN, NAN, NAN };
    MCF_ALLOC(e, f->energy, reps);
    MCF_ALLOC(e, f->power, reps);
    MCF_ALLOC(e, f->mean, reps);
    MCF_ALLOC(e, f->count, reps);
    MCF_ALLOC(e, f->under, reps);
    MCF_ALLOC(e, f->eff, reps);
    MCF_ALLOC(e, f->sm_mhz, reps);
    MCF_ALLOC(e, f->clock_ratio, reps);
    f->clock_ratio_med = NAN;
    for (int k = 0; k < reps; k++) {
        struct mcf_window_figures w = { NAN, NAN, NAN, 0, 1 };
        if (v->s && r->status == MCF_STATUS_VERIFIED) w = window(v, r->rep_start[k], r->rep_end[k]);
        f->energy[k] = w.energy_j;
        f->power[k] = w.avg_power_w;
        f->mean[k] = w.mean_power_w;
        f->count[k] = w.readings;
        f->under[k] = w.under_sampled;
        double x = gm >= 0 ? r->values[(size_t)gm * reps + k]
            : bm >= 0      ? r->values[(size_t)bm * reps + k]
                           : NAN;
        f->eff[k] = x / w.avg_power_w;
    }
    /* the whole test, its repetitions back to back: long enough where one
     * repetition is shorter than the source's update interval */
    if (v->s && r->status == MCF_STATUS_VERIFIED && reps > 0) {
        struct mcf_window_figures w = window(v, r->rep_start[0], r->rep_end[reps - 1]);
        f->span_w = w.avg_power_w;
        f->span_mean_w = w.mean_power_w;
        f->span_e = w.energy_j;
    }
    if (f->rate != MCF_RATE_NONE)
        f->span_eff =
            mcf_median(r->values + (size_t)(gm >= 0 ? gm : bm) * reps, (size_t)reps) / f->span_w;
    if (gm >= 0) f->tflops_med = mcf_median(r->values + (size_t)gm * reps, (size_t)reps) * 1e-3;
    if (series && mcf_result_window(r, &t0, &t1) == 0)
        f->ev = mcf_window_evidence(series->r, series->n, t0, t1);
    MCF_TRY(clock_figures(series, r, f, e));
    return MCF_OK;
fail:
    return e->rc;
}

/* The power model per kernel, data type and input kind over its throughput
 * tests: P = a * TFLOP/s + b (shared/seeds/000_*, Eq. 3), the whole test's
 * power against its median rate. Each input kind (random, zero, exact) is
 * fitted apart: power depends on the data; mcfleet's matrix tiles and the
 * library's GEMMs apart: they move their data differently (an H100 draws
 * 700 W for 820 TFLOP/s of wgmma and for 650 of cuBLAS). The same tests on
 * every rank: the deck decides. */
int mcf_power_model_member(const struct mcf_power_model *m, const struct mcf_kernel *k)
{
    /* a 2:4 test's dense-equivalent rate (matrix or gemm) is not the work its
     * power pays for: dense tests only */
    return k->family == m->family &&
        (k->family != MCF_FAMILY_MATRIX || k->mode == MCF_MODE_THROUGHPUT) &&
        k->sparsity == MCF_SPARSITY_DENSE && k->dtype == m->dtype && k->inputs == m->inputs;
}

static void models(const struct mcf_result *res, int n, struct mcf_power_figures *f)
{
    static const enum mcf_family fams[] = { MCF_FAMILY_MATRIX, MCF_FAMILY_GEMM };
    for (size_t fi = 0; fi < sizeof fams / sizeof fams[0]; fi++)
        for (int d = 0; d < MCF_DTYPE_COUNT; d++)
            for (int in = 0; in < MCF_INPUTS_COUNT; in++) {
                double x[MCF_MODEL_POINTS], y[MCF_MODEL_POINTS];
                size_t m = 0;
                struct mcf_power_model *pm = &f->models[f->nmodels];
                pm->family = fams[fi];
                pm->dtype = (enum mcf_dtype)d;
                pm->inputs = (enum mcf_inputs)in;
                for (int i = 0; i < n && m < MCF_MODEL_POINTS; i++) {
                    if (!mcf_power_model_member(pm, &res[i].inst->kernel)) continue;
                    x[m] = f->tests[i].tflops_med;
                    y[m] = f->tests[i].span_w;
                    m++;
                }
                if (m < 2) continue;
                f->nmodels++;
                pm->points = (int)m;
                mcf_linfit(x, y, m, &pm->slope, &pm->intercept, &pm->r2);
            }
}

/* Every per-rank source against the primary over each test's whole window
 * (the same window as span_w): the figures rest on one source, and a second
 * reading of the same power is what shows it wrong (rocm-smi against
 * amd-smi reading the same package, NVML or rocm-smi against a Cray node's
 * accelerator counter). */
static int source_check(const struct mcf_power_run *p, const struct mcf_result *res, int n,
                        struct mcf_power_figures *f, struct mcf_err *e)
{
    struct timed *tv = NULL;
    MCF_ALLOC(e, tv, f->nsources);
    for (int j = 0; j < f->nsources; j++) {
        const struct mcf_series *v = f->sources[j].series;
        tv[j] = (struct timed){ NULL, 0, NAN };
        if (v && v->on && !v->src->node_level && j != f->primary)
            timed_make(v, &tv[j]); /* out of memory: NaN for that source */
    }
    for (int i = 0; i < n; i++) {
        struct mcf_test_power *t = &f->tests[i];
        const struct mcf_result *r = &res[i];
        int reps = r->inst->repetitions;
        double worst = -1;
        MCF_ALLOC(e, t->source_w, f->nsources);
        t->check_source = -1;
        t->power_ratio = NAN;
        for (int j = 0; j < f->nsources; j++) {
            t->source_w[j] = j == f->primary ? t->span_w : NAN;
            if (!tv[j].s || r->status != MCF_STATUS_VERIFIED || reps <= 0) continue;
            t->source_w[j] = window(&tv[j], r->rep_start[0], r->rep_end[reps - 1]).avg_power_w;
            double q = t->source_w[j] / t->span_w;
            if (isfinite(q) && q > 0 && fabs(log(q)) > worst) {
                worst = fabs(log(q));
                t->check_source = j;
                t->power_ratio = q;
            }
        }
    }
    for (int j = 0; j < f->nsources; j++) timed_free(&tv[j]);
    free(tv);
    return MCF_OK;
fail:
    for (int j = 0; tv && j < f->nsources; j++) timed_free(&tv[j]);
    free(tv);
    return e->rc;
}

int mcf_power_compute(const struct mcf_power_run *p, const struct mcf_result *res, int n,
                      struct mcf_power_figures *f, struct mcf_err *e)
{
    const struct mcf_series *v = mcf_sampler_primary(&p->sampler);
    struct timed primary = { NULL, 0, NAN };
    memset(f, 0, sizeof *f);
    f->per_test = p->all_on;
    f->keep_series = p->keep_series;
    f->period_s = p->sampler.period_s;
    f->primary = -1;
    while (mcf_power_sources[f->nsources]) f->nsources++;
    MCF_ALLOC(e, f->sources, f->nsources);
    for (int i = 0; i < f->nsources; i++) {
        source_figures(p, mcf_power_sources[i], &f->sources[i]);
        if (v && f->sources[i].series == v) f->primary = i;
    }
    if (!p->all_on) return MCF_OK;
    if (v) timed_make(v, &primary); /* out of memory: NaN figures */
    MCF_ALLOC(e, f->tests, n);
    f->ntests = n;
    for (int i = 0; i < n; i++) MCF_TRY(test_figures(&primary, v, &res[i], &f->tests[i], e));
    MCF_TRY(source_check(p, res, n, f, e));
    models(res, n, f);
    timed_free(&primary);
    return MCF_OK;
fail:
    timed_free(&primary);
    return e->rc;
}

void mcf_power_figures_free(struct mcf_power_figures *f)
{
    for (int i = 0; f->tests && i < f->ntests; i++) {
        struct mcf_test_power *t = &f->tests[i];
        free(t->energy);
        free(t->power);
        free(t->mean);
        free(t->count);
        free(t->under);
        free(t->eff);
        free(t->sm_mhz);
        free(t->clock_ratio);
        free(t->source_w);
    }
    free(f->tests);
    free(f->sources);
    memset(f, 0, sizeof *f);
}
