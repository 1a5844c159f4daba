#define _GNU_SOURCE
#include "runner.h"
#include "run_int.h"
#include "text_safe.h"

#include <fnmatch.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* -v: what the run's own machinery cost (docs/scaling.md): the end of the
 * run and the synchronized starts, with peak memory on rank 0 and elsewhere. */
static int cost_summary(const struct run *r, double write_s, double close_s, double report_s,
                        struct mcf_err *e)
{
    struct rusage ru;
    double mine[3], worst[3];
    long rss0 = 0;
    getrusage(RUSAGE_SELF, &ru);
    mine[0] = r->topo.rank ? (double)ru.ru_maxrss : 0.0; /* KiB on Linux */
    mine[1] = r->sync_s;
    mine[2] = r->journal.cost_s;
    MCF_MPI(e, MPI_Reduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, 0, r->topo.world));
    rss0 = ru.ru_maxrss;
    say(r,
        "cost: end of run %.3f s (record %.3f s, write and rename %.3f s, report %.3f s); "
        "synchronized starts %.3f s over %d tests (slowest rank %.3f s); journal %.3f s over %d "
        "segments, "
        "%lld bytes (slowest rank %.3f s); peak RSS rank 0 %ld KiB, other ranks at most %.0f KiB\n",
        write_s + close_s + report_s, write_s, close_s, report_s, r->sync_s, r->ninst, worst[1],
        r->journal.cost_s, r->journal.segments, r->journal.bytes, worst[2], rss0, worst[0]);
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
    int limit = i > 0 ? mcf_sustained_time_limit(&r->inst[i - 1])
                      : 0; /* a sustained test's covers its duration */
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
        snprintf(why, sizeof why, "not run: %d rank%s hung (see /hung)", r->wd.nhung,
                 r->wd.nhung == 1 ? "" : "s");
    else
        snprintf(why, sizeof why, "not run: stopped by %s", mcf_stop_name(sig, by, sizeof by));
    if (!r->wd.nhung && i > 0 &&
        reps_before == 0) /* interrupted before any rank timed a repetition */
        from = i - 1;
    for (int j = from; j < r->ninst; j++) {
        r->res[j].inst = &r->inst[j];
        r->res[j].status = MCF_STATUS_NOT_RUN;
        r->res[j].listed_not_run =
            1; /* test i - 1 only when no rank timed it: a rank's own -3 is not the list */
        r->res[j].any_verified = 0; /* on every rank alike: the file's layout depends on it */
        for (int v = 0; v < r->res[j].nmetrics * r->inst[j].repetitions; v++)
            r->res[j].values[v] = NAN;
        snprintf(r->res[j].message, sizeof r->res[j].message, "%s%s", why,
                 j < i ? " before its first repetition" : "");
    }
    if (r->wd.nhung) {
        say(r,
            "watchdog: %d rank%s did not reach the end of %s in time: hung; the other %d write the "
            "results\n",
            r->wd.nhung, r->wd.nhung == 1 ? "" : "s", i > 0 ? r->inst[i - 1].name : "the start",
            r->wd.size - r->wd.nhung);
        for (int k = 0; k < r->wd.nhung && k < 16 && r->topo.rank == 0; k++) {
            const struct mcf_rank_ident *id = &r->wd.idents[r->wd.hung[k]];
            say(r, "  HUNG rank %d: host %s, local rank %d, device %s %s (PCI %s)\n", r->wd.hung[k],
                id->hostname, id->local_rank, id->device_name, id->device_uuid, id->pci_bus_id);
        }
    } else if (from < r->ninst) {
        say(r, "stopped by %s before test %d of %d: writing what was measured\n", by, from + 1,
            r->ninst);
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
        if (!res->sustained) continue;
        res->sustained->power_on = r->power.all_on; /* the same on every rank */
        /* a cut test keeps its kernel's trace (what each second did before the stop); a wrong or
         * failed one not */
        int kernel = res->status == MCF_STATUS_VERIFIED || res->status == MCF_STATUS_CUT;
        if (mcf_sustained_finish(res->sustained, v ? v->r : NULL, v ? v->n : 0, res->rep_start,
                                 res->rep_end, kernel, res->status == MCF_STATUS_VERIFIED) != 0 &&
            r->topo.rank == 0)
            fprintf(stderr,
                    "mcfleet: out of memory for the power columns of %s's trace: left NaN\n",
                    res->inst->name);
    }
}

/* With hung ranks, MPI_Finalize would wait for them for ever: once the file
 * is written, the job is ended (MPI_Abort) with the run's exit code. */
static void end_job_without_hung(struct run *r, int code)
{
    MPI_Barrier(r->topo.world); /* the ranks that answered: rank 0 has printed the report */
    say(r, "ending the job with MPI_Abort (exit %d): MPI_Finalize would wait for the hung rank%s\n",
        code, r->wd.nhung == 1 ? "" : "s");
    fflush(stdout);
    fflush(stderr);
    if (r->topo.rank != 0) sleep(2); /* rank 0 ends the job; one abort banner is enough */
    MPI_Abort(MPI_COMM_WORLD, code);
}

/* This rank's exit code from its tests so far (the boundaries take the fleet's maximum). */
static int local_exit(const struct run *r)
{
    int worst = MCF_EXIT_OK;
    for (int i = 0; i < r->ninst; i++) {
        if (r->res[i].status == MCF_STATUS_ERROR || r->res[i].status == MCF_STATUS_CUT)
            worst = MCF_EXIT_RUNTIME;
        else if (r->res[i].status == MCF_STATUS_WRONG && worst == MCF_EXIT_OK)
            worst = MCF_EXIT_VERIFY;
    }
    return worst;
}

/* The journal's start: /ranks and /meta as known now, and the tests planned. Collective. */
static void journal_start(struct run *r)
{
    struct mcf_err e = { 0 };
    size_t len = 1;
    char *planned = NULL;
    for (int i = 0; i < r->ninst; i++) len += strlen(r->inst[i].name) + 1;
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
    double at = INFINITY; /* rank 0's clock */
    char why[256] = "";
    if (r->topo.rank == 0)
        at = mcf_run_deadline(r->o->time_limit_s, mcf_stop_origin(), mcf_now(), why, sizeof why);
    MCF_MPI(e, MPI_Bcast(&at, 1, MPI_DOUBLE, 0, r->topo.world));
    MCF_MPI(e, MPI_Bcast(why, sizeof why, MPI_CHAR, 0, r->topo.world));
    if (isfinite(at)) {
        mcf_stop_at(at + r->cs.offset,
                    r->o->time_limit_s > 0 ? "the run's time limit (--time-limit)"
                                           : "the run's time limit (the Slurm job's end)");
        say(r, "%s\n", why);
    }
    return MCF_OK;
fail:
    return e->rc;
}

/* On the host backend a streams test's threads are the CPU's: where a node's
 * ranks run more of them together than it has CPUs (3 ranks of 2 streams on
 * 2 cores), a rank's speedup is decided by what its neighbours run beside it
 * (one rank 10-20% below the others, run after run, whatever the repetitions),
 * so its figures are recorded and not judged. Alike on every rank. Collective. */
static int mark_shared_cores(struct run *r, struct mcf_err *e)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    double mine[2] = { r->topo.local_size,
                       online > 0 ? (double)r->topo.local_size / (double)online : 0.0 },
           most[2];
    MCF_MPI(e, MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, r->topo.world));
    if (strcmp(r->be.name, "host") != 0 || most[0] < 2) return MCF_OK;
    for (int i = 0; i < r->ninst; i++)
        r->res[i].shared_cores = r->inst[i].kernel.family == MCF_FAMILY_STREAMS &&
            most[1] * r->inst[i].kernel.streams > 1.0 + 1e-9;
    return MCF_OK;
fail:
    return e->rc;
}

/* What every rank says at a test boundary; after the meet, each field is
 * the largest any rank said (the watchdog's meet reduces a vector of ints). */
struct boundary {
    int stop_signal; /* a stop was asked for (the signal), else 0 */
    int reps_done; /* repetitions this rank completed of the test before (1 before the first) */
    int verified; /* 1: the test before verified on this rank */
    int exit_code; /* this rank's exit code so far: the fleet's is the worst */
};
enum { BOUNDARY_INTS = 4 };

static void boundary_pack(const struct boundary *b, int v[BOUNDARY_INTS])
{
    v[0] = b->stop_signal, v[1] = b->reps_done, v[2] = b->verified, v[3] = b->exit_code;
}

static struct boundary boundary_unpack(const int v[BOUNDARY_INTS])
{
    return (struct boundary){
        .stop_signal = v[0], .reps_done = v[1], .verified = v[2], .exit_code = v[3]
    };
}

/* How the tests ended, for the file and the exit code. */
struct outcome {
    int stopped, stop_sig;
    int cut; /* the test in hand when the run stopped (-1: none) */
    int exit_code; /* the fleet's, from the last boundary */
};

/* The file of the run, open from before the first test to the end. */
struct output_file {
    struct mcf_h5 h5;
    int open;
};

/* Set-up 1: the ranks, the deck (chosen by the device with --acceptance),
 * the checks that need no backend. *listed: 1 --list printed the tests, 2
 * and a stop cut it short. */
static int set_up_deck(struct run *r, MPI_Comm comm, int *listed, struct mcf_err *e)
{
    MCF_TRY(mcf_topo_init(comm, &r->topo, e));
    if (r->o->acceptance) { /* the device chooses the deck */
        MCF_TRY(choose_backend(r, e));
        MCF_TRY(choose_acceptance_deck(r, e));
    }
    MCF_TRY(load_deck(r, e));
    MCF_TRY(mcf_inject_check(r->topo.world, e));
    MCF_TRY(stop_before_start(r, e));
    *listed = r->o->list;
    if (r->o->list) {
        struct mcf_device_info none = { 0 };
        MCF_TRY(mcf_deck_expand(&r->deck, &none, &r->inst, &r->ninst, e));
        mcf_sustained_instances(r->inst, r->ninst);
        list_tests(r);
        if (mcf_stop_signal()) {
            char by[64];
            fprintf(stderr, "mcfleet: stopped by %s while listing\n",
                    mcf_stop_name(mcf_stop_signal(), by, sizeof by));
            *listed = 2;
        }
    }
    return MCF_OK;
fail:
    return e->rc;
}

/* Set-up 2: the backend and the checks of the node, the tests expanded for
 * rank 0's device (its "auto" sizes, so that every rank runs the same work). */
static int set_up_tests(struct run *r, struct mcf_err *e)
{
    if (!r->backend_open) MCF_TRY(choose_backend(r, e));
    MCF_TRY(check_acceptance(r, e));
    MCF_TRY(check_binding(r, e));
    MCF_TRY(check_locality(r, e));
    MCF_TRY(check_oversubscription(r, e));
    struct mcf_device_info dev0 = r->dev;
    MCF_MPI(e, MPI_Bcast(&dev0, sizeof dev0, MPI_BYTE, 0, r->topo.world));
    MCF_TRY(mcf_deck_expand(&r->deck, &dev0, &r->inst, &r->ninst, e));
    mcf_sustained_instances(r->inst, r->ninst); /* one repetition per window, no separate warm-up */
    MCF_ALLOC(e, r->res, r->ninst);
    for (int i = 0; i < r->ninst; i++) init_result(r, i, e);
    MCF_TRY(mark_shared_cores(r, e));
    MCF_TRY(mcf_agree(r->topo.world, e));
    MCF_TRY(stop_before_start(r, e));
    return MCF_OK;
fail:
    return e->rc;
}

/* Set-up 3: the output's name and start time (rank 0's, shared), the file
 * created before any test (an unwritable path fails in seconds, not hours),
 * its journal and the watchdog. */
static int set_up_output(struct run *r, struct output_file *out, struct mcf_err *e)
{
    default_output(r);
    MCF_MPI(e, MPI_Bcast(r->output, sizeof r->output, MPI_CHAR, 0, r->topo.world));
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(r->start_time, sizeof r->start_time, "%Y-%m-%dT%H:%M:%SZ", &tm);
    MCF_MPI(e, MPI_Bcast(r->start_time, sizeof r->start_time, MPI_CHAR, 0, r->topo.world));
    enum mcf_h5_mode mode = mcf_h5_auto_mode(mcf_record_bytes(
        r->inst, r->ninst, r->be.caps, r->topo.size, r->deck.text ? strlen(r->deck.text) : 0));
    if (r->o->h5_mode && strcmp(r->o->h5_mode, "gather") == 0)
        mode = MCF_H5_GATHER;
    else if (r->o->h5_mode && strcmp(r->o->h5_mode, "collective") == 0)
        mode = MCF_H5_COLLECTIVE; /* without parallel HDF5, mcf_h5_create says so */
    MCF_TRY(mcf_h5_create(&out->h5, r->output, r->topo.world, mode, r->o->force, e));
    out->open = 1;
    MCF_TRY(check_free_space(r, &out->h5, e));
    MCF_TRY(mcf_journal_open(&r->journal, r->output, r->topo.world, r->o->force, e));
    r->have_journal = 1;
    MCF_TRY(start_watchdog(r, e));
    return MCF_OK;
fail:
    return e->rc;
}

/* Set-up 4: the clocks synchronized and the starts' lead, the health
 * counters and the power sampler started (the idle window before the first
 * test), the links' communicators, what the file says before any test. */
static int set_up_sampling(struct run *r, const struct output_file *out, struct mcf_err *e)
{
    MCF_TRY(mcf_clocksync_run(r->topo.world, r->topo.node, SYNC_ROUNDS, &r->cs, e));
    double rtt = r->cs.rtt, max_rtt = 0;
    MCF_MPI(e, MPI_Allreduce(&rtt, &max_rtt, 1, MPI_DOUBLE, MPI_MAX, r->topo.world));
    /* the deadline must outrun the broadcast that announces it: a tree of
     * log2(ranks) hops of at most the worst round trip, with margin */
    r->lead = 1e-3 + 4.0 * max_rtt * (1.0 + ceil(log2((double)r->topo.size)));
    /* the start rides on a boundary's answer, which a rank that has waited for
     * the others (yielding its CPU) may take a scheduler slice to see: 10 ms
     * more, a trifle against a test, keeps a loaded node's starts together */
    r->lead += MCF_START_SLACK_S;
    /* the health counters before any work, and before the power sampler polls the same library */
    mcf_health_begin(&r->health, r->be.is_gpu ? r->dev.pci_bus_id : "none", r->dev.package);
    r->have_health = 1;
    MCF_TRY(mcf_power_begin(&r->power, &r->topo, &r->dev, r->deck.power_period_ms * 1e-3,
                            r->deck.power_sources, r->o->power_off, r->cs.offset,
                            r->o->quick ? 0.5 : 2.0, e));
    r->have_power = 1;
    r->power.keep_series = r->deck.power_series;
    MCF_TRY(set_time_limit(r, e));
    MCF_TRY(mcf_comm_mpi_init(&r->comm, &r->topo, &r->cut, e));
    r->have_comm = 1;
    r->rec = (struct mcf_record_ctx){ .topo = &r->topo,
                                      .deck = &r->deck,
                                      .be = &r->be,
                                      .dev = &r->dev,
                                      .device = r->device,
                                      .cs = &r->cs,
                                      .o = r->o,
                                      .start_time = r->start_time,
                                      .loc = &r->loc,
                                      .world_rank = r->wd.rank,
                                      .serial = r->health.serial,
                                      .write_mode = mcf_h5_mode_name(out->h5.mode) };
    MCF_TRY(mcf_record_clock_origin(&r->rec, e));
    journal_start(r);
    r->t_start = mcf_now();
    return MCF_OK;
fail:
    return e->rc;
}

/* A boundary found a stop or hung ranks: what was not run is marked, the
 * test in hand named, the last finished test journaled. */
static void stop_at(struct run *r, int i, struct in_hand *h, const struct boundary *any,
                    struct outcome *oc)
{
    release_instance(r, h);
    mark_not_run(r, i, any->stop_signal, any->reps_done);
    oc->stop_sig = any->stop_signal;
    /* the test in hand: the one before this boundary where no rank ran it to its end, else the next
     */
    if (!r->wd.nhung)
        oc->cut =
            i > 0 && (r->res[i - 1].listed_not_run || any->reps_done < r->inst[i - 1].repetitions)
            ? i - 1
            : i < r->ninst ? i
                           : -1;
    if (!r->wd.nhung && i > 0 && !r->res[i - 1].listed_not_run) journal_test(r, i - 1);
    oc->stopped = 1;
}

/* The tests, each started together after a boundary; the ranks stop
 * together at a boundary (after the last test too: a signal during it cut it
 * short), so that no rank waits alone in a collective. */
static int run_tests(struct run *r, struct outcome *oc, struct mcf_err *e)
{
    double last_boundary = mcf_now();
    for (int i = 0; i <= r->ninst; i++) {
        struct in_hand h = { .index = -1 };
        int newly_hung = 0, mine[BOUNDARY_INTS], got[BOUNDARY_INTS] = { 0 };
        /* the next test is set up first (not once a stop was asked for), so
         * that the boundary also catches a rank hung in its setup */
        if (i < r->ninst && !mcf_stop_signal()) MCF_TRY(prepare_instance(r, i, &h, e));
        /* with the boundary, what the end of the run needs (no more collectives) */
        boundary_pack(
            &(struct boundary){ .stop_signal = mcf_stop_signal(),
                                .reps_done = i > 0 ? r->res[i - 1].reps_done : 1,
                                .verified = i > 0 && r->res[i - 1].status == MCF_STATUS_VERIFIED,
                                .exit_code = local_exit(r) },
            mine);
        double deadline = boundary_deadline(r, i, last_boundary);
        /* rank 0 sets the start; after the meet it writes the journal's segment
         * while the others wait for the start: twice its last write's time more */
        double lead = r->lead + 2.0 * r->journal.last_s;
        MCF_TRY(mcf_watchdog_meet(&r->wd, mine, got, BOUNDARY_INTS, deadline, i, lead,
                                  &r->next_start, &newly_hung, e));
        struct boundary any = boundary_unpack(got);
        last_boundary = mcf_now();
        if (i > 0) r->res[i - 1].any_verified = any.verified;
        oc->exit_code = any.exit_code;
        if (r->wd.nhung) /* no collective over the hung ranks: the file is written without them */
            mcf_journal_stop(&r->journal);
        if (r->wd.nhung || any.stop_signal) {
            stop_at(r, i, &h, &any, oc);
            break;
        }
        if (i > 0) journal_test(r, i - 1);
        if (i == r->ninst) break;
        progress(r, i);
        MCF_TRY(run_instance(r, &h, e));
        if (r->o->verbose) verbose_result(r, i);
    }
    return MCF_OK;
fail:
    return e->rc;
}

/* The end: the ranks that answered carry on without hung ones; the
 * sampling and the counters stopped; the file written and closed, the
 * journal removed; rank 0's report; the exit code. */
static int end_run(struct run *r, struct output_file *out, const struct outcome *oc, int *code,
                   struct mcf_err *e)
{
    if (r->wd.nhung && r->have_comm)
        mcf_comm_mpi_break(&r->comm, "hung ranks dropped by the watchdog");
    if (r->wd.nhung) {
        MCF_TRY(mcf_watchdog_shrink(&r->wd, &r->topo, e));
        MCF_TRY(mcf_h5_rebind(&out->h5, r->topo.world, e));
    }
    mcf_power_end(&r->power);
    finish_sustained(r);
    /* after a stop the launcher's SIGKILL may be a second away: the counters get little time */
    mcf_health_busy(&r->health, &r->power.sampler, r->res, r->ninst);
    mcf_health_end(&r->health, mcf_stop_signal() ? 0.3 : 5.0);
    double t0 = mcf_now();
    say(r, "writing %s\n", r->output);
    char by[64] = "";
    int cut = oc->cut;
    for (int i = 0; r->wd.nhung && i < r->ninst && cut < 0; i++) /* hung: the first not run */
        if (r->res[i].listed_not_run) cut = i;
    struct mcf_record_end end = { .complete = !oc->stopped,
                                  .cut_test = cut >= 0 ? r->inst[cut].name : "",
                                  .stop_reason = oc->stop_sig
                                      ? mcf_stop_name(oc->stop_sig, by, sizeof by)
                                      : r->wd.nhung ? "hung ranks (the watchdog)"
                                                    : "" };
    MCF_TRY(mcf_record_run(&out->h5, &r->rec, r->res, r->ninst, &r->power, &r->health, &end, &r->wd,
                           e));
    double t1 = mcf_now();
    out->open = 0;
    MCF_TRY(mcf_h5_close(&out->h5, 1, e));
    mcf_journal_close(&r->journal, 1); /* the file is in place: the journal goes */
    r->have_journal = 0;
    double t2 = mcf_now();
    int verdict = MCF_EXIT_OK; /* the report's exit code, rank 0's */
    if (r->topo.rank == 0) verdict = mcf_report_file(r->output, stdout, e);
    if (r->o->verbose) MCF_TRY(cost_summary(r, t1 - t0, t2 - t1, mcf_now() - t2, e));
    *code = oc->stopped ? MCF_EXIT_RUNTIME : oc->exit_code;
    if (r->deck.acceptance) {
        /* an acceptance run ends with its verdict: a FAIL is 1, so Slurm
         * shows the job FAILED (docs/exit-codes.md); every rank returns it */
        if (!r->wd.nhung) MCF_MPI(e, MPI_Bcast(&verdict, 1, MPI_INT, 0, r->topo.world));
        *code = mcf_exit_worse(*code, verdict);
    }
    return MCF_OK;
fail:
    return e->rc;
}

static void free_run(struct run *r)
{
    if (r->have_journal) /* the run failed before its file was written: what the journal holds stays
                          */
        mcf_journal_close(&r->journal, 0);
    if (r->have_wd) mcf_watchdog_free(&r->wd);
    if (r->have_power) mcf_power_free(&r->power);
    if (r->have_health) mcf_health_free(&r->health);
    if (r->have_state) r->be.finalize(r->state);
    if (r->have_comm) mcf_comm_mpi_free(&r->comm);
    mcf_results_free(r->res, r->ninst);
    free(r->inst);
    mcf_deck_free(&r->deck);
    mcf_topo_free(&r->topo);
}

int mcf_run(const struct mcf_options *o, MPI_Comm comm)
{
    struct run r;
    struct mcf_err e = { 0 };
    struct output_file out = { .open = 0 };
    struct outcome oc = { .cut = -1, .exit_code = MCF_EXIT_OK };
    int code = MCF_EXIT_RUNTIME, listed = 0;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.topo.world = r.topo.node = MPI_COMM_NULL;
    mcf_stop_catch();

    MCF_TRY(set_up_deck(&r, comm, &listed, &e));
    if (listed) {
        code = listed == 1 ? MCF_EXIT_OK : MCF_EXIT_RUNTIME;
        goto done;
    }
    MCF_TRY(set_up_tests(&r, &e));
    MCF_TRY(set_up_output(&r, &out, &e));
    MCF_TRY(set_up_sampling(&r, &out, &e));
    say(&r, "mcfleet %s: %d rank%s on %d node%s, backend %s, rank 0's device: %s\n",
        PACKAGE_VERSION, r.topo.size, r.topo.size == 1 ? "" : "s", r.topo.nnodes,
        r.topo.nnodes == 1 ? "" : "s", r.be.name, r.dev.name);
    say(&r, "deck %s: %d tests; results to %s\n", r.deck.path, r.ninst, r.output);
    MCF_TRY(run_tests(&r, &oc, &e));
    MCF_TRY(end_run(&r, &out, &oc, &code, &e));
    if (r.wd.nhung) end_job_without_hung(&r, code);
    goto done;
fail:
    if (out.open) {
        struct mcf_err ignore = { 0 };
        mcf_h5_close(&out.h5, 0, &ignore); /* the .partial this run made goes: it holds nothing */
    }
    /* an error every rank agreed on is printed once; a rank's own, by that rank */
    mcf_text_clean(e.msg, ""); /* paths and names in it shown on one line */
    if (r.topo.rank == 0 || !e.agreed) fprintf(stderr, "mcfleet: %s\n", e.msg);
    code = mcf_exit_code(e.rc);
    if (r.wd.nhung) MPI_Abort(MPI_COMM_WORLD, code); /* as above: nothing else can end the job */
done:
    free_run(&r);
    return code;
}
