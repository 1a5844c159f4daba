#include "profile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <yaml.h>

#include "family.h"
#include "numparse.h"
#include "yamlinput.h"

#define MAX_PROFILE_BYTES (1 << 20)
#define MAX_FLOW_DEPTH 16
#define MAX_ANCHORS 100
#define MAX_TESTS 256
#define MAX_FIGURE 1e9 /* 1 EFLOP/s in GFLOP/s: any figure above is a typo */

static const yaml_node_t *node(struct mcf_yaml_ctx *c, int id)
{
    return yaml_document_get_node(c->doc, id);
}

/* A mapping, each key a scalar given once (YAML says a repeated key is an
 * error; libyaml keeps both, so the later one would win silently). */
static int check_mapping(struct mcf_yaml_ctx *c, const yaml_node_t *map, const char *what)
{
    if (map->type != YAML_MAPPING_NODE)
        return mcf_yaml_at(c, map, "%s must be a mapping, got %s", what, mcf_yaml_node_kind(map));
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *kn = node(c, p->key);
        if (!mcf_yaml_scalar(kn))
            return mcf_yaml_at(c, kn, "a key in %s must be a scalar, got %s", what,
                               mcf_yaml_node_kind(kn));
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
            const yaml_node_t *k0 = node(c, q->key);
            if (!strcmp(mcf_yaml_scalar(k0), mcf_yaml_scalar(kn)))
                return mcf_yaml_at(
                    c, kn,
                    "key '%s' is given twice in %s (first at line %lu): a YAML mapping "
                    "holds each key once",
                    mcf_yaml_scalar(kn), what, (unsigned long)k0->start_mark.line + 1);
        }
    }
    return MCF_OK;
}

/* A test instance's name: 1 to 127 letters, digits, '-', '_', '.', starting
 * with a letter or digit; a sweep point's adds ':KEY=VALUE'
 * ("intensity:intensity=16"). */
static int valid_name(const char *s)
{
    size_t n = strlen(s);
    int colon = 0, equals = 0;
    if (n == 0 || n > 127 || !isalnum((unsigned char)s[0])) return 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == ':' && !colon++ && i + 1 < n) continue;
        if (s[i] == '=' && colon && !equals++ && s[i - 1] != ':' && i + 1 < n) continue;
        if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.') return 0;
    }
    return colon == equals;
}

/* Text into a fixed buffer: an error, never cut short. */
static int copy_text(struct mcf_yaml_ctx *c, const yaml_node_t *n, const char *what, char *dst,
                     size_t size)
{
    const char *s = mcf_yaml_scalar(n);
    if (!s) return mcf_yaml_at(c, n, "%s must be text, got %s", what, mcf_yaml_node_kind(n));
    if (!*s) return mcf_yaml_at(c, n, "%s is empty", what);
    if (strlen(s) >= size)
        return mcf_yaml_at(c, n, "%s is %zu characters; at most %zu are supported", what, strlen(s),
                           size - 1);
    memcpy(dst, s, strlen(s) + 1);
    return MCF_OK;
}

/* A figure: DIGITS[.DIGITS][e[+-]DIGITS], positive, at most MAX_FIGURE. No
 * sign, no leading zero before other digits (010 is octal in YAML 1.1), no
 * inf/nan, no '_' separators. */
static int parse_figure(struct mcf_yaml_ctx *c, const yaml_node_t *n, const char *what, double *out)
{
    const char *s = mcf_yaml_scalar(n), *q;
    if (!s) return mcf_yaml_at(c, n, "%s must be a number, got %s", what, mcf_yaml_node_kind(n));
    if (*s == '-' || *s == '+')
        return mcf_yaml_at(c, n, "%s must be a positive number without a sign, got '%s'", what, s);
    if (!isdigit((unsigned char)*s))
        return mcf_yaml_at(c, n, "%s must be a number such as 989500 or 332.5, got '%s'", what, s);
    if (s[0] == '0' && isdigit((unsigned char)s[1]))
        return mcf_yaml_at(c, n, "%s '%s' has a leading zero (octal in YAML 1.1)", what, s);
    for (q = s; isdigit((unsigned char)*q); q++)
        ;
    if (*q == '.') {
        if (!isdigit((unsigned char)q[1]))
            return mcf_yaml_at(c, n, "%s '%s': digits must follow the decimal point", what, s);
        for (q++; isdigit((unsigned char)*q); q++)
            ;
    }
    if (*q == 'e' || *q == 'E') { /* 1.67699e+06 */
        const char *x = q + 1 + (q[1] == '+' || q[1] == '-');
        if (!isdigit((unsigned char)*x))
            return mcf_yaml_at(c, n, "%s '%s': digits must follow the exponent's 'e'", what, s);
        for (q = x; isdigit((unsigned char)*q) && q - x < 3; q++)
            ;
    }
    if (*q)
        return mcf_yaml_at(
            c, n,
            "%s must be a plain number (digits, an optional decimal point and exponent; "
            "no unit or separator), got '%s'",
            what, s);
    if (q - s > 24) return mcf_yaml_at(c, n, "%s '%s' has too many digits", what, s);
    double v = strtod(s, NULL);
    if (!(v > 0)) return mcf_yaml_at(c, n, "%s must be above 0, got '%s'", what, s);
    if (v > MAX_FIGURE)
        return mcf_yaml_at(c, n, "%s %s is beyond %.0f, more than any GPU reaches in these units",
                           what, s, MAX_FIGURE);
    *out = v;
    return MCF_OK;
}

/* A scalar or a list of 1 to MCF_PROFILE_MAX_RULES scalars. */
static int rule_items(struct mcf_yaml_ctx *c, const yaml_node_t *n, const char *what,
                      const yaml_node_t **items, size_t *count)
{
    if (n->type == YAML_SCALAR_NODE) {
        items[0] = n;
        *count = 1;
        return MCF_OK;
    }
    if (n->type != YAML_SEQUENCE_NODE)
        return mcf_yaml_at(c, n, "%s must be a list, got %s", what, mcf_yaml_node_kind(n));
    size_t k = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (k == 0) return mcf_yaml_at(c, n, "%s is an empty list", what);
    if (k > MCF_PROFILE_MAX_RULES)
        return mcf_yaml_at(c, n, "%s has %zu entries; at most %d are supported", what, k,
                           MCF_PROFILE_MAX_RULES);
    for (size_t i = 0; i < k; i++) items[i] = node(c, n->data.sequence.items.start[i]);
    *count = k;
    return MCF_OK;
}

static int parse_strings(struct mcf_yaml_ctx *c, const yaml_node_t *n, const char *what,
                         char (*dst)[64], size_t width, size_t *count)
{
    const yaml_node_t *items[MCF_PROFILE_MAX_RULES];
    MCF_TRY(rule_items(c, n, what, items, count));
    for (size_t i = 0; i < *count; i++)
        MCF_TRY(copy_text(c, items[i], what, (char *)dst + i * width, width));
    return MCF_OK;
fail:
    return c->e->rc;
}

static int parse_match(struct mcf_yaml_ctx *c, const yaml_node_t *m, struct mcf_profile *p)
{
    const yaml_node_t *items[MCF_PROFILE_MAX_RULES];
    int have_arch = 0, have_name = 0;
    MCF_TRY(check_mapping(c, m, "'match'"));
    for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top; pr++) {
        const yaml_node_t *kn = node(c, pr->key), *vn = node(c, pr->value);
        const char *key = mcf_yaml_scalar(kn);
        if (!strcmp(key, "arch")) {
            MCF_TRY(rule_items(c, vn, "'match: arch'", items, &p->narch));
            for (size_t i = 0; i < p->narch; i++) {
                MCF_TRY(copy_text(c, items[i], "'match: arch'", p->arch[i], sizeof p->arch[i]));
                if (strchr(p->arch[i], ':')) {
                    mcf_yaml_at(c, items[i],
                                "'match: arch' names the target without features ('gfx90a', not "
                                "'%s'): a recorded arch is compared up to its first ':'",
                                p->arch[i]);
                    goto fail;
                }
            }
            have_arch = 1;
        } else if (!strcmp(key, "device_name")) {
            MCF_TRY(parse_strings(c, vn, "'match: device_name'", p->device_name,
                                  sizeof p->device_name[0], &p->ndevice_name));
            have_name = 1;
        } else if (!strcmp(key, "exclude")) {
            MCF_TRY(parse_strings(c, vn, "'match: exclude'", p->exclude, sizeof p->exclude[0],
                                  &p->nexclude));
        } else if (!strcmp(key, "compute_units")) {
            MCF_TRY(rule_items(c, vn, "'match: compute_units'", items, &p->ncompute_units));
            for (size_t i = 0; i < p->ncompute_units; i++) {
                const char *s = mcf_yaml_scalar(items[i]);
                uint64_t v = 0;
                if (!s || mcf_parse_uint(s, 1u << 20, &v) != MCF_NUM_OK || v == 0) {
                    mcf_yaml_at(
                        c, items[i],
                        "'match: compute_units' must be whole numbers from 1 to %u, got '%s'%s%s",
                        1u << 20, s ? s : mcf_yaml_node_kind(items[i]),
                        s && *mcf_uint_problem(s) ? ": " : "", s ? mcf_uint_problem(s) : "");
                    goto fail;
                }
                p->compute_units[i] = (long)v;
            }
        } else {
            mcf_yaml_at(c, kn,
                        "unknown key '%s' in 'match' (arch, device_name, exclude, compute_units)",
                        key);
            goto fail;
        }
    }
    if (!have_arch || !have_name) {
        mcf_yaml_at(c, m,
                    "'match' needs %s: a profile names the devices it covers by their recorded "
                    "/ranks/device_arch and /ranks/device_name",
                    !have_arch ? "'arch'" : "'device_name'");
        goto fail;
    }
    return MCF_OK;
fail:
    return c->e->rc;
}

/* "measured: <device>, <YYYY-MM-DD>, ...": a figure measured here says where and when. */
static int measured_label_ok(const char *s)
{
    if (strncmp(s, "measured:", 9) != 0) return 0;
    for (const char *q = s + 9; q[0] && q[1] && q[2] && q[3]; q++) {
        if (strlen(q) < 10) break;
        int ok = 1;
        for (int i = 0; i < 10 && ok; i++)
            ok = (i == 4 || i == 7) ? q[i] == '-' : isdigit((unsigned char)q[i]);
        if (ok) return 1;
    }
    return 0;
}

/* The test's bound: a floor for a higher-is-better metric, a ceiling for a
 * lower-is-better one, on the right side of the expected figure. */
static int parse_bound(struct mcf_yaml_ctx *c, const yaml_node_t *tn, const char *name,
                       const yaml_node_t *expected, const yaml_node_t *floor_n,
                       const yaml_node_t *ceiling, struct mcf_profile_test *t)
{
    char what[128];
    if (t->higher_is_better) {
        if (ceiling) {
            mcf_yaml_at(
                c, ceiling,
                "test '%s': %s is higher-is-better, so its bound is a 'floor', not a 'ceiling'",
                name, t->metric);
            goto fail;
        }
        if (!floor_n) {
            mcf_yaml_at(c, tn, "test '%s' has no 'floor': the figure a healthy GPU must reach",
                        name);
            goto fail;
        }
        snprintf(what, sizeof what, "'floor' of test '%s'", name);
        MCF_TRY(parse_figure(c, floor_n, what, &t->bound));
        if (t->bound > t->expected) {
            mcf_yaml_at(
                c, floor_n,
                "test '%s': floor %s is above expected %s (%s is higher-is-better: the floor lies "
                "below the expected figure)",
                name, mcf_yaml_scalar(floor_n), mcf_yaml_scalar(expected), t->metric);
            goto fail;
        }
    } else {
        if (floor_n) {
            mcf_yaml_at(
                c, floor_n,
                "test '%s': %s is lower-is-better, so its bound is a 'ceiling', not a 'floor'",
                name, t->metric);
            goto fail;
        }
        if (!ceiling) {
            mcf_yaml_at(c, tn,
                        "test '%s' has no 'ceiling': the figure a healthy GPU must stay under",
                        name);
            goto fail;
        }
        snprintf(what, sizeof what, "'ceiling' of test '%s'", name);
        MCF_TRY(parse_figure(c, ceiling, what, &t->bound));
        if (t->bound < t->expected) {
            mcf_yaml_at(
                c, ceiling,
                "test '%s': ceiling %s is below expected %s (%s is lower-is-better: the ceiling "
                "lies above the expected figure)",
                name, mcf_yaml_scalar(ceiling), mcf_yaml_scalar(expected), t->metric);
            goto fail;
        }
    }
    return MCF_OK;
fail:
    return c->e->rc;
}

/* The test's source: a key of 'sources' (a datasheet), or a measured
 * label naming the device and the date. */
static int parse_source(struct mcf_yaml_ctx *c, const char *name, const yaml_node_t *source,
                        const yaml_node_t *sources, struct mcf_profile_test *t)
{
    char what[128];
    snprintf(what, sizeof what, "'source' of test '%s'", name);
    char src[sizeof t->source];
    MCF_TRY(copy_text(c, source, what, src, sizeof src));
    if (!strncmp(src, "measured:", 9)) {
        if (!measured_label_ok(src)) {
            mcf_yaml_at(c, source,
                        "test '%s': a measured figure names the device and the date, "
                        "'measured: <device>, <YYYY-MM-DD>, <how>'",
                        name);
            goto fail;
        }
        memcpy(t->source, src, sizeof src);
    } else {
        const yaml_node_t *hit = NULL;
        for (yaml_node_pair_t *pr = sources->data.mapping.pairs.start;
             pr < sources->data.mapping.pairs.top; pr++)
            if (!strcmp(mcf_yaml_scalar(node(c, pr->key)), src)) hit = node(c, pr->value);
        if (!hit) {
            char known[256] = "";
            for (yaml_node_pair_t *pr = sources->data.mapping.pairs.start;
                 pr < sources->data.mapping.pairs.top; pr++) {
                if (known[0]) strncat(known, ", ", sizeof known - strlen(known) - 1);
                strncat(known, mcf_yaml_scalar(node(c, pr->key)), sizeof known - strlen(known) - 1);
            }
            mcf_yaml_at(c, source,
                        "test '%s': source '%s' is not a key of 'sources' (%s) and not a "
                        "'measured: <device>, <YYYY-MM-DD>, ...' label",
                        name, src, known);
            goto fail;
        }
        if (strlen(src) >= sizeof t->source_id) {
            mcf_yaml_at(c, source, "test '%s': source id '%s' is too long", name, src);
            goto fail;
        }
        snprintf(t->source_id, sizeof t->source_id, "%s", src);
        snprintf(t->source, sizeof t->source, "%s", mcf_yaml_scalar(hit));
    }
    return MCF_OK;
fail:
    return c->e->rc;
}

static int parse_test(struct mcf_yaml_ctx *c, const yaml_node_t *kn, const yaml_node_t *tn,
                      const yaml_node_t *sources, struct mcf_profile_test *t)
{
    const char *name = mcf_yaml_scalar(kn);
    char what[128];
    const yaml_node_t *expected = NULL, *floor_n = NULL, *ceiling = NULL, *source = NULL,
                      *metric = NULL;
    if (!valid_name(name)) {
        mcf_yaml_at(
            c, kn,
            "test name '%s' must be 1-127 letters, digits, '-', '_' or '.', starting with a letter "
            "or digit, with ':KEY=VALUE' for a sweep's point (the test's name in the results file)",
            name);
        goto fail;
    }
    snprintf(t->test, sizeof t->test, "%s", name);
    t->line = (int)kn->start_mark.line + 1;
    snprintf(what, sizeof what, "test '%s'", name);
    MCF_TRY(check_mapping(c, tn, what));
    for (yaml_node_pair_t *pr = tn->data.mapping.pairs.start; pr < tn->data.mapping.pairs.top;
         pr++) {
        const yaml_node_t *k = node(c, pr->key), *v = node(c, pr->value);
        const char *key = mcf_yaml_scalar(k);
        if (!strcmp(key, "metric"))
            metric = v;
        else if (!strcmp(key, "expected"))
            expected = v;
        else if (!strcmp(key, "floor"))
            floor_n = v;
        else if (!strcmp(key, "ceiling"))
            ceiling = v;
        else if (!strcmp(key, "source"))
            source = v;
        else if (!strcmp(key, "note")) {
            snprintf(what, sizeof what, "'note' of test '%s'", name);
            MCF_TRY(copy_text(c, v, what, t->note, sizeof t->note));
        } else if (!strcmp(key, "measured")) {
            snprintf(what, sizeof what, "'measured' of test '%s'", name);
            MCF_TRY(copy_text(c, v, what, t->measured, sizeof t->measured));
            if (strncmp(t->measured, "kernel=", 7) != 0) {
                mcf_yaml_at(c, v,
                            "%s must be the results file's 'measured' text, 'kernel=<family> "
                            "key=value ...' "
                            "(mcfleet -v --list prints it per test), got '%.64s'",
                            what, t->measured);
                goto fail;
            }
        } else {
            mcf_yaml_at(
                c, k,
                "unknown key '%s' in test '%s' (metric, expected, floor, ceiling, source, note, "
                "measured)",
                key, name);
            goto fail;
        }
    }
    if (!metric) {
        mcf_yaml_at(
            c, tn,
            "test '%s' has no 'metric' (a metric the kernel families judge: gflops, bandwidth_gbs, "
            "latency_ns, latency_cycles, busbw_gbs ...)",
            name);
        goto fail;
    }
    if (!expected) {
        mcf_yaml_at(c, tn, "test '%s' has no 'expected' figure", name);
        goto fail;
    }
    if (!source) {
        mcf_yaml_at(c, tn,
                    "test '%s' has no 'source': every figure names where it comes from (a key of "
                    "'sources', "
                    "or 'measured: <device>, <YYYY-MM-DD>, ...')",
                    name);
        goto fail;
    }
    {
        /* which way it is good is the family rows' (mcf_metric_judged) */
        const char *m = mcf_yaml_scalar(metric);
        int better = m && strlen(m) < sizeof t->metric ? mcf_metric_judged(m) : 0;
        if (!better) {
            mcf_yaml_at(c, metric,
                        "'metric' of test '%s' must be a metric the kernel families judge (gflops, "
                        "bandwidth_gbs, latency_ns, latency_cycles, busbw_gbs ...), got '%.64s'",
                        name, m ? m : mcf_yaml_node_kind(metric));
            goto fail;
        }
        snprintf(t->metric, sizeof t->metric, "%s", m);
        t->higher_is_better = better > 0;
    }
    snprintf(what, sizeof what, "'expected' of test '%s'", name);
    MCF_TRY(parse_figure(c, expected, what, &t->expected));
    MCF_TRY(parse_bound(c, tn, name, expected, floor_n, ceiling, t));
    MCF_TRY(parse_source(c, name, source, sources, t));
    return MCF_OK;
fail:
    return c->e->rc;
}

static int parse_sources(struct mcf_yaml_ctx *c, const yaml_node_t *s)
{
    MCF_TRY(check_mapping(c, s, "'sources'"));
    if (s->data.mapping.pairs.top == s->data.mapping.pairs.start) {
        mcf_yaml_at(c, s, "'sources' is empty: it names each document the figures come from");
        goto fail;
    }
    for (yaml_node_pair_t *pr = s->data.mapping.pairs.start; pr < s->data.mapping.pairs.top; pr++) {
        const yaml_node_t *kn = node(c, pr->key), *vn = node(c, pr->value);
        char buf[512];
        if (!valid_name(mcf_yaml_scalar(kn)) || !strncmp(mcf_yaml_scalar(kn), "measured", 8)) {
            mcf_yaml_at(c, kn,
                        "source id '%s' must be 1-63 letters, digits, '-', '_' or '.', starting "
                        "with a letter "
                        "or digit, and not begin with 'measured'",
                        mcf_yaml_scalar(kn));
            goto fail;
        }
        MCF_TRY(copy_text(c, vn, "a source's citation", buf, sizeof buf));
    }
    return MCF_OK;
fail:
    return c->e->rc;
}

static int prescan(struct mcf_yaml_ctx *c, const char *text)
{
    return mcf_yaml_limits(c, text, MAX_FLOW_DEPTH, MAX_ANCHORS, "a profile needs 2", "");
}

/* The profile's top-level keys: sku, match, sources and tests, each
 * required, and a description. */
static int parse_top(struct mcf_yaml_ctx *c, const yaml_node_t *root, struct mcf_profile *p,
                     const yaml_node_t **sku, const yaml_node_t **match,
                     const yaml_node_t **sources, const yaml_node_t **tests)
{
    MCF_TRY(check_mapping(c, root, "the profile"));
    for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top;
         pr++) {
        const yaml_node_t *kn = node(c, pr->key), *vn = node(c, pr->value);
        const char *key = mcf_yaml_scalar(kn);
        if (!strcmp(key, "sku"))
            *sku = vn;
        else if (!strcmp(key, "description"))
            MCF_TRY(copy_text(c, vn, "'description'", p->description, sizeof p->description));
        else if (!strcmp(key, "match"))
            *match = vn;
        else if (!strcmp(key, "sources"))
            *sources = vn;
        else if (!strcmp(key, "tests"))
            *tests = vn;
        else {
            mcf_yaml_at(
                c, kn, "unknown top-level key '%s' (sku, description, match, sources, tests)", key);
            goto fail;
        }
    }
    if (!*sku || !*match || !*sources || !*tests) {
        mcf_yaml_at(c, root, "the profile has no '%s' (it needs sku, match, sources and tests)",
                    !*sku           ? "sku"
                        : !*match   ? "match"
                        : !*sources ? "sources"
                                    : "tests");
        goto fail;
    }
    return MCF_OK;
fail:
    return c->e->rc;
}

/* 'tests': one to MAX_TESTS of them, each parsed. */
static int parse_tests(struct mcf_yaml_ctx *c, const yaml_node_t *tests, const yaml_node_t *sources,
                       struct mcf_profile *p)
{
    struct mcf_err *e = c->e;
    MCF_TRY(check_mapping(c, tests, "'tests'"));
    size_t n = (size_t)(tests->data.mapping.pairs.top - tests->data.mapping.pairs.start);
    if (n == 0) {
        mcf_yaml_at(c, tests, "'tests' is empty: a profile gives at least one test's figures");
        goto fail;
    }
    if (n > MAX_TESTS) {
        mcf_yaml_at(c, tests, "'tests' has %zu entries; at most %d are supported", n, MAX_TESTS);
        goto fail;
    }
    MCF_ALLOC(e, p->tests, n);
    for (size_t i = 0; i < n; i++) {
        yaml_node_pair_t *pr = tests->data.mapping.pairs.start + i;
        MCF_TRY(parse_test(c, node(c, pr->key), node(c, pr->value), sources, &p->tests[i]));
        p->ntests = i + 1;
    }
    return MCF_OK;
fail:
    return e->rc;
}

int mcf_profile_load(const char *path, struct mcf_profile *p, struct mcf_err *e)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    int have_doc = 0, have_parser = 0;
    char *text = NULL;
    struct mcf_yaml_ctx c = { path, &doc, e };
    const yaml_node_t *match = NULL, *sources = NULL, *tests = NULL, *sku = NULL;

    memset(p, 0, sizeof *p);
    if ((size_t)snprintf(p->path, sizeof p->path, "%s", path) >= sizeof p->path)
        MCF_FAIL(e, MCF_EINPUT,
                 "SKU profile %.64s...: the path is %zu characters; at most %zu are supported",
                 path, strlen(path), sizeof p->path - 1);
    MCF_TRY(mcf_yaml_read(path, "SKU profile", "a profile", MAX_PROFILE_BYTES, &text, e));
    MCF_TRY(prescan(&c, text));
    if (!yaml_parser_initialize(&parser))
        MCF_FAIL(e, MCF_ERUNTIME, "yaml_parser_initialize failed");
    have_parser = 1;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
    if (!yaml_parser_load(&parser, &doc)) goto syntax;
    have_doc = 1;
    {
        yaml_document_t extra;
        if (!yaml_parser_load(&parser, &extra)) goto syntax;
        int more = yaml_document_get_root_node(&extra) != NULL;
        yaml_mark_t mark = extra.start_mark;
        yaml_document_delete(&extra);
        if (more) {
            mcf_yaml_at_mark(&c, mark,
                             "a second YAML document starts here: a profile is one document");
            goto fail;
        }
    }
    yaml_parser_delete(&parser);
    have_parser = 0;

    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root)
        MCF_FAIL(e, MCF_EINPUT,
                 "%s:1:1: the profile is empty (it needs sku, match, sources and tests)", path);
    MCF_TRY(parse_top(&c, root, p, &sku, &match, &sources, &tests));
    MCF_TRY(copy_text(&c, sku, "'sku'", p->sku, sizeof p->sku));
    MCF_TRY(parse_match(&c, match, p));
    MCF_TRY(parse_sources(&c, sources));
    MCF_TRY(parse_tests(&c, tests, sources, p));
    yaml_document_delete(&doc);
    free(text);
    return MCF_OK;
syntax:
    mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__, "%s:%lu:%lu: YAML syntax error: %s%s%s", path,
                (unsigned long)parser.problem_mark.line + 1,
                (unsigned long)parser.problem_mark.column + 1,
                parser.problem ? parser.problem : "unknown", parser.context ? " " : "",
                parser.context ? parser.context : "");
fail:
    if (have_parser) yaml_parser_delete(&parser);
    if (have_doc) yaml_document_delete(&doc);
    free(text);
    mcf_profile_free(p);
    memset(p, 0, sizeof *p);
    return e->rc;
}

const struct mcf_profile_test *mcf_profile_test(const struct mcf_profile *p, const char *test,
                                                const char *metric)
{
    for (size_t i = 0; p && test && i < p->ntests; i++)
        if (!strcmp(p->tests[i].test, test) && (!metric || !strcmp(p->tests[i].metric, metric)))
            return &p->tests[i];
    return NULL;
}

void mcf_profile_free(struct mcf_profile *p)
{
    if (!p) return;
    free(p->tests);
    p->tests = NULL;
    p->ntests = 0;
}
