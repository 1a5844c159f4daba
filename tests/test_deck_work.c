/* The shipped decks' time goals, bounded as work rather than wall time (CI
 * runs beside CPU hogs; a deck or a --quick cap that grows must still fail):
 * every deck under input/ and input/acceptance/ with --quick, and the default
 * deck at full size, must each come to at most GOAL_S seconds on one host rank
 * (2 ranks on 2 cores run side by side) by a model of the host backend's work:
 * each instance's FLOPs, bytes and chase loads per repetition, from the deck
 * after --quick and the host's own rules, over rates a little below what a
 * 2-core Debian 12 EPYC VM measured (docs/performance.md, "How long the decks
 * take"). A test the host backend records as unsupported (an fp16 matrix, a
 * GPU-only GEMM type) costs it only the instance's overhead. Prints each
 * deck's modelled seconds and, for one over the goal, its heaviest instances. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "deck.h"
#include "family.h"
#include "host.h"
#include "sustained.h"

#define GOAL_S 60.0
/* rates of one host worker; measured on the VM (load 2-4): matrix tiles
 * 0.84-1.15 GFLOP/s, chained FMAs 3.9-5.7, hbm 6.6-11 GB/s, BLAS ~10 GFLOP/s,
 * a chase load over 16 MiB and more 220-260 ns */
#define TILE_FLOPS 0.8e9
#define CHAIN_FLOPS 3.0e9
#define MEMORY_BYTES 5.0e9
#define BLAS_FLOPS 5.0e9
/* the ladder's naive rung walks B's columns: 0.15-0.45 GFLOP/s a worker beside CPU hogs */
#define NAIVE_FLOPS 0.15e9
#define VALU_LANES 32            /* host_valu.c's chains per worker */
#define MPI_BYTES 0.3e9           /* a host collective's algbw on 4 ranks here: 0.3-2 GB/s */
#define NODE_RANKS 4              /* transfer: the suite's ranks on one node, one at a time for host and peer links */
#define PER_INSTANCE_S 0.3       /* agreeing the start, set-up, the check, the journal */

static double chase_load_s(uint64_t working_set)
{
    if (working_set <= (64u << 10))
        return 5e-9;
    if (working_set <= (4u << 20))
        return 40e-9;
    return 250e-9;
}

static double memory_s(const struct mcf_kernel *k)
{
    double elems = (double)k->bytes / mcf_dtype_size(k->dtype) * (double)(k->sweeps ? k->sweeps : 1);
    return elems * (mcf_kernel_bytes_per_unit(k) / MEMORY_BYTES + mcf_kernel_flops_per_unit(k) / CHAIN_FLOPS);
}

static double matrix_s(const struct mcf_kernel *k)
{
    return (double)(2 * (k->iterations / 2) + 1) * mcf_kernel_flops_per_unit(k) / TILE_FLOPS;
}

/* What the host backend runs rather than records as unsupported: the rules
 * of host_tiles_create, host_valu.c, host_gemm.c and memory_setup. */
static int host_runs(const struct mcf_kernel *k)
{
    int fp = k->dtype == MCF_FP64 || k->dtype == MCF_FP32;
    switch (k->family) {
    case MCF_FAMILY_MATRIX:
        return fp && (k->path == MCF_PATH_AUTO || k->path == MCF_PATH_MMA) && k->shape[0] <= 64 &&
               k->shape[1] <= 64 && k->shape[2] <= 64;
    case MCF_FAMILY_VALU: case MCF_FAMILY_GEMM: case MCF_FAMILY_LADDER:
        return fp;
    case MCF_FAMILY_MEMORY:
        return k->level != MCF_LEVEL_LDS;
    case MCF_FAMILY_STREAMS:
        return k->work != MCF_WORK_MATRIX || fp;
    default:
        return 1;
    }
}

/* One repetition on one worker, and the set-up before the first. */
static double repetition_s(const struct mcf_kernel *k, double *setup)
{
    *setup = 0.0;
    switch (k->family) {
    case MCF_FAMILY_MATRIX:
        return matrix_s(k);
    case MCF_FAMILY_VALU:
        return (double)k->iterations * VALU_LANES * mcf_kernel_flops_per_unit(k) / CHAIN_FLOPS;
    case MCF_FAMILY_MEMORY:
        *setup = memory_s(k);   /* first touch and the inputs' formulas: about a pass */
        return memory_s(k);
    case MCF_FAMILY_LATENCY: {
        double nodes = (double)k->working_set / (k->stride ? k->stride : 64);
        *setup = nodes * 250e-9;   /* shuffle and link: a miss a node */
        return (double)host_chase_steps(k) * chase_load_s(k->working_set);
    }
    case MCF_FAMILY_STREAMS: {
        double sum = 0.0;   /* each stream alone, then all together on the same cores */
        for (int i = 0; i < k->streams && i < MCF_MAX_STREAMS; i++) {
            struct mcf_kernel w;
            mcf_streams_work(k, i, &w);
            sum += w.family == MCF_FAMILY_MATRIX ? matrix_s(&w) : memory_s(&w);
        }
        return 2 * sum * (double)host_streams_passes(k);
    }
    case MCF_FAMILY_GEMM:
        return (double)k->iterations * mcf_kernel_flops_per_unit(k) / BLAS_FLOPS;
    case MCF_FAMILY_LADDER:
        return (double)k->iterations * mcf_kernel_flops_per_unit(k) / (k->rung == MCF_RUNG_NAIVE ? NAIVE_FLOPS : TILE_FLOPS);
    case MCF_FAMILY_TRANSFER: {
        double bytes = (double)k->bytes * (double)k->iterations * (k->direction == MCF_DIR_BOTH ? 2 : 1);
        *setup = (double)k->bytes * 2 / MEMORY_BYTES;   /* the patterns written */
        switch (k->link) {
        case MCF_LINK_HOST: return NODE_RANKS * bytes / MEMORY_BYTES;   /* the node's turns */
        case MCF_LINK_PEER:
            if (k->mode == MCF_MODE_LATENCY)
                return NODE_RANKS * (NODE_RANKS - 1) * (double)k->iterations * (double)k->bytes / 64 *
                       chase_load_s(k->bytes);
            return NODE_RANKS * (NODE_RANKS - 1) * bytes / MEMORY_BYTES;
        case MCF_LINK_COLLECTIVE: return bytes / MPI_BYTES;
        default: return 0.0;   /* the network: one node here, unsupported */
        }
    }
    default:
        return 0.0;
    }
}

static double instance_s(const struct mcf_instance *in)
{
    if (!host_runs(&in->kernel))
        return PER_INSTANCE_S;
    double setup, rep = repetition_s(&in->kernel, &setup);
    if (in->duration > 0)   /* sustained: back to back for its duration, the last one finished */
        return PER_INSTANCE_S + setup + in->duration + rep;
    return PER_INSTANCE_S + setup + (in->repetitions + in->warmup) * rep;
}

/* Modelled seconds of the deck at path (NULL: the built-in default). */
static double deck_s(const char *path, int quick, int verbose)
{
    struct mcf_deck d;
    struct mcf_err e = { 0 };
    struct mcf_instance *in = NULL;
    int n = 0;
    /* the host's device: what "auto" sizes come from (a 32 MiB last-level cache, as here) */
    struct mcf_device_info dev = { .cache_bytes = 32ull << 20, .l1_bytes = 32u << 10, .memory_bytes = 8ull << 30 };
    if (path)
        assert_int_equal(mcf_deck_load(path, &d, &e), MCF_OK);
    else
        assert_int_equal(mcf_deck_parse("default.yaml", mcf_default_deck, &d, &e), MCF_OK);
    if (quick)
        mcf_deck_quick(&d);
    assert_int_equal(mcf_deck_expand(&d, &dev, &in, &n, &e), MCF_OK);
    mcf_sustained_instances(in, n);
    double total = 0.0;
    for (int i = 0; i < n; i++) {
        double s = instance_s(&in[i]);
        total += s;
        if (verbose && s > 1.0)
            printf("    %8.1f s  %s (%s)\n", s, in[i].name, in[i].kernel.label);
    }
    free(in);
    mcf_deck_free(&d);
    return total;
}

static int check_deck(const char *path, int quick)
{
    double s = deck_s(path, quick, 0);
    int over = !(s <= GOAL_S);
    printf("%-40s %-8s %7.1f s modelled%s\n", path ? path : "(built-in default)", quick ? "--quick" : "", s,
           over ? "  OVER THE GOAL:" : "");
    if (over)
        deck_s(path, quick, 1);
    return over;
}

static int is_yaml(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && !strcmp(name + n - 5, ".yaml");
}

static int check_dir(const char *dir, int *decks)
{
    int over = 0;
    struct dirent **list;
    int n = scandir(dir, &list, NULL, alphasort);
    assert_true(n >= 0);
    for (int i = 0; i < n; i++) {
        if (is_yaml(list[i]->d_name)) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, list[i]->d_name);
            over += check_deck(path, 1);
            ++*decks;
        }
        free(list[i]);
    }
    free(list);
    return over;
}

static void shipped_decks_within_the_goal(void **state)
{
    (void)state;
    const char *src = getenv("srcdir");
    char dir[4096];
    int over = 0, decks = 0;
    over += check_deck(NULL, 0);       /* the default deck, full size: what quickstart.sh runs */
    over += check_deck(NULL, 1);
    snprintf(dir, sizeof dir, "%s/input", src ? src : ".");
    over += check_dir(dir, &decks);
    snprintf(dir, sizeof dir, "%s/input/acceptance", src ? src : ".");
    over += check_dir(dir, &decks);
    assert_true(decks >= 10);          /* the five top-level decks and the five acceptance decks at least */
    assert_int_equal(over, 0);
}

/* The model itself sees the work it bounds: without the quick cap on gemm's
 * size, 8192^3 would be hours of it. */
static void model_sees_a_large_gemm(void **state)
{
    (void)state;
    struct mcf_deck d;
    struct mcf_err e = { 0 };
    struct mcf_instance *in = NULL;
    int n = 0;
    struct mcf_device_info dev = { .cache_bytes = 32ull << 20 };
    assert_int_equal(mcf_deck_parse("g.yaml", "tests:\n  - {name: g, kernel: gemm, dtype: fp32, size: 8192}\n"
                                    "  - {name: c, kernel: latency, working_set: 1GiB}\n", &d, &e), MCF_OK);
    assert_int_equal(mcf_deck_expand(&d, &dev, &in, &n, &e), MCF_OK);
    assert_true(instance_s(&in[0]) > 10 * GOAL_S);
    assert_true(instance_s(&in[1]) > 3.0);   /* shuffling and linking 16 M nodes */
    free(in);
    mcf_deck_quick(&d);
    assert_int_equal(mcf_deck_expand(&d, &dev, &in, &n, &e), MCF_OK);
    assert_true(in[0].kernel.size <= 1024);
    assert_true(instance_s(&in[0]) < GOAL_S / 2);
    free(in);
    mcf_deck_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(model_sees_a_large_gemm),
        cmocka_unit_test(shipped_decks_within_the_goal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
