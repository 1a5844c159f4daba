#include "verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

const char *const mcf_vlevel_names[3] = { "PASS", "WARN", "FAIL" };
const char *const mcf_attr_names[MCF_ATTR_COUNT] = { "gpu", "node", "environment", "deck" };

/* The next step per rule, for a cause that is the GPU's own. */
static const char *const rule_next[MCF_RULE_COUNT] = {
    [MCF_RULE_FLEET] =
        "rerun it on this GPU alone; if it stays low, check its clocks, power cap and cooling, "
        "then return it",
    [MCF_RULE_NODE] = "rerun it on this GPU alone; if it stays below its node's best, check its "
                      "clocks, power cap "
                      "and cooling, then return it",
    [MCF_RULE_PROFILE] =
        "rerun the deck; below the floor again, compare with its history (mcfleet compare) and "
        "return it",
    [MCF_RULE_VERIFY] = "take it out of service (wrong results); rerun to confirm, then return it",
    [MCF_RULE_STATUS] =
        "read the test's message and rerun; an error or hang that recurs on this GPU is its own "
        "or its driver's",
    [MCF_RULE_UNSUPPORTED] = "run the acceptance deck of its architecture (mcfleet --acceptance)",
    [MCF_RULE_DECK] = "run the acceptance deck of its architecture (mcfleet --acceptance)",
    [MCF_RULE_HEALTH] =
        "drain the node, run the vendor's diagnostics (dcgmi diag -r 3, rvs), return the GPU",
    [MCF_RULE_SUSPECT] =
        "check its clocks and the timer: a figure above the peak is a measurement error, not speed",
    [MCF_RULE_CLOCK] =
        "rerun and watch both clocks (nvidia-smi -q -d CLOCK, rocm-smi); its fraction of peak is "
        "suspect until then",
    [MCF_RULE_POWER] = "check its power sources against each other (the node's meter, "
                       "NVML/rocm-smi); its per-watt "
                       "figures are suspect until then",
};

/* The next step for a transfer test's figure: the link it crossed. */
static const char *const link_next[MCF_CLINK_NETWORK + 1] = {
    [MCF_CLINK_HOST] =
        "check the GPU's host link: its PCIe width and generation now and under load (nvidia-smi "
        "-q "
        "-d PCI, lspci -vv LnkSta against LnkCap), reseat the GPU or its riser; then rerun",
    [MCF_CLINK_PEER] =
        "check the NVLink/xGMI links between the two GPUs: their state and error counters "
        "(nvidia-smi nvlink -s / -e, amd-smi xgmi); a link down or counting errors: reseat or "
        "return",
    [MCF_CLINK_COLLECTIVE] =
        "check the links of the GPUs in it (the peer matrix, the network's worst pairs) and "
        "the library's transport (NCCL_DEBUG=INFO); rerun",
    [MCF_CLINK_NETWORK] =
        "check the node's network card, cable and switch port (link speed, error counters: "
        "ibstat, perfquery, ethtool -S); move the cable or swap the card, then rerun",
};

const char *mcf_cause_next(const struct mcf_cause *c)
{
    if (c->attr == MCF_ATTR_ENV && c->env == MCF_ENV_OVERSUBSCRIBED)
        return "run at most one rank per CPU core (this node's ranks outnumbered its CPUs and "
               "shared them)";
    if (c->attr == MCF_ATTR_ENV && c->env == MCF_ENV_HOST)
        return "none for the GPUs: host ranks test the pipeline; run a GPU backend for a verdict "
               "on GPUs";
    if (c->attr == MCF_ATTR_ENV)
        return "rerun with the GPU exclusive (another job's processes were on it: srun "
               "--exclusive, or drain "
               "the other job); judge it only then";
    if (c->link > MCF_CLINK_NONE && c->link <= MCF_CLINK_NETWORK && c->attr != MCF_ATTR_DECK)
        return link_next[c->link];
    if (c->attr == MCF_ATTR_NODE)
        return "check the node before its GPUs: power, cooling, CPU binding, its PCIe switch";
    if (c->attr == MCF_ATTR_DECK)
        return "run the acceptance deck of its architecture (mcfleet --acceptance)";
    if (c->rule == MCF_RULE_HEALTH && c->level == MCF_V_WARN && !strncmp(c->metric, "nvlink_", 7))
        return "rerun and watch the link's counters (nvidia-smi nvlink -e); if they keep growing, "
               "reseat the GPU, "
               "check its NVLink bridge or the baseboard and run the vendor's field diagnostics";
    if (c->rule == MCF_RULE_HEALTH &&
        (!strncmp(c->metric, "nvlink_", 7) || !strncmp(c->metric, "xgmi_", 5)))
        return "drain the node; reseat the GPU and check its NVLink bridge or the baseboard (xGMI: "
               "the baseboard and "
               "its OAM seating), then run the vendor's field diagnostics (NVIDIA field diag or "
               "dcgmi diag -r 3; AMD "
               "rvs/AGFHC); return the GPU or board if the link stays down or keeps erring";
    return c->rule >= 0 && c->rule < MCF_RULE_COUNT && rule_next[c->rule] ? rule_next[c->rule]
                                                                          : "rerun it";
}
const char *const mcf_rule_names[MCF_RULE_COUNT] = {
    [MCF_RULE_FLEET] = "fleet-peer",  [MCF_RULE_NODE] = "node-peer",
    [MCF_RULE_PROFILE] = "profile",   [MCF_RULE_VERIFY] = "verification",
    [MCF_RULE_STATUS] = "status",     [MCF_RULE_UNSUPPORTED] = "unsupported",
    [MCF_RULE_DECK] = "deck",         [MCF_RULE_HEALTH] = "health",
    [MCF_RULE_SUSPECT] = "suspect",   [MCF_RULE_CLOCK] = "clock-check",
    [MCF_RULE_POWER] = "power-check",
};

int mcf_rule_judges_figure(enum mcf_rule rule)
{
    return rule == MCF_RULE_FLEET || rule == MCF_RULE_NODE || rule == MCF_RULE_PROFILE ||
        rule == MCF_RULE_SUSPECT || rule == MCF_RULE_CLOCK || rule == MCF_RULE_POWER;
}

const char *mcf_better_name(int better)
{
    return better > 0 ? "higher" : better < 0 ? "lower" : "none";
}

int mcf_better_parse(const char *t)
{
    return !strcmp(t, "higher") ? 1 : !strcmp(t, "lower") ? -1 : 0;
}

void mcf_vrules_default(struct mcf_vrules *r)
{
    *r = (struct mcf_vrules){ .warn_rel = 0.035,
                              .fail_rel = 0.07,
                              .alpha = 0.01,
                              .k_min = 3.5,
                              .small_n = 2.5,
                              .clock_rel = 0.02,
                              .power_rel = 0.05,
                              .prior_rel = 0.01,
                              .host_prior_rel = 0.10,
                              .power_prior_rel = 0.03,
                              .prior_n = 5 };
}

double mcf_normal_quantile_upper(double p)
{
    if (!(p > 0)) return 40.0;
    if (p >= 0.5) return 0.0;
    /* bisection on the upper tail 0.5 erfc(z / sqrt 2), decreasing in z */
    double lo = 0.0, hi = 40.0;
    for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
        double mid = 0.5 * (lo + hi);
        if (0.5 * erfc(mid / sqrt(2.0)) > p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double mcf_peer_z(const struct mcf_vrules *r, size_t n)
{
    double z = mcf_normal_quantile_upper(r->alpha / (double)(n ? n : 1));
    return z > r->k_min ? z : r->k_min;
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The finite values of x, sorted, in a fresh array (*m of them); NULL when
 * out of memory. */
static double *sorted_finite(const double *x, size_t n, size_t *m)
{
    double *v = malloc(sizeof *v * (n ? n : 1));
    *m = 0;
    if (!v) return NULL;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) v[(*m)++] = x[i];
    qsort(v, *m, sizeof *v, dcmp);
    return v;
}

double mcf_shorth_rel_spread(const double *x, size_t n)
{
    size_t m;
    double *v = sorted_finite(x, n, &m);
    if (!v) return NAN;
    if (m < 2) {
        free(v);
        return 0.0;
    }
    size_t h = m / 2 + 1; /* values in the interval: half, and one more */
    double width = INFINITY;
    for (size_t i = 0; i + h <= m; i++)
        if (v[i + h - 1] - v[i] < width) width = v[i + h - 1] - v[i];
    double med = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
    free(v);
    if (med == 0.0) return width == 0.0 ? 0.0 : INFINITY;
    return width / 1.349 / fabs(med);
}

/* Quantile q of sorted v[0..m-1], interpolated. */
static double quantile(const double *v, size_t m, double q)
{
    double at = q * (double)(m - 1);
    size_t i = (size_t)at;
    return i + 1 < m ? v[i] + (at - (double)i) * (v[i + 1] - v[i]) : v[m - 1];
}

double mcf_good_side_rel_spread(const double *x, size_t n, int better)
{
    size_t m;
    double *v = sorted_finite(x, n, &m);
    if (!v) return NAN;
    double s = 0.0;
    if (m >= 2) {
        /* z(0.95) - z(0.75) = 1.6449 - 0.6745 */
        double a = better < 0 ? quantile(v, m, 0.05) : quantile(v, m, 0.75),
               b = better < 0 ? quantile(v, m, 0.25) : quantile(v, m, 0.95);
        double mid = better < 0 ? quantile(v, m, 0.25) : quantile(v, m, 0.75);
        s = mid != 0.0 ? (b - a) / 0.9704 / fabs(mid) : (b == a ? 0.0 : INFINITY);
    }
    free(v);
    return s;
}

/* A spread estimated from few GPUs is often too small, and a threshold made
 * from it flags healthy GPUs: it is widened by 1 + c / sqrt(n). c = 2.5
 * brought the chance flags of a 64-GPU fleet (Gaussian noise, 1-2 %) from
 * about 0.4 % to 0.04 % of GPUs per figure (docs/acceptance.md). */
static double small_sample(const struct mcf_vrules *r, size_t n)
{
    return 1.0 + r->small_n / sqrt((double)(n ? n : 1));
}

/* The level of a bad-direction deviation BAD (>= 0 is bad) for warn threshold TW. */
static double fail_of(double tw, const struct mcf_vrules *r);

static int level_of(double bad, double tw, const struct mcf_vrules *r)
{
    double tf = fail_of(tw, r);
    return bad > tf ? MCF_V_FAIL : bad > tw ? MCF_V_WARN : MCF_V_PASS;
}

static double fail_of(double tw, const struct mcf_vrules *r)
{
    return r->fail_rel > tw ? r->fail_rel : tw * r->fail_rel / r->warn_rel;
}

static size_t judge(const double *x, const double *ref, size_t n, int better, const double *tw,
                    const struct mcf_vrules *r, int prior, double spread, struct mcf_peer *out)
{
    size_t flagged = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = (struct mcf_peer){ .reference = ref[i],
                                    .deviation = NAN,
                                    .threshold = tw[i],
                                    .fail_threshold = fail_of(tw[i], r),
                                    .level = MCF_V_PASS,
                                    .prior = prior,
                                    .spread = spread };
        if (!isfinite(x[i]) || !isfinite(ref[i]) || ref[i] == 0.0 || better == 0) continue;
        out[i].deviation = (x[i] - ref[i]) / fabs(ref[i]);
        out[i].level = level_of(-better * out[i].deviation, tw[i], r);
        flagged += out[i].level != MCF_V_PASS;
    }
    return flagged;
}

size_t mcf_peer_fleet(const double *x, size_t n, int better, const struct mcf_vrules *r,
                      struct mcf_peer *out)
{
    size_t nf = mcf_count_finite(x, n);
    int prior = nf < r->prior_n;
    double med = mcf_median(x, n),
           s = prior ? r->prior_rel : mcf_shorth_rel_spread(x, n) * small_sample(r, nf);
    double tw = mcf_peer_z(r, nf) * (isfinite(s) ? s : 0.0);
    if (tw < r->warn_rel) tw = r->warn_rel;
    double *ref = malloc(sizeof *ref * (n ? n : 1)), *t = malloc(sizeof *t * (n ? n : 1));
    size_t flagged = 0;
    if (ref && t) {
        for (size_t i = 0; i < n; i++) {
            ref[i] = med;
            t[i] = tw;
        }
        flagged = judge(x, ref, n, better, t, r, prior, s, out);
    } else {
        for (size_t i = 0; i < n; i++)
            out[i] = (struct mcf_peer){ .reference = NAN, .deviation = NAN, .threshold = NAN };
    }
    free(ref);
    free(t);
    return flagged;
}

size_t mcf_peer_node(const double *x, const long long *node, size_t n, int better,
                     const struct mcf_vrules *r, struct mcf_peer *out)
{
    long long nnodes = 0;
    for (size_t i = 0; i < n; i++)
        if (node[i] + 1 > nnodes) nnodes = node[i] + 1;
    double *best = malloc(sizeof *best * (size_t)(nnodes ? nnodes : 1));
    size_t *count = calloc((size_t)(nnodes ? nnodes : 1), sizeof *count);
    double *ref = malloc(sizeof *ref * (n ? n : 1)), *t = malloc(sizeof *t * (n ? n : 1));
    size_t flagged = 0, gmax = 1;
    if (!best || !count || !ref || !t) {
        for (size_t i = 0; i < n; i++)
            out[i] = (struct mcf_peer){ .reference = NAN, .deviation = NAN, .threshold = NAN };
        goto done;
    }
    for (long long k = 0; k < nnodes; k++) best[k] = NAN;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || node[i] < 0) continue;
        double *b = &best[node[i]];
        if (!isfinite(*b) || (better > 0 ? x[i] > *b : x[i] < *b)) *b = x[i];
        if (++count[node[i]] > gmax) gmax = count[node[i]];
    }
    /* a value minus the best of G: the difference of two draws (sqrt 2), and
     * G - 1 chances for another GPU of the node to be far above */
    size_t nf = mcf_count_finite(x, n);
    double s = mcf_good_side_rel_spread(x, n, better);
    /* the good side of fewer than 32 values is two or three of them: too
     * few to trust (8 healthy host ranks were flagged in 1 run of 4); there
     * the fleet's own spread is the least it may be */
    if (nf < MCF_NODE_RULE_MIN_GOOD_SIDE) {
        double all = mcf_shorth_rel_spread(x, n);
        if (all > s) s = all;
    }
    s *= small_sample(r, nf);
    int prior = nf < r->prior_n;
    if (prior) s = r->prior_rel;
    double z = mcf_peer_z(r, nf * (gmax > 1 ? gmax - 1 : 1));
    double tw = z * sqrt(2.0) * (isfinite(s) ? s : 0.0);
    if (tw < r->warn_rel) tw = r->warn_rel;
    for (size_t i = 0; i < n; i++) {
        ref[i] = node[i] >= 0 && count[node[i]] > 1 ? best[node[i]] : NAN;
        t[i] = tw;
    }
    flagged = judge(x, ref, n, better, t, r, prior, s, out);
done:
    free(best);
    free(count);
    free(ref);
    free(t);
    return flagged;
}

void mcf_causes_add(struct mcf_causes *c, const struct mcf_cause *x)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        struct mcf_cause *v = realloc(c->v, cap * sizeof *v);
        if (!v) {
            c->oom = 1;
            return;
        }
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n++] = *x;
}

void mcf_causes_free(struct mcf_causes *c)
{
    free(c->v);
    memset(c, 0, sizeof *c);
}

static int worst_first(const void *a, const void *b, const struct mcf_rollup *r)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (r->gpu[i] != r->gpu[j]) return r->gpu[j] - r->gpu[i];
    if (r->attr[i] != r->attr[j]) return r->attr[i] - r->attr[j];
    if (r->severity[i] != r->severity[j]) return r->severity[j] > r->severity[i] ? 1 : -1;
    return (i > j) - (i < j);
}

/* qsort's comparison has no context argument: a merge sort passes the
 * rollup explicitly (no globals), O(n log n) at a million rows */
static void merge_sort(size_t *v, size_t *tmp, size_t n, const struct mcf_rollup *r)
{
    if (n < 2) return;
    size_t h = n / 2;
    merge_sort(v, tmp, h, r);
    merge_sort(v + h, tmp, n - h, r);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = worst_first(&v[j], &v[i], r) < 0 ? v[j++] : v[i++];
    while (i < h) tmp[k++] = v[i++];
    while (j < n) tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

int mcf_rollup(const struct mcf_causes *c, size_t nranks, const long long *node,
               struct mcf_rollup *r)
{
    memset(r, 0, sizeof *r);
    r->nranks = nranks;
    long long nnodes = 0;
    for (size_t i = 0; i < nranks; i++) {
        long long k = node ? node[i] : (long long)i;
        if (k + 1 > nnodes) nnodes = k + 1;
    }
    r->nnodes = (size_t)nnodes;
    r->gpu = calloc(nranks ? nranks : 1, sizeof *r->gpu);
    r->node = calloc(r->nnodes ? r->nnodes : 1, sizeof *r->node);
    r->severity = calloc(nranks ? nranks : 1, sizeof *r->severity);
    r->attr = malloc((nranks ? nranks : 1) * sizeof *r->attr);
    r->order = malloc((nranks ? nranks : 1) * sizeof *r->order);
    size_t *tmp = malloc((nranks ? nranks : 1) * sizeof *tmp);
    if (!r->gpu || !r->node || !r->severity || !r->attr || !r->order || !tmp) {
        free(tmp);
        mcf_rollup_free(r);
        return -1;
    }
    for (size_t i = 0; i < nranks; i++) r->attr[i] = MCF_ATTR_COUNT; /* none yet */
    for (size_t k = 0; k < c->n; k++) {
        const struct mcf_cause *x = &c->v[k];
        if (x->rank >= nranks) continue;
        if (x->level > MCF_V_PASS && x->attr < r->attr[x->rank]) r->attr[x->rank] = x->attr;
        if (x->level > r->gpu[x->rank]) r->gpu[x->rank] = x->level;
        if (x->level > MCF_V_PASS && x->severity > r->severity[x->rank])
            r->severity[x->rank] = x->severity;
    }
    for (size_t i = 0; i < nranks; i++) {
        long long k = node ? node[i] : (long long)i;
        if (r->attr[i] == MCF_ATTR_COUNT) r->attr[i] = MCF_ATTR_GPU;
        if (k >= 0 && r->gpu[i] > r->node[k]) r->node[k] = r->gpu[i];
        r->count[r->gpu[i]]++;
        if (r->gpu[i] > r->fleet) r->fleet = r->gpu[i];
        if (r->gpu[i] != MCF_V_PASS) r->order[r->norder++] = i;
    }
    for (size_t k = 0; k < r->nnodes; k++) r->node_count[r->node[k]]++;
    merge_sort(r->order, tmp, r->norder, r);
    free(tmp);
    return 0;
}

void mcf_rollup_free(struct mcf_rollup *r)
{
    free(r->gpu);
    free(r->node);
    free(r->severity);
    free(r->attr);
    free(r->order);
    memset(r, 0, sizeof *r);
}

/* Causes sorted by (test, metric, node, row), to find the nodes whose every
 * row has a fleet or profile cause on one figure. */
struct keyed {
    const struct mcf_cause *c;
    size_t index;
    long long node;
};

static int key_cmp(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    int d = strcmp(x->c->test, y->c->test);
    if (!d) d = strcmp(x->c->metric, y->c->metric);
    if (!d) d = (x->node > y->node) - (x->node < y->node);
    if (!d) d = (x->c->rank > y->c->rank) - (x->c->rank < y->c->rank);
    return d;
}

void mcf_causes_attribute_nodes(struct mcf_causes *c, size_t nranks, const long long *node)
{
    if (!node || !c->n) return;
    long long nnodes = 0;
    for (size_t i = 0; i < nranks; i++)
        if (node[i] + 1 > nnodes) nnodes = node[i] + 1;
    size_t *size = calloc((size_t)(nnodes ? nnodes : 1), sizeof *size);
    struct keyed *k = malloc(c->n * sizeof *k);
    size_t m = 0;
    if (!size || !k) {
        c->oom = 1;
        goto done;
    }
    for (size_t i = 0; i < nranks; i++)
        if (node[i] >= 0) size[node[i]]++;
    for (size_t i = 0; i < c->n; i++) {
        const struct mcf_cause *x = &c->v[i];
        if ((x->rule == MCF_RULE_FLEET || x->rule == MCF_RULE_PROFILE) && x->level > MCF_V_PASS &&
            x->rank < nranks && node[x->rank] >= 0)
            k[m++] = (struct keyed){ .c = x, .index = i, .node = node[x->rank] };
    }
    qsort(k, m, sizeof *k, key_cmp);
    for (size_t a = 0; a < m;) {
        size_t b = a + 1, distinct = 1;
        while (b < m && !strcmp(k[b].c->test, k[a].c->test) &&
               !strcmp(k[b].c->metric, k[a].c->metric) && k[b].node == k[a].node) {
            distinct += k[b].c->rank != k[b - 1].c->rank;
            b++;
        }
        if (size[k[a].node] > 1 && distinct == size[k[a].node])
            for (size_t i = a; i < b; i++) c->v[k[i].index].attr = MCF_ATTR_NODE;
        a = b;
    }
done:
    free(size);
    free(k);
}
