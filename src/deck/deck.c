#include "deck_int.h"

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

/* One scalar value of a key, checked against its type and range. */
static int scalar_value(struct mcf_yaml_ctx *c, const struct mcf_key *kd, const char *owner,
                        const yaml_node_t *n, uint64_t *out)
{
    const char *s = mcf_yaml_scalar(n);
    uint64_t v = 0;
    const char *why = "";
    if (!s)
        return mcf_yaml_at(c, n, "'%s' in %s must be a scalar, got %s", kd->name, owner,
                           mcf_yaml_node_kind(n));
    switch (kd->type) {
    case MCF_V_ENUM: {
        int idx = mcf_name_index(kd->names, kd->nnames, s);
        if (idx < 0) {
            char list[256] = "";
            for (int i = 0; i < kd->nnames; i++) {
                strncat(list, kd->names[i], sizeof list - strlen(list) - 3);
                if (i + 1 < kd->nnames) strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            return mcf_yaml_at(c, n, "'%s' in %s must be one of %s, got '%s'", kd->name, owner,
                               list, s);
        }
        *out = (uint64_t)idx;
        return MCF_OK;
    }
    case MCF_V_INT: {
        int rc = mcf_parse_uint(s, (uint64_t)kd->max, &v);
        if (rc == MCF_NUM_MALFORMED)
            return mcf_yaml_at(c, n, "'%s' in %s must be an integer, got '%s' (%s)", kd->name,
                               owner, s, mcf_uint_problem(s));
        if (rc == MCF_NUM_RANGE) v = UINT64_MAX; /* above the range: the message below */
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
            return mcf_yaml_at(c, n, "'%s' in %s must be a time such as 60, 60s or 5min, got '%s'",
                               kd->name, owner, s);
        v = rc == MCF_NUM_RANGE || v > (uint64_t)kd->max / mult ? UINT64_MAX : v * mult;
        break;
    }
    case MCF_V_SIZE:
        if (kd->allow_auto && strcmp(s, "auto") == 0) {
            *out = 0;
            return MCF_OK;
        }
        if (mcf_size_parse(s, &v, &why) != 0)
            return mcf_yaml_at(
                c, n, "'%s' in %s must be a size such as 4096, 64KiB or 2GiB, got '%s' (%s)",
                kd->name, owner, s, why);
        break;
    default: return mcf_yaml_at(c, n, "internal: bad key type");
    }
    /* compared as integers: every bound in the table is exact in a double */
    if (v < (uint64_t)kd->min || v > (uint64_t)kd->max)
        return mcf_yaml_at(c, n, "'%s' in %s must be between %.0f and %.0f, got %s", kd->name,
                           owner, kd->min, kd->max, s);
    *out = v;
    return MCF_OK;
}

static int parse_test(struct mcf_yaml_ctx *c, const yaml_node_t *node, const struct mcf_deck *deck,
                      struct mcf_deck_test *t, int index)
{
    yaml_document_t *doc = c->doc;
    char owner[MCF_NAME_LEN + 16];
    const yaml_node_t *kernel_node = NULL;
    if (node->type != YAML_MAPPING_NODE)
        return mcf_yaml_at(c, node, "test %d must be a mapping (name:, kernel:, ...), got %s",
                           index + 1, mcf_yaml_node_kind(node));
    memset(t, 0, sizeof *t);
    t->line = (int)node->start_mark.line + 1;
    t->repetitions = deck->repetitions;
    t->warmup = deck->warmup;
    t->time_limit = deck->time_limit;
    struct mcf_kernel *k = &t->kernel;
    k->family = MCF_FAMILY_COUNT;
    unsigned given = 0; /* bit i: the family's key i came from the deck */

    /* First pass: the name and the kernel family, so later messages can name them. */
    snprintf(owner, sizeof owner, "test %d", index + 1);
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *kn = yaml_document_get_node(doc, p->key);
        const yaml_node_t *vn = yaml_document_get_node(doc, p->value);
        const char *key = mcf_yaml_scalar(kn);
        if (key && !strcmp(key, "name")) {
            const char *v = mcf_yaml_scalar(vn);
            if (!v || !mcf_deck_name_ok(v))
                return mcf_yaml_at(c, vn, "test name must be " NAME_RULE);
            snprintf(t->name, sizeof t->name, "%s", v);
            snprintf(owner, sizeof owner, "test '%s'", v);
        } else if (key && !strcmp(key, "kernel")) {
            kernel_node = vn;
        }
    }
    if (!t->name[0]) return mcf_yaml_at(c, node, "%s has no 'name'", owner);
    char in_owner[sizeof owner + 4];
    snprintf(in_owner, sizeof in_owner, "in %s", owner);
    MCF_TRY(mcf_unique_keys(c, node, in_owner));
    if (!kernel_node) {
        char list[128] = "";
        for (int i = 0; i < MCF_FAMILY_COUNT; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     mcf_family_names[i]);
        return mcf_yaml_at(c, node, "%s has no 'kernel' (one of %s)", owner, list);
    }
    uint64_t fam;
    MCF_TRY(scalar_value(c, mcf_deck_test_key("kernel"), owner, kernel_node, &fam));
    k->family = (enum mcf_family)fam;
    const struct mcf_family_row *f = &mcf_families[k->family];
    /* the family's defaults, then what the deck says */
    for (const struct mcf_key_use *u = mcf_common_kernel_keys; u->key; u++)
        mcf_key_set(mcf_kernel_key(u->key), k, u->def);
    for (const struct mcf_key_use *u = f->keys; u->key; u++)
        if (u->def != MCF_KEY_REQUIRED) mcf_key_set(mcf_kernel_key(u->key), k, u->def);

    /* Second pass: every other key. */
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *kn = yaml_document_get_node(doc, p->key);
        const yaml_node_t *vn = yaml_document_get_node(doc, p->value);
        const char *key = mcf_yaml_scalar(kn);
        if (!key) return mcf_yaml_at(c, kn, "keys must be plain names in %s", owner);
        void *base;
        const struct mcf_key *kd = mcf_deck_find_key(t, key, &base);
        if (!kd) return mcf_yaml_at(c, kn, "unknown key '%s' in %s", key, owner);
        if (base == k && !mcf_family_key(k->family, key))
            return mcf_yaml_at(c, kn, "key '%s' does not apply to kernel '%s' in %s", key,
                               mcf_family_names[k->family], owner);
        if (!kd->width) continue; /* name, kernel, description: read above */
        if (base == k && mcf_family_key_index(k->family, key) >= 0)
            given |= 1u << mcf_family_key_index(k->family, key);
        if (kd->type == MCF_V_SHAPE) {
            if (vn->type != YAML_SEQUENCE_NODE ||
                vn->data.sequence.items.top - vn->data.sequence.items.start != 3)
                return mcf_yaml_at(
                    c, vn, "'shape' in %s must be a list of three integers [m, n, k]", owner);
            for (int i = 0; i < 3; i++) {
                const yaml_node_t *item =
                    yaml_document_get_node(doc, vn->data.sequence.items.start[i]);
                uint64_t v;
                if (mcf_parse_uint(mcf_yaml_scalar(item), (uint64_t)kd->max, &v) != MCF_NUM_OK ||
                    v < (uint64_t)kd->min)
                    return mcf_yaml_at(
                        c, item,
                        "'shape' in %s: each of m, n, k must be an integer between %.0f and %.0f",
                        owner, kd->min, kd->max);
                k->shape[i] = (int)v;
            }
            continue;
        }
        if (vn->type == YAML_SEQUENCE_NODE) {
            if (!kd->sweepable)
                return mcf_yaml_at(c, vn, "'%s' in %s cannot be a list", key, owner);
            if (t->sweep_key[0])
                return mcf_yaml_at(c, vn,
                                   "%s sweeps both '%s' and '%s': one list-valued key per test "
                                   "(write two tests)",
                                   owner, t->sweep_key, key);
            int n = (int)(vn->data.sequence.items.top - vn->data.sequence.items.start);
            if (n < 1 || n > MCF_MAX_SWEEP)
                return mcf_yaml_at(c, vn, "'%s' in %s must list 1 to %d values", key, owner,
                                   MCF_MAX_SWEEP);
            snprintf(t->sweep_key, sizeof t->sweep_key, "%s", key);
            t->nsweep = n;
            for (int i = 0; i < n; i++) {
                const yaml_node_t *item =
                    yaml_document_get_node(doc, vn->data.sequence.items.start[i]);
                MCF_TRY(scalar_value(c, kd, owner, item, &t->sweep[i]));
                for (int j = 0; j < i; j++)
                    if (t->sweep[j] == t->sweep[i])
                        return mcf_yaml_at(c, item, "'%s' in %s lists %s twice", key, owner,
                                           mcf_yaml_scalar(item));
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
        if (wrong) return mcf_yaml_at(c, node, "%s%s", owner, wrong);
    }
    t->given = given;
    for (int p = 1; p < t->nsweep; p++) { /* every point (a dsm pair at cluster 3 reads no CTA) */
        struct mcf_deck_test pt;
        char why[256];
        if (mcf_deck_sweep_point(t, p, &pt, why, sizeof why))
            return mcf_yaml_at(c, node, "%s%s (the sweep's point %s=%llu)", owner, why,
                               t->sweep_key, (unsigned long long)t->sweep[p]);
    }
    return MCF_OK;
fail:
    return c->e->rc;
}

static int parse_power(struct mcf_yaml_ctx *c, const yaml_node_t *node, struct mcf_deck *deck)
{
    char kinds[64] = ""; /* the names a deck may give, from power.h */
    for (int k = 0; k < MCF_POWER_KINDS; k++)
        snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s", k ? ", " : "",
                 mcf_power_kind_name(k));
    if (node->type != YAML_MAPPING_NODE)
        return mcf_yaml_at(c, node, "'power' must be a mapping (period_ms:, sources:, series:)");
    if (mcf_unique_keys(c, node, "in 'power'") != MCF_OK) return c->e->rc;
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *kn = yaml_document_get_node(c->doc, p->key);
        const yaml_node_t *vn = yaml_document_get_node(c->doc, p->value);
        const char *key = mcf_yaml_scalar(kn);
        if (key && !strcmp(key, "period_ms")) {
            uint64_t v;
            if (mcf_parse_uint(mcf_yaml_scalar(vn), 1000, &v) != MCF_NUM_OK || v < 1)
                return mcf_yaml_at(c, vn,
                                   "'period_ms' in 'power' must be an integer between 1 and 1000");
            deck->power_period_ms = (int)v;
        } else if (key && !strcmp(key, "sources")) {
            if (vn->type != YAML_SEQUENCE_NODE)
                return mcf_yaml_at(c, vn, "'sources' in 'power' must be a list of %s", kinds);
            deck->power_sources = 0;
            for (yaml_node_item_t *i = vn->data.sequence.items.start;
                 i < vn->data.sequence.items.top; i++) {
                const yaml_node_t *item = yaml_document_get_node(c->doc, *i);
                const char *s = mcf_yaml_scalar(item);
                int kind = -1;
                for (int k = 0; s && k < MCF_POWER_KINDS; k++)
                    if (!strcmp(s, mcf_power_kind_name(k))) kind = k;
                if (kind < 0)
                    return mcf_yaml_at(c, item, "unknown power source '%s' (%s)", s ? s : "?",
                                       kinds);
                deck->power_sources |= 1u << kind;
            }
        } else if (key && !strcmp(key, "series")) {
            const char *s = mcf_yaml_scalar(vn);
            if (s && (!strcmp(s, "true") || !strcmp(s, "on")))
                deck->power_series = 1;
            else if (s && (!strcmp(s, "false") || !strcmp(s, "off")))
                deck->power_series = 0;
            else
                return mcf_yaml_at(c, vn, "'series' in 'power' must be true or false, got '%s'",
                                   s ? s : "?");
        } else {
            return mcf_yaml_at(c, kn, "unknown key '%s' in 'power' (period_ms, sources, series)",
                               key ? key : "?");
        }
    }
    return MCF_OK;
}

static int parse_defaults(struct mcf_yaml_ctx *c, const yaml_node_t *node, struct mcf_deck *deck)
{
    if (node->type != YAML_MAPPING_NODE)
        return mcf_yaml_at(c, node,
                           "'defaults' must be a mapping (repetitions:, warmup:, time_limit:)");
    MCF_TRY(mcf_unique_keys(c, node, "in 'defaults'"));
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *kn = yaml_document_get_node(c->doc, p->key);
        const yaml_node_t *vn = yaml_document_get_node(c->doc, p->value);
        const char *key = mcf_yaml_scalar(kn);
        uint64_t v;
        if (!key ||
            (strcmp(key, "repetitions") && strcmp(key, "warmup") && strcmp(key, "time_limit")))
            return mcf_yaml_at(c, kn,
                               "unknown key '%s' in 'defaults' (repetitions, warmup, time_limit)",
                               key ? key : "?");
        MCF_TRY(scalar_value(c, mcf_deck_test_key(key), "'defaults'", vn, &v));
        if (!strcmp(key, "repetitions"))
            deck->repetitions = (int)v;
        else if (!strcmp(key, "time_limit"))
            deck->time_limit = (int)v;
        else
            deck->warmup = (int)v;
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
        if (!strcmp(s, cpus[i])) return 1;
    if (!strncmp(s, "sm_", 3) && n >= 5 && n <= 7) {
        size_t digits = s[n - 1] == 'a' ? n - 4 : n - 3; /* sm_90, sm_90a, sm_100, sm_100a */
        if (digits < 2 || digits > 3) return 0;
        for (i = 3; i < 3 + digits; i++)
            if (!isdigit((unsigned char)s[i])) return 0;
        return 1;
    }
    if (!strncmp(s, "gfx", 3) && (n == 6 || n == 7)) {
        for (i = 3; i < n; i++)
            if (!isdigit((unsigned char)s[i]) && (s[i] < 'a' || s[i] > 'f')) return 0;
        return 1;
    }
    return 0;
}
#define ARCH_RULE                                                                                  \
    "sm_NN (NVIDIA, e.g. sm_90), gfxNNN (AMD, e.g. gfx90a, gfx942), or a CPU "                     \
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
        if (n < 1 || n > 16) return mcf_yaml_at(c, node, "'arch' must list 1 to 16 architectures");
    } else if (node->type != YAML_SCALAR_NODE) {
        return mcf_yaml_at(c, node,
                           "'arch' must be an architecture or a list of them (" ARCH_RULE ")");
    }
    deck->arch[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const yaml_node_t *item = seq ? yaml_document_get_node(c->doc, seq[i]) : items[0];
        const char *s = mcf_yaml_scalar(item);
        char padded[40];
        if (!s || !arch_name_ok(s))
            return mcf_yaml_at(c, item, "'arch': '%s' is not an architecture: %s",
                               s ? s : mcf_yaml_node_kind(item), ARCH_RULE);
        snprintf(padded, sizeof padded, ",%s,", s);
        {
            char all[sizeof deck->arch + 2];
            snprintf(all, sizeof all, ",%s,", deck->arch);
            if (strstr(all, padded)) return mcf_yaml_at(c, item, "'arch' lists '%s' twice", s);
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
    return mcf_yaml_limits(c, text, MAX_FLOW_DEPTH, MAX_ANCHORS, "a deck needs 3 at most",
                           "; a deck needs a few");
}

int mcf_deck_parse(const char *path, const char *text, struct mcf_deck *deck, struct mcf_err *e)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    int have_doc = 0, have_parser = 0;
    struct mcf_yaml_ctx c = { path, &doc, e };
    const yaml_node_t *tests = NULL, *defaults = NULL, *acceptance = NULL;
    struct mcf_strref *names = NULL;

    memset(deck, 0, sizeof *deck);
    if ((size_t)snprintf(deck->path, sizeof deck->path, "%s", path) >= sizeof deck->path)
        MCF_FAIL(e, MCF_EINPUT,
                 "--deck %.64s...: the path is %zu characters; at most %zu are supported", path,
                 strlen(path), sizeof deck->path - 1);
    deck->repetitions = DEFAULT_REPETITIONS;
    deck->warmup = DEFAULT_WARMUP;
    deck->power_period_ms = DEFAULT_POWER_PERIOD_MS;
    deck->power_sources = ~0u;
    deck->power_series = 1;
    if (!(deck->text = strdup(text))) MCF_FAIL(e, MCF_ERUNTIME, "out of memory");

    MCF_TRY(prescan(&c, text));
    if (!yaml_parser_initialize(&parser))
        MCF_FAIL(e, MCF_ERUNTIME, "yaml_parser_initialize failed");
    have_parser = 1;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
    if (!yaml_parser_load(&parser, &doc)) goto syntax;
    have_doc = 1;
    { /* a deck is one document: a second one would be ignored silently */
        yaml_document_t extra;
        if (!yaml_parser_load(&parser, &extra)) goto syntax;
        int more = yaml_document_get_root_node(&extra) != NULL;
        yaml_mark_t mark = extra.start_mark;
        yaml_document_delete(&extra);
        if (more) {
            mcf_yaml_at_mark(&c, mark,
                             "a second YAML document starts here: a deck is one document "
                             "(remove the '---' line and merge the tests into one list)");
            goto fail;
        }
    }
    yaml_parser_delete(&parser);
    have_parser = 0;

    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) MCF_FAIL(e, MCF_EINPUT, "%s:1:1: the deck is empty (it needs 'tests:')", path);
    if (root->type != YAML_MAPPING_NODE) {
        mcf_yaml_at(&c, root, "the deck must be a mapping with 'tests:' at the top level");
        goto fail;
    }
    MCF_TRY(mcf_unique_keys(&c, root, "at the top level"));
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *kn = yaml_document_get_node(&doc, p->key);
        const yaml_node_t *vn = yaml_document_get_node(&doc, p->value);
        const char *key = mcf_yaml_scalar(kn);
        if (key && !strcmp(key, "tests"))
            tests = vn;
        else if (key && !strcmp(key, "defaults"))
            defaults = vn;
        else if (key && !strcmp(key, "power"))
            MCF_TRY(parse_power(&c, vn, deck));
        else if (key && !strcmp(key, "allow_shared_devices"))
            MCF_TRY(parse_bool(&c, vn, key, &deck->allow_shared_devices));
        else if (key && !strcmp(key, "acceptance")) {
            MCF_TRY(parse_bool(&c, vn, key, &deck->acceptance));
            acceptance = vn;
        } else if (key && !strcmp(key, "arch"))
            MCF_TRY(parse_arch(&c, vn, deck));
        else if (key && !strcmp(key, "name")) {
            if (!mcf_yaml_scalar(vn) || !mcf_deck_name_ok(mcf_yaml_scalar(vn))) {
                mcf_yaml_at(&c, vn, "deck 'name' must be " NAME_RULE);
                goto fail;
            }
            snprintf(deck->name, sizeof deck->name, "%s", mcf_yaml_scalar(vn));
        } else if (key && !strcmp(key, "description")) {
            if (!mcf_yaml_scalar(vn)) {
                mcf_yaml_at(&c, vn, "'description' must be text");
                goto fail;
            }
        } else {
            mcf_yaml_at(
                &c, kn,
                "unknown top-level key '%s' (name, description, acceptance, arch, defaults, power, "
                "allow_shared_devices, tests)",
                key ? key : "?");
            goto fail;
        }
    }
    if (defaults) MCF_TRY(parse_defaults(&c, defaults, deck));
    if (deck->acceptance && !deck->arch[0]) {
        mcf_yaml_at(
            &c, acceptance,
            "an acceptance deck names the architectures it is made for: add 'arch: [...]' (%s)",
            ARCH_RULE);
        goto fail;
    }
    if (!tests) {
        mcf_yaml_at(&c, root, "the deck has no 'tests:' list");
        goto fail;
    }
    if (tests->type != YAML_SEQUENCE_NODE ||
        tests->data.sequence.items.top == tests->data.sequence.items.start) {
        mcf_yaml_at(&c, tests, "'tests' must be a non-empty list");
        goto fail;
    }
    deck->ntests = (int)(tests->data.sequence.items.top - tests->data.sequence.items.start);
    MCF_ALLOC(e, deck->tests, deck->ntests);
    MCF_ALLOC(e, names, deck->ntests);
    for (int i = 0; i < deck->ntests; i++) {
        const yaml_node_t *tn = yaml_document_get_node(&doc, tests->data.sequence.items.start[i]);
        MCF_TRY(parse_test(&c, tn, deck, &deck->tests[i], i));
        names[i] = (struct mcf_strref){ deck->tests[i].name, (size_t)i, tn };
    }
    {
        const struct mcf_strref *rep, *first = NULL;
        if ((rep = mcf_first_repeat(names, (size_t)deck->ntests, &first)) != NULL) {
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
                parser.problem ? parser.problem : "unknown", parser.context ? " " : "",
                parser.context ? parser.context : "");
fail:
    free(names);
    if (have_parser) yaml_parser_delete(&parser);
    if (have_doc) yaml_document_delete(&doc);
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
        return mcf_err_set(
            e, MCF_EINPUT, __FILE__, __LINE__,
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
