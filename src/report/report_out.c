/* The report's three forms, from the same figures and causes: text for a
 * person (the verdict first, the flagged GPUs worst first with identity and
 * evidence, then the figures), JSON and CSV with one entry per GPU for
 * pandas, Grafana or ReFrame. Every string from the file was cleaned of
 * control characters when read; JSON and CSV quote what they must. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcfleet.h"
#include "report_int.h"
#include "report_links.h"
#include "stats.h"
#include "text_safe.h"

const char *mcf_str_at(const struct mcf_strs *s, size_t r)
{
    return s->buf ? mcf_strs_at(s, r) : "";
}

long long mcf_int_at(const long long *v, size_t r)
{
    return v ? v[r] : -1;
}

/* NVML's clock-event (throttle) reasons, nvml.h's nvmlClocksEventReason* bits. */
static const char *throttle_words(uint64_t m, char *buf, size_t len)
{
    static const struct {
        uint64_t bit;
        const char *word;
    } bits[] = {
        { 0x1, "GPU idle" },
        { 0x2, "application clocks setting" },
        { 0x4, "software power cap" },
        { 0x8, "hardware slowdown" },
        { 0x10, "sync boost" },
        { 0x20, "software thermal slowdown" },
        { 0x40, "hardware thermal slowdown" },
        { 0x80, "hardware power brake" },
        { 0x100, "display clock setting" },
    };
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        if (m & bits[i].bit) {
            int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", bits[i].word);
            if (n < 0 || (size_t)n >= len - used) break;
            used += (size_t)n;
            m &= ~bits[i].bit;
        }
    if (m && used + 24 < len)
        snprintf(buf + used, len - used, "%sbits 0x%" PRIx64, used ? ", " : "", m);
    if (!buf[0]) snprintf(buf, len, "none");
    return buf;
}

const struct evidence *mcf_evidence_of(const struct fleet *f, const char *test)
{
    for (size_t i = 0; i < f->nev; i++)
        if (!strcmp(f->ev[i].test, test)) return &f->ev[i];
    return NULL;
}

const struct fig *mcf_fig_of(const struct fleet *f, const char *test, const char *metric)
{
    for (size_t i = 0; i < f->nfigs; i++)
        if (!strcmp(f->figs[i].test, test) && !strcmp(f->figs[i].metric, metric))
            return &f->figs[i];
    return NULL;
}

/* The worst peer or profile cause of a row: the test whose evidence is shown. */
const struct mcf_cause *mcf_worst_figure_cause(const struct fleet *f, size_t r)
{
    const struct mcf_cause *w = NULL;
    for (size_t k = 0; k < f->causes.n; k++) {
        const struct mcf_cause *c = &f->causes.v[k];
        if (c->rank == r && c->test[0] && c->level > MCF_V_PASS &&
            (!w || c->severity > w->severity))
            w = c;
    }
    return w;
}

/* "kernel clock 1620 MHz (fleet 1980); NVML clock ...; throttle: ...; temperature ...; power ..."
 */
void mcf_evidence_text(const struct fleet *f, size_t r, const char *test, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int n_ = snprintf(buf + used, len - used, __VA_ARGS__);                                    \
        if (n_ > 0 && (size_t)n_ < len - used) used += (size_t)n_;                                 \
    } while (0)
    const struct evidence *ev = mcf_evidence_of(f, test);
    /* mcfleet's own ranks on that GPU are among them: any more is another job
     * on it, the first thing to read (the cause is then the environment's) */
    double others = mcf_foreign_procs(f, r, test);
    if (others > 0)
        PUT("ANOTHER JOB ON THE GPU: %.0f compute process%s not mcfleet's (%.0f in all; fleet "
            "median %.0f)",
            others, others == 1 ? "" : "es", ev->col[EV_PROCS][r],
            mcf_median(ev->col[EV_PROCS], f->nranks));
    const struct fig *clk = mcf_fig_of(f, test, "clock_mhz");
    if (clk && isfinite(clk->med[r]))
        PUT("%skernel clock %.0f MHz (fleet median %.0f)", used ? "; " : "", clk->med[r],
            mcf_median(clk->med, f->nranks));
    if (ev && ev->col[EV_SM_MHZ] && isfinite(ev->col[EV_SM_MHZ][r]))
        PUT("%sSMI/NVML clock %.0f MHz (fleet median %.0f)", used ? "; " : "",
            ev->col[EV_SM_MHZ][r], mcf_median(ev->col[EV_SM_MHZ], f->nranks));
    if (ev && ev->col[EV_THROTTLE] && isfinite(ev->col[EV_THROTTLE][r]) &&
        ev->col[EV_THROTTLE][r] >= 0) {
        char words[256];
        PUT("%sthrottle: %s", used ? "; " : "",
            throttle_words((uint64_t)ev->col[EV_THROTTLE][r], words, sizeof words));
    }
    if (ev && ev->col[EV_TEMP] && isfinite(ev->col[EV_TEMP][r]))
        PUT("%stemperature max %.0f C (fleet median %.0f)", used ? "; " : "", ev->col[EV_TEMP][r],
            mcf_median(ev->col[EV_TEMP], f->nranks));
    if (ev && ev->col[EV_POWER] && isfinite(ev->col[EV_POWER][r]))
        PUT("%spower %.0f W (fleet median %.0f)", used ? "; " : "", ev->col[EV_POWER][r],
            mcf_median(ev->col[EV_POWER], f->nranks));
    if (!(others > 0) && ev && ev->col[EV_PROCS] && isfinite(ev->col[EV_PROCS][r]))
        PUT("%scompute processes on the GPU: %.0f, none not mcfleet's (fleet median %.0f)",
            used ? "; " : "", ev->col[EV_PROCS][r], mcf_median(ev->col[EV_PROCS], f->nranks));
    if (f->local && f->local[r] >= 0)
        PUT("%scores local to the GPU: %s", used ? "; " : "", f->local[r] ? "yes" : "NO (binding)");
    if (f->oversubscribed_nodes > 0)
        PUT("%s%lld node%s oversubscribed (ranks > CPUs)", used ? "; " : "",
            f->oversubscribed_nodes, f->oversubscribed_nodes == 1 ? "" : "s");
#undef PUT
}

/* A sustained test's figures at the limit: the fleet's spread of each is the
 * variability where GPUs of one SKU differ most. */
int mcf_is_sustained(const struct fig *g)
{
    return !strncmp(g->metric, "sustained_", 10);
}

void mcf_sustained_spread(const struct fleet *f, const struct fig *g, double *med, double *lo,
                          double *hi, double *spread)
{
    *med = mcf_median(g->med, f->nranks);
    *lo = mcf_min(g->med, f->nranks);
    *hi = mcf_max(g->med, f->nranks);
    *spread = *med != 0 ? (*hi - *lo) / fabs(*med) : NAN;
}

static void print_sustained(const struct fleet *f, FILE *out)
{
    int header = 0;
    for (size_t k = 0; k < f->nfigs; k++) {
        const struct fig *g = &f->figs[k];
        double med, lo, hi, spread;
        if (!mcf_is_sustained(g)) continue;
        if (!header++)
            fprintf(out,
                    "\nSustained at the limit (the fleet's spread: (max - min) / median):\n%-52s "
                    "%-9s %9s %11s %11s "
                    "%11s %8s\n",
                    "test figure (per GPU)", "unit", "GPUs", "median", "min", "max", "spread %");
        mcf_sustained_spread(f, g, &med, &lo, &hi, &spread);
        char name[200];
        snprintf(name, sizeof name, "%s %s", g->test, g->metric);
        fprintf(out, "%-52s %-9.24s %4zu/%-4zu %11.5g %11.5g %11.5g %8.2f\n", name, g->unit,
                mcf_count_finite(g->med, f->nranks), f->nranks, med, lo, hi, 100 * spread);
    }
}

/* ---- text */

static const char *const attr_tag[MCF_ATTR_COUNT] = { "", " [node-wide]", " [environment]",
                                                      " [the deck]" };

/* A cause's tag after its text: whose it is, and for the environment why. */
const char *mcf_cause_tag(const struct mcf_cause *c)
{
    if (c->attr == MCF_ATTR_ENV)
        return c->env == MCF_ENV_OVERSUBSCRIBED
            ? " [environment: ranks share CPU cores, a FAIL shown as WARN]"
            : c->env == MCF_ENV_HOST
            ? " [environment: host ranks share the machine, a FAIL shown as WARN]"
            : " [environment: another job on the GPU]";
    return attr_tag[c->attr];
}

static void print_identity(const struct fleet *f, size_t r, FILE *out)
{
    const char *slurm = mcf_str_at(&f->slurm_name, r);
    static const char *const whose[MCF_ATTR_COUNT] = { "", " (its node's)", " (the environment's)",
                                                       " (the deck's)" };
    fprintf(out, "  %-4s%s rank %zu", mcf_vlevel_names[f->roll.gpu[r]], whose[f->roll.attr[r]], r);
    if (f->world_rank) fprintf(out, " (world %lld)", f->world_rank[r]);
    fprintf(out, "  host %.100s", mcf_str_at(&f->host, r));
    if (slurm[0] && strcmp(slurm, mcf_str_at(&f->host, r)))
        fprintf(out, " (Slurm node %.100s)", slurm);
    fprintf(out, "  node %lld  local rank %lld  device %lld\n", mcf_int_at(f->node, r),
            mcf_int_at(f->local_rank, r), mcf_int_at(f->device_index, r));
    fprintf(out, "       %.100s  uuid %.100s  serial %.64s  pci %.40s\n", mcf_str_at(&f->device, r),
            mcf_str_at(&f->uuid, r)[0] ? mcf_str_at(&f->uuid, r) : "?",
            mcf_str_at(&f->serial, r)[0] ? mcf_str_at(&f->serial, r) : "?",
            mcf_str_at(&f->pci, r)[0] ? mcf_str_at(&f->pci, r) : "?");
}

#define CAUSES_SHOWN 6 /* per GPU in text; JSON and CSV have them all */

/* Worst first: the level, then the severity. */
static int cause_order(const void *a, const void *b)
{
    const struct mcf_cause *x = *(const struct mcf_cause *const *)a,
                           *y = *(const struct mcf_cause *const *)b;
    if (x->level != y->level) return x->level > y->level ? -1 : 1;
    return (x->severity < y->severity) - (x->severity > y->severity);
}

/* Rank r's flagged causes, worst first, in a fresh array (*n of them; NULL
 * with *n 0 where it has none or memory ran out): one order for the text,
 * the JSON and the page built on it. */
const struct mcf_cause **mcf_row_causes(const struct fleet *f, size_t r, size_t *n)
{
    const struct mcf_cause **v = NULL;
    size_t m = 0;
    *n = 0;
    for (size_t k = 0; k < f->causes.n; k++)
        m += f->causes.v[k].rank == r && f->causes.v[k].level > MCF_V_PASS;
    if (!m || !(v = malloc(m * sizeof *v))) return NULL;
    for (size_t k = 0; k < f->causes.n; k++)
        if (f->causes.v[k].rank == r && f->causes.v[k].level > MCF_V_PASS)
            v[(*n)++] = &f->causes.v[k];
    qsort(v, *n, sizeof *v, cause_order);
    return v;
}

size_t mcf_row_next_steps(const struct fleet *f, size_t r, const struct mcf_cause *const *v,
                          size_t all, const char *next[MCF_NEXT_STEPS], const char **caveat)
{
    size_t n = 0;
    *caveat = NULL;
    for (size_t k = 0; k < all && n < MCF_NEXT_STEPS; k++) {
        const char *step = mcf_cause_next(v[k]);
        int seen = 0;
        for (size_t j = 0; j < n && !seen; j++) seen = next[j] == step;
        if (!seen) next[n++] = step;
    }
    /* a figure another job would lower (a suspect one is too high for that) */
    const struct mcf_cause *c = all ? v[0] : NULL;
    if (c && mcf_rule_judges_figure(c->rule) && c->rule != MCF_RULE_SUSPECT &&
        c->attr == MCF_ATTR_GPU && !mcf_host_row(f, r) && isnan(mcf_foreign_procs(f, r, c->test)))
        *caveat = "the file has no process records of this test (a build without them, or a "
                  "source that reads none): another job on the GPU cannot be ruled out; rerun it "
                  "exclusive before returning the GPU";
    return n;
}

/* A row's causes, worst first, the first few in full. */
static void print_causes(const struct fleet *f, size_t r, FILE *out)
{
    size_t all, n[3] = { 0 }, nfig = 0;
    double worst_dev = 0;
    const struct mcf_cause **v = mcf_row_causes(f, r, &all);
    for (size_t k = 0; k < all; k++) {
        const struct mcf_cause *c = v[k];
        n[c->level]++;
        if (isfinite(c->deviation) && (c->rule == MCF_RULE_FLEET || c->rule == MCF_RULE_NODE)) {
            nfig++;
            if (fabs(c->deviation) > fabs(worst_dev)) worst_dev = c->deviation;
        }
        if (k < CAUSES_SHOWN)
            fprintf(out, "       - %s %s: %s%s\n", mcf_vlevel_names[c->level],
                    mcf_rule_names[c->rule], c->text, mcf_cause_tag(c));
    }
    if (all > CAUSES_SHOWN)
        fprintf(out,
                "       ... %zu more (%zu causes in all: %zu FAIL, %zu WARN; %zu on peer figures, "
                "worst %+.1f%%; "
                "--format json lists them)\n",
                all - CAUSES_SHOWN, all, n[MCF_V_FAIL], n[MCF_V_WARN], nfig, 100 * worst_dev);
    const char *next[MCF_NEXT_STEPS], *caveat;
    size_t nn = mcf_row_next_steps(f, r, v, all, next, &caveat);
    free(v);
    for (size_t k = 0; k < nn; k++) fprintf(out, "       %s %s\n", k ? "then:" : "next:", next[k]);
    if (caveat) fprintf(out, "       note: %s\n", caveat);
}

static void print_flagged(const struct fleet *f, FILE *out)
{
    const struct mcf_rollup *ro = &f->roll;
    if (!ro->norder) {
        fprintf(out, "\nNo GPU flagged.\n");
        return;
    }
    size_t shown = f->opts->max_rows > 0 && (size_t)f->opts->max_rows < ro->norder
        ? (size_t)f->opts->max_rows
        : ro->norder;
    fprintf(out, "\nFlagged GPUs, worst first (%zu of %zu):\n", ro->norder, f->nranks);
    for (size_t i = 0; i < shown; i++) {
        size_t r = ro->order[i];
        print_identity(f, r, out);
        print_causes(f, r, out);
        const struct mcf_cause *w = mcf_worst_figure_cause(f, r);
        char ev[1024];
        mcf_evidence_text(f, r, w ? w->test : "", ev, sizeof ev);
        if (ev[0])
            fprintf(out, "       evidence%s%s%s: %s\n", w ? " (" : "", w ? w->test : "",
                    w ? ")" : "", ev);
    }
    if (shown < ro->norder)
        fprintf(out,
                "  ... %zu more (--rows 0 lists them all; --format csv gives one row per GPU)\n",
                ro->norder - shown);
}

/* Nodes with a figure on which every GPU was flagged: the node, not a GPU.
 * One line per node: how many figures, the first few. */
static void print_nodes(const struct fleet *f, FILE *out)
{
    if (!f->node) return;
    int header = 0;
    for (size_t k = 0; k < f->roll.nnodes; k++) {
        size_t nfig = 0, first_row = f->nranks;
        char some[400] = "";
        for (size_t c = 0; c < f->causes.n; c++) {
            const struct mcf_cause *x = &f->causes.v[c];
            if (x->attr != MCF_ATTR_NODE || (size_t)f->node[x->rank] != k) continue;
            if (first_row == f->nranks) first_row = x->rank;
            if (x->rank != first_row)
                continue; /* the node's first flagged row stands for all: the figures are the same
                           */
            if (nfig++ < 3) {
                size_t used = strlen(some);
                snprintf(some + used, sizeof some - used, "%s%s %s", used ? ", " : "", x->test,
                         x->metric);
            }
        }
        if (!nfig) continue;
        if (!header++)
            fprintf(out,
                    "\nNodes attributed (every GPU of the node flagged on the same figures: look "
                    "at the node "
                    "- power, cooling, CPU binding - before its GPUs):\n");
        fprintf(out, "  node %zu (%.100s): %zu figure%s, e.g. %s\n", k,
                mcf_str_at(&f->host, first_row), nfig, nfig == 1 ? "" : "s", some);
    }
}

static void print_rules(const struct fleet *f, FILE *out)
{
    const struct mcf_vrules *r = &f->opts->rules;
    fprintf(out,
            "  rules: a figure worse than its reference by more than max(%.1f%%, z x spread) "
            "warns, by more than "
            "max(%.1f%%, ...) fails;\n         reference: the median of its SKU, and the best GPU "
            "of its node; "
            "z = %.2f for %zu GPUs (docs/acceptance.md)\n",
            100 * r->warn_rel, 100 * r->fail_rel, mcf_peer_z(r, f->nranks), f->nranks);
    if (f->nranks < r->prior_n)
        fprintf(out,
                "         spread: below %zu GPUs of a SKU too few to measure; the prior %.0f%% "
                "stands for it "
                "(%s)\n",
                r->prior_n,
                100 * (f->nranks && mcf_host_row(f, 0) ? r->host_prior_rel : r->prior_rel),
                f->nranks && mcf_host_row(f, 0) ? "host ranks sharing CPU cores"
                                                : "healthy GPUs of one SKU, measured");
}

/* The run: its file, version, ranks, deck and what was injected. */
static void print_run(const struct fleet *f, const char *path, FILE *out)
{
    /* the file's name is text from a shared folder too: a newline in it must
     * not start a line of its own (the output pass keeps the program's) */
    char *shown = strdup(path);
    if (shown) mcf_text_clean(shown, "");
    fprintf(out, "\nmcfleet results: %s%s\n", shown ? shown : "?",
            f->complete == 1 ? "" : "  ** INCOMPLETE RUN **");
    free(shown);
    fprintf(out, "  mcfleet %.100s, backend %.100s, %zu rank%s on %lld node%s, started %.100s\n",
            f->version ? f->version : "?", f->backend ? f->backend : "?", f->nranks,
            f->nranks == 1 ? "" : "s", f->nnodes, f->nnodes == 1 ? "" : "s",
            f->start ? f->start : "?");
    fprintf(out, "  deck: %.300s%s%.100s%s\n", f->deck ? f->deck : "?",
            f->acceptance == 1 ? " (acceptance deck for " : "",
            f->acceptance == 1 && f->deck_arch ? f->deck_arch : "", f->acceptance == 1 ? ")" : "");
    if (f->injected && f->injected[0])
        fprintf(out, "  FAULT INJECTED FOR TESTING: %.300s\n", f->injected);
    if (f->injected_slow && f->injected_slow[0])
        fprintf(out, "  SLOWDOWN INJECTED FOR TESTING: %.300s\n", f->injected_slow);
}

/* What else the reader must know: binding, power, tests not verified or
 * not run, the file's problems. */
static void print_notes(const struct fleet *f, FILE *out)
{
    int far = 0;
    for (size_t r = 0; f->local && r < f->nranks; r++)
        if (f->local[r] == 0) {
            if (!far++) fprintf(out, "\nBinding: ranks whose cores are not local to their GPU:\n");
            fprintf(out, "  rank %zu (%.200s, %.200s)\n", r, mcf_str_at(&f->host, r),
                    mcf_str_at(&f->device, r));
        }
    if (f->notes.buf)
        fprintf(out, "\nUnder-sampled power (per-repetition figures in the file are flagged):\n%s",
                f->notes.buf);
    if (f->problems.buf) fprintf(out, "\nNot verified:\n%s", f->problems.buf);
    if (f->listed_not_run)
        fprintf(out, "\nTests not run (the run was stopped): %zu listed in /meta\n",
                f->listed_not_run);
    fprintf(out,
            "\n%d tests: %d verified on every rank, %d unsupported, %d failed verification, %d "
            "with errors",
            f->tests, f->verified_all, f->unsupported, f->wrong, f->errors);
    if (f->hung) fprintf(out, ", %d with hung ranks", f->hung);
    if (f->cut) fprintf(out, ", %d cut short", f->cut);
    if (f->not_run) fprintf(out, ", %d not run (the run was stopped)", f->not_run);
    fprintf(out, "\n");
    if (f->rd.problems)
        fprintf(out, "\nThe file is malformed (%d problem%s):\n%s", f->rd.problems,
                f->rd.problems == 1 ? "" : "s", f->rd.list ? f->rd.list : "");
}

static void print_text(struct fleet *f, const struct world *w, const char *path, FILE *out)
{
    print_run(f, path, out);
    const struct mcf_rollup *ro = &f->roll;
    fprintf(out, "\nVERDICT: %s (exit %d)", f->verdict, f->exit_code);
    if (ro->gpu)
        fprintf(out, "  GPUs: %zu PASS, %zu WARN, %zu FAIL; nodes: %zu PASS, %zu WARN, %zu FAIL",
                ro->count[0], ro->count[1], ro->count[2], ro->node_count[0], ro->node_count[1],
                ro->node_count[2]);
    fprintf(out, "\n");
    if (f->reasons.buf)
        for (char *save = NULL, *l = strtok_r(f->reasons.buf, "\n", &save); l;
             l = strtok_r(NULL, "\n", &save))
            fprintf(out, "  %s\n", l);
    if (f->profiles.buf)
        for (char *save = NULL, *l = strtok_r(f->profiles.buf, "\n", &save); l;
             l = strtok_r(NULL, "\n", &save))
            fprintf(out, "  %s\n", l);
    if (ro->gpu) {
        print_rules(f, out);
        print_flagged(f, out);
        print_nodes(f, out);
    }
    if (w->nhung) {
        fprintf(out,
                "\nHUNG: %zu of %lld ranks launched did not answer (watchdog); FAIL each; they "
                "have no rows:\n",
                w->nhung, w->size);
        for (size_t i = 0; i < w->nhung; i++)
            fprintf(out,
                    "  world rank %lld: host %.200s, device %.200s (%.200s), pci %.100s, missed "
                    "%.200s\n",
                    w->rank[i], mcf_strs_at(&w->host, i), mcf_strs_at(&w->uuid, i),
                    mcf_strs_at(&w->device, i), mcf_strs_at(&w->pci, i), mcf_strs_at(&w->test, i));
    }

    if (f->profile_table.buf)
        fprintf(out,
                "\nSKU profile figures beside the measured (the fleet's median of each GPU's "
                "median):\n%s",
                f->profile_table.buf);
    fprintf(out, "\n%-52s %-9s %9s %11s %11s %11s %7s\n", "test metric (per-rank medians)", "unit",
            "ranks", "median", "min", "max", "CV %");
    fprintf(out, "%s", f->table.buf ? f->table.buf : "");
    struct lines sparse = { 0 };
    mcf_report_sparse(f, &sparse);
    if (sparse.buf)
        fprintf(out,
                "\n2:4 sparse beside dense (dense-equivalent GFLOP/s, fleet medians; 2x is the "
                "vendors' claim):\n"
                "  %-36s %11s  %-36s %11s  %6s\n%s",
                "sparse test", "GFLOP/s", "dense test", "GFLOP/s", "ratio", sparse.buf);
    free(sparse.buf);
    print_sustained(f, out);
    mcf_links_print_text(f, out);
    print_notes(f, out);
    fprintf(out, "verdict: %s (exit %d)\n", f->verdict, f->exit_code);
}

/* out through mcf_text_write: valid UTF-8, nothing a terminal would obey,
 * even where a "%.200s" cut a string from the file inside a character */
void mcf_report_print_text(struct fleet *f, const struct world *w, const char *path, FILE *out)
{
    struct mcf_text_out t;
    print_text(f, w, path, mcf_text_begin(&t, out));
    mcf_text_end(&t);
}

/* ---- JSON */
