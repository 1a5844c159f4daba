/* The HIP matrix-core family: one MFMA instruction per kernel instantiation
 * (mfma_ops.h), issued by every wavefront into 4 independent accumulators
 * (throughput) or one (latency). Setup, timing, verification and recording
 * are the shared warp-level path's (kernels/gpu/gpu_mrun.cu); only the
 * kernel, the choice of instruction and the peak table are AMD's. */
#include <stdio.h>
#include <string.h>

#include "family.h" /* mcf_kernel_operands */
#include "gpu_mrun.h"
#include "mfma_insn.h"
#include "mfma_ops.h"

/* Sparse instructions (T::SPARSE): A is the compressed A and meta the kept
 * pairs (gpu_mtiles.h's dA and dmeta); NULL meta for dense ones. */
template <class T, int ACC>
__global__ void __launch_bounds__(512)
    k_mfma(const uint8_t *A, const uint8_t *meta, const uint8_t *B, const uint8_t *NB,
           typename T::cout *out, long long half, struct gpu_clock *clk, unsigned long long *span)
{
    const int lane = threadIdx.x % 64;
    const size_t wave = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 64;
    const typename T::opa a = load_a<T>(A, lane, 0);
    const typename T::opb b = load_b<T>(B, lane, 0);
    const typename T::opb nb = load_b<T>(NB, lane, 0);
    const int idx = load_index<T>(meta, lane, 0);
    typename T::acc acc[ACC];
#pragma unroll
    for (int j = 0; j < ACC; j++) acc[j] = (typename T::acc)(0);
    const bool stamps = wave == 0 && lane == 0;
    if (stamps) gpu_clock_start(clk);
    if (span && threadIdx.x == 0) atomicMin(&span[0], gpu_globaltimer()); /* the streams family */
        /* not unrolled: tests/hip_isa.sh counts 2 x ACC instructions per iteration */
#pragma nounroll
    for (long long i = 0; i < half; i++) {
#pragma unroll
        for (int j = 0; j < ACC; j++) acc[j] = T::mma(a, b, acc[j], idx);
#pragma unroll
        for (int j = 0; j < ACC; j++) acc[j] = T::mma(a, nb, acc[j], idx);
    }
#pragma unroll
    for (int j = 0; j < ACC; j++) acc[j] = T::mma(a, b, acc[j], idx);
    if (stamps) gpu_clock_stop(clk);
    if (span) {
        __syncthreads();
        if (threadIdx.x == 0) atomicMax(&span[1], gpu_globaltimer());
    }
    const mfma_layout L = layout_of<T>();
#pragma unroll
    for (int j = 0; j < ACC; j++)
#pragma unroll
        for (int r = 0; r < T::ITEMS; r++) {
            int row, col, blk;
            mfma_layout_result(L, lane, r, &row, &col, &blk);
            typename T::cout *tile =
                out + ((wave * ACC + j) * T::BLK + blk) * (size_t)(T::M * T::N);
            tile[row * T::N + col] = acc_item(acc[j], r);
        }
}

template <class T> static void launch_mfma(struct mrun *r)
{
    typedef typename T::cout C;
    if (r->acc == 1)
        k_mfma<T, 1><<<r->blocks, r->threads, 0, r->stream>>>(
            r->b.dA, r->b.dmeta, r->b.dB, r->b.dNB, (C *)r->b.dout, r->half, r->b.clk, r->span);
    else
        k_mfma<T, 4><<<r->blocks, r->threads, 0, r->stream>>>(
            r->b.dA, r->b.dmeta, r->b.dB, r->b.dNB, (C *)r->b.dout, r->half, r->b.clk, r->span);
}

/* CDNA generation of the open device from its gfx target; 0: not CDNA2/3 */
static int cdna_generation(const struct gpu_state *s)
{
    return mcf_mfma_generation(s->prop.gcnArchName);
}

/* The instruction's AMD mnemonic and its own peak (mfma_list.h, checked
 * against AMD's calculator): on CDNA3 the older multi-block FP16/BF16 and
 * INT8 shapes run at half or a quarter of the type's peak, so a fraction of
 * the type's would read them as slow GPUs; the sparse ones run at twice it,
 * dense-equivalent (the logical 2*m*n*k per instruction). */
template <class T>
static int bind(struct mrun *r, enum mcf_mfma_id id, double (*decode)(const void *, size_t),
                struct mcf_err *e)
{
    const struct mcf_mfma_insn *in = &mcf_mfma_insns[id];
    int gen = cdna_generation(r->s);
    if ((r->k.sparsity == MCF_SPARSITY_2_4) != (T::SPARSE == 1))
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "internal: %s bound for a %s test",
                           in->name, mcf_sparsity_names[r->k.sparsity]);
    if (!((gen == 2 && T::ON_CDNA2) || (gen == 3 && T::ON_CDNA3)))
        return mcf_err_set(
            e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "%s does not exist on %s (CDNA%d)",
            in->mnemonic[0][0] ? in->mnemonic[0] : in->mnemonic[1], r->s->prop.gcnArchName, gen);
    r->m = T::M;
    r->n = T::N;
    r->kk = T::K;
    r->blk = T::BLK;
    r->ta = in->ta;
    r->tb = in->tb;
    r->out_bytes = (int)sizeof(typename T::cout);
    r->launch = launch_mfma<T>;
    r->decode = decode;
    r->fp8 = MCF_FP8_FNUZ;
    r->default_warps = 8; /* two wavefronts per SIMD: four matrix cores per CU, each fed by two */
    snprintf(r->insn, sizeof r->insn, "%s", in->mnemonic[gen - 2]);
    r->peak_per_cu_cycle = in->ops_per_cu_cycle[gen - 2];
    return MCF_OK;
}

int gpu_mrun_bind(struct mrun *r, const struct mcf_kernel *k, struct mcf_err *e)
{
    const int *sh = k->shape;
    enum mcf_dtype ta, tb;
    mcf_kernel_operands(k, &ta, &tb);
    int mixed = ta != tb; /* the deck allows it for FP8 pairs only */
#define IS(m, n, kk) (sh[0] == (m) && sh[1] == (n) && sh[2] == (kk))
#define BIND(T, dec) return bind<T>(r, MCF_MFMA_##T, dec, e)
    if (!cdna_generation(r->s))
        return mcf_err_set(
            e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
            "MFMA kernels are built for CDNA2 and CDNA3 (gfx90a, gfx94x); this is %s",
            r->s->prop.gcnArchName);
    if (k->sparsity == MCF_SPARSITY_2_4) { /* k is the logical k */
        switch (k->dtype) {
        case MCF_FP16:
            if (IS(16, 16, 32)) BIND(smfmac_f16_16x16x32, mdecode_f32);
            if (IS(32, 32, 16)) BIND(smfmac_f16_32x32x16, mdecode_f32);
            break;
        case MCF_BF16:
            if (IS(16, 16, 32)) BIND(smfmac_bf16_16x16x32, mdecode_f32);
            if (IS(32, 32, 16)) BIND(smfmac_bf16_32x32x16, mdecode_f32);
            break;
        case MCF_INT8:
            if (IS(16, 16, 64)) BIND(smfmac_i8_16x16x64, mdecode_s32);
            if (IS(32, 32, 32)) BIND(smfmac_i8_32x32x32, mdecode_s32);
            break;
        case MCF_FP8_E4M3:
            if (IS(16, 16, 64) && !mixed) BIND(smfmac_fp8_fp8_16x16x64, mdecode_f32);
            if (IS(32, 32, 32) && !mixed) BIND(smfmac_fp8_fp8_32x32x32, mdecode_f32);
            if (IS(16, 16, 64)) BIND(smfmac_fp8_bf8_16x16x64, mdecode_f32);
            if (IS(32, 32, 32)) BIND(smfmac_fp8_bf8_32x32x32, mdecode_f32);
            break;
        case MCF_FP8_E5M2:
            if (IS(16, 16, 64) && !mixed) BIND(smfmac_bf8_bf8_16x16x64, mdecode_f32);
            if (IS(32, 32, 32) && !mixed) BIND(smfmac_bf8_bf8_32x32x32, mdecode_f32);
            if (IS(16, 16, 64)) BIND(smfmac_bf8_fp8_16x16x64, mdecode_f32);
            if (IS(32, 32, 32)) BIND(smfmac_bf8_fp8_32x32x32, mdecode_f32);
            break;
        default: break;
        }
        return mcf_err_set(
            e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
            "no 2:4 sparse MFMA (smfmac) for %s %dx%dx%d on %s: CDNA3 has fp16 and bf16 16x16x32 "
            "and 32x32x16, int8 and fp8 16x16x64 and 32x32x32 (k the logical k)",
            mcf_dtype_names[k->dtype], sh[0], sh[1], sh[2], r->s->prop.gcnArchName);
    }
    switch (k->dtype) {
    case MCF_FP64:
        if (IS(16, 16, 4)) BIND(mfma_f64_16x16x4, mdecode_f64);
        if (IS(4, 4, 4)) BIND(mfma_f64_4x4x4, mdecode_f64);
        break;
    case MCF_FP32:
        if (IS(32, 32, 2)) BIND(mfma_f32_32x32x2, mdecode_f32);
        if (IS(16, 16, 4)) BIND(mfma_f32_16x16x4, mdecode_f32);
        if (IS(32, 32, 1)) BIND(mfma_f32_32x32x1, mdecode_f32);
        if (IS(16, 16, 1)) BIND(mfma_f32_16x16x1, mdecode_f32);
        if (IS(4, 4, 1)) BIND(mfma_f32_4x4x1, mdecode_f32);
        break;
    case MCF_FP16:
        if (IS(32, 32, 8)) BIND(mfma_f16_32x32x8, mdecode_f32);
        if (IS(16, 16, 16)) BIND(mfma_f16_16x16x16, mdecode_f32);
        if (IS(32, 32, 4)) BIND(mfma_f16_32x32x4, mdecode_f32);
        if (IS(16, 16, 4)) BIND(mfma_f16_16x16x4, mdecode_f32);
        if (IS(4, 4, 4)) BIND(mfma_f16_4x4x4, mdecode_f32);
        break;
    case MCF_BF16:
        if (IS(32, 32, 8)) BIND(mfma_bf16_32x32x8, mdecode_f32);
        if (IS(16, 16, 16)) BIND(mfma_bf16_16x16x16, mdecode_f32);
        if (IS(32, 32, 4)) BIND(mfma_bf16_32x32x4, mdecode_f32);
        if (IS(16, 16, 4)) BIND(mfma_bf16_16x16x4, mdecode_f32);
        if (IS(4, 4, 4)) BIND(mfma_bf16_4x4x4, mdecode_f32);
        break;
    case MCF_INT8:
        if (IS(32, 32, 8)) BIND(mfma_i8_32x32x8, mdecode_s32);
        if (IS(16, 16, 16)) BIND(mfma_i8_16x16x16, mdecode_s32);
        if (IS(32, 32, 4)) BIND(mfma_i8_32x32x4, mdecode_s32);
        if (IS(16, 16, 4)) BIND(mfma_i8_16x16x4, mdecode_s32);
        if (IS(4, 4, 4)) BIND(mfma_i8_4x4x4, mdecode_s32);
        if (IS(32, 32, 16)) BIND(mfma_i8_32x32x16, mdecode_s32);
        if (IS(16, 16, 32)) BIND(mfma_i8_16x16x32, mdecode_s32);
        break;
    case MCF_FP8_E4M3: /* fp8 is E4M3, bf8 E5M2; A's format first */
        if (IS(16, 16, 32) && !mixed) BIND(mfma_fp8_fp8_16x16x32, mdecode_f32);
        if (IS(32, 32, 16) && !mixed) BIND(mfma_fp8_fp8_32x32x16, mdecode_f32);
        if (IS(16, 16, 32)) BIND(mfma_fp8_bf8_16x16x32, mdecode_f32);
        if (IS(32, 32, 16)) BIND(mfma_fp8_bf8_32x32x16, mdecode_f32);
        break;
    case MCF_FP8_E5M2:
        if (IS(16, 16, 32) && !mixed) BIND(mfma_bf8_bf8_16x16x32, mdecode_f32);
        if (IS(32, 32, 16) && !mixed) BIND(mfma_bf8_bf8_32x32x16, mdecode_f32);
        if (IS(16, 16, 32)) BIND(mfma_bf8_fp8_16x16x32, mdecode_f32);
        if (IS(32, 32, 16)) BIND(mfma_bf8_fp8_32x32x16, mdecode_f32);
        break;
    default: break;
    }
#undef BIND
#undef IS
    return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                       "no MFMA instruction for %s %dx%dx%d on %s%s", mcf_dtype_names[k->dtype],
                       sh[0], sh[1], sh[2], r->s->prop.gcnArchName,
                       k->dtype == MCF_TF32 ? " (CDNA has no TF32 MFMA in this build)" : "");
}

/* Dense matrix FLOP per CU per cycle: AMD CDNA2 (MI250X: 95.7 TFLOP/s FP64 and
 * 383 FP16 at 1.7 GHz on 220 CUs) and CDNA3 (MI300A: 122.6 FP64, 980.6 FP16,
 * 1961 FP8 and INT8 at 2.1 GHz on 228 CUs) white papers and data sheets. The
 * sparse (smfmac) instructions carry their own figure, twice the type's,
 * dense-equivalent: MI300A's data sheet quotes 1961.2 FP16/BF16 and 3922.3
 * FP8/INT8 "with structured sparsity" (mfma_list.h, docs/amd.md). */
double gpu_matrix_peak(const struct gpu_state *s, enum mcf_dtype t)
{
    int gen = cdna_generation(s);
    if (!gen) return 0.0;
    switch (t) {
    case MCF_FP64:
    case MCF_FP32: return 256;
    case MCF_FP16:
    case MCF_BF16: return gen == 2 ? 1024 : 2048;
    case MCF_INT8: return gen == 2 ? 1024 : 4096;
    case MCF_FP8_E4M3:
    case MCF_FP8_E5M2: return gen == 3 ? 4096 : 0.0;
    default: return 0.0;
    }
}

static int matrix_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    if (k->path != MCF_PATH_AUTO && k->path != MCF_PATH_MFMA)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "%s is NVIDIA's: this is an AMD GPU", mcf_path_names[k->path]);
    return gpu_mrun_ops.setup(state, k, ks, e);
}

static int matrix_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    return gpu_mrun_ops.run(ks, s, e);
}
static int matrix_verify(void *ks, struct mcf_err *e)
{
    return gpu_mrun_ops.verify(ks, e);
}
static void matrix_teardown(void *ks)
{
    gpu_mrun_ops.teardown(ks);
}

GPU_HOST_OPS(gpu_matrix_ops, matrix_setup, matrix_run, matrix_verify, matrix_teardown);
