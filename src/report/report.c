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
#include "report_links.h"
#include "report_read.h"
#include "results.h"
#include "stats.h"
#include "health.h"

void mcf_lines_add(struct lines *l, int *oom, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return;
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

void mcf_missing(struct fleet *f, int rc, const char *obj)
{
    if (rc == 0) mcf_rd_bad(&f->rd, obj, "missing");
}

static int mark(unsigned char *bits, long long i)
{
    int was = bits[i / 8] >> (i % 8) & 1;
    bits[i / 8] |= (unsigned char)(1u << (i % 8));
    return was;
}

/* world_size, hung_ranks, /ranks/world_rank and /hung, checked against each other. */
/* /hung's ranks (world ranks of their own: seen marks them) and what the
 * watchdog recorded of each. 0: read; -1: a problem, reported. */
static int read_hung(struct fleet *f, hid_t hung, struct world *w, unsigned char *seen)
{
    size_t n = 0;
    int rc = mcf_rd_ints(&f->rd, hung, "/hung", "world_rank", MCF_RD_ANY, &w->rank, &n);
    mcf_missing(f, rc, "/hung/world_rank");
    if (rc <= 0) return -1;
    for (size_t i = 0; i < n; i++)
        if (w->rank[i] < 0 || w->rank[i] >= w->size || mark(seen, w->rank[i])) {
            mcf_rd_bad(&f->rd, "/hung/world_rank",
                       "entry %zu: %lld is not a world rank of its own (world_size %lld)", i,
                       w->rank[i], w->size);
            return -1;
        }
    struct {
        const char *name;
        struct mcf_strs *s;
    } str[] = { { "hostname", &w->host },
                { "device_uuid", &w->uuid },
                { "pci_bus_id", &w->pci },
                { "device_name", &w->device },
                { "test", &w->test } };
    for (size_t i = 0; i < sizeof str / sizeof str[0]; i++) {
        char obj[64];
        mcf_missing(f, mcf_rd_strings(&f->rd, hung, "/hung", str[i].name, n, str[i].s),
                    mcf_rd_name(obj, sizeof obj, "/hung", str[i].name));
    }
    w->nhung = n;
    return 0;
}

/* /meta hung_ranks: the first hung ranks, then "..." where the list would
 * be long; each must be one of /hung's (in_list marks those listed). */
static void check_hung_list(struct fleet *f, struct world *w, char *listed, unsigned char *in_list)
{
    size_t count = 0;
    int truncated = 0;
    for (char *save = NULL, *t = strtok_r(listed, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        if (truncated) { /* "..." ends the list */
            mcf_rd_bad(&f->rd, "/meta attribute hung_ranks", "ranks listed after '...'");
            return;
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
            return;
        }
        if (++count > w->nhung || mark(in_list, v)) break;
    }
    size_t both = 0;
    for (size_t i = 0; i < w->nhung; i++) both += in_list[w->rank[i] / 8] >> (w->rank[i] % 8) & 1;
    if (count > w->nhung || both != count || (!truncated && count != w->nhung))
        mcf_rd_bad(&f->rd, "/meta attribute hung_ranks",
                   "does not list the %zu ranks of /hung/world_rank", w->nhung);
}

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
        mcf_rd_bad(&f->rd, "/meta attribute world_size",
                   "%lld ranks launched, but nranks is %zu (at most %d)", w->size, f->nranks,
                   MCF_RD_MAX_RANKS);
        return;
    }
    if (!(seen = calloc((size_t)w->size / 8 + 1, 1)) ||
        !(in_list = calloc((size_t)w->size / 8 + 1, 1))) {
        f->oom = 1;
        goto done;
    }
    if (ranks >= 0 &&
        mcf_rd_ints(&f->rd, ranks, "/ranks", "world_rank", f->nranks, &world_rank, NULL) > 0)
        for (size_t r = 0; r < f->nranks; r++)
            if (world_rank[r] < 0 || world_rank[r] >= w->size || mark(seen, world_rank[r])) {
                mcf_rd_bad(&f->rd, "/ranks/world_rank",
                           "row %zu: %lld is not a world rank of its own (world_size %lld)", r,
                           world_rank[r], w->size);
                break;
            }
    rc = mcf_rd_open(&f->rd, file, "", "hung", H5I_GROUP, &hung);
    if (rc > 0) {
        if (read_hung(f, hung, w, seen) < 0) goto done;
    }
    if (rc == 0 && w->size > (long long)f->nranks) {
        mcf_rd_bad(&f->rd, "/hung", "missing, but /meta world_size %lld is more than nranks %zu",
                   w->size, f->nranks);
        goto done;
    }
    if ((long long)(f->nranks + w->nhung) != w->size) {
        mcf_rd_bad(&f->rd, "/meta attribute world_size",
                   "%lld ranks launched, but %zu answered and %zu hung", w->size, f->nranks,
                   w->nhung);
        goto done;
    }
    long long nhung = 0;
    if (mcf_rd_attr_int(&f->rd, meta, "/meta", "nhung", &nhung) > 0 && nhung != (long long)w->nhung)
        mcf_rd_bad(&f->rd, "/meta attribute nhung", "%lld, but /hung lists %zu ranks", nhung,
                   w->nhung);
    /* the first ranks, then ",..." where the list would be long: all of them are in /hung */
    rc = mcf_rd_attr_text(&f->rd, meta, "/meta", "hung_ranks", &listed);
    if (rc == 0 && w->nhung)
        mcf_rd_bad(&f->rd, "/meta attribute hung_ranks", "missing, but /hung lists %zu ranks",
                   w->nhung);
    if (rc > 0) {
        check_hung_list(f, w, listed, in_list);
    }
done:
    free(listed);
    free(world_rank);
    free(seen);
    free(in_list);
    if (hung >= 0) H5Gclose(hung);
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
            for (size_t k = 0; k < s.n; k++) n += mcf_strs_at(&s, k)[0] != '\0';
        if (n > f->listed_not_run) f->listed_not_run = n;
        mcf_strs_free(&s);
    }
}

/* An optional [nranks] string dataset of /ranks (older files lack some). */
static void optional_strings(struct fleet *f, hid_t ranks, const char *name, struct mcf_strs *s)
{
    if (mcf_rd_strings(&f->rd, ranks, "/ranks", name, f->nranks, s) > 0)
        for (size_t r = 0; r < s->n; r++) mcf_rd_clean(s->buf + r * s->stride);
}

/* An optional [nranks] integer dataset of /ranks, each value in [lo, hi]. */
static void optional_ints(struct fleet *f, hid_t ranks, const char *name, long long lo,
                          long long hi, long long **v)
{
    char obj[128];
    if (mcf_rd_ints(&f->rd, ranks, "/ranks", name, f->nranks, v, NULL) <= 0) return;
    for (size_t r = 0; r < f->nranks; r++)
        if ((*v)[r] < lo || (*v)[r] > hi) {
            mcf_rd_bad(&f->rd, mcf_rd_name(obj, sizeof obj, "/ranks", name),
                       "row %zu: %lld is not in %lld..%lld", r, (*v)[r], lo, hi);
            free(*v);
            *v = NULL;
            return;
        }
}

/* /ranks: each row's identity (what a technician needs to find the GPU), its
 * node, the binding check. */
static void read_ranks(struct fleet *f, hid_t ranks)
{
    mcf_missing(f, mcf_rd_strings(&f->rd, ranks, "/ranks", "hostname", f->nranks, &f->host),
                "/ranks/hostname");
    mcf_missing(f, mcf_rd_strings(&f->rd, ranks, "/ranks", "device_name", f->nranks, &f->device),
                "/ranks/device_name");
    mcf_missing(f, mcf_rd_ints(&f->rd, ranks, "/ranks", "node", f->nranks, &f->node, NULL),
                "/ranks/node");
    for (size_t r = 0; f->node && r < f->nranks; r++)
        if (f->node[r] < 0 || f->node[r] >= (long long)f->nranks) {
            mcf_rd_bad(&f->rd, "/ranks/node", "row %zu: %lld is not a node index (0..nranks-1)", r,
                       f->node[r]);
            free(f->node);
            f->node = NULL;
        }
    for (size_t r = 0; r < f->host.n; r++) mcf_rd_clean(f->host.buf + r * f->host.stride);
    for (size_t r = 0; r < f->device.n; r++) mcf_rd_clean(f->device.buf + r * f->device.stride);
    optional_strings(f, ranks, "device_arch", &f->arch);
    optional_strings(f, ranks, "device_uuid", &f->uuid);
    optional_strings(f, ranks, "pci_bus_id", &f->pci);
    optional_strings(f, ranks, "device_serial", &f->serial);
    optional_strings(f, ranks, "slurm_nodename", &f->slurm_name);
    optional_ints(f, ranks, "local_rank", 0, (long long)f->nranks - 1, &f->local_rank);
    optional_ints(f, ranks, "device", 0, 1 << 20, &f->device_index);
    mcf_rd_ints(&f->rd, ranks, "/ranks", "world_rank", f->nranks, &f->world_rank,
                NULL); /* read_world checks it */
    optional_ints(f, ranks, "compute_units", 0, 1 << 24, &f->compute_units);
    mcf_rd_ints(&f->rd, ranks, "/ranks", "cores_local_to_gpu", f->nranks, &f->local, NULL);
    for (size_t r = 0; f->local && r < f->nranks; r++)
        if (f->local[r] < -1 || f->local[r] > 1) {
            mcf_rd_bad(&f->rd, "/ranks/cores_local_to_gpu", "row %zu: %lld is not -1, 0 or 1", r,
                       f->local[r]);
            free(f->local);
            f->local = NULL;
        }
}

/* /health (newer files, docs/results-format.md): the counters before and
 * after the run, [nranks, 2]; the link at work, [nranks]. */
static void read_health(struct fleet *f, hid_t file)
{
    hid_t h = H5I_INVALID_HID;
    if (mcf_rd_open(&f->rd, file, "", "health", H5I_GROUP, &h) <= 0) return;
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
    if (mcf_rd_open(&f->rd, file, "", "power", H5I_GROUP, &p) <= 0) return;
    mcf_rd_strings(&f->rd, p, "/power", "primary_source", f->nranks,
                   &f->primary_source); /* cleaned as read */
    H5Gclose(p);
}

/* The fleet verdict and exit code: a malformed file (2), an incomplete run
 * (3), a FAIL (1), else PASS or WARN (0). */
static void conclude(struct fleet *f, const struct world *w)
{
    if (f->rd.problems) {
        f->verdict = "MALFORMED";
        f->exit_code = MCF_EXIT_USAGE;
        append(f, &f->reasons, "the file is malformed (%d problem%s)\n", f->rd.problems,
               f->rd.problems == 1 ? "" : "s");
        return;
    }
    if (f->complete != 1 || f->not_run || f->listed_not_run || f->hung || w->nhung || f->cut ||
        f->errors) {
        f->verdict = "INCOMPLETE";
        f->exit_code = MCF_EXIT_RUNTIME;
        if (f->complete != 1)
            append(f, &f->reasons, "the run was stopped (complete = 0)%s%s\n",
                   f->stop_reason && *f->stop_reason ? ": " : "",
                   f->stop_reason ? f->stop_reason : "");
        if (f->cut_test && *f->cut_test)
            append(f, &f->reasons, "the test in hand when it stopped: %s\n", f->cut_test);
        if (f->rebuilt_from && *f->rebuilt_from)
            append(f, &f->reasons,
                   "rebuilt from the journal %s: the finished tests only, without power and "
                   "health (computed at a run's end)\n",
                   f->rebuilt_from);
        if (f->not_run || f->listed_not_run)
            append(f, &f->reasons, "tests not run: %zu\n",
                   f->listed_not_run > (size_t)f->not_run ? f->listed_not_run : (size_t)f->not_run);
        if (f->hung || w->nhung)
            append(f, &f->reasons,
                   "hung ranks: %zu without rows (/hung), %d test%s with status HUNG\n", w->nhung,
                   f->hung, f->hung == 1 ? "" : "s");
        if (f->cut) append(f, &f->reasons, "repetitions cut short\n");
        if (f->errors)
            append(f, &f->reasons, "runtime errors on %d test%s\n", f->errors,
                   f->errors == 1 ? "" : "s");
        return;
    }
    f->verdict = mcf_vlevel_names[f->roll.fleet];
    f->exit_code = f->roll.fleet == MCF_V_FAIL ? MCF_EXIT_VERIFY : MCF_EXIT_OK;
}

/* /meta's facts of the run beyond its size: complete, the backend, the
 * deck and what was injected, how a stopped run ended, its nodes. */
static void read_meta(struct fleet *f, hid_t meta)
{
    long long complete = -1;
    int rc = mcf_rd_attr_int(&f->rd, meta, "/meta", "complete", &complete);
    mcf_missing(f, rc, "/meta attribute complete");
    if (rc > 0 && complete != 0 && complete != 1)
        mcf_rd_bad(&f->rd, "/meta attribute complete", "%lld is neither 0 nor 1", complete);
    else if (rc > 0)
        f->complete = (int)complete;
    mcf_rd_attr_text(&f->rd, meta, "/meta", "backend", &f->backend);
    mcf_rd_attr_text(&f->rd, meta, "/meta", "start_time", &f->start);
    mcf_rd_attr_text(&f->rd, meta, "/meta", "deck_path", &f->deck);
    mcf_rd_attr_text(&f->rd, meta, "/meta", "injected", &f->injected);
    if (H5Aexists(meta, "injected_slow") > 0) /* newer files */
        mcf_rd_attr_text(&f->rd, meta, "/meta", "injected_slow", &f->injected_slow);
    mcf_rd_attr_text(&f->rd, meta, "/meta", "deck_arch", &f->deck_arch);
    mcf_rd_attr_text(&f->rd, meta, "/meta", "cut_test", &f->cut_test);
    mcf_rd_attr_text(&f->rd, meta, "/meta", "stop_reason", &f->stop_reason);
    mcf_rd_attr_text(&f->rd, meta, "/meta", "rebuilt_from", &f->rebuilt_from);
    mcf_rd_attr_int(&f->rd, meta, "/meta", "nnodes", &f->nnodes);
    mcf_rd_attr_int(&f->rd, meta, "/meta", "oversubscribed_nodes", &f->oversubscribed_nodes);
    if (H5Aexists(meta, "crowded_nodes") > 0) /* newer files */
        mcf_rd_attr_int(&f->rd, meta, "/meta", "crowded_nodes", &f->crowded_nodes);
    if (mcf_rd_attr_int(&f->rd, meta, "/meta", "acceptance", &f->acceptance) > 0 &&
        f->acceptance != 0 && f->acceptance != 1)
        mcf_rd_bad(&f->rd, "/meta attribute acceptance", "%lld is neither 0 nor 1", f->acceptance);
    if (mcf_rd_attr_int(&f->rd, meta, "/meta", "quick", &f->quick) > 0 && f->quick != 0 &&
        f->quick != 1)
        mcf_rd_bad(&f->rd, "/meta attribute quick", "%lld is neither 0 nor 1", f->quick);
    read_not_run(f, meta);
}

static void fleet_free(struct fleet *f)
{
    struct mcf_strs *strs[] = { &f->host,       &f->device,        &f->arch,
                                &f->uuid,       &f->pci,           &f->serial,
                                &f->slurm_name, &f->health_source, &f->primary_source };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) mcf_strs_free(strs[i]);
    long long *ints[] = { f->node,       f->compute_units, f->local_rank, f->device_index,
                          f->world_rank, f->local,         f->gen_busy,   f->width_busy };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) free(ints[i]);
    for (int c = 0; c < MCF_NHEALTH; c++) free(f->health[c]);
    for (size_t i = 0; i < f->nfigs; i++) free(f->figs[i].med);
    free(f->figs);
    for (size_t i = 0; i < f->nev; i++)
        for (int k = 0; k < NEV; k++) free(f->ev[i].col[k]);
    for (size_t i = 0; i < f->nev; i++) mcf_strs_free(&f->ev[i].ratio_src);
    free(f->ev);
    free(f->facts);
    free(f->schema);
    struct lines *ls[] = { &f->table,   &f->problems, &f->notes,
                           &f->reasons, &f->profiles, &f->profile_table };
    for (size_t i = 0; i < sizeof ls / sizeof ls[0]; i++) free(ls[i]->buf);
    mcf_causes_free(&f->causes);
    mcf_links_free(f);
    mcf_rollup_free(&f->roll);
    mcf_rd_free(&f->rd);
    char *texts2[] = {
        f->version,       f->backend,   f->start,    f->deck,        f->injected,
        f->injected_slow, f->deck_arch, f->cut_test, f->stop_reason, f->rebuilt_from
    };
    for (size_t i = 0; i < sizeof texts2 / sizeof texts2[0]; i++) free(texts2[i]);
}

/* The results file, opened read-only: a regular file (open(2) of a FIFO
 * waits for a writer), as HDF5. */
static int open_file(const char *path, hid_t *file, struct mcf_err *e)
{
    struct stat st;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (stat(path, &st) != 0)
        MCF_FAIL(e, MCF_EINPUT, "report: cannot open '%s': %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        MCF_FAIL(e, MCF_EINPUT, "report: '%s' is not a regular file (%s)", path,
                 S_ISDIR(st.st_mode)        ? "a directory"
                     : S_ISFIFO(st.st_mode) ? "a FIFO"
                                            : "a device or socket");
    if ((*file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
        char why[200];
        mcf_rd_h5why(why, sizeof why);
        MCF_FAIL(e, MCF_EINPUT, "report: cannot open '%s' as an HDF5 file: %s", path, why);
    }
    return MCF_OK;
fail:
    return e->rc;
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
    hid_t file = H5I_INVALID_HID, meta = H5I_INVALID_HID, ranks = H5I_INVALID_HID,
          results = H5I_INVALID_HID;
    long long nranks = 0;
    int code = MCF_EXIT_USAGE, printed = 0;
    f.rd.path = path;
    MCF_TRY(open_file(path, &file, e));
    mcf_missing(&f, mcf_rd_open(&f.rd, file, "", "meta", H5I_GROUP, &meta), "/meta");
    if (meta >= 0)
        mcf_missing(&f, mcf_rd_open(&f.rd, file, "", "results", H5I_GROUP, &results), "/results");
    if (meta >= 0 && results >= 0) {
        mcf_missing(&f, mcf_rd_attr_text(&f.rd, meta, "/meta", "mcfleet_version", &f.version),
                    "/meta attribute mcfleet_version");
        mcf_missing(&f, mcf_rd_attr_int(&f.rd, meta, "/meta", "nranks", &nranks),
                    "/meta attribute nranks");
    }
    if (f.rd.problems)
        MCF_FAIL(e, MCF_EINPUT, "report: '%s' is not an mcfleet results file: %s", path,
                 f.rd.first);
    if (nranks < 1 || nranks > MCF_RD_MAX_RANKS)
        MCF_FAIL(
            e, MCF_EINPUT,
            "report: '%s' is malformed: /meta attribute nranks: %lld is not a rank count (1..%d)",
            path, nranks, MCF_RD_MAX_RANKS);
    f.nranks = (size_t)nranks;
    read_meta(&f, meta);
    mcf_missing(&f, mcf_rd_open(&f.rd, file, "", "ranks", H5I_GROUP, &ranks), "/ranks");
    if (ranks >= 0) read_ranks(&f, ranks);
    read_world(&f, file, meta, ranks, &w);
    read_health(&f, file);
    read_primary_source(&f, file);
    char *texts[] = { f.version,       f.backend,   f.start,    f.deck,        f.injected,
                      f.injected_slow, f.deck_arch, f.cut_test, f.stop_reason, f.rebuilt_from };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (texts[i]) mcf_rd_clean(texts[i]);
    if ((f.schema = malloc(sizeof *f.schema)))
        mcf_schema_read(&f.rd, file, f.schema);
    else
        f.oom = 1;
    mcf_list_tests(&f, results, &tests);
    for (size_t i = 0; i < tests.n && !f.oom && !f.rd.oom; i++)
        mcf_report_test(&f, results, tests.v[i]);
    if (!f.oom && !f.rd.oom && !f.rd.problems && mcf_report_judge(&f, e) != MCF_OK) goto fail;
    if (f.oom || f.rd.oom || f.causes.oom)
        MCF_FAIL(e, MCF_ERUNTIME, "report: out of memory reading '%s'", path);
    conclude(&f, &w);
    printed = 1;
    switch (opts->format) {
    case MCF_FORMAT_JSON: mcf_report_print_json(&f, &w, path, out); break;
    case MCF_FORMAT_TESTS: mcf_report_print_tests(&f, path, out); break;
    case MCF_FORMAT_CSV:
    case MCF_FORMAT_LINKS_CSV: mcf_report_print_csv(&f, &w, out); break;
    default: mcf_report_print_text(&f, &w, path, out); break;
    }
    code = f.exit_code;
    if (code == MCF_EXIT_USAGE)
        MCF_FAIL(e, MCF_EINPUT, "report: '%s' is malformed: %s%s", path, f.rd.first,
                 f.rd.problems > 1 ? " (and more: see the report)" : "");
fail:
    if (e->rc != MCF_OK) code = mcf_exit_code(e->rc);
    if (!printed && (opts->format == MCF_FORMAT_JSON || opts->format == MCF_FORMAT_TESTS))
        mcf_report_print_json_error(path, code, e->msg, out);
    mcf_names_free(&tests);
    world_free(&w);
    if (results >= 0) H5Gclose(results);
    if (ranks >= 0) H5Gclose(ranks);
    if (meta >= 0) H5Gclose(meta);
    if (file >= 0) H5Fclose(file);
    fleet_free(&f);
    return code;
}

int mcf_report_file(const char *path, FILE *out, struct mcf_err *e)
{
    struct mcf_err mine = { 0 };
    int code = mcf_report(path, NULL, out, &mine);
    if (mine.rc != MCF_OK && e->rc == MCF_OK) *e = mine;
    return code;
}
