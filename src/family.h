/* Kernel families as data, after BabelStream's benchmark.h: a family is one
 * row of mcf_families[], holding the deck keys it takes (each with its
 * default, or required), its cross-key rules, the work one unit does, the
 * metrics it records and its label. The deck parser, the --quick caps and the
 * recorder are loops over the same rows, so a new family is one row plus its
 * kernels. The keys themselves (type, range, where the value lives) are the
 * rows of mcf_kernel_keys[]. */
#ifndef MCF_FAMILY_H
#define MCF_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

enum mcf_vtype {
    MCF_V_INT, /* a decimal integer */
    MCF_V_SIZE, /* bytes: 4096, 64KiB, 1.5GiB, 2GB */
    MCF_V_ENUM, /* one of names[] */
    MCF_V_STRING, /* text, not stored by the key table */
    MCF_V_SHAPE, /* [m, n, k] */
    MCF_V_SECONDS /* 60, 60s, 5min */
};

/* A deck key: where its value lives (offset and width in the struct it
 * belongs to: struct mcf_kernel for the rows of mcf_kernel_keys[]), its type
 * and range, whether it may be a list (a sweep), and what --quick caps it to. */
struct mcf_key {
    const char *name;
    enum mcf_vtype type;
    size_t offset, width;
    int sweepable;
    const char *const *names; /* MCF_V_ENUM */
    int nnames;
    double min, max; /* MCF_V_INT, MCF_V_SIZE, MCF_V_SECONDS; each part of a shape */
    uint64_t quick_max; /* --quick caps the value to this (0: not capped) */
    int allow_auto; /* MCF_V_SIZE: "auto" is 0, resolved from the device */
    const char *hint; /* how to write it, for "needs '...'" messages (NULL: the name) */
    /* the value as recorded in the results file, where it is not the plain
     * number or name (a shape, or a default that means "the same as dtype") */
    const char *(*text)(const struct mcf_kernel *k, char *buf, size_t len);
    /* 1: how much or how long (seed, iterations, sweeps), not what is
     * measured: left out of the test's "measured" signature, so a --quick run
     * or a longer one still measures the same thing */
    int amount;
    /* 1: a key added after results files recorded "measured" (sparsity):
     * left out of that text while at the family's default, so the files,
     * profiles and baselines written before it still match what they measured */
    int quiet_default;
};

/* A family's use of a key: its default, or that the deck must give it. */
#define MCF_KEY_REQUIRED UINT64_MAX
struct mcf_key_use {
    const char *key;
    uint64_t def;
    /* the value a results file without this key implies (its build had no
     * such key, and measured what this value measures): its recorded text,
     * "=KEY" for another key's value of the same test; NULL where older files
     * imply none. Written into every results file's schema (/meta/families). */
    const char *implied;
};

#define MCF_MAX_FAMILY_KEYS 16

/* The row of family f is mcf_families[f]; its name is mcf_family_names[f]. */
struct mcf_family_row {
    const struct mcf_key_use *keys; /* ended by { NULL } */
    /* Cross-key rules, after every key is set (given: bit i set when keys[i]
     * came from the deck). Returns NULL, or what is wrong, written to follow
     * the test's name ("%s: 'intensity' needs 'op: fma'"); may normalize k. */
    const char *(*check)(struct mcf_kernel *k, unsigned given, char *why, size_t len);
    double (*flops_per_unit)(const struct mcf_kernel *k);
    double (*bytes_per_unit)(const struct mcf_kernel *k);
    int (*metrics)(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out, int max);
    void (*label)(const struct mcf_kernel *k, char *buf, size_t len);
    /* keys left out of "measured" at the family's default in this family
     * only, as if quiet_default (memory's mode: matrix tests always recorded
     * theirs, memory tests never had one); NULL or ended by NULL */
    const char *const *quiet;
    /* the workload it is, for the study's classes (src/results/record_schema.c
     * writes it): "matrix", "compute", "memory" or "link" */
    const char *kind;
};

/* Appends a metric to out (n of max used) and returns the new count (n
 * where out is full): every family's metrics function is made of these.
 * index: which stream (per-stream metrics), else 0. */
enum { MCF_METRIC_SUMMARY = 0, MCF_METRIC_DETAIL = 1, MCF_METRIC_OPTIONAL = 2 };
/* Which way a metric is good, or'ed into the flags: a summary metric with a
 * direction is judged; one without is shown, not judged. */
enum { MCF_METRIC_HIGHER = 4, MCF_METRIC_LOWER = 8 };
int mcf_metric_add(struct mcf_metric *out, int n, int max, const char *name, const char *unit,
                   double (*fn)(const struct mcf_kernel *, const struct mcf_sample *, int),
                   int index, int flags);

extern const struct mcf_family_row mcf_families[MCF_FAMILY_COUNT];
extern const struct mcf_key mcf_kernel_keys[]; /* ended by { NULL } */
/* Keys every family takes (the random inputs' seed). */
extern const struct mcf_key_use mcf_common_kernel_keys[];

const struct mcf_key *mcf_kernel_key(const char *name);
/* The family's use of a key (a common key included); NULL where it does not take it. */
const struct mcf_key_use *mcf_family_key(enum mcf_family f, const char *name);
/* Index of the key in the family's list (the bit of `given`); -1 if absent. */
int mcf_family_key_index(enum mcf_family f, const char *name);

/* A kernel of family `to` made from a test of another family (a streams
 * test's matrix or triad work): the keys both families take keep the test's
 * values, every other key of `to` takes `to`'s default, never what the test's
 * struct happened to hold there (a streams test's unset dtype_b, 0, is fp64:
 * issue 31). Fields no key owns (label, inject_fault, cut) are kept. */
void mcf_kernel_derive(const struct mcf_kernel *from, enum mcf_family to, struct mcf_kernel *out);
/* What stream `stream` of a streams test k runs, for every backend: matrix
 * work is a matrix kernel of k's type, shape, inputs and iterations (its
 * other keys the matrix family's defaults), memory work a triad of k's type
 * over k's bytes per array; stream 0 does `imbalance` times the others' work. */
void mcf_streams_work(const struct mcf_kernel *k, int stream, struct mcf_kernel *out);
/* The types of a matrix kernel's operands A and B, as the reference computes
 * them: B is dtype unless dtype and dtype_b are two FP8 formats (whatever
 * else dtype_b holds, 0 in a struct no deck filled included, means dtype). */
void mcf_kernel_operands(const struct mcf_kernel *k, enum mcf_dtype *a, enum mcf_dtype *b);
/* NULL when the instruction bound for k multiplies the operand types the
 * reference does (a and b); else why not, written into why. */
const char *mcf_kernel_operands_differ(const struct mcf_kernel *k, enum mcf_dtype a,
                                       enum mcf_dtype b, char *why, size_t len);

/* A gemm test with a 2:4 A: its metrics after gflops (family_sparse.c). */
int mcf_gemm_sparse_metrics(unsigned backend_caps, struct mcf_metric *out, int n, int max);

/* The key's value as recorded: its text, its enum name, or the number. */
const char *mcf_key_value_text(const struct mcf_key *key, const struct mcf_kernel *k, char *buf,
                               size_t len);
/* What test k measures, as the results file's "measured" attribute of the
 * test: "kernel=matrix dtype=fp64 shape=16x8x16 ...", the family and every
 * key of it that is not an amount, in the family's key order. A profile's
 * figure and a history's judge a test only where this text is the same
 * (docs/results-format.md). Returns buf (cut short where len is too small). */
const char *mcf_kernel_measured(const struct mcf_kernel *k, char *buf, size_t len);

/* 1 where key u of family f is left out of "measured" at its default (a key
 * added after files recorded it: quiet_default, or the family's quiet list). */
int mcf_key_quiet(enum mcf_family f, const struct mcf_key_use *u);
/* The value a results file without key u of family f implies: u's
 * implied, or, for a key left out of "measured" at its default (quiet), that
 * default's text (files before it measured the default); NULL: none. */
const char *mcf_key_implied(enum mcf_family f, const struct mcf_key_use *u, char *buf, size_t len);

/* k: a kernel of family f, every key at the family's default (a required
 * key 0). */
void mcf_kernel_defaults(enum mcf_family f, struct mcf_kernel *k);
/* Sets the key from its recorded text (mcf_key_value_text's: an enum's
 * name, "MxNxK", a number); -1 where the text is none of these. */
int mcf_key_set_text(const struct mcf_key *key, struct mcf_kernel *k, const char *text);

/* A key's value in a struct (base: the struct its offset is into). */
uint64_t mcf_key_get(const struct mcf_key *key, const void *base);
void mcf_key_set(const struct mcf_key *key, void *base, uint64_t v);

#ifdef __cplusplus
}
#endif

#endif
