#include "deck.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "numparse.h"
#include "yamlinput.h"

#define DEFAULT_REPETITIONS 10
#define DEFAULT_WARMUP 2
#define DEFAULT_POWER_PERIOD_MS 20

enum vtype { V_INT, V_SIZE, V_ENUM, V_STRING, V_SHAPE, V_SECONDS };

#define FAM(x) (1u << MCF_FAMILY_##x)
#define ALL_FAMILIES ((1u << MCF_FAMILY_COUNT) - 1)

/* Every key a test may have: its type, the families it applies to, whether it
 * may be a list (a sweep), and its range. Validation is driven by this table. */
struct keydef {
    const char *key;
    enum vtype type;
    unsigned families;
    int sweepable;
    const char *const *names;
    int nnames;
    double min, max;
};

static const char *const power_source_names[] = { "nvml", "rsmi", "craypm" };

static const struct keydef test_keys[] = {
    { "name", V_STRING, ALL_FAMILIES, 0, NULL, 0, 0, 0 },
    { "kernel", V_ENUM, ALL_FAMILIES, 0, mcf_family_names, MCF_FAMILY_COUNT, 0, 0 },
    { "description", V_STRING, ALL_FAMILIES, 0, NULL, 0, 0, 0 },
    { "repetitions", V_INT, ALL_FAMILIES, 0, NULL, 0, 1, 1e6 },
    { "warmup", V_INT, ALL_FAMILIES, 0, NULL, 0, 0, 1e6 },
    { "time_limit", V_INT, ALL_FAMILIES, 0, NULL, 0, 1, 1e6 },
    { "duration", V_SECONDS, ALL_FAMILIES, 0, NULL, 0, 1, 86400 },
    { "seed", V_INT, ALL_FAMILIES, 0, NULL, 0, 0, 9007199254740992.0 },
    { "dtype", V_ENUM, FAM(MATRIX) | FAM(VALU) | FAM(MEMORY) | FAM(STREAMS) | FAM(GEMM), 0,
      mcf_dtype_names, MCF_DTYPE_COUNT, 0, 0 },
    { "dtype_b", V_ENUM, FAM(MATRIX), 0, mcf_dtype_names, MCF_DTYPE_COUNT, 0, 0 },
    { "shape", V_SHAPE, FAM(MATRIX) | FAM(STREAMS), 0, NULL, 0, 1, 1024 },
    { "mode", V_ENUM, FAM(MATRIX), 0, mcf_mode_names, MCF_MODE_COUNT, 0, 0 },
    { "path", V_ENUM, FAM(MATRIX), 0, mcf_path_names, MCF_PATH_COUNT, 0, 0 },
    { "occupancy", V_INT, FAM(MATRIX) | FAM(VALU) | FAM(MEMORY), 1, NULL, 0, 1, 1 << 20 },
    { "iterations", V_INT, FAM(MATRIX) | FAM(VALU) | FAM(LATENCY) | FAM(STREAMS) | FAM(GEMM), 1,
      NULL, 0, 1, 1e12 },
    { "inputs", V_ENUM, FAM(MATRIX) | FAM(VALU) | FAM(MEMORY) | FAM(STREAMS) | FAM(GEMM), 0,
      mcf_inputs_names, MCF_INPUTS_COUNT, 0, 0 },
    { "level", V_ENUM, FAM(MEMORY), 0, mcf_level_names, MCF_LEVEL_COUNT, 0, 0 },
    { "op", V_ENUM, FAM(MEMORY), 0, mcf_memop_names, MCF_OP_COUNT, 0, 0 },
    { "bytes", V_SIZE, FAM(MEMORY) | FAM(STREAMS), 1, NULL, 0, 1024, 17592186044416.0 },
    { "intensity", V_INT, FAM(MEMORY), 1, NULL, 0, 1, 1024 },
    { "sweeps", V_INT, FAM(MEMORY), 1, NULL, 0, 1, 1e6 },
    { "working_set", V_SIZE, FAM(LATENCY), 1, NULL, 0, 256, 1099511627776.0 },
    { "stride", V_SIZE, FAM(LATENCY), 0, NULL, 0, 8, 65536 },
    { "streams", V_INT, FAM(STREAMS), 1, NULL, 0, 1, MCF_MAX_STREAMS },
    { "imbalance", V_INT, FAM(STREAMS), 1, NULL, 0, 1, 16 },
    { "size", V_INT, FAM(GEMM), 1, NULL, 0, 16, 65536 },
    { "work", V_ENUM, FAM(STREAMS), 0, mcf_work_names, MCF_WORK_COUNT, 0, 0 },
};
#define NKEYS (sizeof test_keys / sizeof test_keys[0])







static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* A size: DIGITS[.DIGITS][spaces][UNIT], exactly a whole number of bytes, in
 * integer arithmetic (no rounding, no float-to-integer conversion). On error
 * *why says what is wrong, for the message. */
static int parse_size(const char *s, uint64_t *out, const char **why)
{
    static const struct { const char *suffix; uint64_t mult; } units[] = {
        { "", 1 }, { "B", 1 },
        { "KiB", 1ull << 10 }, { "MiB", 1ull << 20 }, { "GiB", 1ull << 30 }, { "TiB", 1ull << 40 },
        { "K", 1ull << 10 }, { "M", 1ull << 20 }, { "G", 1ull << 30 },
        { "KB", 1000ull }, { "MB", 1000000ull }, { "GB", 1000000000ull }, { "TB", 1000000000000ull },
    };
    uint64_t whole = 0, frac = 0, scale = 1;
    const char *p = s;
    *why = "";
    if (!s || !isdigit((unsigned char)*s)) {
        *why = s && (*s == '+' || *s == '-') ? "no sign is accepted" : "it must start with a digit";
        return -1;
    }
    if (s[0] == '0' && isdigit((unsigned char)s[1])) {
        *why = "it has a leading zero (octal in YAML 1.1)";
        return -1;
    }
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X' || s[1] == 'o' || s[1] == 'O')) {
        *why = "only decimal digits are accepted, no 0x/0o prefix";
        return -1;
    }
    for (; isdigit((unsigned char)*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        if (whole > (UINT64_MAX - d) / 10) {
            *why = "it is too large";
            return -1;
        }
        whole = whole * 10 + d;
    }
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p)) {
            *why = "digits must follow the decimal point";
            return -1;
        }
        for (int nd = 0; isdigit((unsigned char)*p); p++, nd++) {
            if (nd == 18) {
                *why = "it has too many decimal places";
                return -1;
            }
            frac = frac * 10 + (uint64_t)(*p - '0');
            scale *= 10;
        }
    }
    while (*p == ' ')
        p++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(p, units[i].suffix) != 0)
            continue;
        uint64_t m = units[i].mult, g = gcd(m, scale);
        /* frac/scale of the unit must be whole bytes: frac * m / scale, which
         * is below m, so it cannot overflow once reduced by the gcd */
        if (frac % (scale / g) != 0) {
            *why = "it is not a whole number of bytes";
            return -1;
        }
        uint64_t part = frac / (scale / g) * (m / g);
        if (whole > (UINT64_MAX - part) / m) {
            *why = "it is too large";
            return -1;
        }
        *out = whole * m + part;
        return 0;
    }
    *why = *p == 'e' || *p == 'E' ? "no exponent is accepted: write the digits or use a unit"
                                  : "the unit must be one of B, KiB, MiB, GiB, TiB, K, M, G (binary), "
                                    "KB, MB, GB, TB (decimal)";
    return -1;
}

int mcf_parse_size(const char *s, uint64_t *out)
{
    const char *why;
    return parse_size(s, out, &why);
}

/* One scalar value of a key, checked against its type and range. */
static int scalar_value(struct mcf_yaml_ctx *c, const struct keydef *kd, const char *owner,
                        const yaml_node_t *n, uint64_t *out)
{
    const char *s = mcf_yaml_scalar(n);
    uint64_t v = 0;
    const char *why = "";
    if (!s)
        return mcf_yaml_at(c, n, "'%s' in %s must be a scalar, got %s", kd->key, owner, mcf_yaml_node_kind(n));
    switch (kd->type) {
    case V_ENUM: {
        int idx = mcf_name_index(kd->names, kd->nnames, s);
        if (idx < 0) {
            char list[256] = "";
            for (int i = 0; i < kd->nnames; i++) {
                strncat(list, kd->names[i], sizeof list - strlen(list) - 3);
                if (i + 1 < kd->nnames) strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            return mcf_yaml_at(c, n, "'%s' in %s must be one of %s, got '%s'", kd->key, owner, list, s);
        }
        *out = (uint64_t)idx;
        return MCF_OK;
    }
    case V_INT: {
        int rc = mcf_parse_uint(s, (uint64_t)kd->max, &v);
        if (rc == MCF_NUM_MALFORMED)
            return mcf_yaml_at(c, n, "'%s' in %s must be an integer, got '%s' (%s)", kd->key, owner, s,
                      mcf_uint_problem(s));
        if (rc == MCF_NUM_RANGE)
            v = UINT64_MAX;          /* above the range: the message below */
        break;
    }
    case V_SECONDS: {
        /* "60", "60s" or "5min" */
        char num[24];
        size_t digits = strspn(s, "0123456789");
        const char *unit = s + digits;
        uint64_t mult = !*unit || !strcmp(unit, "s") ? 1 : !strcmp(unit, "min") ? 60 : 0;
        int rc = MCF_NUM_MALFORMED;
        if (digits && digits < sizeof num && mult) {
            memcpy(num, s, digits);
            num[digits] = '\0';
            rc = mcf_parse_uint(num, (uint64_t)kd->max, &v);
        }
        if (rc == MCF_NUM_MALFORMED)
            return mcf_yaml_at(c, n, "'%s' in %s must be a time such as 60, 60s or 5min, got '%s'", kd->key, owner, s);
        v = rc == MCF_NUM_RANGE || v > (uint64_t)kd->max / mult ? UINT64_MAX : v * mult;
        break;
    }
    case V_SIZE:
        if (strcmp(kd->key, "bytes") == 0 && strcmp(s, "auto") == 0) {
            *out = 0;
            return MCF_OK;
        }
        if (parse_size(s, &v, &why) != 0)
            return mcf_yaml_at(c, n, "'%s' in %s must be a size such as 4096, 64KiB or 2GiB, got '%s' (%s)",
                      kd->key, owner, s, why);
        break;
    default:
        return mcf_yaml_at(c, n, "internal: bad key type");
    }
    /* compared as integers: every bound in the table is exact in a double */
    if (v < (uint64_t)kd->min || v > (uint64_t)kd->max)
        return mcf_yaml_at(c, n, "'%s' in %s must be between %.0f and %.0f, got %s", kd->key, owner,
                  kd->min, kd->max, s);
    *out = v;
    return MCF_OK;
}

static void set_field(struct mcf_deck_test *t, const char *key, uint64_t v)
{
    struct mcf_kernel *k = &t->kernel;
    if (!strcmp(key, "repetitions")) t->repetitions = (int)v;
    else if (!strcmp(key, "warmup")) t->warmup = (int)v;
    else if (!strcmp(key, "time_limit")) t->time_limit = (int)v;
    else if (!strcmp(key, "duration")) t->duration = (int)v;
    else if (!strcmp(key, "seed")) k->seed = v;
    else if (!strcmp(key, "dtype")) k->dtype = (enum mcf_dtype)v;
    else if (!strcmp(key, "dtype_b")) k->dtype_b = (enum mcf_dtype)v;
    else if (!strcmp(key, "mode")) k->mode = (enum mcf_mode)v;
    else if (!strcmp(key, "path")) k->path = (enum mcf_path)v;
    else if (!strcmp(key, "occupancy")) k->occupancy = (int)v;
    else if (!strcmp(key, "iterations")) k->iterations = v;
    else if (!strcmp(key, "inputs")) k->inputs = (enum mcf_inputs)v;
    else if (!strcmp(key, "level")) k->level = (enum mcf_level)v;
    else if (!strcmp(key, "op")) k->op = (enum mcf_memop)v;
    else if (!strcmp(key, "bytes")) k->bytes = v;
    else if (!strcmp(key, "intensity")) k->intensity = (int)v;
    else if (!strcmp(key, "sweeps")) k->sweeps = v;
    else if (!strcmp(key, "working_set")) k->working_set = v;
    else if (!strcmp(key, "stride")) k->stride = (uint32_t)v;
    else if (!strcmp(key, "streams")) k->streams = (int)v;
    else if (!strcmp(key, "imbalance")) k->imbalance = (int)v;
    else if (!strcmp(key, "work")) k->work = (enum mcf_work)v;
    else if (!strcmp(key, "size")) k->size = v;
}

static const struct keydef *find_key(const char *key)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(test_keys[i].key, key) == 0)
            return &test_keys[i];
    return NULL;
}

/* Test names become HDF5 group names under /results. HDF5 refuses "." and
 * splits at '/'; a name must also survive shells and file names: letters,
 * digits, '-', '_', '.', starting with a letter or digit (so never ".", ".."
 * or "-x"), 1 to MCF_NAME_LEN - 1 characters. */
static int valid_name(const char *s)
{
    if (!isalnum((unsigned char)*s) || strlen(s) >= MCF_NAME_LEN)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
            return 0;
    return 1;
}
#define NAME_RULE "1-63 characters of letters, digits, '-', '_' or '.', starting with a letter or digit"
_Static_assert(MCF_NAME_LEN == 64, "NAME_RULE states the length");

/* What HDF5 itself needs of a link name: not empty, not "." or "..", no '/',
 * no control characters. Checked on every expanded instance name. */
static int hdf5_name_ok(const char *s)
{
    if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
        return 0;
    for (; *s; s++)
        if (*s == '/' || (unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

/* A string and where it came from, to find repeats by sorting: O(n log n)
 * whatever the input (a pairwise check took minutes on 90,000 tests). */
struct strref {
    const char *s;
    size_t pos;                 /* order in the document */
    const void *where;          /* the node (or instance) */
};

static int strref_cmp(const void *a, const void *b)
{
    const struct strref *x = a, *y = b;
    int d = strcmp(x->s, y->s);
    return d ? d : (x->pos > y->pos) - (x->pos < y->pos);
}

/* Sorts v; the repeat that comes first in the document, and in *first the
 * earlier one it repeats; NULL when all differ. */
static const struct strref *first_repeat(struct strref *v, size_t n, const struct strref **first)
{
    const struct strref *rep = NULL;
    qsort(v, n, sizeof *v, strref_cmp);
    for (size_t i = 1; i < n; i++)
        if (!strcmp(v[i - 1].s, v[i].s) && (!rep || v[i].pos < rep->pos)) {
            rep = &v[i];
            *first = &v[i - 1];
        }
    return rep;
}

/* A key given twice in one mapping: YAML says it is an error and libyaml
 * keeps both, so the later one would win silently. Reported at the second. */
static int unique_keys(struct mcf_yaml_ctx *c, const yaml_node_t *map, const char *owner)
{
    size_t n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start), m = 0;
    struct strref *v = NULL;
    const struct strref *rep, *first = NULL;
    if (n < 2)
        return MCF_OK;
    MCF_ALLOC(c->e, v, n);
    for (size_t i = 0; i < n; i++) {
        const yaml_node_t *kn = yaml_document_get_node(c->doc, map->data.mapping.pairs.start[i].key);
        if (kn && mcf_yaml_scalar(kn))
            v[m++] = (struct strref){ mcf_yaml_scalar(kn), i, kn };
    }
    if ((rep = first_repeat(v, m, &first)) != NULL) {
        const yaml_node_t *kn = rep->where, *k0 = first->where;
        mcf_yaml_at(c, kn, "key '%s' is given twice %s (first at line %lu): a YAML mapping holds each key once",
           rep->s, owner, (unsigned long)k0->start_mark.line + 1);
        goto fail;
    }
    free(v);
    return MCF_OK;
fail:
    free(v);
    return c->e->rc;
}

static int parse_test(struct mcf_yaml_ctx *c, const yaml_node_t *node, const struct mcf_deck *deck,
                      struct mcf_deck_test *t, int index)
{
    yaml_document_t *doc = c->doc;
    char owner[MCF_NAME_LEN + 16];
    const yaml_node_t *kernel_node = NULL;
    if (node->type != YAML_MAPPING_NODE)
        return mcf_yaml_at(c, node, "test %d must be a mapping (name:, kernel:, ...), got %s", index + 1,
                  mcf_yaml_node_kind(node));
    memset(t, 0, sizeof *t);
    t->line = (int)node->start_mark.line + 1;
    t->repetitions = deck->repetitions;
    t->warmup = deck->warmup;
    t->time_limit = deck->time_limit;
    struct mcf_kernel *k = &t->kernel;
    k->family = MCF_FAMILY_COUNT;
    k->dtype = MCF_DTYPE_COUNT;
    k->dtype_b = MCF_DTYPE_COUNT;
    k->occupancy = 0;          /* auto: fill the device */
    k->level = MCF_LEVEL_HBM;
    k->op = MCF_OP_TRIAD;
    k->stride = 64;
    k->imbalance = 1;
    k->work = MCF_WORK_MEMORY;
    k->seed = 20261122;

    /* First pass: the name and the kernel family, so later messages can name them. */
    snprintf(owner, sizeof owner, "test %d", index + 1);
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
        const yaml_node_t *kn = yaml_document_get_node(doc, p->key);
        const yaml_node_t *vn = yaml_document_get_node(doc, p->value);
        const char *key = mcf_yaml_scalar(kn);
        if (key && !strcmp(key, "name")) {
            const char *v = mcf_yaml_scalar(vn);
            if (!v || !valid_name(v))
                return mcf_yaml_at(c, vn, "test name must be " NAME_RULE);
            snprintf(t->name, sizeof t->name, "%s", v);
            snprintf(owner, sizeof owner, "test '%s'", v);
        } else if (key && !strcmp(key, "kernel")) {
            kernel_node = vn;
        }
    }
    if (!t->name[0])
        return mcf_yaml_at(c, node, "%s has no 'name'", owner);
    char in_owner[sizeof owner + 4];
    snprintf(in_owner, sizeof in_owner, "in %s", owner);
    MCF_TRY(unique_keys(c, node, in_owner));
    if (!kernel_node)
        return mcf_yaml_at(c, node, "%s has no 'kernel' (one of matrix, valu, memory, latency, streams, gemm)", owner);
    uint64_t fam;
    MCF_TRY(scalar_value(c, find_key("kernel"), owner, kernel_node, &fam));
    k->family = (enum mcf_family)fam;

    /* Second pass: every other key. */
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
        const yaml_node_t *kn = yaml_document_get_node(doc, p->key);
        const yaml_node_t *vn = yaml_document_get_node(doc, p->value);
        const char *key = mcf_yaml_scalar(kn);
        if (!key)
            return mcf_yaml_at(c, kn, "keys must be plain names in %s", owner);
        const struct keydef *kd = find_key(key);
        if (!kd)
            return mcf_yaml_at(c, kn, "unknown key '%s' in %s", key, owner);
        if (!(kd->families & (1u << k->family)))
            return mcf_yaml_at(c, kn, "key '%s' does not apply to kernel '%s' in %s", key,
                      mcf_family_names[k->family], owner);
        if (!strcmp(key, "name") || !strcmp(key, "kernel") || !strcmp(key, "description"))
            continue;
        if (kd->type == V_SHAPE) {
            if (vn->type != YAML_SEQUENCE_NODE ||
                vn->data.sequence.items.top - vn->data.sequence.items.start != 3)
                return mcf_yaml_at(c, vn, "'shape' in %s must be a list of three integers [m, n, k]", owner);
            for (int i = 0; i < 3; i++) {
                const yaml_node_t *item = yaml_document_get_node(doc, vn->data.sequence.items.start[i]);
                uint64_t v;
                if (mcf_parse_uint(mcf_yaml_scalar(item), (uint64_t)kd->max, &v) != MCF_NUM_OK || v < (uint64_t)kd->min)
                    return mcf_yaml_at(c, item, "'shape' in %s: each of m, n, k must be an integer between %.0f and %.0f",
                              owner, kd->min, kd->max);
                k->shape[i] = (int)v;
            }
            continue;
        }
        if (vn->type == YAML_SEQUENCE_NODE) {
            if (!kd->sweepable)
                return mcf_yaml_at(c, vn, "'%s' in %s cannot be a list", key, owner);
            if (t->sweep_key[0])
                return mcf_yaml_at(c, vn, "%s sweeps both '%s' and '%s': one list-valued key per test "
                          "(write two tests)", owner, t->sweep_key, key);
            int n = (int)(vn->data.sequence.items.top - vn->data.sequence.items.start);
            if (n < 1 || n > MCF_MAX_SWEEP)
                return mcf_yaml_at(c, vn, "'%s' in %s must list 1 to %d values", key, owner, MCF_MAX_SWEEP);
            snprintf(t->sweep_key, sizeof t->sweep_key, "%s", key);
            t->nsweep = n;
            for (int i = 0; i < n; i++) {
                const yaml_node_t *item = yaml_document_get_node(doc, vn->data.sequence.items.start[i]);
                MCF_TRY(scalar_value(c, kd, owner, item, &t->sweep[i]));
                for (int j = 0; j < i; j++)
                    if (t->sweep[j] == t->sweep[i])
                        return mcf_yaml_at(c, item, "'%s' in %s lists %s twice", key, owner, mcf_yaml_scalar(item));
            }
            set_field(t, key, t->sweep[0]);
            continue;
        }
        uint64_t v;
        MCF_TRY(scalar_value(c, kd, owner, vn, &v));
        set_field(t, key, v);
    }

    /* Family requirements and cross-key rules. */
    switch (k->family) {
    case MCF_FAMILY_MATRIX:
        if (k->dtype == MCF_DTYPE_COUNT)
            return mcf_yaml_at(c, node, "%s (matrix) needs 'dtype'", owner);
        if (!k->shape[0])
            return mcf_yaml_at(c, node, "%s (matrix) needs 'shape: [m, n, k]'", owner);
        if (k->dtype_b != MCF_DTYPE_COUNT) {
            int fp8a = k->dtype == MCF_FP8_E4M3 || k->dtype == MCF_FP8_E5M2;
            int fp8b = k->dtype_b == MCF_FP8_E4M3 || k->dtype_b == MCF_FP8_E5M2;
            if (!fp8a || !fp8b)
                return mcf_yaml_at(c, node, "%s: 'dtype_b' pairs FP8 formats: 'dtype' and 'dtype_b' must each be "
                          "fp8-e4m3 or fp8-e5m2", owner);
            if (k->dtype_b == k->dtype)
                k->dtype_b = MCF_DTYPE_COUNT;   /* the same format: not a pairing */
        }
        if (!k->iterations) k->iterations = 4096;
        break;
    case MCF_FAMILY_VALU:
        if (k->dtype == MCF_DTYPE_COUNT)
            return mcf_yaml_at(c, node, "%s (valu) needs 'dtype'", owner);
        if (!k->iterations) k->iterations = 1 << 16;
        break;
    case MCF_FAMILY_MEMORY:
        if (k->dtype == MCF_DTYPE_COUNT) k->dtype = MCF_FP64;
        if (k->dtype != MCF_FP64 && k->dtype != MCF_FP32)
            return mcf_yaml_at(c, node, "%s (memory) 'dtype' must be fp64 or fp32", owner);
        if (k->intensity && k->op != MCF_OP_FMA)
            return mcf_yaml_at(c, node, "%s: 'intensity' needs 'op: fma'", owner);
        if (!k->intensity) k->intensity = 1;
        if (!k->sweeps) k->sweeps = 1;
        break;
    case MCF_FAMILY_LATENCY:
        if (!k->working_set)
            return mcf_yaml_at(c, node, "%s (latency) needs 'working_set'", owner);
        break;
    case MCF_FAMILY_STREAMS:
        if (!k->streams)
            return mcf_yaml_at(c, node, "%s (streams) needs 'streams'", owner);
        if (k->dtype == MCF_DTYPE_COUNT) k->dtype = MCF_FP64;
        if (k->work == MCF_WORK_MATRIX && !k->shape[0])
            return mcf_yaml_at(c, node, "%s: 'work: matrix' needs 'shape: [m, n, k]'", owner);
        if (!k->iterations) k->iterations = 4096;
        if (!k->bytes) k->bytes = 8u << 20;
        break;
    case MCF_FAMILY_GEMM:
        if (k->dtype == MCF_DTYPE_COUNT)
            return mcf_yaml_at(c, node, "%s (gemm) needs 'dtype'", owner);
        if (!k->size) k->size = 4096;
        if (!k->iterations) k->iterations = 8;
        break;
    default:
        break;
    }
    return MCF_OK;
fail:
    return c->e->rc;
}

static int parse_power(struct mcf_yaml_ctx *c, const yaml_node_t *node, struct mcf_deck *deck)
{
    if (node->type != YAML_MAPPING_NODE)
        return mcf_yaml_at(c, node, "'power' must be a mapping (period_ms:, sources:, series:)");
    if (unique_keys(c, node, "in 'power'") != MCF_OK)
        return c->e->rc;
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
        const yaml_node_t *kn = yaml_document_get_node(c->doc, p->key);
        const yaml_node_t *vn = yaml_document_get_node(c->doc, p->value);
        const char *key = mcf_yaml_scalar(kn);
        if (key && !strcmp(key, "period_ms")) {
            uint64_t v;
            if (mcf_parse_uint(mcf_yaml_scalar(vn), 1000, &v) != MCF_NUM_OK || v < 1)
                return mcf_yaml_at(c, vn, "'period_ms' in 'power' must be an integer between 1 and 1000");
            deck->power_period_ms = (int)v;
        } else if (key && !strcmp(key, "sources")) {
            if (vn->type != YAML_SEQUENCE_NODE)
                return mcf_yaml_at(c, vn, "'sources' in 'power' must be a list of nvml, rsmi, craypm");
            deck->power_sources = 0;
            for (yaml_node_item_t *i = vn->data.sequence.items.start; i < vn->data.sequence.items.top; i++) {
                const yaml_node_t *item = yaml_document_get_node(c->doc, *i);
                const char *s = mcf_yaml_scalar(item);
                if (!s || mcf_name_index(power_source_names, 3, s) < 0)
                    return mcf_yaml_at(c, item, "unknown power source '%s' (nvml, rsmi, craypm)", s ? s : "?");
                deck->power_sources |= 1u << mcf_name_index(power_source_names, 3, s);
            }
        } else if (key && !strcmp(key, "series")) {
            const char *s = mcf_yaml_scalar(vn);
            if (s && (!strcmp(s, "true") || !strcmp(s, "on")))
                deck->power_series = 1;
            else if (s && (!strcmp(s, "false") || !strcmp(s, "off")))
                deck->power_series = 0;
            else
                return mcf_yaml_at(c, vn, "'series' in 'power' must be true or false, got '%s'", s ? s : "?");
        } else {
            return mcf_yaml_at(c, kn, "unknown key '%s' in 'power' (period_ms, sources, series)", key ? key : "?");
        }
    }
    return MCF_OK;
}

static int parse_defaults(struct mcf_yaml_ctx *c, const yaml_node_t *node, struct mcf_deck *deck)
{
    if (node->type != YAML_MAPPING_NODE)
        return mcf_yaml_at(c, node, "'defaults' must be a mapping (repetitions:, warmup:, time_limit:)");
    MCF_TRY(unique_keys(c, node, "in 'defaults'"));
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
        const yaml_node_t *kn = yaml_document_get_node(c->doc, p->key);
        const yaml_node_t *vn = yaml_document_get_node(c->doc, p->value);
        const char *key = mcf_yaml_scalar(kn);
        uint64_t v;
        if (!key || (strcmp(key, "repetitions") && strcmp(key, "warmup") && strcmp(key, "time_limit")))
            return mcf_yaml_at(c, kn, "unknown key '%s' in 'defaults' (repetitions, warmup, time_limit)", key ? key : "?");
        MCF_TRY(scalar_value(c, find_key(key), "'defaults'", vn, &v));
        if (!strcmp(key, "repetitions")) deck->repetitions = (int)v;
        else if (!strcmp(key, "time_limit")) deck->time_limit = (int)v;
        else deck->warmup = (int)v;
    }
    return MCF_OK;
fail:
    return c->e->rc;
}

/* An architecture as the backends record it in /ranks/device_arch (the part
 * before any ':' of AMD's feature suffix): sm_NN (NVIDIA), gfxNNN (AMD), or a
 * CPU's machine name for the host backend. */
static int arch_name_ok(const char *s)
{
    static const char *const cpus[] = { "x86_64", "aarch64", "ppc64le", "riscv64", "s390x" };
    size_t n = strlen(s), i;
    for (i = 0; i < sizeof cpus / sizeof cpus[0]; i++)
        if (!strcmp(s, cpus[i]))
            return 1;
    if (!strncmp(s, "sm_", 3) && n >= 5 && n <= 7) {
        size_t digits = s[n - 1] == 'a' ? n - 4 : n - 3;   /* sm_90, sm_90a, sm_100, sm_100a */
        if (digits < 2 || digits > 3)
            return 0;
        for (i = 3; i < 3 + digits; i++)
            if (!isdigit((unsigned char)s[i]))
                return 0;
        return 1;
    }
    if (!strncmp(s, "gfx", 3) && (n == 6 || n == 7)) {
        for (i = 3; i < n; i++)
            if (!isdigit((unsigned char)s[i]) && (s[i] < 'a' || s[i] > 'f'))
                return 0;
        return 1;
    }
    return 0;
}
#define ARCH_RULE "sm_NN (NVIDIA, e.g. sm_90), gfxNNN (AMD, e.g. gfx90a, gfx942), or a CPU " \
                  "(x86_64, aarch64, ppc64le, riscv64, s390x)"

/* arch: one name or a list; kept comma-separated, each once. */
static int parse_arch(struct mcf_yaml_ctx *c, const yaml_node_t *node, struct mcf_deck *deck)
{
    const yaml_node_t *one[1] = { node };
    const yaml_node_t *const *items = one;
    size_t n = 1;
    yaml_node_item_t *seq = NULL;
    if (node->type == YAML_SEQUENCE_NODE) {
        seq = node->data.sequence.items.start;
        n = (size_t)(node->data.sequence.items.top - seq);
        if (n < 1 || n > 16)
            return mcf_yaml_at(c, node, "'arch' must list 1 to 16 architectures");
    } else if (node->type != YAML_SCALAR_NODE) {
        return mcf_yaml_at(c, node, "'arch' must be an architecture or a list of them (" ARCH_RULE ")");
    }
    deck->arch[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const yaml_node_t *item = seq ? yaml_document_get_node(c->doc, seq[i]) : items[0];
        const char *s = mcf_yaml_scalar(item);
        char padded[40];
        if (!s || !arch_name_ok(s))
            return mcf_yaml_at(c, item, "'arch': '%s' is not an architecture: %s", s ? s : mcf_yaml_node_kind(item), ARCH_RULE);
        snprintf(padded, sizeof padded, ",%s,", s);
        {
            char all[sizeof deck->arch + 2];
            snprintf(all, sizeof all, ",%s,", deck->arch);
            if (strstr(all, padded))
                return mcf_yaml_at(c, item, "'arch' lists '%s' twice", s);
        }
        size_t len = strlen(deck->arch);
        snprintf(deck->arch + len, sizeof deck->arch - len, "%s%s", len ? "," : "", s);
    }
    return MCF_OK;
}

static int parse_bool(struct mcf_yaml_ctx *c, const yaml_node_t *node, const char *key, int *out)
{
    const char *v = mcf_yaml_scalar(node);
    if (!v || (strcmp(v, "true") && strcmp(v, "false")))
        return mcf_yaml_at(c, node, "'%s' must be true or false", key);
    *out = !strcmp(v, "true");
    return MCF_OK;
}

#define MAX_FLOW_DEPTH 64
#define MAX_ANCHORS 1000

/* libyaml's scanner spends O(depth) per token inside [ ] and { }, and its
 * loader O(anchors) per anchor: quadratic on hostile input (a 4 MiB deck of
 * nested brackets ran for an hour). A first pass over the tokens, linear
 * under these limits, stops such a deck at the token that crosses one. */
static int prescan(struct mcf_yaml_ctx *c, const char *text)
{
    yaml_mark_t mark;
    switch (mcf_yaml_prescan(text, MAX_FLOW_DEPTH, MAX_ANCHORS, &mark)) {
    case MCF_YAML_SCAN_DEEP:
        return mcf_yaml_at_mark(c, mark, "[ ] and { } nested more than %d deep (a deck needs 3 at most)", MAX_FLOW_DEPTH);
    case MCF_YAML_SCAN_ANCHORS:
        return mcf_yaml_at_mark(c, mark, "more than %d anchors (&name); a deck needs a few", MAX_ANCHORS);
    case MCF_YAML_SCAN_NOMEM:
        return mcf_err_set(c->e, MCF_ERUNTIME, __FILE__, __LINE__, "yaml_parser_initialize failed");
    default:
        return MCF_OK;
    }
}

int mcf_deck_parse(const char *path, const char *text, struct mcf_deck *deck, struct mcf_err *e)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    int have_doc = 0, have_parser = 0;
    struct mcf_yaml_ctx c = { path, &doc, e };
    const yaml_node_t *tests = NULL, *defaults = NULL, *acceptance = NULL;
    struct strref *names = NULL;

    memset(deck, 0, sizeof *deck);
    if ((size_t)snprintf(deck->path, sizeof deck->path, "%s", path) >= sizeof deck->path)
        MCF_FAIL(e, MCF_EINPUT, "--deck %.64s...: the path is %zu characters; at most %zu are supported",
                 path, strlen(path), sizeof deck->path - 1);
    deck->repetitions = DEFAULT_REPETITIONS;
    deck->warmup = DEFAULT_WARMUP;
    deck->power_period_ms = DEFAULT_POWER_PERIOD_MS;
    deck->power_sources = ~0u;
    deck->power_series = 1;
    if (!(deck->text = strdup(text)))
        MCF_FAIL(e, MCF_ERUNTIME, "out of memory");

    MCF_TRY(prescan(&c, text));
    if (!yaml_parser_initialize(&parser))
        MCF_FAIL(e, MCF_ERUNTIME, "yaml_parser_initialize failed");
    have_parser = 1;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
    if (!yaml_parser_load(&parser, &doc))
        goto syntax;
    have_doc = 1;
    {   /* a deck is one document: a second one would be ignored silently */
        yaml_document_t extra;
        if (!yaml_parser_load(&parser, &extra))
            goto syntax;
        int more = yaml_document_get_root_node(&extra) != NULL;
        yaml_mark_t mark = extra.start_mark;
        yaml_document_delete(&extra);
        if (more) {
            mcf_yaml_at_mark(&c, mark, "a second YAML document starts here: a deck is one document "
                    "(remove the '---' line and merge the tests into one list)");
            goto fail;
        }
    }
    yaml_parser_delete(&parser);
    have_parser = 0;

    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root)
        MCF_FAIL(e, MCF_EINPUT, "%s:1:1: the deck is empty (it needs 'tests:')", path);
    if (root->type != YAML_MAPPING_NODE) {
        mcf_yaml_at(&c, root, "the deck must be a mapping with 'tests:' at the top level");
        goto fail;
    }
    MCF_TRY(unique_keys(&c, root, "at the top level"));
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
        const yaml_node_t *kn = yaml_document_get_node(&doc, p->key);
        const yaml_node_t *vn = yaml_document_get_node(&doc, p->value);
        const char *key = mcf_yaml_scalar(kn);
        if (key && !strcmp(key, "tests")) tests = vn;
        else if (key && !strcmp(key, "defaults")) defaults = vn;
        else if (key && !strcmp(key, "power")) MCF_TRY(parse_power(&c, vn, deck));
        else if (key && !strcmp(key, "allow_shared_devices"))
            MCF_TRY(parse_bool(&c, vn, key, &deck->allow_shared_devices));
        else if (key && !strcmp(key, "acceptance")) {
            MCF_TRY(parse_bool(&c, vn, key, &deck->acceptance));
            acceptance = vn;
        } else if (key && !strcmp(key, "arch"))
            MCF_TRY(parse_arch(&c, vn, deck));
        else if (key && !strcmp(key, "name")) {
            if (!mcf_yaml_scalar(vn) || !valid_name(mcf_yaml_scalar(vn))) { mcf_yaml_at(&c, vn, "deck 'name' must be " NAME_RULE); goto fail; }
            snprintf(deck->name, sizeof deck->name, "%s", mcf_yaml_scalar(vn));
        } else if (key && !strcmp(key, "description")) {
            if (!mcf_yaml_scalar(vn)) { mcf_yaml_at(&c, vn, "'description' must be text"); goto fail; }
        } else {
            mcf_yaml_at(&c, kn, "unknown top-level key '%s' (name, description, acceptance, arch, defaults, power, "
               "allow_shared_devices, tests)", key ? key : "?");
            goto fail;
        }
    }
    if (defaults)
        MCF_TRY(parse_defaults(&c, defaults, deck));
    if (deck->acceptance && !deck->arch[0]) {
        mcf_yaml_at(&c, acceptance, "an acceptance deck names the architectures it is made for: add 'arch: [...]' (%s)",
           ARCH_RULE);
        goto fail;
    }
    if (!tests) {
        mcf_yaml_at(&c, root, "the deck has no 'tests:' list");
        goto fail;
    }
    if (tests->type != YAML_SEQUENCE_NODE || tests->data.sequence.items.top == tests->data.sequence.items.start) {
        mcf_yaml_at(&c, tests, "'tests' must be a non-empty list");
        goto fail;
    }
    deck->ntests = (int)(tests->data.sequence.items.top - tests->data.sequence.items.start);
    MCF_ALLOC(e, deck->tests, deck->ntests);
    MCF_ALLOC(e, names, deck->ntests);
    for (int i = 0; i < deck->ntests; i++) {
        const yaml_node_t *tn = yaml_document_get_node(&doc, tests->data.sequence.items.start[i]);
        MCF_TRY(parse_test(&c, tn, deck, &deck->tests[i], i));
        names[i] = (struct strref){ deck->tests[i].name, (size_t)i, tn };
    }
    {
        const struct strref *rep, *first = NULL;
        if ((rep = first_repeat(names, (size_t)deck->ntests, &first)) != NULL) {
            mcf_yaml_at(&c, rep->where, "test name '%s' is used twice (first at line %d)", rep->s,
               deck->tests[first->pos].line);
            goto fail;
        }
    }
    free(names);
    yaml_document_delete(&doc);
    return MCF_OK;
syntax:
    mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__, "%s:%lu:%lu: YAML syntax error: %s%s%s", path,
                (unsigned long)parser.problem_mark.line + 1,
                (unsigned long)parser.problem_mark.column + 1,
                parser.problem ? parser.problem : "unknown",
                parser.context ? " " : "", parser.context ? parser.context : "");
fail:
    free(names);
    if (have_parser)
        yaml_parser_delete(&parser);
    if (have_doc)
        yaml_document_delete(&doc);
    mcf_deck_free(deck);
    return e->rc;
}

#define MAX_DECK_BYTES (4 << 20)

int mcf_deck_read(const char *path, char **text, struct mcf_err *e)
{
    size_t n = strlen(path);
    *text = NULL;
    if (n >= 15 && !strcmp(path + n - 15, "acceptance.yaml") && (n == 15 || path[n - 16] == '/') &&
        access(path, F_OK) != 0 && errno == ENOENT)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "--deck %s: %s (the acceptance decks are per architecture now: "
                           "input/acceptance/<arch>.yaml, or 'mcfleet --acceptance' to pick the one for this GPU)",
                           path, strerror(ENOENT));
    return mcf_yaml_read(path, "--deck", "a deck", MAX_DECK_BYTES, text, e);
}

int mcf_deck_load(const char *path, struct mcf_deck *deck, struct mcf_err *e)
{
    char *text;
    MCF_TRY(mcf_deck_read(path, &text, e));
    int rc = mcf_deck_parse(path, text, deck, e);
    free(text);
    return rc;
fail:
    return e->rc;
}

void mcf_deck_free(struct mcf_deck *deck)
{
    free(deck->text);
    free(deck->tests);
    deck->text = NULL;
    deck->tests = NULL;
    deck->ntests = 0;
}

#define QUICK_MAX_BYTES (16ull << 20)
#define QUICK_MAX_ITER 1024ull
#define QUICK_MAX_SWEEPS 4ull

static uint64_t cap(uint64_t v, uint64_t limit) { return v > limit ? limit : v; }

void mcf_deck_quick(struct mcf_deck *deck)
{
    deck->quick = 1;
    for (int i = 0; i < deck->ntests; i++) {
        struct mcf_deck_test *t = &deck->tests[i];
        struct mcf_kernel *k = &t->kernel;
        t->repetitions = t->repetitions < 3 ? t->repetitions : 3;
        t->warmup = t->warmup < 1 ? t->warmup : 1;
        k->iterations = cap(k->iterations, QUICK_MAX_ITER);
        k->sweeps = cap(k->sweeps, QUICK_MAX_SWEEPS);
        if (k->bytes) k->bytes = cap(k->bytes, QUICK_MAX_BYTES);
        k->working_set = cap(k->working_set, QUICK_MAX_BYTES);
        /* cap the sweep points too, dropping those that become duplicates */
        int kept = 0;
        for (int s = 0; s < t->nsweep; s++) {
            uint64_t v = t->sweep[s];
            if (!strcmp(t->sweep_key, "bytes") || !strcmp(t->sweep_key, "working_set"))
                v = v ? cap(v, QUICK_MAX_BYTES) : 0;
            else if (!strcmp(t->sweep_key, "iterations"))
                v = cap(v, QUICK_MAX_ITER);
            else if (!strcmp(t->sweep_key, "sweeps"))
                v = cap(v, QUICK_MAX_SWEEPS);
            int dup = 0;
            for (int j = 0; j < kept; j++)
                dup |= t->sweep[j] == v;
            if (!dup)
                t->sweep[kept++] = v;
        }
        t->nsweep = kept;
    }
}

/* "auto" sizes, from the device: main memory well beyond the last-level cache,
 * cache levels well inside theirs. */
static uint64_t auto_bytes(const struct mcf_kernel *k, const struct mcf_device_info *d)
{
    uint64_t llc = d->cache_bytes ? d->cache_bytes : (32ull << 20);
    uint64_t l1 = d->l1_bytes ? d->l1_bytes : (32ull << 10);
    switch (k->level) {
    case MCF_LEVEL_L2: return llc / 4;
    case MCF_LEVEL_L1: return l1 / 2;
    case MCF_LEVEL_LDS: return l1 / 4;
    default: {
        uint64_t b = 4 * llc;
        if (b < (64ull << 20)) b = 64ull << 20;
        if (d->memory_bytes && b > d->memory_bytes / 16) b = d->memory_bytes / 16;
        return b;
    }
    }
}

int mcf_deck_expand(const struct mcf_deck *deck, const struct mcf_device_info *dev,
                    struct mcf_instance **out, int *count, struct mcf_err *e)
{
    int n = 0;
    for (int i = 0; i < deck->ntests; i++)
        n += deck->tests[i].nsweep ? deck->tests[i].nsweep : 1;
    struct mcf_instance *v = NULL;
    struct strref *names = NULL;
    const struct strref *rep, *first = NULL;
    MCF_ALLOC(e, v, n);
    MCF_ALLOC(e, names, n);
    int j = 0;
    for (int i = 0; i < deck->ntests; i++) {
        const struct mcf_deck_test *t = &deck->tests[i];
        int points = t->nsweep ? t->nsweep : 1;
        for (int p = 0; p < points; p++, j++) {
            struct mcf_instance *in = &v[j];
            struct mcf_deck_test tmp = *t;
            in->test = t;
            in->repetitions = t->repetitions;
            in->warmup = t->warmup;
            in->time_limit = t->time_limit;
            in->duration = t->duration;
            int len;
            if (t->nsweep) {
                set_field(&tmp, t->sweep_key, t->sweep[p]);
                in->sweep_value = t->sweep[p];
                len = snprintf(in->name, sizeof in->name, "%s:%s=%llu", t->name, t->sweep_key,
                               (unsigned long long)t->sweep[p]);
            } else {
                len = snprintf(in->name, sizeof in->name, "%s", t->name);
            }
            /* the name is an HDF5 group under /results: what validation passed must be writable */
            if (len < 0 || (size_t)len >= sizeof in->name || !hdf5_name_ok(in->name))
                MCF_FAIL(e, MCF_EINPUT, "%s:%d: test '%s': '%s' cannot name an HDF5 group", deck->path,
                         t->line, t->name, in->name);
            names[j] = (struct strref){ in->name, (size_t)j, t };
            in->kernel = tmp.kernel;
            if (in->kernel.family == MCF_FAMILY_MEMORY && in->kernel.bytes == 0) {
                in->kernel.bytes = auto_bytes(&in->kernel, dev);
                if (deck->quick)
                    in->kernel.bytes = cap(in->kernel.bytes, QUICK_MAX_BYTES);
            }
            mcf_kernel_label(&in->kernel);
        }
    }
    if ((rep = first_repeat(names, (size_t)n, &first)) != NULL) {
        const struct mcf_deck_test *t = rep->where;
        MCF_FAIL(e, MCF_EINPUT, "%s:%d: test '%s': instance '%s' is also made by the test at line %d",
                 deck->path, t->line, t->name, rep->s, ((const struct mcf_deck_test *)first->where)->line);
    }
    free(names);
    *out = v;
    *count = n;
    return MCF_OK;
fail:
    free(names);
    free(v);
    return e->rc;
}
