#include "report.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mcfleet.h"
#include "report_read.h"
#include "results.h"
#include "stats.h"

#define MAX_METRICS 1024         /* metrics one test may list */
#define MAX_METRIC_NAME 255
#define MAX_TESTS (1 << 20)
#define BLOCK_VALUES (1 << 20)   /* values read at a time from a metric dataset */

struct lines {                   /* text collected, printed after the table */
    char *buf;
    size_t len;
};

/* Ranks launched that did not answer (the watchdog): /meta world_size and
 * hung_ranks, /ranks/world_rank and /hung. Older files have none of these. */
struct world {
    long long size;              /* ranks launched (nranks when not recorded) */
    size_t nhung;
    long long *rank;             /* /hung/world_rank */
    struct mcf_strs host, uuid, pci, device, test;
};

struct fleet {
    struct mcf_rd rd;
    FILE *out;
    size_t nranks;
    int complete;
    struct mcf_strs host, device;
    long long *node;
    int tests, verified_all, unsupported, wrong, errors, not_run, hung, cut;
    size_t listed_not_run;       /* /meta tests_not_run entries */
    int oom;
    struct lines outliers, problems, notes;
};

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

static void append(struct fleet *f, struct lines *l, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(struct fleet *f, struct lines *l, const char *fmt, ...)
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
        f->oom = 1;
        return;
    }
    memcpy(grown + l->len, line, (size_t)n + 1);
    l->buf = grown;
    l->len += (size_t)n;
}

static void missing(struct fleet *f, int rc, const char *obj)
{
    if (rc == 0)
        mcf_rd_bad(&f->rd, obj, "missing");
}

static const char *host_of(const struct fleet *f, size_t r)
{
    return mcf_strs_at(&f->host, r);
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

/* One metric of a test: per-rank medians, the fleet line, the outliers. With
 * CHECK (the test's own metrics), each row must agree with the rank's status
 * (row_problem; STRICT for the summary metrics). */
static void report_metric(struct fleet *f, hid_t g, const char *gname, const char *test, const char *metric,
                          const long long *status, int nverified, int check, int strict)
{
    char obj[512];
    struct mcf_rows m;
    char *unit = NULL;
    double *med = NULL, *buf = NULL;
    int *flag = NULL, flagged = 0;
    mcf_rd_name(obj, sizeof obj, gname, metric);
    int rc = mcf_rd_rows_open(&f->rd, g, gname, metric, f->nranks, !check, !check, &m);
    if (rc == 0 && (nverified > 0 || !check))
        mcf_rd_bad(&f->rd, obj, "missing (listed in %s)", check ? "summary_metrics" : "power_summary");
    if (rc <= 0) {
        if (rc < 0 || nverified > 0 || !check)
            fprintf(f->out, "  %s %s: not read (see the file's problems below)\n", test, metric);
        return;
    }
    if (mcf_rd_attr_text(&f->rd, m.d, obj, "unit", &unit) > 0)
        mcf_rd_clean(unit);
    size_t block = BLOCK_VALUES / m.cols ? BLOCK_VALUES / m.cols : 1;
    if (block > f->nranks)
        block = f->nranks;
    med = malloc(sizeof *med * f->nranks);
    flag = malloc(sizeof *flag * f->nranks);
    buf = malloc(sizeof *buf * block * m.cols);
    if (!med || !flag || !buf) {
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
        }
    }
    double fm = mcf_median(med, f->nranks), cv = mcf_cv(med, f->nranks);
    char name[160];
    snprintf(name, sizeof name, "%s %s", test, metric);
    fprintf(f->out, "%-52s %-9.24s %4zu/%-4zu %11.5g %11.5g %11.5g %7.2f\n", name, unit ? unit : "",
            mcf_count_finite(med, f->nranks), f->nranks, fm, mcf_min(med, f->nranks), mcf_max(med, f->nranks),
            isfinite(cv) ? 100.0 * cv : 0.0);
    double mad = mcf_mad(med, f->nranks);
    if (mcf_outliers(med, f->nranks, MCF_OUTLIER_K, flag))
        for (size_t r = 0; r < f->nranks; r++)
            if (flag[r])
                append(f, &f->outliers,
                       "  %s %s: rank %zu (%.200s, node %lld, %.200s): %.5g %.24s; fleet median %.5g, MAD %.3g\n",
                       test, metric, r, host_of(f, r), f->node ? f->node[r] : -1LL,
                       mcf_strs_at(&f->device, r), med[r], unit ? unit : "", fm, mad);
done:
    free(unit);
    free(med);
    free(flag);
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

/* The verdict of one test from its status and message datasets. */
static void report_status(struct fleet *f, const char *test, const long long *status,
                          const struct mcf_strs *message)
{
    size_t count[NCAT] = { 0 }, first[NCAT] = { 0 };
    for (size_t r = 0; r < f->nranks; r++) {
        int c = category(status[r]);
        if (!count[c]++)
            first[c] = r;
    }
    for (int c = 0; c < C_VERIFIED; c++) {
        const char *why = count[c] ? mcf_strs_at(message, first[c]) : "";
        if (count[c])
            append(f, &f->problems, "  %s: %s on %zu of %zu ranks (rank %zu%s%.400s)\n", test, cat_what[c],
                   count[c], f->nranks, first[c], why[0] ? ": " : "", why);
    }
    f->verified_all += count[C_VERIFIED] == f->nranks;
    f->unsupported += count[C_UNSUPPORTED] == f->nranks;
    f->wrong += count[C_WRONG] > 0;
    f->errors += count[C_ERROR] > 0;
    f->not_run += count[C_NOT_RUN] > 0;
    f->hung += count[C_HUNG] > 0;
    f->cut += count[C_CUT] > 0;
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
    report_under_sampled(f, g, gname, test);
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

/* /ranks: host, device and node of each row, the binding check. */
static void read_ranks(struct fleet *f, hid_t ranks, long long **local)
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
    mcf_rd_ints(&f->rd, ranks, "/ranks", "cores_local_to_gpu", f->nranks, local, NULL);
    for (size_t r = 0; *local && r < f->nranks; r++)
        if ((*local)[r] < -1 || (*local)[r] > 1) {
            mcf_rd_bad(&f->rd, "/ranks/cores_local_to_gpu", "row %zu: %lld is not -1, 0 or 1", r, (*local)[r]);
            free(*local);
            *local = NULL;
        }
}

static void print_tail(struct fleet *f, const struct world *w, const long long *local)
{
    FILE *out = f->out;
    int far = 0;
    for (size_t r = 0; local && r < f->nranks; r++)
        if (local[r] == 0) {
            if (!far++)
                fprintf(out, "\nBinding: ranks whose cores are not local to their GPU:\n");
            fprintf(out, "  rank %zu (%.200s, %.200s)\n", r, host_of(f, r), mcf_strs_at(&f->device, r));
        }
    fprintf(out, "\nOutliers (per-rank median outside median +- %.1f x %.4f x MAD):\n", MCF_OUTLIER_K, MCF_MAD_SCALE);
    fprintf(out, "%s", f->outliers.buf ? f->outliers.buf : "  none\n");
    if (f->notes.buf)
        fprintf(out, "\nUnder-sampled power (per-repetition figures in the file are flagged):\n%s", f->notes.buf);
    if (f->problems.buf)
        fprintf(out, "\nNot verified:\n%s", f->problems.buf);
    if (w->nhung) {
        fprintf(out, "\nHUNG: %zu of %lld ranks launched did not answer (watchdog); they have no rows:\n", w->nhung,
                w->size);
        for (size_t i = 0; i < w->nhung; i++)
            fprintf(out, "  world rank %lld: host %.200s, device %.200s (%.200s), pci %.100s, missed %.200s\n",
                    w->rank[i], mcf_strs_at(&w->host, i), mcf_strs_at(&w->uuid, i), mcf_strs_at(&w->device, i),
                    mcf_strs_at(&w->pci, i), mcf_strs_at(&w->test, i));
    }
    if (f->listed_not_run)
        fprintf(out, "\nTests not run (the run was stopped): %zu listed in /meta\n", f->listed_not_run);
    fprintf(out, "\n%d tests: %d verified on every rank, %d unsupported, %d failed verification, %d with errors",
            f->tests, f->verified_all, f->unsupported, f->wrong, f->errors);
    if (f->hung)
        fprintf(out, ", %d with hung ranks", f->hung);
    if (f->cut)
        fprintf(out, ", %d cut short", f->cut);
    if (f->not_run)
        fprintf(out, ", %d not run (the run was stopped)", f->not_run);
    fprintf(out, "\n");
}

/* The exit code the file deserves, and the line that says why. */
static int verdict(struct fleet *f, const struct world *w)
{
    FILE *out = f->out;
    if (f->rd.problems) {
        fprintf(out, "\nThe file is malformed (%d problem%s):\n%s", f->rd.problems, f->rd.problems == 1 ? "" : "s",
                f->rd.list ? f->rd.list : "");
        fprintf(out, "verdict: malformed results file (exit 2)\n");
        return MCF_EXIT_USAGE;
    }
    if (f->complete != 1 || f->not_run || f->listed_not_run || f->hung || w->nhung || f->cut || f->errors) {
        fprintf(out, "verdict: incomplete run:%s%s%s%s%s (exit 3)\n", f->complete != 1 ? " stopped (complete = 0)" : "",
                f->not_run || f->listed_not_run ? " tests not run" : "", f->hung || w->nhung ? " hung ranks" : "",
                f->cut ? " repetitions cut short" : "", f->errors ? " runtime errors" : "");
        return MCF_EXIT_RUNTIME;
    }
    if (f->wrong) {
        fprintf(out, "verdict: wrong results on some ranks (exit 1)\n");
        return MCF_EXIT_VERIFY;
    }
    fprintf(out, "verdict: complete, every test verified or unsupported (exit 0)\n");
    return MCF_EXIT_OK;
}

int mcf_report(const char *path, FILE *out, struct mcf_err *e)
{
    struct fleet f = { .out = out, .complete = -1 };
    struct world w = { 0 };
    struct names tests = { 0 };
    hid_t file = H5I_INVALID_HID, meta = H5I_INVALID_HID, ranks = H5I_INVALID_HID, results = H5I_INVALID_HID;
    char *version = NULL, *backend = NULL, *start = NULL, *deck = NULL, *injected = NULL;
    long long nranks = 0, nnodes = -1, complete = -1, *local = NULL;
    int code = MCF_EXIT_USAGE;
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
        missing(&f, mcf_rd_attr_text(&f.rd, meta, "/meta", "mcfleet_version", &version),
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
    mcf_rd_attr_text(&f.rd, meta, "/meta", "backend", &backend);
    mcf_rd_attr_text(&f.rd, meta, "/meta", "start_time", &start);
    mcf_rd_attr_text(&f.rd, meta, "/meta", "deck_path", &deck);
    mcf_rd_attr_text(&f.rd, meta, "/meta", "injected", &injected);
    mcf_rd_attr_int(&f.rd, meta, "/meta", "nnodes", &nnodes);
    read_not_run(&f, meta);
    missing(&f, mcf_rd_open(&f.rd, file, "", "ranks", H5I_GROUP, &ranks), "/ranks");
    if (ranks >= 0)
        read_ranks(&f, ranks, &local);
    read_world(&f, file, meta, ranks, &w);
    char *texts[] = { version, backend, start, deck, injected };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (texts[i])
            mcf_rd_clean(texts[i]);

    fprintf(out, "\nmcfleet results: %s%s\n", path, f.complete == 1 ? "" : "  ** INCOMPLETE RUN **");
    fprintf(out, "  mcfleet %.100s, backend %.100s, %zu rank%s on %lld node%s, started %.100s\n",
            version ? version : "?", backend ? backend : "?", f.nranks, f.nranks == 1 ? "" : "s", nnodes,
            nnodes == 1 ? "" : "s", start ? start : "?");
    fprintf(out, "  deck: %.300s\n", deck ? deck : "?");
    if (injected && injected[0])
        fprintf(out, "  FAULT INJECTED FOR TESTING: %.300s\n", injected);
    fprintf(out, "\n%-52s %-9s %9s %11s %11s %11s %7s\n", "test metric (per-rank medians)", "unit", "ranks", "median",
            "min", "max", "CV %");
    list_tests(&f, results, &tests);
    for (size_t i = 0; i < tests.n && !f.oom && !f.rd.oom; i++)
        report_test(&f, results, tests.v[i]);
    print_tail(&f, &w, local);
    if (f.oom || f.rd.oom)
        MCF_FAIL(e, MCF_ERUNTIME, "report: out of memory reading '%s'", path);
    code = verdict(&f, &w);
    if (code == MCF_EXIT_USAGE)
        MCF_FAIL(e, MCF_EINPUT, "report: '%s' is malformed: %s%s", path, f.rd.first,
                 f.rd.problems > 1 ? " (and more: see the report)" : "");
fail:
    if (e->rc != MCF_OK)
        code = mcf_exit_code(e->rc);
    names_free(&tests);
    world_free(&w);
    if (results >= 0) H5Gclose(results);
    if (ranks >= 0) H5Gclose(ranks);
    if (meta >= 0) H5Gclose(meta);
    if (file >= 0) H5Fclose(file);
    mcf_strs_free(&f.host);
    mcf_strs_free(&f.device);
    free(f.node);
    free(local);
    free(f.outliers.buf);
    free(f.problems.buf);
    free(f.notes.buf);
    mcf_rd_free(&f.rd);
    free(version);
    free(backend);
    free(start);
    free(deck);
    free(injected);
    return code;
}

int mcf_report_file(const char *path, FILE *out, struct mcf_err *e)
{
    struct mcf_err mine = { 0 };
    mcf_report(path, out, &mine);
    if (mine.rc != MCF_OK && e->rc == MCF_OK)
        *e = mine;
    return mine.rc;
}
