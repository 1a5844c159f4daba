#include "record_power.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict.h"

/* /power/<source>: status, counts, cadences, idle power, and (unless the deck
 * keeps no series) every reading. */
static int record_source(struct mcf_h5 *h, const struct mcf_power_figures *pf,
                         const struct mcf_source_figures *f, struct mcf_err *e)
{
    static const struct {
        const char *name, *unit;
        size_t off;
    } fields[] = {
        { "power_w", "W", offsetof(struct mcf_preading, s.power_w) },
        { "energy_j", "J", offsetof(struct mcf_preading, s.energy_j) },
        { "power_avg_w", "W", offsetof(struct mcf_preading, power_avg_w) },
        { "temp_c", "degC", offsetof(struct mcf_preading, temp_c) },
        { "sm_mhz", "MHz", offsetof(struct mcf_preading, sm_mhz) },
        { "mem_mhz", "MHz", offsetof(struct mcf_preading, mem_mhz) },
        { "cpu_power_w", "W", offsetof(struct mcf_preading, cpu_w) },
        { "memory_power_w", "W", offsetof(struct mcf_preading, memory_w) },
    };
    const struct mcf_series *v = f->series;
    int on = v && v->on;
    char g[128], path[192];
    double *col = NULL;
    size_t n = on ? v->n : 0;
    snprintf(g, sizeof g, "/power/%s", f->src->name);
    MCF_TRY(mcf_h5_group(h, g, e));
    MCF_TRY(mcf_h5_attr_str(h, g, "scope", f->src->scope, e));
    MCF_TRY(mcf_h5_attr_double(h, g, "period_s", pf->period_s, e));
    snprintf(path, sizeof path, "%s/status", g);
    MCF_TRY(mcf_h5_rows_str(
        h, path, on ? "on" : (v && v->status[0] ? v->status : "off: disabled (--power off)"), e));
    snprintf(path, sizeof path, "%s/count", g);
    MCF_TRY(mcf_h5_rows_long(h, path, (long long)n, e));
    snprintf(path, sizeof path, "%s/cadence_s", g);
    MCF_TRY(mcf_h5_rows_double(h, path, &f->cadence, 0, "s", e));
    snprintf(path, sizeof path, "%s/cadence_power_s", g);
    MCF_TRY(mcf_h5_rows_double(h, path, &f->cadence_power, 0, "s", e));
    snprintf(path, sizeof path, "%s/cadence_energy_s", g);
    MCF_TRY(mcf_h5_rows_double(h, path, &f->cadence_energy, 0, "s", e));
    snprintf(path, sizeof path, "%s/idle_power_w", g);
    MCF_TRY(mcf_h5_rows_double(h, path, &f->idle_w, 0, "W", e));
    MCF_TRY(mcf_h5_attr_long(h, g, "series_kept", pf->keep_series, e));
    if (!pf->keep_series)
        n = 0; /* `power: series: false`: the datasets exist, empty; the figures above and per test
                  remain */
    MCF_ALLOC(e, col, n);
    for (size_t k = 0; k < n; k++) col[k] = v->r[k].s.t;
    snprintf(path, sizeof path, "%s/t_s", g);
    MCF_TRY(mcf_h5_ragged_double(h, path, col, n, "s since rank 0's clock origin", e));
    for (size_t k = 0; k < n; k++) col[k] = v->r[k].src_t;
    snprintf(path, sizeof path, "%s/source_t_s", g);
    MCF_TRY(mcf_h5_ragged_double(h, path, col, n, "s on the source's own clock (NaN: none)", e));
    /* the clock-event (throttle) reason bits, exact as doubles below 2^53 */
    for (size_t k = 0; k < n; k++) col[k] = (double)v->r[k].throttle;
    snprintf(path, sizeof path, "%s/throttle_reasons", g);
    MCF_TRY(mcf_h5_ragged_double(h, path, col, n, "NVML clock-event reason bit mask", e));
    for (size_t fi = 0; fi < sizeof fields / sizeof fields[0]; fi++) {
        for (size_t k = 0; k < n; k++)
            col[k] = *(const double *)((const char *)&v->r[k] + fields[fi].off);
        snprintf(path, sizeof path, "%s/%s", g, fields[fi].name);
        MCF_TRY(mcf_h5_ragged_double(h, path, col, n, fields[fi].unit, e));
    }
    free(col);
    return MCF_OK;
fail:
    free(col);
    return e->rc;
}

static int row(struct mcf_h5 *h, const char *g, const char *name, const double *v, int n,
               const char *unit, struct mcf_err *e)
{
    char path[384];
    snprintf(path, sizeof path, "%s/%s", g, name);
    return mcf_h5_rows_double(h, path, v, n, unit, e);
}

/* The registered sources' names, comma-separated: the columns of
 * source_avg_power_w. */
static void source_names(const struct mcf_power_figures *pf, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (int j = 0; j < pf->nsources && len < cap; j++)
        len +=
            (size_t)snprintf(out + len, cap - len, "%s%s", j ? "," : "", pf->sources[j].src->name);
}

static int record_test(struct mcf_h5 *h, const struct mcf_power_figures *pf, const char *names,
                       const struct mcf_test_power *f, const struct mcf_result *r,
                       struct mcf_err *e)
{
    int reps = r->inst->repetitions, flops = f->rate == MCF_RATE_FLOPS;
    const char *rate = flops ? "gflops_per_w" : "gbs_per_w", *unit = flops ? "GFLOP/s/W" : "GB/s/W";
    char g[256], name[64], path[384];
    snprintf(g, sizeof g, "/results/%s", r->inst->name);
    MCF_TRY(row(h, g, "test_avg_power_w", &f->span_w, 0, "W", e));
    MCF_TRY(row(h, g, "test_mean_power_w", &f->span_mean_w, 0, "W", e));
    MCF_TRY(row(h, g, "test_energy_j", &f->span_e, 0, "J", e));
    if (f->rate != MCF_RATE_NONE) {
        snprintf(name, sizeof name, "test_%s", rate);
        MCF_TRY(row(h, g, name, &f->span_eff, 0, unit, e));
        snprintf(path, sizeof path, "%s/%s", g, name);
        MCF_TRY(mcf_h5_attr_str(h, path, "better", mcf_better_name(1), e)); /* work per joule */
    }
    MCF_TRY(row(h, g, "mean_power_w", f->mean, reps, "W", e));
    MCF_TRY(row(h, g, "energy_j", f->energy, reps, "J", e));
    MCF_TRY(row(h, g, "avg_power_w", f->power, reps, "W", e));
    MCF_TRY(row(h, g, "power_samples", f->count, reps, "1", e));
    MCF_TRY(row(h, g, "power_under_sampled", f->under, reps, "1", e));
    if (f->rate != MCF_RATE_NONE) MCF_TRY(row(h, g, rate, f->eff, reps, unit, e));
    /* the report prints the whole test's figures: never a shorter window */
    MCF_TRY(mcf_h5_attr_str(h, g, "power_summary",
                            f->rate == MCF_RATE_NONE ? "test_avg_power_w"
                                : flops              ? "test_avg_power_w,test_gflops_per_w"
                                                     : "test_avg_power_w,test_gbs_per_w",
                            e));
    MCF_TRY(row(h, g, "test_sm_mhz", &f->ev.sm_mhz, 0, "MHz", e));
    /* the two clocks, per repetition; the report flags a test whose in-kernel
     * clock and the source's differ by more than MCF_CLOCK_AGREE */
    MCF_TRY(row(h, g, "source_sm_mhz", f->sm_mhz, reps, "MHz", e));
    MCF_TRY(row(h, g, "clock_ratio", f->clock_ratio, reps, "1", e));
    MCF_TRY(row(h, g, "test_clock_ratio", &f->clock_ratio_med, 0, "1", e));
    MCF_TRY(row(h, g, "test_temp_c_max", &f->ev.temp_c_max, 0, "degC", e));
    MCF_TRY(row(h, g, "test_throttle_reasons", &f->ev.throttle, 0,
                "NVML clock-event reason bit mask", e));
    MCF_TRY(row(h, g, "test_gpu_procs_max", &f->ev.gpu_procs_max, 0, "processes", e));
    /* two readings of one power: every source's, and the one that departs
     * most from the primary's, over it (the report's power-check) */
    MCF_TRY(row(h, g, "source_avg_power_w", f->source_w, pf->nsources, "W", e));
    snprintf(path, sizeof path, "%s/source_avg_power_w", g);
    MCF_TRY(mcf_h5_attr_str(h, path, "sources", names, e));
    MCF_TRY(row(h, g, "test_power_ratio", &f->power_ratio, 0, "1", e));
    snprintf(path, sizeof path, "%s/test_power_ratio_source", g);
    MCF_TRY(mcf_h5_rows_str(h, path,
                            f->check_source >= 0 ? pf->sources[f->check_source].src->name : "", e));
    return MCF_OK;
fail:
    return e->rc;
}

/* The model's tests by name, comma-separated: what a plot draws as its points. */
static int record_model_tests(struct mcf_h5 *h, const char *g, const struct mcf_power_model *m,
                              const struct mcf_result *res, int n, struct mcf_err *e)
{
    size_t cap = 1, len = 0;
    char *names = NULL;
    int taken = 0;
    for (int i = 0; i < n; i++) cap += strlen(res[i].inst->name) + 1;
    MCF_ALLOC(e, names, cap);
    for (int i = 0; i < n && taken < m->points; i++)
        if (mcf_power_model_member(m, &res[i].inst->kernel))
            len += (size_t)snprintf(names + len, cap - len, "%s%s", taken++ ? "," : "",
                                    res[i].inst->name);
    MCF_TRY(mcf_h5_attr_str(h, g, "tests", names, e));
    free(names);
    return MCF_OK;
fail:
    free(names);
    return e->rc;
}

static int record_model(struct mcf_h5 *h, const struct mcf_power_model *m,
                        const struct mcf_result *res, int n, struct mcf_err *e)
{
    char g[96];
    double pts = m->points;
    int random = m->inputs == MCF_INPUTS_RANDOM;
    snprintf(g, sizeof g, "/power_model/%s%s%s%s", m->family == MCF_FAMILY_GEMM ? "gemm-" : "",
             mcf_dtype_names[m->dtype], random ? "" : "-",
             random ? "" : mcf_inputs_names[m->inputs]);
    MCF_TRY(mcf_h5_group(h, g, e));
    MCF_TRY(mcf_h5_attr_str(h, g, "inputs", mcf_inputs_names[m->inputs], e));
    MCF_TRY(mcf_h5_attr_str(h, g, "kernel", mcf_family_names[m->family], e));
    MCF_TRY(record_model_tests(h, g, m, res, n, e));
    MCF_TRY(row(h, g, "slope", &m->slope, 0, "W per TFLOP/s", e));
    MCF_TRY(row(h, g, "intercept", &m->intercept, 0, "W", e));
    MCF_TRY(row(h, g, "r2", &m->r2, 0, "1", e));
    MCF_TRY(row(h, g, "points", &pts, 0, "1", e));
    return MCF_OK;
fail:
    return e->rc;
}

int mcf_record_power(struct mcf_h5 *h, const struct mcf_power_figures *f,
                     const struct mcf_result *res, int n, struct mcf_err *e)
{
    char names[256];
    MCF_TRY(mcf_h5_group(h, "/power", e));
    MCF_TRY(mcf_h5_attr_long(h, "/power", "per_test_figures", f->per_test, e));
    for (int i = 0; i < f->nsources; i++) MCF_TRY(record_source(h, f, &f->sources[i], e));
    MCF_TRY(mcf_h5_rows_str(h, "/power/primary_source",
                            f->primary >= 0 ? f->sources[f->primary].src->name : "", e));
    if (!f->per_test) return MCF_OK;
    source_names(f, names, sizeof names); /* every test's source_avg_power_w columns */
    for (int i = 0; i < n && i < f->ntests; i++)
        MCF_TRY(record_test(h, f, names, &f->tests[i], &res[i], e));
    for (int m = 0; m < f->nmodels; m++) MCF_TRY(record_model(h, &f->models[m], res, n, e));
    return MCF_OK;
fail:
    return e->rc;
}
