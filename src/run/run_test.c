/* One test on one rank: its result's shape, its setup before the boundary,
 * the warm-ups and repetitions (or a sustained test's windows), the check
 * and the status and message it ends with. */
#define _GNU_SOURCE
#include "run_int.h"

#include "family_transfer.h"

#include <fnmatch.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int inject_here(const struct run *r, const char *test)
{
    return mcf_inject_here(r->topo.rank, r->topo.size, test); /* src/run/inject.c */
}

/* A test's result before it runs: its metrics and NaN figures. Made for every
 * test at the start, whether a rank reaches it or not, so that the file's
 * layout is the same on every rank (gather mode replays rank 0's calls). */
int init_result(struct run *r, int index, struct mcf_err *e)
{
    struct mcf_result *res = &r->res[index];
    const struct mcf_instance *in = &r->inst[index];
    int reps = in->repetitions;
    res->inst = in;
    res->nmetrics = mcf_kernel_metrics(&in->kernel, r->be.caps, res->metrics, MCF_MAX_METRICS);
    res->values = malloc(sizeof(double) * (size_t)(res->nmetrics * reps));
    res->rep_start = malloc(sizeof(double) * (size_t)reps);
    res->rep_end = malloc(sizeof(double) * (size_t)reps);
    if (!res->values || !res->rep_start || !res->rep_end)
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory for results");
    for (int i = 0; i < res->nmetrics * reps; i++) res->values[i] = NAN;
    for (int i = 0; i < reps; i++) res->rep_start[i] = res->rep_end[i] = NAN;
    if (in->duration > 0 &&
        (!(res->sustained = malloc(sizeof *res->sustained)) ||
         mcf_sustained_init(res->sustained, reps, res->metrics, res->nmetrics) != 0)) {
        free(res->sustained);
        res->sustained = NULL;
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                           "out of memory for a sustained test's trace");
    }
    return MCF_OK;
}

int prepare_instance(struct run *r, int index, struct in_hand *h, struct mcf_err *fatal)
{
    const struct mcf_instance *in = &r->inst[index];
    const struct mcf_kernel_ops *ops = r->be.family[in->kernel.family];
    (void)fatal;
    memset(h, 0, sizeof *h);
    h->index = index;
    h->t0 = mcf_now();
    h->k = in->kernel;
    h->k.cut = &r->cut;
    h->k.inject_fault = inject_here(r, in->name);
    h->slow = mcf_inject_slow_here(r->topo.rank, r->topo.size, in->name);
    if (r->have_comm) h->k.comm = &r->comm;
    if (mcf_kernel_schedule(&h->k) ==
        MCF_SCHED_TOGETHER) { /* run() is collective: the kernel slows itself */
        h->k.inject_slow = h->slow;
        h->slow = 1;
    }
    r->cut.deadline = INFINITY; /* no limit while setting up: the watchdog covers it */
    if (ops->setup(r->state, &h->k, &h->ks, &h->e) == MCF_OK) h->have_ks = 1;
    return MCF_OK;
}

void release_instance(struct run *r, struct in_hand *h)
{
    if (h->have_ks) r->be.family[h->k.family]->teardown(h->ks);
    h->have_ks = 0;
}

/* A sample's metrics into v[]; a figure that must be finite and is not is
 * an error (the kernel was too short for the timer). */
int sample_values(const struct run *r, struct mcf_result *res, const struct mcf_kernel *k,
                  const struct mcf_sample *smp, double *v, struct mcf_err *e)
{
    struct mcf_sample injected;
    const struct mcf_sample *s = smp;
    if (r->inject_clock_mhz > 0) { /* testing the clock check (inject.h) */
        injected = *smp;
        injected.clock_mhz = r->inject_clock_mhz;
        s = &injected;
    }
    for (int m = 0; m < res->nmetrics; m++) {
        v[m] = res->metrics[m].value(k, s, res->metrics[m].index);
        if (!isfinite(v[m]) && !res->metrics[m].optional)
            return mcf_err_set(
                e, MCF_ERUNTIME, __FILE__, __LINE__,
                "%s is not finite (%g): the kernel ran %.3g s, too short for the timer; "
                "raise its size or iterations",
                res->metrics[m].name, v[m], s->seconds);
    }
    return MCF_OK;
}

/* A sustained test (a deck's duration): repetitions back to back from the
 * common start until the common deadline `duration` seconds later, both on
 * rank 0's time base, so that every rank's windows are the same seconds. The
 * last repetition starts before the deadline and ends past it: the GPU is
 * busy to the end of the last window. Each repetition goes to the windows it
 * overlaps (sustained.c); the per-repetition datasets get one column per window. */
void time_sustained(struct run *r, struct in_hand *h, int *cut_rep)
{
    struct mcf_result *res = &r->res[h->index];
    const struct mcf_instance *in = &r->inst[h->index];
    const struct mcf_kernel_ops *ops = r->be.family[in->kernel.family];
    struct mcf_err *e = &h->e;
    struct mcf_sustained *sus = res->sustained;
    double v[MCF_MAX_METRICS], deadline = r->next_start + in->duration * MCF_SUSTAINED_WINDOW_S;
    while (e->rc == MCF_OK && !mcf_stop_signal() && mcf_now() - r->cs.offset < deadline &&
           mcf_now() < r->cut.deadline) {
        struct mcf_sample s;
        memset(&s, 0, sizeof s);
        double a = mcf_now() - r->cs.offset;
        if (ops->run(h->ks, &s, e) != MCF_OK || s.cut) {
            *cut_rep =
                (int)
                    sus->reps; /* s.cut: the output is still checked, the repetition is no figure */
            break;
        }
        double b = mcf_now() - r->cs.offset;
        if (sample_values(r, res, &h->k, &s, v, e) != MCF_OK) break;
        if (mcf_sustained_add(sus, a, b, s.seconds, v) != 0)
            mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                        "out of memory for a sustained test's windows");
    }
    int windows = mcf_sustained_close(sus, res->values, res->rep_start, res->rep_end);
    if (windows < 0)
        mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                    "out of memory closing a sustained test's windows");
    res->reps_done = windows > 0 ? windows : 0;
}

/* What ended a test early: a stop (signal or the run's time limit), else the test's own limit. */
static const char *stopper(void)
{
    int sig = mcf_stop_signal();
    return sig == MCF_STOP_LIMIT ? "the run's time limit"
        : sig                    ? "a stop signal"
                                 : "the time limit";
}

/* The warm-ups and timed repetitions of a test (not a sustained one). */
static void time_repetitions(struct run *r, struct in_hand *h, int *cut_rep)
{
    struct mcf_result *res = &r->res[h->index];
    const struct mcf_instance *in = &r->inst[h->index];
    const struct mcf_kernel_ops *ops = r->be.family[in->kernel.family];
    struct mcf_err *e = &h->e;
    int reps = in->repetitions;
    struct mcf_sample s;
    double v[MCF_MAX_METRICS];
    for (int w = 0;
         w < in->warmup && e->rc == MCF_OK && !mcf_stop_signal() && mcf_now() < r->cut.deadline;
         w++) {
        memset(&s, 0, sizeof s);
        if (ops->run(h->ks, &s, e) == MCF_OK) res->warmup_runs++;
    }
    for (int rep = 0;
         rep < reps && e->rc == MCF_OK && !mcf_stop_signal() && mcf_now() < r->cut.deadline;
         rep++) {
        memset(&s, 0, sizeof s);
        res->rep_start[rep] = mcf_now() - r->cs.offset;
        if (ops->run(h->ks, &s, e) != MCF_OK || s.cut) {
            *cut_rep = rep; /* s.cut: the output is still checked, the repetition is no figure */
            res->rep_start[rep] = NAN;
            break;
        }
        int again_ok = 1;
        for (int again = 1; again < h->slow && again_ok;
             again++) { /* testing (inject.h): the kernel
                         again, the work of one counted */
            struct mcf_sample more;
            memset(&more, 0, sizeof more);
            again_ok = ops->run(h->ks, &more, e) == MCF_OK && !more.cut;
            s.seconds += more.seconds;
            for (int j = 0; j < s.nlinks && j < MCF_MAX_PEERS;
                 j++) /* a transfer's links, each slower */
                s.link_seconds[j] += more.link_seconds[j];
        }
        if (!again_ok) {
            *cut_rep = rep;
            res->rep_start[rep] = NAN;
            break;
        }
        res->rep_end[rep] = mcf_now() - r->cs.offset;
        res->reps_done = rep + 1;
        if (sample_values(r, res, &h->k, &s, v, e) != MCF_OK) break;
        for (int m = 0; m < res->nmetrics; m++) res->values[m * reps + rep] = v[m];
    }
}

/* Host and peer links (family_transfer.h): the ranks of a node take turns,
 * so that each link is measured alone; every rank joins every turn's
 * barrier, whether its setup succeeded or not, and its own test's time
 * limit starts with its turn. */
static void time_in_turns(struct run *r, struct in_hand *h, int *cut_rep, int limit)
{
    const struct mcf_comm *c = &r->comm;
    struct mcf_err be = { 0 };
    for (int t = 0; t <= c->local_size; t++) {
        r->cut.deadline = INFINITY; /* the others' turns: the link calls' own limit */
        if (c->barrier(c->ctx, MCF_SCOPE_NODE, &be) != MCF_OK) {
            mcf_err_set(&h->e, be.rc, __FILE__, __LINE__,
                        "waiting for turn %d of %d on the node: %s", t + 1, c->local_size, be.msg);
            break;
        }
        if (t != c->local_rank || !h->have_ks) continue;
        r->cut.deadline = limit > 0 ? mcf_now() + limit : INFINITY;
        time_repetitions(r, h, cut_rep);
    }
}

/* A test whose run() is collective runs only where every rank of its
 * scope set it up: else each rank calls it as often as the others could not. */
static void agree_to_run(struct run *r, struct in_hand *h)
{
    const struct mcf_comm *c = &r->comm;
    enum mcf_scope scope = h->k.link == MCF_LINK_COLLECTIVE ? h->k.scope : MCF_SCOPE_JOB;
    int n = scope == MCF_SCOPE_NODE ? c->local_size : c->size, mine[2] = { h->have_ks, h->e.rc },
        *all;
    struct mcf_err be = { 0 };
    if (!(all = malloc(sizeof(int) * 2 * (size_t)n))) {
        mcf_err_set(&h->e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory");
    } else if (c->allgather(c->ctx, scope, mine, all, sizeof mine, &be) != MCF_OK) {
        mcf_err_set(&h->e, be.rc, __FILE__, __LINE__,
                    "asking the other ranks whether they set the test up: %s", be.msg);
    } else {
        for (int i = 0; i < n && h->e.rc == MCF_OK; i++)
            if (!all[2 * i])
                mcf_err_set(&h->e,
                            all[2 * i + 1] == MCF_EUNSUPPORTED ? MCF_EUNSUPPORTED : MCF_ERUNTIME,
                            __FILE__, __LINE__,
                            "not run: %s rank %d could not set it up (its row says why); the test "
                            "needs every rank of its %s",
                            scope == MCF_SCOPE_NODE ? "local" : "world", i, mcf_scope_names[scope]);
    }
    free(all); /* the test's state stays to its end: its teardown may be collective too */
}

/* The one path every kernel of every backend goes through. */
/* The test's message on this rank: why it was cut (and where), how a
 * sustained test or one cut short by its limit ended, else its outcome's. */
static void outcome_message(struct run *r, const struct in_hand *h, int cut_rep, int limit)
{
    struct mcf_result *res = &r->res[h->index];
    const struct mcf_instance *in = &r->inst[h->index];
    const struct mcf_err *e = &h->e;
    int reps = in->repetitions;
    if (res->status == MCF_STATUS_CUT) {
        char where[64], by[64];
        int sig = mcf_stop_signal();
        if (!h->have_ks)
            snprintf(where, sizeof where, "its setup");
        else if (cut_rep < 0)
            snprintf(where, sizeof where, "warm-up run %d", res->warmup_runs + 1);
        else
            snprintf(where, sizeof where, "repetition %d", cut_rep + 1);
        if (cut_rep < 0 && h->have_ks && !sig)
            snprintf(res->message, sizeof res->message, "no figure: %.900s", e->msg);
        else if (sig)
            snprintf(res->message, sizeof res->message,
                     "cut short by %s in %s (%.0f ms after it): "
                     "no figure, a cut kernel's output cannot be verified (%.300s)",
                     mcf_stop_name(sig, by, sizeof by), where, 1e3 * (mcf_now() - mcf_stop_time()),
                     e->msg);
        else
            snprintf(res->message, sizeof res->message,
                     "cut short by its time limit of %d s in %s: no figure, "
                     "a cut kernel's output cannot be verified (%.300s)",
                     limit, where, e->msg);
    } else if (res->status == MCF_STATUS_VERIFIED && in->duration > 0) {
        char why[96] = "";
        if (cut_rep >= 0 || res->reps_done < reps)
            snprintf(why, sizeof why, "; stopped by %s%s", stopper(),
                     cut_rep >= 0 ? ", the repetition in hand cut short (not a figure)" : "");
        snprintf(res->message, sizeof res->message,
                 "sustained: %lld repetitions back to back over %d of %d s%s", res->sustained->reps,
                 res->reps_done, reps, why);
    } else if (res->status == MCF_STATUS_VERIFIED && cut_rep >= 0) {
        snprintf(res->message, sizeof res->message,
                 "repetition %d cut short by %s: not a figure; %d timed before it", cut_rep + 1,
                 stopper(), res->reps_done);
    } else if (res->status == MCF_STATUS_VERIFIED && res->reps_done < reps && !mcf_stop_signal()) {
        snprintf(res->message, sizeof res->message, "time limit of %d s: %d of %d repetitions",
                 limit, res->reps_done, reps);
    } else {
        snprintf(res->message, sizeof res->message, "%s", e->msg);
    }
}

int run_instance(struct run *r, struct in_hand *h, struct mcf_err *fatal)
{
    struct mcf_result *res = &r->res[h->index];
    const struct mcf_instance *in = &r->inst[h->index];
    const struct mcf_kernel_ops *ops = r->be.family[in->kernel.family];
    struct mcf_err *e = &h->e;
    int reps = in->repetitions, cut_rep = -1;
    double start_common;

    /* Every rank starts at the time the boundary gave, whatever its setup did. */
    {
        double t_sync = mcf_now();
        mcf_start_at(&r->cs, r->next_start, &start_common, &res->start_skew_us);
        r->sync_s += mcf_now() - t_sync;
    }
    r->test_start = mcf_now();
    int limit = mcf_sustained_time_limit(in); /* a sustained test's covers its duration */
    r->cut.deadline = limit > 0 ? r->test_start + limit : INFINITY;
    if (res->sustained) /* its windows' origin, on every rank that came, whatever its setup did */
        mcf_sustained_start(res->sustained, r->next_start);
    if (mcf_kernel_schedule(&h->k) == MCF_SCHED_TOGETHER && r->have_comm) agree_to_run(r, h);
    if (mcf_kernel_schedule(&h->k) == MCF_SCHED_TURNS && r->have_comm) {
        time_in_turns(r, h, &cut_rep, limit);
    } else if (h->have_ks && in->duration > 0) {
        time_sustained(r, h, &cut_rep);
    } else if (h->have_ks) {
        time_repetitions(r, h, &cut_rep);
    }
    if (h->have_ks) {
        if (e->rc == MCF_OK && reps > 0 && res->reps_done == 0 && !mcf_stop_signal())
            mcf_err_set(e, MCF_ECUT, __FILE__, __LINE__,
                        "its time limit of %d s passed after %d warm-up runs, "
                        "before any repetition was timed",
                        limit, res->warmup_runs);
        else if (e->rc == MCF_OK)
            ops->verify(h->ks, e);
    }
    if (e->rc == MCF_OK && reps > 0 && res->reps_done == 0 && mcf_stop_signal()) {
        /* others may have timed some: this rank's row is then "not run", not "verified" with no
         * figure */
        res->status = MCF_STATUS_NOT_RUN;
        char by[64];
        snprintf(res->message, sizeof res->message,
                 "not run on this rank: stopped by %s before its first "
                 "repetition",
                 mcf_stop_name(mcf_stop_signal(), by, sizeof by));
        goto out;
    }
    switch (e->rc) {
    case MCF_OK: res->status = MCF_STATUS_VERIFIED; break;
    case MCF_EVERIFY: res->status = MCF_STATUS_WRONG; break;
    case MCF_EUNSUPPORTED: res->status = MCF_STATUS_UNSUPPORTED; break;
    case MCF_ECUT: res->status = MCF_STATUS_CUT; break;
    default: res->status = MCF_STATUS_ERROR; break;
    }
    outcome_message(r, h, cut_rep, limit);
    if (res->status != MCF_STATUS_VERIFIED) /* a wrong result is never reported as a timing */
        for (int i = 0; i < res->nmetrics * reps; i++) res->values[i] = NAN;
out:
    release_instance(r, h);
    r->cut.deadline = INFINITY;
    res->elapsed_s = mcf_now() - h->t0;
    return fatal->rc;
}

void progress(const struct run *r, int i)
{
    const struct mcf_instance *in = &r->inst[i];
    char sustained[48] = "";
    if (in->duration > 0) /* why the test takes that long */
        snprintf(sustained, sizeof sustained, " (sustained %d s)", in->duration);
    say(r, "[%*d/%d %7.1fs] %-32s %s%s\n", r->ninst >= 100 ? 3 : 2, i + 1, r->ninst,
        mcf_now() - r->t_start, in->name, in->kernel.label, sustained);
}

/* -v: what rank 0 measured, as soon as the test ends. */
void verbose_result(const struct run *r, int i)
{
    const struct mcf_result *res = &r->res[i];
    if (res->status != MCF_STATUS_VERIFIED) {
        say(r, "      rank 0 %s: %s\n",
            res->status == MCF_STATUS_UNSUPPORTED ? "unsupported"
                : res->status == MCF_STATUS_WRONG ? "WRONG RESULT"
                : res->status == MCF_STATUS_CUT   ? "CUT"
                                                  : "ERROR",
            res->message);
        return;
    }
    for (int m = 0; m < res->nmetrics; m++) {
        if (res->metrics[m].detail) continue;
        int reps = r->inst[i].repetitions;
        const double *v = res->values + (size_t)m * reps;
        say(r,
            "      rank 0 %s: median %.5g %s (min %.5g, max %.5g over %d), skew %.1f us, %.2f s\n",
            res->metrics[m].name, mcf_median(v, (size_t)reps), res->metrics[m].unit,
            mcf_min(v, (size_t)reps), mcf_max(v, (size_t)reps), reps, res->start_skew_us,
            res->elapsed_s);
    }
}
