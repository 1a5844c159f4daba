/* A run's steps before the first test: the deck, the backend, the checks of
 * binding, locality and oversubscription, the output's name and space, the
 * watchdog. Each collective where it says so. */
#define _GNU_SOURCE
#include "run_int.h"
#include "family.h"

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

/* Rank 0 reads the deck; every rank parses the same text, so all agree on
 * every error and every test without broadcasting parsed data. */
int load_deck(struct run *r, struct mcf_err *e)
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
        e->agreed = 1; /* every rank parsed the same text and holds the same error */
        goto fail;
    }
    if (r->o->quick) mcf_deck_quick(&r->deck);
    free(text);
    return MCF_OK;
fail:
    free(text);
    return e->rc;
}

/* What a backend is told about the rank at init. */
struct mcf_rank_env rank_env(const struct run *r)
{
    struct mcf_rank_env env = { r->topo.local_rank, r->topo.local_size, r->topo.ncpus };
    return env;
}

int open_backend(struct run *r, const char *name, struct mcf_err *e)
{
    struct mcf_rank_env env = rank_env(r);
    int count = 0;
    MCF_TRY(mcf_backend_select(name, &r->be, e));
    MCF_TRY(mcf_inject_clock(&r->inject_clock_mhz, e)); /* checked on every rank before */
    if (r->inject_clock_mhz > 0) r->be.caps |= MCF_CAP_CLOCK;
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
int choose_backend(struct run *r, struct mcf_err *e)
{
    char name[32];
    snprintf(name, sizeof name, "%s", r->o->backend ? r->o->backend : "auto");
    snprintf(r->no_gpu_why, sizeof r->no_gpu_why, "--backend %s was asked for", name);
    if (strcmp(name, "auto") == 0) {
        if (r->topo.rank == 0) {
            struct mcf_rank_env env = rank_env(r);
            /* why no GPU backend: an acceptance run that ends on the host says it */
            mcf_backend_auto(&env, 0, " on rank 0", name, sizeof name, r->no_gpu_why,
                             sizeof r->no_gpu_why);
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
int choose_acceptance_deck(struct run *r, struct mcf_err *e)
{
    if (r->topo.rank == 0)
        mcf_acceptance_deck(r->dev.arch, r->be.is_gpu, r->acceptance_deck,
                            sizeof r->acceptance_deck, e);
    MCF_TRY(mcf_agree(r->topo.world, e));
    MCF_MPI(e,
            MPI_Bcast(r->acceptance_deck, sizeof r->acceptance_deck, MPI_CHAR, 0, r->topo.world));
    return MCF_OK;
fail:
    return e->rc;
}

/* An acceptance run measures GPUs: on the host backend where GPUs are
 * allocated it stops before any test, with what was seen and why no GPU
 * backend ran (exit 3). A device the deck does not target: a loud warning,
 * and the run goes on (the verdict names the mismatch). Collective. */
int check_acceptance(struct run *r, struct mcf_err *e)
{
    char seen[512];
    int other = 0, others = 0;
    if (r->o->acceptance && !r->deck.acceptance)
        mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                    "--acceptance: %s is not marked 'acceptance: true'", r->deck.path);
    else if (r->deck.acceptance && !r->be.is_gpu && mcf_gpus_allocated(seen, sizeof seen))
        mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                    "acceptance run refused: it would measure CPUs (the host backend), but %s has "
                    "GPUs allocated "
                    "(%.200s); no GPU backend ran: %.400s",
                    r->topo.hostname, seen, r->no_gpu_why);
    MCF_TRY(mcf_agree(r->topo.world, e));
    if (!r->deck.acceptance && !r->be.is_gpu && r->topo.rank == 0 &&
        mcf_gpus_allocated(seen, sizeof seen))
        say(r,
            "warning: GPUs are allocated here (%.200s), but this run measures CPUs (the host "
            "backend): %.400s\n",
            seen, r->no_gpu_why);
    other = r->deck.arch[0] && !mcf_arch_listed(r->dev.arch, r->deck.arch);
    MCF_MPI(e, MPI_Allreduce(&other, &others, 1, MPI_INT, MPI_SUM, r->topo.world));
    if (others && r->topo.rank == 0)
        fprintf(
            stderr,
            "mcfleet: WARNING: ************************************************************\n"
            "mcfleet: WARNING: the deck %s is made for %s, but %d of %d ranks have another device\n"
            "mcfleet: WARNING: architecture (rank 0: %s). Its figures are not an acceptance of\n"
            "mcfleet: WARNING: these GPUs: the verdict will name a deck mismatch. Running anyway.\n"
            "mcfleet: WARNING: ************************************************************\n",
            r->deck.path, r->deck.arch, others, r->topo.size,
            r->dev.arch[0] ? r->dev.arch : "unknown");
    return MCF_OK;
fail:
    return e->rc;
}

/* One rank per GPU, as the launcher bound them: checked on every node before
 * any test (GPU backends; host ranks share the CPU by design). Collective. */
int check_binding(struct run *r, struct mcf_err *e)
{
    int n = r->topo.local_size, *counts = NULL;
    char *ids = NULL, msg[512];
    const size_t w = sizeof r->dev.uuid;
    if (!r->be.is_gpu) return MCF_OK;
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
int check_locality(struct run *r, struct mcf_err *e)
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
        say(r,
            "warning: %d of %d ranks run on cores not local to their GPU: check the binding "
            "(srun --gpu-bind=closest --cpu-bind=cores); /ranks/cores_local_to_gpu says which\n",
            total, r->topo.size);
    return MCF_OK;
fail:
    return e->rc;
}

/* A node with more ranks than CPUs, its MPI not told to yield: rank 0 warns
 * once, naming how many nodes; /meta/oversubscribed_nodes records it. Collective. */
int check_oversubscription(struct run *r, struct mcf_err *e)
{
    char msg[256] = "";
    int mine[2] = { 0, 0 }, all[2] = { 0, 0 }, nodes;
    if (r->topo.local_rank == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        mine[0] = mcf_oversubscribed(r->topo.local_size, (int)cpus,
                                     getenv("OMPI_MCA_mpi_yield_when_idle"),
                                     getenv("OMPI_MCA_mpi_oversubscribe"), msg, sizeof msg);
        mine[1] = cpus > 0 && r->topo.local_size > cpus; /* ranks share cores, yielding or not */
    }
    MCF_MPI(e, MPI_Allreduce(mine, all, 2, MPI_INT, MPI_SUM, r->topo.world));
    r->topo.oversubscribed_nodes = nodes = all[0];
    r->topo.crowded_nodes = all[1];
    if (nodes) { /* rank 0's node may be fine while others are not: its words, or a count */
        MCF_MPI(e, MPI_Bcast(msg, sizeof msg, MPI_CHAR, 0, r->topo.world));
        say(r, "warning: %d node%s oversubscribed%s%s\n", nodes, nodes == 1 ? "" : "s",
            msg[0] ? ": rank 0's has " : "", msg);
    }
    return MCF_OK;
fail:
    return e->rc;
}

void default_output(struct run *r)
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

void list_tests(const struct run *r)
{
    say(r, "deck %s: %d tests, %d instances\n", r->deck.path, r->deck.ntests, r->ninst);
    for (int i = 0; i < r->ninst && !mcf_stop_signal(); i++) {
        const struct mcf_instance *in = &r->inst[i];
        say(r, "  %-40s %-56s reps %d warmup %d%s\n", in->name, in->kernel.label, in->repetitions,
            in->warmup,
            in->test->kernel.bytes == 0 && in->kernel.family == MCF_FAMILY_MEMORY ? " (bytes auto)"
                                                                                  : "");
        if (r->o->verbose) { /* what a SKU profile's 'measured:' must say to judge it */
            char measured[512];
            say(r, "      measured: %s\n",
                mcf_kernel_measured(&in->kernel, measured, sizeof measured));
        }
    }
}

/* A stop asked for before any test: nothing is measured, no file is made. Collective. */
int stop_before_start(struct run *r, struct mcf_err *e)
{
    int mine = mcf_stop_signal(), any = 0;
    char by[64];
    MCF_MPI(e, MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, r->topo.world));
    if (any)
        MCF_FAIL(e, MCF_ERUNTIME,
                 "stopped by %s before any test ran: nothing was measured, no file written",
                 mcf_stop_name(any, by, sizeof by));
    return MCF_OK;
fail:
    e->agreed = 1;
    return e->rc;
}

/* The file must fit where it goes: refused before any test, not after all of them. Collective. */
int check_free_space(struct run *r, const struct mcf_h5 *h5, struct mcf_err *e)
{
    if (r->topo.rank == 0) {
        long long free_bytes = mcf_h5_free_bytes(h5);
        double need = mcf_record_bytes(r->inst, r->ninst, r->be.caps, r->topo.size,
                                       r->deck.text ? strlen(r->deck.text) : 0);
        if (free_bytes >= 0 && (double)free_bytes < need)
            mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                        "not enough space for the results: %.0f KiB free where '%s' goes, about "
                        "%.0f KiB needed "
                        "(No space left on device)",
                        (double)free_bytes / 1024, h5->partial, need / 1024);
    }
    return mcf_agree(r->topo.world, e);
}

/* Rank 0 learns every rank's identity now: a rank that hangs later cannot say. Collective. */
int start_watchdog(struct run *r, struct mcf_err *e)
{
    struct mcf_rank_ident id;
    memset(&id, 0, sizeof id);
    /* fixed widths: longer names are cut, as they would be in a terminal */
    snprintf(id.hostname, sizeof id.hostname, "%.*s", (int)sizeof id.hostname - 1,
             r->topo.hostname);
    snprintf(id.device_uuid, sizeof id.device_uuid, "%.*s", (int)sizeof id.device_uuid - 1,
             r->dev.uuid);
    snprintf(id.pci_bus_id, sizeof id.pci_bus_id, "%.*s", (int)sizeof id.pci_bus_id - 1,
             r->dev.pci_bus_id);
    snprintf(id.device_name, sizeof id.device_name, "%.*s", (int)sizeof id.device_name - 1,
             r->dev.name);
    id.local_rank = r->topo.local_rank;
    MCF_TRY(mcf_watchdog_init(&r->wd, r->topo.world, &id, e));
    r->have_wd = 1;
    return MCF_OK;
fail:
    return e->rc;
}
