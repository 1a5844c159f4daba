#include "record.h"
#include "record_power.h"

#include "family.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "record_schema.h"
#include "record_sustained.h"
#include "verdict.h"

const char *const mcf_test_bookkeeping[] = { "verified",      "status",      "message",
                                             "start_skew_us", "warmup_runs", "rep_start_s",
                                             "rep_end_s",     NULL };

/* Text attributes above this are left to their datasets (HDF5's attribute limit is 64 KiB). */
#define MCF_ATTR_TEXT_MAX 60000

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v ? v : fallback;
}

/* /meta's attributes known before the first test (the journal's start has them too). */
static int record_meta_start(struct mcf_h5 *h, const struct mcf_record_ctx *c, struct mcf_err *e)
{
    const struct mcf_topo *t = c->topo;
    const struct mcf_deck *deck = c->deck;
    const struct mcf_backend *be = c->be;
    const struct mcf_options *o = c->o;
    const char *deck_text[1] = { deck->text ? deck->text : "" };
    char mpi[MPI_MAX_LIBRARY_VERSION_STRING], hdf5[64];
    int len = 0;
    unsigned maj, min, rel;
    const char *inject = getenv("MCFLEET_INJECT_FAULT"),
               *inject_clock = getenv("MCFLEET_INJECT_CLOCK_MHZ"),
               *inject_slow = getenv("MCFLEET_INJECT_SLOW");
    MPI_Get_library_version(mpi, &len);
    mpi[strcspn(mpi, "\n")] = '\0';
    H5get_libversion(&maj, &min, &rel);
    snprintf(hdf5, sizeof hdf5, "%u.%u.%u%s", maj, min, rel,
             mcf_h5_parallel_available() ? " (parallel)" : "");

    MCF_TRY(mcf_h5_group(h, "/meta", e));
    MCF_TRY(mcf_h5_strings(h, "/meta/deck_text", deck_text, 1, e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "mcfleet_version", PACKAGE_VERSION, e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "start_time", c->start_time, e));
    MCF_TRY(mcf_h5_attr_double(h, "/meta", "clock_origin_unix_s", c->clock_origin, e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "command_line", o->command_line, e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "backend", be->name, e));
    MCF_TRY(mcf_h5_attr_long(h, "/meta", "nranks", t->size, e));
    MCF_TRY(mcf_h5_attr_long(h, "/meta", "nnodes", t->nnodes, e));
    /* the deck's text and the tests not run are datasets (attributes stop at
     * 64 KiB); the attributes of earlier files stay where they fit */
    if (strlen(deck->text ? deck->text : "") < MCF_ATTR_TEXT_MAX)
        MCF_TRY(mcf_h5_attr_str(h, "/meta", "deck", deck->text ? deck->text : "", e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "deck_path", deck->path, e));
    MCF_TRY(mcf_h5_attr_long(h, "/meta", "quick", o->quick, e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "mpi_library", mpi, e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "hdf5_version", hdf5, e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "hdf5_write_mode",
                            c->write_mode ? c->write_mode : mcf_h5_mode_name(h->mode), e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "build", MCF_BUILD_INFO, e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "clock",
                            "CLOCK_MONOTONIC, offsets to rank 0 by min-RTT ping-pong", e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "injected", inject ? inject : "", e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "injected_clock_mhz", inject_clock ? inject_clock : "", e));
    {
        char slow[320] = "";
        const char *factor = getenv("MCFLEET_INJECT_SLOW_FACTOR");
        if (inject_slow && *inject_slow)
            snprintf(slow, sizeof slow, "%.256s, %s times the kernel per repetition", inject_slow,
                     factor && *factor ? factor : "2");
        MCF_TRY(mcf_h5_attr_str(h, "/meta", "injected_slow", slow, e));
    }
    for (int l = 0; l < MCF_LEVEL_COUNT; l++) { /* the roofline's ceilings: how each level is hit */
        char name[48];
        snprintf(name, sizeof name, "level_method_%s", mcf_level_names[l]);
        MCF_TRY(mcf_h5_attr_str(h, "/meta", name, be->level_method((enum mcf_level)l), e));
    }
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "dev_root", env_or("MCFLEET_DEV_ROOT", ""),
                            e)); /* testing hook */
    MCF_TRY(mcf_h5_attr_long(h, "/meta", "acceptance", deck->acceptance, e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "deck_arch", deck->arch, e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "slurm_job_id", env_or("SLURM_JOB_ID", ""), e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "slurm_step_id", env_or("SLURM_STEP_ID", ""), e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "slurm_job_nodelist", env_or("SLURM_JOB_NODELIST", ""), e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "slurm_cluster_name", env_or("SLURM_CLUSTER_NAME", ""), e));
    MCF_TRY(mcf_h5_attr_long(h, "/meta", "oversubscribed_nodes", t->oversubscribed_nodes, e));
    MCF_TRY(mcf_h5_attr_long(h, "/meta", "crowded_nodes", t->crowded_nodes, e));
    /* the verdict's default rules of this version, for readers that draw its
     * thresholds (mcfleet report --warn/--fail may judge with others) */
    struct mcf_vrules vr;
    mcf_vrules_default(&vr);
    MCF_TRY(mcf_h5_attr_double(h, "/meta", "verdict_warn_rel", vr.warn_rel, e));
    MCF_TRY(mcf_h5_attr_double(h, "/meta", "verdict_fail_rel", vr.fail_rel, e));
    MCF_TRY(mcf_h5_attr_double(h, "/meta", "verdict_alpha", vr.alpha, e));
    MCF_TRY(mcf_h5_attr_double(h, "/meta", "verdict_k_min", vr.k_min, e));
    MCF_TRY(mcf_h5_attr_double(h, "/meta", "verdict_small_n", vr.small_n, e));
    MCF_TRY(mcf_h5_attr_double(h, "/meta", "verdict_clock_rel", vr.clock_rel, e));
    MCF_TRY(mcf_h5_attr_double(h, "/meta", "verdict_power_rel", vr.power_rel, e));
    return MCF_OK;
fail:
    return e->rc;
}

int mcf_record_meta_end(struct mcf_h5 *h, const struct mcf_record_end *end, struct mcf_err *e)
{
    char end_time[32], *joined = NULL;
    size_t len = 1;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(end_time, sizeof end_time, "%Y-%m-%dT%H:%M:%SZ", &tm);
    for (size_t i = 0; i < end->nnot; i++) len += strlen(end->not_run[i]) + 1;
    MCF_ALLOC(e, joined, len);
    for (size_t i = 0; i < end->nnot; i++) {
        if (i) strcat(joined, ",");
        strcat(joined, end->not_run[i]);
    }
    MCF_TRY(mcf_h5_strings(h, "/meta/tests_not_run_list", end->not_run, end->nnot, e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "end_time", end->end_time ? end->end_time : end_time, e));
    if (strlen(joined) < MCF_ATTR_TEXT_MAX)
        MCF_TRY(mcf_h5_attr_str(h, "/meta", "tests_not_run", joined, e));
    MCF_TRY(mcf_h5_attr_long(h, "/meta", "world_size", end->world_size, e));
    MCF_TRY(mcf_h5_attr_long(h, "/meta", "nhung", end->nhung, e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "hung_ranks", end->hung_ranks, e));
    MCF_TRY(mcf_h5_attr_str(h, "/meta", "cut_test", end->cut_test ? end->cut_test : "", e));
    MCF_TRY(
        mcf_h5_attr_str(h, "/meta", "stop_reason", end->stop_reason ? end->stop_reason : "", e));
    MCF_TRY(
        mcf_h5_attr_str(h, "/meta", "rebuilt_from", end->rebuilt_from ? end->rebuilt_from : "", e));
    /* last: `complete` says everything above is there */
    MCF_TRY(mcf_h5_attr_long(h, "/meta", "complete", end->complete, e));
fail:
    free(joined);
    return e->rc;
}

static int record_ranks(struct mcf_h5 *h, const struct mcf_topo *t, const struct mcf_device_info *d,
                        int device, const struct mcf_clocksync *cs, const struct mcf_locality *loc,
                        int world_rank, const char *serial, struct mcf_err *e)
{
    char cpus[300];
    MCF_TRY(mcf_h5_group(h, "/ranks", e));
    MCF_TRY(mcf_h5_rows_long(h, "/ranks/world_rank", world_rank, e));
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/hostname", t->hostname, e));
    MCF_TRY(mcf_h5_rows_long(h, "/ranks/node", t->node_index, e));
    MCF_TRY(mcf_h5_rows_long(h, "/ranks/local_rank", t->local_rank, e));
    MCF_TRY(mcf_h5_rows_long(h, "/ranks/device", device, e));
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/device_name", d->name, e));
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/device_uuid", d->uuid, e));
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/pci_bus_id", d->pci_bus_id, e));
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/driver", d->driver, e));
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/device_arch", d->arch, e));
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/device_partition", d->partition, e));
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/device_package", d->package, e));
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/device_serial", serial, e));
    MCF_TRY(mcf_h5_rows_long(h, "/ranks/compute_units", d->compute_units, e));
    MCF_TRY(mcf_h5_rows_double(h, "/ranks/device_clock_mhz", &d->clock_mhz, 0, "MHz", e));
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/cpu_affinity", t->affinity, e));
    MCF_TRY(mcf_h5_rows_double(h, "/ranks/clock_offset_s", &cs->offset, 0, "s", e));
    MCF_TRY(mcf_h5_rows_double(h, "/ranks/clock_sync_rtt_s", &cs->rtt, 0, "s", e));
    /* how the launcher placed the rank: Slurm's ids and the visibility variables */
    MCF_TRY(mcf_h5_rows_long(h, "/ranks/slurm_localid", atoll(env_or("SLURM_LOCALID", "-1")), e));
    MCF_TRY(mcf_h5_rows_long(h, "/ranks/slurm_nodeid", atoll(env_or("SLURM_NODEID", "-1")), e));
    MCF_TRY(mcf_h5_rows_long(h, "/ranks/slurm_procid", atoll(env_or("SLURM_PROCID", "-1")), e));
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/slurm_nodename", env_or("SLURMD_NODENAME", ""), e));
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/cuda_visible_devices",
                            env_or("CUDA_VISIBLE_DEVICES", "(unset)"), e));
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/rocr_visible_devices",
                            env_or("ROCR_VISIBLE_DEVICES", "(unset)"), e));
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/hip_visible_devices",
                            env_or("HIP_VISIBLE_DEVICES", "(unset)"), e));
    /* the cores closest to the rank's GPU, and whether the rank runs on them */
    snprintf(cpus, sizeof cpus, "%s", loc->gpu_cpus[0] ? loc->gpu_cpus : "unknown");
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/gpu_local_cpus", cpus, e));
    MCF_TRY(mcf_h5_rows_long(h, "/ranks/gpu_numa_node", loc->numa_node, e));
    MCF_TRY(mcf_h5_rows_long(h, "/ranks/cores_local_to_gpu", loc->local, e));
    MCF_TRY(mcf_h5_rows_str(h, "/ranks/locality_note", loc->why, e));
    return MCF_OK;
fail:
    return e->rc;
}

/* The test's parameters, as attributes of its group: the keys of its family
 * (family.c), each as a name, a number, or its own text. */
static int record_params(struct mcf_h5 *h, const char *g, const struct mcf_instance *in,
                         struct mcf_err *e)
{
    const struct mcf_kernel *k = &in->kernel;
    MCF_TRY(mcf_h5_attr_str(h, g, "test", in->test->name, e));
    MCF_TRY(mcf_h5_attr_str(h, g, "kernel", mcf_family_names[k->family], e));
    MCF_TRY(mcf_h5_attr_str(h, g, "label", k->label, e));
    MCF_TRY(mcf_h5_attr_long(h, g, "repetitions", in->repetitions, e));
    MCF_TRY(mcf_h5_attr_long(h, g, "warmup", in->warmup, e));
    MCF_TRY(mcf_h5_attr_long(h, g, "duration", in->duration, e));
    MCF_TRY(mcf_h5_attr_long(h, g, "seed", (long long)k->seed, e));
    MCF_TRY(mcf_h5_attr_str(h, g, "sweep_key", in->test->sweep_key, e));
    MCF_TRY(mcf_h5_attr_long(h, g, "sweep_value", (long long)in->sweep_value, e));
    /* the work one unit does, as the metrics were computed: readers take the
     * arithmetic intensity from these, never re-derive it */
    MCF_TRY(mcf_h5_attr_double(h, g, "flop_per_unit", mcf_kernel_flops_per_unit(k), e));
    MCF_TRY(mcf_h5_attr_double(h, g, "bytes_per_unit", mcf_kernel_bytes_per_unit(k), e));
    for (const struct mcf_key_use *u = mcf_families[k->family].keys; u->key; u++) {
        const struct mcf_key *kd = mcf_kernel_key(u->key);
        char buf[64];
        if (kd->text || kd->type == MCF_V_ENUM)
            MCF_TRY(mcf_h5_attr_str(h, g, kd->name, mcf_key_value_text(kd, k, buf, sizeof buf), e));
        else
            MCF_TRY(mcf_h5_attr_long(h, g, kd->name, (long long)mcf_key_get(kd, k), e));
    }
    char measured[1024];
    MCF_TRY(
        mcf_h5_attr_str(h, g, "measured", mcf_kernel_measured(k, measured, sizeof measured), e));
    return MCF_OK;
fail:
    return e->rc;
}

/* any_ran: some rank verified it (the same on every rank). */
static int record_test(struct mcf_h5 *h, const struct mcf_result *r, int any_ran, struct mcf_err *e)
{
    const struct mcf_instance *in = r->inst;
    char g[256], path[512], names[1024] = "", summary[1024] = "";
    int reps = in->repetitions;
    snprintf(g, sizeof g, "/results/%s", in->name);
    MCF_TRY(mcf_h5_group(h, g, e));
    MCF_TRY(record_params(h, g, in, e));
    if (r->shared_cores)
        MCF_TRY(mcf_h5_attr_str(
            h, g, "not_judged",
            "the host's streams: this node's ranks ran more stream threads "
            "together than it has CPUs, so a rank's speedup is what its neighbours ran beside it",
            e));
    /* Metrics exist only where some rank produced a verified figure; the
     * others' rows are NaN. Their set is the same on every rank. */
    if (any_ran) {
        for (int m = 0; m < r->nmetrics; m++) {
            snprintf(path, sizeof path, "%s/%s", g, r->metrics[m].name);
            MCF_TRY(mcf_h5_rows_double(h, path, r->values + (size_t)m * reps, reps,
                                       r->metrics[m].unit, e));
            /* which way is good, for the verdict and for readers of the file */
            MCF_TRY(mcf_h5_attr_str(
                h, path, "better", mcf_better_name(r->shared_cores ? 0 : r->metrics[m].better), e));
            if (r->metrics[m].optional) /* NaN is a figure the rank could not have (a peer it
                                           lacks), no error */
                MCF_TRY(mcf_h5_attr_long(h, path, "optional", 1, e));
            if (m) strncat(names, ",", sizeof names - strlen(names) - 1);
            strncat(names, r->metrics[m].name, sizeof names - strlen(names) - 1);
            if (!r->metrics[m].detail) {
                if (summary[0]) strncat(summary, ",", sizeof summary - strlen(summary) - 1);
                strncat(summary, r->metrics[m].name, sizeof summary - strlen(summary) - 1);
            }
        }
        snprintf(path, sizeof path, "%s/rep_start_s", g);
        MCF_TRY(
            mcf_h5_rows_double(h, path, r->rep_start, reps, "s since rank 0's clock origin", e));
        snprintf(path, sizeof path, "%s/rep_end_s", g);
        MCF_TRY(mcf_h5_rows_double(h, path, r->rep_end, reps, "s since rank 0's clock origin", e));
    }
    MCF_TRY(mcf_record_sustained(h, g, r, any_ran,
                                 e)); /* a test with a duration: its trace and figures */
    MCF_TRY(mcf_h5_attr_str(h, g, "metrics", names, e));
    MCF_TRY(mcf_h5_attr_str(h, g, "summary_metrics", summary, e));
    snprintf(path, sizeof path, "%s/verified", g);
    MCF_TRY(mcf_h5_rows_long(h, path, r->status == MCF_STATUS_VERIFIED, e));
    snprintf(path, sizeof path, "%s/status", g);
    MCF_TRY(mcf_h5_rows_long(h, path, r->status, e));
    snprintf(path, sizeof path, "%s/message", g);
    MCF_TRY(mcf_h5_rows_str(h, path, r->message, e));
    snprintf(path, sizeof path, "%s/start_skew_us", g);
    MCF_TRY(mcf_h5_rows_double(h, path, &r->start_skew_us, 0, "us", e));
    snprintf(path, sizeof path, "%s/warmup_runs", g);
    MCF_TRY(mcf_h5_rows_long(h, path, r->warmup_runs, e));
    return MCF_OK;
fail:
    return e->rc;
}

/* /health: each counter before the first test and after the last, the
 * link's most during the tests, the source and why counters are missing. */
static int record_health(struct mcf_h5 *h, const struct mcf_health *hl, struct mcf_err *e)
{
    char path[96], list[512] = "";
    MCF_TRY(mcf_h5_group(h, "/health", e));
    for (int c = 0; c < MCF_HC_COUNT; c++) {
        long long row[2] = { hl->before.v[c], hl->after.v[c] };
        snprintf(path, sizeof path, "/health/%s", mcf_health_names[c]);
        MCF_TRY(mcf_h5_rows_longs(h, path, row, 2, e));
        if (c) strncat(list, ",", sizeof list - strlen(list) - 1);
        strncat(list, mcf_health_names[c], sizeof list - strlen(list) - 1);
    }
    MCF_TRY(mcf_h5_rows_long(h, "/health/pcie_gen_busy", hl->gen_busy, e));
    MCF_TRY(mcf_h5_rows_long(h, "/health/pcie_width_busy", hl->width_busy, e));
    MCF_TRY(mcf_h5_rows_str(h, "/health/source", hl->source, e));
    MCF_TRY(mcf_h5_rows_str(h, "/health/notes", hl->notes, e));
    MCF_TRY(mcf_h5_attr_str(h, "/health", "counters", list, e));
    MCF_TRY(
        mcf_h5_attr_str(h, "/health", "columns", "before the first test,after the last test", e));
    return MCF_OK;
fail:
    return e->rc;
}

/* The ranks the watchdog found hung: who they were and what they missed (rank 0 knows). */
static int record_hung(struct mcf_h5 *h, const struct mcf_watchdog *wd,
                       const struct mcf_result *res, int n, struct mcf_err *e)
{
    int k = h->rank == 0 ? wd->nhung : 0;
    long long *rank = NULL;
    const char **host = NULL, **uuid = NULL, **bus = NULL, **name = NULL, **test = NULL;
    MCF_ALLOC(e, rank, k);
    MCF_ALLOC(e, host, k);
    MCF_ALLOC(e, uuid, k);
    MCF_ALLOC(e, bus, k);
    MCF_ALLOC(e, name, k);
    MCF_ALLOC(e, test, k);
    for (int i = 0; i < k; i++) {
        const struct mcf_rank_ident *id = &wd->idents[wd->hung[i]];
        int at = wd->hung_at[i]; /* the boundary before test `at`: the test before it never ended */
        rank[i] = wd->hung[i];
        host[i] = id->hostname;
        uuid[i] = id->device_uuid;
        bus[i] = id->pci_bus_id;
        name[i] = id->device_name;
        test[i] = at > 0 && at <= n ? res[at - 1].inst->name : "(start of the run)";
    }
fail:
    if (e->rc == MCF_OK) {
        MCF_TRY(mcf_h5_group(h, "/hung", e));
        MCF_TRY(mcf_h5_longs(h, "/hung/world_rank", rank, (size_t)k, e));
        MCF_TRY(mcf_h5_strings(h, "/hung/hostname", host, (size_t)k, e));
        MCF_TRY(mcf_h5_strings(h, "/hung/device_uuid", uuid, (size_t)k, e));
        MCF_TRY(mcf_h5_strings(h, "/hung/pci_bus_id", bus, (size_t)k, e));
        MCF_TRY(mcf_h5_strings(h, "/hung/device_name", name, (size_t)k, e));
        MCF_TRY(mcf_h5_strings(h, "/hung/test", test, (size_t)k, e));
    }
    free(rank);
    free(host);
    free(uuid);
    free(bus);
    free(name);
    free(test);
    return e->rc;
}

int mcf_record_clock_origin(struct mcf_record_ctx *c, struct mcf_err *e)
{
    /* the times in this file are rank 0's CLOCK_MONOTONIC; adding this gives
       Unix time, to line them up with an outside sampler (nvidia-smi, DCGM) */
    struct timespec rt, mt;
    c->clock_origin = 0.0;
    if (c->topo->rank == 0 && clock_gettime(CLOCK_REALTIME, &rt) == 0 &&
        clock_gettime(CLOCK_MONOTONIC, &mt) == 0)
        c->clock_origin = (double)(rt.tv_sec - mt.tv_sec) + (rt.tv_nsec - mt.tv_nsec) * 1e-9;
    MCF_MPI(e, MPI_Bcast(&c->clock_origin, 1, MPI_DOUBLE, 0, c->topo->world));
    return MCF_OK;
fail:
    return e->rc;
}

int mcf_record_start(struct mcf_h5 *h5, const struct mcf_record_ctx *c, int ntests,
                     struct mcf_err *e)
{
    MCF_TRY(
        record_ranks(h5, c->topo, c->dev, c->device, c->cs, c->loc, c->world_rank, c->serial, e));
    MCF_TRY(mcf_h5_group(h5, "/results", e));
    if (ntests >= 0) MCF_TRY(mcf_h5_attr_long(h5, "/results", "ntests", ntests, e));
    MCF_TRY(mcf_h5_attr_str(h5, "/results", "status_codes", mcf_status_codes, e));
    MCF_TRY(record_meta_start(h5, c, e));
    MCF_TRY(mcf_record_schema(h5, e));
    return MCF_OK;
fail:
    return e->rc;
}

int mcf_record_test(struct mcf_h5 *h5, const struct mcf_result *r, struct mcf_err *e)
{
    /* any_verified: the same on every rank (a test boundary); the status is
     * not (a rank may not have reached the test others ran) */
    return record_test(h5, r, r->any_verified, e);
}

int mcf_record_run(struct mcf_h5 *h5, const struct mcf_record_ctx *c, const struct mcf_result *res,
                   int n, const struct mcf_power_run *power, const struct mcf_health *health,
                   struct mcf_record_end *end, const struct mcf_watchdog *wd, struct mcf_err *e)
{
    const char **not_run = NULL;
    char hung[64 * 16] = "";
    MCF_TRY(mcf_record_start(h5, c, n, e));
    for (int i = 0; i < n; i++) MCF_TRY(mcf_record_test(h5, &res[i], e));
    if (power) { /* the power layer computes its figures; this layer writes them */
        struct mcf_power_figures pf;
        int rc = mcf_power_compute(power, res, n, &pf, e);
        if (rc == MCF_OK) rc = mcf_record_power(h5, &pf, res, n, e);
        mcf_power_figures_free(&pf);
        if (rc != MCF_OK) goto fail;
    }
    MCF_TRY(record_health(h5, health, e));
    if (wd->nhung) MCF_TRY(record_hung(h5, wd, res, n, e));
    MCF_ALLOC(e, not_run, n);
    end->nnot = 0;
    for (int i = 0; i < n; i++)
        if (res[i].listed_not_run) /* the fleet's decision, not this rank's row: the same on every
                                      rank */
            not_run[end->nnot++] = res[i].inst->name;
    for (int i = 0; i < wd->nhung; i++) { /* all of them are in /hung; the first few here */
        size_t len = strlen(hung);
        if (len + 16 >= sizeof hung) {
            snprintf(hung + len, sizeof hung - len, ",...");
            break;
        }
        snprintf(hung + len, sizeof hung - len, "%s%d", i ? "," : "", wd->hung[i]);
    }
    end->not_run = not_run;
    end->world_size = wd->size;
    end->nhung = wd->nhung;
    end->hung_ranks = hung;
    MCF_TRY(mcf_record_meta_end(h5, end, e));
fail:
    end->not_run = NULL;
    end->hung_ranks = NULL;
    free(not_run);
    return e->rc;
}

double mcf_record_bytes(const struct mcf_instance *inst, int n, unsigned backend_caps, int nranks,
                        size_t deck_len)
{
    /* HDF5's costs, rounded up from files this writer made: about 1 KiB per
     * dataset (object header, B-tree entry, the unit attribute), 2 KiB per
     * test group with its parameter attributes; 64 bytes per rank for a
     * string row; /ranks has 40 datasets; power adds a few per test. */
    const double per_dataset = 1024, per_group = 2048, per_string = 64;
    double bytes = 256.0 * 1024 + 2.0 * (double)deck_len +
        40 * (per_dataset + per_string * nranks) + 18 * (per_dataset + 16.0 * nranks) +
        2 * per_string * 8 * nranks; /* /health */
    for (int i = 0; i < n; i++) {
        struct mcf_metric m[MCF_MAX_METRICS];
        int nm = mcf_kernel_metrics(&inst[i].kernel, backend_caps, m, MCF_MAX_METRICS);
        double reps = inst[i].repetitions;
        bytes += per_group +
            (nm + 2) * (per_dataset + 8.0 * nranks * reps) /* metrics, rep start and end */
            + 5 * (per_dataset + per_string * nranks) /* status, message, ... */
            + 9 * (per_dataset + 8.0 * nranks * (reps + 1)) /* power and evidence per test */
            + mcf_sustained_bytes(&inst[i], nranks); /* a sustained test's trace */
    }
    return bytes;
}
