/* A parsed deck made runnable: --quick's caps, and the instances of its
 * tests (one per sweep point) with "auto" sizes taken from the device. */
#include "deck_int.h"

#include <stdio.h>
#include <stdlib.h>

#include "family.h"

static uint64_t cap(uint64_t v, uint64_t limit)
{
    return v > limit ? limit : v;
}

#define QUICK_MAX_DURATION 3 /* seconds of a sustained test */

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
            if (kd->quick_max) mcf_key_set(kd, k, cap(mcf_key_get(kd, k), kd->quick_max));
        }
        const struct mcf_key *swept = t->nsweep ? mcf_kernel_key(t->sweep_key) : NULL;
        if (!swept || !swept->quick_max) continue;
        int kept = 0;
        for (int s = 0; s < t->nsweep; s++) {
            uint64_t v = cap(t->sweep[s], swept->quick_max);
            int dup = 0;
            for (int j = 0; j < kept; j++) dup |= t->sweep[j] == v;
            if (!dup) t->sweep[kept++] = v;
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
    for (int i = 0; i < deck->ntests; i++) n += deck->tests[i].nsweep ? deck->tests[i].nsweep : 1;
    struct mcf_instance *v = NULL;
    struct mcf_strref *names = NULL;
    const struct mcf_strref *rep, *first = NULL;
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
                char why[256];
                const char *wrong =
                    mcf_deck_sweep_point(t, p, &tmp, why, sizeof why); /* refused at reading */
                if (wrong)
                    MCF_FAIL(e, MCF_EINPUT, "%s:%d: test '%s'%s (the sweep's point %s=%llu)",
                             deck->path, t->line, t->name, wrong, t->sweep_key,
                             (unsigned long long)t->sweep[p]);
                in->sweep_value = t->sweep[p];
                len = snprintf(in->name, sizeof in->name, "%s:%s=%llu", t->name, t->sweep_key,
                               (unsigned long long)t->sweep[p]);
            } else {
                len = snprintf(in->name, sizeof in->name, "%s", t->name);
            }
            /* the name is an HDF5 group under /results: what validation passed must be writable */
            if (len < 0 || (size_t)len >= sizeof in->name || !mcf_hdf5_name_ok(in->name))
                MCF_FAIL(e, MCF_EINPUT, "%s:%d: test '%s': '%s' cannot name an HDF5 group",
                         deck->path, t->line, t->name, in->name);
            names[j] = (struct mcf_strref){ in->name, (size_t)j, t };
            in->kernel = tmp.kernel;
            if (in->kernel.family == MCF_FAMILY_MEMORY && in->kernel.bytes == 0) {
                in->kernel.bytes = auto_bytes(&in->kernel, dev);
                if (deck->quick)
                    in->kernel.bytes = cap(in->kernel.bytes, mcf_kernel_key("bytes")->quick_max);
            }
            mcf_kernel_label(&in->kernel);
        }
    }
    if ((rep = mcf_first_repeat(names, (size_t)n, &first)) != NULL) {
        const struct mcf_deck_test *t = rep->where;
        MCF_FAIL(e, MCF_EINPUT,
                 "%s:%d: test '%s': instance '%s' is also made by the test at line %d", deck->path,
                 t->line, t->name, rep->s, ((const struct mcf_deck_test *)first->where)->line);
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
