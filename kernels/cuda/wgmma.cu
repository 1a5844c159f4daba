/* Hopper's warpgroup MMA (wgmma), built for sm_90a only: this file is
 * compiled with -gencode arch=compute_90a,code=sm_90a and nothing else, so
 * the kernels exist only where the instruction does.
 *
 * A (64 x K) and B (K x N), and -B, sit in shared memory in the canonical
 * K-major layout without swizzle: 8-row x 16-byte core matrices of 128
 * contiguous bytes, the two core matrices along K (32 bytes: K = 16 of a
 * 16-bit type, 8 of tf32, 32 of fp8 or s8) adjacent (leading byte offset
 * 128), the next 8 rows after them (stride byte offset 256). Each warpgroup
 * accumulates `iterations` wgmmas alternating B and -B (ends near A*B,
 * exactly with exact inputs: reference.h),
 * two per commit group, with one group left in flight (wait_group 1).
 *
 * 2:4 sparse (wgmma.mma_async.sp, A from shared memory): A's kept half is
 * 64 rows of 32 bytes, laid out as a dense A; B is 64 bytes deep along K
 * (K = 32 of a 16-bit type, 64 of an 8-bit one): four core matrices along
 * K (leading byte offset 128), the next 8 rows 512 bytes on. Each warp's
 * metadata register indexes its 16 rows as mma.sp's does (mma_sp_traits.cuh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include "family.h" /* mcf_kernel_operands */
#include "matrix.h"

#define WG_THREADS 128

#include "mma_sp_traits.cuh" /* sp_meta_map */

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WGMMA_COMPILED 1
#include "wgmma_ops.cuh"
#include "wgmma_sp_ops.cuh"
#else
#define WGMMA_COMPILED 0
#endif

/* The kernels' TYPE: a dtype, or one of these FP8 pairs (A's format x B's) */
enum { WG_E4M3_E5M2 = MCF_DTYPE_COUNT + 1, WG_E5M2_E4M3 };

/* Byte offset of (row, kbyte) of an operand in the canonical layout. */
static __host__ __device__ inline int core_offset(int row, int kbyte)
{
    return ((row / 8) * 2 + kbyte / 16) * 128 + (row % 8) * 16 + kbyte % 16;
}

/* The same for a 64-byte-deep operand (sparse B): four core matrices along K. */
static __host__ __device__ inline int core_offset64(int row, int kbyte)
{
    return ((row / 8) * 4 + kbyte / 16) * 128 + (row % 8) * 16 + kbyte % 16;
}

/* leading byte offset 128 (along K), stride byte offset sbo (the next 8 rows) */
static __device__ inline uint64_t smem_desc(const void *p, int sbo = 256)
{
    uint64_t addr = (uint64_t)__cvta_generic_to_shared(p);
    return ((addr & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32);
}

/* One wgmma of type TY, operand source RS, width N. */
#if WGMMA_COMPILED
#define WG_CASE(TY, N)                                                                             \
    if (n == N) {                                                                                  \
        if (rs)                                                                                    \
            wgmma_rs_##TY##_n##N(d, a, db);                                                        \
        else                                                                                       \
            wgmma_ss_##TY##_n##N(d, da, db);                                                       \
        return;                                                                                    \
    }
#define WG_CASE_SS(TY, N)                                                                          \
    if (n == N) {                                                                                  \
        wgmma_ss_##TY##_n##N(d, da, db);                                                           \
        return;                                                                                    \
    }
#define WG_ALL(M) M(8) M(16) M(32) M(64) M(128) M(256)
#define F16(N) WG_CASE(f16, N)
#define BF16(N) WG_CASE(bf16, N)
#define TF32(N) WG_CASE_SS(tf32, N)
#define E4M3(N) WG_CASE_SS(e4m3, N)
#define E5M2(N) WG_CASE_SS(e5m2, N)
#define S8(N) WG_CASE_SS(s8, N)
#define E4M3E5M2(N) WG_CASE_SS(e4m3e5m2, N)
#define E5M2E4M3(N) WG_CASE_SS(e5m2e4m3, N)
template <int TYPE, int NN>
static __device__ __forceinline__ void wg_op(void *dv, const uint32_t *a, uint64_t da, uint64_t db,
                                             bool rs)
{
    const int n = NN;
    if (TYPE == MCF_INT8) {
        int *d = (int *)dv;
        WG_ALL(S8)
    } else {
        float *d = (float *)dv;
        if (TYPE == MCF_FP16) {
            WG_ALL(F16)
        }
        if (TYPE == MCF_BF16) {
            WG_ALL(BF16)
        }
        if (TYPE == MCF_TF32) {
            WG_ALL(TF32)
        }
        if (TYPE == MCF_FP8_E4M3) {
            WG_ALL(E4M3)
        }
        if (TYPE == MCF_FP8_E5M2) {
            WG_ALL(E5M2)
        }
        if (TYPE == WG_E4M3_E5M2) {
            WG_ALL(E4M3E5M2)
        }
        if (TYPE == WG_E5M2_E4M3) {
            WG_ALL(E5M2E4M3)
        }
    }
}

#define WGS_ALL(TY)                                                                                \
    if (n == 64) {                                                                                 \
        wgmma_sp_##TY##_n64(d, da, db, e);                                                         \
        return;                                                                                    \
    }                                                                                              \
    if (n == 128) {                                                                                \
        wgmma_sp_##TY##_n128(d, da, db, e);                                                        \
        return;                                                                                    \
    }                                                                                              \
    if (n == 256) {                                                                                \
        wgmma_sp_##TY##_n256(d, da, db, e);                                                        \
        return;                                                                                    \
    }
template <int TYPE, int NN>
static __device__ __forceinline__ void wg_sp_op(void *dv, uint64_t da, uint64_t db, uint32_t e)
{
    const int n = NN;
    if (TYPE == MCF_INT8) {
        int *d = (int *)dv;
        WGS_ALL(s8)
    } else {
        float *d = (float *)dv;
        if (TYPE == MCF_FP16) {
            WGS_ALL(f16)
        }
        if (TYPE == MCF_BF16) {
            WGS_ALL(bf16)
        }
        if (TYPE == MCF_FP8_E4M3) {
            WGS_ALL(e4m3)
        }
        if (TYPE == MCF_FP8_E5M2) {
            WGS_ALL(e5m2)
        }
        if (TYPE == WG_E4M3_E5M2) {
            WGS_ALL(e4m3e5m2)
        }
        if (TYPE == WG_E5M2_E4M3) {
            WGS_ALL(e5m2e4m3)
        }
    }
}
#endif

#if WGMMA_COMPILED
/* The timed chain every warpgroup runs: `half` pairs (B, then -B) two per
 * commit group with one group left in flight, and one more B; thread 0 of
 * block 0 stamps the clocks. op(negated) issues one wgmma. */
template <class Op>
static __device__ inline void wg_chain(long long half, struct gpu_clock *clk, Op op)
{
    const bool stamps = blockIdx.x == 0 && threadIdx.x == 0;
    if (stamps) gpu_clock_start(clk);
    for (long long i = 0; i < half; i++) {
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        op(false);
        op(true);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    }
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    op(false);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    if (stamps) gpu_clock_stop(clk);
}

/* The block's 64 x N result from the accumulators: warp w holds rows 16w..16w+15 */
template <typename acc_t, int N> static __device__ inline void wg_store(const acc_t *d, void *out)
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    acc_t *tile = (acc_t *)out + (size_t)blockIdx.x * 64 * N;
#pragma unroll
    for (int j = 0; j < N / 8; j++)
#pragma unroll
        for (int r = 0; r < 4; r++) {
            int row = 16 * warp + lane / 4 + 8 * (r >> 1), col = 8 * j + 2 * (lane % 4) + (r & 1);
            tile[row * N + col] = d[4 * j + r];
        }
}
#endif

template <int TYPE, int N, bool RS>
__global__ void __launch_bounds__(WG_THREADS)
    k_wgmma(const uint8_t *A, const uint8_t *B, const uint8_t *NB, int es, void *out,
            long long half, struct gpu_clock *clk)
{
#if WGMMA_COMPILED
    typedef typename std::conditional<TYPE == MCF_INT8, int, float>::type acc_t;
    extern __shared__ __align__(128) uint8_t smem[];
    uint8_t *sA = smem, *sB = smem + 64 * 32, *sNB = sB + N * 32;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    /* A is row-major 64 x (32 bytes); B is row-major K x N elements of es bytes */
    for (int i = tid; i < 64 * 32; i += blockDim.x) sA[core_offset(i / 32, i % 32)] = A[i];
    for (int i = tid; i < N * 32; i += blockDim.x) {
        int nn = i / 32, kb = i % 32, src = ((kb / es) * N + nn) * es + kb % es;
        sB[core_offset(nn, kb)] = B[src];
        sNB[core_offset(nn, kb)] = NB[src];
    }
    /* generic-proxy stores must be visible to the tensor cores' async proxy */
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    uint64_t da = smem_desc(sA), db = smem_desc(sB), dnb = smem_desc(sNB);
    uint32_t a[4] = { 0, 0, 0, 0 };
    if (RS) { /* the m16n8k16 A fragment of this warp's 16 rows */
#pragma unroll
        for (int r = 0; r < 4; r++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int row = 16 * warp + lane / 4 + 8 * (r & 1),
                    col = 2 * (lane % 4) + h + 8 * (r >> 1);
                a[r] |= (uint32_t)((const uint16_t *)A)[row * 16 + col] << (16 * h);
            }
    }
    acc_t d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; i++) d[i] = 0;
    wg_chain(half, clk, [&](bool negated) { wg_op<TYPE, N>(d, a, da, negated ? dnb : db, RS); });
    wg_store<acc_t, N>(d, out);
#else
    (void)A;
    (void)B;
    (void)NB;
    (void)es;
    (void)out;
    (void)half;
    (void)clk;
#endif
}

template <int TYPE, int N>
__global__ void __launch_bounds__(WG_THREADS)
    k_wgmma_sp(const uint8_t *A, const uint8_t *meta, const uint8_t *B, const uint8_t *NB, int es,
               void *out, long long half, struct gpu_clock *clk)
{
#if WGMMA_COMPILED
    typedef typename std::conditional<TYPE == MCF_INT8, int, float>::type acc_t;
    extern __shared__ __align__(128) uint8_t smem[];
    uint8_t *sA = smem, *sB = smem + 64 * 32, *sNB = sB + N * 64;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int chunks = 64 / es / 4; /* chunks of 4 along the logical K */
    for (int i = tid; i < 64 * 32; i += blockDim.x) sA[core_offset(i / 32, i % 32)] = A[i];
    for (int i = tid; i < N * 64; i += blockDim.x) {
        int nn = i / 64, kb = i % 64, src = ((kb / es) * N + nn) * es + kb % es;
        sB[core_offset64(nn, kb)] = B[src];
        sNB[core_offset64(nn, kb)] = NB[src];
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    uint64_t da = smem_desc(sA), db = smem_desc(sB, 512), dnb = smem_desc(sNB, 512);
    uint32_t e = 0;
#pragma unroll
    for (int p = 0; p < 8; p++) {
        int row, chunk;
        if (sp_meta_map::meta(lane, p, 8 * es, &row, &chunk))
            e |= (uint32_t)(meta[(16 * warp + row) * chunks + chunk] & 0xf) << (4 * p);
    }
    acc_t d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; i++) d[i] = 0;
    wg_chain(half, clk, [&](bool negated) { wg_sp_op<TYPE, N>(d, da, negated ? dnb : db, e); });
    wg_store<acc_t, N>(d, out);
#else
    (void)A;
    (void)meta;
    (void)B;
    (void)NB;
    (void)es;
    (void)out;
    (void)half;
    (void)clk;
#endif
}

typedef void (*wg_sp_kernel_t)(const uint8_t *, const uint8_t *, const uint8_t *, const uint8_t *,
                               int, void *, long long, struct gpu_clock *);

template <int TYPE> static wg_sp_kernel_t pick_sp_n(int n)
{
    switch (n) {
    case 64: return k_wgmma_sp<TYPE, 64>;
    case 128: return k_wgmma_sp<TYPE, 128>;
    case 256: return k_wgmma_sp<TYPE, 256>;
    default: return NULL;
    }
}

/* the kernels' TYPE for operand types a x b; -1: no such instruction */
static int wg_type(enum mcf_dtype a, enum mcf_dtype b)
{
    if (a == b) return (int)a;
    if (a == MCF_FP8_E4M3 && b == MCF_FP8_E5M2) return WG_E4M3_E5M2;
    if (a == MCF_FP8_E5M2 && b == MCF_FP8_E4M3) return WG_E5M2_E4M3;
    return -1;
}

static wg_sp_kernel_t pick_sp(int t, int n)
{
    switch (t) {
    case WG_E4M3_E5M2: return pick_sp_n<WG_E4M3_E5M2>(n);
    case WG_E5M2_E4M3: return pick_sp_n<WG_E5M2_E4M3>(n);
    case MCF_FP16: return pick_sp_n<MCF_FP16>(n);
    case MCF_BF16: return pick_sp_n<MCF_BF16>(n);
    case MCF_FP8_E4M3: return pick_sp_n<MCF_FP8_E4M3>(n);
    case MCF_FP8_E5M2: return pick_sp_n<MCF_FP8_E5M2>(n);
    case MCF_INT8: return pick_sp_n<MCF_INT8>(n);
    default: return NULL;
    }
}

typedef void (*wg_kernel_t)(const uint8_t *, const uint8_t *, const uint8_t *, int, void *,
                            long long, struct gpu_clock *);

template <int TYPE, bool RS> static wg_kernel_t pick_n(int n)
{
    switch (n) {
    case 8: return k_wgmma<TYPE, 8, RS>;
    case 16: return k_wgmma<TYPE, 16, RS>;
    case 32: return k_wgmma<TYPE, 32, RS>;
    case 64: return k_wgmma<TYPE, 64, RS>;
    case 128: return k_wgmma<TYPE, 128, RS>;
    case 256: return k_wgmma<TYPE, 256, RS>;
    default: return NULL;
    }
}

/* The kernel for a type, width and operand source; NULL when mcfleet has none. */
static wg_kernel_t pick(int t, int n, bool rs)
{
    switch (t) {
    case WG_E4M3_E5M2: return rs ? NULL : pick_n<WG_E4M3_E5M2, false>(n);
    case WG_E5M2_E4M3: return rs ? NULL : pick_n<WG_E5M2_E4M3, false>(n);
    case MCF_FP16: return rs ? pick_n<MCF_FP16, true>(n) : pick_n<MCF_FP16, false>(n);
    case MCF_BF16: return rs ? pick_n<MCF_BF16, true>(n) : pick_n<MCF_BF16, false>(n);
    case MCF_TF32: return rs ? NULL : pick_n<MCF_TF32, false>(n);
    case MCF_FP8_E4M3: return rs ? NULL : pick_n<MCF_FP8_E4M3, false>(n);
    case MCF_FP8_E5M2: return rs ? NULL : pick_n<MCF_FP8_E5M2, false>(n);
    case MCF_INT8: return rs ? NULL : pick_n<MCF_INT8, false>(n);
    default: return NULL;
    }
}

static int wgmma_k(enum mcf_dtype t)
{
    return t == MCF_TF32 ? 8 : (t == MCF_FP16 || t == MCF_BF16) ? 16 : 32;
}

int cuda_wgmma_available(const struct gpu_state *s)
{
    struct cudaFuncAttributes attr;
    if (s->prop.major != 9 || s->prop.minor != 0) return 0;
    /* the sm_90a image is there only if the kernel resolves for this device */
    if (cudaFuncGetAttributes(&attr, (const void *)k_wgmma<MCF_BF16, 8, false>) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return attr.binaryVersion == 90;
}

struct wg_run {
    struct gpu_state *s;
    struct mcf_kernel k;
    wg_kernel_t kernel;
    wg_sp_kernel_t sp_kernel; /* 2:4 sparse; NULL: dense */
    int n, blocks, es, smem;
    long long half;
    struct mbuffers b;
};

static void wg_free(struct wg_run *r)
{
    if (!r) return;
    mbuffers_free(&r->b);
    free(r);
}

static int wg_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    struct wg_run *r = NULL;
    bool rs = k->path == MCF_PATH_WGMMA_RS;
    int kk = wgmma_k(k->dtype), type;
    enum mcf_dtype ta, tb;
    mcf_kernel_operands(k, &ta, &tb); /* B in its own FP8 format where a test pairs two */
    type = wg_type(ta, tb);
    MCF_ALLOC(e, r, 1);
    r->s = s;
    r->k = *k;
    r->n = k->shape[1];
    if (k->sparsity == MCF_SPARSITY_2_4) {
        kk *= 2; /* the logical k: A keeps half */
        r->sp_kernel = rs ? NULL : pick_sp(type, r->n);
        if (k->shape[0] != 64 || k->shape[2] != kk || !r->sp_kernel)
            MCF_FAIL(e, MCF_EUNSUPPORTED,
                     "no 2:4 sparse wgmma %s for %s %dx%dx%d (m64nNk%d, N = 64, 128, 256; A "
                     "from shared memory; fp16, bf16, fp8, int8)",
                     mcf_path_names[k->path], mcf_dtype_names[k->dtype], k->shape[0], k->shape[1],
                     k->shape[2], kk);
    } else {
        r->kernel = pick(type, r->n, rs);
        if (k->shape[0] != 64 || k->shape[2] != kk || !r->kernel)
            MCF_FAIL(e, MCF_EUNSUPPORTED, "no wgmma %s for %s %dx%dx%d (m64nNk%d, N = 8..256%s)",
                     mcf_path_names[k->path], mcf_dtype_names[k->dtype], k->shape[0], k->shape[1],
                     k->shape[2], kk, rs ? "; A from registers for fp16 and bf16 only" : "");
    }
    r->es = mcf_operand_bits(k->dtype) / 8;
    r->half = (long long)(k->iterations / 2);
    /* one warpgroup per block; `occupancy` warpgroups per SM (latency: one in all) */
    r->blocks = k->mode == MCF_MODE_LATENCY ? 1 : s->sms * (k->occupancy > 0 ? k->occupancy : 2);
    r->smem = 64 * 32 + 2 * r->n * (r->sp_kernel ? 64 : 32); /* at most 34 KiB: no opt-in needed */
    MCF_TRY(
        mbuffers_make(&r->b, 64, r->n, kk, k, MCF_FP8_OCP, (size_t)r->blocks * 64 * r->n * 4, e));
    *ks = r;
    return MCF_OK;
fail:
    wg_free(r);
    return e->rc;
}

static void wg_launch(struct wg_run *r, long long half)
{
    if (r->sp_kernel) {
        r->sp_kernel<<<r->blocks, WG_THREADS, r->smem, r->s->stream>>>(
            r->b.dA, r->b.dmeta, r->b.dB, r->b.dNB, r->es, r->b.dout, half, r->b.clk);
        return;
    }
    r->kernel<<<r->blocks, WG_THREADS, r->smem, r->s->stream>>>(r->b.dA, r->b.dB, r->b.dNB, r->es,
                                                                r->b.dout, half, r->b.clk);
}

static int wg_run_once(void *ks, struct mcf_sample *smp, struct mcf_err *e)
{
    struct wg_run *r = (struct wg_run *)ks;
    struct gpu_clock clk;
    double per_wg = 2.0 * r->half + 1;
    MCF_TRY(gpu_time(
        r->s, [&] { wg_launch(r, r->half); }, &smp->seconds, e));
    GPU_TRY(e, cudaMemcpy(&clk, r->b.clk, sizeof clk, cudaMemcpyDeviceToHost));
    /* the sparse peak counts dense-equivalent work: twice the dense rate */
    msample_fill(smp, r->s, (r->sp_kernel ? 2.0 : 1.0) * gpu_matrix_peak(r->s, r->k.dtype), &clk,
                 per_wg, r->blocks);
    return MCF_OK;
fail:
    return e->rc;
}

static int wg_verify(void *ks, struct mcf_err *e)
{
    struct wg_run *r = (struct wg_run *)ks;
    double (*decode)(const void *, size_t) = r->k.dtype == MCF_INT8 ? mdecode_s32 : mdecode_f32;
    char what[160];
    snprintf(what, sizeof what, "wgmma%s %s %s m64n%dk%d", r->sp_kernel ? " 2:4 sparse" : "",
             mcf_path_names[r->k.path], mcf_dtype_names[r->k.dtype], r->n, r->k.shape[2]);
    MCF_TRY(mverify_device(r->b.dout, r->blocks, 4, decode, &r->b.tiles, 2 * (uint64_t)r->half + 1,
                           what, r->k.inject_fault, e));
    if (mtiles_need_short_chain(&r->b.tiles)) {
        /* the same kernel and operands, 3 steps: a bound that is tight whatever the timed chain's
         * length */
        wg_launch(r, (MCHECK_SHORT_STEPS - 1) / 2);
        GPU_LAUNCHED(e, "the 3-step verification chain");
        GPU_TRY(e, cudaStreamSynchronize(r->s->stream));
        snprintf(what + strlen(what), sizeof what - strlen(what), " (3-step verification chain)");
        MCF_TRY(mverify_device(r->b.dout, r->blocks, 4, decode, &r->b.tiles, MCHECK_SHORT_STEPS,
                               what, r->k.inject_fault, e));
    }
    return MCF_OK;
fail:
    return e->rc;
}

static void wg_teardown(void *ks)
{
    wg_free((struct wg_run *)ks);
}

const struct mcf_kernel_ops cuda_wgmma_ops = { wg_setup, wg_run_once, wg_verify, wg_teardown };
