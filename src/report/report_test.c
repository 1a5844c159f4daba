/* One test of a results file read back (report.c reads the file, this each
 * /results group): its metrics checked against its status, the per-rank
 * medians the verdict judges, the status causes, the evidence columns and
 * the facts the profile and the per-joule rule need; and the list of tests.
 * Internal to the report (report_int.h). */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mcfleet.h"
#include "report_int.h"
#include "report_links.h"
#include "report_read.h"
#include "results.h"
#include "stats.h"

#define MAX_METRICS 1024 /* metrics one test may list */
#define MAX_METRIC_NAME 255
#define MAX_TESTS (1 << 20)
#define BLOCK_VALUES (1 << 20) /* values read at a time from a metric dataset */

enum { C_WRONG, C_UNSUPPORTED, C_ERROR, C_NOT_RUN, C_HUNG, C_CUT, C_VERIFIED, NCAT };
static const char *const cat_what[C_VERIFIED] = {
    "FAILED VERIFICATION",
    "unsupported",
    "ERROR",
    "NOT RUN",
    "HUNG (missed the test's end: watchdog)",
    "cut short (a stop or the test's time limit; no figure)"
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

const char *const mcf_ev_names[NEV] = {
    [EV_SM_MHZ] = "test_sm_mhz",
    [EV_TEMP] = "test_temp_c_max",
    [EV_THROTTLE] = "test_throttle_reasons",
    [EV_POWER] = "test_avg_power_w",
    [EV_CLOCK_RATIO] = "test_clock_ratio",
    [EV_PROCS] = "test_gpu_procs_max",
    [EV_POWER_RATIO] = "test_power_ratio",
};

/* What is wrong with one rank's row of a test's metric, as the runner writes
 * them: no figure where the rank did not verify (every metric is blanked);
 * for a summary metric (STRICT: never optional), never an infinity, and where
 * the rank verified, at least one figure and none after a repetition without
 * one (a time limit or a stop ends the repetitions early, never in between). */
static const char *row_problem(const double *row, size_t cols, long long status, int strict,
                               size_t *at)
{
    size_t first_nan = cols;
    for (size_t k = 0; k < cols; k++) {
        *at = k;
        if (status != MCF_STATUS_VERIFIED && isfinite(row[k]))
            return "a figure, but the rank did not verify";
        if (!strict) continue;
        if (isinf(row[k])) return "an infinite figure";
        if (isnan(row[k]) && first_nan == cols) first_nan = k;
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
static int keep_fig(struct fleet *f, const char *test, const char *metric, const char *unit,
                    int better, double *med, double rep_rel)
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

/* Each rank's row of the open dataset m (obj names it), a block of rows at
 * a time: fn(row, rank, cols, ctx). 0, or -1 where it could not be read
 * (recorded) or memory ran out. */
typedef void row_fn(const double *row, size_t rank, size_t cols, void *ctx);
static int read_rows(struct fleet *f, struct mcf_rows *m, const char *obj, row_fn *fn, void *ctx)
{
    size_t block = BLOCK_VALUES / m->cols ? BLOCK_VALUES / m->cols : 1;
    if (block > f->nranks) block = f->nranks;
    double *buf = malloc(sizeof *buf * block * m->cols);
    int rc = -1;
    if (!buf) {
        f->oom = 1;
        return -1;
    }
    for (size_t r0 = 0; r0 < f->nranks; r0 += block) {
        size_t count = f->nranks - r0 < block ? f->nranks - r0 : block;
        if (mcf_rd_rows_read(&f->rd, m, obj, r0, count, buf) < 0) goto done;
        for (size_t r = 0; r < count; r++) fn(buf + r * m->cols, r0 + r, m->cols, ctx);
    }
    rc = 0;
done:
    free(buf);
    return rc;
}

/* The same over the optional [nranks, cols] dataset NAME of test group g:
 * cols, 0 where it is absent, -1 where it could not be read. */
static long each_row(struct fleet *f, hid_t g, const char *gname, const char *name, row_fn *fn,
                     void *ctx)
{
    char obj[512];
    struct mcf_rows m;
    mcf_rd_name(obj, sizeof obj, gname, name);
    int open = mcf_rd_rows_open(&f->rd, g, gname, name, f->nranks, 1, 1, &m);
    if (open <= 0) return open;
    long rc = read_rows(f, &m, obj, fn, ctx) == 0 ? (long)m.cols : -1;
    mcf_rd_rows_close(&m);
    return rc;
}

/* One metric's rows: each rank's median and repetition spread, each row
 * checked against the rank's status (row_problem) where asked. */
struct metric_rows {
    struct fleet *f;
    const char *obj;
    const long long *status;
    int check, strict, flagged;
    double *med, rep_rel;
};

static void metric_row(const double *row, size_t r, size_t cols, void *ctx)
{
    struct metric_rows *x = ctx;
    size_t k;
    const char *why = x->check && x->status && !x->flagged
        ? row_problem(row, cols, x->status[r], x->strict, &k)
        : NULL;
    if (why) {
        mcf_rd_bad(&x->f->rd, x->obj, "rank %zu, repetition %zu: %s (status %lld)", r, k, why,
                   x->status[r]);
        x->flagged = 1;
    }
    x->med[r] = mcf_median(row, cols);
    double rel = MCF_MAD_SCALE * mcf_mad(row, cols) / fabs(x->med[r]);
    if (isfinite(rel) && !(rel >= x->rep_rel))
        x->rep_rel = rel; /* the quietest rank: a noisy bad GPU does not widen it */
}

/* One metric of a test: per-rank medians, the fleet line, the outliers. With
 * CHECK (the test's own metrics), each row must agree with the rank's status
 * (row_problem; STRICT for the summary metrics). */
static void report_metric(struct fleet *f, hid_t g, const char *gname, const char *test,
                          const char *metric, const long long *status, int nverified, int check,
                          int strict)
{
    char obj[512];
    struct mcf_rows m;
    char *unit = NULL;
    double *med = NULL;
    mcf_rd_name(obj, sizeof obj, gname, metric);
    int rc = mcf_rd_rows_open(&f->rd, g, gname, metric, f->nranks, !check, !check, &m);
    if (rc == 0 && (nverified > 0 || !check))
        mcf_rd_bad(&f->rd, obj, "missing (listed in %s)",
                   check ? "summary_metrics" : "power_summary");
    if (rc <= 0) {
        if (rc < 0 || nverified > 0 || !check)
            append(f, &f->table, "  %s %s: not read (see the file's problems below)\n", test,
                   metric);
        return;
    }
    if (mcf_rd_attr_text(&f->rd, m.d, obj, "unit", &unit) > 0) mcf_rd_clean(unit);
    med = malloc(sizeof *med * f->nranks);
    if (!med) {
        f->oom = 1;
        goto done;
    }
    struct metric_rows x = { .f = f,
                             .obj = obj,
                             .status = status,
                             .check = check,
                             .strict = strict,
                             .med = med,
                             .rep_rel = NAN };
    if (read_rows(f, &m, obj, metric_row, &x) < 0) goto done;
    double rep_rel = x.rep_rel;
    double fm = mcf_median(med, f->nranks), cv = mcf_cv(med, f->nranks);
    char name[160];
    snprintf(name, sizeof name, "%s %s", test, metric);
    append(f, &f->table, "%-52s %-9.24s %4zu/%-4zu %11.5g %11.5g %11.5g %7.2f\n", name,
           unit ? unit : "", mcf_count_finite(med, f->nranks), f->nranks, fm,
           mcf_min(med, f->nranks), mcf_max(med, f->nranks), isfinite(cv) ? 100.0 * cv : 0.0);
    /* the figures the verdict judges: those with a direction (newer files
     * say it in the attribute "better"; older ones by the metric's name) */
    char *better = NULL;
    int dir = mcf_legacy_better(metric);
    if (mcf_rd_attr_text(&f->rd, m.d, obj, "better", &better) > 0) dir = mcf_better_parse(better);
    free(better);
    struct test_facts *facts = mcf_facts_last(f, test);
    if (facts && facts->nmetrics < MCF_FACT_METRICS) {
        snprintf(facts->metric[facts->nmetrics].name, sizeof facts->metric[0].name, "%s", metric);
        facts->metric[facts->nmetrics++].better = dir;
    }
    if (dir != 0 && mcf_count_finite(med, f->nranks) > 0 &&
        keep_fig(f, test, metric, unit, dir, med, rep_rel))
        med = NULL; /* kept */
done:
    free(unit);
    free(med);
    mcf_rd_rows_close(&m);
}

/* Each name of a comma-separated list of metrics, checked as a name. */
static void report_metrics(struct fleet *f, hid_t g, const char *gname, const char *test,
                           char *list, const char *attr, const long long *status, int nverified,
                           int check)
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
            mcf_rd_bad(&f->rd, obj, "names a metric of %zu bytes (at most %d)", strlen(m),
                       MAX_METRIC_NAME);
            continue;
        }
        report_metric(f, g, gname, test, m, status, nverified, check,
                      check && !strcmp(attr, "summary_metrics"));
    }
}

static void count_ones(const double *row, size_t rank, size_t cols, void *ctx)
{
    (void)rank;
    for (size_t i = 0; i < cols; i++) *(size_t *)ctx += row[i] == 1.0;
}

/* power_under_sampled: repetitions whose power window was too short. */
static void report_under_sampled(struct fleet *f, hid_t g, const char *gname, const char *test)
{
    size_t n = 0;
    long cols = each_row(f, g, gname, "power_under_sampled", count_ones, &n);
    if (cols > 0 && n)
        append(f, &f->notes,
               "  %s: %zu of %zu repetition windows shorter than 3 power updates (whole-test power "
               "shown)\n",
               test, n, f->nranks * (size_t)cols);
}

/* A transfer test whose link this job lacks (link/comm.h): peer links on a
 * node where the rank is alone, the network in a job of one node, a
 * collective of one rank. Its "unsupported" is the job's shape, neither the
 * device's fault nor the deck's. NULL, or what it lacks. */
static const char *absent_link(const struct fleet *f, const char *test, size_t r)
{
    const struct test_facts *t = mcf_facts_of(f, test);
    if (!t || strcmp(t->id.kernel, "transfer") || !f->node) return NULL;
    size_t on_node = 0;
    for (size_t i = 0; i < f->nranks; i++) on_node += f->node[i] == f->node[r];
    const char *link = mcf_test_key(&t->id, "link"), *scope = mcf_test_key(&t->id, "scope");
    int node_scope = !scope || strcmp(scope, "job");
    int peer = link && !strcmp(link, "peer"), coll = link && !strcmp(link, "collective");
    if (link && !strcmp(link, "network") && f->nnodes < 2) return "the job has one node";
    if ((peer || (coll && node_scope)) && on_node < 2) return "the rank is alone on its node";
    if (coll && !node_scope && f->nranks < 2) return "the job has one rank";
    return NULL;
}

/* A GPU's cause from a test's status: a wrong result, a runtime error, a
 * hang, or (in an acceptance deck) a test the device cannot run. A stop's
 * statuses (not run, cut) make the run incomplete, not the GPU bad. */
static void status_cause(struct fleet *f, const char *test, size_t r, long long status,
                         const char *why)
{
    struct mcf_cause c = {
        .rank = r, .level = MCF_V_FAIL, .value = NAN, .reference = NAN, .deviation = NAN
    };
    snprintf(c.test, sizeof c.test, "%s", test);
    switch (status) {
    case MCF_STATUS_WRONG:
        c.rule = MCF_RULE_VERIFY;
        c.severity = 1e6;
        snprintf(c.text, sizeof c.text, "%s: FAILED VERIFICATION%s%.240s", test, why[0] ? ": " : "",
                 why);
        break;
    case MCF_STATUS_ERROR:
    case MCF_STATUS_HUNG:
        c.rule = MCF_RULE_STATUS;
        c.severity = 1e5;
        snprintf(c.text, sizeof c.text, "%s: %s%s%.240s", test,
                 status == MCF_STATUS_HUNG ? "HUNG" : "runtime error", why[0] ? ": " : "", why);
        break;
    case MCF_STATUS_UNSUPPORTED:
        if (f->acceptance != 1 || absent_link(f, test, r)) return;
        c.rule = MCF_RULE_UNSUPPORTED;
        c.severity = 1e4;
        snprintf(c.text, sizeof c.text,
                 "%s: unsupported on %.40s in an acceptance deck: the deck is wrong for this "
                 "device (%.160s)",
                 test, mcf_strs_at(&f->arch, r), why[0] ? why : "no reason recorded");
        break;
    default: return;
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
        if (!count[c]++) first[c] = r;
        status_cause(f, test, r, status[r], mcf_strs_at(message, r));
    }
    for (int c = 0; c < C_VERIFIED; c++) {
        const char *why = count[c] ? mcf_strs_at(message, first[c]) : "";
        if (count[c])
            append(f, &f->problems, "  %s: %s on %zu of %zu ranks (rank %zu%s%.400s%s)\n", test,
                   cat_what[c], count[c], f->nranks, first[c], why[0] ? ": " : "", why,
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
    if (mcf_rd_rows_open(&f->rd, g, gname, name, f->nranks, 1, 1, &m) <= 0) return NULL;
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
    int named =
        mcf_rd_strings(&f->rd, g, gname, "test_power_ratio_source", f->nranks, &ev->ratio_src) > 0;
    for (size_t r = 0; r < f->nranks; r++) {
        if (isnan(q[r])) continue;
        if (!(q[r] > 0 && q[r] <= 1e6)) {
            mcf_rd_name(obj, sizeof obj, gname, "test_power_ratio");
            mcf_rd_bad(&f->rd, obj, "rank %zu: %g is not a ratio of two powers", r, q[r]);
            return;
        }
        if (!named || !mcf_strs_at(&ev->ratio_src, r)[0]) {
            mcf_rd_name(obj, sizeof obj, gname, "test_power_ratio_source");
            mcf_rd_bad(&f->rd, obj, "%s where rank %zu has a ratio", named ? "empty" : "missing",
                       r);
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
    if (!any) return;
    if (ev.col[EV_POWER_RATIO]) check_power_ratio(f, g, gname, &ev);
    if (f->nev == f->capev) {
        size_t cap = f->capev ? 2 * f->capev : 32;
        struct evidence *v = realloc(f->ev, cap * sizeof *v);
        if (!v) {
            f->oom = 1;
            for (int k = 0; k < NEV; k++) free(ev.col[k]);
            mcf_strs_free(&ev.ratio_src);
            return;
        }
        f->ev = v;
        f->capev = cap;
    }
    snprintf(ev.test, sizeof ev.test, "%s", test);
    f->ev[f->nev++] = ev;
}

static void least_sum(const double *row, size_t rank, size_t cols, void *ctx)
{
    (void)rank;
    double sum = 0, *least = ctx;
    for (size_t k = 0; k < cols; k++) sum += isfinite(row[k]) ? row[k] : 0;
    if (!(sum >= *least)) *least = sum;
}

/* The fewest new power readings any rank's test had, over all its
 * repetitions (/results/T/power_samples); NaN where not recorded. A
 * whole-test power that rests on fewer than 3 is a reading from before or
 * after the test as much as of it. */
static double power_readings(struct fleet *f, hid_t g, const char *gname)
{
    double least = NAN;
    if (H5Lexists(g, "power_samples", H5P_DEFAULT) <= 0 ||
        each_row(f, g, gname, "power_samples", least_sum, &least) <= 0)
        return NAN;
    return least;
}

void mcf_report_test(struct fleet *f, hid_t results, const char *name)
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
    mcf_missing(f, src, mcf_rd_name(obj, sizeof obj, gname, "status"));
    for (size_t r = 0; status && r < f->nranks; r++)
        if (category(status[r]) < 0) {
            mcf_rd_bad(&f->rd, obj, "rank %zu: %lld is not a status (-5..1)", r, status[r]);
            free(status);
            status = NULL;
        }
    mcf_missing(f, mcf_rd_strings(&f->rd, g, gname, "message", f->nranks, &message),
                mcf_rd_name(obj, sizeof obj, gname, "message"));
    int nverified = 0;
    for (size_t r = 0; status && r < f->nranks; r++) nverified += status[r] == MCF_STATUS_VERIFIED;

    struct test_facts *facts = mcf_facts_add(f, test);
    if (facts && f->schema) {
        size_t len0 = f->rd.len;
        mcf_test_identity_read(&f->rd, f->schema, g, gname, &facts->id);
        mcf_schema_note(f->schema, &f->rd, len0);
    }
    const char *attr = "summary_metrics";
    int rc = mcf_rd_attr_text(&f->rd, g, gname, attr, &metrics);
    if (rc == 0) rc = mcf_rd_attr_text(&f->rd, g, gname, attr = "metrics", &metrics);
    if (rc == 0 && nverified)
        mcf_rd_bad(&f->rd, gname, "attributes summary_metrics and metrics: missing");
    if (rc > 0) report_metrics(f, g, gname, test, metrics, attr, status, nverified, 1);
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
    if (facts) {
        facts->power_readings = power_readings(f, g, gname);
        mcf_links_read(f, g, gname, test, &facts->id);
    }
    if (status)
        report_status(f, test, status, &message);
    else
        append(f, &f->problems, "  %s: status %s (the file is malformed)\n", test,
               src == 0 ? "missing" : "invalid");
done:
    free(metrics);
    free(status);
    mcf_strs_free(&message);
    free(test);
    if (g >= 0) H5Gclose(g);
}

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

void mcf_names_free(struct names *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* The tests in the order they ran (creation order), or by name where the
 * group does not track it. */
void mcf_list_tests(struct fleet *f, hid_t results, struct names *l)
{
    char why[200];
    if (H5Literate(results, H5_INDEX_CRT_ORDER, H5_ITER_INC, NULL, collect, l) >= 0) goto check;
    H5Eclear2(H5E_DEFAULT);
    if (!l->oom) {
        mcf_names_free(l);
        if (H5Literate(results, H5_INDEX_NAME, H5_ITER_INC, NULL, collect, l) >= 0) goto check;
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
    long long ntests; /* newer files say how many there are */
    if (!l->overflow && mcf_rd_attr_int(&f->rd, results, "/results", "ntests", &ntests) > 0 &&
        ntests != (long long)l->n)
        mcf_rd_bad(&f->rd, "/results attribute ntests", "%lld, but /results holds %zu tests",
                   ntests, l->n);
}

/* Sets bit i of a bitmap; returns whether it was set before. */