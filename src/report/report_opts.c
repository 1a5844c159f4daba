#include "report_opts.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void mcf_report_opts_default(struct mcf_report_opts *o)
{
    *o = (struct mcf_report_opts){ .format = MCF_FORMAT_TEXT, .max_rows = 50 };
    mcf_vrules_default(&o->rules);
}

void mcf_report_usage(FILE *out)
{
    fprintf(out,
            "Usage: mcfleet report FILE.h5 [OPTIONS]\n"
            "\n"
            "Judges a results file: PASS, WARN or FAIL per GPU, per node and for the fleet,\n"
            "the flagged GPUs worst first with their identity (host, UUID, serial, PCI bus)\n"
            "and the evidence for the cause, then every test's figures. The verdict comes\n"
            "from the file alone: an old file gives the same answer. docs/acceptance.md.\n"
            "\n"
            "Options:\n"
            "  --format text|json|csv  text (default); json: one object, the verdict and one\n"
            "                       entry per GPU; csv: one row per GPU (verdict, causes,\n"
            "                       identity, every figure), for pandas, Grafana or ReFrame\n"
            "  --format links-csv   one row per link of the transfer tests: each cell of a\n"
            "                       node's peer matrix, each rank's network rounds\n"
            "  --format tests-json  each test as the file's schema reads it (its keys, its\n"
            "                       metrics' directions) and each GPU's tests shared with\n"
            "                       another job: what compare, baseline and study read\n"
            "  --profiles DIR       SKU profiles (*.yaml: expected figures and floors per\n"
            "                       test; default $MCFLEET_PROFILES, else the installed ones)\n"
            "  --no-profiles        the peer verdict alone\n"
            "  --warn PCT           warn when a GPU's figure is more than PCT %% worse than\n"
            "                       its reference (default 3.5; never below the fleet's own\n"
            "                       spread times a factor that grows with the fleet's size)\n"
            "  --fail PCT           fail beyond PCT %% (default 7, or twice --warn when --warn\n"
            "                       alone is above 7; at least --warn). Where the spread\n"
            "                       raises the warn threshold, the fail threshold rises by\n"
            "                       the same factor; each flagged figure prints both\n"
            "  --rows N             flagged GPUs listed in text (default 50; 0: all)\n"
            "  --html OUT.html      the same verdict as one self-contained page with its plots\n"
            "                       (distributions with the thresholds, a node x GPU heatmap of\n"
            "                       --metric TEST[:METRIC], power against throughput, the\n"
            "                       roofline), readable offline; needs a python3 with h5py,\n"
            "                       numpy and matplotlib: $MCFLEET_PYTHON, else the first\n"
            "                       that has them of configure's PYTHON_H5, /usr/bin/python3\n"
            "                       and the python3s on PATH (analysis/mcfleet_html.py).\n"
            "                       OUT.html is a new path, or with --force an existing\n"
            "                       regular file; never a symlink, FIFO or device (exit 2)\n"
            "  --force              with --html: replace an existing OUT.html\n"
            "  --history OLD.h5 ... with --html: each GPU's drift against these earlier runs\n"
            "                       of it (oldest first), matched by UUID or serial, by\n"
            "                       mcfleet compare's rule; the exit code stays the verdict's\n"
            "  -h, --help           this text\n"
            "\n"
            "Exit codes: 0 PASS or WARN; 1 FAIL (a GPU failed a rule, a kernel a\n"
            "verification); 2 not a readable mcfleet file, or a bad option; 3 the run is\n"
            "incomplete (stopped, hung ranks, runtime errors). Where several apply: 2, 3, 1.\n"
            "\n"
            "Example:\n"
            "  mcfleet report run.h5\n"
            "  mcfleet report run.h5 --format csv > gpus.csv\n"
            "  mcfleet report run.h5 --html run.html --history last-month.h5 last-week.h5\n");
}

/* A percentage in (0, 100). */
static int percent(const char *opt, const char *arg, double *out, struct mcf_err *e)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || (*end && strcmp(end, "%")) || !isfinite(v) || v <= 0 || v >= 100)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "%s: '%s' is not a percentage between 0 and 100 (e.g. 3.5)", opt, arg);
    *out = v / 100.0;
    return MCF_OK;
}

static int parse_format(const char *arg, struct mcf_report_opts *o, struct mcf_err *e)
{
    if (!strcmp(arg, "text"))
        o->format = MCF_FORMAT_TEXT;
    else if (!strcmp(arg, "json"))
        o->format = MCF_FORMAT_JSON;
    else if (!strcmp(arg, "csv"))
        o->format = MCF_FORMAT_CSV;
    else if (!strcmp(arg, "links-csv"))
        o->format = MCF_FORMAT_LINKS_CSV;
    else if (!strcmp(arg, "tests-json"))
        o->format = MCF_FORMAT_TESTS;
    else
        return mcf_err_set(
            e, MCF_EINPUT, __FILE__, __LINE__,
            "--format: unknown format '%s' (text, json, csv, links-csv or tests-json)", arg);
    return MCF_OK;
}

static int parse_rows(const char *arg, struct mcf_report_opts *o, struct mcf_err *e)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end || v < 0 || v > 100000000)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "--rows: '%s' is not a row count (0 for all)", arg);
    o->max_rows = v;
    return MCF_OK;
}

int mcf_report_opts_parse(int argc, char **argv, struct mcf_report_opts *o, const char **file,
                          int *help, struct mcf_err *e)
{
    enum { OPT_FORMAT = 256, OPT_PROFILES, OPT_NO_PROFILES, OPT_WARN, OPT_FAIL, OPT_ROWS };
    static const struct option longopts[] = {
        { "format", required_argument, NULL, OPT_FORMAT },
        { "profiles", required_argument, NULL, OPT_PROFILES },
        { "no-profiles", no_argument, NULL, OPT_NO_PROFILES },
        { "warn", required_argument, NULL, OPT_WARN },
        { "fail", required_argument, NULL, OPT_FAIL },
        { "rows", required_argument, NULL, OPT_ROWS },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c, warn_set = 0, fail_set = 0;
    *file = NULL;
    *help = 0;
    optind = 0; /* GNU: a full re-initialisation (a run's parse may have used getopt) */
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1 || optind < argc) {
        if (c == -1) { /* an operand: the file (one), then options may follow it */
            if (*file)
                return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                                   "report: one results file at a time ('%s' and '%s')", *file,
                                   argv[optind]);
            *file = argv[optind++];
            continue;
        }
        switch (c) {
        case OPT_FORMAT:
            if (parse_format(optarg, o, e)) return e->rc;
            break;
        case OPT_PROFILES:
            if (!optarg[0])
                return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                                   "--profiles: empty directory name");
            o->profiles = optarg;
            break;
        case OPT_NO_PROFILES: o->no_profiles = 1; break;
        case OPT_WARN:
            if (percent("--warn", optarg, &o->rules.warn_rel, e)) return e->rc;
            warn_set = 1;
            break;
        case OPT_FAIL:
            if (percent("--fail", optarg, &o->rules.fail_rel, e)) return e->rc;
            fail_set = 1;
            break;
        case OPT_ROWS:
            if (parse_rows(optarg, o, e)) return e->rc;
            break;
        case 'h': *help = 1; return MCF_OK;
        case ':':
            return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                               "report: option '%s' needs a value", argv[optind - 1]);
        default:
            return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                               "report: unknown option '%s' (mcfleet report --help)",
                               argv[optind - 1]);
        }
    }
    if (!*file)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "usage: mcfleet report FILE.h5 [OPTIONS] (--help)");
    if (o->no_profiles && o->profiles)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "--profiles %s and --no-profiles: one or the other", o->profiles);
    if (o->rules.fail_rel < o->rules.warn_rel) {
        if (fail_set || !warn_set)
            return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                               "--fail %.4g%% is below --warn %.4g%%", 100 * o->rules.fail_rel,
                               100 * o->rules.warn_rel);
        o->rules.fail_rel = 2 * o->rules.warn_rel; /* --warn alone above the default fail */
    }
    return MCF_OK;
}
