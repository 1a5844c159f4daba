/* What a test of a results file measured: its "measured" attribute
 * (family.c: mcf_kernel_measured), or, in files written before it, the same
 * text rebuilt from the test's parameter attributes: a kernel of the family
 * with every key at its default, each recorded key set from its text, then
 * written by the same function, so a key that older builds did not record
 * (matrix dtype_b and path, memory and streams inputs, streams shape) takes
 * the value they implied, which is its default: those defaults must not
 * change. analysis/mcfleet_results.py (IMPLIED) rebuilds the same text;
 * tests/compare_history.sh checks both agree on every older file there. */
#include "report_measured.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "report_int.h"

int mcf_rd_measured(struct mcf_rd *rd, hid_t g, const char *gname, char *buf, size_t len)
{
    char *text = NULL, *kernel = NULL;
    int rc = mcf_rd_attr_text(rd, g, gname, "measured", &text);
    buf[0] = '\0';
    if (rc != 0) {
        if (rc > 0)
            snprintf(buf, len, "%s", text);
        free(text);
        return rc;
    }
    if ((rc = mcf_rd_attr_text(rd, g, gname, "kernel", &kernel)) <= 0)
        return rc;
    int f = 0;
    while (f < MCF_FAMILY_COUNT && strcmp(mcf_family_names[f], kernel))
        f++;
    if (f == MCF_FAMILY_COUNT) {
        mcf_rd_bad(rd, gname, "attribute kernel: '%.64s' is no kernel family", kernel);
        free(kernel);
        return -1;
    }
    free(kernel);
    struct mcf_kernel k;
    mcf_kernel_defaults((enum mcf_family)f, &k);
    for (const struct mcf_key_use *u = mcf_families[f].keys; u->key; u++) {
        const struct mcf_key *kd = mcf_kernel_key(u->key);
        char num[32];
        const char *value = NULL;
        if (kd->amount)
            continue;
        if (kd->text || kd->type == MCF_V_ENUM || kd->type == MCF_V_SHAPE) {
            if ((rc = mcf_rd_attr_text(rd, g, gname, kd->name, &text)) < 0)
                return rc;
            value = text;
        } else {
            long long v;
            if ((rc = mcf_rd_attr_int(rd, g, gname, kd->name, &v)) < 0)
                return rc;
            snprintf(num, sizeof num, "%lld", v);
            value = rc > 0 ? num : NULL;
        }
        if (value && mcf_key_set_text(kd, &k, value) != 0) {
            mcf_rd_bad(rd, gname, "attribute %s: '%.64s' is not a value of it", kd->name, value);
            free(text);
            return -1;
        }
        free(text);
        text = NULL;
    }
    mcf_kernel_measured(&k, buf, len);
    return 1;
}

struct test_facts *mcf_facts_add(struct fleet *f, const char *test)
{
    if (f->nfacts == f->capfacts) {
        size_t cap = f->capfacts ? 2 * f->capfacts : 32;
        struct test_facts *v = realloc(f->facts, cap * sizeof *v);
        if (!v) {
            f->oom = 1;
            return NULL;
        }
        f->facts = v;
        f->capfacts = cap;
    }
    struct test_facts *t = &f->facts[f->nfacts++];
    snprintf(t->test, sizeof t->test, "%s", test);
    t->measured[0] = '\0';
    t->power_readings = NAN;
    return t;
}

const struct test_facts *mcf_facts_of(const struct fleet *f, const char *test)
{
    for (size_t i = 0; i < f->nfacts; i++)
        if (!strcmp(f->facts[i].test, test))
            return &f->facts[i];
    return NULL;
}
