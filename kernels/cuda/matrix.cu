/* The CUDA matrix-core family: mma.sync for every type (this file) and wgmma
 * on Hopper (wgmma.cu); the host side of the mma.sync path is shared with AMD
 * (kernels/gpu/gpu_mrun.cu). Throughput: every warp keeps 4 independent
 * accumulators and issues `iterations` MMAs into each, alternating B and -B,
 * so each accumulator ends near A*B (an odd count; exactly A*B with exact
 * inputs, within the chain's bound with full entropy: reference.h). Latency: one warp,
 * one accumulator, the chain timed with clock64. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h" /* mcf_kernel_operands */
#include "gpu_mrun.h"
#include "matrix.h"
#include "mma_chain.cuh"
#include "mma_traits.cuh"

/* Dense FLOP per SM per cycle of the tensor cores (NVIDIA architecture
 * whitepapers: A100 sm_80, H100 sm_90). */
double gpu_matrix_peak(const struct gpu_state *s, enum mcf_dtype t)
{
    int cc = s->prop.major * 10 + s->prop.minor;
    double scale;
    if (cc == 80)
        scale = 1.0; /* A100: 19.5 / 156 / 312 / 624 dense TFLOP/s at 1410 MHz, 108 SMs */
    else if (cc == 90)
        scale = 2.0; /* H100: twice A100 per SM per cycle, and FP8 */
    else
        return 0.0;
    switch (t) {
    case MCF_FP64: return 128 * scale;
    case MCF_TF32: return 1024 * scale;
    case MCF_FP16:
    case MCF_FP16_ACC16:
    case MCF_BF16: return 2048 * scale;
    case MCF_INT8: return 4096 * scale;
    case MCF_FP8_E4M3:
    case MCF_FP8_E5M2: return cc == 90 ? 8192 : 0.0;
    default: return 0.0;
    }
}

/* ------------------------------------------------------------ mma.sync */

template <int BITS> __device__ inline unsigned long long load_bits(const uint8_t *p, size_t i)
{
    if (BITS == 64) return ((const unsigned long long *)p)[i];
    if (BITS == 32) return ((const uint32_t *)p)[i];
    if (BITS == 16) return ((const uint16_t *)p)[i];
    return p[i];
}

template <class R> __device__ inline R from_bits(unsigned long long v);
template <> __device__ inline double from_bits<double>(unsigned long long v)
{
    return __longlong_as_double((long long)v);
}
template <> __device__ inline uint32_t from_bits<uint32_t>(unsigned long long v)
{
    return (uint32_t)v;
}

/* A register of A (is_a) or B, assembled from the tile by the fragment map. */
template <class T, class R>
__device__ inline R gather(const uint8_t *tile, int lane, int r, bool is_a)
{
    unsigned long long v = 0;
#pragma unroll
    for (int h = 0; h < T::SUB; h++) {
        int i, j;
        if (is_a)
            T::a(lane, r, h, &i, &j);
        else
            T::b(lane, r, h, &i, &j);
        size_t idx = is_a ? (size_t)i * T::K + j : (size_t)i * T::N + j;
        v |= load_bits<T::AB_BITS>(tile, idx) << (h * T::AB_BITS);
    }
    return from_bits<R>(v);
}

template <class T, int ACC>
__global__ void __launch_bounds__(256)
    k_mma(const uint8_t *A, const uint8_t *B, const uint8_t *NB, typename T::cout *out,
          long long half, struct gpu_clock *clk, unsigned long long *span)
{
    typedef typename T::areg areg;
    typedef typename T::creg creg;
    const int lane = threadIdx.x % 32;
    const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
    areg a[T::NA], b[T::NB], nb[T::NB];
#pragma unroll
    for (int r = 0; r < T::NA; r++) a[r] = gather<T, areg>(A, lane, r, true);
#pragma unroll
    for (int r = 0; r < T::NB; r++) {
        b[r] = gather<T, areg>(B, lane, r, false);
        nb[r] = gather<T, areg>(NB, lane, r, false);
    }
    creg acc[ACC][T::NC];
    mma_chain<T, ACC>(acc, half, warp == 0 && lane == 0, clk, span,
                      [&](creg *c, bool negated) { T::mma(c, a, negated ? nb : b); });
    mma_store<T, ACC>(acc, out, warp, lane);
}

template <class T> static void launch_mma(struct mrun *r)
{
    typedef typename T::cout C;
    if (r->acc == 1)
        k_mma<T, 1><<<r->blocks, r->threads, 0, r->stream>>>(
            r->b.dA, r->b.dB, r->b.dNB, (C *)r->b.dout, r->half, r->b.clk, r->span);
    else
        k_mma<T, 4><<<r->blocks, r->threads, 0, r->stream>>>(
            r->b.dA, r->b.dB, r->b.dNB, (C *)r->b.dout, r->half, r->b.clk, r->span);
}

template <class T>
static void bind(struct mrun *r, enum mcf_dtype t, double (*decode)(const void *, size_t))
{
    r->m = T::M;
    r->n = T::N;
    r->kk = T::K;
    r->ta = r->tb = t; /* mma.sync multiplies one type by itself */
    r->default_warps = 16;
    r->fp8 = MCF_FP8_OCP;
    snprintf(r->insn, sizeof r->insn, "mma.sync");
    r->out_bytes = (int)sizeof(typename T::cout);
    r->launch = launch_mma<T>;
    r->decode = decode;
}

/* The mma.sync instruction for a type and shape; 0 when there is none. */
static int choose_mma(struct mrun *r, enum mcf_dtype t, const int *shape, int sm90)
{
#define IS(m, n, k) (shape[0] == (m) && shape[1] == (n) && shape[2] == (k))
    switch (t) {
    case MCF_FP64:
        if (IS(8, 8, 4)) {
            bind<mma_f64>(r, t, mdecode_f64);
            return 1;
        }
        if (IS(16, 8, 4) && sm90) {
            bind<mma_f64_16x8<4>>(r, t, mdecode_f64);
            return 1;
        }
        if (IS(16, 8, 8) && sm90) {
            bind<mma_f64_16x8<8>>(r, t, mdecode_f64);
            return 1;
        }
        if (IS(16, 8, 16) && sm90) {
            bind<mma_f64_16x8<16>>(r, t, mdecode_f64);
            return 1;
        }
        break;
    case MCF_TF32:
        if (IS(16, 8, 8)) {
            bind<mma_tf32>(r, t, mdecode_f32);
            return 1;
        }
        break;
    case MCF_FP16:
        if (IS(16, 8, 16)) {
            bind<mma_f16>(r, t, mdecode_f32);
            return 1;
        }
        break;
    case MCF_BF16:
        if (IS(16, 8, 16)) {
            bind<mma_bf16>(r, t, mdecode_f32);
            return 1;
        }
        break;
    case MCF_FP16_ACC16:
        if (IS(16, 8, 16)) {
            bind<mma_f16_acc16>(r, t, mdecode_f16);
            return 1;
        }
        break;
    case MCF_FP8_E4M3:
        if (IS(16, 8, 32)) {
            bind<mma_e4m3>(r, t, mdecode_f32);
            return 1;
        }
        break;
    case MCF_FP8_E5M2:
        if (IS(16, 8, 32)) {
            bind<mma_e5m2>(r, t, mdecode_f32);
            return 1;
        }
        break;
    case MCF_INT8:
        if (IS(16, 8, 32)) {
            bind<mma_s8>(r, t, mdecode_s32);
            return 1;
        }
        break;
    default: break;
    }
#undef IS
    return 0;
}

int gpu_mrun_bind(struct mrun *r, const struct mcf_kernel *k, struct mcf_err *e)
{
    struct gpu_state *s = r->s;
    int cc = s->prop.major * 10 + s->prop.minor;
    if (k->sparsity == MCF_SPARSITY_2_4) return cuda_mrun_bind_sparse(r, k, e);
    if ((k->dtype == MCF_FP8_E4M3 || k->dtype == MCF_FP8_E5M2) && cc < 89)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "FP8 mma needs sm_89 or later (this is sm_%d)", cc);
    if (!choose_mma(r, k->dtype, k->shape, cc >= 90))
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "no mma.sync instruction for %s %dx%dx%d", mcf_dtype_names[k->dtype],
                           k->shape[0], k->shape[1], k->shape[2]);
    return MCF_OK;
}

/* ------------------------------------------------------------ the family */

/* The matrix family picks its path at setup; the chosen path's kernel state
 * is wrapped with its ops, so run/verify/teardown go to the same path. */
struct path_run {
    const struct mcf_kernel_ops *ops;
    void *ks;
};

static int matrix_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    struct path_run *p = NULL;
    enum mcf_path path = k->path;
    if (path == MCF_PATH_AUTO) path = k->shape[0] == 64 ? MCF_PATH_WGMMA_SS : MCF_PATH_MMA;
    if (path == MCF_PATH_MFMA)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "MFMA is AMD's: this is an NVIDIA GPU");
    enum mcf_dtype ta, tb;
    mcf_kernel_operands(k, &ta, &tb);
    if (ta != tb && path == MCF_PATH_MMA)
        return mcf_err_set(
            e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
            "mixed FP8 operands (%s x %s) are built for wgmma (path wgmma-ss), not mma.sync",
            mcf_dtype_names[ta], mcf_dtype_names[tb]);
    if (k->sparsity == MCF_SPARSITY_2_4 && path == MCF_PATH_WGMMA_RS)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "2:4 sparse wgmma takes A from shared memory (path wgmma-ss or mma)");
    if ((path == MCF_PATH_WGMMA_SS || path == MCF_PATH_WGMMA_RS) && !cuda_wgmma_available(s))
        return mcf_err_set(
            e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
            "wgmma needs an sm_90 GPU and this binary's sm_90a code (this is sm_%d%d)",
            s->prop.major, s->prop.minor);
    MCF_ALLOC(e, p, 1);
    p->ops = path == MCF_PATH_MMA ? &gpu_mrun_ops : &cuda_wgmma_ops;
    {
        struct mcf_kernel kp = *k;
        kp.path = path;
        MCF_TRY(p->ops->setup(state, &kp, &p->ks, e));
    }
    *ks = p;
    return MCF_OK;
fail:
    free(p);
    return e->rc;
}

static int matrix_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    struct path_run *p = (struct path_run *)ks;
    return p->ops->run(p->ks, s, e);
}

static int matrix_verify(void *ks, struct mcf_err *e)
{
    struct path_run *p = (struct path_run *)ks;
    return p->ops->verify(p->ks, e);
}

static void matrix_teardown(void *ks)
{
    struct path_run *p = (struct path_run *)ks;
    p->ops->teardown(p->ks);
    free(p);
}

const struct mcf_kernel_ops gpu_matrix_ops = { matrix_setup, matrix_run, matrix_verify,
                                               matrix_teardown };
