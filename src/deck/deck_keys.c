/* A deck test's keys (deck_int.h): the test's own (repetitions, warmup, time
 * limit, duration) beside its kernel's (family.c), found and set by name, and
 * a test at a sweep point. The reader (deck.c) and the expansion
 * (deck_expand.c) both use these; they call neither back. */
#include "deck_int.h"

#include <stddef.h>
#include <string.h>

#include "family.h"

/* The keys of a test that are not the kernel's (those are in family.c):
 * offsets into struct mcf_deck_test. name, kernel and description are read
 * apart (first pass); they are here for their names and types. */
#define TFIELD(f)                                                                                  \
    .offset = offsetof(struct mcf_deck_test, f), .width = sizeof(((struct mcf_deck_test *)0)->f)
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

const struct mcf_key *mcf_deck_test_key(const char *key)
{
    for (const struct mcf_key *k = test_keys; k->name; k++)
        if (!strcmp(k->name, key)) return k;
    return NULL;
}

const struct mcf_key *mcf_deck_find_key(struct mcf_deck_test *t, const char *key, void **base)
{
    const struct mcf_key *kd = mcf_deck_test_key(key);
    *base = t;
    if (kd) return kd;
    *base = &t->kernel;
    return mcf_kernel_key(key);
}

void mcf_deck_set_key(struct mcf_deck_test *t, const char *key, uint64_t v)
{
    void *base;
    const struct mcf_key *kd = mcf_deck_find_key(t, key, &base);
    if (kd && kd->width) mcf_key_set(kd, base, v);
}

const char *mcf_deck_sweep_point(const struct mcf_deck_test *t, int p, struct mcf_deck_test *out,
                                 char *why, size_t len)
{
    const struct mcf_family_row *f = &mcf_families[t->kernel.family];
    *out = *t;
    mcf_deck_set_key(out, t->sweep_key, t->sweep[p]);
    return f->check ? f->check(&out->kernel, t->given, why, len) : NULL;
}
