/* Each test's facts beyond its figures (report_int.h), made while reading. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdio.h>

#include "report_int.h"

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
    memset(&t->id, 0, sizeof t->id);
    t->nmetrics = 0;
    t->power_readings = NAN;
    return t;
}

const struct test_facts *mcf_facts_of(const struct fleet *f, const char *test)
{
    for (size_t i = 0; i < f->nfacts; i++)
        if (!strcmp(f->facts[i].test, test)) return &f->facts[i];
    return NULL;
}

struct test_facts *mcf_facts_last(struct fleet *f, const char *test)
{
    struct test_facts *t = f->nfacts ? &f->facts[f->nfacts - 1] : NULL;
    return t && !strcmp(t->test, test) ? t : NULL;
}
