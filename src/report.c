#include "report.h"

#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "stats.h"

struct fleet {
    hid_t file;
    int nranks;
    char **hostname, **device_name;
    long long *node;
    FILE *out;
    int tests, verified_all, unsupported, wrong, errors, not_run;
    char *outliers;            /* collected lines, printed after the table */
    size_t outliers_len;
    char *problems;
    size_t problems_len;
    char *notes;               /* power windows too short to trust */
    size_t notes_len;
};

static void append(char **buf, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char **buf, size_t *len, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (n >= (int)sizeof line) n = sizeof line - 1;
    char *grown = realloc(*buf, *len + (size_t)n + 1);
    if (!grown) return;
    memcpy(grown + *len, line, (size_t)n + 1);
    *buf = grown;
    *len += (size_t)n;
}

/* A string attribute, fixed or variable length; "" when absent. */
static void attr_str(hid_t obj, const char *name, char *out, size_t len)
{
    out[0] = '\0';
    if (H5Aexists(obj, name) <= 0)
        return;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = H5Aget_type(a);
    if (H5Tis_variable_str(t) > 0) {
        char *v = NULL;
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        if (H5Aread(a, mt, &v) >= 0 && v) snprintf(out, len, "%s", v);
        H5free_memory(v);
        H5Tclose(mt);
    } else {
        size_t size = H5Tget_size(t);
        char *buf = calloc(size + 1, 1);
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, size + 1);
        if (buf && H5Aread(a, mt, buf) >= 0) snprintf(out, len, "%s", buf);
        free(buf);
        H5Tclose(mt);
    }
    H5Tclose(t);
    H5Aclose(a);
}

static long long attr_long(hid_t obj, const char *name, long long fallback)
{
    long long v = fallback;
    if (H5Aexists(obj, name) <= 0)
        return fallback;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (H5Aread(a, H5T_NATIVE_LLONG, &v) < 0) v = fallback;
    H5Aclose(a);
    return v;
}

/* A 1-D fixed-length string dataset as an array of n strings. */
static char **read_strings(hid_t loc, const char *path, int n)
{
    char **v = calloc((size_t)n, sizeof *v);
    hid_t d = H5Dopen2(loc, path, H5P_DEFAULT);
    if (d < 0 || !v) { if (d >= 0) H5Dclose(d); free(v); return NULL; }
    hid_t t = H5Dget_type(d);
    size_t size = H5Tget_size(t);
    char *buf = calloc((size_t)n, size + 1);
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, size + 1);
    if (buf && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)
        for (int i = 0; i < n; i++) v[i] = strdup(buf + (size_t)i * (size + 1));
    for (int i = 0; i < n; i++) if (!v[i]) v[i] = strdup("?");
    free(buf);
    H5Tclose(mt);
    H5Tclose(t);
    H5Dclose(d);
    return v;
}

static void free_strings(char **v, int n)
{
    if (!v) return;
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

static int read_longs(hid_t loc, const char *path, long long *v)
{
    hid_t d = H5Dopen2(loc, path, H5P_DEFAULT);
    if (d < 0) return -1;
    herr_t rc = H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    return rc < 0 ? -1 : 0;
}

static void report_metric(struct fleet *f, hid_t g, const char *test, const char *metric)
{
    hid_t d = H5Dopen2(g, metric, H5P_DEFAULT);
    if (d < 0) {
        fprintf(f->out, "  %-44s (missing dataset)\n", metric);
        return;
    }
    char unit[64];
    attr_str(d, "unit", unit, sizeof unit);
    hid_t s = H5Dget_space(d);
    hsize_t dims[2] = { 0, 1 };
    int nd = H5Sget_simple_extent_dims(s, dims, NULL);
    size_t reps = nd == 2 ? dims[1] : 1, nr = dims[0];
    double *v = malloc(sizeof(double) * nr * reps), *med = malloc(sizeof(double) * nr);
    int *flag = malloc(sizeof(int) * nr);
    if (v && med && flag && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0) {
        for (size_t r = 0; r < nr; r++)
            med[r] = mcf_median(v + r * reps, reps);
        double fm = mcf_median(med, nr), cv = mcf_cv(med, nr);
        char name[160];
        snprintf(name, sizeof name, "%s %s", test, metric);
        fprintf(f->out, "%-52s %-9s %4zu/%-4zu %11.5g %11.5g %11.5g %7.2f\n", name, unit,
                mcf_count_finite(med, nr), nr, fm, mcf_min(med, nr), mcf_max(med, nr),
                isfinite(cv) ? 100.0 * cv : 0.0);
        double mad = mcf_mad(med, nr);
        if (mcf_outliers(med, nr, MCF_OUTLIER_K, flag))
            for (size_t r = 0; r < nr; r++)
                if (flag[r])
                    append(&f->outliers, &f->outliers_len,
                           "  %s %s: rank %zu (%s, node %lld, %s): %.5g %s; fleet median %.5g, MAD %.3g\n",
                           test, metric, r, f->hostname ? f->hostname[r] : "?",
                           f->node ? f->node[r] : -1LL, f->device_name ? f->device_name[r] : "?",
                           med[r], unit, fm, mad);
    }
    free(v);
    free(med);
    free(flag);
    H5Sclose(s);
    H5Dclose(d);
}

static herr_t report_test(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
    struct fleet *f = data;
    (void)info;
    hid_t g = H5Gopen2(group, name, H5P_DEFAULT);
    if (g < 0)
        return 0;
    char metrics[1024];
    attr_str(g, "summary_metrics", metrics, sizeof metrics);
    if (!metrics[0] && H5Aexists(g, "summary_metrics") <= 0)
        attr_str(g, "metrics", metrics, sizeof metrics);
    f->tests++;
    for (char *save = NULL, *m = strtok_r(metrics, ",", &save); m; m = strtok_r(NULL, ",", &save))
        report_metric(f, g, name, m);
    attr_str(g, "power_summary", metrics, sizeof metrics);
    for (char *save = NULL, *m = strtok_r(metrics, ",", &save); m; m = strtok_r(NULL, ",", &save))
        report_metric(f, g, name, m);
    if (H5Lexists(g, "power_under_sampled", H5P_DEFAULT) > 0) {
        hid_t d = H5Dopen2(g, "power_under_sampled", H5P_DEFAULT);
        hid_t sp = H5Dget_space(d);
        hssize_t cnt = H5Sget_simple_extent_npoints(sp);
        double *u = malloc(sizeof(double) * (size_t)(cnt > 0 ? cnt : 1));
        if (u && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, u) >= 0) {
            long n = 0;
            for (hssize_t i = 0; i < cnt; i++) n += u[i] == 1.0;
            if (n)
                append(&f->notes, &f->notes_len,
                       "  %s: %ld of %lld repetition windows shorter than 3 power updates (whole-test power shown)\n",
                       name, n, (long long)cnt);
        }
        free(u);
        H5Sclose(sp);
        H5Dclose(d);
    }

    long long *status = calloc((size_t)f->nranks, sizeof *status);
    char **message = read_strings(g, "message", f->nranks);
    if (status && read_longs(g, "status", status) == 0) {
        int count[5] = { 0 };   /* wrong, unsupported, error, verified, not run */
        int first[5] = { -1, -1, -1, -1, -1 };
        for (int r = 0; r < f->nranks; r++) {
            int c = status[r] == 0 ? 0 : status[r] == -1 ? 1 : status[r] == -2 ? 2 : status[r] == -3 ? 4 : 3;
            if (first[c] < 0) first[c] = r;
            count[c]++;
        }
        static const char *what[3] = { "FAILED VERIFICATION", "unsupported", "ERROR" };
        for (int c = 0; c < 3; c++)
            if (count[c])
                append(&f->problems, &f->problems_len, "  %s: %s on %d of %d ranks (rank %d: %s)\n",
                       name, what[c], count[c], f->nranks, first[c],
                       message ? message[first[c]] : "?");
        if (count[3] == f->nranks) f->verified_all++;
        if (count[0]) f->wrong++;
        if (count[2]) f->errors++;
        if (count[1] == f->nranks) f->unsupported++;
        if (count[4]) {
            f->not_run++;
            append(&f->problems, &f->problems_len, "  %s: NOT RUN (%s)\n", name, message ? message[first[4]] : "?");
        }
    }
    free(status);
    free_strings(message, f->nranks);
    H5Gclose(g);
    return 0;
}

int mcf_report_file(const char *path, FILE *out, struct mcf_err *e)
{
    struct fleet f = { .file = H5I_INVALID_HID, .out = out };
    hid_t meta = H5I_INVALID_HID, results = H5I_INVALID_HID;
    char version[64], backend[64], start[64], deck[512], injected[256];
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    f.file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f.file < 0)
        MCF_FAIL(e, MCF_EINPUT, "report: cannot open '%s' as an HDF5 file", path);
    if (H5Lexists(f.file, "/meta", H5P_DEFAULT) <= 0 || H5Lexists(f.file, "/results", H5P_DEFAULT) <= 0)
        MCF_FAIL(e, MCF_EINPUT, "report: '%s' is not an mcfleet results file (no /meta or /results)", path);
    MCF_H5ID(e, meta, H5Gopen2(f.file, "/meta", H5P_DEFAULT));
    attr_str(meta, "mcfleet_version", version, sizeof version);
    attr_str(meta, "backend", backend, sizeof backend);
    attr_str(meta, "start_time", start, sizeof start);
    attr_str(meta, "deck_path", deck, sizeof deck);
    attr_str(meta, "injected", injected, sizeof injected);
    f.nranks = (int)attr_long(meta, "nranks", 0);
    long long nnodes = attr_long(meta, "nnodes", 0), complete = attr_long(meta, "complete", 0);
    if (f.nranks <= 0)
        MCF_FAIL(e, MCF_EINPUT, "report: '%s' has no /meta nranks", path);
    f.hostname = read_strings(f.file, "/ranks/hostname", f.nranks);
    f.device_name = read_strings(f.file, "/ranks/device_name", f.nranks);
    if ((f.node = calloc((size_t)f.nranks, sizeof *f.node)) && read_longs(f.file, "/ranks/node", f.node) != 0) {
        free(f.node);
        f.node = NULL;
    }

    fprintf(out, "\nmcfleet results: %s%s\n", path, complete ? "" : "  ** INCOMPLETE RUN **");
    fprintf(out, "  mcfleet %s, backend %s, %d rank%s on %lld node%s, started %s\n", version, backend,
            f.nranks, f.nranks == 1 ? "" : "s", nnodes, nnodes == 1 ? "" : "s", start);
    fprintf(out, "  deck: %s\n", deck);
    if (injected[0])
        fprintf(out, "  FAULT INJECTED FOR TESTING: %s\n", injected);
    fprintf(out, "\n%-52s %-9s %9s %11s %11s %11s %7s\n", "test metric (per-rank medians)", "unit",
            "ranks", "median", "min", "max", "CV %");
    MCF_H5ID(e, results, H5Gopen2(f.file, "/results", H5P_DEFAULT));
    MCF_H5(e, H5Literate(results, H5_INDEX_CRT_ORDER, H5_ITER_INC, NULL, report_test, &f));

    {
        long long *local = calloc((size_t)f.nranks, sizeof *local);
        int far = 0;
        if (local && read_longs(f.file, "/ranks/cores_local_to_gpu", local) == 0)
            for (int r = 0; r < f.nranks; r++)
                if (local[r] == 0) {
                    if (!far++) fprintf(out, "\nBinding: ranks whose cores are not local to their GPU:\n");
                    fprintf(out, "  rank %d (%s, %s)\n", r, f.hostname ? f.hostname[r] : "?",
                            f.device_name ? f.device_name[r] : "?");
                }
        free(local);
    }
    fprintf(out, "\nOutliers (per-rank median outside median +- %.1f x %.4f x MAD):\n", MCF_OUTLIER_K,
            MCF_MAD_SCALE);
    fprintf(out, "%s", f.outliers ? f.outliers : "  none\n");
    if (f.notes)
        fprintf(out, "\nUnder-sampled power (per-repetition figures in the file are flagged):\n%s", f.notes);
    if (f.problems)
        fprintf(out, "\nNot verified:\n%s", f.problems);
    fprintf(out, "\n%d tests: %d verified on every rank, %d unsupported, %d failed verification, %d with errors%s",
            f.tests, f.verified_all, f.unsupported, f.wrong, f.errors, f.not_run ? "" : "\n");
    if (f.not_run)
        fprintf(out, ", %d not run (the run was stopped)\n", f.not_run);
fail:
    if (results >= 0) H5Gclose(results);
    if (meta >= 0) H5Gclose(meta);
    if (f.file >= 0) H5Fclose(f.file);
    free_strings(f.hostname, f.nranks);
    free_strings(f.device_name, f.nranks);
    free(f.node);
    free(f.outliers);
    free(f.problems);
    free(f.notes);
    return e->rc;
}
