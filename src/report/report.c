#include "report.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mcfleet.h"
#include "report_int.h"
#include "report_measured.h"
#include "report_read.h"
#include "results.h"
#include "stats.h"
#include "health.h"

#define MAX_METRICS 1024         /* metrics one test may list */
#define MAX_METRIC_NAME 255
#define MAX_TESTS (1 << 20)
#define BLOCK_VALUES (1 << 20)   /* values read at a time from a metric dataset */

enum { C_WRONG, C_UNSUPPORTED, C_ERROR, C_NOT_RUN, C_HUNG, C_CUT, C_VERIFIED, NCAT };
static const char *const cat_what[C_VERIFIED] = {
    "FAILED VERIFICATION", "unsupported", "ERROR", "NOT RUN",
    "HUNG (missed the test's end: watchdog)", "cut short (a stop or the test's time limit; no figure)"
};

static int category(long long s)
{
    switch (s) {
    case MCF_STATUS_VERIFIED: return C_VERIFIED;
    case MCF_STATUS_WRONG: return C_WRONG;
    case MCF_STATUS_UNSUPPORTED: return C_UNSUPPORTED;
    case MCF_STATUS_ERROR: return C_ERROR;
    case MCF_STATUS_NOT_RUN: return C_NOT_RUN;
    case MCF_STATUS_HUNG: return C_HUNG;
    case MCF_STATUS_CUT: return C_CUT;
    default: return -1;
    }
}

void mcf_lines_add(struct lines *l, int *oom, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (n >= (int)sizeof line) {
        n = sizeof line - 1;
        line[n - 1] = '\n';
    }
    char *grown = realloc(l->buf, l->len + (size_t)n + 1);
    if (!grown) {
        *oom = 1;
        return;
    }
    memcpy(grown + l->len, line, (size_t)n + 1);
    l->buf = grown;
    l->len += (size_t)n;
}

#define append(f, l, ...) mcf_lines_add((l), &(f)->oom, __VA_ARGS__)

const char *const mcf_ev_names[NEV] = {
    [EV_SM_MHZ] = "test_sm_mhz", [EV_TEMP] = "test_temp_c_max", [EV_THROTTLE] = "test_throttle_reasons",
    [EV_POWER] = "test_avg_power_w", [EV_CLOCK_RATIO] = "test_clock_ratio", [EV_PROCS] = "test_gpu_procs_max",
    [EV_POWER_RATIO] = "test_power_ratio",
};

static void missing(struct fleet *f, int rc, const char *obj)
{
    if (rc == 0)
        mcf_rd_bad(&f->rd, obj, "missing");
}

/* What is wrong with one rank's row of a test's metric, as the runner writes
 * them: no figure where the rank did not verify (every metric is blanked);
 * for a summary metric (STRICT: never optional), never an infinity, and where
 * the rank verified, at least one figure and none after a repetition without
 * one (a time limit or a stop ends the repetitions early, never in between). */
static const char *row_problem(const double *row, size_t cols, long long status, int strict, size_t *at)
{
    size_t first_nan = cols;
    for (size_t k = 0; k < cols; k++) {
        *at = k;
        if (status != MCF_STATUS_VERIFIED && isfinite(row[k]))
            return "a figure, but the rank did not verify";
        if (!strict)
            continue;
        if (isinf(row[k]))
            return "an infinite figure";
        if (isnan(row[k]) && first_nan == cols)
            first_nan = k;
        if (status == MCF_STATUS_VERIFIED && isfinite(row[k]) && first_nan < k)
            return "a figure after a repetition without one";
    }
    *at = 0;
    if (strict && status == MCF_STATUS_VERIFIED && first_nan == 0)
        return "verified, but no repetition has a figure";
    return NULL;
}

/* Keeps MED (nranks medians) as a figure the verdict judges; 1 kept (the
 * fleet owns it now), 0 not (out of memory). */
static int keep_fig(struct fleet *f, const char *test, const char *metric, const char *unit, int better, double *med,
                    double rep_rel)
{
    if (f->nfigs == f->capfigs) {
        size_t cap = f->capfigs ? 2 * f->capfigs : 32;
        struct fig *v = realloc(f->figs, cap * sizeof *v);
        if (!v) {
            f->oom = 1;
            return 0;
        }
        f->figs = v;
        f->capfigs = cap;
    }
    struct fig *g = &f->figs[f->nfigs++];
    snprintf(g->test, sizeof g->test, "%s", test);
    snprintf(g->metric, sizeof g->metric, "%s", metric);
    snprintf(g->unit, sizeof g->unit, "%s", unit ? unit : "");
    g->better = better;
    g->med = med;
    g->rep_rel = rep_rel;
    return 1;
}

/* One metric of a test: per-rank medians, the fleet line, the outliers. With
 * CHECK (the test's own metrics), each row must agree with the rank's status
 * (row_problem; STRICT for the summary metrics). */
static void report_metric(struct fleet *f, hid_t g, const char *gname, const char *test, const char *metric,
                          const long long *status, int nverified, int check, int strict)
{
    char obj[512];
    struct mcf_rows m;
    char *unit = NULL;
    double *med = NULL, *buf = NULL, rep_rel = NAN;
    int flagged = 0;
    mcf_rd_name(obj, sizeof obj, gname, metric);
    int rc = mcf_rd_rows_open(&f->rd, g, gname, metric, f->nranks, !check, !check, &m);
    if (rc == 0 && (nverified > 0 || !check))
        mcf_rd_bad(&f->rd, obj, "missing (listed in %s)", check ? "summary_metrics" : "power_summary");
    if (rc <= 0) {
        if (rc < 0 || nverified > 0 || !check)
            append(f, &f->table, "  %s %s: not read (see the file's problems below)\n", test, metric);
        return;
    }
    if (mcf_rd_attr_text(&f->rd, m.d, obj, "unit", &unit) > 0)
        mcf_rd_clean(unit);
    size_t block = BLOCK_VALUES / m.cols ? BLOCK_VALUES / m.cols : 1;
    if (block > f->nranks)
        block = f->nranks;
    med = malloc(sizeof *med * f->nranks);
    buf = malloc(sizeof *buf * block * m.cols);
    if (!med || !buf) {
        f->oom = 1;
        goto done;
    }
    for (size_t r0 = 0; r0 < f->nranks; r0 += block) {
        size_t count = f->nranks - r0 < block ? f->nranks - r0 : block;
        if (mcf_rd_rows_read(&f->rd, &m, obj, r0, count, buf) < 0)
            goto done;
        for (size_t r = r0; r < r0 + count; r++) {
            const double *row = buf + (r - r0) * m.cols;
            size_t k;
            const char *why = check && status && !flagged ? row_problem(row, m.cols, status[r], strict, &k) : NULL;
            if (why) {
                mcf_rd_bad(&f->rd, obj, "rank %zu, repetition %zu: %s (status %lld)", r, k, why, status[r]);
                flagged = 1;
            }
            med[r] = mcf_median(row, m.cols);
            double rel = 1.4826 * mcf_mad(row, m.cols) / fabs(med[r]);
            if (isfinite(rel) && !(rel >= rep_rel))
                rep_rel = rel;   /* the quietest rank: a noisy bad GPU does not widen it */
        }
    }
    double fm = mcf_median(med, f->nranks), cv = mcf_cv(med, f->nranks);
    char name[160];
    snprintf(name, sizeof name, "%s %s", test, metric);
    append(f, &f->table, "%-52s %-9.24s %4zu/%-4zu %11.5g %11.5g %11.5g %7.2f\n", name, unit ? unit : "",
           mcf_count_finite(med, f->nranks), f->nranks, fm, mcf_min(med, f->nranks), mcf_max(med, f->nranks),
           isfinite(cv) ? 100.0 * cv : 0.0);
    /* the figures the verdict judges: those with a direction (newer files
     * say it in the attribute "better"; older ones by the metric's name) */
    char *better = NULL;
    int dir = mcf_metric_better(metric);
    if (mcf_rd_attr_text(&f->rd, m.d, obj, "better", &better) > 0)
        dir = mcf_better_parse(better);
    free(better);
    if (dir != 0 && mcf_count_finite(med, f->nranks) > 0 && keep_fig(f, test, metric, unit, dir, med, rep_rel))
        med = NULL;   /* kept */
done:
    free(unit);
    free(med);
    free(buf);
    mcf_rd_rows_close(&m);
}

/* Each name of a comma-separated list of metrics, checked as a name. */
static void report_metrics(struct fleet *f, hid_t g, const char *gname, const char *test, char *list,
                           const char *attr, const long long *status, int nverified, int check)
{
    char obj[512];
    int n = 0;
    snprintf(obj, sizeof obj, "%s attribute %s", gname, attr);
    for (char *save = NULL, *m = strtok_r(list, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
        if (++n > MAX_METRICS) {
            mcf_rd_bad(&f->rd, obj, "lists more than %d metrics", MAX_METRICS);
            return;
        }
        if (strlen(m) > MAX_METRIC_NAME) {
            mcf_rd_bad(&f->rd, obj, "names a metric of %zu bytes (at most %d)", strlen(m), MAX_METRIC_NAME);
            continue;
        }
        report_metric(f, g, gname, test, m, status, nverified, check, check && !strcmp(attr, "summary_metrics"));
    }
}

/* power_under_sampled: repetitions whose power window was too short. */
static void report_under_sampled(struct fleet *f, hid_t g, const char *gname, const char *test)
{
    char obj[512];
    struct mcf_rows m;
    double *buf = NULL;
    mcf_rd_name(obj, sizeof obj, gname, "power_under_sampled");
    if (mcf_rd_rows_open(&f->rd, g, gname, "power_under_sampled", f->nranks, 1, 1, &m) <= 0)
        return;
    size_t block = BLOCK_VALUES / m.cols ? BLOCK_VALUES / m.cols : 1, n = 0;
    if (block > f->nranks)
        block = f->nranks;
    if (!(buf = malloc(sizeof *buf * block * m.cols))) {
        f->oom = 1;
        goto done;
    }
    for (size_t r0 = 0; r0 < f->nranks; r0 += block) {
        size_t count = f->nranks - r0 < block ? f->nranks - r0 : block;
        if (mcf_rd_rows_read(&f->rd, &m, obj, r0, count, buf) < 0)
            goto done;
        for (size_t i = 0; i < count * m.cols; i++)
            n += buf[i] == 1.0;
    }
    if (n)
        append(f, &f->notes, "  %s: %zu of %zu repetition windows shorter than 3 power updates (whole-test power shown)\n",
               test, n, f->nranks * m.cols);
done:
    free(buf);
    mcf_rd_rows_close(&m);
}

/* A GPU's cause from a test's status: a wrong result, a runtime error, a
 * hang, or (in an acceptance deck) a test the device cannot run. A stop's
 * statuses (not run, cut) make the run incomplete, not the GPU bad. */
static void status_cause(struct fleet *f, const char *test, size_t r, long long status, const char *why)
{
    struct mcf_cause c = { .rank = r, .level = MCF_V_FAIL, .value = NAN, .reference = NAN, .deviation = NAN };
    snprintf(c.test, sizeof c.test, "%s", test);
    switch (status) {
    case MCF_STATUS_WRONG:
        c.rule = MCF_RULE_VERIFY;
        c.severity = 1e6;
        snprintf(c.text, sizeof c.text, "%s: FAILED VERIFICATION%s%.240s", test, why[0] ? ": " : "", why);
        break;
    case MCF_STATUS_ERROR:
    case MCF_STATUS_HUNG:
        c.rule = MCF_RULE_STATUS;
        c.severity = 1e5;
        snprintf(c.text, sizeof c.text, "%s: %s%s%.240s", test, status == MCF_STATUS_HUNG ? "HUNG" : "runtime error",
                 why[0] ? ": " : "", why);
        break;
    case MCF_STATUS_UNSUPPORTED:
        if (f->acceptance != 1)
            return;
        c.rule = MCF_RULE_UNSUPPORTED;
        c.severity = 1e4;
        snprintf(c.text, sizeof c.text, "%s: unsupported on %.40s in an acceptance deck: the deck is wrong for this "
                 "device (%.160s)", test, mcf_strs_at(&f->arch, r), why[0] ? why : "no reason recorded");
        break;
    default:
        return;
    }
    mcf_causes_add(&f->causes, &c);
}

/* The verdict of one test from its status and message datasets. */
static void report_status(struct fleet *f, const char *test, const long long *status,
                          const struct mcf_strs *message)
{
    size_t count[NCAT] = { 0 }, first[NCAT] = { 0 };
    for (size_t r = 0; r < f->nranks; r++) {
        int c = category(status[r]);
        if (!count[c]++)
            first[c] = r;
        status_cause(f, test, r, status[r], mcf_strs_at(message, r));
    }
    for (int c = 0; c < C_VERIFIED; c++) {
        const char *why = count[c] ? mcf_strs_at(message, first[c]) : "";
        if (count[c])
            append(f, &f->problems, "  %s: %s on %zu of %zu ranks (rank %zu%s%.400s%s)\n", test, cat_what[c],
                   count[c], f->nranks, first[c], why[0] ? ": " : "", why,
                   count[c] > 1 ? "; every rank is in the verdict's table" : "");
    }
    f->verified_all += count[C_VERIFIED] == f->nranks;
    f->unsupported += count[C_UNSUPPORTED] == f->nranks;
    f->wrong += count[C_WRONG] > 0;
    f->errors += count[C_ERROR] > 0;
    f->not_run += count[C_NOT_RUN] > 0;
    f->hung += count[C_HUNG] > 0;
    f->cut += count[C_CUT] > 0;
}

/* A [nranks] figure of a test (1-D, or [nranks, 1]), or NULL where absent or
 * malformed (recorded). */
static double *read_column(struct fleet *f, hid_t g, const char *gname, const char *name)
{
    char obj[512];
    struct mcf_rows m;
    double *v = NULL;
    mcf_rd_name(obj, sizeof obj, gname, name);
    if (mcf_rd_rows_open(&f->rd, g, gname, name, f->nranks, 1, 1, &m) <= 0)
        return NULL;
    if (m.cols != 1)
        mcf_rd_bad(&f->rd, obj, "%zu columns, expected one value per rank", m.cols);
    else if (!(v = malloc(sizeof *v * f->nranks)))
        f->oom = 1;
    else if (mcf_rd_rows_read(&f->rd, &m, obj, 0, f->nranks, v) < 0) {
        free(v);
        v = NULL;
    }
    mcf_rd_rows_close(&m);
    return v;
}

/* test_power_ratio and its source's name: a ratio of two powers is positive
 * and finite (a source gone wrong reads far off, which the power-check
 * reports; a ratio up to 1e6 is taken for one), and where there is one, the
 * other source is named. */
static void check_power_ratio(struct fleet *f, hid_t g, const char *gname, struct evidence *ev)
{
    const double *q = ev->col[EV_POWER_RATIO];
    char obj[512];
    int named = mcf_rd_strings(&f->rd, g, gname, "test_power_ratio_source", f->nranks, &ev->ratio_src) > 0;
    for (size_t r = 0; r < f->nranks; r++) {
        if (isnan(q[r]))
            continue;
        if (!(q[r] > 0 && q[r] <= 1e6)) {
            mcf_rd_name(obj, sizeof obj, gname, "test_power_ratio");
            mcf_rd_bad(&f->rd, obj, "rank %zu: %g is not a ratio of two powers", r, q[r]);
            return;
        }
        if (!named || !mcf_strs_at(&ev->ratio_src, r)[0]) {
            mcf_rd_name(obj, sizeof obj, gname, "test_power_ratio_source");
            mcf_rd_bad(&f->rd, obj, "%s where rank %zu has a ratio", named ? "empty" : "missing", r);
            return;
        }
    }
}

static void read_evidence(struct fleet *f, hid_t g, const char *gname, const char *test)
{
    struct evidence ev = { 0 };
    int any = 0;
    for (int k = 0; k < NEV; k++)
        any |= (ev.col[k] = read_column(f, g, gname, mcf_ev_names[k])) != NULL;
    if (!any)
        return;
    if (ev.col[EV_POWER_RATIO])
        check_power_ratio(f, g, gname, &ev);
    if (f->nev == f->capev) {
        size_t cap = f->capev ? 2 * f->capev : 32;
        struct evidence *v = realloc(f->ev, cap * sizeof *v);
        if (!v) {
            f->oom = 1;
            for (int k = 0; k < NEV; k++)
                free(ev.col[k]);
            mcf_strs_free(&ev.ratio_src);
            return;
        }
        f->ev = v;
        f->capev = cap;
    }
    snprintf(ev.test, sizeof ev.test, "%s", test);
    f->ev[f->nev++] = ev;
}

/* The fewest new power readings any rank's test had, over all its
 * repetitions (/results/T/power_samples); NaN where not recorded. A
 * whole-test power that rests on fewer than 3 is a reading from before or
 * after the test as much as of it. */
static double power_readings(struct fleet *f, hid_t g, const char *gname)
{
    char obj[512];
    struct mcf_rows m;
    double *buf = NULL, least = NAN;
    mcf_rd_name(obj, sizeof obj, gname, "power_samples");
    if (H5Lexists(g, "power_samples", H5P_DEFAULT) <= 0 ||
        mcf_rd_rows_open(&f->rd, g, gname, "power_samples", f->nranks, 1, 1, &m) <= 0)
        return NAN;
    size_t block = BLOCK_VALUES / m.cols ? BLOCK_VALUES / m.cols : 1;
    if (block > f->nranks)
        block = f->nranks;
    if (!(buf = malloc(sizeof *buf * block * m.cols))) {
        f->oom = 1;
        goto done;
    }
    for (size_t r0 = 0; r0 < f->nranks; r0 += block) {
        size_t count = f->nranks - r0 < block ? f->nranks - r0 : block;
        if (mcf_rd_rows_read(&f->rd, &m, obj, r0, count, buf) < 0)
            goto done;
        for (size_t r = 0; r < count; r++) {
            double sum = 0;
            for (size_t k = 0; k < m.cols; k++)
                sum += isfinite(buf[r * m.cols + k]) ? buf[r * m.cols + k] : 0;
            if (!(sum >= least))
                least = sum;
        }
    }
done:
    free(buf);
    mcf_rd_rows_close(&m);
    return least;
}

static void report_test(struct fleet *f, hid_t results, const char *name)
{
    char gname[512], obj[512];
    hid_t g = H5I_INVALID_HID;
    long long *status = NULL;
    struct mcf_strs message = { 0 };
    char *metrics = NULL, *test = strdup(name);
    if (!test) {
        f->oom = 1;
        return;
    }
    mcf_rd_clean(test);
    mcf_rd_name(gname, sizeof gname, "/results", name);
    f->tests++;
    if (mcf_rd_open(&f->rd, results, "/results", name, H5I_GROUP, &g) <= 0) {
        append(f, &f->problems, "  %s: not a test group (the file is malformed)\n", test);
        goto done;
    }
    int src = mcf_rd_ints(&f->rd, g, gname, "status", f->nranks, &status, NULL);
    missing(f, src, mcf_rd_name(obj, sizeof obj, gname, "status"));
    for (size_t r = 0; status && r < f->nranks; r++)
        if (category(status[r]) < 0) {
            mcf_rd_bad(&f->rd, obj, "rank %zu: %lld is not a status (-5..1)", r, status[r]);
            free(status);
            status = NULL;
        }
    missing(f, mcf_rd_strings(&f->rd, g, gname, "message", f->nranks, &message),
            mcf_rd_name(obj, sizeof obj, gname, "message"));
    int nverified = 0;
    for (size_t r = 0; status && r < f->nranks; r++)
        nverified += status[r] == MCF_STATUS_VERIFIED;

    const char *attr = "summary_metrics";
    int rc = mcf_rd_attr_text(&f->rd, g, gname, attr, &metrics);
    if (rc == 0)
        rc = mcf_rd_attr_text(&f->rd, g, gname, attr = "metrics", &metrics);
    if (rc == 0 && nverified)
        mcf_rd_bad(&f->rd, gname, "attributes summary_metrics and metrics: missing");
    if (rc > 0)
        report_metrics(f, g, gname, test, metrics, attr, status, nverified, 1);
    free(metrics);
    metrics = NULL;
    if (mcf_rd_attr_text(&f->rd, g, gname, "power_summary", &metrics) > 0)
        report_metrics(f, g, gname, test, metrics, "power_summary", status, nverified, 0);
    free(metrics);
    metrics = NULL;
    /* a sustained test's figures at the limit: checked as metrics (only where
     * verified), not strictly (a power figure may be missing) */
    if (mcf_rd_attr_text(&f->rd, g, gname, "sustained_summary", &metrics) > 0)
        report_metrics(f, g, gname, test, metrics, "sustained_summary", status, nverified, 1);
    report_under_sampled(f, g, gname, test);
    read_evidence(f, g, gname, test);
    struct test_facts *facts = mcf_facts_add(f, test);
    if (facts) {
        if (mcf_rd_measured(&f->rd, g, gname, facts->measured, sizeof facts->measured) > 0)
            mcf_rd_clean(facts->measured);
        facts->power_readings = power_readings(f, g, gname);
    }
    if (status)
        report_status(f, test, status, &message);
    else
        append(f, &f->problems, "  %s: status %s (the file is malformed)\n", test, src == 0 ? "missing" : "invalid");
done:
    free(metrics);
    free(status);
    mcf_strs_free(&message);
    free(test);
    if (g >= 0)
        H5Gclose(g);
}

struct names {
    char **v;
    size_t n, cap;
    int overflow, oom;
};

static herr_t collect(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
    struct names *l = data;
    (void)group;
    (void)info;
    if (l->n == MAX_TESTS) {
        l->overflow = 1;
        return 1;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->oom = 1;
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(name))) {
        l->oom = 1;
        return -1;
    }
    l->n++;
    return 0;
}

static void names_free(struct names *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* The tests in the order they ran (creation order), or by name where the
 * group does not track it. */
static void list_tests(struct fleet *f, hid_t results, struct names *l)
{
    char why[200];
    if (H5Literate(results, H5_INDEX_CRT_ORDER, H5_ITER_INC, NULL, collect, l) >= 0)
        goto check;
    H5Eclear2(H5E_DEFAULT);
    if (!l->oom) {
        names_free(l);
        if (H5Literate(results, H5_INDEX_NAME, H5_ITER_INC, NULL, collect, l) >= 0)
            goto check;
    }
    mcf_rd_h5why(why, sizeof why);
    if (l->oom)
        f->oom = 1;
    else
        mcf_rd_bad(&f->rd, "/results", "cannot be listed: %s", why);
    return;
check:
    if (l->overflow)
        mcf_rd_bad(&f->rd, "/results", "holds more than %d tests", MAX_TESTS);
    else if (l->n == 0)
        mcf_rd_bad(&f->rd, "/results", "holds no tests");
    long long ntests;   /* newer files say how many there are */
    if (!l->overflow && mcf_rd_attr_int(&f->rd, results, "/results", "ntests", &ntests) > 0 &&
        ntests != (long long)l->n)
        mcf_rd_bad(&f->rd, "/results attribute ntests", "%lld, but /results holds %zu tests", ntests, l->n);
}

/* Sets bit i of a bitmap; returns whether it was set before. */
static int mark(unsigned char *bits, long long i)
{
    int was = bits[i / 8] >> (i % 8) & 1;
    bits[i / 8] |= (unsigned char)(1u << (i % 8));
    return was;
}

/* world_size, hung_ranks, /ranks/world_rank and /hung, checked against each other. */
static void read_world(struct fleet *f, hid_t file, hid_t meta, hid_t ranks, struct world *w)
{
    hid_t hung = H5I_INVALID_HID;
    char *listed = NULL;
    long long *world_rank = NULL;
    unsigned char *seen = NULL, *in_list = NULL;
    int rc = mcf_rd_attr_int(&f->rd, meta, "/meta", "world_size", &w->size);
    if (rc <= 0)
        w->size = (long long)f->nranks;
    else if (w->size < (long long)f->nranks || w->size > MCF_RD_MAX_RANKS) {
        mcf_rd_bad(&f->rd, "/meta attribute world_size", "%lld ranks launched, but nranks is %zu (at most %d)",
                   w->size, f->nranks, MCF_RD_MAX_RANKS);
        return;
    }
    if (!(seen = calloc((size_t)w->size / 8 + 1, 1)) || !(in_list = calloc((size_t)w->size / 8 + 1, 1))) {
        f->oom = 1;
        goto done;
    }
    if (ranks >= 0 && mcf_rd_ints(&f->rd, ranks, "/ranks", "world_rank", f->nranks, &world_rank, NULL) > 0)
        for (size_t r = 0; r < f->nranks; r++)
            if (world_rank[r] < 0 || world_rank[r] >= w->size || mark(seen, world_rank[r])) {
                mcf_rd_bad(&f->rd, "/ranks/world_rank", "row %zu: %lld is not a world rank of its own (world_size %lld)",
                           r, world_rank[r], w->size);
                break;
            }
    rc = mcf_rd_open(&f->rd, file, "", "hung", H5I_GROUP, &hung);
    if (rc > 0) {
        size_t n = 0;
        rc = mcf_rd_ints(&f->rd, hung, "/hung", "world_rank", MCF_RD_ANY, &w->rank, &n);
        missing(f, rc, "/hung/world_rank");
        if (rc <= 0)
            goto done;
        for (size_t i = 0; i < n; i++)
            if (w->rank[i] < 0 || w->rank[i] >= w->size || mark(seen, w->rank[i])) {
                mcf_rd_bad(&f->rd, "/hung/world_rank", "entry %zu: %lld is not a world rank of its own (world_size %lld)",
                           i, w->rank[i], w->size);
                goto done;
            }
        struct { const char *name; struct mcf_strs *s; } str[] = {
            { "hostname", &w->host }, { "device_uuid", &w->uuid }, { "pci_bus_id", &w->pci },
            { "device_name", &w->device }, { "test", &w->test } };
        for (size_t i = 0; i < sizeof str / sizeof str[0]; i++) {
            char obj[64];
            missing(f, mcf_rd_strings(&f->rd, hung, "/hung", str[i].name, n, str[i].s),
                    mcf_rd_name(obj, sizeof obj, "/hung", str[i].name));
        }
        w->nhung = n;
    }
    if (rc == 0 && w->size > (long long)f->nranks) {
        mcf_rd_bad(&f->rd, "/hung", "missing, but /meta world_size %lld is more than nranks %zu", w->size, f->nranks);
        goto done;
    }
    if ((long long)(f->nranks + w->nhung) != w->size) {
        mcf_rd_bad(&f->rd, "/meta attribute world_size", "%lld ranks launched, but %zu answered and %zu hung",
                   w->size, f->nranks, w->nhung);
        goto done;
    }
    long long nhung = 0;
    if (mcf_rd_attr_int(&f->rd, meta, "/meta", "nhung", &nhung) > 0 && nhung != (long long)w->nhung)
        mcf_rd_bad(&f->rd, "/meta attribute nhung", "%lld, but /hung lists %zu ranks", nhung, w->nhung);
    /* the first ranks, then ",..." where the list would be long: all of them are in /hung */
    rc = mcf_rd_attr_text(&f->rd, meta, "/meta", "hung_ranks", &listed);
    if (rc == 0 && w->nhung)
        mcf_rd_bad(&f->rd, "/meta attribute hung_ranks", "missing, but /hung lists %zu ranks", w->nhung);
    if (rc > 0) {
        size_t count = 0;
        int truncated = 0;
        for (char *save = NULL, *t = strtok_r(listed, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            char *end;
            if (truncated) {   /* "..." ends the list */
                mcf_rd_bad(&f->rd, "/meta attribute hung_ranks", "ranks listed after '...'");
                goto done;
            }
            if (!strcmp(t, "...")) {
                truncated = 1;
                continue;
            }
            errno = 0;
            long long v = strtoll(t, &end, 10);
            if (errno || end == t || *end || v < 0 || v >= w->size) {
                mcf_rd_clean(t);
                mcf_rd_bad(&f->rd, "/meta attribute hung_ranks", "'%.40s' is not a world rank", t);
                goto done;
            }
            if (++count > w->nhung || mark(in_list, v))
                break;
        }
        size_t both = 0;
        for (size_t i = 0; i < w->nhung; i++)
            both += in_list[w->rank[i] / 8] >> (w->rank[i] % 8) & 1;
        if (count > w->nhung || both != count || (!truncated && count != w->nhung))
            mcf_rd_bad(&f->rd, "/meta attribute hung_ranks", "does not list the %zu ranks of /hung/world_rank",
                       w->nhung);
    }
done:
    free(listed);
    free(world_rank);
    free(seen);
    free(in_list);
    if (hung >= 0)
        H5Gclose(hung);
}

static void world_free(struct world *w)
{
    free(w->rank);
    mcf_strs_free(&w->host);
    mcf_strs_free(&w->uuid);
    mcf_strs_free(&w->pci);
    mcf_strs_free(&w->device);
    mcf_strs_free(&w->test);
}

/* /meta tests_not_run: a comma-separated attribute, or (newer files) a 1-D
 * string dataset tests_not_run_list or tests_not_run. */
static void read_not_run(struct fleet *f, hid_t meta)
{
    char *text = NULL;
    if (mcf_rd_attr_text(&f->rd, meta, "/meta", "tests_not_run", &text) > 0) {
        for (char *save = NULL, *t = strtok_r(text, ",", &save); t; t = strtok_r(NULL, ",", &save))
            f->listed_not_run++;
    }
    free(text);
    static const char *const names[] = { "tests_not_run_list", "tests_not_run" };
    for (int i = 0; i < 2; i++) {
        struct mcf_strs s = { 0 };
        size_t n = 0;
        if (mcf_rd_strings(&f->rd, meta, "/meta", names[i], MCF_RD_ANY, &s) > 0)
            for (size_t k = 0; k < s.n; k++)
                n += mcf_strs_at(&s, k)[0] != '\0';
        if (n > f->listed_not_run)
            f->listed_not_run = n;
        mcf_strs_free(&s);
    }
}

/* An optional [nranks] string dataset of /ranks (older files lack some). */
static void optional_strings(struct fleet *f, hid_t ranks, const char *name, struct mcf_strs *s)
{
    if (mcf_rd_strings(&f->rd, ranks, "/ranks", name, f->nranks, s) > 0)
        for (size_t r = 0; r < s->n; r++)
            mcf_rd_clean(s->buf + r * s->stride);
}

/* An optional [nranks] integer dataset of /ranks, each value in [lo, hi]. */
static void optional_ints(struct fleet *f, hid_t ranks, const char *name, long long lo, long long hi, long long **v)
{
    char obj[128];
    if (mcf_rd_ints(&f->rd, ranks, "/ranks", name, f->nranks, v, NULL) <= 0)
        return;
    for (size_t r = 0; r < f->nranks; r++)
        if ((*v)[r] < lo || (*v)[r] > hi) {
            mcf_rd_bad(&f->rd, mcf_rd_name(obj, sizeof obj, "/ranks", name), "row %zu: %lld is not in %lld..%lld", r,
                       (*v)[r], lo, hi);
            free(*v);
            *v = NULL;
            return;
        }
}

/* /ranks: each row's identity (what a technician needs to find the GPU), its
 * node, the binding check. */
static void read_ranks(struct fleet *f, hid_t ranks)
{
    missing(f, mcf_rd_strings(&f->rd, ranks, "/ranks", "hostname", f->nranks, &f->host), "/ranks/hostname");
    missing(f, mcf_rd_strings(&f->rd, ranks, "/ranks", "device_name", f->nranks, &f->device), "/ranks/device_name");
    missing(f, mcf_rd_ints(&f->rd, ranks, "/ranks", "node", f->nranks, &f->node, NULL), "/ranks/node");
    for (size_t r = 0; f->node && r < f->nranks; r++)
        if (f->node[r] < 0 || f->node[r] >= (long long)f->nranks) {
            mcf_rd_bad(&f->rd, "/ranks/node", "row %zu: %lld is not a node index (0..nranks-1)", r, f->node[r]);
            free(f->node);
            f->node = NULL;
        }
    for (size_t r = 0; r < f->host.n; r++)
        mcf_rd_clean(f->host.buf + r * f->host.stride);
    for (size_t r = 0; r < f->device.n; r++)
        mcf_rd_clean(f->device.buf + r * f->device.stride);
    optional_strings(f, ranks, "device_arch", &f->arch);
    optional_strings(f, ranks, "device_uuid", &f->uuid);
    optional_strings(f, ranks, "pci_bus_id", &f->pci);
    optional_strings(f, ranks, "device_serial", &f->serial);
    optional_strings(f, ranks, "slurm_nodename", &f->slurm_name);
    optional_ints(f, ranks, "local_rank", 0, (long long)f->nranks - 1, &f->local_rank);
    optional_ints(f, ranks, "device", 0, 1 << 20, &f->device_index);
    mcf_rd_ints(&f->rd, ranks, "/ranks", "world_rank", f->nranks, &f->world_rank, NULL);   /* read_world checks it */
    optional_ints(f, ranks, "compute_units", 0, 1 << 24, &f->compute_units);
    mcf_rd_ints(&f->rd, ranks, "/ranks", "cores_local_to_gpu", f->nranks, &f->local, NULL);
    for (size_t r = 0; f->local && r < f->nranks; r++)
        if (f->local[r] < -1 || f->local[r] > 1) {
            mcf_rd_bad(&f->rd, "/ranks/cores_local_to_gpu", "row %zu: %lld is not -1, 0 or 1", r, f->local[r]);
            free(f->local);
            f->local = NULL;
        }
}

/* /health (newer files, docs/results-format.md): the counters before and
 * after the run, [nranks, 2]; the link at work, [nranks]. */
static void read_health(struct fleet *f, hid_t file)
{
    hid_t h = H5I_INVALID_HID;
    if (mcf_rd_open(&f->rd, file, "", "health", H5I_GROUP, &h) <= 0)
        return;
    _Static_assert(MCF_HC_COUNT <= MCF_NHEALTH, "health counters");
    double *buf = malloc(sizeof *buf * 2 * f->nranks);
    if (!buf) {
        f->oom = 1;
        goto done;
    }
    for (int c = 0; c < MCF_HC_COUNT; c++) {
        char obj[128];
        struct mcf_rows m;
        mcf_rd_name(obj, sizeof obj, "/health", mcf_health_names[c]);
        if (mcf_rd_rows_open(&f->rd, h, "/health", mcf_health_names[c], f->nranks, 0, 1, &m) <= 0)
            continue;
        if (m.cols != 2)
            mcf_rd_bad(&f->rd, obj, "%zu columns, expected 2 (before and after the run)", m.cols);
        else if (mcf_rd_rows_read(&f->rd, &m, obj, 0, f->nranks, buf) > 0 &&
                 (f->health[c] = malloc(sizeof *f->health[c] * 2 * f->nranks))) {
            for (size_t i = 0; i < 2 * f->nranks; i++)
                f->health[c][i] = isfinite(buf[i]) ? (long long)buf[i] : -1;
        }
        mcf_rd_rows_close(&m);
    }
    mcf_rd_ints(&f->rd, h, "/health", "pcie_gen_busy", f->nranks, &f->gen_busy, NULL);
    mcf_rd_ints(&f->rd, h, "/health", "pcie_width_busy", f->nranks, &f->width_busy, NULL);
    if (mcf_rd_strings(&f->rd, h, "/health", "source", f->nranks, &f->health_source) > 0)
        for (size_t r = 0; r < f->health_source.n; r++)
            mcf_rd_clean(f->health_source.buf + r * f->health_source.stride);
done:
    free(buf);
    H5Gclose(h);
}

/* Which source each rank's per-test power figures come from (files before
 * 2026-11-26 lack it: "?"). */
static void read_primary_source(struct fleet *f, hid_t file)
{
    hid_t p = H5I_INVALID_HID;
    if (mcf_rd_open(&f->rd, file, "", "power", H5I_GROUP, &p) <= 0)
        return;
    mcf_rd_strings(&f->rd, p, "/power", "primary_source", f->nranks, &f->primary_source);   /* cleaned as read */
    H5Gclose(p);
}

/* The fleet verdict and exit code: a malformed file (2), an incomplete run
 * (3), a FAIL (1), else PASS or WARN (0). */
static void conclude(struct fleet *f, const struct world *w)
{
    if (f->rd.problems) {
        f->verdict = "MALFORMED";
        f->exit_code = MCF_EXIT_USAGE;
        append(f, &f->reasons, "the file is malformed (%d problem%s)\n", f->rd.problems, f->rd.problems == 1 ? "" : "s");
        return;
    }
    if (f->complete != 1 || f->not_run || f->listed_not_run || f->hung || w->nhung || f->cut || f->errors) {
        f->verdict = "INCOMPLETE";
        f->exit_code = MCF_EXIT_RUNTIME;
        if (f->complete != 1)
            append(f, &f->reasons, "the run was stopped (complete = 0)%s%s\n", f->stop_reason && *f->stop_reason ?
                   ": " : "", f->stop_reason ? f->stop_reason : "");
        if (f->cut_test && *f->cut_test)
            append(f, &f->reasons, "the test in hand when it stopped: %s\n", f->cut_test);
        if (f->rebuilt_from && *f->rebuilt_from)
            append(f, &f->reasons, "rebuilt from the journal %s: the finished tests only, without power and "
                   "health (computed at a run's end)\n", f->rebuilt_from);
        if (f->not_run || f->listed_not_run)
            append(f, &f->reasons, "tests not run: %zu\n", f->listed_not_run > (size_t)f->not_run ?
                   f->listed_not_run : (size_t)f->not_run);
        if (f->hung || w->nhung)
            append(f, &f->reasons, "hung ranks: %zu without rows (/hung), %d test%s with status HUNG\n", w->nhung,
                   f->hung, f->hung == 1 ? "" : "s");
        if (f->cut)
            append(f, &f->reasons, "repetitions cut short\n");
        if (f->errors)
            append(f, &f->reasons, "runtime errors on %d test%s\n", f->errors, f->errors == 1 ? "" : "s");
        return;
    }
    f->verdict = mcf_vlevel_names[f->roll.fleet];
    f->exit_code = f->roll.fleet == MCF_V_FAIL ? MCF_EXIT_VERIFY : MCF_EXIT_OK;
}

int mcf_report(const char *path, const struct mcf_report_opts *opts, FILE *out, struct mcf_err *e)
{
    struct mcf_report_opts defaults;
    if (!opts) {
        mcf_report_opts_default(&defaults);
        opts = &defaults;
    }
    struct fleet f = { .opts = opts, .complete = -1, .nnodes = -1, .acceptance = -1, .quick = -1 };
    struct world w = { 0 };
    struct names tests = { 0 };
    hid_t file = H5I_INVALID_HID, meta = H5I_INVALID_HID, ranks = H5I_INVALID_HID, results = H5I_INVALID_HID;
    long long nranks = 0, complete = -1;
    int code = MCF_EXIT_USAGE, printed = 0;
    struct stat st;
    f.rd.path = path;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    /* open(2) of a FIFO waits for a writer: only regular files are opened */
    if (stat(path, &st) != 0)
        MCF_FAIL(e, MCF_EINPUT, "report: cannot open '%s': %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        MCF_FAIL(e, MCF_EINPUT, "report: '%s' is not a regular file (%s)", path,
                 S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : "a device or socket");
    if ((file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
        char why[200];
        mcf_rd_h5why(why, sizeof why);
        MCF_FAIL(e, MCF_EINPUT, "report: cannot open '%s' as an HDF5 file: %s", path, why);
    }
    missing(&f, mcf_rd_open(&f.rd, file, "", "meta", H5I_GROUP, &meta), "/meta");
    if (meta >= 0)
        missing(&f, mcf_rd_open(&f.rd, file, "", "results", H5I_GROUP, &results), "/results");
    if (meta >= 0 && results >= 0) {
        missing(&f, mcf_rd_attr_text(&f.rd, meta, "/meta", "mcfleet_version", &f.version),
                "/meta attribute mcfleet_version");
        missing(&f, mcf_rd_attr_int(&f.rd, meta, "/meta", "nranks", &nranks), "/meta attribute nranks");
    }
    if (f.rd.problems)
        MCF_FAIL(e, MCF_EINPUT, "report: '%s' is not an mcfleet results file: %s", path, f.rd.first);
    if (nranks < 1 || nranks > MCF_RD_MAX_RANKS)
        MCF_FAIL(e, MCF_EINPUT, "report: '%s' is malformed: /meta attribute nranks: %lld is not a rank count (1..%d)",
                 path, nranks, MCF_RD_MAX_RANKS);
    f.nranks = (size_t)nranks;
    int rc = mcf_rd_attr_int(&f.rd, meta, "/meta", "complete", &complete);
    missing(&f, rc, "/meta attribute complete");
    if (rc > 0 && complete != 0 && complete != 1)
        mcf_rd_bad(&f.rd, "/meta attribute complete", "%lld is neither 0 nor 1", complete);
    else if (rc > 0)
        f.complete = (int)complete;
    mcf_rd_attr_text(&f.rd, meta, "/meta", "backend", &f.backend);
    mcf_rd_attr_text(&f.rd, meta, "/meta", "start_time", &f.start);
    mcf_rd_attr_text(&f.rd, meta, "/meta", "deck_path", &f.deck);
    mcf_rd_attr_text(&f.rd, meta, "/meta", "injected", &f.injected);
    if (H5Aexists(meta, "injected_slow") > 0)   /* newer files */
        mcf_rd_attr_text(&f.rd, meta, "/meta", "injected_slow", &f.injected_slow);
    mcf_rd_attr_text(&f.rd, meta, "/meta", "deck_arch", &f.deck_arch);
    mcf_rd_attr_text(&f.rd, meta, "/meta", "cut_test", &f.cut_test);
    mcf_rd_attr_text(&f.rd, meta, "/meta", "stop_reason", &f.stop_reason);
    mcf_rd_attr_text(&f.rd, meta, "/meta", "rebuilt_from", &f.rebuilt_from);
    mcf_rd_attr_int(&f.rd, meta, "/meta", "nnodes", &f.nnodes);
    mcf_rd_attr_int(&f.rd, meta, "/meta", "oversubscribed_nodes", &f.oversubscribed_nodes);
    if (H5Aexists(meta, "crowded_nodes") > 0)   /* newer files */
        mcf_rd_attr_int(&f.rd, meta, "/meta", "crowded_nodes", &f.crowded_nodes);
    if (mcf_rd_attr_int(&f.rd, meta, "/meta", "acceptance", &f.acceptance) > 0 && f.acceptance != 0 &&
        f.acceptance != 1)
        mcf_rd_bad(&f.rd, "/meta attribute acceptance", "%lld is neither 0 nor 1", f.acceptance);
    if (mcf_rd_attr_int(&f.rd, meta, "/meta", "quick", &f.quick) > 0 && f.quick != 0 && f.quick != 1)
        mcf_rd_bad(&f.rd, "/meta attribute quick", "%lld is neither 0 nor 1", f.quick);
    read_not_run(&f, meta);
    missing(&f, mcf_rd_open(&f.rd, file, "", "ranks", H5I_GROUP, &ranks), "/ranks");
    if (ranks >= 0)
        read_ranks(&f, ranks);
    read_world(&f, file, meta, ranks, &w);
    read_health(&f, file);
    read_primary_source(&f, file);
    char *texts[] = { f.version, f.backend, f.start, f.deck, f.injected, f.injected_slow, f.deck_arch, f.cut_test, f.stop_reason,
                      f.rebuilt_from };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (texts[i])
            mcf_rd_clean(texts[i]);
    list_tests(&f, results, &tests);
    for (size_t i = 0; i < tests.n && !f.oom && !f.rd.oom; i++)
        report_test(&f, results, tests.v[i]);
    if (!f.oom && !f.rd.oom && !f.rd.problems && mcf_report_judge(&f, e) != MCF_OK)
        goto fail;
    if (f.oom || f.rd.oom || f.causes.oom)
        MCF_FAIL(e, MCF_ERUNTIME, "report: out of memory reading '%s'", path);
    conclude(&f, &w);
    printed = 1;
    switch (opts->format) {
    case MCF_FORMAT_JSON: mcf_report_print_json(&f, &w, path, out); break;
    case MCF_FORMAT_CSV: mcf_report_print_csv(&f, &w, out); break;
    default: mcf_report_print_text(&f, &w, path, out); break;
    }
    code = f.exit_code;
    if (code == MCF_EXIT_USAGE)
        MCF_FAIL(e, MCF_EINPUT, "report: '%s' is malformed: %s%s", path, f.rd.first,
                 f.rd.problems > 1 ? " (and more: see the report)" : "");
fail:
    if (e->rc != MCF_OK)
        code = mcf_exit_code(e->rc);
    if (!printed && opts->format == MCF_FORMAT_JSON)
        mcf_report_print_json_error(path, code, e->msg, out);
    names_free(&tests);
    world_free(&w);
    if (results >= 0) H5Gclose(results);
    if (ranks >= 0) H5Gclose(ranks);
    if (meta >= 0) H5Gclose(meta);
    if (file >= 0) H5Fclose(file);
    struct mcf_strs *strs[] = { &f.host, &f.device, &f.arch, &f.uuid, &f.pci, &f.serial, &f.slurm_name,
                                &f.health_source, &f.primary_source };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        mcf_strs_free(strs[i]);
    long long *ints[] = { f.node, f.compute_units, f.local_rank, f.device_index, f.world_rank, f.local, f.gen_busy, f.width_busy };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        free(ints[i]);
    for (int c = 0; c < MCF_NHEALTH; c++)
        free(f.health[c]);
    for (size_t i = 0; i < f.nfigs; i++)
        free(f.figs[i].med);
    free(f.figs);
    for (size_t i = 0; i < f.nev; i++)
        for (int k = 0; k < NEV; k++)
            free(f.ev[i].col[k]);
    for (size_t i = 0; i < f.nev; i++)
        mcf_strs_free(&f.ev[i].ratio_src);
    free(f.ev);
    free(f.facts);
    struct lines *ls[] = { &f.table, &f.problems, &f.notes, &f.reasons, &f.profiles, &f.profile_table };
    for (size_t i = 0; i < sizeof ls / sizeof ls[0]; i++)
        free(ls[i]->buf);
    mcf_causes_free(&f.causes);
    mcf_rollup_free(&f.roll);
    mcf_rd_free(&f.rd);
    char *texts2[] = { f.version, f.backend, f.start, f.deck, f.injected, f.injected_slow, f.deck_arch, f.cut_test, f.stop_reason,
                       f.rebuilt_from };
    for (size_t i = 0; i < sizeof texts2 / sizeof texts2[0]; i++)
        free(texts2[i]);
    return code;
}

int mcf_report_file(const char *path, FILE *out, struct mcf_err *e)
{
    struct mcf_err mine = { 0 };
    int code = mcf_report(path, NULL, out, &mine);
    if (mine.rc != MCF_OK && e->rc == MCF_OK)
        *e = mine;
    return code;
}
