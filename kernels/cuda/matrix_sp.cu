/* The CUDA matrix family's 2:4 sparse warp-level path: mma.sp with ordered
 * metadata (mma_sp_traits.cuh), run like the dense mma.sync path (matrix.cu:
 * 4 independent accumulators per warp, B and -B alternately, one more B, so
 * each ends near A*B), with A the pruned operand: its kept values (dA) and a
 * metadata register per lane built from each chunk's kept pair (dmeta). The
 * reference multiplies the pruned A (gpu_mtiles.cu). */
#include <stdio.h>

#include "gpu_mrun.h"
#include "matrix.h"
#include "mma_chain.cuh"
#include "mma_sp_traits.cuh"

template <int BITS> __device__ inline uint32_t sp_bits(const uint8_t *p, size_t i)
{
    if (BITS == 16) return ((const uint16_t *)p)[i];
    return p[i];
}

/* A register of the kept A (is_a, M x KC) or of B (K x N). */
template <class T>
__device__ inline uint32_t sp_gather(const uint8_t *tile, int lane, int r, bool is_a)
{
    uint32_t v = 0;
#pragma unroll
    for (int h = 0; h < T::SUB; h++) {
        int i, j;
        if (is_a)
            T::a(lane, r, h, &i, &j);
        else
            T::b(lane, r, h, &i, &j);
        size_t idx = is_a ? (size_t)i * T::KC + j : (size_t)i * T::N + j;
        v |= sp_bits<T::AB_BITS>(tile, idx) << (h * T::AB_BITS);
    }
    return v;
}

/* The lane's metadata register: each nibble the kept pair of its chunk. */
template <class T> __device__ inline uint32_t sp_meta(const uint8_t *idx, int lane)
{
    uint32_t e = 0;
#pragma unroll
    for (int p = 0; p < 8; p++) {
        int row, chunk;
        if (sp_meta_map::meta(lane, p, T::AB_BITS, &row, &chunk))
            e |= (uint32_t)(idx[row * (T::K / 4) + chunk] & 0xf) << (4 * p);
    }
    return e;
}

/* FP8 on sm_90: widened to fp16 HMMA.SP by ptxas; the host runs it with one
 * accumulator (bind below), and 4 would spill, so that kernel is not built */
template <class T> struct sp_widened {
    enum { ON_SM90 = 0 };
};
template <> struct sp_widened<mma_sp_e4m3> {
    enum { ON_SM90 = 1 };
};
template <> struct sp_widened<mma_sp_e5m2> {
    enum { ON_SM90 = 1 };
};

template <class T, int ACC>
__global__ void __launch_bounds__(256)
    k_mma_sp(const uint8_t *A, const uint8_t *meta, const uint8_t *B, const uint8_t *NB,
             typename T::cout *out, long long half, struct gpu_clock *clk, unsigned long long *span)
{
    typedef typename T::creg creg;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (ACC > 1 && sp_widened<T>::ON_SM90) {
        __trap();
        return;
    }
#endif
    const int lane = threadIdx.x % 32;
    const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
    uint32_t a[T::NA], b[T::NB], nb[T::NB];
#pragma unroll
    for (int r = 0; r < T::NA; r++) a[r] = sp_gather<T>(A, lane, r, true);
#pragma unroll
    for (int r = 0; r < T::NB; r++) {
        b[r] = sp_gather<T>(B, lane, r, false);
        nb[r] = sp_gather<T>(NB, lane, r, false);
    }
    const uint32_t e = sp_meta<T>(meta, lane);
    creg acc[ACC][T::NC];
    mma_chain<T, ACC>(acc, half, warp == 0 && lane == 0, clk, span,
                      [&](creg *c, bool negated) { T::mma(c, a, negated ? nb : b, e); });
    mma_store<T, ACC>(acc, out, warp, lane);
}

template <class T> static void launch_sp(struct mrun *r)
{
    typedef typename T::cout C;
    if (r->acc == 1)
        k_mma_sp<T, 1><<<r->blocks, r->threads, 0, r->stream>>>(
            r->b.dA, r->b.dmeta, r->b.dB, r->b.dNB, (C *)r->b.dout, r->half, r->b.clk, r->span);
    else
        k_mma_sp<T, 4><<<r->blocks, r->threads, 0, r->stream>>>(
            r->b.dA, r->b.dmeta, r->b.dB, r->b.dNB, (C *)r->b.dout, r->half, r->b.clk, r->span);
}

template <class T>
static void bind_sp(struct mrun *r, const struct gpu_state *s, enum mcf_dtype t,
                    double (*decode)(const void *, size_t))
{
    r->m = T::M;
    r->n = T::N;
    r->kk = T::K;
    r->ta = r->tb = t;
    r->default_warps = 16;
    r->fp8 = MCF_FP8_OCP;
    snprintf(r->insn, sizeof r->insn, "mma.sp::ordered_metadata");
    r->out_bytes = (int)sizeof(typename T::cout);
    r->launch = launch_sp<T>;
    r->decode = decode;
    /* the sparse peak counts dense-equivalent work: twice the dense rate */
    r->peak_per_cu_cycle =
        gpu_matrix_peak(s, t) > 0 ? 2.0 * gpu_matrix_peak(s, t) : -1.0; /* -1: unknown */
}

int cuda_mrun_bind_sparse(struct mrun *r, const struct mcf_kernel *k, struct mcf_err *e)
{
    const int *sh = k->shape;
    int cc = r->s->prop.major * 10 + r->s->prop.minor;
#define IS(m, n, kk) (sh[0] == (m) && sh[1] == (n) && sh[2] == (kk))
    switch (k->dtype) {
    case MCF_FP16:
        if (IS(16, 8, 32)) {
            bind_sp<mma_sp_f16>(r, r->s, k->dtype, mdecode_f32);
            return MCF_OK;
        }
        break;
    case MCF_BF16:
        if (IS(16, 8, 32)) {
            bind_sp<mma_sp_bf16>(r, r->s, k->dtype, mdecode_f32);
            return MCF_OK;
        }
        break;
    case MCF_INT8:
        if (IS(16, 8, 64)) {
            bind_sp<mma_sp_s8>(r, r->s, k->dtype, mdecode_s32);
            return MCF_OK;
        }
        break;
    case MCF_FP8_E4M3:
    case MCF_FP8_E5M2:
        if (cc < 89)
            return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                               "FP8 mma.sp needs sm_89 or later (this is sm_%d)", cc);
        if (IS(16, 8, 64)) {
            if (k->dtype == MCF_FP8_E4M3)
                bind_sp<mma_sp_e4m3>(r, r->s, k->dtype, mdecode_f32);
            else
                bind_sp<mma_sp_e5m2>(r, r->s, k->dtype, mdecode_f32);
            /* sm_90's SASS has no FP8 mma.sp: ptxas widens the operands to
             * fp16 (F2FP.F16.E4M3.UNPACK) for HMMA.SP, and 4 chains spill
             * registers (LDL/STL, tests/cuda_sass.sh); 1 chain in twice the
             * warps does not */
            if (cc >= 90) {
                r->one_acc = 1;
                r->default_warps = 32;
            }
            return MCF_OK;
        }
        break;
    default: break;
    }
#undef IS
    return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                       "no 2:4 sparse mma.sp instruction for %s %dx%dx%d (fp16, bf16: 16x8x32; "
                       "int8, fp8: 16x8x64)",
                       mcf_dtype_names[k->dtype], sh[0], sh[1], sh[2]);
}
