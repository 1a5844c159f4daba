/* The peer rules applied (verdict.h): each figure of a SKU against the
 * median of its GPUs and the best of its node, a prior spread for small
 * fleets, a GPU another job shared judged but no reference; and which rows
 * are host ranks or shared GPUs. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "acceptance.h"
#include "health.h"
#include "mcfleet.h"
#include "profile.h"
#include "report_int.h"
#include "stats.h"

int mcf_host_row(const struct fleet *f, size_t r)
{
    if (f->backend && !strcmp(f->backend, "host")) return 1;
    if (f->backend && (!strcmp(f->backend, "cuda") || !strcmp(f->backend, "hip"))) return 0;
    /* the backend not recorded or not one (a damaged file): a GPU's arch is
     * sm_* or gfx*, a CPU's x86_64, aarch64 ... */
    const char *arch = f->arch.buf ? mcf_strs_at(&f->arch, r) : "";
    return arch[0] && strncmp(arch, "sm_", 3) && strncmp(arch, "gfx", 3);
}

size_t mcf_ranks_on_gpu(const struct fleet *f, size_t r)
{
    size_t k = 0;
    if (!f->node || !f->device_index || f->device_index[r] < 0) return 1;
    for (size_t q = 0; q < f->nranks; q++)
        k += f->node[q] == f->node[r] && f->device_index[q] == f->device_index[r];
    return k ? k : 1;
}

double mcf_foreign_procs(const struct fleet *f, size_t r, const char *test)
{
    const struct evidence *ev = test && test[0] ? mcf_evidence_of(f, test) : NULL;
    if (!ev || !ev->col[EV_PROCS] || !isfinite(ev->col[EV_PROCS][r])) return NAN;
    return ev->col[EV_PROCS][r] - (double)mcf_ranks_on_gpu(f, r);
}

/* "9.8% below the fleet median 1.01e+06 GFLOP/s" */
static void peer_cause(struct fleet *f, const struct fig *g, size_t row, int rule,
                       const struct mcf_peer *p, size_t peers)
{
    double bad = -g->better * p->deviation;
    char prior[96] = "";
    if (p->prior)
        snprintf(prior, sizeof prior, "; too few GPUs to measure their spread, taken as %.1f%%",
                 100 * p->spread);
    mcf_cause_add(f, row, rule, p->level, g->test, g->metric, g->med[row], p->reference,
                  bad / p->threshold,
                  "%s %s %.5g %s: %.1f%% %s the %s %.5g (warn beyond %.1f%%, fail beyond %.1f%%%s)",
                  g->test, g->metric, g->med[row], g->unit, 100 * fabs(p->deviation),
                  p->deviation < 0 ? "below" : "above",
                  rule == MCF_RULE_NODE ? "best GPU of its node"
                      : peers == 2      ? "mean of the 2 GPUs"
                                        : "fleet median",
                  p->reference, 100 * p->threshold, 100 * p->fail_threshold, prior);
}

/* A GPU another job shared during the test is judged, but is no reference:
 * its figures are the other job's as much as its own (a healthy neighbour
 * was flagged against a disturbed GPU's clock). Against the reference of the
 * undisturbed GPUs: the fleet rule's median and thresholds, the node rule's
 * best of its node. */
static void against_clean(const double *x, const long long *node, const int *shared, size_t n,
                          int better, const struct mcf_vrules *rules, struct mcf_peer *p,
                          int node_rule)
{
    for (size_t i = 0; i < n; i++) {
        if (!shared[i]) continue;
        const struct mcf_peer *ref = NULL;
        for (size_t j = 0; j < n && !ref; j++)
            if (!shared[j] && isfinite(p[j].reference) && (!node_rule || node[j] == node[i]))
                ref = &p[j];
        p[i] = (struct mcf_peer){
            .reference = NAN, .deviation = NAN, .threshold = NAN, .level = MCF_V_PASS
        };
        if (!ref || !isfinite(x[i]) || ref->reference == 0.0) continue;
        p[i] = *ref;
        p[i].deviation = (x[i] - ref->reference) / fabs(ref->reference);
        double bad = -better * p[i].deviation;
        p[i].level = bad > ref->fail_threshold ? MCF_V_FAIL
            : bad > ref->threshold             ? MCF_V_WARN
                                               : MCF_V_PASS;
    }
    (void)rules;
}

static int is_per_watt(const struct fig *g)
{
    size_t n = strlen(g->metric);
    return n > 6 && !strcmp(g->metric + n - 6, "_per_w");
}

/* Work per joule needs the test's own power: a whole test over fewer than 3
 * new readings of the power source (shorter than its update interval: the
 * default deck's tests on an H200, 0-2 readings) has the power of the tests
 * around it, and two healthy GPUs were 20-35 % apart on it. Not judged. */
int mcf_power_too_short(const struct fleet *f, const struct fig *g)
{
    const struct test_facts *t = mcf_facts_of(f, g->test);
    return is_per_watt(g) && t && t->power_readings < MIN_POWER_READINGS;
}

/* The peer rules on one figure, over the rows of one SKU. */
int mcf_judge_peers(struct fleet *f, const struct fig *g, const size_t *rows, size_t n)
{
    double *x = malloc(sizeof *x * n), *clean = malloc(sizeof *clean * n);
    long long *node = malloc(sizeof *node * n);
    int *shared = malloc(sizeof *shared * n);
    struct mcf_peer *pf = malloc(sizeof *pf * n), *pn = malloc(sizeof *pn * n);
    size_t nshared = 0;
    int rc = -1;
    if (!x || !clean || !node || !shared || !pf || !pn) goto done;
    for (size_t i = 0; i < n; i++) {
        x[i] = g->med[rows[i]];
        node[i] = f->node ? f->node[rows[i]] : (long long)rows[i];
        shared[i] = mcf_foreign_procs(f, rows[i], g->test) > 0;
        nshared += shared[i];
        clean[i] = shared[i] ? NAN : x[i];
    }
    if (nshared ==
        n) { /* none undisturbed: judged among themselves (each cause the environment's) */
        nshared = 0;
        memset(shared, 0, sizeof *shared * n);
        memcpy(clean, x, sizeof *x * n);
    }
    /* Too few GPUs to measure their spread (verdict.h): the prior, the
     * host's for host ranks (CPU cores shared), or the quietest GPU's own
     * repetition spread where that is larger: GPUs whose repetitions scatter
     * by 30 % cannot be told apart by less */
    struct mcf_vrules rules = f->opts->rules;
    if (n && mcf_host_row(f, rows[0])) rules.prior_rel = rules.host_prior_rel;
    if (is_per_watt(g) && rules.power_prior_rel > rules.prior_rel)
        rules.prior_rel = rules.power_prior_rel;
    if (isfinite(g->rep_rel) && g->rep_rel > rules.prior_rel) rules.prior_rel = g->rep_rel;
    mcf_peer_fleet(clean, n, g->better, &rules, pf);
    mcf_peer_node(clean, node, n, g->better, &rules, pn);
    if (nshared) {
        against_clean(x, node, shared, n, g->better, &rules, pf, 0);
        against_clean(x, node, shared, n, g->better, &rules, pn, 1);
    }
    for (size_t i = 0; i < n; i++) {
        if (pf[i].level != MCF_V_PASS) peer_cause(f, g, rows[i], MCF_RULE_FLEET, &pf[i], n);
        /* the node rule adds what the fleet rule did not see */
        if (pn[i].level > pf[i].level) peer_cause(f, g, rows[i], MCF_RULE_NODE, &pn[i], n);
    }
    rc = 0;
done:
    free(x);
    free(clean);
    free(node);
    free(shared);
    free(pf);
    free(pn);
    return rc;
}
