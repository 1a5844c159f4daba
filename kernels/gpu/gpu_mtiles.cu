/* The matrix-core paths' shared pieces (gpu_mtiles.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h" /* mcf_kernel_operands */
#include "gpu_mtiles.h"
#include "sparsity.h"

extern "C" double mcf_operand_value(enum mcf_dtype t, enum mcf_inputs in, enum mcf_fp8_kind fp8,
                                    uint64_t *rng)
{
    if (in == MCF_INPUTS_ZERO) return 0.0;
    if (in == MCF_INPUTS_EXACT)
        return mcf_rng_eighths(rng) / 8.0; /* every partial sum exact in every type */
    if (t == MCF_INT8) return ((int)(mcf_rng(rng) % 255) - 127) / 8.0;
    return mcf_decode(t, mcf_encode(t, mcf_rng_normal(rng), fp8), fp8);
}

/* One rounding of the type's accumulator (reference.h): fp32 accumulators
 * may truncate after aligning (NVIDIA's tensor cores); Hopper's FP8
 * accumulation keeps about 14 bits (DeepSeek-V3 report, 2024: 2^-12 allows
 * twice that); fp16 accumulators truncate at 11 bits; int32 never rounds. */
static double accumulator_unit(enum mcf_dtype t)
{
    switch (t) {
    case MCF_FP64: return MCF_UNIT_FP64;
    case MCF_FP16_ACC16: return MCF_UNIT_FP16_TC;
    case MCF_FP8_E4M3:
    case MCF_FP8_E5M2: return MCF_UNIT_FP8_TC;
    case MCF_INT8: return 0.0;
    default: return MCF_UNIT_FP32_TC;
    }
}

int mtile_encode(enum mcf_dtype t, const double *v, int count, int negate, enum mcf_fp8_kind fp8,
                 uint8_t **out, struct mcf_err *e)
{
    int bytes = mcf_operand_bits(t) / 8;
    uint8_t *buf = NULL;
    MCF_ALLOC(e, buf, (size_t)count * bytes);
    for (int i = 0; i < count; i++) {
        uint64_t bits = mcf_encode(t, negate ? -v[i] : v[i], fp8);
        memcpy(buf + (size_t)i * bytes, &bits, (size_t)bytes); /* little-endian: the low bytes */
    }
    *out = buf;
    return MCF_OK;
fail:
    return e->rc;
}

int mtiles_make(struct mtiles *t, int m, int n, int k, const struct mcf_kernel *kern,
                enum mcf_fp8_kind fp8, struct mcf_err *e)
{
    uint64_t rng = kern->seed;
    enum mcf_dtype ta, tb;
    mcf_kernel_operands(kern, &ta, &tb);
    /* int8 multiplies j, not j/8: the same product scaled by 64 */
    long double scale = kern->dtype == MCF_INT8 ? 64.0L : 1.0L;
    memset(t, 0, sizeof *t);
    t->m = m;
    t->n = n;
    t->k = k;
    t->unit = kern->inputs == MCF_INPUTS_RANDOM ? accumulator_unit(kern->dtype) : 0.0;
    MCF_ALLOC(e, t->a, m * k);
    MCF_ALLOC(e, t->b, k * n);
    MCF_ALLOC(e, t->ref, m * n);
    MCF_ALLOC(e, t->abs_sum, m * n);
    for (int i = 0; i < m * k; i++) t->a[i] = mcf_operand_value(ta, kern->inputs, fp8, &rng);
    for (int i = 0; i < k * n; i++) t->b[i] = mcf_operand_value(tb, kern->inputs, fp8, &rng);
    if (kern->sparsity == MCF_SPARSITY_2_4) {
        if (k % 4)
            MCF_FAIL(e, MCF_EUNSUPPORTED, "2:4 sparsity needs k a multiple of 4 (k = %d)", k);
        MCF_ALLOC(e, t->ac, m * k / 2);
        MCF_ALLOC(e, t->idx, m * k / 4);
        mcf_prune_24(t->a, m, k, &rng, t->ac, t->idx);
    }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            long double s = 0, sa = 0;
            for (int p = 0; p < k; p++) {
                long double q = (long double)t->a[i * k + p] * t->b[p * n + j];
                s += q;
                sa += fabsl(q);
            }
            t->ref[i * n + j] = (double)(s * scale);
            t->abs_sum[i * n + j] = (double)(sa * scale);
        }
    return MCF_OK;
fail:
    mtiles_free(t);
    return e->rc;
}

void mtiles_free(struct mtiles *t)
{
    free(t->a);
    free(t->b);
    free(t->ref);
    free(t->abs_sum);
    free(t->ac);
    free(t->idx);
    t->a = t->b = t->ref = t->abs_sum = t->ac = NULL;
    t->idx = NULL;
}

int mcheck_tiles(const double *out, size_t count, const struct mtiles *t, uint64_t steps,
                 const char *what, int inject_fault, struct mcf_err *e)
{
    struct mcf_chain chain = { steps, t->k, t->unit, 0.0 };
    return mcf_check_tiles(out, count, t->m, t->n, t->ref, t->abs_sum, &chain, inject_fault, what,
                           e);
}

int mtile_upload(enum mcf_dtype t, const double *v, int count, int negate, enum mcf_fp8_kind fp8,
                 uint8_t **dev, struct mcf_err *e)
{
    uint8_t *host = NULL;
    size_t bytes = (size_t)count * (mcf_operand_bits(t) / 8);
    MCF_TRY(mtile_encode(t, v, count, negate, fp8, &host, e));
    GPU_TRY(e, gpuMalloc((void **)dev, bytes));
    GPU_TRY(e, gpuMemcpy(*dev, host, bytes, gpuMemcpyHostToDevice));
    free(host);
    return MCF_OK;
fail:
    free(host);
    return e->rc;
}

int mbuffers_make(struct mbuffers *b, int m, int n, int k, const struct mcf_kernel *kern,
                  enum mcf_fp8_kind fp8, size_t out_bytes, struct mcf_err *e)
{
    enum mcf_dtype ta, tb;
    mcf_kernel_operands(kern, &ta, &tb);
    memset(b, 0, sizeof *b);
    MCF_TRY(mtiles_make(&b->tiles, m, n, k, kern, fp8, e));
    if (b->tiles.ac) {
        MCF_TRY(mtile_upload(ta, b->tiles.ac, m * k / 2, 0, fp8, &b->dA, e));
        GPU_TRY(e, gpuMalloc((void **)&b->dmeta, (size_t)m * k / 4));
        GPU_TRY(e, gpuMemcpy(b->dmeta, b->tiles.idx, (size_t)m * k / 4, gpuMemcpyHostToDevice));
    } else {
        MCF_TRY(mtile_upload(ta, b->tiles.a, m * k, 0, fp8, &b->dA, e));
    }
    MCF_TRY(mtile_upload(tb, b->tiles.b, k * n, 0, fp8, &b->dB, e));
    MCF_TRY(mtile_upload(tb, b->tiles.b, k * n, 1, fp8, &b->dNB, e));
    GPU_TRY(e, gpuMalloc(&b->dout, out_bytes));
    GPU_TRY(e, gpuMalloc((void **)&b->clk, sizeof *b->clk));
    return MCF_OK;
fail:
    mbuffers_free(b);
    return e->rc;
}

void mbuffers_free(struct mbuffers *b)
{
    if (b->dA) GPU_RELEASE(gpuFree(b->dA));
    if (b->dB) GPU_RELEASE(gpuFree(b->dB));
    if (b->dNB) GPU_RELEASE(gpuFree(b->dNB));
    if (b->dmeta) GPU_RELEASE(gpuFree(b->dmeta));
    if (b->dout) GPU_RELEASE(gpuFree(b->dout));
    if (b->clk) GPU_RELEASE(gpuFree(b->clk));
    mtiles_free(&b->tiles);
    memset(b, 0, sizeof *b);
}

void msample_fill(struct mcf_sample *smp, const struct gpu_state *s, double per_cu_cycle,
                  const struct gpu_clock *clk, double per_chain, double chains)
{
    smp->units = per_chain * chains;
    smp->clock_mhz = gpu_clock_mhz(clk);
    smp->cycles = (double)(clk->c1 - clk->c0) / per_chain;
    smp->peak_gflops = per_cu_cycle * s->sms * smp->clock_mhz * 1e-3;
}

int mverify_device(const void *dev, size_t count, int out_bytes,
                   double (*decode)(const void *, size_t), const struct mtiles *t, uint64_t steps,
                   const char *what, int inject_fault, struct mcf_err *e)
{
    size_t n = count * t->m * t->n;
    void *raw = malloc(n * out_bytes);
    double *out = (double *)malloc(n * sizeof(double));
    if (!raw || !out) MCF_FAIL(e, MCF_ERUNTIME, "out of host memory");
    GPU_TRY(e, gpuMemcpy(raw, dev, n * out_bytes, gpuMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) out[i] = decode(raw, i);
    MCF_TRY(mcheck_tiles(out, count, t, steps, what, inject_fault, e));
    free(raw);
    free(out);
    return MCF_OK;
fail:
    free(raw);
    free(out);
    return e->rc;
}

double mdecode_f64(const void *p, size_t i)
{
    return ((const double *)p)[i];
}
double mdecode_f32(const void *p, size_t i)
{
    return ((const float *)p)[i];
}
double mdecode_s32(const void *p, size_t i)
{
    return ((const int *)p)[i];
}
/* binary16 to double in plain arithmetic */
double mdecode_f16(const void *p, size_t i)
{
    uint16_t h = ((const uint16_t *)p)[i];
    int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v = exp == 0 ? ldexp(mant, -24)
        : exp == 31     ? (mant ? NAN : INFINITY)
                        : ldexp(1024 + mant, exp - 25);
    return h & 0x8000 ? -v : v;
}
