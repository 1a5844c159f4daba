#include "family.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "concurrency.h"
#include "family_ladder.h"
#include "family_hopper.h"
#include "family_transfer.h"
#include "stats.h"

/* a family's key uses, each ended by KEYS_END */
/* clang-format off */
#define KEY(n, d) { .key = (n), .def = (d) }
#define KEY_IMPLIED(n, d, older) { .key = (n), .def = (d), .implied = (older) }
#define KEYS_END { .key = NULL }
/* clang-format on */

#define DEFAULT_SEED 20261122
const struct mcf_key_use mcf_common_kernel_keys[] = { KEY("seed", DEFAULT_SEED), KEYS_END };

/* ---- work per unit ---- */

static double no_work(const struct mcf_kernel *k)
{
    (void)k;
    return 0.0;
}

static double matrix_flops(const struct mcf_kernel *k)
{
    return 2.0 * k->shape[0] * k->shape[1] * k->shape[2];
}

/* an FMA is two FLOPs, per lane; packed ones do two */
static double valu_flops(const struct mcf_kernel *k)
{
    return k->dtype == MCF_FP16X2 || k->dtype == MCF_FP32X2 ? 4.0 : 2.0;
}

static double memory_flops(const struct mcf_kernel *k)
{
    switch (k->op) {
    case MCF_OP_READ: return 1.0; /* the reduction's add */
    case MCF_OP_TRIAD: return 2.0;
    case MCF_OP_FMA: return 2.0 * k->intensity;
    default: return 0.0;
    }
}

static double memory_bytes(const struct mcf_kernel *k)
{
    double es = mcf_dtype_size(k->dtype);
    switch (k->op) {
    case MCF_OP_READ: return es; /* read a */
    case MCF_OP_COPY: return 2 * es; /* read a, write c */
    case MCF_OP_WRITE: return es; /* write c */
    case MCF_OP_TRIAD: return 3 * es; /* read b and c, write a */
    case MCF_OP_FMA: return 2 * es; /* read a, write b */
    default: return 0.0;
    }
}

static double gemm_flops(const struct mcf_kernel *k)
{
    return 2.0 * (double)k->size * (double)k->size * (double)k->size;
}

/* ---- metric value functions ---- */

static double m_time(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    (void)i;
    return s->seconds;
}

static double m_gflops(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)i;
    return s->units * mcf_kernel_flops_per_unit(k) / s->seconds * 1e-9;
}

static double m_bandwidth(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)i;
    return s->units * mcf_kernel_bytes_per_unit(k) / s->seconds * 1e-9;
}

static double m_latency(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
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

static double m_cycles(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    (void)i;
    return s->cycles;
}

/* 2:4 sparse matrix tests: gflops counts the dense-equivalent work (2mnk of
 * the logical shape, what the product is worth and what vendors' sparse peaks
 * count); the instruction multiplies only the kept half of A: this one */
static double m_gflops_executed(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    return 0.5 * m_gflops(k, s, i);
}

static double m_peak_fraction(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    return s->peak_gflops > 0 ? m_gflops(k, s, i) / s->peak_gflops : NAN;
}

static void durations(const struct mcf_sample *s, double *d)
{
    for (int i = 0; i < s->nstreams; i++) d[i] = s->stream_end[i] - s->stream_start[i];
}

static double m_wall(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    (void)i;
    return mcf_wall_time(s->stream_start, s->stream_end, s->nstreams);
}

static double m_serial(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    (void)i;
    double sum = 0.0;
    for (int j = 0; j < s->nstreams; j++) sum += s->stream_alone[j];
    return sum;
}

static double m_speedup(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    return m_serial(k, s, i) / m_wall(k, s, i);
}

static double m_overlap(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    (void)i;
    return mcf_overlap_efficiency(s->stream_start, s->stream_end, s->nstreams);
}

static double m_fairness(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    (void)i;
    double d[MCF_MAX_STREAMS];
    durations(s, d);
    return mcf_fairness(d, s->nstreams);
}

static double m_cv(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    (void)i;
    double d[MCF_MAX_STREAMS];
    durations(s, d);
    return mcf_cv(d, (size_t)s->nstreams);
}

static double m_stream_time(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    return s->stream_end[i] - s->stream_start[i];
}

static double m_stream_speedup(const struct mcf_kernel *k, const struct mcf_sample *s, int i)
{
    (void)k;
    return s->stream_alone[i] / (s->stream_end[i] - s->stream_start[i]);
}

/* How a metric is shown and checked: the rates, latencies and concurrency
 * figures are the summary; raw times and per-stream figures are DETAIL (kept
 * in the file, not printed); an OPTIONAL figure may be NaN (a device the
 * table of peaks does not know). */
enum {
    SUMMARY = MCF_METRIC_SUMMARY,
    DETAIL = MCF_METRIC_DETAIL,
    OPTIONAL = MCF_METRIC_OPTIONAL,
    HIGHER = MCF_METRIC_HIGHER,
    LOWER = MCF_METRIC_LOWER
};

int mcf_metric_add(struct mcf_metric *out, int n, int max, const char *name, const char *unit,
                   double (*fn)(const struct mcf_kernel *, const struct mcf_sample *, int),
                   int index, int flags)
{
    if (n >= max) return n;
    out[n].detail = (flags & DETAIL) != 0;
    out[n].optional = (flags & OPTIONAL) != 0;
    out[n].better = flags & HIGHER ? 1 : flags & LOWER ? -1 : 0;
    snprintf(out[n].name, sizeof out[n].name, "%s", name);
    out[n].unit = unit;
    out[n].value = fn;
    out[n].index = index;
    return n + 1;
}
#define add mcf_metric_add

/* The in-kernel clock where the backend stamps one, and the raw time. */
static int clock_and_time(unsigned caps, struct mcf_metric *out, int n, int max)
{
    if (caps & MCF_CAP_CLOCK)
        n = add(out, n, max, "clock_mhz", "MHz", m_clock, 0, SUMMARY | HIGHER);
    return add(out, n, max, "time_s", "s", m_time, 0, DETAIL);
}

static int matrix_metrics(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out,
                          int max)
{
    int n = 0;
    if (k->mode == MCF_MODE_LATENCY) {
        n = add(out, n, max, "latency_ns", "ns", m_latency, 0, SUMMARY | LOWER);
        if (caps & MCF_CAP_CLOCK)
            n = add(out, n, max, "latency_cycles", "cycles", m_cycles, 0, SUMMARY | LOWER);
    } else {
        n = add(out, n, max, "gflops", "GFLOP/s", m_gflops, 0, SUMMARY | HIGHER);
        if (k->sparsity == MCF_SPARSITY_2_4)
            n = add(out, n, max, "gflops_executed", "GFLOP/s", m_gflops_executed, 0, DETAIL);
        if (caps & MCF_CAP_CLOCK)
            n = add(out, n, max, "peak_fraction", "1", m_peak_fraction, 0, OPTIONAL);
    }
    return clock_and_time(caps, out, n, max);
}

static int valu_metrics(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out, int max)
{
    (void)k;
    return clock_and_time(
        caps, out, add(out, 0, max, "gflops", "GFLOP/s", m_gflops, 0, SUMMARY | HIGHER), max);
}

static int memory_metrics(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out,
                          int max)
{
    if (k->mode == MCF_MODE_LATENCY) return mcf_memory_hopper_metrics(k, caps, out, max);
    int n = add(out, 0, max, "bandwidth_gbs", "GB/s", m_bandwidth, 0, SUMMARY | HIGHER);
    if (k->op == MCF_OP_FMA)
        n = add(out, n, max, "gflops", "GFLOP/s", m_gflops, 0, SUMMARY | HIGHER);
    return clock_and_time(caps, out, n, max);
}

static int latency_metrics(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out,
                           int max)
{
    (void)k;
    return clock_and_time(caps, out,
                          add(out, 0, max, "latency_ns", "ns", m_latency, 0, SUMMARY | LOWER), max);
}

static int streams_metrics(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out,
                           int max)
{
    (void)caps;
    int n = 0;
    n = add(out, n, max, "speedup", "1", m_speedup, 0, SUMMARY | HIGHER);
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
}

/* A library's kernels cannot be stamped: the backend's clock probe runs right
 * after the repetition's GEMMs, and under a power cap the SMs speed up the
 * moment the load stops (an H100 at 700 W: 1470 MHz in the probe, 1305 from
 * NVML during the GEMMs, which agrees with the in-kernel clock within 1% for
 * mcfleet's own kernels at the limit; docs/performance.md, "Which clock").
 * So the probe is kept as a detail, not as the test's clock, and no fraction
 * of peak rests on it: the source's SM clock per repetition is the clock. */
static int gemm_metrics(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out, int max)
{
    int n = add(out, 0, max, "gflops", "GFLOP/s", m_gflops, 0, SUMMARY | HIGHER);
    if (k->sparsity != MCF_SPARSITY_DENSE) n = mcf_gemm_sparse_metrics(caps, out, n, max);
    if (caps & MCF_CAP_CLOCK) n = add(out, n, max, "probe_clock_mhz", "MHz", m_clock, 0, DETAIL);
    return add(out, n, max, "time_s", "s", m_time, 0, DETAIL);
}

/* ---- labels ---- */

static const char *occupancy(const struct mcf_kernel *k, char *buf, size_t len)
{
    if (k->occupancy <= 0) return "auto";
    snprintf(buf, len, "%d", k->occupancy);
    return buf;
}

static void matrix_label(const struct mcf_kernel *k, char *out, size_t len)
{
    char buf[16];
    int pair = k->dtype_b != MCF_DTYPE_COUNT;
    snprintf(out, len, "matrix %s%s%s %dx%dx%d%s%s%s %s x%s", mcf_dtype_names[k->dtype],
             pair ? " x " : "", pair ? mcf_dtype_names[k->dtype_b] : "", k->shape[0], k->shape[1],
             k->shape[2], k->sparsity == MCF_SPARSITY_2_4 ? " sparse 2:4" : "", k->path ? " " : "",
             k->path ? mcf_path_names[k->path] : "", mcf_mode_names[k->mode],
             k->mode == MCF_MODE_LATENCY ? "1" : occupancy(k, buf, sizeof buf));
}

static void valu_label(const struct mcf_kernel *k, char *out, size_t len)
{
    char buf[16];
    snprintf(out, len, "valu %s fma x%s", mcf_dtype_names[k->dtype], occupancy(k, buf, sizeof buf));
}

static void memory_label(const struct mcf_kernel *k, char *out, size_t len)
{
    char intensity[32] = "", sweeps[32] = "";
    if (mcf_level_hopper(k->level)) {
        mcf_memory_hopper_label(k, out, len);
        return;
    }
    if (k->op == MCF_OP_FMA) snprintf(intensity, sizeof intensity, " intensity %d", k->intensity);
    if (k->sweeps > 1)
        snprintf(sweeps, sizeof sweeps, " x%llu sweeps", (unsigned long long)k->sweeps);
    snprintf(out, len, "memory %s %s %s %llu B%s%s", mcf_level_names[k->level],
             mcf_memop_names[k->op], mcf_dtype_names[k->dtype], (unsigned long long)k->bytes,
             intensity, sweeps);
}

static void latency_label(const struct mcf_kernel *k, char *out, size_t len)
{
    snprintf(out, len, "pointer chase %llu B stride %u", (unsigned long long)k->working_set,
             k->stride);
}

static void streams_label(const struct mcf_kernel *k, char *out, size_t len)
{
    snprintf(out, len, "streams %d x %s imbalance %d:1", k->streams, mcf_work_names[k->work],
             k->imbalance);
}

static void gemm_label(const struct mcf_kernel *k, char *out, size_t len)
{
    snprintf(out, len, "gemm %s %llu^3%s x%llu", mcf_dtype_names[k->dtype],
             (unsigned long long)k->size, k->sparsity ? " 2:4" : "",
             (unsigned long long)k->iterations);
}

/* ---- cross-key rules ---- */

static int is_fp8(enum mcf_dtype t)
{
    return t == MCF_FP8_E4M3 || t == MCF_FP8_E5M2;
}

static const char *matrix_check(struct mcf_kernel *k, unsigned given, char *why, size_t len)
{
    (void)given;
    if (k->dtype_b != MCF_DTYPE_COUNT) {
        if (!is_fp8(k->dtype) || !is_fp8(k->dtype_b))
            return snprintf(why, len,
                            ": 'dtype_b' pairs FP8 formats: 'dtype' and 'dtype_b' must each be "
                            "fp8-e4m3 or fp8-e5m2"),
                   why;
        if (k->dtype_b == k->dtype)
            k->dtype_b = MCF_DTYPE_COUNT; /* the same format: not a pairing */
    }
    if (k->sparsity == MCF_SPARSITY_2_4 && k->shape[2] % 4)
        return snprintf(
                   why, len,
                   ": 'sparsity: 2:4' needs the shape's k (the uncompressed k) a multiple of 4, "
                   "got %d",
                   k->shape[2]),
               why;
    return NULL;
}

static const char *memory_check(struct mcf_kernel *k, unsigned given, char *why, size_t len)
{
    if (k->dtype != MCF_FP64 && k->dtype != MCF_FP32)
        return snprintf(why, len, " (memory) 'dtype' must be fp64 or fp32"), why;
    if ((given >> mcf_family_key_index(MCF_FAMILY_MEMORY, "intensity") & 1u) && k->op != MCF_OP_FMA)
        return snprintf(why, len, ": 'intensity' needs 'op: fma'"), why;
    return mcf_memory_hopper_check(k, given, why, len);
}

static const char *streams_check(struct mcf_kernel *k, unsigned given, char *why, size_t len)
{
    (void)given;
    if (!k->bytes)
        k->bytes = mcf_family_key(MCF_FAMILY_STREAMS, "bytes")->def; /* auto: the default */
    if (k->work == MCF_WORK_MATRIX && !k->shape[0])
        return snprintf(why, len, ": 'work: matrix' needs 'shape: [m, n, k]'"), why;
    return NULL;
}

/* the types a BLAS library multiplies */
static const char *gemm_check(struct mcf_kernel *k, unsigned given, char *why, size_t len)
{
    (void)given;
    if (k->sparsity != MCF_SPARSITY_DENSE && k->size % 4)
        return snprintf(why, len, ": 'sparsity: 2:4' needs a 'size' that is a multiple of 4"), why;
    switch (k->dtype) {
    case MCF_FP64:
    case MCF_FP32:
    case MCF_TF32:
    case MCF_FP16:
    case MCF_BF16:
    case MCF_FP8_E4M3:
    case MCF_INT8: return NULL;
    default:
        return snprintf(
                   why, len,
                   " (gemm) 'dtype' must be one of fp64, fp32, tf32, fp16, bf16, fp8-e4m3, int8"),
               why;
    }
}

/* ---- the rows ---- */

static const struct mcf_key_use matrix_keys[] = { KEY("dtype", MCF_KEY_REQUIRED),
                                                  KEY_IMPLIED("dtype_b", MCF_DTYPE_COUNT, "=dtype"),
                                                  KEY("shape", MCF_KEY_REQUIRED),
                                                  KEY("mode", MCF_MODE_THROUGHPUT),
                                                  KEY_IMPLIED("path", MCF_PATH_AUTO, "auto"),
                                                  KEY("occupancy", 0),
                                                  KEY("iterations", 4096),
                                                  KEY("inputs", MCF_INPUTS_RANDOM),
                                                  KEY("sparsity", MCF_SPARSITY_DENSE),
                                                  KEYS_END };
static const struct mcf_key_use valu_keys[] = { KEY("dtype", MCF_KEY_REQUIRED), KEY("occupancy", 0),
                                                KEY("iterations", 1 << 16),
                                                KEY("inputs", MCF_INPUTS_RANDOM), KEYS_END };
static const struct mcf_key_use memory_keys[] = { KEY("dtype", MCF_FP64),
                                                  KEY("level", MCF_LEVEL_HBM),
                                                  KEY("op", MCF_OP_TRIAD),
                                                  KEY("bytes", 0),
                                                  KEY("intensity", 1),
                                                  KEY("sweeps", 1),
                                                  KEY("occupancy", 0),
                                                  KEY_IMPLIED("inputs", MCF_INPUTS_RANDOM,
                                                              "random"),
                                                  KEY("mode", MCF_MODE_THROUGHPUT),
                                                  KEY("cluster", 2),
                                                  KEY("pattern", MCF_PATTERN_RING),
                                                  KEY("tma", MCF_TMA_BULK),
                                                  KEY("load", 4096),
                                                  KEY("ctas", 0),
                                                  KEYS_END };
static const char *const memory_quiet[] = { "mode", NULL };
static const struct mcf_key_use latency_keys[] = { KEY("working_set", MCF_KEY_REQUIRED),
                                                   KEY("stride", 64), KEY("iterations", 0),
                                                   KEYS_END };
static const struct mcf_key_use streams_keys[] = { KEY("streams", MCF_KEY_REQUIRED),
                                                   KEY("imbalance", 1),
                                                   KEY("work", MCF_WORK_MEMORY),
                                                   KEY("dtype", MCF_FP64),
                                                   KEY("bytes", 8u << 20),
                                                   KEY("iterations", 4096),
                                                   KEY_IMPLIED("shape", 0, "0x0x0"),
                                                   KEY_IMPLIED("inputs", MCF_INPUTS_RANDOM,
                                                               "random"),
                                                   KEYS_END };
static const struct mcf_key_use gemm_keys[] = { KEY("dtype", MCF_KEY_REQUIRED),
                                                KEY("size", 4096),
                                                KEY("iterations", 8),
                                                KEY("inputs", MCF_INPUTS_RANDOM),
                                                KEY("sparsity", MCF_SPARSITY_DENSE),
                                                KEYS_END };
static const struct mcf_key_use ladder_keys[] = {
    KEY("dtype", MCF_FP64),           KEY("size", 1024),
    KEY("rung", MCF_KEY_REQUIRED),    KEY("iterations", 1),
    KEY("inputs", MCF_INPUTS_RANDOM), KEYS_END
};
static const struct mcf_key_use transfer_keys[] = { KEY("link", MCF_KEY_REQUIRED),
                                                    KEY("direction", MCF_DIR_IN),
                                                    KEY("engine", MCF_ENGINE_COPY),
                                                    KEY("host_memory", MCF_NUMA_LOCAL),
                                                    KEY("mode", MCF_MODE_THROUGHPUT),
                                                    KEY("bytes", 64u << 20),
                                                    KEY("iterations", 8),
                                                    KEY("collective", MCF_COLL_ALLREDUCE),
                                                    KEY("scope", MCF_SCOPE_NODE),
                                                    KEY("rounds", 4),
                                                    KEYS_END };

const struct mcf_family_row mcf_families[MCF_FAMILY_COUNT] = {
    [MCF_FAMILY_MATRIX] = { .keys = matrix_keys,
                            .check = matrix_check,
                            .flops_per_unit = matrix_flops,
                            .bytes_per_unit = no_work,
                            .metrics = matrix_metrics,
                            .label = matrix_label,
                            .kind = "matrix" },
    [MCF_FAMILY_VALU] = { .keys = valu_keys,
                          .flops_per_unit = valu_flops,
                          .bytes_per_unit = no_work,
                          .metrics = valu_metrics,
                          .label = valu_label,
                          .kind = "compute" },
    [MCF_FAMILY_MEMORY] = { .keys = memory_keys,
                            .check = memory_check,
                            .flops_per_unit = memory_flops,
                            .bytes_per_unit = memory_bytes,
                            .metrics = memory_metrics,
                            .label = memory_label,
                            .quiet = memory_quiet,
                            .kind = "memory" },
    [MCF_FAMILY_LATENCY] = { .keys = latency_keys,
                             .flops_per_unit = no_work,
                             .bytes_per_unit = no_work,
                             .metrics = latency_metrics,
                             .label = latency_label,
                             .kind = "memory" },
    [MCF_FAMILY_STREAMS] = { .keys = streams_keys,
                             .check = streams_check,
                             .flops_per_unit = no_work,
                             .bytes_per_unit = no_work,
                             .metrics = streams_metrics,
                             .label = streams_label,
                             .kind = "compute" },
    [MCF_FAMILY_GEMM] = { .keys = gemm_keys,
                          .check = gemm_check,
                          .flops_per_unit = gemm_flops,
                          .bytes_per_unit = no_work,
                          .metrics = gemm_metrics,
                          .label = gemm_label,
                          .kind = "matrix" },
    [MCF_FAMILY_LADDER] = { .keys = ladder_keys,
                            .check = mcf_ladder_check,
                            .flops_per_unit = mcf_ladder_flops,
                            .bytes_per_unit = mcf_ladder_bytes,
                            .metrics = mcf_ladder_metrics,
                            .label = mcf_ladder_label,
                            .kind = "compute" },
    [MCF_FAMILY_TRANSFER] = { .keys = transfer_keys,
                              .check = mcf_transfer_check,
                              .flops_per_unit = no_work,
                              .bytes_per_unit = mcf_transfer_bytes,
                              .metrics = mcf_transfer_metrics,
                              .label = mcf_transfer_label,
                              .kind = "link" },
};

void mcf_streams_work(const struct mcf_kernel *k, int stream, struct mcf_kernel *out)
{
    const uint64_t times = stream == 0 ? (uint64_t)k->imbalance : 1; /* stream 0 is the heavy one */
    if (k->work == MCF_WORK_MATRIX) {
        mcf_kernel_derive(k, MCF_FAMILY_MATRIX, out);
        out->iterations = k->iterations * times;
    } else {
        mcf_kernel_derive(k, MCF_FAMILY_MEMORY, out);
        out->op = MCF_OP_TRIAD;
        out->bytes = k->bytes * times;
    }
}

void mcf_kernel_operands(const struct mcf_kernel *k, enum mcf_dtype *a, enum mcf_dtype *b)
{
    /* only a pair of FP8 formats names B's type (matrix_check's rule): an
     * unset dtype_b, MCF_DTYPE_COUNT or a struct's 0 (fp64), means dtype */
    *a = k->dtype;
    *b = is_fp8(k->dtype) && is_fp8(k->dtype_b) ? k->dtype_b : k->dtype;
}

const char *mcf_kernel_operands_differ(const struct mcf_kernel *k, enum mcf_dtype a,
                                       enum mcf_dtype b, char *why, size_t len)
{
    enum mcf_dtype ka, kb;
    mcf_kernel_operands(k, &ka, &kb);
    if (ka == a && kb == b) return NULL;
    snprintf(why, len,
             "internal error: the reference would multiply %s by %s, the instruction multiplies %s "
             "by %s "
             "(a %s test's kernel; the result could not be checked)",
             mcf_dtype_names[ka], mcf_dtype_names[kb], mcf_dtype_names[a], mcf_dtype_names[b],
             mcf_family_names[k->family]);
    return why;
}
