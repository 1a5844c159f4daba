#include "sustained.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "power_run.h"
#include "stats.h"

#define W MCF_SUSTAINED_WINDOW_S

const char *const mcf_trace_names[MCF_TRACE_COUNT] = {
    [MCF_TRACE_RATE] = "rate",
    [MCF_TRACE_WORK] = "work",
    [MCF_TRACE_CLOCK] = "clock_mhz",
    [MCF_TRACE_SM_MHZ] = "sm_mhz",
    [MCF_TRACE_POWER] = "power_w",
    [MCF_TRACE_TEMP] = "temp_c_max",
    [MCF_TRACE_THROTTLE] = "throttle_reasons",
    [MCF_TRACE_SPAN] = "span_s",
};
const char *const mcf_trace_units[MCF_TRACE_COUNT] = {
    [MCF_TRACE_RATE] = "",
    [MCF_TRACE_WORK] = "",
    [MCF_TRACE_CLOCK] = "MHz",
    [MCF_TRACE_SM_MHZ] = "MHz",
    [MCF_TRACE_POWER] = "W",
    [MCF_TRACE_TEMP] = "degC",
    [MCF_TRACE_THROTTLE] = "NVML clock-event reason bit mask",
    [MCF_TRACE_SPAN] = "s",
};

void mcf_sustained_instances(struct mcf_instance *in, int n)
{
    for (int i = 0; i < n; i++)
        if (in[i].duration > 0) {
            in[i].repetitions = (int)ceil(in[i].duration / W);
            in[i].warmup = 0;
        }
}

int mcf_sustained_time_limit(const struct mcf_instance *in)
{
    if (in->time_limit <= 0) return 0;
    return in->duration > 0 ? in->time_limit + in->duration : in->time_limit;
}

static int index_of(const struct mcf_metric *m, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(m[i].name, name)) return i;
    return -1;
}

/* Metrics that are work per second: over a window, total work over total time. */
static int is_rate(const char *name)
{
    return !strcmp(name, "gflops") || !strcmp(name, "bandwidth_gbs");
}

int mcf_sustained_rate_metric(const struct mcf_metric *m, int n)
{
    int g = index_of(m, n, "gflops");
    return g >= 0 ? g : index_of(m, n, "bandwidth_gbs");
}

/* ---- accumulation */

int mcf_acc_init(struct mcf_sustained_acc *a, int nwin, const unsigned char *rate, int nmetrics)
{
    size_t cells = (size_t)(nwin > 0 ? nwin : 1) * (size_t)(nmetrics > 0 ? nmetrics : 1);
    memset(a, 0, sizeof *a);
    a->nwin = nwin;
    a->nmetrics = nmetrics;
    a->carry_to = -1;
    a->first = a->last = NAN;
    a->rate = malloc((size_t)(nmetrics > 0 ? nmetrics : 1));
    a->num = calloc(cells, sizeof *a->num);
    a->den = calloc(cells, sizeof *a->den);
    a->med = malloc(cells * sizeof *a->med);
    a->buf = calloc((size_t)(nmetrics > 0 ? nmetrics : 1), sizeof *a->buf);
    a->carry = calloc((size_t)(nmetrics > 0 ? nmetrics : 1), sizeof *a->carry);
    if (!a->rate || !a->num || !a->den || !a->med || !a->buf || !a->carry) {
        mcf_acc_free(a);
        return -1;
    }
    for (size_t i = 0; i < cells; i++) a->med[i] = NAN;
    for (int m = 0; m < nmetrics; m++) a->rate[m] = rate[m];
    return 0;
}

void mcf_acc_free(struct mcf_sustained_acc *a)
{
    for (int m = 0; a->buf && m < a->nmetrics; m++) free(a->buf[m]);
    free(a->buf);
    free(a->rate);
    free(a->num);
    free(a->den);
    free(a->med);
    free(a->carry);
    memset(a, 0, sizeof *a);
    a->carry_to = -1;
}

/* Appends one repetition's values to the open window's lists. */
static int push(struct mcf_sustained_acc *a, const double *v)
{
    if (a->nbuf == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        for (int m = 0; m < a->nmetrics; m++) {
            if (a->rate[m]) continue;
            double *g = realloc(a->buf[m], cap * sizeof *g);
            if (!g) return -1;
            a->buf[m] = g;
        }
        a->cap = cap;
    }
    for (int m = 0; m < a->nmetrics; m++)
        if (!a->rate[m]) a->buf[m][a->nbuf] = v[m];
    a->nbuf++;
    return 0;
}

/* The open window's medians, then the next window opens with the repetition
 * that runs on into it. */
static int next_window(struct mcf_sustained_acc *a)
{
    for (int m = 0; m < a->nmetrics; m++)
        if (!a->rate[m] && a->nbuf)
            a->med[(size_t)m * a->nwin + a->open] = mcf_median(a->buf[m], a->nbuf);
    a->nbuf = 0;
    a->open++;
    return a->carry_to >= a->open ? push(a, a->carry) : 0;
}

int mcf_acc_add(struct mcf_sustained_acc *a, double from, double to, double seconds,
                const double *v)
{
    if (!(to >= from)) to = from;
    if (!isfinite(a->first)) a->first = from;
    a->last = to;
    int wa = (int)floor(from / W), wb = to > from ? (int)ceil(to / W) - 1 : wa;
    if (wa < 0) wa = 0;
    if (wb >= a->nwin) wb = a->nwin - 1;
    if (wa > wb) return 0; /* outside the windows */
    for (int w = wa; w <= wb; w++) {
        double lo = from > w * W ? from : w * W, hi = to < (w + 1) * W ? to : (w + 1) * W;
        double f = to > from ? (hi - lo) / (to - from) : 1.0; /* its share of time in this window */
        for (int m = 0; m < a->nmetrics; m++)
            if (a->rate[m]) {
                a->num[(size_t)m * a->nwin + w] += f * seconds * v[m];
                a->den[(size_t)m * a->nwin + w] += f * seconds;
            }
    }
    while (a->open < wa)
        if (next_window(a) != 0) return -1;
    if (a->open <= wb && push(a, v) != 0) /* (open > wa only for a repetition out of order) */
        return -1;
    if (wb > wa) {
        memcpy(a->carry, v, sizeof *v * (size_t)a->nmetrics);
        a->carry_to = wb;
    } else {
        a->carry_to = -1;
    }
    return 0;
}

int mcf_acc_close(struct mcf_sustained_acc *a, double *values, double *span)
{
    int with_work = 0;
    while (a->open < a->nwin && (a->nbuf || a->carry_to >= a->open))
        if (next_window(a) != 0) return -1;
    for (int w = 0; w < a->nwin; w++) {
        double lo = a->first > w * W ? a->first : w * W,
               hi = a->last < (w + 1) * W ? a->last : (w + 1) * W;
        int work = isfinite(a->first) && hi > lo;
        span[2 * w] = work ? lo : NAN;
        span[2 * w + 1] = work ? hi : NAN;
        with_work += work;
        for (int m = 0; m < a->nmetrics; m++) {
            size_t c = (size_t)m * a->nwin + w;
            values[c] = !work ? NAN
                : a->rate[m]  ? (a->den[c] > 0 ? a->num[c] / a->den[c] : NAN)
                              : a->med[c];
        }
    }
    return with_work;
}

/* ---- steady state */

static struct mcf_steady no_steady(void)
{
    struct mcf_steady st = { 0, -1, -1, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN };
    return st;
}

static int in_band(double x, double ref, double band)
{
    return !isfinite(ref) || !isfinite(x) || fabs(x - ref) <= band * fabs(ref);
}

/* Why this rule: at its limit a GPU's rate and power settle to within a
 * percent or so of a level held to the end, while the ramp before (idle to the
 * cap in a fraction of a second, then clocks falling as the chip heats for
 * tens of seconds) moves by more; the median of the last half is that level,
 * robust to a stray window. A window is steady when it and every later one
 * lie within the band; a steady part shorter than the last quarter (2
 * windows) means the GPU was still moving when the test ended. */
int mcf_steady_from(const double *rate, const double *power, int n, double band)
{
    if (n < 2) return -1;
    int half = n / 2, need = (n + 3) / 4 > 2 ? (n + 3) / 4 : 2, from = n;
    double ref_r = mcf_median(rate + half, (size_t)(n - half)),
           ref_p = mcf_median(power + half, (size_t)(n - half));
    if (!isfinite(ref_r) && !isfinite(ref_p)) return -1;
    while (from > 0 && in_band(rate[from - 1], ref_r, band) &&
           in_band(power[from - 1], ref_p, band))
        from--;
    return n - from >= need ? from : -1;
}

struct mcf_steady mcf_steady_figures(double *const t[MCF_TRACE_COUNT], int n)
{
    struct mcf_steady st = no_steady();
    double work = 0, busy = 0, joules = 0, jwork = 0, secs = 0;
    uint64_t reasons = 0;
    int read = 0, held = 0;
    if (n <= 0) return st;
    for (int w = 0; w < n; w++) {
        double m = t[MCF_TRACE_THROTTLE][w];
        if (!isfinite(m) || m < 0) continue;
        uint64_t limit = (uint64_t)m & MCF_LIMIT_REASONS;
        read++;
        held += limit != 0;
        reasons |= limit;
    }
    if (read) {
        st.throttled_fraction = (double)held / read;
        st.throttle_reasons = (double)reasons;
    }
    if (!mcf_count_finite(t[MCF_TRACE_RATE], (size_t)n) &&
        !mcf_count_finite(t[MCF_TRACE_POWER], (size_t)n))
        return st; /* neither a rate nor power (a latency test without a source): nothing to tell
                      steadiness by */
    st.from = mcf_steady_from(t[MCF_TRACE_RATE], t[MCF_TRACE_POWER], n, MCF_STEADY_BAND);
    st.found = st.from >= 0;
    if (!st.found) st.from = n / 2; /* never steady: the last half, said as such */
    st.to = n;
    st.start_s = st.found ? st.from * W : NAN;
    for (int w = st.from; w < n; w++) {
        double r = t[MCF_TRACE_RATE][w], x = t[MCF_TRACE_WORK][w], p = t[MCF_TRACE_POWER][w],
               s = t[MCF_TRACE_SPAN][w];
        if (isfinite(r) && r > 0 && isfinite(x)) {
            work += x;
            busy += x / r; /* the device time the window's work took */
        }
        if (isfinite(p) && isfinite(s)) {
            joules += p * s;
            secs += s;
            if (isfinite(x)) jwork += x;
        }
    }
    if (busy > 0) st.rate = work / busy;
    st.clock_mhz = mcf_median(t[MCF_TRACE_CLOCK] + st.from, (size_t)(n - st.from));
    st.sm_mhz = mcf_median(t[MCF_TRACE_SM_MHZ] + st.from, (size_t)(n - st.from));
    if (secs > 0) st.power_w = joules / secs;
    if (jwork > 0) st.j_per_unit = joules / jwork;
    return st;
}

double mcf_time_to_level(const struct mcf_psample *s, size_t n, double t0, double t1, double level)
{
    for (size_t i = 0; i < n; i++)
        if (s[i].t >= t0 && s[i].t <= t1 && isfinite(s[i].power_w) && s[i].power_w >= level)
            return s[i].t - t0;
    return NAN;
}

/* ---- one test */

int mcf_sustained_init(struct mcf_sustained *s, int nwin, const struct mcf_metric *m, int nmetrics)
{
    unsigned char rate[MCF_MAX_METRICS];
    memset(s, 0, sizeof *s);
    s->nwin = nwin;
    s->t0 = NAN;
    s->rate_metric = mcf_sustained_rate_metric(m, nmetrics);
    s->clock_metric = index_of(m, nmetrics, "clock_mhz");
    for (int i = 0; i < nmetrics && i < MCF_MAX_METRICS; i++)
        rate[i] = (unsigned char)is_rate(m[i].name);
    if (mcf_acc_init(&s->acc, nwin, rate, nmetrics) != 0) return -1;
    for (int f = 0; f < MCF_TRACE_COUNT; f++) {
        if (!(s->trace[f] = malloc(sizeof(double) * (size_t)(nwin > 0 ? nwin : 1)))) {
            mcf_sustained_free(s);
            return -1;
        }
        for (int w = 0; w < nwin; w++) s->trace[f][w] = NAN;
    }
    s->steady = no_steady();
    return 0;
}

void mcf_sustained_free(struct mcf_sustained *s)
{
    if (!s) return;
    mcf_acc_free(&s->acc);
    for (int f = 0; f < MCF_TRACE_COUNT; f++) {
        free(s->trace[f]);
        s->trace[f] = NULL;
    }
}

void mcf_sustained_start(struct mcf_sustained *s, double t0)
{
    s->t0 = t0;
}

int mcf_sustained_add(struct mcf_sustained *s, double a, double b, double seconds, const double *v)
{
    s->reps++;
    return mcf_acc_add(&s->acc, a - s->t0, b - s->t0, seconds, v);
}

int mcf_sustained_close(struct mcf_sustained *s, double *values, double *rep_start, double *rep_end)
{
    double *span = malloc(sizeof *span * 2 * (size_t)(s->nwin > 0 ? s->nwin : 1));
    int n = span ? mcf_acc_close(&s->acc, values, span) : -1;
    if (n < 0) {
        free(span);
        return -1;
    }
    for (int w = 0; w < s->nwin; w++) {
        rep_start[w] = s->t0 + span[2 * w]; /* NaN stays NaN */
        rep_end[w] = s->t0 + span[2 * w + 1];
        s->trace[MCF_TRACE_SPAN][w] = span[2 * w + 1] - span[2 * w];
        if (s->rate_metric >= 0) {
            size_t r = (size_t)s->rate_metric * s->nwin + w;
            s->trace[MCF_TRACE_RATE][w] = values[r];
            s->trace[MCF_TRACE_WORK][w] = isfinite(values[r]) ? s->acc.num[r] : NAN;
        }
        if (s->clock_metric >= 0)
            s->trace[MCF_TRACE_CLOCK][w] = values[(size_t)s->clock_metric * s->nwin + w];
    }
    free(span);
    return n;
}

int mcf_sustained_finish(struct mcf_sustained *s, const struct mcf_preading *r, size_t n,
                         const double *rep_start, const double *rep_end, int kernel, int verified)
{
    struct mcf_psample *ps = malloc(sizeof *ps * (n ? n : 1));
    int with_work = 0;
    if (!ps) return -1;
    for (size_t i = 0; i < n; i++) ps[i] = r[i].s;
    for (int w = 0; w < s->nwin; w++) {
        double a = rep_start[w], b = rep_end[w];
        struct mcf_evidence ev = { NAN, NAN, NAN, NAN };
        struct mcf_window_figures fig = { NAN, NAN, NAN, 0, 0 };
        if (isfinite(a) && isfinite(b)) {
            with_work = w + 1;
            if (n) {
                ev = mcf_window_evidence(r, n, a, b);
                fig = mcf_window(ps, n, a, b, NAN);
            }
        }
        s->trace[MCF_TRACE_POWER][w] = fig.avg_power_w;
        s->trace[MCF_TRACE_SM_MHZ][w] = ev.sm_mhz;
        s->trace[MCF_TRACE_TEMP][w] = ev.temp_c_max;
        s->trace[MCF_TRACE_THROTTLE][w] = ev.throttle;
        if (!kernel) /* a wrong or failed kernel's timing is no figure */
            s->trace[MCF_TRACE_RATE][w] = s->trace[MCF_TRACE_WORK][w] =
                s->trace[MCF_TRACE_CLOCK][w] = NAN;
    }
    s->steady = no_steady();
    if (verified && with_work > 0) {
        s->steady = mcf_steady_figures(s->trace, with_work);
        if (s->steady.found && n) {
            /* the readings' own steady level: a reading is compared with readings */
            double level = mcf_window(ps, n, rep_start[s->steady.from], rep_end[with_work - 1], NAN)
                               .mean_power_w;
            s->steady.time_to_limit_s =
                mcf_time_to_level(ps, n, s->t0, rep_end[with_work - 1], MCF_LIMIT_LEVEL * level);
        }
    }
    free(ps);
    return 0;
}
