/* The report as JSON (one object, for scripts) and CSV (one row per GPU):
 * the same verdict, causes and evidence as the text (report_out.c). */
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

void mcf_json_str(FILE *out, const char *s)
{
    json_str(out, s);
}
void mcf_json_num(FILE *out, double v)
{
    json_num(out, v);
}

static void json_cause(FILE *out, const struct mcf_cause *c)
{
    fprintf(out, "{\"rule\": \"%s\", \"level\": \"%s\", \"test\": ", mcf_rule_names[c->rule],
            mcf_vlevel_names[c->level]);
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
        for (char *save = NULL, *t = copy ? strtok_r(copy, "\n", &save) : NULL; t;
             t = strtok_r(NULL, "\n", &save)) {
            fputs(n++ ? ", " : "", out);
            json_str(out, t);
        }
        free(copy);
    }
    fputc(']', out);
}

/* The tests of row r during which another job's processes were on its GPU
 * (the report's reading: mcf_foreign_procs), each with the report's next
 * step, so that compare and health say what the report says of them. */
static void json_environment(FILE *out, const struct fleet *f, size_t r)
{
    const struct mcf_cause env = { .attr = MCF_ATTR_ENV, .env = MCF_ENV_FOREIGN };
    fprintf(out, ", \"environment\": [");
    for (size_t i = 0, n = 0; i < f->nfacts; i++) {
        double procs = mcf_foreign_procs(f, r, f->facts[i].test);
        if (!(procs > 0)) continue;
        fprintf(out, "%s{\"test\": ", n++ ? ", " : "");
        json_str(out, f->facts[i].test);
        fprintf(out,
                ", \"processes\": %g, \"why\": \"another job on the GPU: %g compute process%s not "
                "mcfleet's during the test\", \"next\": ",
                procs, procs, procs == 1 ? "" : "es");
        json_str(out, mcf_cause_next(&env));
        fputc('}', out);
    }
    fputc(']', out);
}

/* Each test's identity as the file's schema reads it (report_schema.h): the
 * one reading of a test's keys that compare, baseline, study and health take.
 * keys: those recorded or implied, in the family's order; implied: those the
 * file lacks (their values the ones its build implied); amounts: those that
 * say how much or how long; better: each metric read and its direction. */
static void json_tests(FILE *out, const struct fleet *f)
{
    fprintf(out, ",\n \"tests\": [");
    for (size_t i = 0; i < f->nfacts; i++) {
        const struct test_facts *t = &f->facts[i];
        const struct mcf_test_identity *id = &t->id;
        fprintf(out, "%s\n  {\"test\": ", i ? "," : "");
        json_str(out, t->test);
        fprintf(out, ", \"kernel\": ");
        json_str(out, id->kernel);
        fprintf(out, ", \"kind\": ");
        json_str(out, id->kind);
        fprintf(out, ", \"measured\": ");
        json_str(out, id->measured);
        fprintf(out, ", \"measured_rebuilt\": %s, \"keys\": {", id->rebuilt ? "true" : "false");
        const char *sep = "";
        for (int k = 0; k < id->nkeys; k++)
            if (!id->key[k].implied || id->key[k].value[0]) {
                fputs(sep, out);
                json_str(out, id->key[k].name);
                fputs(": ", out);
                json_str(out, id->key[k].value);
                sep = ", ";
            }
        fputc('}', out);
        const char *lists[] = { "implied", "amounts" };
        for (int l = 0; l < 2; l++) {
            fprintf(out, ", \"%s\": [", lists[l]);
            sep = "";
            for (int k = 0; k < id->nkeys; k++)
                if (l ? id->key[k].amount : id->key[k].implied && id->key[k].value[0]) {
                    fputs(sep, out);
                    json_str(out, id->key[k].name);
                    sep = ", ";
                }
            fputc(']', out);
        }
        fprintf(out, ", \"better\": {");
        for (int m = 0; m < t->nmetrics; m++) {
            fputs(m ? ", " : "", out);
            json_str(out, t->metric[m].name);
            fprintf(out, ": \"%s\"", mcf_better_name(t->metric[m].better));
        }
        fprintf(out, "}}");
    }
    fputc(']', out);
}

/* The run, its verdict and the rules it was judged by. */
static void json_head(const struct fleet *f, const struct world *w, const char *path, FILE *out)
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
    fprintf(out, ", \"acceptance\": %s, \"quick\": %s, \"deck_arch\": ",
            f->acceptance == 1 ? "true" : "false", f->quick == 1 ? "true" : "false");
    json_str(out, f->deck_arch ? f->deck_arch : "");
    fprintf(out, ", \"injected\": ");
    json_str(out, f->injected ? f->injected : "");
    fprintf(out, ", \"injected_slow\": ");
    json_str(out, f->injected_slow ? f->injected_slow : "");
    fprintf(out, ",\n \"verdict\": \"%s\", \"exit_code\": %d, \"complete\": %s, \"reasons\": ",
            f->verdict, f->exit_code, f->complete == 1 ? "true" : "false");
    json_lines(out, &f->reasons);
    fprintf(out, ", \"profiles\": ");
    json_lines(out, &f->profiles);
    const struct mcf_vrules *ru = &f->opts->rules;
    fprintf(out,
            ",\n \"rules\": {\"warn_rel\": %g, \"fail_rel\": %g, \"alpha\": %g, \"k_min\": %g, "
            "\"small_n\": %g, "
            "\"z\": %.4g, \"prior_n\": %zu, \"prior_rel\": %g},\n",
            ru->warn_rel, ru->fail_rel, ru->alpha, ru->k_min, ru->small_n,
            mcf_peer_z(ru, f->nranks), ru->prior_n,
            f->nranks && mcf_host_row(f, 0) ? ru->host_prior_rel : ru->prior_rel);
    fprintf(
        out,
        " \"counts\": {\"gpus\": %zu, \"pass\": %zu, \"warn\": %zu, \"fail\": %zu, \"nodes\": %zu, "
        "\"nodes_pass\": %zu, \"nodes_warn\": %zu, \"nodes_fail\": %zu, \"hung\": %zu},\n",
        f->nranks, ro->count[0], ro->count[1], ro->count[2], ro->nnodes, ro->node_count[0],
        ro->node_count[1], ro->node_count[2], w->nhung);
}

/* Each node's verdict and its node-wide causes. */
static void json_nodes(const struct fleet *f, FILE *out)
{
    const struct mcf_rollup *ro = &f->roll;
    fprintf(out, " \"nodes\": [");
    for (size_t k = 0; ro->node && k < ro->nnodes; k++) {
        size_t first = f->nranks; /* the node's first row names its host */
        for (size_t r = 0; r < f->nranks && first == f->nranks; r++)
            if ((f->node ? (size_t)f->node[r] : r) == k) first = r;
        fprintf(out, "%s\n  {\"node\": %zu, \"host\": ", k ? "," : "", k);
        json_str(out, first < f->nranks ? mcf_str_at(&f->host, first) : "");
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
}

/* Each GPU: its identity, verdict, causes worst first, evidence, figures. */
static void json_gpus(struct fleet *f, FILE *out)
{
    const struct mcf_rollup *ro = &f->roll;
    fprintf(out, "],\n \"gpus\": [");
    for (size_t r = 0; ro->gpu && r < f->nranks; r++) {
        fprintf(out, "%s\n  {\"rank\": %zu, \"world_rank\": %lld, \"host\": ", r ? "," : "", r,
                f->world_rank ? f->world_rank[r] : (long long)r);
        json_str(out, mcf_str_at(&f->host, r));
        fprintf(out, ", \"slurm_nodename\": ");
        json_str(out, mcf_str_at(&f->slurm_name, r));
        fprintf(out, ", \"node\": %lld, \"local_rank\": %lld, \"device\": %lld, \"uuid\": ",
                mcf_int_at(f->node, r), mcf_int_at(f->local_rank, r),
                mcf_int_at(f->device_index, r));
        json_str(out, mcf_str_at(&f->uuid, r));
        fprintf(out, ", \"serial\": ");
        json_str(out, mcf_str_at(&f->serial, r));
        fprintf(out, ", \"pci_bus_id\": ");
        json_str(out, mcf_str_at(&f->pci, r));
        fprintf(out, ", \"device_name\": ");
        json_str(out, mcf_str_at(&f->device, r));
        fprintf(out, ", \"device_arch\": ");
        json_str(out, mcf_str_at(&f->arch, r));
        fprintf(out, ", \"power_source\": ");
        json_str(out, mcf_str_at(&f->primary_source, r));
        fprintf(out,
                ", \"cores_local_to_gpu\": %lld,\n   \"verdict\": \"%s\", \"attribution\": \"%s\", "
                "\"severity\": ",
                mcf_int_at(f->local, r), mcf_vlevel_names[ro->gpu[r]], mcf_attr_names[ro->attr[r]]);
        json_num(out, ro->severity[r]);
        fprintf(out, ", \"causes\": [");
        size_t nc;
        const struct mcf_cause **v = mcf_row_causes(f, r, &nc); /* worst first, as in the text */
        for (size_t c = 0; c < nc; c++) {
            fputs(c ? ", " : "", out);
            json_cause(out, v[c]);
        }
        const char *next[MCF_NEXT_STEPS], *caveat;
        size_t nn = mcf_row_next_steps(f, r, v, nc, next, &caveat);
        free(v);
        fprintf(out, "],\n   \"evidence\": ");
        const struct mcf_cause *wc = mcf_worst_figure_cause(f, r);
        char ev[1024];
        mcf_evidence_text(f, r, wc ? wc->test : "", ev, sizeof ev);
        json_str(out, ev);
        json_environment(out, f, r);
        fprintf(out, ", \"next_steps\": [");
        for (size_t k = 0; k < nn; k++) {
            fputs(k ? ", " : "", out);
            json_str(out, next[k]);
        }
        fprintf(out, "], \"caveat\": ");
        json_str(out, caveat ? caveat : "");
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
}

/* Each sustained figure's fleet median and spread. */
static void json_sustained(struct fleet *f, FILE *out)
{
    fprintf(out, "],\n \"sustained\": [");
    for (size_t k = 0, n = 0; k < f->nfigs; k++) {
        const struct fig *g = &f->figs[k];
        double med, lo, hi, spread;
        if (!mcf_is_sustained(g)) continue;
        mcf_sustained_spread(f, g, &med, &lo, &hi, &spread);
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
    fputc(']', out);
}

/* The ranks that did not answer, and the file's problems. */
static void json_hung(const struct fleet *f, const struct world *w, FILE *out)
{
    fprintf(out, ",\n \"hung\": [");
    for (size_t i = 0; i < w->nhung; i++) {
        fprintf(out, "%s{\"world_rank\": %lld, \"verdict\": \"FAIL\", \"host\": ", i ? ", " : "",
                w->rank[i]);
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
}

void mcf_report_print_tests(struct fleet *f, const char *path, FILE *out)
{
    fprintf(out, "{\"mcfleet_report\": 1, \"file\": ");
    json_str(out, path);
    fprintf(out, ", \"verdict\": \"%s\", \"exit_code\": %d, \"schema_problem\": ", f->verdict,
            f->exit_code);
    json_str(out, f->schema ? f->schema->why : "");
    json_tests(out, f);
    fprintf(out, ",\n \"gpus\": [");
    for (size_t r = 0; r < f->nranks; r++) {
        fprintf(out, "%s\n  {\"rank\": %zu", r ? "," : "", r);
        json_environment(out, f, r);
        fputc('}', out);
    }
    fprintf(out, "]}\n");
}

static void print_json(struct fleet *f, const struct world *w, const char *path, FILE *out)
{
    json_head(f, w, path, out);
    json_nodes(f, out);
    json_gpus(f, out);
    json_sustained(f, out);
    json_tests(out, f);
    mcf_links_print_json(f, out);
    json_hung(f, w, out);
    fprintf(out, "}\n");
}

static void print_json_error(const char *path, int code, const char *why, FILE *out)
{
    fprintf(out, "{\"mcfleet_report\": 1, \"file\": ");
    json_str(out, path);
    fprintf(out, ", \"verdict\": \"%s\", \"exit_code\": %d, \"complete\": false, \"reasons\": [",
            code == MCF_EXIT_USAGE ? "MALFORMED" : "ERROR", code);
    json_str(out, why);
    fprintf(out, "], \"gpus\": [], \"hung\": []}\n");
}

/* ---- CSV (RFC 4180: a field with a comma, quote or newline is quoted)
 *
 * Every cell csv_str writes is text from the file (a host, a UUID, a test's
 * name in a header ...) or made of it (the causes); the numbers (ranks,
 * severity, the figures, negative ones among them) are printed by fprintf
 * from integers and doubles, never through it. OWASP's CSV injection rule: a text
 * cell beginning with =, +, -, @, TAB or CR, which a spreadsheet would run as
 * a formula, gets a leading single quote, and is quoted. */

static void csv_str(FILE *out, const char *s)
{
    int formula = s[0] && strchr("=+-@\t\r", s[0]);
    if (!formula && !strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    if (formula) fputc('\'', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void mcf_csv_str(FILE *out, const char *s)
{
    csv_str(out, s);
}

static void print_csv(struct fleet *f, const struct world *w, FILE *out)
{
    const struct mcf_rollup *ro = &f->roll;
    fputs("rank,world_rank,host,slurm_nodename,node,local_rank,device,uuid,serial,pci_bus_id,"
          "device_name,device_arch,"
          "verdict,attribution,severity,causes",
          out);
    for (size_t k = 0; k < f->nfigs; k++) {
        char name[200];
        snprintf(name, sizeof name, "%s %s", f->figs[k].test, f->figs[k].metric);
        fputc(',', out);
        csv_str(out, name);
    }
    fputc('\n', out);
    for (size_t r = 0; ro->gpu && r < f->nranks; r++) {
        fprintf(out, "%zu,%lld,", r, f->world_rank ? f->world_rank[r] : (long long)r);
        csv_str(out, mcf_str_at(&f->host, r));
        fputc(',', out);
        csv_str(out, mcf_str_at(&f->slurm_name, r));
        fprintf(out, ",%lld,%lld,%lld,", mcf_int_at(f->node, r), mcf_int_at(f->local_rank, r),
                mcf_int_at(f->device_index, r));
        const char *ids[] = { mcf_str_at(&f->uuid, r), mcf_str_at(&f->serial, r),
                              mcf_str_at(&f->pci, r), mcf_str_at(&f->device, r),
                              mcf_str_at(&f->arch, r) };
        for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
            csv_str(out, ids[i]);
            fputc(',', out);
        }
        fprintf(out, "%s,%s,%.6g,", mcf_vlevel_names[ro->gpu[r]], mcf_attr_names[ro->attr[r]],
                ro->severity[r]);
        /* the causes, "LEVEL rule: text" joined by "; " */
        size_t len = 0;
        char *all = NULL;
        size_t nc;
        const struct mcf_cause **v = mcf_row_causes(f, r, &nc); /* worst first, as in the text */
        for (size_t c = 0; c < nc; c++) {
            const struct mcf_cause *x = v[c];
            char one[400];
            int n = snprintf(one, sizeof one, "%s%s %s: %s%s", len ? "; " : "",
                             mcf_vlevel_names[x->level], mcf_rule_names[x->rule], x->text,
                             mcf_cause_tag(x));
            if (n < 0) continue;
            if ((size_t)n >= sizeof one) n = sizeof one - 1;
            char *g = realloc(all, len + (size_t)n + 1);
            if (!g) break;
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
        snprintf(why, sizeof why, "FAIL status: HUNG (watchdog): missed the end of %.300s",
                 mcf_strs_at(&w->test, i));
        csv_str(out, why);
        for (size_t k = 0; k < f->nfigs; k++) fputc(',', out);
        fputc('\n', out);
    }
}

/* The printers proper: the report goes out through mcf_text_write, so it is
 * valid UTF-8 with nothing a terminal or an editor would obey, even where a
 * string from the file was cut inside a character ("%.300s", a name[200]). */
void mcf_report_print_json(struct fleet *f, const struct world *w, const char *path, FILE *out)
{
    struct mcf_text_out t;
    print_json(f, w, path, mcf_text_begin(&t, out));
    mcf_text_end(&t);
}

void mcf_report_print_json_error(const char *path, int code, const char *why, FILE *out)
{
    struct mcf_text_out t;
    print_json_error(path, code, why, mcf_text_begin(&t, out));
    mcf_text_end(&t);
}

void mcf_report_print_csv(struct fleet *f, const struct world *w, FILE *out)
{
    struct mcf_text_out t;
    if (f->opts->format == MCF_FORMAT_LINKS_CSV)
        mcf_links_print_csv(f, mcf_text_begin(&t, out));
    else
        print_csv(f, w, mcf_text_begin(&t, out));
    mcf_text_end(&t);
}
