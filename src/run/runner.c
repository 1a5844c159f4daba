#define _GNU_SOURCE
#include "runner.h"

#include <fnmatch.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "acceptance.h"
#include "agree.h"
#include "backend.h"
#include "clocksync.h"
#include "deck.h"
#include "h5out.h"
#include "health.h"
#include "inject.h"
#include "journal.h"
#include "locality.h"
#include "mcfleet.h"
#include "power_run.h"
#include "record.h"
#include "report.h"
#include "results.h"
#include "stats.h"
#include "stop.h"
#include "sustained.h"
#include "timelimit.h"
#include "topo.h"
#include "watchdog.h"

#define SYNC_ROUNDS 16

struct run {
    const struct mcf_options *o;
    struct mcf_topo topo;
    struct mcf_deck deck;
    struct mcf_backend be;
    double inject_clock_mhz;     /* MCFLEET_INJECT_CLOCK_MHZ (inject.h); 0: none */
    void *state;
    int have_state;
    int device, device_count;
    struct mcf_device_info dev;
    struct mcf_clocksync cs;
    double lead;                 /* how far ahead each test's start deadline is set */
    double t_start;              /* rank 0's clock at the first test */
    struct mcf_instance *inst;
    int ninst;
    struct mcf_result *res;
    struct mcf_power_run power;
    int have_power;
    struct mcf_health health;    /* ECC, memory repair, PCIe link: before the first test and after the last */
    int have_health;
    double sync_s;               /* time in the synchronized starts, all tests */
    struct mcf_locality loc;     /* the cores closest to this rank's GPU */
    struct mcf_cut cut;          /* what the kernel in hand polls (stop.h) */
    double test_start;           /* when the test in hand started, this rank's clock */
    double next_start;           /* the next test's common start, rank 0's time base (a boundary gives it) */
    struct mcf_watchdog wd;      /* test boundaries with a deadline */
    int have_wd;
    struct mcf_journal journal;  /* each finished test, as it finishes (journal.h) */
    int have_journal;
    struct mcf_record_ctx rec;   /* what the file says of the run and the rank before any test */
    char start_time[32], output[1024];
    char acceptance_deck[MCF_PATH_MAX];  /* --acceptance: the deck chosen by rank 0's device */
    char no_gpu_why[512];        /* why no GPU backend was used (rank 0's probe, shared) */
    int backend_open;
};

static void say(const struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct run *r, const char *fmt, ...)
{
    if (r->topo.rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}

/* Rank 0 reads the deck; every rank parses the same text, so all agree on
 * every error and every test without broadcasting parsed data. */
static int load_deck(struct run *r, struct mcf_err *e)
{
    char *text = NULL;
    long len = 0;
    const char *file = r->o->deck ? r->o->deck : r->acceptance_deck[0] ? r->acceptance_deck : NULL;
    const char *path = file ? file : "default.yaml (built in)";
    if (r->topo.rank == 0) {
        if (file)
            mcf_deck_read(file, &text, e);
        else if (!(text = strdup(mcf_default_deck)))
            mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory");
        len = text ? (long)strlen(text) + 1 : 0;
    }
    MCF_TRY(mcf_agree(r->topo.world, e));
    MCF_MPI(e, MPI_Bcast(&len, 1, MPI_LONG, 0, r->topo.world));
    if (r->topo.rank != 0 && !(text = malloc((size_t)len)))
        mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory");
    MCF_TRY(mcf_agree(r->topo.world, e));
    MCF_MPI(e, MPI_Bcast(text, (int)len, MPI_CHAR, 0, r->topo.world));
    if (mcf_deck_parse(path, text, &r->deck, e) != MCF_OK) {
        e->agreed = 1;   /* every rank parsed the same text and holds the same error */
        goto fail;
    }
    if (r->o->quick)
        mcf_deck_quick(&r->deck);
    free(text);
    return MCF_OK;
fail:
    free(text);
    return e->rc;
}

/* What a backend is told about the rank at init. */
static struct mcf_rank_env rank_env(const struct run *r)
{
    struct mcf_rank_env env = { r->topo.local_rank, r->topo.local_size, r->topo.ncpus };
    return env;
}

static int open_backend(struct run *r, const char *name, struct mcf_err *e)
{
    struct mcf_rank_env env = rank_env(r);
    int count = 0;
    MCF_TRY(mcf_backend_select(name, &r->be, e));
    MCF_TRY(mcf_inject_clock(&r->inject_clock_mhz, e));   /* checked on every rank before */
    if (r->inject_clock_mhz > 0)
        r->be.caps |= MCF_CAP_CLOCK;
    MCF_TRY(r->be.init(&r->state, &env, e));
    r->have_state = 1;
    MCF_TRY(r->be.device_count(r->state, &count, e));
    r->device_count = count;
    r->device = mcf_choose_device(count, r->topo.local_rank);
    if (r->device < 0)
        MCF_FAIL(e, MCF_ERUNTIME, "backend '%s' sees no device on %s", name, r->topo.hostname);
    MCF_TRY(r->be.open_device(r->state, r->device, e));
    MCF_TRY(r->be.device_info(r->state, &r->dev, e));
    return MCF_OK;
fail:
    return e->rc;
}

/* --backend auto: rank 0 takes the first GPU backend that sees a device, else
 * host; every rank then opens that one, so the fleet runs one backend. */
static int choose_backend(struct run *r, struct mcf_err *e)
{
    char name[32];
    snprintf(name, sizeof name, "%s", r->o->backend ? r->o->backend : "auto");
    snprintf(r->no_gpu_why, sizeof r->no_gpu_why, "--backend %s was asked for", name);
    if (strcmp(name, "auto") == 0) {
        if (r->topo.rank == 0) {
            struct mcf_rank_env env = rank_env(r);
            /* why no GPU backend: an acceptance run that ends on the host says it */
            mcf_backend_auto(&env, 0, " on rank 0", name, sizeof name, r->no_gpu_why, sizeof r->no_gpu_why);
        }
        MCF_MPI(e, MPI_Bcast(name, sizeof name, MPI_CHAR, 0, r->topo.world));
        MCF_MPI(e, MPI_Bcast(r->no_gpu_why, sizeof r->no_gpu_why, MPI_CHAR, 0, r->topo.world));
    }
    open_backend(r, name, e);
    MCF_TRY(mcf_agree(r->topo.world, e));
    r->backend_open = 1;
    return MCF_OK;
fail:
    return e->rc;
}

/* --acceptance: rank 0's device picks the deck (src/deck/acceptance.c). Collective. */
static int choose_acceptance_deck(struct run *r, struct mcf_err *e)
{
    if (r->topo.rank == 0)
        mcf_acceptance_deck(r->dev.arch, r->be.is_gpu, r->acceptance_deck, sizeof r->acceptance_deck, e);
    MCF_TRY(mcf_agree(r->topo.world, e));
    MCF_MPI(e, MPI_Bcast(r->acceptance_deck, sizeof r->acceptance_deck, MPI_CHAR, 0, r->topo.world));
    return MCF_OK;
fail:
    return e->rc;
}

/* An acceptance run measures GPUs: on the host backend where GPUs are
 * allocated it stops before any test, with what was seen and why no GPU
 * backend ran (exit 3). A device the deck does not target: a loud warning,
 * and the run goes on (the verdict names the mismatch). Collective. */
static int check_acceptance(struct run *r, struct mcf_err *e)
{
    char seen[512];
    int other = 0, others = 0;
    if (r->o->acceptance && !r->deck.acceptance)
        mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__, "--acceptance: %s is not marked 'acceptance: true'",
                    r->deck.path);
    else if (r->deck.acceptance && !r->be.is_gpu && mcf_gpus_allocated(seen, sizeof seen))
        mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                    "acceptance run refused: it would measure CPUs (the host backend), but %s has GPUs allocated "
                    "(%.200s); no GPU backend ran: %.400s", r->topo.hostname, seen, r->no_gpu_why);
    MCF_TRY(mcf_agree(r->topo.world, e));
    if (!r->deck.acceptance && !r->be.is_gpu && r->topo.rank == 0 && mcf_gpus_allocated(seen, sizeof seen))
        say(r, "warning: GPUs are allocated here (%.200s), but this run measures CPUs (the host backend): %.400s\n",
            seen, r->no_gpu_why);
    other = r->deck.arch[0] && !mcf_arch_listed(r->dev.arch, r->deck.arch);
    MCF_MPI(e, MPI_Allreduce(&other, &others, 1, MPI_INT, MPI_SUM, r->topo.world));
    if (others && r->topo.rank == 0)
        fprintf(stderr, "mcfleet: WARNING: ************************************************************\n"
                "mcfleet: WARNING: the deck %s is made for %s, but %d of %d ranks have another device\n"
                "mcfleet: WARNING: architecture (rank 0: %s). Its figures are not an acceptance of\n"
                "mcfleet: WARNING: these GPUs: the verdict will name a deck mismatch. Running anyway.\n"
                "mcfleet: WARNING: ************************************************************\n",
                r->deck.path, r->deck.arch, others, r->topo.size, r->dev.arch[0] ? r->dev.arch : "unknown");
    return MCF_OK;
fail:
    return e->rc;
}

/* One rank per GPU, as the launcher bound them: checked on every node before
 * any test (GPU backends; host ranks share the CPU by design). Collective. */
static int check_binding(struct run *r, struct mcf_err *e)
{
    int n = r->topo.local_size, *counts = NULL;
    char *ids = NULL, msg[512];
    const size_t w = sizeof r->dev.uuid;
    if (!r->be.is_gpu)
        return MCF_OK;
    MCF_ALLOC(e, counts, n);
    MCF_ALLOC(e, ids, n * w);
    MCF_MPI(e, MPI_Allgather(&r->device_count, 1, MPI_INT, counts, 1, MPI_INT, r->topo.node));
    MCF_MPI(e, MPI_Allgather(r->dev.uuid, (int)w, MPI_CHAR, ids, (int)w, MPI_CHAR, r->topo.node));
    if (mcf_check_binding(counts, ids, w, n, r->deck.allow_shared_devices, msg, sizeof msg) != 0)
        mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__, "node %s: %s", r->topo.hostname, msg);
fail:
    free(counts);
    free(ids);
    return mcf_agree(r->topo.world, e);
}

/* Cores far from their GPU: recorded per rank, and rank 0 warns. Collective. */
static int check_locality(struct run *r, struct mcf_err *e)
{
    int far, total = 0;
    if (r->be.is_gpu) {
        mcf_gpu_locality(r->dev.pci_bus_id, &r->loc);
    } else {
        memset(&r->loc, 0, sizeof r->loc);
        r->loc.numa_node = r->loc.local = -1;
        snprintf(r->loc.why, sizeof r->loc.why, "the host backend uses no GPU");
    }
    far = r->loc.local == 0;
    MCF_MPI(e, MPI_Allreduce(&far, &total, 1, MPI_INT, MPI_SUM, r->topo.world));
    if (total)
        say(r, "warning: %d of %d ranks run on cores not local to their GPU: check the binding "
               "(srun --gpu-bind=closest --cpu-bind=cores); /ranks/cores_local_to_gpu says which\n",
            total, r->topo.size);
    return MCF_OK;
fail:
    return e->rc;
}

/* A node with more ranks than CPUs, its MPI not told to yield: rank 0 warns
 * once, naming how many nodes; /meta/oversubscribed_nodes records it. Collective. */
static int check_oversubscription(struct run *r, struct mcf_err *e)
{
    char msg[256] = "";
    int mine = 0, nodes = 0;
    if (r->topo.local_rank == 0)
        mine = mcf_oversubscribed(r->topo.local_size, (int)sysconf(_SC_NPROCESSORS_ONLN),
                                  getenv("OMPI_MCA_mpi_yield_when_idle"), getenv("OMPI_MCA_mpi_oversubscribe"),
                                  msg, sizeof msg);
    MCF_MPI(e, MPI_Allreduce(&mine, &nodes, 1, MPI_INT, MPI_SUM, r->topo.world));
    r->topo.oversubscribed_nodes = nodes;
    if (nodes) {   /* rank 0's node may be fine while others are not: its words, or a count */
        MCF_MPI(e, MPI_Bcast(msg, sizeof msg, MPI_CHAR, 0, r->topo.world));
        say(r, "warning: %d node%s oversubscribed%s%s\n", nodes, nodes == 1 ? "" : "s",
            msg[0] ? ": rank 0's has " : "", msg);
    }
    return MCF_OK;
fail:
    return e->rc;
}

static int inject_here(const struct run *r, const char *test)
{
    return mcf_inject_here(r->topo.rank, r->topo.size, test);   /* src/run/inject.c */
}

/* The test in hand: set up before the boundary that starts it, so that a
 * rank hung in its setup is found by the watchdog, not waited for. */
struct in_hand {
    int index;
    struct mcf_kernel k;      /* the backend's view; metrics read it too */
    void *ks;
    int have_ks;
    struct mcf_err e;         /* the test's own outcome (not fatal to the run) */
    double t0;
};

/* A test's result before it runs: its metrics and NaN figures. Made for every
 * test at the start, whether a rank reaches it or not, so that the file's
 * layout is the same on every rank (gather mode replays rank 0's calls). */
static int init_result(struct run *r, int index, struct mcf_err *e)
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
    for (int i = 0; i < res->nmetrics * reps; i++)
        res->values[i] = NAN;
    for (int i = 0; i < reps; i++)
        res->rep_start[i] = res->rep_end[i] = NAN;
    if (in->duration > 0 && (!(res->sustained = malloc(sizeof *res->sustained)) ||
                             mcf_sustained_init(res->sustained, reps, res->metrics, res->nmetrics) != 0)) {
        free(res->sustained);
        res->sustained = NULL;
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory for a sustained test's trace");
    }
    return MCF_OK;
}

static int prepare_instance(struct run *r, int index, struct in_hand *h, struct mcf_err *fatal)
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
    r->cut.deadline = INFINITY;   /* no limit while setting up: the watchdog covers it */
    if (ops->setup(r->state, &h->k, &h->ks, &h->e) == MCF_OK)
        h->have_ks = 1;
    return MCF_OK;
}

static void release_instance(struct run *r, struct in_hand *h)
{
    if (h->have_ks)
        r->be.family[h->k.family]->teardown(h->ks);
    h->have_ks = 0;
}

/* A sample's metrics into v[]; a figure that must be finite and is not is
 * an error (the kernel was too short for the timer). */
static int sample_values(const struct run *r, struct mcf_result *res, const struct mcf_kernel *k,
                         const struct mcf_sample *smp, double *v, struct mcf_err *e)
{
    struct mcf_sample injected;
    const struct mcf_sample *s = smp;
    if (r->inject_clock_mhz > 0) {   /* testing the clock check (inject.h) */
        injected = *smp;
        injected.clock_mhz = r->inject_clock_mhz;
        s = &injected;
    }
    for (int m = 0; m < res->nmetrics; m++) {
        v[m] = res->metrics[m].value(k, s, res->metrics[m].index);
        if (!isfinite(v[m]) && !res->metrics[m].optional)
            return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                               "%s is not finite (%g): the kernel ran %.3g s, too short for the timer; "
                               "raise its size or iterations", res->metrics[m].name, v[m], s->seconds);
    }
    return MCF_OK;
}

/* A sustained test (a deck's duration): repetitions back to back from the
 * common start until the common deadline `duration` seconds later, both on
 * rank 0's time base, so that every rank's windows are the same seconds. The
 * last repetition starts before the deadline and ends past it: the GPU is
 * busy to the end of the last window. Each repetition goes to the windows it
 * overlaps (sustained.c); the per-repetition datasets get one column per window. */
static void time_sustained(struct run *r, struct in_hand *h, int *cut_rep)
{
    struct mcf_result *res = &r->res[h->index];
    const struct mcf_instance *in = &r->inst[h->index];
    const struct mcf_kernel_ops *ops = r->be.family[in->kernel.family];
    struct mcf_err *e = &h->e;
    struct mcf_sustained *sus = res->sustained;
    double v[MCF_MAX_METRICS], deadline = r->next_start + in->duration * MCF_SUSTAINED_WINDOW_S;
    while (e->rc == MCF_OK && !mcf_stop_signal() && mcf_now() - r->cs.offset < deadline && mcf_now() < r->cut.deadline) {
        struct mcf_sample s;
        memset(&s, 0, sizeof s);
        double a = mcf_now() - r->cs.offset;
        if (ops->run(h->ks, &s, e) != MCF_OK || s.cut) {
            *cut_rep = (int)sus->reps;   /* s.cut: the output is still checked, the repetition is no figure */
            break;
        }
        double b = mcf_now() - r->cs.offset;
        if (sample_values(r, res, &h->k, &s, v, e) != MCF_OK)
            break;
        if (mcf_sustained_add(sus, a, b, s.seconds, v) != 0)
            mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory for a sustained test's windows");
    }
    int windows = mcf_sustained_close(sus, res->values, res->rep_start, res->rep_end);
    if (windows < 0)
        mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory closing a sustained test's windows");
    res->reps_done = windows > 0 ? windows : 0;
}

/* What ended a test early: a stop (signal or the run's time limit), else the test's own limit. */
static const char *stopper(void)
{
    int sig = mcf_stop_signal();
    return sig == MCF_STOP_LIMIT ? "the run's time limit" : sig ? "a stop signal" : "the time limit";
}

/* The one path every kernel of every backend goes through. */
static int run_instance(struct run *r, struct in_hand *h, struct mcf_err *fatal)
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
    int limit = mcf_sustained_time_limit(in);   /* a sustained test's covers its duration */
    r->cut.deadline = limit > 0 ? r->test_start + limit : INFINITY;
    if (res->sustained)   /* its windows' origin, on every rank that came, whatever its setup did */
        mcf_sustained_start(res->sustained, r->next_start);
    if (h->have_ks && in->duration > 0) {
        time_sustained(r, h, &cut_rep);
    } else if (h->have_ks) {
        struct mcf_sample s;
        double v[MCF_MAX_METRICS];
        for (int w = 0; w < in->warmup && e->rc == MCF_OK && !mcf_stop_signal() && mcf_now() < r->cut.deadline;
             w++) {
            memset(&s, 0, sizeof s);
            if (ops->run(h->ks, &s, e) == MCF_OK)
                res->warmup_runs++;
        }
        for (int rep = 0; rep < reps && e->rc == MCF_OK && !mcf_stop_signal() && mcf_now() < r->cut.deadline;
             rep++) {
            memset(&s, 0, sizeof s);
            res->rep_start[rep] = mcf_now() - r->cs.offset;
            if (ops->run(h->ks, &s, e) != MCF_OK || s.cut) {
                cut_rep = rep;   /* s.cut: the output is still checked, the repetition is no figure */
                res->rep_start[rep] = NAN;
                break;
            }
            res->rep_end[rep] = mcf_now() - r->cs.offset;
            res->reps_done = rep + 1;
            if (sample_values(r, res, &h->k, &s, v, e) != MCF_OK)
                break;
            for (int m = 0; m < res->nmetrics; m++)
                res->values[m * reps + rep] = v[m];
        }
    }
    if (h->have_ks) {
        if (e->rc == MCF_OK && reps > 0 && res->reps_done == 0 && !mcf_stop_signal())
            mcf_err_set(e, MCF_ECUT, __FILE__, __LINE__, "its time limit of %d s passed after %d warm-up runs, "
                        "before any repetition was timed", limit, res->warmup_runs);
        else if (e->rc == MCF_OK)
            ops->verify(h->ks, e);
    }
    if (e->rc == MCF_OK && reps > 0 && res->reps_done == 0 && mcf_stop_signal()) {
        /* others may have timed some: this rank's row is then "not run", not "verified" with no figure */
        res->status = MCF_STATUS_NOT_RUN;
        char by[64];
        snprintf(res->message, sizeof res->message, "not run on this rank: stopped by %s before its first "
                 "repetition", mcf_stop_name(mcf_stop_signal(), by, sizeof by));
        goto out;
    }
    switch (e->rc) {
    case MCF_OK: res->status = MCF_STATUS_VERIFIED; break;
    case MCF_EVERIFY: res->status = MCF_STATUS_WRONG; break;
    case MCF_EUNSUPPORTED: res->status = MCF_STATUS_UNSUPPORTED; break;
    case MCF_ECUT: res->status = MCF_STATUS_CUT; break;
    default: res->status = MCF_STATUS_ERROR; break;
    }
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
            snprintf(res->message, sizeof res->message, "cut short by %s in %s (%.0f ms after it): "
                     "no figure, a cut kernel's output cannot be verified (%.300s)", mcf_stop_name(sig, by, sizeof by), where,
                     1e3 * (mcf_now() - mcf_stop_time()), e->msg);
        else
            snprintf(res->message, sizeof res->message, "cut short by its time limit of %d s in %s: no figure, "
                     "a cut kernel's output cannot be verified (%.300s)", limit, where, e->msg);
    } else if (res->status == MCF_STATUS_VERIFIED && in->duration > 0) {
        char why[96] = "";
        if (cut_rep >= 0 || res->reps_done < reps)
            snprintf(why, sizeof why, "; stopped by %s%s", stopper(),
                     cut_rep >= 0 ? ", the repetition in hand cut short (not a figure)" : "");
        snprintf(res->message, sizeof res->message, "sustained: %lld repetitions back to back over %d of %d s%s",
                 res->sustained->reps, res->reps_done, reps, why);
    } else if (res->status == MCF_STATUS_VERIFIED && cut_rep >= 0) {
        snprintf(res->message, sizeof res->message, "repetition %d cut short by %s: not a figure; %d timed before it",
                 cut_rep + 1, stopper(), res->reps_done);
    } else if (res->status == MCF_STATUS_VERIFIED && res->reps_done < reps && !mcf_stop_signal()) {
        snprintf(res->message, sizeof res->message, "time limit of %d s: %d of %d repetitions", limit,
                 res->reps_done, reps);
    } else {
        snprintf(res->message, sizeof res->message, "%s", e->msg);
    }
    if (res->status != MCF_STATUS_VERIFIED)   /* a wrong result is never reported as a timing */
        for (int i = 0; i < res->nmetrics * reps; i++)
            res->values[i] = NAN;
out:
    release_instance(r, h);
    r->cut.deadline = INFINITY;
    res->elapsed_s = mcf_now() - h->t0;
    return fatal->rc;
}

static void progress(const struct run *r, int i)
{
    const struct mcf_instance *in = &r->inst[i];
    char sustained[48] = "";
    if (in->duration > 0)   /* why the test takes that long */
        snprintf(sustained, sizeof sustained, " (sustained %d s)", in->duration);
    say(r, "[%*d/%d %7.1fs] %-32s %s%s\n", r->ninst >= 100 ? 3 : 2, i + 1, r->ninst,
        mcf_now() - r->t_start, in->name, in->kernel.label, sustained);
}

/* -v: what rank 0 measured, as soon as the test ends. */
static void verbose_result(const struct run *r, int i)
{
    const struct mcf_result *res = &r->res[i];
    if (res->status != MCF_STATUS_VERIFIED) {
        say(r, "      rank 0 %s: %s\n", res->status == MCF_STATUS_UNSUPPORTED ? "unsupported" :
            res->status == MCF_STATUS_WRONG ? "WRONG RESULT" : res->status == MCF_STATUS_CUT ? "CUT" : "ERROR",
            res->message);
        return;
    }
    for (int m = 0; m < res->nmetrics; m++) {
        if (res->metrics[m].detail)
            continue;
        int reps = r->inst[i].repetitions;
        const double *v = res->values + (size_t)m * reps;
        say(r, "      rank 0 %s: median %.5g %s (min %.5g, max %.5g over %d), skew %.1f us, %.2f s\n",
            res->metrics[m].name, mcf_median(v, (size_t)reps), res->metrics[m].unit,
            mcf_min(v, (size_t)reps), mcf_max(v, (size_t)reps), reps, res->start_skew_us, res->elapsed_s);
    }
}

/* -v: what the run's own machinery cost (docs/scaling.md): the end of the
 * run and the synchronized starts, with peak memory on rank 0 and elsewhere. */
static int cost_summary(const struct run *r, double write_s, double close_s, double report_s, struct mcf_err *e)
{
    struct rusage ru;
    double mine[3], worst[3];
    long rss0 = 0;
    getrusage(RUSAGE_SELF, &ru);
    mine[0] = r->topo.rank ? (double)ru.ru_maxrss : 0.0;   /* KiB on Linux */
    mine[1] = r->sync_s;
    mine[2] = r->journal.cost_s;
    MCF_MPI(e, MPI_Reduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, 0, r->topo.world));
    rss0 = ru.ru_maxrss;
    say(r, "cost: end of run %.3f s (record %.3f s, write and rename %.3f s, report %.3f s); "
           "synchronized starts %.3f s over %d tests (slowest rank %.3f s); journal %.3f s over %d segments, "
           "%lld bytes (slowest rank %.3f s); peak RSS rank 0 %ld KiB, other ranks at most %.0f KiB\n",
        write_s + close_s + report_s, write_s, close_s, report_s, r->sync_s, r->ninst, worst[1],
        r->journal.cost_s, r->journal.segments, r->journal.bytes, worst[2], rss0, worst[0]);
    return MCF_OK;
fail:
    return e->rc;
}

static void default_output(struct run *r)
{
    const char *job = getenv("SLURM_JOB_ID");
    if (r->o->output)
        snprintf(r->output, sizeof r->output, "%s", r->o->output);
    else if (job && *job)
        snprintf(r->output, sizeof r->output, "mcfleet-%s.h5", job);
    else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(r->output, sizeof r->output, "mcfleet-%Y%m%d-%H%M%S.h5", &tm);
    }
}

static void list_tests(const struct run *r)
{
    say(r, "deck %s: %d tests, %d instances\n", r->deck.path, r->deck.ntests, r->ninst);
    for (int i = 0; i < r->ninst && !mcf_stop_signal(); i++) {
        const struct mcf_instance *in = &r->inst[i];
        say(r, "  %-40s %-56s reps %d warmup %d%s\n", in->name, in->kernel.label, in->repetitions,
            in->warmup, in->test->kernel.bytes == 0 && in->kernel.family == MCF_FAMILY_MEMORY
                            ? " (bytes auto)" : "");
    }
}

/* A stop asked for before any test: nothing is measured, no file is made. Collective. */
static int stop_before_start(struct run *r, struct mcf_err *e)
{
    int mine = mcf_stop_signal(), any = 0;
    char by[64];
    MCF_MPI(e, MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, r->topo.world));
    if (any)
        MCF_FAIL(e, MCF_ERUNTIME, "stopped by %s before any test ran: nothing was measured, no file written",
                 mcf_stop_name(any, by, sizeof by));
    return MCF_OK;
fail:
    e->agreed = 1;
    return e->rc;
}

/* The file must fit where it goes: refused before any test, not after all of them. Collective. */
static int check_free_space(struct run *r, const struct mcf_h5 *h5, struct mcf_err *e)
{
    if (r->topo.rank == 0) {
        long long free_bytes = mcf_h5_free_bytes(h5);
        double need = mcf_record_bytes(r->inst, r->ninst, r->be.caps, r->topo.size,
                                       r->deck.text ? strlen(r->deck.text) : 0);
        if (free_bytes >= 0 && (double)free_bytes < need)
            mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                        "not enough space for the results: %.0f KiB free where '%s' goes, about %.0f KiB needed "
                        "(No space left on device)", (double)free_bytes / 1024, h5->partial, need / 1024);
    }
    return mcf_agree(r->topo.world, e);
}

/* Rank 0 learns every rank's identity now: a rank that hangs later cannot say. Collective. */
static int start_watchdog(struct run *r, struct mcf_err *e)
{
    struct mcf_rank_ident id;
    memset(&id, 0, sizeof id);
    /* fixed widths: longer names are cut, as they would be in a terminal */
    snprintf(id.hostname, sizeof id.hostname, "%.*s", (int)sizeof id.hostname - 1, r->topo.hostname);
    snprintf(id.device_uuid, sizeof id.device_uuid, "%.*s", (int)sizeof id.device_uuid - 1, r->dev.uuid);
    snprintf(id.pci_bus_id, sizeof id.pci_bus_id, "%.*s", (int)sizeof id.pci_bus_id - 1, r->dev.pci_bus_id);
    snprintf(id.device_name, sizeof id.device_name, "%.*s", (int)sizeof id.device_name - 1, r->dev.name);
    id.local_rank = r->topo.local_rank;
    MCF_TRY(mcf_watchdog_init(&r->wd, r->topo.world, &id, e));
    r->have_wd = 1;
    return MCF_OK;
fail:
    return e->rc;
}

/* When rank 0 stops waiting for the others at the boundary before test i
 * (watchdog.h): the previous test's time limit and a grace, or, without a
 * limit, a multiple of rank 0's own time since the last boundary. */
static double boundary_deadline(const struct run *r, int i, double since)
{
    double now = mcf_now();
    int limit = i > 0 ? mcf_sustained_time_limit(&r->inst[i - 1]) : 0;   /* a sustained test's covers its duration */
    if (limit > 0) {
        double end = r->test_start + limit;
        return (end > now ? end : now) + fmax(MCF_WATCHDOG_LIMIT_GRACE_S, 0.25 * limit);
    }
    return now + fmax(r->wd.grace_s, MCF_WATCHDOG_FACTOR * (now - since));
}

/* The run ends at boundary i (a stop, or hung ranks): the tests from i on are
 * not run, and so is test i - 1 when no rank timed a repetition of it. */
static void mark_not_run(struct run *r, int i, int sig, int reps_before)
{
    int from = i;
    char why[128], by[64];
    mcf_stop_name(sig, by, sizeof by);
    if (r->wd.nhung)
        snprintf(why, sizeof why, "not run: %d rank%s hung (see /hung)", r->wd.nhung, r->wd.nhung == 1 ? "" : "s");
    else
        snprintf(why, sizeof why, "not run: stopped by %s", mcf_stop_name(sig, by, sizeof by));
    if (!r->wd.nhung && i > 0 && reps_before == 0)   /* interrupted before any rank timed a repetition */
        from = i - 1;
    for (int j = from; j < r->ninst; j++) {
        r->res[j].inst = &r->inst[j];
        r->res[j].status = MCF_STATUS_NOT_RUN;
        r->res[j].listed_not_run = 1;   /* test i - 1 only when no rank timed it: a rank's own -3 is not the list */
        r->res[j].any_verified = 0;   /* on every rank alike: the file's layout depends on it */
        for (int v = 0; v < r->res[j].nmetrics * r->inst[j].repetitions; v++)
            r->res[j].values[v] = NAN;
        snprintf(r->res[j].message, sizeof r->res[j].message, "%s%s", why,
                 j < i ? " before its first repetition" : "");
    }
    if (r->wd.nhung) {
        say(r, "watchdog: %d rank%s did not reach the end of %s in time: hung; the other %d write the results\n",
            r->wd.nhung, r->wd.nhung == 1 ? "" : "s", i > 0 ? r->inst[i - 1].name : "the start",
            r->wd.size - r->wd.nhung);
        for (int k = 0; k < r->wd.nhung && k < 16 && r->topo.rank == 0; k++) {
            const struct mcf_rank_ident *id = &r->wd.idents[r->wd.hung[k]];
            say(r, "  HUNG rank %d: host %s, local rank %d, device %s %s (PCI %s)\n", r->wd.hung[k], id->hostname,
                id->local_rank, id->device_name, id->device_uuid, id->pci_bus_id);
        }
    } else if (from < r->ninst) {
        say(r, "stopped by %s before test %d of %d: writing what was measured\n", by, from + 1, r->ninst);
    } else {
        say(r, "stopped by %s during the last test: writing what was measured\n", by);
    }
}

/* Once sampling ended: each sustained test's trace from the power source's
 * readings, and where the rank verified it the figures at the limit. Out of
 * memory: the source's columns stay NaN, never a rank missing from the
 * collectives that write them. */
static void finish_sustained(struct run *r)
{
    const struct mcf_series *v = mcf_sampler_primary(&r->power.sampler);
    for (int i = 0; i < r->ninst; i++) {
        struct mcf_result *res = &r->res[i];
        if (!res->sustained)
            continue;
        res->sustained->power_on = r->power.all_on;   /* the same on every rank */
        /* a cut test keeps its kernel's trace (what each second did before the stop); a wrong or failed one not */
        int kernel = res->status == MCF_STATUS_VERIFIED || res->status == MCF_STATUS_CUT;
        if (mcf_sustained_finish(res->sustained, v ? v->r : NULL, v ? v->n : 0, res->rep_start, res->rep_end,
                                 kernel, res->status == MCF_STATUS_VERIFIED) != 0 && r->topo.rank == 0)
            fprintf(stderr, "mcfleet: out of memory for the power columns of %s's trace: left NaN\n",
                    res->inst->name);
    }
}

/* With hung ranks, MPI_Finalize would wait for them for ever: once the file
 * is written, the job is ended (MPI_Abort) with the run's exit code. */
static void end_job_without_hung(struct run *r, int code)
{
    MPI_Barrier(r->topo.world);   /* the ranks that answered: rank 0 has printed the report */
    say(r, "ending the job with MPI_Abort (exit %d): MPI_Finalize would wait for the hung rank%s\n", code,
        r->wd.nhung == 1 ? "" : "s");
    fflush(stdout);
    fflush(stderr);
    if (r->topo.rank != 0)
        sleep(2);   /* rank 0 ends the job; one abort banner is enough */
    MPI_Abort(MPI_COMM_WORLD, code);
}

/* This rank's exit code from its tests so far (the boundaries take the fleet's maximum). */
static int local_exit(const struct run *r)
{
    int worst = MCF_EXIT_OK;
    for (int i = 0; i < r->ninst; i++) {
        if (r->res[i].status == MCF_STATUS_ERROR || r->res[i].status == MCF_STATUS_CUT) worst = MCF_EXIT_RUNTIME;
        else if (r->res[i].status == MCF_STATUS_WRONG && worst == MCF_EXIT_OK) worst = MCF_EXIT_VERIFY;
    }
    return worst;
}

/* The journal's start: /ranks and /meta as known now, and the tests planned. Collective. */
static void journal_start(struct run *r)
{
    struct mcf_err e = { 0 };
    size_t len = 1;
    char *planned = NULL;
    for (int i = 0; i < r->ninst; i++)
        len += strlen(r->inst[i].name) + 1;
    if ((planned = calloc(1, len)))
        for (int i = 0; i < r->ninst; i++) {
            if (i) strcat(planned, ",");
            strcat(planned, r->inst[i].name);
        }
    if (!planned)
        mcf_err_set(&e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory");
    else
        mcf_record_start(&r->journal.q, &r->rec, -1, &e);
    mcf_journal_commit(&r->journal, "start", planned ? planned : "", e.rc != MCF_OK);
    free(planned);
}

/* Test i, finished on every rank (a boundary has passed): into the journal. A
 * sustained test goes without its trace, whose power columns come at the end. Collective. */
static void journal_test(struct run *r, int i)
{
    struct mcf_err e = { 0 };
    struct mcf_result res = r->res[i];
    res.sustained = NULL;
    mcf_record_test(&r->journal.q, &res, &e);
    mcf_journal_commit(&r->journal, r->inst[i].name, "", e.rc != MCF_OK);
}

/* --time-limit, or a Slurm job's time left less a margin: the run stops
 * itself in time (stop.h), leaving a reserve to write the file. Collective. */
static int set_time_limit(struct run *r, struct mcf_err *e)
{
    double at = INFINITY;   /* rank 0's clock */
    char why[256] = "";
    if (r->topo.rank == 0)
        at = mcf_run_deadline(r->o->time_limit_s, mcf_stop_origin(), mcf_now(), why, sizeof why);
    MCF_MPI(e, MPI_Bcast(&at, 1, MPI_DOUBLE, 0, r->topo.world));
    if (isfinite(at)) {
        mcf_stop_at(at + r->cs.offset);
        say(r, "%s\n", why);
    }
    return MCF_OK;
fail:
    return e->rc;
}

int mcf_run(const struct mcf_options *o, MPI_Comm comm)
{
    struct run r;
    struct mcf_err e = { 0 };
    struct mcf_h5 h5;
    int have_h5 = 0, code = MCF_EXIT_RUNTIME, exit_code = MCF_EXIT_OK;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.topo.world = r.topo.node = MPI_COMM_NULL;
    mcf_stop_catch();

    MCF_TRY(mcf_topo_init(comm, &r.topo, &e));
    if (o->acceptance) {        /* the device chooses the deck */
        MCF_TRY(choose_backend(&r, &e));
        MCF_TRY(choose_acceptance_deck(&r, &e));
    }
    MCF_TRY(load_deck(&r, &e));
    MCF_TRY(mcf_inject_check(r.topo.world, &e));
    MCF_TRY(stop_before_start(&r, &e));
    if (o->list) {
        struct mcf_device_info none = { 0 };
        MCF_TRY(mcf_deck_expand(&r.deck, &none, &r.inst, &r.ninst, &e));
        mcf_sustained_instances(r.inst, r.ninst);
        list_tests(&r);
        code = MCF_EXIT_OK;
        if (mcf_stop_signal()) {
            char by[64];
            fprintf(stderr, "mcfleet: stopped by %s while listing\n", mcf_stop_name(mcf_stop_signal(), by, sizeof by));
            code = MCF_EXIT_RUNTIME;
        }
        goto done;
    }
    if (!r.backend_open)
        MCF_TRY(choose_backend(&r, &e));
    MCF_TRY(check_acceptance(&r, &e));
    MCF_TRY(check_binding(&r, &e));
    MCF_TRY(check_locality(&r, &e));
    MCF_TRY(check_oversubscription(&r, &e));
    /* "auto" sizes come from rank 0's device, so every rank runs the same work */
    struct mcf_device_info dev0 = r.dev;
    MCF_MPI(&e, MPI_Bcast(&dev0, sizeof dev0, MPI_BYTE, 0, r.topo.world));
    MCF_TRY(mcf_deck_expand(&r.deck, &dev0, &r.inst, &r.ninst, &e));
    mcf_sustained_instances(r.inst, r.ninst);   /* one repetition per window, no separate warm-up */
    MCF_ALLOC(&e, r.res, r.ninst);
    for (int i = 0; i < r.ninst; i++)
        init_result(&r, i, &e);
    MCF_TRY(mcf_agree(r.topo.world, &e));
    MCF_TRY(stop_before_start(&r, &e));

    default_output(&r);
    MCF_MPI(&e, MPI_Bcast(r.output, sizeof r.output, MPI_CHAR, 0, r.topo.world));
    {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(r.start_time, sizeof r.start_time, "%Y-%m-%dT%H:%M:%SZ", &tm);
        MCF_MPI(&e, MPI_Bcast(r.start_time, sizeof r.start_time, MPI_CHAR, 0, r.topo.world));
    }
    enum mcf_h5_mode mode = mcf_h5_auto_mode(mcf_record_bytes(r.inst, r.ninst, r.be.caps, r.topo.size,
                                                              r.deck.text ? strlen(r.deck.text) : 0));
    if (o->h5_mode && strcmp(o->h5_mode, "gather") == 0)
        mode = MCF_H5_GATHER;
    else if (o->h5_mode && strcmp(o->h5_mode, "collective") == 0)
        mode = MCF_H5_COLLECTIVE;    /* without parallel HDF5, mcf_h5_create says so */
    /* created before any test, so an unwritable path fails in seconds, not hours */
    MCF_TRY(mcf_h5_create(&h5, r.output, r.topo.world, mode, o->force, &e));
    have_h5 = 1;
    MCF_TRY(check_free_space(&r, &h5, &e));
    MCF_TRY(mcf_journal_open(&r.journal, r.output, r.topo.world, o->force, &e));
    r.have_journal = 1;
    MCF_TRY(start_watchdog(&r, &e));

    MCF_TRY(mcf_clocksync_run(r.topo.world, r.topo.node, SYNC_ROUNDS, &r.cs, &e));
    double rtt = r.cs.rtt, max_rtt = 0;
    MCF_MPI(&e, MPI_Allreduce(&rtt, &max_rtt, 1, MPI_DOUBLE, MPI_MAX, r.topo.world));
    /* the deadline must outrun the broadcast that announces it: a tree of
     * log2(ranks) hops of at most the worst round trip, with margin */
    r.lead = 1e-3 + 4.0 * max_rtt * (1.0 + ceil(log2((double)r.topo.size)));
    /* the start rides on a boundary's answer, which a rank that has waited for
     * the others (yielding its CPU) may take a scheduler slice to see: 10 ms
     * more, a trifle against a test, keeps a loaded node's starts together */
    r.lead += MCF_START_SLACK_S;
    /* the health counters before any work, and before the power sampler polls the same library */
    mcf_health_begin(&r.health, r.be.is_gpu ? r.dev.pci_bus_id : "none", r.dev.package);
    r.have_health = 1;
    /* sampling starts before the first test: the idle window */
    MCF_TRY(mcf_power_begin(&r.power, &r.topo, &r.dev, r.deck.power_period_ms * 1e-3, r.deck.power_sources,
                            o->power_off, r.cs.offset, o->quick ? 0.5 : 2.0, &e));
    r.have_power = 1;
    r.power.keep_series = r.deck.power_series;
    MCF_TRY(set_time_limit(&r, &e));
    r.rec = (struct mcf_record_ctx){ .topo = &r.topo, .deck = &r.deck, .be = &r.be, .dev = &r.dev,
                                     .device = r.device, .cs = &r.cs, .o = o, .start_time = r.start_time,
                                     .loc = &r.loc, .world_rank = r.wd.rank, .serial = r.health.serial };
    journal_start(&r);
    r.t_start = mcf_now();

    say(&r, "mcfleet %s: %d rank%s on %d node%s, backend %s, rank 0's device: %s\n", PACKAGE_VERSION,
        r.topo.size, r.topo.size == 1 ? "" : "s", r.topo.nnodes, r.topo.nnodes == 1 ? "" : "s",
        r.be.name, r.dev.name);
    say(&r, "deck %s: %d tests; results to %s\n", r.deck.path, r.ninst, r.output);
    int stopped = 0, stop_sig = 0, cut = -1;
    double last_boundary = mcf_now();
    for (int i = 0; i <= r.ninst; i++) {
        struct in_hand h = { .index = -1 };
        int newly_hung = 0;
        /* the next test is set up first (not once a stop was asked for), so
         * that the boundary also catches a rank hung in its setup */
        if (i < r.ninst && !mcf_stop_signal())
            MCF_TRY(prepare_instance(&r, i, &h, &e));
        /* Stop together, at a test boundary (after the last test too: a signal
         * during it cut it short), so that no rank waits alone in a collective.
         * With it, the most repetitions any rank completed of the test before. */
        /* and what the end of the run needs, so that it costs no more collectives:
         * whether some rank verified the test before, and the fleet's exit code */
        int mine[4] = { mcf_stop_signal(), i > 0 ? r.res[i - 1].reps_done : 1,
                        i > 0 && r.res[i - 1].status == MCF_STATUS_VERIFIED, local_exit(&r) };
        int any[4] = { 0, 0, 0, 0 };
        double deadline = boundary_deadline(&r, i, last_boundary);
        MCF_TRY(mcf_watchdog_meet(&r.wd, mine, any, 4, deadline, i, r.lead, &r.next_start, &newly_hung, &e));
        last_boundary = mcf_now();
        if (i > 0)
            r.res[i - 1].any_verified = any[2];
        exit_code = any[3];
        if (r.wd.nhung)   /* no collective over the hung ranks: the file is written without them */
            mcf_journal_stop(&r.journal);
        if (r.wd.nhung || any[0]) {
            release_instance(&r, &h);
            mark_not_run(&r, i, any[0], any[1]);
            stop_sig = any[0];
            if (!r.wd.nhung && i > 0 && !r.res[i - 1].listed_not_run)
                journal_test(&r, i - 1);
            stopped = 1;
            break;
        }
        if (i > 0)
            journal_test(&r, i - 1);
        if (i == r.ninst)
            break;
        progress(&r, i);
        MCF_TRY(run_instance(&r, &h, &e));
        if (o->verbose)
            verbose_result(&r, i);
    }
    if (r.wd.nhung) {
        /* the ranks that answered carry on without the hung ones */
        MCF_TRY(mcf_watchdog_shrink(&r.wd, &r.topo, &e));
        MCF_TRY(mcf_h5_rebind(&h5, r.topo.world, &e));
    }
    mcf_power_end(&r.power);
    finish_sustained(&r);
    /* after a stop the launcher's SIGKILL may be a second away: the counters get little time */
    mcf_health_busy(&r.health, &r.power.sampler, r.res, r.ninst);
    mcf_health_end(&r.health, mcf_stop_signal() ? 0.3 : 5.0);
    double t_end0 = mcf_now();
    say(&r, "writing %s\n", r.output);
    {
        char by[64] = "";
        for (int i = 0; stopped && i < r.ninst && cut < 0; i++)
            if (r.res[i].listed_not_run)
                cut = i;
        struct mcf_record_end end = { .complete = !stopped, .cut_test = cut >= 0 ? r.inst[cut].name : "",
                                      .stop_reason = stop_sig ? mcf_stop_name(stop_sig, by, sizeof by)
                                                              : r.wd.nhung ? "hung ranks (the watchdog)" : "" };
        MCF_TRY(mcf_record_run(&h5, &r.rec, r.res, r.ninst, &r.power, &r.health, &end, &r.wd, &e));
    }
    double t_end1 = mcf_now();
    have_h5 = 0;
    MCF_TRY(mcf_h5_close(&h5, 1, &e));
    mcf_journal_close(&r.journal, 1);   /* the file is in place: the journal goes */
    r.have_journal = 0;
    double t_end2 = mcf_now();
    if (r.topo.rank == 0)
        mcf_report_file(r.output, stdout, &e);
    double t_end3 = mcf_now();
    if (o->verbose)
        MCF_TRY(cost_summary(&r, t_end1 - t_end0, t_end2 - t_end1, t_end3 - t_end2, &e));
    code = stopped ? MCF_EXIT_RUNTIME : exit_code;
    if (r.wd.nhung)
        end_job_without_hung(&r, code);
    goto done;
fail:
    if (have_h5) {
        struct mcf_err ignore = { 0 };
        mcf_h5_close(&h5, 0, &ignore);   /* the .partial this run made goes: it holds nothing */
    }
    /* an error every rank agreed on is printed once; a rank's own, by that rank */
    if (r.topo.rank == 0 || !e.agreed)
        fprintf(stderr, "mcfleet: %s\n", e.msg);
    code = mcf_exit_code(e.rc);
    if (r.wd.nhung)
        MPI_Abort(MPI_COMM_WORLD, code);   /* as above: nothing else can end the job */
done:
    if (r.have_journal)   /* the run failed before its file was written: what the journal holds stays */
        mcf_journal_close(&r.journal, 0);
    if (r.have_wd)
        mcf_watchdog_free(&r.wd);
    if (r.have_power)
        mcf_power_free(&r.power);
    if (r.have_health)
        mcf_health_free(&r.health);
    if (r.have_state)
        r.be.finalize(r.state);
    mcf_results_free(r.res, r.ninst);
    free(r.inst);
    mcf_deck_free(&r.deck);
    mcf_topo_free(&r.topo);
    return code;
}
