/* The ladder family's row (src/family.c): C = A*B of `size`, one of three
 * rungs of the tiled matrix-multiply progression of the OpenCL memory
 * hierarchy tutorial (shared/seeds/002_*): naive (every operand from global
 * memory), shared (T x T tiles staged), register (register tiles computed
 * from staged tiles). The work of a multiply is 2 n^3 FLOPs whatever the
 * rung; what differs is the bytes it asks of global memory, and so its
 * arithmetic intensity: mcf_ladder_bytes() is both the recorded
 * bytes_per_unit, which the roofline plot places the rung by, and the
 * intensity metric's denominator. */
#include "family_ladder.h"

#include <math.h>
#include <stdio.h>

#include "backend.h"
#include "family.h"

const char *mcf_ladder_check(struct mcf_kernel *k, unsigned given, char *why, size_t len)
{
    (void)given;
    if (k->dtype != MCF_FP64 && k->dtype != MCF_FP32)
        return snprintf(why, len, " (ladder) 'dtype' must be fp64 or fp32"), why;
    return NULL;
}

double mcf_ladder_flops(const struct mcf_kernel *k)
{
    return 2.0 * (double)k->size * (double)k->size * (double)k->size;
}

double mcf_ladder_bytes(const struct mcf_kernel *k)
{
    return mcf_ladder_elements(k->size, k->rung) * mcf_dtype_size(k->dtype);
}

static double m_gflops(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)i;
    return s->units * mcf_ladder_flops(k) / s->seconds * 1e-9;
}

static double m_intensity(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)s;
    (void)i;
    return mcf_ladder_flops(k) / mcf_ladder_bytes(k);
}

static double m_bandwidth(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)i;
    return s->units * mcf_ladder_bytes(k) / s->seconds * 1e-9;
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

/* gflops is the judged figure; the intensity (a constant of the test) and
 * the bandwidth it implies (gflops / intensity) are details: judging them
 * beside gflops would count one figure three times. */
int mcf_ladder_metrics(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out, int max)
{
    (void)k;
    int n = mcf_metric_add(out, 0, max, "gflops", "GFLOP/s", m_gflops, 0,
                           MCF_METRIC_SUMMARY | MCF_METRIC_HIGHER);
    n = mcf_metric_add(out, n, max, "intensity", "FLOP/byte", m_intensity, 0, MCF_METRIC_DETAIL);
    n = mcf_metric_add(out, n, max, "bandwidth_gbs", "GB/s", m_bandwidth, 0,
                       MCF_METRIC_DETAIL | MCF_METRIC_HIGHER);
    if (caps & MCF_CAP_CLOCK)
        n = mcf_metric_add(out, n, max, "clock_mhz", "MHz", m_clock, 0,
                           MCF_METRIC_SUMMARY | MCF_METRIC_HIGHER);
    return mcf_metric_add(out, n, max, "time_s", "s", m_time, 0, MCF_METRIC_DETAIL);
}

void mcf_ladder_label(const struct mcf_kernel *k, char *buf, size_t len)
{
    snprintf(buf, len, "ladder %s %s %llu^3 x%llu", mcf_rung_names[k->rung],
             mcf_dtype_names[k->dtype], (unsigned long long)k->size,
             (unsigned long long)k->iterations);
}
