/* The acceptance verdict: PASS, WARN or FAIL per GPU, per node and for the
 * fleet, from figures already read from a results file (report.c reads,
 * report_out.c prints). Pure computation over arrays, so the rules are unit
 * tested without a file (tests/test_verdict.c) and give the same answer on
 * the same file every time. docs/acceptance.md explains every rule. */
#ifndef MCF_VERDICT_H
#define MCF_VERDICT_H

#include <stddef.h>

#include "kernel.h"

enum mcf_vlevel { MCF_V_PASS = 0, MCF_V_WARN = 1, MCF_V_FAIL = 2 };
extern const char *const mcf_vlevel_names[3]; /* "PASS", "WARN", "FAIL" */

/* Which way a metric is good: +1 higher, -1 lower, 0 neither (shown, no
 * peer rule). Each family's row says it of its metrics (struct mcf_metric
 * better); the runner writes it as each metric dataset's attribute "better",
 * which every reader takes (report_legacy.c for files older than it). */
const char *mcf_better_name(int better); /* "higher", "lower", "none" */
int mcf_better_parse(const char *text); /* the inverse; 0 for anything else */

/* The peer rule's settings (defaults: mcf_vrules_default). */
struct mcf_vrules {
    double warn_rel, fail_rel; /* relative floors: 0.035 and 0.07 */
    double alpha; /* expected false flags per metric per fleet under Gaussian noise: 0.01 */
    double k_min; /* the least spread multiplier: 3.5 */
    double small_n; /* spreads from n GPUs are widened by 1 + small_n / sqrt(n): 2.5 */
    double clock_rel; /* in-kernel against the power source's SM clock: 0.02 */
    double power_rel; /* a second power source against the figures' source: 0.05 */
    /* Below prior_n values (5) a fleet is too small to measure its own
     * spread (two GPUs: one of them may be the bad one): the spread is then
     * prior_rel, the between-GPU spread of healthy GPUs of one SKU, 1 %
     * (measured pairs: 0.5 % H200, up to 1.9 % apart; docs/acceptance.md),
     * host_prior_rel for host-backend ranks (CPU ranks sharing cores: 10 %),
     * power_prior_rel for work per joule (3 %: healthy boards of one SKU draw
     * different power at the same rate; H200 pairs up to 6.5 % apart) */
    double prior_rel, host_prior_rel, power_prior_rel;
    size_t prior_n;
};
void mcf_vrules_default(struct mcf_vrules *r);

/* z such that a one-sided normal tail beyond z has probability p (0 < p < 0.5). */
double mcf_normal_quantile_upper(double p);

/* The spread multiplier for a fleet of n values: max(k_min, z(alpha / n)). */
double mcf_peer_z(const struct mcf_vrules *r, size_t n);

/* A robust relative spread of x (NaN ignored) that a bad minority of up to
 * half the values does not inflate: the width of the shortest interval that
 * holds half the values (the shorth), over 1.349 (its width for a normal
 * sample, in sigmas), over |median|. 0 when the values are identical. */
double mcf_shorth_rel_spread(const double *x, size_t n);

/* The spread of the good side alone: (q95 - q75) / (z95 - z75) for higher
 * is better (q25 and q05 for lower), relative to q75 (q25). Up to half the
 * values may be bad without moving it much (they lie below q50), which the
 * shorth cannot promise at exactly half. Used by the node rule. */
double mcf_good_side_rel_spread(const double *x, size_t n, int better);

/* What the peer rule found for one value. */
struct mcf_peer {
    double reference; /* what it was compared with */
    double deviation; /* (value - reference) / |reference|, signed as measured */
    double threshold; /* the bad-direction deviation at which it would warn */
    double fail_threshold; /* ... and fail */
    int level; /* enum mcf_vlevel */
    int prior; /* 1: too few values to measure a spread, the rules' prior_rel stood for it */
    double spread; /* the relative spread s the thresholds were made from */
};

/* The fleet rule: each x[i] (NaN: no figure, level PASS) against the median
 * of x, in the bad direction of BETTER only. Warn beyond
 * Tw = max(warn_rel, z * s), fail beyond Tf = max(fail_rel, Tw * fail_rel /
 * warn_rel), with s mcf_shorth_rel_spread(x) widened for a small fleet
 * (small_n), or prior_rel below prior_n values, and z mcf_peer_z. Returns
 * the number not PASS. */
size_t mcf_peer_fleet(const double *x, size_t n, int better, const struct mcf_vrules *r,
                      struct mcf_peer *out);

/* Below this many values the node rule's spread is at least the fleet's
 * (mcf_shorth_rel_spread): the good side alone is too few values. */
#define MCF_NODE_RULE_MIN_GOOD_SIDE 32

/* The node rule: each x[i] against the best value of its node (node[i];
 * nodes with one value are skipped), thresholds as the fleet rule's with the
 * spread scaled for a difference between a value and the best of G values
 * (sqrt(2) s with s the good side's spread, z for alpha / (n (G - 1))). Catches a problem shared by
 * half of every node's GPUs, which moves the fleet median itself. */
size_t mcf_peer_node(const double *x, const long long *node, size_t n, int better,
                     const struct mcf_vrules *r, struct mcf_peer *out);

/* One reason a GPU is not PASS. */
enum mcf_rule {
    MCF_RULE_FLEET, /* a figure against the fleet median (of its SKU) */
    MCF_RULE_NODE, /* a figure against the best GPU of its node */
    MCF_RULE_PROFILE, /* a figure against its SKU profile's floor (or ceiling) */
    MCF_RULE_VERIFY, /* a kernel produced a wrong result */
    MCF_RULE_STATUS, /* a runtime error, a hang, a cut repetition */
    MCF_RULE_UNSUPPORTED, /* a test of an acceptance deck the device cannot run: the deck is wrong
                             for it */
    MCF_RULE_DECK, /* the acceptance deck does not target this device's architecture */
    MCF_RULE_HEALTH, /* ECC, row remapping, retired pages, PCIe link */
    MCF_RULE_SUSPECT, /* a figure above the SKU's datasheet peak: the measurement is suspect */
    MCF_RULE_CLOCK, /* the in-kernel clock and the power source's disagree: a fraction of peak is
                       suspect */
    MCF_RULE_POWER, /* two power sources of one GPU disagree: the per-watt figures are suspect */
    MCF_RULE_COUNT
};
extern const char *const mcf_rule_names[MCF_RULE_COUNT];
/* 1 for a rule that judges a test's figure (peers, profile, suspect, the two
 * clocks or power sources): the ones another job on the GPU can make fail. */
int mcf_rule_judges_figure(enum mcf_rule rule);

/* Whose fault a cause is: the GPU's; its node's (every GPU of the node has
 * it on that figure); the environment's (another job's compute processes
 * were on the GPU during the test: the GPU may be healthy); the deck's (a
 * deck for another architecture, a test the device cannot run): a
 * technician pulls only the first. */
enum mcf_attr { MCF_ATTR_GPU, MCF_ATTR_NODE, MCF_ATTR_ENV, MCF_ATTR_DECK, MCF_ATTR_COUNT };
extern const char *const mcf_attr_names[MCF_ATTR_COUNT]; /* "gpu", "node", "environment", "deck" */

/* Why a cause is the environment's. */
enum mcf_env {
    MCF_ENV_NONE,
    MCF_ENV_FOREIGN, /* another job's compute processes on the GPU */
    MCF_ENV_OVERSUBSCRIBED, /* host ranks outnumber the node's CPUs: they share cores */
    MCF_ENV_HOST
}; /* host ranks: CPUs the scheduler shares with everything else */

/* The link a transfer test's cause is about (report_links.c), for its next
 * step; NONE for every other test. Link l of enum mcf_link is MCF_CLINK_OF(l). */
#define MCF_CLINK_OF(l) ((l) + 1)
enum mcf_cause_link {
    MCF_CLINK_NONE,
    MCF_CLINK_HOST = MCF_CLINK_OF(MCF_LINK_HOST),
    MCF_CLINK_PEER = MCF_CLINK_OF(MCF_LINK_PEER),
    MCF_CLINK_COLLECTIVE = MCF_CLINK_OF(MCF_LINK_COLLECTIVE),
    MCF_CLINK_NETWORK = MCF_CLINK_OF(MCF_LINK_NETWORK)
};

struct mcf_cause;
/* What to do about a cause, in a few words: by its attribution where that
 * is not the GPU, else by its rule. */
const char *mcf_cause_next(const struct mcf_cause *c);

struct mcf_cause {
    size_t rank; /* row of the file */
    int rule, level;
    int attr; /* enum mcf_attr: whose fault it is */
    int env; /* MCF_ATTR_ENV's reason: enum mcf_env */
    int link; /* enum mcf_cause_link */
    char test[128], metric[64];
    double value, reference, deviation; /* NaN where they do not apply */
    double severity; /* for ordering: bad deviation over the warn threshold; large for a FAIL by
                        rule */
    char text[320]; /* what a technician reads */
};

struct mcf_causes {
    struct mcf_cause *v;
    size_t n, cap;
    int oom;
};
void mcf_causes_add(struct mcf_causes *c, const struct mcf_cause *x);
void mcf_causes_free(struct mcf_causes *c);

/* Per GPU, per node and fleet levels from the causes. */
struct mcf_rollup {
    size_t nranks, nnodes;
    int *gpu, *node; /* enum mcf_vlevel per row, per node index */
    double *severity; /* per row: the largest severity of its causes */
    int *attr; /* per row: MCF_ATTR_GPU if any cause is the GPU's, else NODE, else DECK */
    size_t *order; /* rows not PASS, worst first (level, the GPU's own before a node's or deck's,
                    * then severity); norder of them */
    size_t norder;
    size_t count[3]; /* GPUs per level */
    size_t node_count[3];
    int fleet; /* the worst GPU level */
};
/* node: per-row node index (0..nnodes-1) or NULL (every row its own node).
 * Returns 0, or -1 out of memory. */
int mcf_rollup(const struct mcf_causes *c, size_t nranks, const long long *node,
               struct mcf_rollup *r);
void mcf_rollup_free(struct mcf_rollup *r);

/* Attributes to the node the causes of rule FLEET or PROFILE for which every
 * row of a node with at least two rows has a FLEET or PROFILE cause on the
 * same test and metric. */
void mcf_causes_attribute_nodes(struct mcf_causes *c, size_t nranks, const long long *node);

#endif
