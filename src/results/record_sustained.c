#include "record_sustained.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sustained.h"
#include "verdict.h"

/* The test's sustained figures, written as they are listed. */
struct figures {
    struct mcf_h5 *h;
    const char *g;
    char list[1024];
};

/* listed: in sustained_summary, which the report reads (a bit mask has no median) */
/* better: +1 higher is better, -1 lower, 0 shown, not judged */
static int figure(struct figures *f, const char *name, double v, const char *unit, int better,
                  int listed, struct mcf_err *e)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", f->g, name);
    MCF_TRY(mcf_h5_rows_double(f->h, path, &v, 1, unit, e));
    MCF_TRY(mcf_h5_attr_str(f->h, path, "better", mcf_better_name(better), e));
    if (!listed) return MCF_OK;
    if (f->list[0]) strncat(f->list, ",", sizeof f->list - strlen(f->list) - 1);
    strncat(f->list, name, sizeof f->list - strlen(f->list) - 1);
    return MCF_OK;
fail:
    return e->rc;
}

static int record_trace(struct mcf_h5 *h, const char *g, const struct mcf_result *r,
                        struct mcf_err *e)
{
    const struct mcf_sustained *s = r->sustained;
    const char *rate = s->rate_metric >= 0 ? r->metrics[s->rate_metric].name : "";
    char tg[320], path[400];
    snprintf(tg, sizeof tg, "%s/trace", g);
    MCF_TRY(mcf_h5_group(h, tg, e));
    MCF_TRY(
        mcf_h5_attr_double(h, tg, "t0_s", s->t0, e)); /* the common start: the same on every rank */
    MCF_TRY(mcf_h5_attr_double(h, tg, "window_s", MCF_SUSTAINED_WINDOW_S, e));
    MCF_TRY(mcf_h5_attr_str(h, tg, "rate_metric", rate, e));
    for (int f = 0; f < MCF_TRACE_COUNT; f++) {
        const char *unit = mcf_trace_units[f];
        if ((f == MCF_TRACE_RATE || f == MCF_TRACE_WORK) && s->rate_metric < 0)
            continue; /* a test without a rate (latency, streams) */
        if (f == MCF_TRACE_CLOCK && s->clock_metric < 0)
            continue; /* a backend without an in-kernel clock */
        if (f == MCF_TRACE_RATE)
            unit = r->metrics[s->rate_metric].unit;
        else if (f == MCF_TRACE_WORK)
            unit = strcmp(rate, "gflops") ? "GB" : "GFLOP";
        snprintf(path, sizeof path, "%s/%s", tg, mcf_trace_names[f]);
        MCF_TRY(mcf_h5_rows_double(h, path, s->trace[f], s->nwin, unit, e));
    }
    return MCF_OK;
fail:
    return e->rc;
}

int mcf_record_sustained(struct mcf_h5 *h, const char *g, const struct mcf_result *r, int any_ran,
                         struct mcf_err *e)
{
    const struct mcf_sustained *s = r->sustained;
    struct figures f = { h, g, "" };
    char path[400], name[64];
    if (r->inst->duration <= 0 || !s) return MCF_OK;
    MCF_TRY(record_trace(h, g, r, e));
    snprintf(path, sizeof path, "%s/repetitions_run", g);
    MCF_TRY(mcf_h5_rows_long(h, path, s->reps, e));
    if (any_ran) {
        const struct mcf_steady *st = &s->steady;
        if (s->rate_metric >= 0) {
            const struct mcf_metric *m = &r->metrics[s->rate_metric];
            snprintf(name, sizeof name, "sustained_%s", m->name);
            MCF_TRY(figure(&f, name, st->rate, m->unit, m->better, 1, e));
        }
        if (s->clock_metric >= 0)
            MCF_TRY(figure(&f, "sustained_clock_mhz", st->clock_mhz, "MHz", 1, 1, e));
        if (s->power_on) { /* every rank had a source: the power figures */
            MCF_TRY(figure(&f, "sustained_sm_mhz", st->sm_mhz, "MHz", 1, 1, e));
            MCF_TRY(figure(&f, "sustained_power_w", st->power_w, "W", 0, 1, e));
            if (s->rate_metric >= 0) {
                int flops = !strcmp(r->metrics[s->rate_metric].name, "gflops");
                MCF_TRY(figure(&f, flops ? "sustained_j_per_gflop" : "sustained_j_per_gb",
                               st->j_per_unit, flops ? "J/GFLOP" : "J/GB", -1, 1, e));
            }
            MCF_TRY(figure(&f, "time_to_limit_s", st->time_to_limit_s, "s", 0, 1, e));
            MCF_TRY(figure(&f, "throttled_fraction", st->throttled_fraction, "1", 0, 1, e));
            MCF_TRY(figure(&f, "throttled_reasons", st->throttle_reasons,
                           "NVML clock-event reason bit mask", 0, 0, e));
        }
        MCF_TRY(figure(&f, "steady_start_s", st->start_s, "s", 0, 1, e));
        /* 1: the figures are over the steady windows; 0: never steady, over the last half */
        MCF_TRY(figure(&f, "steady_state", st->from >= 0 ? (double)st->found : NAN, "1", 0, 1, e));
    }
    MCF_TRY(mcf_h5_attr_str(h, g, "sustained_summary", f.list, e));
    return MCF_OK;
fail:
    return e->rc;
}

double mcf_sustained_bytes(const struct mcf_instance *in, int nranks)
{
    if (in->duration <= 0) return 0;
    /* the trace's columns per window, a dozen figures and the group */
    return 2048 + MCF_TRACE_COUNT * (1024 + 8.0 * nranks * in->repetitions) +
        12 * (1024 + 8.0 * nranks);
}
