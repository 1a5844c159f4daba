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

#include "family.h"
#include "numparse.h"
#include "power.h"
#include "yamlinput.h"

#define DEFAULT_REPETITIONS 10
#define DEFAULT_WARMUP 2
#define DEFAULT_POWER_PERIOD_MS 20

/* The keys of a test that are not the kernel's (those are in family.c):
 * offsets into struct mcf_deck_test. name, kernel and description are read
 * apart (first pass); they are here for their names and types. */
#define TFIELD(f) .offset = offsetof(struct mcf_deck_test, f), .width = sizeof(((struct mcf_deck_test *)0)->f)
static const struct mcf_key test_keys[] = {
    { .name = "name", .type = MCF_V_STRING },
    { .name = "kernel", .type = MCF_V_ENUM, .names = mcf_family_names, .nnames = MCF_FAMILY_COUNT },
    { .name = "description", .type = MCF_V_STRING },
    { .name = "repetitions", .type = MCF_V_INT, TFIELD(repetitions), .min = 1, .max = 1e6 },
    { .name = "warmup", .type = MCF_V_INT, TFIELD(warmup), .min = 0, .max = 1e6 },
    { .name = "time_limit", .type = MCF_V_INT, TFIELD(time_limit), .min = 1, .max = 1e6 },
    { .name = "duration", .type = MCF_V_SECONDS, TFIELD(duration), .min = 1, .max = 86400 },
    { .name = NULL }
};

static const struct mcf_key *find_test_key(const char *key)
{
    for (const struct mcf_key *k = test_keys; k->name; k++)
        if (!strcmp(k->name, key))
            return k;
    return NULL;
}

/* A key of the test or of its kernel, with the struct its offset is into. */
static const struct mcf_key *find_key(struct mcf_deck_test *t, const char *key, void **base)
{
    const struct mcf_key *kd = find_test_key(key);
    *base = t;
    if (kd)
        return kd;
    *base = &t->kernel;
    return mcf_kernel_key(key);
}







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
static int scalar_value(struct mcf_yaml_ctx *c, const struct mcf_key *kd, const char *owner,
                        const yaml_node_t *n, uint64_t *out)
{
    const char *s = mcf_yaml_scalar(n);
    uint64_t v = 0;
    const char *why = "";
    if (!s)
        return mcf_yaml_at(c, n, "'%s' in %s must be a scalar, got %s", kd->name, owner, mcf_yaml_node_kind(n));
    switch (kd->type) {
    case MCF_V_ENUM: {
        int idx = mcf_name_index(kd->names, kd->nnames, s);
        if (idx < 0) {
            char list[256] = "";
            for (int i = 0; i < kd->nnames; i++) {
                strncat(list, kd->names[i], sizeof list - strlen(list) - 3);
                if (i + 1 < kd->nnames) strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            return mcf_yaml_at(c, n, "'%s' in %s must be one of %s, got '%s'", kd->name, owner, list, s);
        }
        *out = (uint64_t)idx;
        return MCF_OK;
    }
    case MCF_V_INT: {
        int rc = mcf_parse_uint(s, (uint64_t)kd->max, &v);
        if (rc == MCF_NUM_MALFORMED)
            return mcf_yaml_at(c, n, "'%s' in %s must be an integer, got '%s' (%s)", kd->name, owner, s,
                      mcf_uint_problem(s));
        if (rc == MCF_NUM_RANGE)
            v = UINT64_MAX;          /* above the range: the message below */
        break;
    }
    case MCF_V_SECONDS: {
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
            return mcf_yaml_at(c, n, "'%s' in %s must be a time such as 60, 60s or 5min, got '%s'", kd->name, owner, s);
        v = rc == MCF_NUM_RANGE || v > (uint64_t)kd->max / mult ? UINT64_MAX : v * mult;
        break;
    }
    case MCF_V_SIZE:
        if (kd->allow_auto && strcmp(s, "auto") == 0) {
            *out = 0;
            return MCF_OK;
        }
        if (parse_size(s, &v, &why) != 0)
            return mcf_yaml_at(c, n, "'%s' in %s must be a size such as 4096, 64KiB or 2GiB, got '%s' (%s)",
                      kd->name, owner, s, why);
        break;
    default:
        return mcf_yaml_at(c, n, "internal: bad key type");
    }
    /* compared as integers: every bound in the table is exact in a double */
    if (v < (uint64_t)kd->min || v > (uint64_t)kd->max)
        return mcf_yaml_at(c, n, "'%s' in %s must be between %.0f and %.0f, got %s", kd->name, owner,
                  kd->min, kd->max, s);
    *out = v;
    return MCF_OK;
}

/* Sets a key of the test or its kernel by name (a sweep point). */
static void set_key(struct mcf_deck_test *t, const char *key, uint64_t v)
{
    void *base;
    const struct mcf_key *kd = find_key(t, key, &base);
    if (kd && kd->width)
        mcf_key_set(kd, base, v);
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
    unsigned given = 0;          /* bit i: the family's key i came from the deck */

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
    if (!kernel_node) {
        char list[128] = "";
        for (int i = 0; i < MCF_FAMILY_COUNT; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", mcf_family_names[i]);
        return mcf_yaml_at(c, node, "%s has no 'kernel' (one of %s)", owner, list);
    }
    uint64_t fam;
    MCF_TRY(scalar_value(c, find_test_key("kernel"), owner, kernel_node, &fam));
    k->family = (enum mcf_family)fam;
    const struct mcf_family_row *f = &mcf_families[k->family];
    /* the family's defaults, then what the deck says */
    for (const struct mcf_key_use *u = mcf_common_kernel_keys; u->key; u++)
        mcf_key_set(mcf_kernel_key(u->key), k, u->def);
    for (const struct mcf_key_use *u = f->keys; u->key; u++)
        if (u->def != MCF_KEY_REQUIRED)
            mcf_key_set(mcf_kernel_key(u->key), k, u->def);

    /* Second pass: every other key. */
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
        const yaml_node_t *kn = yaml_document_get_node(doc, p->key);
        const yaml_node_t *vn = yaml_document_get_node(doc, p->value);
        const char *key = mcf_yaml_scalar(kn);
        if (!key)
            return mcf_yaml_at(c, kn, "keys must be plain names in %s", owner);
        void *base;
        const struct mcf_key *kd = find_key(t, key, &base);
        if (!kd)
            return mcf_yaml_at(c, kn, "unknown key '%s' in %s", key, owner);
        if (base == k && !mcf_family_key(k->family, key))
            return mcf_yaml_at(c, kn, "key '%s' does not apply to kernel '%s' in %s", key,
                      mcf_family_names[k->family], owner);
        if (!kd->width)
            continue;            /* name, kernel, description: read above */
        if (base == k && mcf_family_key_index(k->family, key) >= 0)
            given |= 1u << mcf_family_key_index(k->family, key);
        if (kd->type == MCF_V_SHAPE) {
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
            mcf_key_set(kd, base, t->sweep[0]);
            continue;
        }
        uint64_t v;
        MCF_TRY(scalar_value(c, kd, owner, vn, &v));
        mcf_key_set(kd, base, v);
    }

    /* The family's required keys and cross-key rules. */
    for (int i = 0; f->keys[i].key; i++)
        if (f->keys[i].def == MCF_KEY_REQUIRED && !(given >> i & 1u)) {
            const struct mcf_key *kd = mcf_kernel_key(f->keys[i].key);
            return mcf_yaml_at(c, node, "%s (%s) needs '%s'", owner, mcf_family_names[k->family],
                               kd->hint ? kd->hint : kd->name);
        }
    if (f->check) {
        char why[256];
        const char *wrong = f->check(k, given, why, sizeof why);
        if (wrong)
            return mcf_yaml_at(c, node, "%s%s", owner, wrong);
    }
    return MCF_OK;
fail:
    return c->e->rc;
}

static int parse_power(struct mcf_yaml_ctx *c, const yaml_node_t *node, struct mcf_deck *deck)
{
    char kinds[64] = "";          /* the names a deck may give, from power.h */
    for (int k = 0; k < MCF_POWER_KINDS; k++)
        snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s", k ? ", " : "", mcf_power_kind_name(k));
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
                return mcf_yaml_at(c, vn, "'sources' in 'power' must be a list of %s", kinds);
            deck->power_sources = 0;
            for (yaml_node_item_t *i = vn->data.sequence.items.start; i < vn->data.sequence.items.top; i++) {
                const yaml_node_t *item = yaml_document_get_node(c->doc, *i);
                const char *s = mcf_yaml_scalar(item);
                int kind = -1;
                for (int k = 0; s && k < MCF_POWER_KINDS; k++)
                    if (!strcmp(s, mcf_power_kind_name(k)))
                        kind = k;
                if (kind < 0)
                    return mcf_yaml_at(c, item, "unknown power source '%s' (%s)", s ? s : "?", kinds);
                deck->power_sources |= 1u << kind;
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
        MCF_TRY(scalar_value(c, find_test_key(key), "'defaults'", vn, &v));
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
    return mcf_yaml_limits(c, text, MAX_FLOW_DEPTH, MAX_ANCHORS, "a deck needs 3 at most", "; a deck needs a few");
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


static uint64_t cap(uint64_t v, uint64_t limit) { return v > limit ? limit : v; }

#define QUICK_MAX_DURATION 3   /* seconds of a sustained test */

/* --quick: each key's own cap (family.c), on its value and its sweep points;
 * sweep points that become equal are kept once. */
void mcf_deck_quick(struct mcf_deck *deck)
{
    deck->quick = 1;
    for (int i = 0; i < deck->ntests; i++) {
        struct mcf_deck_test *t = &deck->tests[i];
        struct mcf_kernel *k = &t->kernel;
        t->repetitions = t->repetitions < 3 ? t->repetitions : 3;
        t->warmup = t->warmup < 1 ? t->warmup : 1;
        t->duration = t->duration < QUICK_MAX_DURATION ? t->duration : QUICK_MAX_DURATION;
        for (const struct mcf_key_use *u = mcf_families[k->family].keys; u->key; u++) {
            const struct mcf_key *kd = mcf_kernel_key(u->key);
            if (kd->quick_max)
                mcf_key_set(kd, k, cap(mcf_key_get(kd, k), kd->quick_max));
        }
        const struct mcf_key *swept = t->nsweep ? mcf_kernel_key(t->sweep_key) : NULL;
        if (!swept || !swept->quick_max)
            continue;
        int kept = 0;
        for (int s = 0; s < t->nsweep; s++) {
            uint64_t v = cap(t->sweep[s], swept->quick_max);
            int dup = 0;
            for (int j = 0; j < kept; j++)
                dup |= t->sweep[j] == v;
            if (!dup)
                t->sweep[kept++] = v;
        }
        t->nsweep = kept;
    }
}

/* Down to whole 4 KiB, where there is one to keep. */
static uint64_t whole_sweeps(uint64_t b)
{
    return b >= 4096 ? b & ~(uint64_t)4095 : b;
}

/* "auto" sizes, from the device: main memory well beyond the last-level cache,
 * cache levels well inside theirs. */
static uint64_t auto_bytes(const struct mcf_kernel *k, const struct mcf_device_info *d)
{
    uint64_t llc = d->cache_bytes ? d->cache_bytes : (32ull << 20);
    uint64_t l1 = d->l1_bytes ? d->l1_bytes : (32ull << 10);
    /* the arrays an op touches: read and write 1, copy and fma 2, triad 3 */
    uint64_t arrays = (uint64_t)(mcf_kernel_bytes_per_unit(k) / mcf_dtype_size(k->dtype) + 0.5);
    switch (k->level) {
    /* all of the op's arrays in a quarter of the L2 (an H100's triad over
     * three arrays of a quarter each hit the L2 only 90%: its two halves) */
    case MCF_LEVEL_L2: return llc / 4 / (arrays ? arrays : 1);
    /* windows of whole 4 KiB sweeps (256 threads x 16 bytes): with a part
     * sweep at the end, one warp in eight loads once more per pass and the
     * block waits for it (an H100's shared memory at 28.5 KiB: 91% of the
     * rate at 28 KiB or 32 KiB) */
    case MCF_LEVEL_L1: return whole_sweeps(l1 / 2);
    /* four blocks per SM must fit beside the runtime's own share per block
     * (on an H100 four quarters did not: 3 blocks, 76% of the rate) */
    case MCF_LEVEL_LDS: return whole_sweeps(l1 / 8);
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
                set_key(&tmp, t->sweep_key, t->sweep[p]);
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
                    in->kernel.bytes = cap(in->kernel.bytes, mcf_kernel_key("bytes")->quick_max);
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
