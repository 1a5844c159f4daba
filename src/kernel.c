#include "kernel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "family.h"

const char *const mcf_family_names[MCF_FAMILY_COUNT] = { "matrix",  "valu", "memory", "latency",
                                                         "streams", "gemm", "ladder", "transfer" };
const char *const mcf_dtype_names[MCF_DTYPE_COUNT] = { "fp64",     "fp32",       "tf32",
                                                       "fp16",     "fp16-acc16", "bf16",
                                                       "fp8-e4m3", "fp8-e5m2",   "int8",
                                                       "fp16x2",   "fp32x2" };
const char *const mcf_level_names[MCF_LEVEL_COUNT] = { "hbm", "l2", "l1", "lds", "tma", "dsm" };
const char *const mcf_memop_names[MCF_OP_COUNT] = { "read", "copy", "triad", "fma", "write" };
const char *const mcf_mode_names[MCF_MODE_COUNT] = { "throughput", "latency" };
const char *const mcf_work_names[MCF_WORK_COUNT] = { "matrix", "memory" };
const char *const mcf_inputs_names[MCF_INPUTS_COUNT] = { "random", "zero", "exact" };
const char *const mcf_path_names[MCF_PATH_COUNT] = { "auto", "mma", "wgmma-ss", "wgmma-rs",
                                                     "mfma" };
const char *const mcf_sparsity_names[MCF_SPARSITY_COUNT] = { "dense", "2:4" };
const char *const mcf_rung_names[MCF_RUNG_COUNT] = { "naive", "shared", "register" };
const char *const mcf_pattern_names[MCF_PATTERN_COUNT] = { "ring", "pair", "broadcast" };
const char *const mcf_tma_names[MCF_TMA_COUNT] = { "bulk", "tensor-2d" };
const char *const mcf_link_names[MCF_LINK_COUNT] = { "host", "peer", "collective", "network" };
const char *const mcf_direction_names[MCF_DIR_COUNT] = { "in", "out", "both" };
const char *const mcf_engine_names[MCF_ENGINE_COUNT] = { "copy", "sm" };
const char *const mcf_numa_names[MCF_NUMA_COUNT] = { "local", "remote" };
const char *const mcf_collective_names[MCF_COLL_COUNT] = { "allreduce", "allgather",
                                                           "reducescatter" };
const char *const mcf_scope_names[MCF_SCOPE_COUNT] = { "node", "job" };

int mcf_name_index(const char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

int mcf_dtype_size(enum mcf_dtype t)
{
    switch (t) {
    case MCF_FP64:
    case MCF_FP32X2: return 8;
    case MCF_FP32:
    case MCF_TF32:
    case MCF_FP16X2: return 4;
    case MCF_FP16:
    case MCF_FP16_ACC16:
    case MCF_BF16: return 2;
    default: return 1;
    }
}

/* The family's row decides; see family.c. */
double mcf_kernel_flops_per_unit(const struct mcf_kernel *k)
{
    return (unsigned)k->family < MCF_FAMILY_COUNT ? mcf_families[k->family].flops_per_unit(k) : 0.0;
}

double mcf_kernel_bytes_per_unit(const struct mcf_kernel *k)
{
    return (unsigned)k->family < MCF_FAMILY_COUNT ? mcf_families[k->family].bytes_per_unit(k) : 0.0;
}

int mcf_kernel_metrics(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out, int max)
{
    return (unsigned)k->family < MCF_FAMILY_COUNT
        ? mcf_families[k->family].metrics(k, caps, out, max)
        : 0;
}

void mcf_kernel_label(struct mcf_kernel *k)
{
    if ((unsigned)k->family < MCF_FAMILY_COUNT)
        mcf_families[k->family].label(k, k->label, sizeof k->label);
    else
        snprintf(k->label, sizeof k->label, "?");
}

/* The direction of a summary metric in the metrics of kernel k, 0 absent or shown. */
static int judged_in(const struct mcf_kernel *k, const char *name)
{
    struct mcf_metric m[MCF_MAX_METRICS];
    int n = mcf_kernel_metrics(k, ~0u, m, MCF_MAX_METRICS);
    for (int i = 0; i < n; i++)
        if (!m[i].detail && !strcmp(m[i].name, name)) return m[i].better;
    return 0;
}

int mcf_metric_judged(const char *name)
{
    /* each family at its defaults, then each enum key of it at each value
     * (a mode, a link, a sparsity: what decides which metrics a test has) */
    for (int f = 0; f < MCF_FAMILY_COUNT; f++) {
        struct mcf_kernel k;
        mcf_kernel_defaults((enum mcf_family)f, &k);
        int b = judged_in(&k, name);
        for (const struct mcf_key_use *u = mcf_families[f].keys; !b && u->key; u++) {
            const struct mcf_key *kd = mcf_kernel_key(u->key);
            for (int v = 0; !b && kd->type == MCF_V_ENUM && v < kd->nnames; v++) {
                struct mcf_kernel kv = k;
                mcf_key_set(kd, &kv, (uint64_t)v);
                b = judged_in(&kv, name);
            }
        }
        if (b) return b;
    }
    return 0;
}
