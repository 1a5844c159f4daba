/* What a results file says its kernel families are (/meta/families, written
 * by src/results/record_schema.c), and each test's keys read by it: every
 * reader of a test's identity (the verdict's profile match, the links, the
 * JSON that compare, baseline, study and health read) takes it from here, so
 * no reader keeps a list of a family's keys. A file older than the schema is
 * read by the one frozen table of report_legacy.c. */
#ifndef MCF_REPORT_SCHEMA_H
#define MCF_REPORT_SCHEMA_H

#include <hdf5.h>
#include <stddef.h>

#include "report_read.h"

#define MCF_SCHEMA_MAX_KEYS 32
#define MCF_SCHEMA_MAX_FAMILIES 32
#define MCF_SCHEMA_NAME 32
#define MCF_SCHEMA_VALUE 64

struct mcf_schema_key {
    char name[MCF_SCHEMA_NAME];
    int amount; /* how much or how long: not in "measured" */
    int quiet; /* left out of "measured" at its implied value */
    int has_implied;
    char implied[MCF_SCHEMA_VALUE]; /* what a file without the key implies; "=K": key K's value */
};

struct mcf_schema_family {
    char name[MCF_SCHEMA_NAME];
    char kind[MCF_SCHEMA_NAME]; /* the workload it is (matrix, compute, memory, link); "" unknown */
    struct mcf_schema_key key[MCF_SCHEMA_MAX_KEYS];
    int nkeys;
};

struct mcf_schema {
    struct mcf_schema_family fam[MCF_SCHEMA_MAX_FAMILIES];
    int nfam;
    int legacy; /* 1: the file has none; the frozen table's */
    char why[600]; /* the first problem of the schema or of a test's keys; "" none */
};

/* A test's key as its file records it, or as the schema implies it. */
struct mcf_test_key {
    char name[MCF_SCHEMA_NAME];
    char value[MCF_SCHEMA_VALUE];
    int amount;
    int implied; /* 1: the file lacks it; the value is the one implied */
};

struct mcf_test_identity {
    char kernel[MCF_SCHEMA_NAME];
    char kind[MCF_SCHEMA_NAME]; /* its family's workload kind ("" unknown) */
    struct mcf_test_key key[MCF_SCHEMA_MAX_KEYS];
    int nkeys;
    char measured[512]; /* the attribute measured, else rebuilt from the keys */
    int rebuilt; /* 1: rebuilt (files before measured) */
};

/* The file's schema (/meta/families), else the frozen table's; problems
 * reported through rd. */
void mcf_schema_read(struct mcf_rd *rd, hid_t file, struct mcf_schema *s);
/* report_legacy.c: the frozen table, for files older than the schema, and
 * the direction of a metric whose dataset has no attribute better. */
void mcf_schema_legacy(struct mcf_schema *s);
int mcf_legacy_better(const char *metric);

/* Test group g's kernel, keys and measured text: 1 read, 0 no kernel
 * attribute, -1 a problem reported through rd. */
int mcf_test_identity_read(struct mcf_rd *rd, const struct mcf_schema *s, hid_t g,
                           const char *gname, struct mcf_test_identity *id);
/* The first problem reported through rd since its list was len0 bytes long
 * kept as s's why, where s has none yet: what readers of the tests are told
 * (--format tests-json's "schema_problem"). */
void mcf_schema_note(struct mcf_schema *s, const struct mcf_rd *rd, size_t len0);
/* The value of key NAME of the test (NULL: it has none). */
const char *mcf_test_key(const struct mcf_test_identity *id, const char *name);

#endif
