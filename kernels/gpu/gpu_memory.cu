/* Memory-hierarchy bandwidth, single-source. 16-byte accesses, coalesced.
 * Levels, each with loads that name it (gpu_compat.h):
 *   hbm: arrays well beyond the L2, rotating among sets so that no repetition
 *        finds the previous one's data in the cache;
 *   l2:  arrays inside the L2, swept `passes` times per launch, loads and
 *        stores around the L1 (.cg);
 *   l1:  every block sweeps the same small window: each SM keeps it in L1;
 *   lds: each block fills shared memory and sweeps it.
 * Ops as on the host: read (a sum of the words), copy, write (stores only),
 * triad, and fma (the intensity sweep). Inputs are the formulas of
 * src/run/reference.h; outputs are checked against them on the host. The
 * ncu counters that show each kernel hits its level: docs/performance.md. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "stats.h"

#define MAX_SETS 8
#define BLOCK 256

template <typename T> struct v16;
template <> struct v16<double> {
    typedef double2 t;
    enum { n = 2 };
};
template <> struct v16<float> {
    typedef float4 t;
    enum { n = 4 };
};

/* Reads add the 32-bit words they load, modulo 2^32: one integer add per
 * word, exact in any order, and a single wrong word changes the sum (the
 * host adds the same words of the formula's values). A float sum cost a
 * conversion per element, which the L1 and shared-memory rates could not
 * afford. One sum per block, reduced through shared memory. */
static __device__ void block_wsum(unsigned v, unsigned *partial)
{
    __shared__ unsigned sh[BLOCK];
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < (unsigned)s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sh[0];
}

struct wsum4 {
    unsigned x, y, z, w;
};
static __device__ inline void wadd(wsum4 &s, gpu_u32x4 v)
{
    s.x += v.x;
    s.y += v.y;
    s.z += v.z;
    s.w += v.w;
}
static __device__ inline unsigned wtotal(const wsum4 &s)
{
    return s.x + s.y + s.z + s.w;
}

/* The in-kernel clock of a memory kernel, per SM: the earliest block start
 * and the latest block end over a repetition's launches, each kept by an
 * atomic (on one SM the cycle counter and the timer rise together, so the
 * earliest start's cycles and nanoseconds belong to the same moment). The
 * span is the repetition's, milliseconds, even where each block lives for
 * microseconds: an HBM tile's own span read 1539-1865 MHz on an H100 whose
 * SMs ran at 1980 (ncu, NVML and the long kernels agreed), the timer read
 * being delayed by a microsecond or so under memory load. The clock is the
 * median over the SMs. */
#define SM_SLOTS 1024
struct clock_sum {
    unsigned long long first[2 * SM_SLOTS]; /* cycles, ns: minima (start all ones) */
    unsigned long long last[2 * SM_SLOTS]; /* cycles, ns: maxima (start zero) */
};
struct clock_stamp {
    long long c0;
    unsigned long long t0;
};
static __device__ inline clock_stamp clock_begin(void)
{
    clock_stamp st;
    st.c0 = clock64();
    st.t0 = gpu_globaltimer();
    return st;
}
static __device__ inline void clock_end(const clock_stamp &st, clock_sum *s)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long c1 = (unsigned long long)clock64(), t1 = gpu_globaltimer();
        unsigned sm = gpu_smid() % SM_SLOTS;
        atomicMin(&s->first[2 * sm], (unsigned long long)st.c0);
        atomicMin(&s->first[2 * sm + 1], st.t0);
        atomicMax(&s->last[2 * sm], c1);
        atomicMax(&s->last[2 * sm + 1], t1);
    }
}

template <typename T> __global__ void k_init(T *a, T *b, T *c, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        a[i] = (T)mcf_init_a(i);
        b[i] = (T)mcf_init_b(i);
        c[i] = (T)mcf_init_c(i);
    }
}

int gpu_init_arrays(enum mcf_dtype dtype, void *a, void *b, void *c, size_t n, int blocks,
                    gpuStream_t st, struct mcf_err *e)
{
    if (dtype == MCF_FP64)
        k_init<double><<<blocks, BLOCK, 0, st>>>((double *)a, (double *)b, (double *)c, n);
    else
        k_init<float><<<blocks, BLOCK, 0, st>>>((float *)a, (float *)b, (float *)c, n);
    GPU_LAUNCHED(e, "k_init");
    return MCF_OK;
fail:
    return e->rc;
}

/* Read: local, each block sweeps the whole window through the L1 (.ca);
 * otherwise grid-stride through the L2 only (.cg: with plain loads an array
 * in the L2 was read 87% from the L1 on an H100, each SM's share of it
 * staying in its own L1 from one pass to the next). Volatile loads: passes
 * over the same data are never merged. Four loads in flight per thread. */
__global__ void k_read(const gpu_u32x4 *__restrict__ src, unsigned nv, int passes, int local,
                       unsigned *partial, clock_sum *clk)
{
    const clock_stamp st = clock_begin();
    wsum4 s = { 0, 0, 0, 0 };
    unsigned first = local ? threadIdx.x : blockIdx.x * blockDim.x + threadIdx.x;
    unsigned step = local ? blockDim.x : gridDim.x * blockDim.x;
    for (int p = 0; p < passes; p++) {
        if (local) {
#pragma unroll 4
            for (unsigned i = first; i < nv; i += step) wadd(s, gpu_load_l1(src + i));
        } else {
#pragma unroll 4
            for (unsigned i = first; i < nv; i += step) wadd(s, gpu_load_l2(src + i));
        }
    }
    block_wsum(wtotal(s), partial);
    clock_end(st, clk);
}

/* Shared memory: fill from the formula (as type T), then sweep it `passes`
 * times as 16-byte words. */
template <typename T>
__global__ void k_lds_read(unsigned nv, int passes, unsigned *partial, clock_sum *clk)
{
    extern __shared__ double lds_raw[];
    const gpu_u32x4 *lds = (const gpu_u32x4 *)lds_raw;
    T *flat = (T *)lds_raw;
    for (unsigned i = threadIdx.x; i < nv * v16<T>::n; i += blockDim.x) flat[i] = (T)mcf_init_a(i);
    __syncthreads();
    const clock_stamp st = clock_begin();
    wsum4 s = { 0, 0, 0, 0 };
    for (int p = 0; p < passes; p++) {
#pragma unroll 4
        for (unsigned i = threadIdx.x; i < nv; i += blockDim.x) wadd(s, gpu_load_lds(lds + i));
    }
    block_wsum(wtotal(s), partial);
    clock_end(st, clk);
}

/* The write op's 16 bytes at vector i: mcf_init_w's values made from bits,
 * 1 + j/1024 (j = element mod 1024): fp32 0x3f800000 | j << 13; fp64's high
 * word 0x3ff00000 | j << 10, its low word 0. */
static __device__ inline gpu_u32x4 write_value(unsigned i, int fp64)
{
    gpu_u32x4 v;
    if (fp64) {
        v.x = 0;
        v.y = 0x3ff00000u | ((2 * i) & 1023u) << 10;
        v.z = 0;
        v.w = 0x3ff00000u | ((2 * i + 1) & 1023u) << 10;
    } else {
        v.x = 0x3f800000u | ((4 * i) & 1023u) << 13;
        v.y = 0x3f800000u | ((4 * i + 1) & 1023u) << 13;
        v.z = 0x3f800000u | ((4 * i + 2) & 1023u) << 13;
        v.w = 0x3f800000u | ((4 * i + 3) & 1023u) << 13;
    }
    return v;
}

/* Copy and write in the L2 (grid-stride, `passes` times, .cg both ways);
 * with occupancy set, the same kernels run at level hbm. */
__global__ void k_copy(const gpu_u32x4 *__restrict__ a, gpu_u32x4 *__restrict__ c, unsigned nv,
                       int passes, clock_sum *clk)
{
    const clock_stamp st = clock_begin();
    for (int p = 0; p < passes; p++)
#pragma unroll 4
        for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < nv;
             i += gridDim.x * blockDim.x)
            gpu_store_l2(c + i, gpu_load_l2(a + i));
    clock_end(st, clk);
}

__global__ void k_write(gpu_u32x4 *__restrict__ c, unsigned nv, int passes, int fp64,
                        clock_sum *clk)
{
    const clock_stamp st = clock_begin();
    for (int p = 0; p < passes; p++)
#pragma unroll 4
        for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < nv;
             i += gridDim.x * blockDim.x)
            gpu_store_l2(c + i, write_value(i, fp64));
    clock_end(st, clk);
}

/* a = b + s*c on one 16-byte vector of T, the words reinterpreted by the
 * intrinsics both vendors have (a memcpy through arrays made hipcc shuffle
 * bytes and spill to scratch) */
template <typename T> static __device__ inline gpu_u32x4 triad_w(gpu_u32x4 b, gpu_u32x4 c, T s);
template <> __device__ inline gpu_u32x4 triad_w<float>(gpu_u32x4 b, gpu_u32x4 c, float s)
{
    gpu_u32x4 a;
    a.x = __float_as_uint(__uint_as_float(b.x) + s * __uint_as_float(c.x));
    a.y = __float_as_uint(__uint_as_float(b.y) + s * __uint_as_float(c.y));
    a.z = __float_as_uint(__uint_as_float(b.z) + s * __uint_as_float(c.z));
    a.w = __float_as_uint(__uint_as_float(b.w) + s * __uint_as_float(c.w));
    return a;
}
template <> __device__ inline gpu_u32x4 triad_w<double>(gpu_u32x4 b, gpu_u32x4 c, double s)
{
    gpu_u32x4 a;
    double lo = __hiloint2double((int)b.y, (int)b.x) + s * __hiloint2double((int)c.y, (int)c.x);
    double hi = __hiloint2double((int)b.w, (int)b.z) + s * __hiloint2double((int)c.w, (int)c.z);
    a.x = (unsigned)__double2loint(lo);
    a.y = (unsigned)__double2hiint(lo);
    a.z = (unsigned)__double2loint(hi);
    a.w = (unsigned)__double2hiint(hi);
    return a;
}

template <typename T>
__global__ void k_triad(gpu_u32x4 *__restrict__ a, const gpu_u32x4 *__restrict__ b,
                        const gpu_u32x4 *__restrict__ c, T s, unsigned nv, int passes,
                        clock_sum *clk)
{
    const clock_stamp st = clock_begin();
    for (int p = 0; p < passes; p++)
#pragma unroll 2
        for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < nv;
             i += gridDim.x * blockDim.x)
            gpu_store_l2(a + i, triad_w<T>(gpu_load_l2(b + i), gpu_load_l2(c + i), s));
    clock_end(st, clk);
}

template <typename T>
__global__ void k_fma(const typename v16<T>::t *__restrict__ a, typename v16<T>::t *__restrict__ b,
                      T s, T t, int intensity, size_t nv, clock_sum *clk)
{
    typedef typename v16<T>::t V;
    const clock_stamp st = clock_begin();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nv;
         i += (size_t)gridDim.x * blockDim.x) {
        V v = a[i];
        T *e = (T *)&v;
        for (int k = 0; k < intensity; k++)
            for (int l = 0; l < v16<T>::n; l++) e[l] = e[l] * s + t;
        b[i] = v;
    }
    clock_end(st, clk);
}

/* HBM: each block owns one contiguous tile of BLOCK x UNROLL vectors, each
 * thread loads its UNROLL vectors before using any, and the grid covers the
 * array once. On an H200 this beat every grid-stride variant by 5-7%, and
 * streaming cache hints only cost (bench/triad_variants.cu, docs/performance.md). */
#define UNROLL 4
template <typename T>
__global__ void k_hbm(int op, gpu_u32x4 *__restrict__ a, gpu_u32x4 *__restrict__ b,
                      gpu_u32x4 *__restrict__ c, T s, size_t nv, unsigned *partial, clock_sum *clk)
{
    const clock_stamp st = clock_begin();
    const size_t base = blockIdx.x * (size_t)blockDim.x * UNROLL + threadIdx.x;
    wsum4 sum = { 0, 0, 0, 0 };
    gpu_u32x4 x[UNROLL], y[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        size_t i = base + (size_t)u * blockDim.x;
        if (i < nv) {
            if (op == MCF_OP_TRIAD) {
                x[u] = b[i];
                y[u] = c[i];
            } else if (op != MCF_OP_WRITE)
                x[u] = a[i];
        }
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        size_t i = base + (size_t)u * blockDim.x;
        if (i < nv) {
            if (op == MCF_OP_TRIAD)
                a[i] = triad_w<T>(x[u], y[u], s);
            else if (op == MCF_OP_COPY)
                c[i] = x[u];
            else if (op == MCF_OP_WRITE)
                c[i] = write_value((unsigned)i, sizeof(T) == 8);
            else
                wadd(sum, x[u]);
        }
    }
    if (op == MCF_OP_READ) block_wsum(wtotal(sum), partial);
    clock_end(st, clk);
}

struct mem_run {
    struct gpu_state *s;
    struct mcf_kernel k;
    size_t n, nv; /* elements per array, 16-byte vectors per array */
    int sets, cur, passes, local, blocks;
    void *a[MAX_SETS], *b[MAX_SETS], *c[MAX_SETS];
    unsigned *partial; /* device, reads: one word sum per block */
    clock_sum *clk; /* device */
    clock_sum *host_clk;
    int last; /* set the last repetition used */
};

template <typename T> static void launch(struct mem_run *r)
{
    typedef typename v16<T>::t V;
    int set = r->cur;
    gpu_u32x4 *a = (gpu_u32x4 *)r->a[set], *b = (gpu_u32x4 *)r->b[set], *c = (gpu_u32x4 *)r->c[set];
    gpuStream_t st = r->s->stream;
    unsigned nv = (unsigned)r->nv;
    if (r->k.level == MCF_LEVEL_HBM && r->k.op != MCF_OP_FMA && r->k.occupancy <= 0) {
        k_hbm<T><<<r->blocks, BLOCK, 0, st>>>((int)r->k.op, a, b, c, (T)MCF_TRIAD_S, r->nv,
                                              r->partial, r->clk);
        return;
    }
    switch (r->k.level == MCF_LEVEL_LDS ? -1 : (int)r->k.op) {
    case -1:
        k_lds_read<T><<<r->blocks, BLOCK, r->k.bytes, st>>>(nv, r->passes, r->partial, r->clk);
        break;
    case MCF_OP_READ:
        k_read<<<r->blocks, BLOCK, 0, st>>>(a, nv, r->passes, r->local, r->partial, r->clk);
        break;
    case MCF_OP_COPY: k_copy<<<r->blocks, BLOCK, 0, st>>>(a, c, nv, r->passes, r->clk); break;
    case MCF_OP_WRITE:
        k_write<<<r->blocks, BLOCK, 0, st>>>(c, nv, r->passes, sizeof(T) == 8, r->clk);
        break;
    case MCF_OP_TRIAD:
        k_triad<T><<<r->blocks, BLOCK, 0, st>>>(a, b, c, (T)MCF_TRIAD_S, nv, r->passes, r->clk);
        break;
    case MCF_OP_FMA:
        k_fma<T><<<r->blocks, BLOCK, 0, st>>>((const V *)a, (V *)b, (T)MCF_FMA_S, (T)MCF_FMA_T,
                                              r->k.intensity, r->nv, r->clk);
        break;
    }
}

static void mem_free(struct mem_run *r)
{
    if (!r) return;
    for (int i = 0; i < MAX_SETS; i++) {
        if (r->a[i]) GPU_RELEASE(gpuFree(r->a[i]));
        if (r->b[i]) GPU_RELEASE(gpuFree(r->b[i]));
        if (r->c[i]) GPU_RELEASE(gpuFree(r->c[i]));
    }
    if (r->partial) GPU_RELEASE(gpuFree(r->partial));
    if (r->clk) GPU_RELEASE(gpuFree(r->clk));
    free(r->host_clk);
    free(r);
}

/* Bytes each launch moves at the cached levels: long enough (a millisecond
 * or more at the level's rate) that the launch's start and tail vanish. */
#define L2_BYTES_PER_LAUNCH 16e9
#define L1_BYTES_PER_LAUNCH 48e9

static int memory_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    struct mem_run *r = NULL;
    size_t es = (size_t)mcf_dtype_size(k->dtype), bytes;
    double moved;
    int vn = 16 / (int)es;
    MCF_ALLOC(e, r, 1);
    r->s = s;
    r->k = *k;
    r->nv = k->bytes / 16;
    if (r->nv < 64)
        MCF_FAIL(e, MCF_EINPUT, "memory test of %llu bytes: at least 1 KiB",
                 (unsigned long long)k->bytes);
    r->n = r->nv * (size_t)vn;
    r->k.bytes = r->n * es;
    bytes = r->n * es;
    r->sets = 1;
    r->passes = 1;
    r->blocks = s->sms * 8; /* 2048 threads per SM */
    if (k->occupancy > 0) r->blocks = s->sms * ((k->occupancy + 7) / 8);
    moved = (double)r->n * mcf_kernel_bytes_per_unit(k);
    if (k->level != MCF_LEVEL_HBM && r->nv > 0xffffffffu / 2)
        MCF_FAIL(e, MCF_EINPUT,
                 "memory %s test of %zu bytes: the cached levels take at most 32 GiB",
                 mcf_level_names[k->level], bytes);
    if (k->op == MCF_OP_FMA && k->level != MCF_LEVEL_HBM)
        MCF_FAIL(e, MCF_EINPUT, "the intensity kernel (op fma) runs at level hbm");
    if (k->level == MCF_LEVEL_HBM && k->occupancy > 0 && k->op != MCF_OP_FMA &&
        r->nv > 0xffffffffu / 2)
        MCF_FAIL(e, MCF_EINPUT, "memory hbm test with occupancy set: at most 32 GiB per array");
    switch (k->level) {
    case MCF_LEVEL_HBM:
        if (k->op != MCF_OP_FMA && k->occupancy <= 0)
            r->blocks =
                (int)((r->nv + BLOCK * UNROLL - 1) / (BLOCK * UNROLL)); /* one tile per block */
        /* enough sets that consecutive repetitions never share a cached byte */
        if (k->op != MCF_OP_FMA) {
            r->sets = (int)((4.0 * s->prop.l2CacheSize) / (3.0 * bytes)) + 1;
            if (r->sets > MAX_SETS) r->sets = MAX_SETS;
        }
        break;
    case MCF_LEVEL_L2: r->passes = (int)(L2_BYTES_PER_LAUNCH / moved) + 1; break;
    case MCF_LEVEL_L1:
    case MCF_LEVEL_LDS:
        if (k->op != MCF_OP_READ)
            MCF_FAIL(e, MCF_EUNSUPPORTED, "levels l1 and lds are measured with op read");
        if (k->level == MCF_LEVEL_LDS && bytes > (size_t)gpuPropSharedPerBlockOptin(s->prop))
            MCF_FAIL(e, MCF_EINPUT, "lds test of %zu bytes: this GPU gives a block at most %zu",
                     bytes, (size_t)gpuPropSharedPerBlockOptin(s->prop));
        r->local = 1;
        /* 4 blocks (32 warps) per SM, each over the whole window: the L1 is the
         * SM's, and each block has its own copy in shared memory (as many as fit) */
        {
            int per_sm = 4;
            if (k->level == MCF_LEVEL_LDS && bytes * per_sm > (size_t)gpuPropSharedPerSM(s->prop))
                per_sm = (int)(gpuPropSharedPerSM(s->prop) / bytes) > 0
                    ? (int)(gpuPropSharedPerSM(s->prop) / bytes)
                    : 1;
            r->blocks = s->sms * per_sm;
        }
        r->passes = (int)(L1_BYTES_PER_LAUNCH / (moved * r->blocks)) + 1;
        break;
    default: break;
    }
    for (int i = 0; i < r->sets; i++) {
        GPU_TRY(e, gpuMalloc(&r->a[i], bytes));
        GPU_TRY(e, gpuMalloc(&r->b[i], bytes));
        GPU_TRY(e, gpuMalloc(&r->c[i], bytes));
        MCF_TRY(
            gpu_init_arrays(k->dtype, r->a[i], r->b[i], r->c[i], r->n, s->sms * 8, s->stream, e));
    }
    GPU_TRY(e, gpuMalloc((void **)&r->partial, sizeof(unsigned) * (size_t)r->blocks));
    GPU_TRY(e, gpuMalloc((void **)&r->clk, sizeof *r->clk));
    MCF_ALLOC(e, r->host_clk, 1);
    if (k->level == MCF_LEVEL_LDS) {
        if (k->dtype == MCF_FP64)
            GPU_TRY(e,
                    gpuFuncSetAttribute(k_lds_read<double>,
                                        gpuFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
        else
            GPU_TRY(e,
                    gpuFuncSetAttribute(k_lds_read<float>,
                                        gpuFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    }
    GPU_TRY(e, gpuStreamSynchronize(s->stream));
    *ks = r;
    return MCF_OK;
fail:
    mem_free(r);
    return e->rc;
}

/* The median over the SMs that ran a block of cycles over nanoseconds. */
static double sm_clock_mhz(const clock_sum *c)
{
    double f[SM_SLOTS];
    size_t n = 0;
    for (int i = 0; i < SM_SLOTS; i++) {
        unsigned long long c0 = c->first[2 * i], t0 = c->first[2 * i + 1], c1 = c->last[2 * i],
                           t1 = c->last[2 * i + 1];
        if (t1 > t0 && c1 > c0 && t0 != ~0ull) f[n++] = (double)(c1 - c0) / (double)(t1 - t0) * 1e3;
    }
    return n ? mcf_median(f, n) : 0.0;
}

/* One timed repetition: `sweeps` launches back to back in one timed span
 * (each on the next set of arrays), so that a repetition lasts long enough
 * for a power window; the last launch's output is verified. The in-kernel
 * clock is over all of them. */
static int memory_run(void *ks, struct mcf_sample *smp, struct mcf_err *e)
{
    struct mem_run *r = (struct mem_run *)ks;
    uint64_t sweeps = r->k.sweeps ? r->k.sweeps : 1;
    GPU_TRY(e, gpuMemsetAsync(r->clk->first, 0xff, sizeof r->clk->first, r->s->stream));
    GPU_TRY(e, gpuMemsetAsync(r->clk->last, 0, sizeof r->clk->last, r->s->stream));
    if (r->k.dtype == MCF_FP64)
        MCF_TRY(gpu_time(
            r->s,
            [&] {
                for (uint64_t i = 0; i < sweeps; i++) {
                    r->last = r->cur;
                    launch<double>(r);
                    r->cur = (r->cur + 1) % r->sets;
                }
            },
            &smp->seconds, e));
    else
        MCF_TRY(gpu_time(
            r->s,
            [&] {
                for (uint64_t i = 0; i < sweeps; i++) {
                    r->last = r->cur;
                    launch<float>(r);
                    r->cur = (r->cur + 1) % r->sets;
                }
            },
            &smp->seconds, e));
    GPU_TRY(e, gpuMemcpy(r->host_clk, r->clk, sizeof *r->clk, gpuMemcpyDeviceToHost));
    smp->units = (double)r->n * r->passes * (r->local ? r->blocks : 1) * (double)sweeps;
    smp->clock_mhz = sm_clock_mhz(r->host_clk);
    return MCF_OK;
fail:
    return e->rc;
}

/* The 32-bit words of the array the formula gives, added modulo 2^32 (what
 * a read kernel's sweep adds once). */
static unsigned formula_words(int fp64, size_t n)
{
    unsigned sum = 0;
    for (size_t g = 0; g < n; g++) {
        uint32_t w[2] = { 0, 0 };
        if (fp64) {
            double v = mcf_init_a(g);
            memcpy(w, &v, 8);
        } else {
            float v = (float)mcf_init_a(g);
            memcpy(w, &v, 4);
        }
        sum += w[0] + w[1];
    }
    return sum;
}

/* One output element as double. */
static double host_elem(const void *buf, int fp64, size_t i)
{
    return fp64 ? ((const double *)buf)[i] : ((const float *)buf)[i];
}

static int memory_verify(void *ks, struct mcf_err *e)
{
    struct mem_run *r = (struct mem_run *)ks;
    int fp64 = r->k.dtype == MCF_FP64;
    unsigned *partial = NULL;
    int set = r->last;
    if (r->k.op == MCF_OP_READ || r->k.level == MCF_LEVEL_LDS) {
        unsigned got = 0, want;
        MCF_ALLOC(e, partial, r->blocks);
        GPU_TRY(
            e, gpuMemcpy(partial, r->partial, sizeof(unsigned) * r->blocks, gpuMemcpyDeviceToHost));
        if (r->k.inject_fault) partial[0] += 1u;
        for (int i = 0; i < r->blocks; i++) got += partial[i];
        /* every word read passes x (blocks, where each reads it all) times */
        want = formula_words(fp64, r->n) *
            (unsigned)((uint64_t)r->passes * (r->local ? r->blocks : 1));
        if (got != want)
            MCF_FAIL(e, MCF_EVERIFY,
                     "memory %s read: the sum of the words read is %u, expected %u (exact, "
                     "modulo 2^32)",
                     mcf_level_names[r->k.level], got, want);
        free(partial);
        return MCF_OK;
    }
    {
        void *out = r->k.op == MCF_OP_COPY || r->k.op == MCF_OP_WRITE ? r->c[set]
            : r->k.op == MCF_OP_TRIAD                                 ? r->a[set]
                                                                      : r->b[set];
        MCF_TRY(
            gpu_check_output(r->k.op, r->k.dtype, r->k.intensity, out, r->n, r->k.inject_fault, e));
    }
    return MCF_OK;
fail:
    free(partial);
    return e->rc;
}

int gpu_check_output(enum mcf_memop op, enum mcf_dtype dtype, int intensity, const void *dev,
                     size_t n, int inject_fault, struct mcf_err *e)
{
    int fp64 = dtype == MCF_FP64;
    size_t es = fp64 ? 8 : 4;
    double eps = fp64 ? DBL_EPSILON : FLT_EPSILON;
    void *host = malloc(n * es);
    if (!host) MCF_FAIL(e, MCF_ERUNTIME, "out of host memory for verification");
    GPU_TRY(e, gpuMemcpy(host, dev, n * es, gpuMemcpyDeviceToHost));
    if (inject_fault) {
        if (fp64)
            ((double *)host)[0] += 1.0;
        else
            ((float *)host)[0] += 1.0f;
    }
    /* every element; the intensity kernel's long reference on a sample of 65536 */
    for (size_t g = 0; g < n; g += (op == MCF_OP_FMA && n > 65536) ? n / 65536 : 1) {
        double got = host_elem(host, fp64, g), want, tol;
        if (op == MCF_OP_COPY || op == MCF_OP_WRITE) {
            double v = op == MCF_OP_WRITE ? mcf_init_w(g) : mcf_init_a(g);
            want = fp64 ? v : (float)v;
            tol = 0.0;
        } else if (op == MCF_OP_TRIAD) {
            double b = fp64 ? mcf_init_b(g) : (float)mcf_init_b(g);
            double c = fp64 ? mcf_init_c(g) : (float)mcf_init_c(g);
            double s = fp64 ? MCF_TRIAD_S : (float)MCF_TRIAD_S;
            want = b + s * c;
            tol = 2.0 * eps * fabs(want);
        } else {
            long double y = fp64 ? mcf_init_a(g) : (float)mcf_init_a(g);
            long double s = fp64 ? MCF_FMA_S : (float)MCF_FMA_S,
                        t = fp64 ? MCF_FMA_T : (float)MCF_FMA_T;
            for (int j = 0; j < intensity; j++) y = y * s + t;
            want = (double)y;
            tol = 4.0 * eps * (intensity + 1) * fabs(want);
        }
        if (!(fabs(got - want) <= tol))
            MCF_FAIL(e, MCF_EVERIFY, "memory %s %s element %zu: %.17g, expected %.17g",
                     mcf_memop_names[op], mcf_dtype_names[dtype], g, got, want);
    }
    free(host);
    return MCF_OK;
fail:
    free(host);
    return e->rc;
}

static void memory_teardown(void *ks)
{
    mem_free((struct mem_run *)ks);
}

GPU_HOST_OPS(gpu_memory_ops, memory_setup, memory_run, memory_verify, memory_teardown);
