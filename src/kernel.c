#include "kernel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "concurrency.h"
#include "stats.h"

const char *const mcf_family_names[MCF_FAMILY_COUNT] = {
    "matrix", "valu", "memory", "latency", "streams", "gemm" };
const char *const mcf_dtype_names[MCF_DTYPE_COUNT] = {
    "fp64", "fp32", "tf32", "fp16", "fp16-acc16", "bf16", "fp8-e4m3", "fp8-e5m2", "int8", "fp16x2", "fp32x2" };
const char *const mcf_level_names[MCF_LEVEL_COUNT] = { "hbm", "l2", "l1", "lds" };
const char *const mcf_memop_names[MCF_OP_COUNT] = { "read", "copy", "triad", "fma" };
const char *const mcf_mode_names[MCF_MODE_COUNT] = { "throughput", "latency" };
const char *const mcf_work_names[MCF_WORK_COUNT] = { "matrix", "memory" };
const char *const mcf_inputs_names[MCF_INPUTS_COUNT] = { "random", "zero", "exact" };
const char *const mcf_path_names[MCF_PATH_COUNT] = { "auto", "mma", "wgmma-ss", "wgmma-rs", "mfma" };

int mcf_name_index(const char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

int mcf_dtype_size(enum mcf_dtype t)
{
    switch (t) {
    case MCF_FP64: case MCF_FP32X2: return 8;
    case MCF_FP32: case MCF_TF32: case MCF_FP16X2: return 4;
    case MCF_FP16: case MCF_FP16_ACC16: case MCF_BF16: return 2;
    default: return 1;
    }
}

double mcf_kernel_flops_per_unit(const struct mcf_kernel *k)
{
    switch (k->family) {
    case MCF_FAMILY_MATRIX:
        return 2.0 * k->shape[0] * k->shape[1] * k->shape[2];
    case MCF_FAMILY_GEMM:
        return 2.0 * (double)k->size * (double)k->size * (double)k->size;
    case MCF_FAMILY_VALU:
        /* an FMA is two FLOPs, per lane; packed ones do two */
        return k->dtype == MCF_FP16X2 || k->dtype == MCF_FP32X2 ? 4.0 : 2.0;
    case MCF_FAMILY_MEMORY:
        switch (k->op) {
        case MCF_OP_READ: return 1.0;                   /* the reduction's add */
        case MCF_OP_COPY: return 0.0;
        case MCF_OP_TRIAD: return 2.0;
        case MCF_OP_FMA: return 2.0 * k->intensity;
        default: return 0.0;
        }
    default:
        return 0.0;
    }
}

double mcf_kernel_bytes_per_unit(const struct mcf_kernel *k)
{
    if (k->family != MCF_FAMILY_MEMORY)
        return 0.0;
    double es = mcf_dtype_size(k->dtype);
    switch (k->op) {
    case MCF_OP_READ: return es;          /* read a */
    case MCF_OP_COPY: return 2 * es;      /* read a, write c */
    case MCF_OP_TRIAD: return 3 * es;     /* read b and c, write a */
    case MCF_OP_FMA: return 2 * es;       /* read a, write b */
    default: return 0.0;
    }
}

/* ---- metric value functions ---- */

static double m_time(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{ (void)k; (void)i; return s->seconds; }

static double m_gflops(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{ (void)i; return s->units * mcf_kernel_flops_per_unit(k) / s->seconds * 1e-9; }

static double m_bandwidth(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{ (void)i; return s->units * mcf_kernel_bytes_per_unit(k) / s->seconds * 1e-9; }

static double m_latency(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{ (void)k; (void)i; return s->seconds / s->units * 1e9; }

static double m_clock(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{ (void)k; (void)i; return s->clock_mhz; }

static double m_cycles(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{ (void)k; (void)i; return s->cycles; }

static double m_peak_fraction(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{ return s->peak_gflops > 0 ? m_gflops(k, s, i) / s->peak_gflops : NAN; }

static void durations(const struct mcf_sample *s, double *d)
{
    for (int i = 0; i < s->nstreams; i++)
        d[i] = s->stream_end[i] - s->stream_start[i];
}

static double m_wall(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{ (void)k; (void)i; return mcf_wall_time(s->stream_start, s->stream_end, s->nstreams); }

static double m_serial(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k; (void)i;
    double sum = 0.0;
    for (int j = 0; j < s->nstreams; j++)
        sum += s->stream_alone[j];
    return sum;
}

static double m_speedup(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{ return m_serial(k, s, i) / m_wall(k, s, i); }

static double m_overlap(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{ (void)k; (void)i; return mcf_overlap_efficiency(s->stream_start, s->stream_end, s->nstreams); }

static double m_fairness(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k; (void)i;
    double d[MCF_MAX_STREAMS];
    durations(s, d);
    return mcf_fairness(d, s->nstreams);
}

static double m_cv(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k; (void)i;
    double d[MCF_MAX_STREAMS];
    durations(s, d);
    return mcf_cv(d, (size_t)s->nstreams);
}

static double m_stream_time(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{ (void)k; return s->stream_end[i] - s->stream_start[i]; }

static double m_stream_speedup(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{ (void)k; return s->stream_alone[i] / (s->stream_end[i] - s->stream_start[i]); }

/* How a metric is shown and checked: the rates, latencies and concurrency
 * figures are the summary; raw times and per-stream figures are DETAIL (kept
 * in the file, not printed); an OPTIONAL figure may be NaN (a device the
 * table of peaks does not know). */
enum { SUMMARY = 0, DETAIL = 1, OPTIONAL = 2 };

static int add(struct mcf_metric *out, int n, int max, const char *name, const char *unit,
               double (*fn)(const struct mcf_kernel *, const struct mcf_sample *, int), int index, int flags)
{
    if (n >= max)
        return n;
    out[n].detail = (flags & DETAIL) != 0;
    out[n].optional = (flags & OPTIONAL) != 0;
    snprintf(out[n].name, sizeof out[n].name, "%s", name);
    out[n].unit = unit;
    out[n].value = fn;
    out[n].index = index;
    return n + 1;
}

int mcf_kernel_metrics(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out, int max)
{
    int n = 0;
    switch (k->family) {
    case MCF_FAMILY_MATRIX:
    case MCF_FAMILY_VALU:
        if (k->family == MCF_FAMILY_MATRIX && k->mode == MCF_MODE_LATENCY) {
            n = add(out, n, max, "latency_ns", "ns", m_latency, 0, SUMMARY);
            if (caps & MCF_CAP_CLOCK)
                n = add(out, n, max, "latency_cycles", "cycles", m_cycles, 0, SUMMARY);
        } else {
            n = add(out, n, max, "gflops", "GFLOP/s", m_gflops, 0, SUMMARY);
            if (k->family == MCF_FAMILY_MATRIX && (caps & MCF_CAP_CLOCK))
                n = add(out, n, max, "peak_fraction", "1", m_peak_fraction, 0, OPTIONAL);
        }
        break;
    case MCF_FAMILY_MEMORY:
        n = add(out, n, max, "bandwidth_gbs", "GB/s", m_bandwidth, 0, SUMMARY);
        if (k->op == MCF_OP_FMA)
            n = add(out, n, max, "gflops", "GFLOP/s", m_gflops, 0, SUMMARY);
        break;
    case MCF_FAMILY_LATENCY:
        n = add(out, n, max, "latency_ns", "ns", m_latency, 0, SUMMARY);
        break;
    case MCF_FAMILY_GEMM:
        n = add(out, n, max, "gflops", "GFLOP/s", m_gflops, 0, SUMMARY);
        if (caps & MCF_CAP_CLOCK)
            n = add(out, n, max, "peak_fraction", "1", m_peak_fraction, 0, OPTIONAL);
        break;
    case MCF_FAMILY_STREAMS:
        n = add(out, n, max, "speedup", "1", m_speedup, 0, SUMMARY);
        n = add(out, n, max, "overlap_efficiency", "1", m_overlap, 0, SUMMARY);
        n = add(out, n, max, "fairness", "1", m_fairness, 0, SUMMARY);
        n = add(out, n, max, "cross_stream_cv", "1", m_cv, 0, SUMMARY);
        n = add(out, n, max, "serial_s", "s", m_serial, 0, DETAIL);
        n = add(out, n, max, "wall_s", "s", m_wall, 0, DETAIL);
        for (int i = 0; i < k->streams && i < MCF_MAX_STREAMS; i++) {
            char name[32];
            snprintf(name, sizeof name, "stream%d_time_s", i);
            n = add(out, n, max, name, "s", m_stream_time, i, DETAIL);
            snprintf(name, sizeof name, "stream%d_speedup", i);
            n = add(out, n, max, name, "1", m_stream_speedup, i, DETAIL);
        }
        return n;
    default:
        break;
    }
    /* memory kernels do not stamp the clock: they have no clock_mhz */
    if ((caps & MCF_CAP_CLOCK) && k->family != MCF_FAMILY_MEMORY)
        n = add(out, n, max, "clock_mhz", "MHz", m_clock, 0, SUMMARY);
    n = add(out, n, max, "time_s", "s", m_time, 0, DETAIL);
    return n;
}

static const char *occupancy(const struct mcf_kernel *k, char *buf, size_t len)
{
    if (k->mode == MCF_MODE_LATENCY && k->family == MCF_FAMILY_MATRIX)
        return "1";
    if (k->occupancy <= 0)
        return "auto";
    snprintf(buf, len, "%d", k->occupancy);
    return buf;
}

void mcf_kernel_label(struct mcf_kernel *k)
{
    char buf[16];
    switch (k->family) {
    case MCF_FAMILY_MATRIX:
        snprintf(k->label, sizeof k->label, "matrix %s%s%s %dx%dx%d%s%s %s x%s",
                 mcf_dtype_names[k->dtype], k->dtype_b == MCF_DTYPE_COUNT ? "" : " x ",
                 k->dtype_b == MCF_DTYPE_COUNT ? "" : mcf_dtype_names[k->dtype_b], k->shape[0], k->shape[1], k->shape[2],
                 k->path ? " " : "", k->path ? mcf_path_names[k->path] : "",
                 mcf_mode_names[k->mode], occupancy(k, buf, sizeof buf));
        break;
    case MCF_FAMILY_VALU:
        snprintf(k->label, sizeof k->label, "valu %s fma x%s", mcf_dtype_names[k->dtype],
                 occupancy(k, buf, sizeof buf));
        break;
    case MCF_FAMILY_MEMORY:
        snprintf(k->label, sizeof k->label, "memory %s %s %s %llu B", mcf_level_names[k->level],
                 mcf_memop_names[k->op], mcf_dtype_names[k->dtype], (unsigned long long)k->bytes);
        if (k->op == MCF_OP_FMA) {
            size_t len = strlen(k->label);
            snprintf(k->label + len, sizeof k->label - len, " intensity %d", k->intensity);
        }
        if (k->sweeps > 1) {
            size_t len = strlen(k->label);
            snprintf(k->label + len, sizeof k->label - len, " x%llu sweeps", (unsigned long long)k->sweeps);
        }
        break;
    case MCF_FAMILY_LATENCY:
        snprintf(k->label, sizeof k->label, "pointer chase %llu B stride %u",
                 (unsigned long long)k->working_set, k->stride);
        break;
    case MCF_FAMILY_GEMM:
        snprintf(k->label, sizeof k->label, "gemm %s %llu^3 x%llu", mcf_dtype_names[k->dtype],
                 (unsigned long long)k->size, (unsigned long long)k->iterations);
        break;
    case MCF_FAMILY_STREAMS:
        snprintf(k->label, sizeof k->label, "streams %d x %s imbalance %d:1",
                 k->streams, mcf_work_names[k->work], k->imbalance);
        break;
    default:
        snprintf(k->label, sizeof k->label, "?");
    }
}
