/* The memory family's Hopper levels (family_hopper.h): tma, Hopper's Tensor
 * Memory Accelerator copying global memory into shared memory, and dsm, the
 * loads of one CTA from another's shared memory in its cluster. After
 * "Dissecting the NVIDIA Hopper Architecture through Microbenchmarking"
 * (Luo et al.), sections 5 and 7; docs/decks.md says what each figure is. */
#include "family_hopper.h"

#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "family.h"

int mcf_level_hopper(enum mcf_level level)
{
    return level == MCF_LEVEL_TMA || level == MCF_LEVEL_DSM;
}

static int given_key(unsigned given, const char *name)
{
    int i = mcf_family_key_index(MCF_FAMILY_MEMORY, name);
    return i >= 0 && (given >> i & 1u);
}

#define DSM_AUTO_BYTES 16384 /* the seed paper's 16 KiB of shared memory per block */
#define TMA_ROW_BYTES 256 /* a tensor-2d box is 256 bytes wide, load / 256 rows high */

const char *mcf_memory_hopper_check(struct mcf_kernel *k, unsigned given, char *why, size_t len)
{
    static const char *const dsm_keys[] = { "cluster", "pattern" },
                             *const tma_keys[] = { "load", "tma" };
    for (int i = 0; i < 2; i++) {
        if (given_key(given, dsm_keys[i]) && k->level != MCF_LEVEL_DSM)
            return snprintf(why, len, ": '%s' needs 'level: dsm'", dsm_keys[i]), why;
        if (given_key(given, tma_keys[i]) && k->level != MCF_LEVEL_TMA)
            return snprintf(why, len, ": '%s' needs 'level: tma'", tma_keys[i]), why;
    }
    if (!mcf_level_hopper(k->level)) {
        if (given_key(given, "ctas"))
            return snprintf(why, len, ": 'ctas' needs 'level: tma' or 'level: dsm'"), why;
        if (k->mode != MCF_MODE_THROUGHPUT)
            return snprintf(why, len,
                            ": 'mode: latency' of a memory test needs 'level: tma' or 'level: dsm' "
                            "(the pointer chase is the latency family)"),
                   why;
        return NULL;
    }
    /* what these levels measure: loads, each word summed (the read op) */
    if (given_key(given, "op") && k->op != MCF_OP_READ)
        return snprintf(why, len, ": level %s is measured with 'op: read'",
                        mcf_level_names[k->level]),
               why;
    k->op = MCF_OP_READ;
    if (given_key(given, "occupancy"))
        return snprintf(why, len, ": level %s takes 'ctas' (CTAs per SM), not 'occupancy'",
                        mcf_level_names[k->level]),
               why;
    if (given_key(given, "sweeps"))
        return snprintf(why, len, ": level %s takes no 'sweeps'", mcf_level_names[k->level]), why;
    if (given_key(given, "ctas") && k->mode == MCF_MODE_LATENCY)
        return snprintf(why, len,
                        ": 'ctas' sets a throughput test's grid; a latency chain is one CTA (one "
                        "cluster at level dsm)"),
               why;
    if (k->level == MCF_LEVEL_DSM) {
        if (k->pattern == MCF_PATTERN_PAIR && k->cluster % 2)
            return snprintf(why, len, ": 'pattern: pair' needs an even 'cluster' (not %d)",
                            k->cluster),
                   why;
        if (!k->bytes)
            k->bytes = DSM_AUTO_BYTES; /* auto: one CTA's shared memory, not the device's memory */
        if (k->bytes > 114688)
            return snprintf(
                       why, len,
                       ": level dsm: 'bytes' is one CTA's shared memory, at most 112KiB (not %llu)",
                       (unsigned long long)k->bytes),
                   why;
        if (k->bytes % 16)
            return snprintf(why, len, ": level dsm: 'bytes' must be a multiple of 16"), why;
        return NULL;
    }
    if (k->mode == MCF_MODE_LATENCY && k->tma != MCF_TMA_BULK)
        return snprintf(
                   why, len,
                   ": the TMA latency chain is of bulk copies: 'mode: latency' needs 'tma: bulk'"),
               why;
    if (k->load % 16)
        return snprintf(why, len,
                        ": 'load' must be a multiple of 16 bytes (a TMA copy's granule; not %u)",
                        k->load),
               why;
    if (k->tma == MCF_TMA_TENSOR_2D && (k->load % TMA_ROW_BYTES || k->load / TMA_ROW_BYTES > 256))
        return snprintf(why, len,
                        ": 'tma: tensor-2d' copies boxes 256 bytes wide and at most 256 rows: "
                        "'load' must be "
                        "a multiple of 256, at most 64KiB (not %u)",
                        k->load),
               why;
    if (k->bytes && k->bytes < 4ull * k->load)
        return snprintf(why, len, ": level tma: 'bytes' (%llu) must hold at least 4 loads of %u",
                        (unsigned long long)k->bytes, k->load),
               why;
    return NULL;
}

void mcf_memory_hopper_label(const struct mcf_kernel *k, char *out, size_t len)
{
    char ctas[24] = "";
    const char *type =
        k->mode == MCF_MODE_LATENCY ? "" : mcf_dtype_names[k->dtype]; /* a chain has none */
    if (k->ctas > 0) snprintf(ctas, sizeof ctas, " x%d/SM", k->ctas);
    if (k->level == MCF_LEVEL_TMA)
        snprintf(out, len, "memory tma %s %u B %s%s%s %llu B%s", mcf_tma_names[k->tma], k->load,
                 mcf_mode_names[k->mode], *type ? " " : "", type, (unsigned long long)k->bytes,
                 ctas);
    else
        snprintf(out, len, "memory dsm %s cluster %d %s%s%s %llu B%s",
                 mcf_pattern_names[k->pattern], k->cluster, mcf_mode_names[k->mode],
                 *type ? " " : "", type, (unsigned long long)k->bytes, ctas);
}

static double m_cycles(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    (void)i;
    return s->cycles;
}
static double m_base(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    (void)i;
    return s->base_cycles;
}
static double m_above(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    (void)i;
    return s->cycles - s->base_cycles;
}
static double m_ns(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    (void)i;
    return s->seconds / s->units * 1e9;
}
static double m_clock(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    (void)i;
    return s->clock_mhz;
}
static double m_time(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    (void)i;
    return s->seconds;
}

/* latency_cycles: one dependent TMA copy (issue, mbarrier expect-tx, arrive
 * and wait) or DSM load; base_latency_cycles: a plain load (ld.global.cg /
 * ld.shared) of the same kind of chain in the same kernel; above_base_cycles
 * the difference (the seed paper's "about 170 cycles" for TMA). In-kernel
 * clocks only: a backend without them cannot give these figures. */
int mcf_memory_hopper_metrics(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out,
                              int max)
{
    int n = 0;
    if (!mcf_level_hopper(k->level) || k->mode != MCF_MODE_LATENCY) return 0;
    n = mcf_metric_add(out, n, max, "latency_ns", "ns", m_ns, 0,
                       MCF_METRIC_SUMMARY | MCF_METRIC_LOWER);
    if (caps & MCF_CAP_CLOCK) {
        n = mcf_metric_add(out, n, max, "latency_cycles", "cycles", m_cycles, 0,
                           MCF_METRIC_SUMMARY | MCF_METRIC_LOWER);
        n = mcf_metric_add(out, n, max, "base_latency_cycles", "cycles", m_base, 0,
                           MCF_METRIC_SUMMARY);
        n = mcf_metric_add(out, n, max, "above_base_cycles", "cycles", m_above, 0,
                           MCF_METRIC_SUMMARY);
        n = mcf_metric_add(out, n, max, "clock_mhz", "MHz", m_clock, 0,
                           MCF_METRIC_SUMMARY | MCF_METRIC_HIGHER);
    }
    return mcf_metric_add(out, n, max, "time_s", "s", m_time, 0, MCF_METRIC_DETAIL);
}
