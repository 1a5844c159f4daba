/* The ladder family on the GPU, single-source for CUDA and HIP: C = A*B
 * (n x n, row-major) at three rungs of the tiled matrix-multiply progression
 * of the OpenCL memory-hierarchy tutorial (shared/seeds/002_*), on the
 * vector units (no matrix cores: the library gemm test beside it has them):
 *   naive:    one thread per output element, its row of A and column of B
 *             loaded from global memory, two loads per FMA;
 *   shared:   16 x 16 blocks staging 16 x 16 tiles of A and B in shared
 *             memory (LDS), one output element per thread (the tutorial's
 *             blocked kernel);
 *   register: 64 x 64 output tiles per block of 16 x 16 threads, each thread
 *             summing a 4 x 4 register tile from 64 x 16 and 16 x 64 tiles
 *             staged in shared memory.
 * Loads beyond the matrix's edge are not made (zeros are staged), so the
 * global traffic is exactly mcf_ladder_elements() (src/family_ladder.h).
 * A and B are filled on the device from the counter generator the host
 * regenerates for the check (src/run/ladder_check.h). Timing: device events
 * around `iterations` launches; the clock: per SM, the earliest block start
 * and latest block end of the repetition (as gpu_memory.cu's), the median
 * over the SMs. */
#include <stdlib.h>
#include <string.h>

#include "family_ladder.h"
#include "gpu.h"
#include "ladder_check.h"
#include "stats.h"

#define TILE MCF_LADDER_TILE
#define BLK MCF_LADDER_BLOCK
#define BK MCF_LADDER_BK
#define MICRO MCF_LADDER_MICRO
#define SIDE 16 /* threads per block: SIDE x SIDE */
#define SLOTS 1024 /* SMs (CUs) the clock keeps apart */

struct ladder_clock {
    unsigned long long first[2 * SLOTS]; /* cycles, ns: minima (start all ones) */
    unsigned long long last[2 * SLOTS]; /* cycles, ns: maxima (start zero) */
};

struct stamp {
    long long c0;
    unsigned long long t0;
};
static __device__ inline stamp stamp_begin(void)
{
    stamp s;
    s.c0 = clock64();
    s.t0 = gpu_globaltimer();
    return s;
}
static __device__ inline void stamp_end(const stamp &s, ladder_clock *clk)
{
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        unsigned long long c1 = (unsigned long long)clock64(), t1 = gpu_globaltimer();
        unsigned sm = gpu_smid() % SLOTS;
        atomicMin(&clk->first[2 * sm], (unsigned long long)s.c0);
        atomicMin(&clk->first[2 * sm + 1], s.t0);
        atomicMax(&clk->last[2 * sm], c1);
        atomicMax(&clk->last[2 * sm + 1], t1);
    }
}

template <typename T>
__global__ void k_fill(T *a, T *b, unsigned n, int dtype, int inputs, unsigned long long seed)
{
    size_t total = (size_t)n * n;
    for (size_t x = blockIdx.x * (size_t)blockDim.x + threadIdx.x; x < total;
         x += (size_t)gridDim.x * blockDim.x) {
        a[x] =
            (T)mcf_ladder_a((enum mcf_dtype)dtype, (enum mcf_inputs)inputs, seed, n, x / n, x % n);
        b[x] =
            (T)mcf_ladder_b((enum mcf_dtype)dtype, (enum mcf_inputs)inputs, seed, n, x / n, x % n);
    }
}

template <typename T>
__global__ void k_naive(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c,
                        unsigned n, ladder_clock *clk)
{
    const stamp st = stamp_begin();
    unsigned i = blockIdx.y * SIDE + threadIdx.y, j = blockIdx.x * SIDE + threadIdx.x;
    if (i < n && j < n) {
        T acc = 0;
        for (unsigned kk = 0; kk < n; kk++) acc += a[(size_t)i * n + kk] * b[(size_t)kk * n + j];
        c[(size_t)i * n + j] = acc;
    }
    stamp_end(st, clk);
}

template <typename T>
__global__ void k_shared(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c,
                         unsigned n, ladder_clock *clk)
{
    __shared__ T as[TILE][TILE], bs[TILE][TILE];
    const stamp st = stamp_begin();
    unsigned ty = threadIdx.y, tx = threadIdx.x, i = blockIdx.y * TILE + ty,
             j = blockIdx.x * TILE + tx;
    T acc = 0;
    for (unsigned k0 = 0; k0 < n; k0 += TILE) {
        as[ty][tx] = i < n && k0 + tx < n ? a[(size_t)i * n + k0 + tx] : (T)0;
        bs[ty][tx] = k0 + ty < n && j < n ? b[(size_t)(k0 + ty) * n + j] : (T)0;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TILE; kk++) acc += as[ty][kk] * bs[kk][tx];
        __syncthreads();
    }
    if (i < n && j < n) c[(size_t)i * n + j] = acc;
    stamp_end(st, clk);
}

/* Thread (tx, ty) owns rows ty + 16x and columns tx + 16y of the block's
 * tile (x, y < 4): a warp's stores are 16 consecutive elements per row. A's
 * tile is staged k-major, one element of padding a row against bank
 * conflicts on the transposing store. */
template <typename T>
__global__ void k_register(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c,
                           unsigned n, ladder_clock *clk)
{
    __shared__ T as[BK][BLK + 1], bs[BK][BLK];
    const stamp st = stamp_begin();
    const unsigned tx = threadIdx.x, ty = threadIdx.y, tid = ty * SIDE + tx;
    const unsigned row0 = blockIdx.y * BLK, col0 = blockIdx.x * BLK;
    T r[MICRO][MICRO];
#pragma unroll
    for (int x = 0; x < MICRO; x++)
#pragma unroll
        for (int y = 0; y < MICRO; y++) r[x][y] = 0;
    for (unsigned k0 = 0; k0 < n; k0 += BK) {
#pragma unroll
        for (int q = 0; q < BLK * BK / (SIDE * SIDE); q++) {
            unsigned e = tid + q * SIDE * SIDE;
            unsigned ar = e / BK, ak = e % BK; /* A: BLK rows x BK, each row's BK contiguous */
            unsigned bk = e / BLK, bc = e % BLK; /* B: BK rows x BLK */
            as[ak][ar] = row0 + ar < n && k0 + ak < n ? a[(size_t)(row0 + ar) * n + k0 + ak] : (T)0;
            bs[bk][bc] = k0 + bk < n && col0 + bc < n ? b[(size_t)(k0 + bk) * n + col0 + bc] : (T)0;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            T av[MICRO], bv[MICRO];
#pragma unroll
            for (int x = 0; x < MICRO; x++) av[x] = as[kk][ty + SIDE * x];
#pragma unroll
            for (int y = 0; y < MICRO; y++) bv[y] = bs[kk][tx + SIDE * y];
#pragma unroll
            for (int x = 0; x < MICRO; x++)
#pragma unroll
                for (int y = 0; y < MICRO; y++) r[x][y] += av[x] * bv[y];
        }
        __syncthreads();
    }
#pragma unroll
    for (int x = 0; x < MICRO; x++)
#pragma unroll
        for (int y = 0; y < MICRO; y++) {
            unsigned i = row0 + ty + SIDE * x, j = col0 + tx + SIDE * y;
            if (i < n && j < n) c[(size_t)i * n + j] = r[x][y];
        }
    stamp_end(st, clk);
}

struct ladder_run {
    struct gpu_state *s;
    struct mcf_kernel k;
    unsigned n;
    void *a, *b, *c;
    ladder_clock *clk, *host_clk;
};

template <typename T> static void launch(struct ladder_run *r)
{
    const T *a = (const T *)r->a, *b = (const T *)r->b;
    T *c = (T *)r->c;
    unsigned t = (unsigned)mcf_ladder_reuse(r->k.rung),
             tiles = (r->n + (t == 1 ? SIDE : t) - 1) / (t == 1 ? SIDE : t);
    dim3 grid(tiles, tiles), block(SIDE, SIDE);
    gpuStream_t st = r->s->stream;
    if (r->k.rung == MCF_RUNG_NAIVE)
        k_naive<T><<<grid, block, 0, st>>>(a, b, c, r->n, r->clk);
    else if (r->k.rung == MCF_RUNG_SHARED)
        k_shared<T><<<grid, block, 0, st>>>(a, b, c, r->n, r->clk);
    else
        k_register<T><<<grid, block, 0, st>>>(a, b, c, r->n, r->clk);
}

static void ladder_free(struct ladder_run *r)
{
    if (!r) return;
    if (r->a) GPU_RELEASE(gpuFree(r->a));
    if (r->b) GPU_RELEASE(gpuFree(r->b));
    if (r->c) GPU_RELEASE(gpuFree(r->c));
    if (r->clk) GPU_RELEASE(gpuFree(r->clk));
    free(r->host_clk);
    free(r);
}

static int ladder_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    struct ladder_run *r = NULL;
    size_t es = (size_t)mcf_dtype_size(k->dtype), bytes;
    if (k->dtype != MCF_FP64 && k->dtype != MCF_FP32)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "the ladder multiplies fp64 and fp32 (got %s)",
                           mcf_dtype_names[k->dtype]);
    MCF_ALLOC(e, r, 1);
    r->s = s;
    r->k = *k;
    r->n = (unsigned)k->size;
    bytes = (size_t)r->n * r->n * es;
    GPU_TRY(e, gpuMalloc(&r->a, bytes));
    GPU_TRY(e, gpuMalloc(&r->b, bytes));
    GPU_TRY(e, gpuMalloc(&r->c, bytes));
    GPU_TRY(e, gpuMemset(r->c, 0, bytes));
    GPU_TRY(e, gpuMalloc((void **)&r->clk, sizeof *r->clk));
    MCF_ALLOC(e, r->host_clk, 1);
    if (k->dtype == MCF_FP64)
        k_fill<double><<<s->sms * 8, 256, 0, s->stream>>>((double *)r->a, (double *)r->b, r->n,
                                                          k->dtype, k->inputs, k->seed);
    else
        k_fill<float><<<s->sms * 8, 256, 0, s->stream>>>((float *)r->a, (float *)r->b, r->n,
                                                         k->dtype, k->inputs, k->seed);
    GPU_LAUNCHED(e, "k_fill");
    GPU_TRY(e, gpuStreamSynchronize(s->stream));
    *ks = r;
    return MCF_OK;
fail:
    ladder_free(r);
    return e->rc;
}

static double sm_clock_mhz(const ladder_clock *c)
{
    double f[SLOTS];
    size_t n = 0;
    for (int i = 0; i < SLOTS; i++) {
        unsigned long long c0 = c->first[2 * i], t0 = c->first[2 * i + 1], c1 = c->last[2 * i],
                           t1 = c->last[2 * i + 1];
        if (t1 > t0 && c1 > c0 && t0 != ~0ull) f[n++] = (double)(c1 - c0) / (double)(t1 - t0) * 1e3;
    }
    return n ? mcf_median(f, n) : 0.0;
}

static int ladder_run(void *ks, struct mcf_sample *smp, struct mcf_err *e)
{
    struct ladder_run *r = (struct ladder_run *)ks;
    uint64_t it = r->k.iterations;
    GPU_TRY(e, gpuMemsetAsync(r->clk->first, 0xff, sizeof r->clk->first, r->s->stream));
    GPU_TRY(e, gpuMemsetAsync(r->clk->last, 0, sizeof r->clk->last, r->s->stream));
    if (r->k.dtype == MCF_FP64)
        MCF_TRY(gpu_time(
            r->s,
            [&] {
                for (uint64_t i = 0; i < it; i++) launch<double>(r);
            },
            &smp->seconds, e));
    else
        MCF_TRY(gpu_time(
            r->s,
            [&] {
                for (uint64_t i = 0; i < it; i++) launch<float>(r);
            },
            &smp->seconds, e));
    GPU_TRY(e, gpuMemcpy(r->host_clk, r->clk, sizeof *r->clk, gpuMemcpyDeviceToHost));
    smp->units = (double)it;
    smp->clock_mhz = sm_clock_mhz(r->host_clk);
    return MCF_OK;
fail:
    return e->rc;
}

static int ladder_verify(void *ks, struct mcf_err *e)
{
    struct ladder_run *r = (struct ladder_run *)ks;
    size_t bytes = (size_t)r->n * r->n * mcf_dtype_size(r->k.dtype);
    void *host = malloc(bytes);
    if (!host)
        MCF_FAIL(e, MCF_ERUNTIME, "out of host memory for the ladder's check (%zu bytes)", bytes);
    GPU_TRY(e, gpuMemcpy(host, r->c, bytes, gpuMemcpyDeviceToHost));
    MCF_TRY(mcf_ladder_verify(&r->k, host, e));
    free(host);
    return MCF_OK;
fail:
    free(host);
    return e->rc;
}

static void ladder_teardown(void *ks)
{
    ladder_free((struct ladder_run *)ks);
}

GPU_HOST_OPS(gpu_ladder_ops, ladder_setup, ladder_run, ladder_verify, ladder_teardown);
