/* The verdict's rules applied to what report.c read: the peer rules per SKU
 * (verdict.h), the SKU profile's floors, the health counters and the deck's
 * architecture; the per-test status causes were added while reading. Every
 * cause names the GPU's row, the rule, the figure and the reference. */
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
#include "report_links.h"
#include "stats.h"

/* Rows of one SKU: the peer rules compare a GPU only with GPUs of its kind. */
struct sku_row {
    const char *name;
    size_t row;
};

static int by_name(const void *a, const void *b)
{
    const struct sku_row *x = a, *y = b;
    int d = strcmp(x->name, y->name);
    return d ? d : (x->row > y->row) - (x->row < y->row);
}

void mcf_cause_add(struct fleet *f, size_t row, int rule, int level, const char *test,
                   const char *metric, double value, double reference, double severity,
                   const char *fmt, ...)
{
    struct mcf_cause c = { .rank = row,
                           .rule = rule,
                           .level = level,
                           .value = value,
                           .reference = reference,
                           .deviation = isfinite(value) && isfinite(reference) && reference != 0
                               ? (value - reference) / fabs(reference)
                               : NAN,
                           .severity = severity };
    snprintf(c.test, sizeof c.test, "%s", test ? test : "");
    snprintf(c.metric, sizeof c.metric, "%s", metric ? metric : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c.text, sizeof c.text, fmt, ap);
    va_end(ap);
    mcf_causes_add(&f->causes, &c);
}

/* The profile's floor (or ceiling) of each figure it names, and figures
 * above the datasheet's peak, which no healthy GPU reaches. */
static void judge_profile(struct fleet *f, const struct mcf_profile *p, const size_t *rows,
                          size_t n)
{
    double *x = malloc(sizeof *x * n);
    if (!x) {
        f->oom = 1;
        return;
    }
    mcf_lines_add(&f->profile_table, &f->oom, "%s (%s):\n", p->sku, p->path);
    mcf_lines_add(&f->profile_table, &f->oom, "  %-36s %-14s %12s %12s %12s %7s %9s\n", "test",
                  "metric", "median", "expected", "floor/ceil", "of exp.", "beyond");
    for (size_t k = 0; k < f->nfigs; k++) {
        const struct fig *g = &f->figs[k];
        const struct mcf_profile_test *t = mcf_profile_test(p, g->test, g->metric);
        if (!t) continue;
        const struct test_facts *facts = mcf_facts_of(f, g->test);
        const char *here = facts ? facts->id.measured : "";
        if (!t->measured[0] || strcmp(t->measured, here)) {
            /* the same name, another measurement (the default deck's mma.sync
             * matrix-fp64 against the acceptance deck's): never judged by it */
            mcf_lines_add(&f->profile_table, &f->oom,
                          "  %-36.36s %-14.14s not judged against the profile: %s\n", g->test,
                          g->metric,
                          !t->measured[0] ? "the profile does not say what its figure measured "
                                            "(no 'measured:'; mcfleet baseline writes it)"
                                          : "it measured something else");
            if (t->measured[0])
                mcf_lines_add(&f->profile_table, &f->oom,
                              "      this file: %.240s\n      profile:   %.240s\n",
                              here[0] ? here : "(not recorded)", t->measured);
            continue;
        }
        int higher = t->higher_is_better;
        if ((higher ? 1 : -1) != g->better) { /* the file's direction is the metric's */
            mcf_lines_add(&f->profile_table, &f->oom,
                          "  %-36.36s %-14.14s not judged against the profile: its %s "
                          "bounds a %s-is-better figure, but this file's %s is %s-is-better\n",
                          g->test, g->metric, higher ? "floor" : "ceiling",
                          higher ? "higher" : "lower", g->metric,
                          g->better > 0 ? "higher" : "lower");
            continue;
        }
        size_t beyond = 0;
        for (size_t i = 0; i < n; i++) {
            x[i] = g->med[rows[i]];
            beyond += isfinite(x[i]) && (higher ? x[i] < t->bound : x[i] > t->bound);
        }
        double med = mcf_median(x, n);
        mcf_lines_add(&f->profile_table, &f->oom,
                      "  %-36.36s %-14.14s %12.5g %12.5g %12.5g %6.1f%% %4zu/%-4zu\n", g->test,
                      g->metric, med, t->expected, t->bound, 100 * med / t->expected, beyond, n);
        for (size_t i = 0; i < n; i++) {
            double v = g->med[rows[i]];
            if (!isfinite(v)) continue;
            if (f->quick == 1 && (higher ? v < t->bound : v > t->bound))
                continue; /* a --quick run's small sizes are not what the floors are for (said once)
                           */
            if (higher ? v < t->bound : v > t->bound)
                mcf_cause_add(f, rows[i], MCF_RULE_PROFILE, MCF_V_FAIL, g->test, g->metric, v,
                              t->bound, 10 + fabs(v - t->bound) / fabs(t->bound),
                              "%s %s %.5g %s: %s the %s's %s %.5g (expected %.5g, source %.60s)",
                              g->test, g->metric, v, g->unit, higher ? "below" : "above", p->sku,
                              higher ? "floor" : "ceiling", t->bound, t->expected,
                              t->source_id[0] ? t->source_id : t->source);
            else if (higher && t->expected > 0 && v > t->expected &&
                     t->source_id[0]) /* a datasheet's peak;
                a measured figure (a baseline) is no peak */
                mcf_cause_add(f, rows[i], MCF_RULE_SUSPECT, MCF_V_WARN, g->test, g->metric, v,
                              t->expected, v / t->expected - 1,
                              "%s %s %.5g %s: %.1f%% above the %s's datasheet figure %.5g (its "
                              "peak at the board's "
                              "maximum clock): a figure the hardware cannot reach unless its clock "
                              "ran above that maximum "
                              "(see the test's two clocks) or the timing is wrong",
                              g->test, g->metric, v, g->unit, 100 * (v / t->expected - 1), p->sku,
                              t->expected);
        }
    }
    /* the profile's tests this file does not have: said, not judged */
    for (size_t j = 0; j < p->ntests; j++) {
        int found = 0;
        for (size_t k = 0; k < f->nfigs && !found; k++)
            found = !strcmp(f->figs[k].test, p->tests[j].test) &&
                !strcmp(f->figs[k].metric, p->tests[j].metric);
        if (!found)
            mcf_lines_add(&f->profile_table, &f->oom,
                          "  %-36.36s %-14.14s %12s %12.5g %12.5g   (not in this file)\n",
                          p->tests[j].test, p->tests[j].metric, "-", p->tests[j].expected,
                          p->tests[j].bound);
    }
    free(x);
}

/* Two readings of one quantity, per test, as a ratio per GPU (an EV_
 * column): where it departs from 1 by more than rel the GPU is flagged with
 * both readings. Judged per SKU (rows): where more than half of the SKU's
 * GPUs (at least 2) part the two the same way on a test, that is the SKU's
 * way of reading it under that load, not a GPU's fault: said once for the
 * fleet (one line per SKU and check, naming the tests), and each GPU is
 * checked against the SKU's median ratio instead of 1, so only a GPU unlike
 * its peers is flagged. */
struct pair_check {
    int col, rule;
    const char *what; /* "the in-kernel and the power source's SM clocks" */
    double (*rel)(const struct mcf_vrules *r);
    /* a GPU's cause: its two readings and how they part (ref 1: against 1) */
    void (*cause)(struct fleet *f, const struct evidence *ev, size_t r, double ref, double d,
                  double rel);
};

static double clock_rel(const struct mcf_vrules *r)
{
    return r->clock_rel;
}
static double power_rel(const struct mcf_vrules *r)
{
    return r->power_rel;
}

/* The in-kernel clock (cycles over the GPU's timer) against the power
 * source's SM clock over the same repetitions: the fraction of peak at the
 * measured clock rests on the first. An H100 parts them in bursts of tensor
 * work (the SMs slow at once, NVML keeps its set clock) and after a load
 * (docs/performance.md, "Which clock"); an H200 under wgmma reads NVML's SM
 * clock 9-10% above the SMs' effective one on every GPU (the SKU case). */
static void clock_cause(struct fleet *f, const struct evidence *ev, size_t r, double ref, double d,
                        double rel)
{
    const double *ratio = ev->col[EV_CLOCK_RATIO], *sm = ev->col[EV_SM_MHZ];
    const struct fig *clk = mcf_fig_of(f, ev->test, "clock_mhz");
    if (ref == 1.0)
        mcf_cause_add(f, r, MCF_RULE_CLOCK, MCF_V_WARN, ev->test, "clock_mhz", ratio[r], 1.0,
                      fabs(d) / rel,
                      "%s: the in-kernel clock %.0f MHz and the power source's %.0f MHz differ by "
                      "%+.1f%% (more than "
                      "%.0f%%, median over the repetitions): a figure per clock or fraction of "
                      "peak is only as good "
                      "as the clock it used",
                      ev->test, clk ? clk->med[r] : NAN, sm ? sm[r] : NAN, 100 * d, 100 * rel);
    else
        mcf_cause_add(
            f, r, MCF_RULE_CLOCK, MCF_V_WARN, ev->test, "clock_mhz", ratio[r], ref, fabs(d) / rel,
            "%s: the in-kernel clock %.0f MHz over the power source's %.0f MHz is %.3f, %+.1f%% "
            "from its "
            "SKU's median ratio %.3f (more than %.0f%%): this GPU reads its clock unlike its peers",
            ev->test, clk ? clk->med[r] : NAN, sm ? sm[r] : NAN, ratio[r], 100 * d, ref, 100 * rel);
}

/* A second power source against the one the figures come from, over the
 * whole test: rocm-smi and amd-smi read the same package (a disagreement is
 * a library's), NVML or rocm-smi and a Cray node's accelerator counter are
 * two sensors. The per-watt figures are only as good as their source. */
static void power_cause(struct fleet *f, const struct evidence *ev, size_t r, double ref, double d,
                        double rel)
{
    const double *ratio = ev->col[EV_POWER_RATIO], *w = ev->col[EV_POWER];
    const char *other = mcf_strs_at(&ev->ratio_src, r),
               *primary = mcf_strs_at(&f->primary_source, r);
    double pw = w ? w[r] : NAN;
    if (ref == 1.0)
        mcf_cause_add(f, r, MCF_RULE_POWER, MCF_V_WARN, ev->test, "test_avg_power_w", ratio[r], 1.0,
                      fabs(d) / rel,
                      "%s: power sources disagree: %s reads %.0f W where %s, the figures' source, "
                      "reads %.0f W (%+.1f%%, "
                      "more than %.0f%%, over the whole test): the power and per-watt figures are "
                      "only as good as their "
                      "source",
                      ev->test, other, pw * ratio[r], primary, pw, 100 * d, 100 * rel);
    else
        mcf_cause_add(
            f, r, MCF_RULE_POWER, MCF_V_WARN, ev->test, "test_avg_power_w", ratio[r], ref,
            fabs(d) / rel,
            "%s: %s reads %.0f W where %s reads %.0f W, a ratio of %.3f, %+.1f%% from its SKU's "
            "median ratio "
            "%.3f (more than %.0f%%): this GPU's power sources disagree unlike its peers'",
            ev->test, other, pw * ratio[r], primary, pw, ratio[r], 100 * d, ref, 100 * rel);
}

static const struct pair_check pair_checks[] = {
    { .col = EV_CLOCK_RATIO,
      .rule = MCF_RULE_CLOCK,
      .what = "the in-kernel and the power source's SM clocks",
      .rel = clock_rel,
      .cause = clock_cause },
    { .col = EV_POWER_RATIO,
      .rule = MCF_RULE_POWER,
      .what = "the two power sources",
      .rel = power_rel,
      .cause = power_cause },
};

static void judge_pair(struct fleet *f, const struct pair_check *pc, const char *sku,
                       const size_t *rows, size_t n)
{
    double rel = pc->rel(&f->opts->rules), lo = INFINITY, hi = -INFINITY;
    double *q = malloc(sizeof *q * (n ? n : 1));
    char tests[512] = "";
    size_t len = 0, ntests = 0, most = 0, kmin = SIZE_MAX, kmax = 0;
    if (!q) {
        f->oom = 1;
        return;
    }
    for (size_t i = 0; i < f->nev; i++) {
        const struct evidence *ev = &f->ev[i];
        const double *ratio = ev->col[pc->col];
        if (!ratio) continue;
        size_t m = 0, low = 0, high = 0;
        /* a GPU another job shared is no reference (judge_peers), unless
         * fewer than 2 others are left to show the SKU's own reading */
        size_t clean = 0;
        for (size_t k = 0; k < n; k++)
            clean += isfinite(ratio[rows[k]]) && !(mcf_foreign_procs(f, rows[k], ev->test) > 0);
        for (size_t k = 0; k < n; k++)
            if (isfinite(ratio[rows[k]]) &&
                (clean < 2 || !(mcf_foreign_procs(f, rows[k], ev->test) > 0))) {
                q[m++] = ratio[rows[k]];
                low += ratio[rows[k]] < 1 - rel;
                high += ratio[rows[k]] > 1 + rel;
            }
        double ref = 1.0;
        if (m >= 2 && (2 * low > m || 2 * high > m)) {
            ref = mcf_median(q, m);
            lo = ref < lo ? ref : lo;
            hi = ref > hi ? ref : hi;
            most = m;
            size_t k = 2 * low > m ? low : high;
            kmin = k < kmin ? k : kmin;
            kmax = k > kmax ? k : kmax;
            if (len < sizeof tests)
                len += (size_t)snprintf(tests + len, sizeof tests - len, "%s%s", ntests ? ", " : "",
                                        ev->test);
            ntests++;
        }
        for (size_t k = 0; k < n; k++) {
            size_t r = rows[k];
            double d = ratio[r] / ref - 1;
            if (isfinite(d) && fabs(d) > rel) pc->cause(f, ev, r, ref, d, rel);
        }
    }
    if (ntests) {
        char range[64], top[24];
        snprintf(range, sizeof range, "%.3f", lo);
        snprintf(top, sizeof top, "%.3f", hi);
        if (strcmp(top, range)) /* two values at this precision */
            snprintf(range + strlen(range), sizeof range - strlen(range), " to %s", top);
        mcf_lines_add(
            &f->profiles, &f->oom,
            "%.100s: %s differ the same way on %s%zu of %zu GPUs on %zu test%s (%.300s%s), median "
            "ratio %s: this SKU's reading under that load, not a GPU's fault; each GPU is checked "
            "against "
            "its SKU's median there (%s)\n",
            sku, pc->what, kmin < kmax ? "up to " : "", kmax, most, ntests, ntests == 1 ? "" : "s",
            tests, len >= sizeof tests ? "..." : "", range, mcf_rule_names[pc->rule]);
    }
    free(q);
}

/* Where the GPUs' power figures come from, per source: "power figures: rsmi
 * on 4 of 8 GPUs, none on 4" (an MI250X's secondary GCDs report none: their
 * package's power is on the primary's). Files before 2026-11-26 do not say. */
static void power_sources_line(struct fleet *f)
{
    const char *name[8];
    size_t count[8] = { 0 }, kinds = 0, none = 0;
    char line[320];
    size_t len;
    if (!f->primary_source.buf) return;
    for (size_t r = 0; r < f->nranks; r++) {
        const char *s = mcf_strs_at(&f->primary_source, r);
        size_t k = 0;
        if (!s[0]) {
            none++;
            continue;
        }
        while (k < kinds && strcmp(name[k], s)) k++;
        if (k == kinds && kinds < 8) name[kinds++] = s;
        if (k < kinds) count[k]++;
    }
    len = (size_t)snprintf(line, sizeof line, "power figures:");
    for (size_t k = 0; k < kinds && len < sizeof line; k++)
        len += (size_t)snprintf(line + len, sizeof line - len, "%s %.24s on %zu of %zu GPUs",
                                k ? "," : "", name[k], count[k], f->nranks);
    if (none && len < sizeof line)
        snprintf(line + len, sizeof line - len,
                 "%s no source on %zu of %zu GPUs (/power/<source>/status says why)",
                 kinds ? "," : "", none, f->nranks);
    mcf_lines_add(&f->profiles, &f->oom, "%s\n", line);
}

static const char *profile_dir(const struct mcf_report_opts *o)
{
    if (o->profiles) return o->profiles;
    const char *env = getenv("MCFLEET_PROFILES");
    return env && env[0] ? env : mcf_profile_dir();
}

static long long hv(const struct fleet *f, int c, size_t row, int after)
{
    return f->health[c] ? f->health[c][2 * row + (after ? 1 : 0)] : -1;
}

/* The health counters: what DCGM's and RVS's checks fail a GPU for. */
static void judge_health(struct fleet *f, size_t r)
{
    long long unc = hv(f, MCF_HC_ECC_UNC_VOL, r, 1), unc0 = hv(f, MCF_HC_ECC_UNC_AGG, r, 0),
              unc1 = hv(f, MCF_HC_ECC_UNC_AGG, r, 1), corr0 = hv(f, MCF_HC_ECC_CORR_VOL, r, 0),
              corr1 = hv(f, MCF_HC_ECC_CORR_VOL, r, 1);
    long long uncv0 = hv(f, MCF_HC_ECC_UNC_VOL, r, 0);
    if (unc > 0 && uncv0 >= 0 && unc > uncv0)
        mcf_cause_add(f, r, MCF_RULE_HEALTH, MCF_V_FAIL, "", "ecc_uncorrected_volatile",
                      (double)unc, (double)uncv0, 1e5,
                      "%lld uncorrectable ECC error%s during the run (%lld before it, %lld after)",
                      unc - uncv0, unc - uncv0 == 1 ? "" : "s", uncv0, unc);
    else if (unc > 0)
        mcf_cause_add(f, r, MCF_RULE_HEALTH, MCF_V_FAIL, "", "ecc_uncorrected_volatile",
                      (double)unc, 0, 1e5,
                      "%lld uncorrectable ECC error%s since the driver loaded, before the run", unc,
                      unc == 1 ? "" : "s");
    else if (unc1 > unc0 && unc0 >= 0)
        mcf_cause_add(f, r, MCF_RULE_HEALTH, MCF_V_FAIL, "", "ecc_uncorrected_aggregate",
                      (double)unc1, (double)unc0, 1e5,
                      "%lld uncorrectable ECC error%s during the run", unc1 - unc0,
                      unc1 - unc0 == 1 ? "" : "s");
    else if (unc1 > 0)
        mcf_cause_add(
            f, r, MCF_RULE_HEALTH, MCF_V_WARN, "", "ecc_uncorrected_aggregate", (double)unc1, 0, 2,
            "%lld uncorrectable ECC error%s in the GPU's lifetime (none since the driver loaded)",
            unc1, unc1 == 1 ? "" : "s");
    if (corr1 > corr0 && corr0 >= 0)
        mcf_cause_add(f, r, MCF_RULE_HEALTH, MCF_V_WARN, "", "ecc_corrected_volatile",
                      (double)corr1, (double)corr0, 2, "%lld corrected ECC error%s during the run",
                      corr1 - corr0, corr1 - corr0 == 1 ? "" : "s");
    for (int after = 0; after < 2; after++) {
        long long pend = hv(f, MCF_HC_REMAP_PENDING, r, after),
                  failed = hv(f, MCF_HC_REMAP_FAILED, r, after),
                  rpend = hv(f, MCF_HC_RETIRED_PENDING, r, after);
        if (failed > 0)
            mcf_cause_add(f, r, MCF_RULE_HEALTH, MCF_V_FAIL, "", "remap_failed", (double)failed, 0,
                          2e5,
                          "memory repair failed %s the run: a bad row (NVML) or page (rocm-smi) "
                          "could not be spared: "
                          "return the GPU",
                          after ? "after" : "before");
        else if (pend > 0)
            mcf_cause_add(f, r, MCF_RULE_HEALTH, MCF_V_FAIL, "", "remap_pending", (double)pend, 0,
                          1e5,
                          "a row remapping is pending %s the run: reset the GPU, then test again",
                          after ? "after" : "before");
        if (rpend > 0)
            mcf_cause_add(
                f, r, MCF_RULE_HEALTH, MCF_V_FAIL, "", "retired_pages_pending", (double)rpend, 0,
                1e5, "%lld page retirement%s pending %s the run: reset the GPU, then test again",
                rpend, rpend == 1 ? "" : "s", after ? "after" : "before");
        if (failed > 0 || pend > 0 || rpend > 0) break; /* once is enough */
    }
    /* the link: width at any time; the generation only while tests ran (an
     * idle GPU lowers it to save power) */
    long long wmax = hv(f, MCF_HC_PCIE_WIDTH_MAX, r, 0), gmax = hv(f, MCF_HC_PCIE_GEN_MAX, r, 0);
    long long widths[3] = { f->width_busy ? f->width_busy[r] : -1, hv(f, MCF_HC_PCIE_WIDTH, r, 0),
                            hv(f, MCF_HC_PCIE_WIDTH, r, 1) },
              w = -1;
    for (int i = 0; i < 3; i++) /* the narrowest reading: a link is as wide as it ever was */
        if (widths[i] > 0 && (w < 0 || widths[i] < w)) w = widths[i];
    long long gb = f->gen_busy ? f->gen_busy[r] : -1;
    if (w > 0 && wmax > 0 && w < wmax)
        mcf_cause_add(
            f, r, MCF_RULE_HEALTH, MCF_V_FAIL, "", "pcie_width", (double)w, (double)wmax, 5e4,
            "PCIe link downtrained: x%lld of x%lld (reseat or check the riser/cable)", w, wmax);
    if (gb > 0 && gmax > 0 && gb < gmax)
        mcf_cause_add(f, r, MCF_RULE_HEALTH, MCF_V_FAIL, "", "pcie_gen_busy", (double)gb,
                      (double)gmax, 5e4,
                      "PCIe link at Gen%lld of Gen%lld while tests ran (downtrained)", gb, gmax);
    mcf_judge_links_health(f, r); /* NVLink, xGMI: report_links_health.c */
}

/* No health counter read for row r: no /health at all, or no counter with a
 * value before or after (a GPU without ECC still has its link read). */
static int health_unknown(const struct fleet *f, size_t r)
{
    for (int c = 0; c < MCF_HC_COUNT; c++)
        if (hv(f, c, r, 0) >= 0 || hv(f, c, r, 1) >= 0) return 0;
    return 1;
}

/* The GPUs of one SKU (rows, n of them): its profile found and applied,
 * each figure judged against its peers, the pairs of readings compared.
 * skipped: where the profile directory's broken files are kept (NULL: they
 * were, for an earlier SKU). -1: an error in e. */
static int judge_sku(struct fleet *f, const char *name, const size_t *rows, size_t n,
                     struct mcf_profile_skipped *skipped, struct mcf_err *e)
{
    struct mcf_profile prof = { 0 };
    int have_prof = 0;
    const char *arch = f->arch.buf ? mcf_strs_at(&f->arch, rows[0]) : "";
    const char *dir = f->opts->no_profiles ? NULL : profile_dir(f->opts);
    if (dir) {
        long cu = f->compute_units ? (long)f->compute_units[rows[0]] : -1;
        /* the directory's broken files are the same for every SKU: kept once */
        int rc = mcf_profile_find(dir, name, arch, cu, &prof, skipped, e);
        if (rc < 0) return -1;
        have_prof = rc > 0;
    }
    if (have_prof)
        mcf_lines_add(&f->profiles, &f->oom, "%.100s (%zu GPU%s): profile %.100s (%.200s)\n", name,
                      n, n == 1 ? "" : "s", prof.sku, prof.path);
    else
        mcf_lines_add(&f->profiles, &f->oom, "%.100s (%zu GPU%s): %s: the peer verdict alone\n",
                      name, n, n == 1 ? "" : "s",
                      f->opts->no_profiles ? "profiles not used (--no-profiles)"
                          : dir            ? "no SKU profile matches"
                                           : "no profile directory (--profiles DIR)");
    if (have_prof && f->quick == 1)
        mcf_lines_add(
            &f->profiles, &f->oom,
            "%.100s: a --quick run (small sizes, few repetitions): its figures "
            "are shown beside the profile, but not failed against its floors; run the deck for a "
            "verdict on them\n",
            name);
    if (n < 2)
        mcf_lines_add(&f->profiles, &f->oom,
                      "%.100s: one GPU of its kind, no peers: judged by its profile, "
                      "health and verification alone\n",
                      name);
    size_t short_power = 0;
    char short_tests[256] = "";
    for (size_t k = 0; k < f->nfigs; k++) {
        if (mcf_power_too_short(f, &f->figs[k])) {
            if (!short_power++ || strlen(short_tests) < 200)
                snprintf(short_tests + strlen(short_tests),
                         sizeof short_tests - strlen(short_tests), "%s%s",
                         short_power > 1 ? ", " : "", f->figs[k].test);
            continue;
        }
        if (mcf_judge_peers(f, &f->figs[k], rows, n) < 0) f->oom = 1;
    }
    if (short_power)
        mcf_lines_add(
            &f->profiles, &f->oom,
            "%.100s: %zu work-per-joule figure%s not judged: the test%s whole "
            "power rests on fewer than %d new power readings, shorter than the source's update "
            "interval (%s%s)\n",
            name, short_power, short_power == 1 ? "" : "s", short_power == 1 ? "'s" : "s'",
            MIN_POWER_READINGS, short_tests, strlen(short_tests) >= 200 ? ", ..." : "");
    for (size_t c = 0; c < sizeof pair_checks / sizeof pair_checks[0]; c++)
        judge_pair(f, &pair_checks[c], name, rows, n);
    if (have_prof) {
        judge_profile(f, &prof, rows, n);
        mcf_profile_free(&prof);
    }
    return 0;
}

/* Each GPU's health counters and its deck's architecture; what is known
 * of the health counters, said once. */
static void judge_each_gpu(struct fleet *f)
{
    int wrong_deck = 0, no_health = 0;
    for (size_t r = 0; r < f->nranks; r++) {
        judge_health(f, r);
        const char *arch = f->arch.buf ? mcf_strs_at(&f->arch, r) : "?";
        if (f->acceptance == 1 && f->deck_arch && f->deck_arch[0] &&
            !mcf_arch_listed(arch, f->deck_arch)) {
            mcf_cause_add(f, r, MCF_RULE_DECK, MCF_V_FAIL, "", "", NAN, NAN, 1e4,
                          "the acceptance deck targets %.100s, this GPU is %.40s: run the deck for "
                          "its architecture "
                          "(mcfleet --acceptance)",
                          f->deck_arch, arch);
            if (!wrong_deck++)
                mcf_lines_add(&f->reasons, &f->oom,
                              "the acceptance deck targets %.100s, but GPUs here are %.40s: "
                              "a deck problem, not the GPUs' (mcfleet --acceptance picks the deck "
                              "by the GPU)",
                              f->deck_arch, arch);
        }
        no_health += health_unknown(f, r);
    }
    for (size_t r = 0; no_health && f->acceptance == 1 && f->backend &&
         strcmp(f->backend, "host") && r < f->nranks;
         r++)
        if (health_unknown(f, r))
            mcf_cause_add(
                f, r, MCF_RULE_HEALTH, MCF_V_WARN, "", "", NAN, NAN, 1.5,
                "health counters not read (%.200s): ECC, memory repair and PCIe link unknown",
                f->health_source.buf ? mcf_strs_at(&f->health_source, r)
                                     : "no /health in the file");
    size_t unknown = 0, first_unknown = 0;
    for (size_t r = 0; r < f->nranks; r++)
        if (health_unknown(f, r) && !unknown++) first_unknown = r;
    if (unknown)
        mcf_lines_add(&f->profiles, &f->oom,
                      "health counters: not read on %zu of %zu GPUs (%.160s): their ECC, "
                      "memory repair and PCIe state is unknown%s\n",
                      unknown, f->nranks,
                      f->health_source.buf ? mcf_strs_at(&f->health_source, first_unknown)
                                           : "no /health in the file",
                      f->acceptance == 1 && f->backend && strcmp(f->backend, "host")
                          ? " (WARN in an acceptance run)"
                          : "");
    else
        mcf_lines_add(&f->profiles, &f->oom,
                      "health counters: read on all %zu GPUs (%.40s) before and after the run\n",
                      f->nranks, mcf_strs_at(&f->health_source, 0));
}

/* Whose each cause is: the deck's, the node's (every GPU of it on the same
 * figure), the environment's (another job on the GPU; host ranks sharing a
 * machine), else the GPU's; each transfer cause names its link. */
static void attribute_causes(struct fleet *f)
{
    for (size_t k = 0; k < f->causes.n; k++)
        if (f->causes.v[k].rule == MCF_RULE_DECK || f->causes.v[k].rule == MCF_RULE_UNSUPPORTED)
            f->causes.v[k].attr = MCF_ATTR_DECK;
    mcf_causes_attribute_nodes(&f->causes, f->nranks, f->node);
    /* a figure of a test during which another job's processes were on the
     * GPU is the environment's: the GPU may be healthy (rerun exclusive) */
    for (size_t k = 0; k < f->causes.n; k++) {
        struct mcf_cause *c = &f->causes.v[k];
        int figure = mcf_rule_judges_figure(c->rule);
        if (figure && c->attr == MCF_ATTR_GPU && mcf_foreign_procs(f, c->rank, c->test) > 0) {
            c->attr = MCF_ATTR_ENV;
            c->env = MCF_ENV_FOREIGN;
        }
        /* host ranks share the machine's cores and caches with each other
         * and everything else: their peer figures differ by where the
         * scheduler put them (a healthy pair's chase 2x apart beside a CPU
         * hog, 2.4x where ranks outnumbered the CPUs), a warning, never a
         * FAIL. Their profile, health and verification rules still fail. */
        if ((c->rule == MCF_RULE_FLEET || c->rule == MCF_RULE_NODE) && c->attr == MCF_ATTR_GPU &&
            mcf_host_row(f, c->rank)) {
            c->attr = MCF_ATTR_ENV;
            c->env = f->crowded_nodes > 0 ? MCF_ENV_OVERSUBSCRIBED : MCF_ENV_HOST;
            if (c->level == MCF_V_FAIL) c->level = MCF_V_WARN;
        }
    }
    mcf_links_attribute(f); /* a transfer test's causes name their link */
}

int mcf_report_judge(struct fleet *f, struct mcf_err *e)
{
    struct sku_row *sr = malloc(sizeof *sr * f->nranks);
    size_t *rows = malloc(sizeof *rows * f->nranks);
    struct mcf_profile_skipped *skipped = calloc(1, sizeof *skipped);
    if (!sr || !rows || !skipped) {
        f->oom = 1;
        goto done;
    }
    for (size_t r = 0; r < f->nranks; r++)
        sr[r] = (struct sku_row){ .name = mcf_strs_at(&f->device, r), .row = r };
    qsort(sr, f->nranks, sizeof *sr, by_name);
    for (size_t a = 0; a < f->nranks && !f->causes.oom;) {
        size_t n = 0, b = a;
        while (b < f->nranks && !strcmp(sr[b].name, sr[a].name)) rows[n++] = sr[b++].row;
        if (judge_sku(f, sr[a].name, rows, n, a == 0 ? skipped : NULL, e) < 0) goto done;
        a = b;
    }
    judge_each_gpu(f);
    for (size_t i = 0; i < skipped->n; i++)
        mcf_lines_add(&f->profiles, &f->oom,
                      "SKU profile not used, it does not load: %.560s (the other profiles "
                      "still serve the SKUs they match; fix or move this one)\n",
                      skipped->msg[i]);
    if (skipped->more)
        mcf_lines_add(&f->profiles, &f->oom, "... and %zu more SKU profiles that do not load\n",
                      skipped->more);
    power_sources_line(f);
    attribute_causes(f);
    if (mcf_rollup(&f->causes, f->nranks, f->node, &f->roll) < 0) f->oom = 1;
done:
    free(skipped);
    free(sr);
    free(rows);
    return e->rc;
}
