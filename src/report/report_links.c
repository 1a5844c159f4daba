/* The links in the report (report_links.h): what the transfer family's
 * tests measured between GPUs and between nodes, per node, and the link a
 * transfer test's cause is about. */
#include "report_links.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "report_int.h"
#include "stats.h"

#define BLOCK_VALUES (1 << 20) /* values read at a time from a dataset */

struct ltest {
    char test[128];
    int link; /* enum mcf_cause_link */
    int latency, job; /* mode=latency; a collective of scope=job */
    int slots; /* peer: MCF_MAX_PEERS columns; network: its rounds; 0 for the others */
    double *v; /* [nranks * slots]: each rank's median of peer<j> or round<r> (NaN: none) */
    double *
        partner; /* network: [nranks * slots], the partner's world rank that round (NaN: sat out) */
};

struct mcf_links {
    struct ltest *t;
    size_t n, cap;
    /* built once for the printers: rows by node then local rank */
    int indexed;
    size_t *order, *start, nnodes; /* node k's rows: order[start[k] .. start[k+1]) */
    size_t *by_world, nworld; /* world rank -> row (SIZE_MAX: none) */
};

/* ---- reading */

/* Each rank's median of the optional [nranks, reps] dataset NAME into
 * out[r * stride] (NaN where absent or not a positive figure). PARTNER: the
 * values are ranks (whole, >= 0), not figures. */
static void row_medians(struct fleet *f, hid_t g, const char *gname, const char *name, double *out,
                        size_t stride, int partner)
{
    char obj[512];
    struct mcf_rows m;
    double *buf = NULL;
    for (size_t r = 0; r < f->nranks; r++) out[r * stride] = NAN;
    mcf_rd_name(obj, sizeof obj, gname, name);
    if (mcf_rd_rows_open(&f->rd, g, gname, name, f->nranks, 1, 1, &m) <= 0) return;
    size_t block = BLOCK_VALUES / m.cols ? BLOCK_VALUES / m.cols : 1;
    if (block > f->nranks) block = f->nranks;
    if (!(buf = malloc(sizeof *buf * block * m.cols))) {
        f->oom = 1;
        goto done;
    }
    for (size_t r0 = 0; r0 < f->nranks; r0 += block) {
        size_t count = f->nranks - r0 < block ? f->nranks - r0 : block;
        if (mcf_rd_rows_read(&f->rd, &m, obj, r0, count, buf) < 0) goto done;
        for (size_t i = 0; i < count; i++) {
            double *row = buf + i * m.cols;
            for (size_t k = 0; k < m.cols; k++) /* only what can be a figure (a rank) counts */
                if (!(partner ? row[k] >= 0 && row[k] < MCF_RD_MAX_RANKS && row[k] == floor(row[k])
                              : isfinite(row[k]) && row[k] > 0))
                    row[k] = NAN;
            out[(r0 + i) * stride] = mcf_median(row, m.cols);
        }
    }
done:
    free(buf);
    mcf_rd_rows_close(&m);
}

/* The value of key NAME of the test is TEXT. */
static int key_is(const struct mcf_test_identity *id, const char *name, const char *text)
{
    const char *v = mcf_test_key(id, name);
    return v && !strcmp(v, text);
}

void mcf_links_read(struct fleet *f, hid_t g, const char *gname, const char *test,
                    const struct mcf_test_identity *id)
{
    const char *link = mcf_test_key(id, "link");
    if (strcmp(id->kernel, "transfer") || !link) return;
    int l = 0; /* the family's link names (kernel.h), in enum mcf_link's order */
    while (l < MCF_LINK_COUNT && strcmp(mcf_link_names[l], link)) l++;
    if (l == MCF_LINK_COUNT) return;
    int kind = MCF_CLINK_OF(l);
    if (!f->links && !(f->links = calloc(1, sizeof *f->links))) {
        f->oom = 1;
        return;
    }
    struct mcf_links *L = f->links;
    if (L->n == L->cap) {
        size_t cap = L->cap ? 2 * L->cap : 8;
        struct ltest *v = realloc(L->t, cap * sizeof *v);
        if (!v) {
            f->oom = 1;
            return;
        }
        L->t = v;
        L->cap = cap;
    }
    struct ltest *t = &L->t[L->n];
    memset(t, 0, sizeof *t);
    snprintf(t->test, sizeof t->test, "%s", test);
    t->link = kind;
    t->latency = key_is(id, "mode", "latency");
    t->job = key_is(id, "scope", "job");
    if (kind == MCF_CLINK_PEER || kind == MCF_CLINK_NETWORK) {
        const char *rounds = mcf_test_key(id, "rounds");
        t->slots = MCF_MAX_PEERS;
        if (kind == MCF_CLINK_NETWORK && rounds && rounds[0]) {
            long n = strtol(rounds, NULL, 10);
            t->slots = n > 0 && n < MCF_MAX_PEERS ? (int)n : MCF_MAX_PEERS;
        }
        size_t cells = f->nranks * (size_t)t->slots;
        if (!(t->v = malloc(sizeof *t->v * cells)) ||
            (kind == MCF_CLINK_NETWORK && !(t->partner = malloc(sizeof *t->partner * cells)))) {
            free(t->v);
            f->oom = 1;
            return;
        }
        const char *unit = t->latency ? "ns" : "gbs";
        for (int j = 0; j < t->slots; j++) {
            char name[48];
            snprintf(name, sizeof name, "%s%d_%s", kind == MCF_CLINK_PEER ? "peer" : "round", j,
                     unit);
            row_medians(f, g, gname, name, t->v + j, (size_t)t->slots, 0);
            if (t->partner) {
                snprintf(name, sizeof name, "round%d_partner", j);
                row_medians(f, g, gname, name, t->partner + j, (size_t)t->slots, 1);
            }
        }
    }
    L->n++;
}

void mcf_links_free(struct fleet *f)
{
    struct mcf_links *L = f->links;
    if (!L) return;
    for (size_t i = 0; i < L->n; i++) {
        free(L->t[i].v);
        free(L->t[i].partner);
    }
    free(L->t);
    free(L->order);
    free(L->start);
    free(L->by_world);
    free(L);
    f->links = NULL;
}

/* ---- the rows of each node, and a world rank's row */

static const struct fleet *sort_fleet;
static int by_node(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    long long nx = sort_fleet->node[x], ny = sort_fleet->node[y];
    long long lx = sort_fleet->local_rank[x], ly = sort_fleet->local_rank[y];
    if (nx != ny) return nx < ny ? -1 : 1;
    if (lx != ly) return lx < ly ? -1 : 1;
    return (x > y) - (x < y);
}

/* 0, or -1 where the file lacks what the matrices need (/ranks node and
 * local_rank) or memory ran out */
static int index_rows(struct fleet *f)
{
    struct mcf_links *L = f->links;
    if (!L || !f->node || !f->local_rank) return -1;
    if (L->indexed) return L->order ? 0 : -1;
    L->indexed = 1;
    long long maxnode = -1, maxworld = -1;
    for (size_t r = 0; r < f->nranks; r++) {
        maxnode = f->node[r] > maxnode ? f->node[r] : maxnode;
        long long w = f->world_rank ? f->world_rank[r] : (long long)r;
        if (w < MCF_RD_MAX_RANKS) /* a malformed file's (recorded by report.c) is left out */
            maxworld = w > maxworld ? w : maxworld;
    }
    L->nnodes = (size_t)maxnode + 1;
    L->nworld = (size_t)maxworld + 1;
    L->order = malloc(sizeof *L->order * f->nranks);
    L->start = calloc(L->nnodes + 1, sizeof *L->start);
    L->by_world = malloc(sizeof *L->by_world * L->nworld);
    if (!L->order || !L->start || !L->by_world) {
        free(L->order);
        L->order = NULL;
        f->oom = 1;
        return -1;
    }
    for (size_t w = 0; w < L->nworld; w++) L->by_world[w] = SIZE_MAX;
    for (size_t r = 0; r < f->nranks; r++) {
        L->order[r] = r;
        L->start[f->node[r] + 1]++;
        long long w = f->world_rank ? f->world_rank[r] : (long long)r;
        if (w >= 0 && w < (long long)L->nworld) L->by_world[w] = r;
    }
    for (size_t k = 0; k < L->nnodes; k++) L->start[k + 1] += L->start[k];
    sort_fleet = f;
    qsort(L->order, f->nranks, sizeof *L->order, by_node);
    return 0;
}

/* the row of local rank j on row r's node (SIZE_MAX: none) */
static size_t local_row(const struct fleet *f, size_t r, long long j)
{
    const struct mcf_links *L = f->links;
    size_t k = (size_t)f->node[r];
    for (size_t i = L->start[k]; i < L->start[k + 1]; i++)
        if (f->local_rank[L->order[i]] == j) return L->order[i];
    return SIZE_MAX;
}

static size_t world_row(const struct fleet *f, double w)
{
    const struct mcf_links *L = f->links;
    return isfinite(w) && w >= 0 && w < (double)L->nworld ? L->by_world[(size_t)w] : SIZE_MAX;
}

static int worse(const struct ltest *t, double a, double b) /* a worse than b (b NaN: any a) */
{
    return isfinite(a) && (!isfinite(b) || (t->latency ? a > b : a < b));
}

/* The peer matrix of node k is local ranks 0 .. n-1 (at most MCF_MAX_PEERS). */
static size_t node_size(const struct fleet *f, size_t k)
{
    const struct mcf_links *L = f->links;
    long long n = 0;
    for (size_t i = L->start[k]; i < L->start[k + 1]; i++)
        if (f->local_rank[L->order[i]] + 1 > n) n = f->local_rank[L->order[i]] + 1;
    return n > MCF_MAX_PEERS ? MCF_MAX_PEERS : (size_t)n;
}

/* row r's worst slot of t (-1: none) */
static int worst_slot(const struct fleet *f, const struct ltest *t, size_t r)
{
    int best = -1, n = t->link == MCF_CLINK_PEER ? (int)node_size(f, (size_t)f->node[r]) : t->slots;
    for (int j = 0; j < n && j < t->slots; j++)
        if (worse(t, t->v[r * t->slots + j], best < 0 ? NAN : t->v[r * t->slots + best])) best = j;
    return best;
}

/* A node's worst cell: its row, slot and value (*row SIZE_MAX: none). */
static double node_worst(const struct fleet *f, const struct ltest *t, size_t k, size_t *row,
                         int *slot)
{
    const struct mcf_links *L = f->links;
    double v = NAN;
    *row = SIZE_MAX;
    *slot = -1;
    for (size_t i = L->start[k]; i < L->start[k + 1]; i++) {
        size_t r = L->order[i];
        int j = worst_slot(f, t, r);
        if (j >= 0 && worse(t, t->v[r * t->slots + j], v)) {
            v = t->v[r * t->slots + j];
            *row = r;
            *slot = j;
        }
    }
    return v;
}

static const char *unit_of(const struct ltest *t)
{
    return t->latency ? "ns" : "GB/s";
}

/* ---- attribution */

void mcf_links_attribute(struct fleet *f)
{
    if (!f->links || index_rows(f) < 0) return;
    for (size_t k = 0; k < f->causes.n; k++) {
        struct mcf_cause *c = &f->causes.v[k];
        if (c->rule != MCF_RULE_FLEET && c->rule != MCF_RULE_NODE && c->rule != MCF_RULE_PROFILE)
            continue;
        const struct ltest *t = NULL;
        for (size_t i = 0; i < f->links->n && !t; i++)
            if (!strcmp(f->links->t[i].test, c->test)) t = &f->links->t[i];
        if (!t) continue;
        size_t r = c->rank;
        char what[200];
        int j = t->slots ? worst_slot(f, t, r) : -1;
        switch (t->link) {
        case MCF_CLINK_HOST:
            snprintf(what, sizeof what, "host link (PCIe) of GPU %.40s", mcf_str_at(&f->pci, r));
            break;
        case MCF_CLINK_PEER: {
            size_t q = j >= 0 ? local_row(f, r, j) : SIZE_MAX;
            char to[64];
            if (q != SIZE_MAX)
                snprintf(to, sizeof to, "%.40s", mcf_str_at(&f->pci, q));
            else
                snprintf(to, sizeof to, "local rank %d", j);
            snprintf(what, sizeof what,
                     "NVLink/peer link %.40s \xe2\x86\x92 %s (local rank %lld \xe2\x86\x92 %d)",
                     mcf_str_at(&f->pci, r), j >= 0 ? to : "?", f->local_rank[r], j);
            break;
        }
        case MCF_CLINK_NETWORK: {
            size_t q = j >= 0 ? world_row(f, t->partner[r * t->slots + j]) : SIZE_MAX;
            snprintf(what, sizeof what, "network: node %.60s (worst with %.60s)",
                     mcf_str_at(&f->host, r), q != SIZE_MAX ? mcf_str_at(&f->host, q) : "?");
            break;
        }
        default:
            snprintf(what, sizeof what, "collective among the %s's GPUs", t->job ? "job" : "node");
            break;
        }
        c->link = t->link;
        /* the link after the figure's text, which gives way where both do not fit */
        char tail[220];
        int n = snprintf(tail, sizeof tail, "; the link: %s", what);
        size_t keep = sizeof c->text - 1 - (size_t)n;
        if (strlen(c->text) > keep) c->text[keep] = '\0';
        strncat(c->text, tail, sizeof c->text - strlen(c->text) - 1);
    }
}

/* ---- the printers: the peer tests' matrices and the network tests' worst pairs */

/* nodes of t in order, worst cell first (NaN last); n of them in *n */
static const struct ltest *sort_test;
static double *sort_worst;
static int by_worst(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    double vx = sort_worst[x], vy = sort_worst[y];
    if (worse(sort_test, vx, vy)) return -1;
    if (worse(sort_test, vy, vx)) return 1;
    return (x > y) - (x < y);
}

static size_t *nodes_worst_first(struct fleet *f, const struct ltest *t)
{
    size_t nn = f->links->nnodes, *v = malloc(sizeof *v * (nn ? nn : 1));
    double *w = malloc(sizeof *w * (nn ? nn : 1));
    if (!v || !w) {
        free(v);
        free(w);
        f->oom = 1;
        return NULL;
    }
    for (size_t k = 0; k < nn; k++) {
        size_t row;
        int slot;
        v[k] = k;
        w[k] = node_worst(f, t, k, &row, &slot);
    }
    sort_test = t;
    sort_worst = w;
    qsort(v, nn, sizeof *v, by_worst);
    free(w);
    return v;
}

static const char *node_host(const struct fleet *f, size_t k)
{
    const struct mcf_links *L = f->links;
    return L->start[k] < L->start[k + 1] ? mcf_str_at(&f->host, L->order[L->start[k]]) : "?";
}

static void text_matrix(struct fleet *f, const struct ltest *t, size_t k, FILE *out)
{
    size_t n = node_size(f, k), wr;
    int ws;
    double wv = node_worst(f, t, k, &wr, &ws);
    fprintf(out, "  %.60s (%s), node %zu (%.60s): ", t->test, unit_of(t), k, node_host(f, k));
    if (wr == SIZE_MAX) {
        fprintf(out, "no figures\n");
        return;
    }
    fprintf(out, "worst %.4g %s, local rank %lld \xe2\x86\x92 %d\n", wv, unit_of(t),
            f->local_rank[wr], ws);
    fprintf(out, "    %-16s", "GPU \\ peer");
    for (size_t j = 0; j < n; j++) fprintf(out, " %9zu", j);
    fputc('\n', out);
    for (size_t i = 0; i < n; i++) {
        size_t r = local_row(f, wr, (long long)i);
        fprintf(out, "    %2zu %-13.13s", i, r != SIZE_MAX ? mcf_str_at(&f->pci, r) : "(no row)");
        for (size_t j = 0; j < n; j++) {
            double v = r != SIZE_MAX ? t->v[r * t->slots + j] : NAN;
            if (isfinite(v))
                fprintf(out, " %8.4g%c", v, r == wr && (int)j == ws ? '*' : ' ');
            else
                fprintf(out, " %8s ", "-");
        }
        fputc('\n', out);
    }
}

static void text_network(struct fleet *f, const struct ltest *t, size_t k, FILE *out)
{
    size_t wr;
    int ws;
    double wv = node_worst(f, t, k, &wr, &ws);
    fprintf(out, "  %.60s (%s), node %zu (%.60s): ", t->test, unit_of(t), k, node_host(f, k));
    if (wr == SIZE_MAX) {
        fprintf(out, "no figures\n");
        return;
    }
    double p = t->partner[wr * t->slots + ws];
    size_t q = world_row(f, p);
    fprintf(out,
            "worst %.4g %s, rank %zu (local rank %lld) with world rank %.0f on %.60s, round %d\n",
            wv, unit_of(t), wr, f->local_rank[wr], p, q != SIZE_MAX ? mcf_str_at(&f->host, q) : "?",
            ws);
}

void mcf_links_print_text(struct fleet *f, FILE *out)
{
    if (!f->links || index_rows(f) < 0) return;
    static const int kinds[] = { MCF_CLINK_PEER, MCF_CLINK_NETWORK };
    for (size_t kk = 0; kk < 2; kk++) {
        int kind = kinds[kk];
        int said = 0;
        for (size_t i = 0; i < f->links->n; i++) {
            const struct ltest *t = &f->links->t[i];
            if (t->link != kind) continue;
            if (!said++)
                fprintf(out,
                        kind == MCF_CLINK_PEER ? "\nLinks between the GPUs of a node (peer tests; "
                                                 "each GPU's median over its repetitions; "
                                                 "row: the GPU by local rank and PCI bus, column: "
                                                 "its peer's local rank; * the node's "
                                                 "worst), worst node first:\n"
                                               : "\nNetwork, each node's worst pair (the lowest "
                                                 "figure, or highest latency, of its ranks "
                                                 "over their rounds; a rank's judged figure is its "
                                                 "median partner), worst node first:\n");
            size_t *v = nodes_worst_first(f, t);
            size_t nn = f->links->nnodes,
                   shown = f->opts->max_rows > 0 && (size_t)f->opts->max_rows < nn
                ? (size_t)f->opts->max_rows
                : nn;
            for (size_t s = 0; v && s < shown; s++)
                if (f->links->start[v[s]] < f->links->start[v[s] + 1])
                    (kind == MCF_CLINK_PEER ? text_matrix : text_network)(f, t, v[s], out);
            if (v && shown < nn)
                fprintf(
                    out,
                    "  ... %zu more nodes (--rows 0 shows them all; --format json or links-csv has "
                    "them)\n",
                    nn - shown);
            free(v);
        }
    }
}

void mcf_links_print_json(struct fleet *f, FILE *out)
{
    fprintf(out, ",\n \"links\": [");
    if (!f->links || index_rows(f) < 0) {
        fputc(']', out);
        return;
    }
    int nt = 0;
    for (size_t i = 0; i < f->links->n; i++) {
        const struct ltest *t = &f->links->t[i];
        if (t->link != MCF_CLINK_PEER && t->link != MCF_CLINK_NETWORK) continue;
        fprintf(out, "%s\n  {\"test\": ", nt++ ? "," : "");
        mcf_json_str(out, t->test);
        fprintf(out, ", \"link\": \"%s\", \"mode\": \"%s\", \"unit\": \"%s\", \"nodes\": [",
                t->link == MCF_CLINK_PEER ? "peer" : "network",
                t->latency ? "latency" : "throughput", unit_of(t));
        for (size_t k = 0, nk = 0; k < f->links->nnodes; k++) {
            if (f->links->start[k] == f->links->start[k + 1])
                continue; /* no rows: a node index the file skips */
            size_t wr, n = node_size(f, k), first = f->links->order[f->links->start[k]];
            int ws;
            double wv = node_worst(f, t, k, &wr, &ws);
            fprintf(out, "%s\n   {\"node\": %zu, \"host\": ", nk++ ? "," : "", k);
            mcf_json_str(out, node_host(f, k));
            fprintf(out, ", \"worst\": ");
            if (wr == SIZE_MAX)
                fputs("null", out);
            else if (t->link == MCF_CLINK_PEER) {
                fprintf(out, "{\"from_local_rank\": %lld, \"to_local_rank\": %d, \"value\": ",
                        f->local_rank[wr], ws);
                mcf_json_num(out, wv);
                fputc('}', out);
            } else {
                double p = t->partner[wr * t->slots + ws];
                size_t q = world_row(f, p);
                fprintf(
                    out,
                    "{\"rank\": %zu, \"local_rank\": %lld, \"round\": %d, \"partner_world_rank\": ",
                    wr, f->local_rank[wr], ws);
                mcf_json_num(out, p);
                fprintf(out, ", \"partner_host\": ");
                mcf_json_str(out, q != SIZE_MAX ? mcf_str_at(&f->host, q) : "");
                fprintf(out, ", \"value\": ");
                mcf_json_num(out, wv);
                fputc('}', out);
            }
            if (t->link == MCF_CLINK_PEER) {
                fprintf(out, ",\n    \"gpus\": [");
                for (size_t a = 0; a < n; a++) {
                    size_t r = local_row(f, first, (long long)a);
                    fprintf(out, "%s{\"local_rank\": %zu, \"rank\": ", a ? ", " : "", a);
                    if (r != SIZE_MAX)
                        fprintf(out, "%zu", r);
                    else
                        fputs("null", out);
                    fprintf(out, ", \"pci_bus_id\": ");
                    mcf_json_str(out, r != SIZE_MAX ? mcf_str_at(&f->pci, r) : "");
                    fputc('}', out);
                }
                fprintf(out, "],\n    \"matrix\": [");
                for (size_t a = 0; a < n; a++) {
                    size_t r = local_row(f, first, (long long)a);
                    fputs(a ? ", [" : "[", out);
                    for (size_t b = 0; b < n; b++) {
                        fputs(b ? ", " : "", out);
                        mcf_json_num(out, r != SIZE_MAX ? t->v[r * t->slots + b] : NAN);
                    }
                    fputc(']', out);
                }
                fputc(']', out);
            }
            fputc('}', out);
        }
        fprintf(out, "]}");
    }
    fputc(']', out);
}

void mcf_links_print_csv(struct fleet *f, FILE *out)
{
    fputs("test,link,unit,node,host,from_rank,from_local_rank,from_pci,to_rank,to_local_rank,to_"
          "pci,to_host,round,"
          "value,node_worst\n",
          out);
    if (!f->links || index_rows(f) < 0) return;
    for (size_t i = 0; i < f->links->n; i++) {
        const struct ltest *t = &f->links->t[i];
        if (t->link != MCF_CLINK_PEER && t->link != MCF_CLINK_NETWORK) continue;
        for (size_t k = 0; k < f->links->nnodes; k++) {
            size_t wr;
            int ws;
            node_worst(f, t, k, &wr, &ws);
            for (size_t s = f->links->start[k]; s < f->links->start[k + 1]; s++) {
                size_t r = f->links->order[s];
                for (int j = 0; j < t->slots; j++) {
                    double v = t->v[r * t->slots + j];
                    if (!isfinite(v)) continue;
                    size_t q = t->link == MCF_CLINK_PEER
                        ? local_row(f, r, j)
                        : world_row(f, t->partner[r * t->slots + j]);
                    mcf_csv_str(out, t->test);
                    fprintf(out, ",%s,%s,%zu,", t->link == MCF_CLINK_PEER ? "peer" : "network",
                            unit_of(t), k);
                    mcf_csv_str(out, mcf_str_at(&f->host, r));
                    fprintf(out, ",%zu,%lld,", r, f->local_rank[r]);
                    mcf_csv_str(out, mcf_str_at(&f->pci, r));
                    if (q != SIZE_MAX)
                        fprintf(out, ",%zu,%lld,", q, f->local_rank[q]);
                    else if (t->link == MCF_CLINK_PEER) /* no row for that local rank: its number */
                        fprintf(out, ",,%d,", j);
                    else
                        fputs(",,,", out);
                    mcf_csv_str(out, q != SIZE_MAX ? mcf_str_at(&f->pci, q) : "");
                    fputc(',', out);
                    mcf_csv_str(out, q != SIZE_MAX ? mcf_str_at(&f->host, q) : "");
                    if (t->link == MCF_CLINK_NETWORK)
                        fprintf(out, ",%d", j);
                    else
                        fputc(',', out);
                    fprintf(out, ",%.17g,%d\n", v, r == wr && j == ws);
                }
            }
        }
    }
}
