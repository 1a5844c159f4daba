/* The schema of results files older than /meta/families (2026-12-08): each
 * family's keys as the builds before it recorded them, in their order, with
 * what a file without a key implied. Frozen: a file that has the schema is
 * read from it, so this table is never edited again, whatever a family's row
 * becomes; tests/data/history keeps proving it reads every older file.
 *
 * Implied values: matrix dtype_b and path (2026-11-22: B's type was A's, the
 * path the backend's choice); memory and streams inputs, streams shape
 * (acc7cd4, 2026-11-23: random inputs; no shape for memory work); and each
 * key added later and left out of "measured" at its default (quiet), so the
 * files before it measured that default. The metrics' directions of files
 * before the dataset attribute better (2026-11-23) are legacy_better. */
#include <stdio.h>
#include <string.h>

#include "report_schema.h"

struct legacy_key {
    const char *name;
    int amount, quiet;
    const char *implied;
};

struct legacy_family {
    const char *name, *kind;
    struct legacy_key keys[MCF_SCHEMA_MAX_KEYS];
};

static const struct legacy_family legacy[] = {
    { "matrix",
      "matrix",
      { { "dtype", 0, 0, NULL },
        { "dtype_b", 0, 0, "=dtype" },
        { "shape", 0, 0, NULL },
        { "mode", 0, 0, NULL },
        { "path", 0, 0, "auto" },
        { "occupancy", 0, 0, NULL },
        { "iterations", 1, 0, NULL },
        { "inputs", 0, 0, NULL },
        { "sparsity", 0, 1, "dense" },
        { "seed", 1, 0, NULL } } },
    { "valu",
      "compute",
      { { "dtype", 0, 0, NULL },
        { "occupancy", 0, 0, NULL },
        { "iterations", 1, 0, NULL },
        { "inputs", 0, 0, NULL },
        { "seed", 1, 0, NULL } } },
    { "memory",
      "memory",
      { { "dtype", 0, 0, NULL },
        { "level", 0, 0, NULL },
        { "op", 0, 0, NULL },
        { "bytes", 0, 0, NULL },
        { "intensity", 0, 0, NULL },
        { "sweeps", 1, 0, NULL },
        { "occupancy", 0, 0, NULL },
        { "inputs", 0, 0, "random" },
        { "mode", 0, 1, "throughput" },
        { "cluster", 0, 1, "2" },
        { "pattern", 0, 1, "ring" },
        { "tma", 0, 1, "bulk" },
        { "load", 0, 1, "4096" },
        { "ctas", 0, 1, "0" },
        { "seed", 1, 0, NULL } } },
    { "latency",
      "memory",
      { { "working_set", 0, 0, NULL },
        { "stride", 0, 0, NULL },
        { "iterations", 1, 0, NULL },
        { "seed", 1, 0, NULL } } },
    { "streams",
      "compute",
      { { "streams", 0, 0, NULL },
        { "imbalance", 0, 0, NULL },
        { "work", 0, 0, NULL },
        { "dtype", 0, 0, NULL },
        { "bytes", 0, 0, NULL },
        { "iterations", 1, 0, NULL },
        { "shape", 0, 0, "0x0x0" },
        { "inputs", 0, 0, "random" },
        { "seed", 1, 0, NULL } } },
    { "gemm",
      "matrix",
      { { "dtype", 0, 0, NULL },
        { "size", 0, 0, NULL },
        { "iterations", 1, 0, NULL },
        { "inputs", 0, 0, NULL },
        { "sparsity", 0, 1, "dense" },
        { "seed", 1, 0, NULL } } },
    { "ladder",
      "compute",
      { { "dtype", 0, 0, NULL },
        { "size", 0, 0, NULL },
        { "rung", 0, 0, NULL },
        { "iterations", 1, 0, NULL },
        { "inputs", 0, 0, NULL },
        { "seed", 1, 0, NULL } } },
    { "transfer",
      "link",
      { { "link", 0, 0, NULL },
        { "direction", 0, 1, "in" },
        { "engine", 0, 1, "copy" },
        { "host_memory", 0, 1, "local" },
        { "mode", 0, 0, NULL },
        { "bytes", 0, 0, NULL },
        { "iterations", 1, 0, NULL },
        { "collective", 0, 1, "allreduce" },
        { "scope", 0, 1, "node" },
        { "rounds", 0, 1, "4" },
        { "seed", 1, 0, NULL } } },
};

void mcf_schema_legacy(struct mcf_schema *s)
{
    memset(s, 0, sizeof *s);
    s->legacy = 1;
    for (size_t f = 0; f < sizeof legacy / sizeof legacy[0]; f++) {
        struct mcf_schema_family *sf = &s->fam[s->nfam++];
        snprintf(sf->name, sizeof sf->name, "%s", legacy[f].name);
        snprintf(sf->kind, sizeof sf->kind, "%s", legacy[f].kind);
        for (const struct legacy_key *k = legacy[f].keys; k->name; k++) {
            struct mcf_schema_key *sk = &sf->key[sf->nkeys++];
            snprintf(sk->name, sizeof sk->name, "%s", k->name);
            sk->amount = k->amount;
            sk->quiet = k->quiet;
            sk->has_implied = k->implied != NULL;
            snprintf(sk->implied, sizeof sk->implied, "%s", k->implied ? k->implied : "");
        }
    }
}

/* Which way a metric is good in a file older than its dataset's attribute
 * better: by its name, as the builds up to the schema judged such files (+1
 * higher, -1 lower, 0 not judged). */
int mcf_legacy_better(const char *metric)
{
    static const char *const higher[] = { "gflops",
                                          "bandwidth_gbs",
                                          "speedup",
                                          "clock_mhz",
                                          "test_sm_mhz",
                                          "sustained_gflops",
                                          "sustained_bandwidth_gbs",
                                          "sustained_clock_mhz",
                                          "sustained_sm_mhz",
                                          "busbw_gbs" };
    static const char *const lower[] = { "latency_ns", "latency_cycles", "sustained_j_per_gflop",
                                         "sustained_j_per_gb" };
    size_t n = strlen(metric);
    for (size_t i = 0; i < sizeof higher / sizeof higher[0]; i++)
        if (!strcmp(metric, higher[i])) return 1;
    for (size_t i = 0; i < sizeof lower / sizeof lower[0]; i++)
        if (!strcmp(metric, lower[i])) return -1;
    return n > 6 && !strcmp(metric + n - 6, "_per_w") ? 1 : 0;
}
