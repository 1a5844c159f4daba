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
#include "stats.h"

static const char *str_at(const struct mcf_strs *s, size_t r)
{
    return s->buf ? mcf_strs_at(s, r) : "";
}

static long long int_at(const long long *v, size_t r)
{
    return v ? v[r] : -1;
}

/* NVML's clock-event (throttle) reasons, nvml.h's nvmlClocksEventReason* bits. */
static const char *throttle_words(uint64_t m, char *buf, size_t len)
{
    static const struct { uint64_t bit; const char *word; } bits[] = {
        { 0x1, "GPU idle" }, { 0x2, "application clocks setting" }, { 0x4, "software power cap" },
        { 0x8, "hardware slowdown" }, { 0x10, "sync boost" }, { 0x20, "software thermal slowdown" },
        { 0x40, "hardware thermal slowdown" }, { 0x80, "hardware power brake" }, { 0x100, "display clock setting" },
    };
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        if (m & bits[i].bit) {
            int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", bits[i].word);
            if (n < 0 || (size_t)n >= len - used)
                break;
            used += (size_t)n;
            m &= ~bits[i].bit;
        }
    if (m && used + 24 < len)
        snprintf(buf + used, len - used, "%sbits 0x%" PRIx64, used ? ", " : "", m);
    if (!buf[0])
        snprintf(buf, len, "none");
    return buf;
}

const struct evidence *mcf_evidence_of(const struct fleet *f, const char *test)
{
    for (size_t i = 0; i < f->nev; i++)
        if (!strcmp(f->ev[i].test, test))
            return &f->ev[i];
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
static const struct mcf_cause *worst_figure_cause(const struct fleet *f, size_t r)
{
    const struct mcf_cause *w = NULL;
    for (size_t k = 0; k < f->causes.n; k++) {
        const struct mcf_cause *c = &f->causes.v[k];
        if (c->rank == r && c->test[0] && c->level > MCF_V_PASS && (!w || c->severity > w->severity))
            w = c;
    }
    return w;
}

/* "kernel clock 1620 MHz (fleet 1980); NVML clock ...; throttle: ...; temperature ...; power ..." */
static void evidence_text(const struct fleet *f, size_t r, const char *test, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
#define PUT(...) do { int n_ = snprintf(buf + used, len - used, __VA_ARGS__); \
                      if (n_ > 0 && (size_t)n_ < len - used) used += (size_t)n_; } while (0)
    const struct evidence *ev = mcf_evidence_of(f, test);
    /* mcfleet's own ranks on that GPU are among them: any more is another job
     * on it, the first thing to read (the cause is then the environment's) */
    double others = mcf_foreign_procs(f, r, test);
    if (others > 0)
        PUT("ANOTHER JOB ON THE GPU: %.0f compute process%s not mcfleet's (%.0f in all; fleet median %.0f)", others,
            others == 1 ? "" : "es", ev->col[EV_PROCS][r], mcf_median(ev->col[EV_PROCS], f->nranks));
    const struct fig *clk = mcf_fig_of(f, test, "clock_mhz");
    if (clk && isfinite(clk->med[r]))
        PUT("%skernel clock %.0f MHz (fleet median %.0f)", used ? "; " : "", clk->med[r],
            mcf_median(clk->med, f->nranks));
    if (ev && ev->col[EV_SM_MHZ] && isfinite(ev->col[EV_SM_MHZ][r]))
        PUT("%sSMI/NVML clock %.0f MHz (fleet median %.0f)", used ? "; " : "", ev->col[EV_SM_MHZ][r],
            mcf_median(ev->col[EV_SM_MHZ], f->nranks));
    if (ev && ev->col[EV_THROTTLE] && isfinite(ev->col[EV_THROTTLE][r]) && ev->col[EV_THROTTLE][r] >= 0) {
        char words[256];
        PUT("%sthrottle: %s", used ? "; " : "", throttle_words((uint64_t)ev->col[EV_THROTTLE][r], words, sizeof words));
    }
    if (ev && ev->col[EV_TEMP] && isfinite(ev->col[EV_TEMP][r]))
        PUT("%stemperature max %.0f C (fleet median %.0f)", used ? "; " : "", ev->col[EV_TEMP][r],
            mcf_median(ev->col[EV_TEMP], f->nranks));
    if (ev && ev->col[EV_POWER] && isfinite(ev->col[EV_POWER][r]))
        PUT("%spower %.0f W (fleet median %.0f)", used ? "; " : "", ev->col[EV_POWER][r],
            mcf_median(ev->col[EV_POWER], f->nranks));
    if (!(others > 0) && ev && ev->col[EV_PROCS] && isfinite(ev->col[EV_PROCS][r]))
        PUT("%scompute processes on the GPU: %.0f, none not mcfleet's (fleet median %.0f)", used ? "; " : "",
            ev->col[EV_PROCS][r], mcf_median(ev->col[EV_PROCS], f->nranks));
    if (f->local && f->local[r] >= 0)
        PUT("%scores local to the GPU: %s", used ? "; " : "", f->local[r] ? "yes" : "NO (binding)");
    if (f->oversubscribed_nodes > 0)
        PUT("%s%lld node%s oversubscribed (ranks > CPUs)", used ? "; " : "", f->oversubscribed_nodes,
            f->oversubscribed_nodes == 1 ? "" : "s");
#undef PUT
}

/* A sustained test's figures at the limit: the fleet's spread of each is the
 * variability where GPUs of one SKU differ most. */
static int is_sustained(const struct fig *g)
{
    return !strncmp(g->metric, "sustained_", 10);
}

static void sustained_spread(const struct fleet *f, const struct fig *g, double *med, double *lo, double *hi,
                             double *spread)
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
        if (!is_sustained(g))
            continue;
        if (!header++)
            fprintf(out, "\nSustained at the limit (the fleet's spread: (max - min) / median):\n%-52s %-9s %9s %11s %11s "
                         "%11s %8s\n", "test figure (per GPU)", "unit", "GPUs", "median", "min", "max", "spread %");
        sustained_spread(f, g, &med, &lo, &hi, &spread);
        char name[200];
        snprintf(name, sizeof name, "%s %s", g->test, g->metric);
        fprintf(out, "%-52s %-9.24s %4zu/%-4zu %11.5g %11.5g %11.5g %8.2f\n", name, g->unit,
                mcf_count_finite(g->med, f->nranks), f->nranks, med, lo, hi, 100 * spread);
    }
}

/* ---- text */

static const char *const attr_tag[MCF_ATTR_COUNT] = {
    "", " [node-wide]", " [environment]", " [the deck]" };

/* A cause's tag after its text: whose it is, and for the environment why. */
static const char *cause_tag(const struct mcf_cause *c)
{
    if (c->attr == MCF_ATTR_ENV)
        return c->env == MCF_ENV_OVERSUBSCRIBED ? " [environment: ranks share CPU cores, a FAIL shown as WARN]"
               : c->env == MCF_ENV_HOST         ? " [environment: host ranks share the machine, a FAIL shown as WARN]"
                                                : " [environment: another job on the GPU]";
    return attr_tag[c->attr];
}

static void print_identity(const struct fleet *f, size_t r, FILE *out)
{
    const char *slurm = str_at(&f->slurm_name, r);
    static const char *const whose[MCF_ATTR_COUNT] = { "", " (its node's)", " (the environment's)",
                                                       " (the deck's)" };
    fprintf(out, "  %-4s%s rank %zu", mcf_vlevel_names[f->roll.gpu[r]], whose[f->roll.attr[r]], r);
    if (f->world_rank)
        fprintf(out, " (world %lld)", f->world_rank[r]);
    fprintf(out, "  host %.100s", str_at(&f->host, r));
    if (slurm[0] && strcmp(slurm, str_at(&f->host, r)))
        fprintf(out, " (Slurm node %.100s)", slurm);
    fprintf(out, "  node %lld  local rank %lld  device %lld\n", int_at(f->node, r), int_at(f->local_rank, r),
            int_at(f->device_index, r));
    fprintf(out, "       %.100s  uuid %.100s  serial %.64s  pci %.40s\n", str_at(&f->device, r),
            str_at(&f->uuid, r)[0] ? str_at(&f->uuid, r) : "?", str_at(&f->serial, r)[0] ? str_at(&f->serial, r) : "?",
            str_at(&f->pci, r)[0] ? str_at(&f->pci, r) : "?");
}

#define CAUSES_SHOWN 6   /* per GPU in text; JSON and CSV have them all */

/* Worst first: the level, then the severity. */
static int cause_order(const void *a, const void *b)
{
    const struct mcf_cause *x = *(const struct mcf_cause *const *)a, *y = *(const struct mcf_cause *const *)b;
    if (x->level != y->level)
        return x->level > y->level ? -1 : 1;
    return (x->severity < y->severity) - (x->severity > y->severity);
}

/* Rank r's flagged causes, worst first, in a fresh array (*n of them; NULL
 * with *n 0 where it has none or memory ran out): one order for the text,
 * the JSON and the page built on it. */
static const struct mcf_cause **row_causes(const struct fleet *f, size_t r, size_t *n)
{
    const struct mcf_cause **v = NULL;
    size_t m = 0;
    *n = 0;
    for (size_t k = 0; k < f->causes.n; k++)
        m += f->causes.v[k].rank == r && f->causes.v[k].level > MCF_V_PASS;
    if (!m || !(v = malloc(m * sizeof *v)))
        return NULL;
    for (size_t k = 0; k < f->causes.n; k++)
        if (f->causes.v[k].rank == r && f->causes.v[k].level > MCF_V_PASS)
            v[(*n)++] = &f->causes.v[k];
    qsort(v, *n, sizeof *v, cause_order);
    return v;
}

/* A row's causes, worst first, the first few in full. */
static void print_causes(const struct fleet *f, size_t r, FILE *out)
{
    size_t all, n[3] = { 0 }, nfig = 0;
    double worst_dev = 0;
    const struct mcf_cause **v = row_causes(f, r, &all);
    for (size_t k = 0; k < all; k++) {
        const struct mcf_cause *c = v[k];
        n[c->level]++;
        if (isfinite(c->deviation) && (c->rule == MCF_RULE_FLEET || c->rule == MCF_RULE_NODE)) {
            nfig++;
            if (fabs(c->deviation) > fabs(worst_dev))
                worst_dev = c->deviation;
        }
        if (k < CAUSES_SHOWN)
            fprintf(out, "       - %s %s: %s%s\n", mcf_vlevel_names[c->level], mcf_rule_names[c->rule], c->text,
                    cause_tag(c));
    }
    if (all > CAUSES_SHOWN)
        fprintf(out, "       ... %zu more (%zu causes in all: %zu FAIL, %zu WARN; %zu on peer figures, worst %+.1f%%; "
                     "--format json lists them)\n", all - CAUSES_SHOWN, all, n[MCF_V_FAIL], n[MCF_V_WARN], nfig,
                100 * worst_dev);
    /* the next steps, worst cause's first, each once */
    for (size_t k = 0, said = 0; k < all && said < 3; k++) {
        const char *next = mcf_cause_next(v[k]);
        int seen = 0;
        for (size_t j = 0; j < k && !seen; j++)
            seen = mcf_cause_next(v[j]) == next;
        if (!seen && ++said)
            fprintf(out, "       next: %s\n", next);
    }
    free(v);
}

static void print_flagged(const struct fleet *f, FILE *out)
{
    const struct mcf_rollup *ro = &f->roll;
    if (!ro->norder) {
        fprintf(out, "\nNo GPU flagged.\n");
        return;
    }
    size_t shown = f->opts->max_rows > 0 && (size_t)f->opts->max_rows < ro->norder ? (size_t)f->opts->max_rows
                                                                                    : ro->norder;
    fprintf(out, "\nFlagged GPUs, worst first (%zu of %zu):\n", ro->norder, f->nranks);
    for (size_t i = 0; i < shown; i++) {
        size_t r = ro->order[i];
        print_identity(f, r, out);
        print_causes(f, r, out);
        const struct mcf_cause *w = worst_figure_cause(f, r);
        char ev[1024];
        evidence_text(f, r, w ? w->test : "", ev, sizeof ev);
        if (ev[0])
            fprintf(out, "       evidence%s%s%s: %s\n", w ? " (" : "", w ? w->test : "", w ? ")" : "", ev);
    }
    if (shown < ro->norder)
        fprintf(out, "  ... %zu more (--rows 0 lists them all; --format csv gives one row per GPU)\n",
                ro->norder - shown);
}

/* Nodes with a figure on which every GPU was flagged: the node, not a GPU.
 * One line per node: how many figures, the first few. */
static void print_nodes(const struct fleet *f, FILE *out)
{
    if (!f->node)
        return;
    int header = 0;
    for (size_t k = 0; k < f->roll.nnodes; k++) {
        size_t nfig = 0, first_row = f->nranks;
        char some[400] = "";
        for (size_t c = 0; c < f->causes.n; c++) {
            const struct mcf_cause *x = &f->causes.v[c];
            if (x->attr != MCF_ATTR_NODE || (size_t)f->node[x->rank] != k)
                continue;
            if (first_row == f->nranks)
                first_row = x->rank;
            if (x->rank != first_row)
                continue;   /* the node's first flagged row stands for all: the figures are the same */
            if (nfig++ < 3) {
                size_t used = strlen(some);
                snprintf(some + used, sizeof some - used, "%s%s %s", used ? ", " : "", x->test, x->metric);
            }
        }
        if (!nfig)
            continue;
        if (!header++)
            fprintf(out, "\nNodes attributed (every GPU of the node flagged on the same figures: look at the node "
                         "- power, cooling, CPU binding - before its GPUs):\n");
        fprintf(out, "  node %zu (%.100s): %zu figure%s, e.g. %s\n", k, str_at(&f->host, first_row), nfig,
                nfig == 1 ? "" : "s", some);
    }
}

static void print_rules(const struct fleet *f, FILE *out)
{
    const struct mcf_vrules *r = &f->opts->rules;
    fprintf(out, "  rules: a figure worse than its reference by more than max(%.1f%%, z x spread) warns, by more than "
                 "max(%.1f%%, ...) fails;\n         reference: the median of its SKU, and the best GPU of its node; "
                 "z = %.2f for %zu GPUs (docs/acceptance.md)\n",
            100 * r->warn_rel, 100 * r->fail_rel, mcf_peer_z(r, f->nranks), f->nranks);
    if (f->nranks < r->prior_n)
        fprintf(out, "         spread: below %zu GPUs of a SKU too few to measure; the prior %.0f%% stands for it "
                     "(%s)\n", r->prior_n,
                100 * (f->nranks && mcf_host_row(f, 0) ? r->host_prior_rel : r->prior_rel),
                f->nranks && mcf_host_row(f, 0) ? "host ranks sharing CPU cores"
                                                          : "healthy GPUs of one SKU, measured");
}

void mcf_report_print_text(struct fleet *f, const struct world *w, const char *path, FILE *out)
{
    fprintf(out, "\nmcfleet results: %s%s\n", path, f->complete == 1 ? "" : "  ** INCOMPLETE RUN **");
    fprintf(out, "  mcfleet %.100s, backend %.100s, %zu rank%s on %lld node%s, started %.100s\n",
            f->version ? f->version : "?", f->backend ? f->backend : "?", f->nranks, f->nranks == 1 ? "" : "s",
            f->nnodes, f->nnodes == 1 ? "" : "s", f->start ? f->start : "?");
    fprintf(out, "  deck: %.300s%s%.100s%s\n", f->deck ? f->deck : "?", f->acceptance == 1 ? " (acceptance deck for " : "",
            f->acceptance == 1 && f->deck_arch ? f->deck_arch : "", f->acceptance == 1 ? ")" : "");
    if (f->injected && f->injected[0])
        fprintf(out, "  FAULT INJECTED FOR TESTING: %.300s\n", f->injected);
    if (f->injected_slow && f->injected_slow[0])
        fprintf(out, "  SLOWDOWN INJECTED FOR TESTING: %.300s\n", f->injected_slow);
    const struct mcf_rollup *ro = &f->roll;
    fprintf(out, "\nVERDICT: %s (exit %d)", f->verdict, f->exit_code);
    if (ro->gpu)
        fprintf(out, "  GPUs: %zu PASS, %zu WARN, %zu FAIL; nodes: %zu PASS, %zu WARN, %zu FAIL",
                ro->count[0], ro->count[1], ro->count[2], ro->node_count[0], ro->node_count[1], ro->node_count[2]);
    fprintf(out, "\n");
    if (f->reasons.buf)
        for (char *save = NULL, *l = strtok_r(f->reasons.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
            fprintf(out, "  %s\n", l);
    if (f->profiles.buf)
        for (char *save = NULL, *l = strtok_r(f->profiles.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
            fprintf(out, "  %s\n", l);
    if (ro->gpu) {
        print_rules(f, out);
        print_flagged(f, out);
        print_nodes(f, out);
    }
    if (w->nhung) {
        fprintf(out, "\nHUNG: %zu of %lld ranks launched did not answer (watchdog); FAIL each; they have no rows:\n", w->nhung,
                w->size);
        for (size_t i = 0; i < w->nhung; i++)
            fprintf(out, "  world rank %lld: host %.200s, device %.200s (%.200s), pci %.100s, missed %.200s\n",
                    w->rank[i], mcf_strs_at(&w->host, i), mcf_strs_at(&w->uuid, i), mcf_strs_at(&w->device, i),
                    mcf_strs_at(&w->pci, i), mcf_strs_at(&w->test, i));
    }

    if (f->profile_table.buf)
        fprintf(out, "\nSKU profile figures beside the measured (the fleet's median of each GPU's median):\n%s",
                f->profile_table.buf);
    fprintf(out, "\n%-52s %-9s %9s %11s %11s %11s %7s\n", "test metric (per-rank medians)", "unit", "ranks", "median",
            "min", "max", "CV %");
    fprintf(out, "%s", f->table.buf ? f->table.buf : "");
    print_sustained(f, out);
    int far = 0;
    for (size_t r = 0; f->local && r < f->nranks; r++)
        if (f->local[r] == 0) {
            if (!far++)
                fprintf(out, "\nBinding: ranks whose cores are not local to their GPU:\n");
            fprintf(out, "  rank %zu (%.200s, %.200s)\n", r, str_at(&f->host, r), str_at(&f->device, r));
        }
    if (f->notes.buf)
        fprintf(out, "\nUnder-sampled power (per-repetition figures in the file are flagged):\n%s", f->notes.buf);
    if (f->problems.buf)
        fprintf(out, "\nNot verified:\n%s", f->problems.buf);
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
    if (f->rd.problems)
        fprintf(out, "\nThe file is malformed (%d problem%s):\n%s", f->rd.problems, f->rd.problems == 1 ? "" : "s",
                f->rd.list ? f->rd.list : "");
    fprintf(out, "verdict: %s (exit %d)\n", f->verdict, f->exit_code);
}

/* ---- JSON */

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void json_num(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.17g", v);
    else
        fputs("null", out);
}

static void json_cause(FILE *out, const struct mcf_cause *c)
{
    fprintf(out, "{\"rule\": \"%s\", \"level\": \"%s\", \"test\": ", mcf_rule_names[c->rule], mcf_vlevel_names[c->level]);
    json_str(out, c->test);
    fprintf(out, ", \"metric\": ");
    json_str(out, c->metric);
    fprintf(out, ", \"value\": ");
    json_num(out, c->value);
    fprintf(out, ", \"reference\": ");
    json_num(out, c->reference);
    fprintf(out, ", \"deviation\": ");
    json_num(out, c->deviation);
    fprintf(out, ", \"attribution\": \"%s\", \"next\": ", mcf_attr_names[c->attr]);
    json_str(out, mcf_cause_next(c));
    fprintf(out, ", \"text\": ");
    json_str(out, c->text);
    fputc('}', out);
}

static void json_lines(FILE *out, const struct lines *l)
{
    fputc('[', out);
    if (l->buf) {
        char *copy = strdup(l->buf);
        int n = 0;
        for (char *save = NULL, *t = copy ? strtok_r(copy, "\n", &save) : NULL; t; t = strtok_r(NULL, "\n", &save)) {
            fputs(n++ ? ", " : "", out);
            json_str(out, t);
        }
        free(copy);
    }
    fputc(']', out);
}

void mcf_report_print_json(struct fleet *f, const struct world *w, const char *path, FILE *out)
{
    const struct mcf_rollup *ro = &f->roll;
    fprintf(out, "{\"mcfleet_report\": 1, \"file\": ");
    json_str(out, path);
    fprintf(out, ", \"mcfleet_version\": ");
    json_str(out, f->version ? f->version : "");
    fprintf(out, ", \"backend\": ");
    json_str(out, f->backend ? f->backend : "");
    fprintf(out, ", \"deck\": ");
    json_str(out, f->deck ? f->deck : "");
    fprintf(out, ", \"acceptance\": %s, \"quick\": %s, \"deck_arch\": ", f->acceptance == 1 ? "true" : "false",
            f->quick == 1 ? "true" : "false");
    json_str(out, f->deck_arch ? f->deck_arch : "");
    fprintf(out, ", \"injected\": ");
    json_str(out, f->injected ? f->injected : "");
    fprintf(out, ", \"injected_slow\": ");
    json_str(out, f->injected_slow ? f->injected_slow : "");
    fprintf(out, ",\n \"verdict\": \"%s\", \"exit_code\": %d, \"complete\": %s, \"reasons\": ", f->verdict,
            f->exit_code, f->complete == 1 ? "true" : "false");
    json_lines(out, &f->reasons);
    fprintf(out, ", \"profiles\": ");
    json_lines(out, &f->profiles);
    const struct mcf_vrules *ru = &f->opts->rules;
    fprintf(out, ",\n \"rules\": {\"warn_rel\": %g, \"fail_rel\": %g, \"alpha\": %g, \"k_min\": %g, \"small_n\": %g, "
                 "\"z\": %.4g, \"prior_n\": %zu, \"prior_rel\": %g},\n", ru->warn_rel, ru->fail_rel, ru->alpha,
            ru->k_min, ru->small_n, mcf_peer_z(ru, f->nranks), ru->prior_n,
            f->nranks && mcf_host_row(f, 0) ? ru->host_prior_rel : ru->prior_rel);
    fprintf(out, " \"counts\": {\"gpus\": %zu, \"pass\": %zu, \"warn\": %zu, \"fail\": %zu, \"nodes\": %zu, "
                 "\"nodes_pass\": %zu, \"nodes_warn\": %zu, \"nodes_fail\": %zu, \"hung\": %zu},\n",
            f->nranks, ro->count[0], ro->count[1], ro->count[2], ro->nnodes, ro->node_count[0], ro->node_count[1],
            ro->node_count[2], w->nhung);
    fprintf(out, " \"nodes\": [");
    for (size_t k = 0; ro->node && k < ro->nnodes; k++) {
        size_t first = f->nranks;   /* the node's first row names its host */
        for (size_t r = 0; r < f->nranks && first == f->nranks; r++)
            if ((f->node ? (size_t)f->node[r] : r) == k)
                first = r;
        fprintf(out, "%s\n  {\"node\": %zu, \"host\": ", k ? "," : "", k);
        json_str(out, first < f->nranks ? str_at(&f->host, first) : "");
        fprintf(out, ", \"verdict\": \"%s\", \"node_wide\": [", mcf_vlevel_names[ro->node[k]]);
        int n = 0;
        for (size_t c = 0; c < f->causes.n; c++) {
            const struct mcf_cause *x = &f->causes.v[c];
            if (x->attr == MCF_ATTR_NODE && first < f->nranks && x->rank == first) {
                fputs(n++ ? ", " : "", out);
                json_cause(out, x);
            }
        }
        fprintf(out, "]}");
    }
    fprintf(out, "],\n \"gpus\": [");
    for (size_t r = 0; ro->gpu && r < f->nranks; r++) {
        fprintf(out, "%s\n  {\"rank\": %zu, \"world_rank\": %lld, \"host\": ", r ? "," : "", r,
                f->world_rank ? f->world_rank[r] : (long long)r);
        json_str(out, str_at(&f->host, r));
        fprintf(out, ", \"slurm_nodename\": ");
        json_str(out, str_at(&f->slurm_name, r));
        fprintf(out, ", \"node\": %lld, \"local_rank\": %lld, \"device\": %lld, \"uuid\": ", int_at(f->node, r),
                int_at(f->local_rank, r), int_at(f->device_index, r));
        json_str(out, str_at(&f->uuid, r));
        fprintf(out, ", \"serial\": ");
        json_str(out, str_at(&f->serial, r));
        fprintf(out, ", \"pci_bus_id\": ");
        json_str(out, str_at(&f->pci, r));
        fprintf(out, ", \"device_name\": ");
        json_str(out, str_at(&f->device, r));
        fprintf(out, ", \"device_arch\": ");
        json_str(out, str_at(&f->arch, r));
        fprintf(out, ", \"power_source\": ");
        json_str(out, str_at(&f->primary_source, r));
        fprintf(out, ", \"cores_local_to_gpu\": %lld,\n   \"verdict\": \"%s\", \"attribution\": \"%s\", \"severity\": ",
                int_at(f->local, r), mcf_vlevel_names[ro->gpu[r]], mcf_attr_names[ro->attr[r]]);
        json_num(out, ro->severity[r]);
        fprintf(out, ", \"causes\": [");
        size_t nc;
        const struct mcf_cause **v = row_causes(f, r, &nc);   /* worst first, as in the text */
        for (size_t c = 0; c < nc; c++) {
            fputs(c ? ", " : "", out);
            json_cause(out, v[c]);
        }
        free(v);
        fprintf(out, "],\n   \"evidence\": ");
        const struct mcf_cause *wc = worst_figure_cause(f, r);
        char ev[1024];
        evidence_text(f, r, wc ? wc->test : "", ev, sizeof ev);
        json_str(out, ev);
        fprintf(out, ", \"figures\": {");
        for (size_t k = 0; k < f->nfigs; k++) {
            char name[200];
            snprintf(name, sizeof name, "%s %s", f->figs[k].test, f->figs[k].metric);
            fputs(k ? ", " : "", out);
            json_str(out, name);
            fputs(": ", out);
            json_num(out, f->figs[k].med[r]);
        }
        fprintf(out, "}}");
    }
    fprintf(out, "],\n \"sustained\": [");
    for (size_t k = 0, n = 0; k < f->nfigs; k++) {
        const struct fig *g = &f->figs[k];
        double med, lo, hi, spread;
        if (!is_sustained(g))
            continue;
        sustained_spread(f, g, &med, &lo, &hi, &spread);
        fprintf(out, "%s{\"test\": ", n++ ? ", " : "");
        json_str(out, g->test);
        fprintf(out, ", \"metric\": ");
        json_str(out, g->metric);
        fprintf(out, ", \"median\": ");
        json_num(out, med);
        fprintf(out, ", \"min\": ");
        json_num(out, lo);
        fprintf(out, ", \"max\": ");
        json_num(out, hi);
        fprintf(out, ", \"spread\": ");
        json_num(out, spread);
        fputc('}', out);
    }
    fprintf(out, "],\n \"hung\": [");
    for (size_t i = 0; i < w->nhung; i++) {
        fprintf(out, "%s{\"world_rank\": %lld, \"verdict\": \"FAIL\", \"host\": ", i ? ", " : "", w->rank[i]);
        json_str(out, mcf_strs_at(&w->host, i));
        fprintf(out, ", \"uuid\": ");
        json_str(out, mcf_strs_at(&w->uuid, i));
        fprintf(out, ", \"pci_bus_id\": ");
        json_str(out, mcf_strs_at(&w->pci, i));
        fprintf(out, ", \"device_name\": ");
        json_str(out, mcf_strs_at(&w->device, i));
        fprintf(out, ", \"test\": ");
        json_str(out, mcf_strs_at(&w->test, i));
        fprintf(out, "}");
    }
    fprintf(out, "],\n \"problems\": ");
    struct lines pl = { .buf = f->rd.list, .len = f->rd.len };
    json_lines(out, &pl);
    fprintf(out, "}\n");
}

void mcf_report_print_json_error(const char *path, int code, const char *why, FILE *out)
{
    fprintf(out, "{\"mcfleet_report\": 1, \"file\": ");
    json_str(out, path);
    fprintf(out, ", \"verdict\": \"%s\", \"exit_code\": %d, \"complete\": false, \"reasons\": [",
            code == MCF_EXIT_USAGE ? "MALFORMED" : "ERROR", code);
    json_str(out, why);
    fprintf(out, "], \"gpus\": [], \"hung\": []}\n");
}

/* ---- CSV (RFC 4180: a field with a comma, quote or newline is quoted) */

static void csv_str(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void mcf_report_print_csv(struct fleet *f, const struct world *w, FILE *out)
{
    const struct mcf_rollup *ro = &f->roll;
    fputs("rank,world_rank,host,slurm_nodename,node,local_rank,device,uuid,serial,pci_bus_id,device_name,device_arch,"
          "verdict,attribution,severity,causes", out);
    for (size_t k = 0; k < f->nfigs; k++) {
        char name[200];
        snprintf(name, sizeof name, "%s %s", f->figs[k].test, f->figs[k].metric);
        fputc(',', out);
        csv_str(out, name);
    }
    fputc('\n', out);
    for (size_t r = 0; ro->gpu && r < f->nranks; r++) {
        fprintf(out, "%zu,%lld,", r, f->world_rank ? f->world_rank[r] : (long long)r);
        csv_str(out, str_at(&f->host, r));
        fputc(',', out);
        csv_str(out, str_at(&f->slurm_name, r));
        fprintf(out, ",%lld,%lld,%lld,", int_at(f->node, r), int_at(f->local_rank, r), int_at(f->device_index, r));
        const char *ids[] = { str_at(&f->uuid, r), str_at(&f->serial, r), str_at(&f->pci, r), str_at(&f->device, r),
                              str_at(&f->arch, r) };
        for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
            csv_str(out, ids[i]);
            fputc(',', out);
        }
        fprintf(out, "%s,%s,%.6g,", mcf_vlevel_names[ro->gpu[r]], mcf_attr_names[ro->attr[r]], ro->severity[r]);
        /* the causes, "LEVEL rule: text" joined by "; " */
        size_t len = 0;
        char *all = NULL;
        size_t nc;
        const struct mcf_cause **v = row_causes(f, r, &nc);   /* worst first, as in the text */
        for (size_t c = 0; c < nc; c++) {
            const struct mcf_cause *x = v[c];
            char one[400];
            int n = snprintf(one, sizeof one, "%s%s %s: %s%s", len ? "; " : "", mcf_vlevel_names[x->level],
                             mcf_rule_names[x->rule], x->text, cause_tag(x));
            if (n < 0)
                continue;
            if ((size_t)n >= sizeof one)
                n = sizeof one - 1;
            char *g = realloc(all, len + (size_t)n + 1);
            if (!g)
                break;
            all = g;
            memcpy(all + len, one, (size_t)n + 1);
            len += (size_t)n;
        }
        free(v);
        csv_str(out, all ? all : "");
        free(all);
        for (size_t k = 0; k < f->nfigs; k++) {
            if (isfinite(f->figs[k].med[r]))
                fprintf(out, ",%.17g", f->figs[k].med[r]);
            else
                fputc(',', out);
        }
        fputc('\n', out);
    }
    /* ranks the watchdog found hung have no row in the file: one row each,
     * FAIL, with what /hung knows of them */
    for (size_t i = 0; i < w->nhung; i++) {
        fprintf(out, ",%lld,", w->rank[i]);
        csv_str(out, mcf_strs_at(&w->host, i));
        fputs(",,,,,", out);
        csv_str(out, mcf_strs_at(&w->uuid, i));
        fputs(",,", out);
        csv_str(out, mcf_strs_at(&w->pci, i));
        fputc(',', out);
        csv_str(out, mcf_strs_at(&w->device, i));
        fputs(",,FAIL,gpu,,", out);
        char why[400];
        snprintf(why, sizeof why, "FAIL status: HUNG (watchdog): missed the end of %.300s", mcf_strs_at(&w->test, i));
        csv_str(out, why);
        for (size_t k = 0; k < f->nfigs; k++)
            fputc(',', out);
        fputc('\n', out);
    }
}
