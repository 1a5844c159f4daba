/* What the report read from a results file, shared by its three steps:
 * report.c reads (every object checked, report_read.h), report_judge.c
 * applies the verdict's rules (verdict.h), report_out.c prints text, JSON or
 * CSV. Internal to the report. */
#ifndef MCF_REPORT_INT_H
#define MCF_REPORT_INT_H

#include <stdio.h>

#include "error.h"
#include "report_opts.h"
#include "report_read.h"
#include "report_schema.h"
#include "verdict.h"

struct lines { /* text collected, printed later */
    char *buf;
    size_t len;
};
void mcf_lines_add(struct lines *l, int *oom, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define append(f, l, ...) mcf_lines_add((l), &(f)->oom, __VA_ARGS__)

/* Ranks launched that did not answer (the watchdog): /meta world_size and
 * hung_ranks, /ranks/world_rank and /hung. Older files have none of these. */
struct world {
    long long size; /* ranks launched (nranks when not recorded) */
    size_t nhung;
    long long *rank; /* /hung/world_rank */
    struct mcf_strs host, uuid, pci, device, test;
};

/* One figure per rank that the peer rules judge: a summary metric with a
 * direction, the rank's median over its repetitions. */
struct fig {
    char test[128], metric[64], unit[32];
    int better; /* the dataset's attribute better (mcf_legacy_better in older files) */
    double *med; /* [nranks], NaN where the rank has no figure */
    double rep_rel; /* the quietest rank's repetition spread: 1.4826 MAD / |median| (NaN: none) */
};

/* Per test, what a technician reads beside a flag (NULL where not in the file). */
enum { EV_SM_MHZ, EV_TEMP, EV_THROTTLE, EV_POWER, EV_CLOCK_RATIO, EV_PROCS, EV_POWER_RATIO, NEV };
extern const char *const mcf_ev_names[NEV];
struct evidence {
    char test[128];
    double *col[NEV]; /* [nranks] */
    struct mcf_strs ratio_src; /* the source of EV_POWER_RATIO per rank (test_power_ratio_source) */
};

/* What the verdict needs to know of a test beyond its figures. */
#define MCF_FACT_METRICS 64
struct test_facts {
    char test[128];
    struct mcf_test_identity
        id; /* its kernel, keys and measured text (report_schema.h); "" unknown */
    /* the direction of each metric the report read, as the file says it (or
     * report_legacy.c for files older than the attribute better) */
    struct {
        char name[64];
        int better;
    } metric[MCF_FACT_METRICS];
    int nmetrics;
    double
        power_readings; /* the fewest new power readings a rank's test had in all (NaN: unknown) */
};

#define MCF_NHEALTH 24
struct fleet {
    struct mcf_rd rd;
    const struct mcf_report_opts *opts;
    size_t nranks;
    int complete;
    /* /ranks: identity */
    struct mcf_strs host, device, arch, uuid, pci, serial, slurm_name;
    struct mcf_strs
        primary_source; /* /power/primary_source: the per-test figures' source per rank */
    long long *node, *local_rank, *device_index, *world_rank,
        *local; /* local: cores_local_to_gpu */
    long long *compute_units;
    long long nnodes, oversubscribed_nodes, crowded_nodes, acceptance;
    long long quick; /* /meta quick: 1 for a --quick run (small sizes: no profile floors) */
    char *version, *backend, *start, *deck, *deck_arch, *injected, *injected_slow;
    char *cut_test, *stop_reason, *rebuilt_from; /* how a stopped run ended (newer files) */
    int tests, verified_all, unsupported, wrong, errors, not_run, hung, cut;
    size_t listed_not_run; /* /meta tests_not_run entries */
    int oom;
    struct lines table, problems, notes;
    struct fig *figs;
    size_t nfigs, capfigs;
    struct evidence *ev;
    size_t nev, capev;
    struct test_facts *facts;
    size_t nfacts, capfacts;
    struct mcf_schema *schema; /* the file's families (report_schema.h) */
    /* /health: [nranks, 2] before/after, and the busy link readings; NULL where absent */
    long long *health[MCF_NHEALTH];
    long long *gen_busy, *width_busy;
    struct mcf_strs health_source;
    struct mcf_causes causes;
    struct mcf_rollup roll;
    struct lines reasons; /* why the fleet verdict is what it is, one line each */
    struct lines profiles; /* which profile each SKU got, or why none */
    struct lines
        profile_table; /* per SKU with a profile: its figures beside the measured medians */
    int exit_code; /* enum mcf_exit */
    const char *verdict; /* PASS, WARN, FAIL, INCOMPLETE, MALFORMED */
    struct mcf_links *links; /* the transfer tests' links (report_links.h); NULL: none */
};

/* report_measured.c: a test's facts, made while reading (NULL: out of
 * memory), and found by name (NULL where the file does not have the test). */
struct test_facts *mcf_facts_add(struct fleet *f, const char *test);
/* Each 2:4 sparse matrix test beside its dense twin, a line each
 * (report_sparse.c); nothing where the file has no such pair. */
void mcf_report_sparse(struct fleet *f, struct lines *out);
const struct test_facts *mcf_facts_of(const struct fleet *f, const char *test);
/* The facts being made for test (the last added), NULL where they are not its. */
struct test_facts *mcf_facts_last(struct fleet *f, const char *test);

/* A test's evidence columns and a test's figure by name (NULL: not in the file). */
const struct evidence *mcf_evidence_of(const struct fleet *f, const char *test);
const struct fig *mcf_fig_of(const struct fleet *f, const char *test, const char *metric);

/* 1 where row r is a host-backend rank (a CPU): /meta/backend, or its arch
 * where the backend is not recorded. */
int mcf_host_row(const struct fleet *f, size_t r);
/* How many of the run's ranks share row r's GPU (its node and device index):
 * 1 unless oversubscribed. */
size_t mcf_ranks_on_gpu(const struct fleet *f, size_t r);
/* Compute processes on row r's GPU during test that are not mcfleet's (the
 * test's process count less mcf_ranks_on_gpu); NaN where not recorded. */
double mcf_foreign_procs(const struct fleet *f, size_t r, const char *test);

/* report.c: an object the file must have and lacks (rc 0 from a reader) is a problem. */
void mcf_missing(struct fleet *f, int rc, const char *obj);

/* report_test.c: the names of /results' groups in creation order, and one
 * test read into f (its figures, causes, evidence and facts). */
struct names {
    char **v;
    size_t n, cap;
    int overflow, oom;
};
void mcf_list_tests(struct fleet *f, hid_t results, struct names *l);
void mcf_names_free(struct names *l);
void mcf_report_test(struct fleet *f, hid_t results, const char *name);

/* report_out.c, shared with report_json.c: a row's string ("" where none)
 * and number (-1), the worst cause with a figure, the evidence sentence of
 * a test, a row's flagged causes worst first (a fresh array), a cause's tag. */
const char *mcf_str_at(const struct mcf_strs *s, size_t r);
long long mcf_int_at(const long long *v, size_t r);
const struct mcf_cause *mcf_worst_figure_cause(const struct fleet *f, size_t r);
void mcf_evidence_text(const struct fleet *f, size_t r, const char *test, char *buf, size_t len);
const struct mcf_cause **mcf_row_causes(const struct fleet *f, size_t r, size_t *n);
/* Rank r's next steps from its causes v (all of them, worst first:
 * mcf_row_causes), in order: the first thing to do (the worst cause's),
 * then the others' (each once, at most MCF_NEXT_STEPS); *caveat: what the
 * file cannot rule out about the worst figure (no process records: another
 * job on the GPU), else NULL. The text, the JSON and the page say these. */
#define MCF_NEXT_STEPS 3
size_t mcf_row_next_steps(const struct fleet *f, size_t r, const struct mcf_cause *const *v,
                          size_t all, const char *next[MCF_NEXT_STEPS], const char **caveat);
const char *mcf_cause_tag(const struct mcf_cause *c);
/* A sustained test's figure at the limit, and its fleet median, 5 and 95 %
 * points and relative spread. */
int mcf_is_sustained(const struct fig *g);
void mcf_sustained_spread(const struct fleet *f, const struct fig *g, double *med, double *lo,
                          double *hi, double *spread);

/* report_json.c: a JSON string or number (null where not finite), a CSV text cell */
void mcf_json_str(FILE *out, const char *s);
void mcf_json_num(FILE *out, double v);
void mcf_csv_str(FILE *out, const char *s);

/* report_judge.c: a cause of row into f->causes (its deviation from value
 * and reference), its text from fmt. */
void mcf_cause_add(struct fleet *f, size_t row, int rule, int level, const char *test,
                   const char *metric, double value, double reference, double severity,
                   const char *fmt, ...) __attribute__((format(printf, 10, 11)));
/* report_peers.c: the peer rules on one figure over the rows of one SKU
 * (-1 out of memory); 1 where a per-joule figure's test had too few power
 * readings to be judged. */
int mcf_judge_peers(struct fleet *f, const struct fig *g, const size_t *rows, size_t n);
/* report_links_health.c: the links between GPUs (NVLink, xGMI) of row r, from /health. */
void mcf_judge_links_health(struct fleet *f, size_t r);
#define MIN_POWER_READINGS 3
int mcf_power_too_short(const struct fleet *f, const struct fig *g);

/* report_judge.c: every rule, into f->causes and f->roll; MCF_EINPUT where a
 * SKU profile is malformed. */
int mcf_report_judge(struct fleet *f, struct mcf_err *e);
/* report_out.c */
void mcf_report_print_text(struct fleet *f, const struct world *w, const char *path, FILE *out);
void mcf_report_print_json(struct fleet *f, const struct world *w, const char *path, FILE *out);
/* --format tests-json: the JSON's "tests" and each GPU's rank and "environment" */
void mcf_report_print_tests(struct fleet *f, const char *path, FILE *out);
void mcf_report_print_csv(struct fleet *f, const struct world *w, FILE *out);
/* --format json where the file could not be judged at all: one object with the
 * verdict (MALFORMED or ERROR), the exit code and why, so a script's JSON
 * parser never meets an empty output. */
void mcf_report_print_json_error(const char *path, int code, const char *why, FILE *out);

#endif
