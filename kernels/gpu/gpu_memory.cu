/* Memory-hierarchy bandwidth, single-source. 16-byte accesses (double2 /
 * float4), coalesced, grid-stride. Levels:
 *   hbm: arrays well beyond the L2, rotating among sets so that no repetition
 *        finds the previous one's data in the cache;
 *   l2:  arrays inside the L2, swept `passes` times per launch (each pass
 *        starts at a different offset, so no load can be hoisted out);
 *   l1:  every block sweeps the same small window: each SM keeps it in L1;
 *   lds: each block fills shared memory and sweeps it.
 * Ops as on the host: read (a sum), copy, triad, and fma (the intensity
 * sweep). Inputs are the formulas of src/run/reference.h; outputs are checked
 * against them on the host. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

#define MAX_SETS 8
#define BLOCK 256

template <typename T> struct v16;
template <> struct v16<double> { typedef double2 t; enum { n = 2 }; };
template <> struct v16<float> { typedef float4 t; enum { n = 4 }; };

/* Each thread's sum, reduced through shared memory, one value per block. */
static __device__ void block_sum(double v, double *partial)
{
    __shared__ double sh[BLOCK];
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < (unsigned)s)
            sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = sh[0];
}

template <typename T>
__global__ void k_init(T *a, T *b, T *c, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        a[i] = (T)mcf_init_a(i);
        b[i] = (T)mcf_init_b(i);
        c[i] = (T)mcf_init_c(i);
    }
}

int gpu_init_arrays(enum mcf_dtype dtype, void *a, void *b, void *c, size_t n, int blocks, gpuStream_t st,
                    struct mcf_err *e)
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

/* Indexing: grid-stride over the whole array, or (local) each block over all of it. */
struct sweep {
    size_t first, step;
    __device__ sweep(int local)
    {
        first = local ? threadIdx.x : blockIdx.x * (size_t)blockDim.x + threadIdx.x;
        step = local ? blockDim.x : (size_t)gridDim.x * blockDim.x;
    }
};

/* Sums src[0..nv) `passes` times from this thread's first element in steps of
 * step; each pass starts 32 vectors further on, so no load can be hoisted out
 * of the pass loop. Two chains of adds: the loads, not the adds, set the pace. */
template <typename T>
static __device__ inline double sweep_sum(const typename v16<T>::t *src, size_t nv, int passes, size_t first,
                                          size_t step)
{
    typedef typename v16<T>::t V;
    double sum[2] = { 0.0, 0.0 };
    for (int p = 0; p < passes; p++) {
        size_t off = ((size_t)p * 32) % nv;
        for (size_t i = first; i < nv; i += step) {
            size_t j = i + off < nv ? i + off : i + off - nv;
            V v = src[j];
            const T *e = (const T *)&v;
            for (int l = 0; l < v16<T>::n; l++)
                sum[l & 1] += e[l];
        }
    }
    return sum[0] + sum[1];
}

template <typename T>
__global__ void k_read(const typename v16<T>::t *__restrict__ a, size_t nv, int passes, int local, double *partial)
{
    sweep w(local);
    block_sum(sweep_sum<T>(a, nv, passes, w.first, w.step), partial);
}

template <typename T>
__global__ void k_copy(const typename v16<T>::t *__restrict__ a, typename v16<T>::t *__restrict__ c, size_t nv,
                       int passes, int local)
{
    sweep w(local);
    for (int p = 0; p < passes; p++) {
        size_t off = ((size_t)p * 32) % nv;
        for (size_t i = w.first; i < nv; i += w.step) {
            size_t j = i + off < nv ? i + off : i + off - nv;
            c[j] = a[j];
        }
    }
}

template <typename T>
__global__ void k_triad(typename v16<T>::t *__restrict__ a, const typename v16<T>::t *__restrict__ b,
                        const typename v16<T>::t *__restrict__ c, T s, size_t nv, int passes, int local)
{
    typedef typename v16<T>::t V;
    sweep w(local);
    for (int p = 0; p < passes; p++) {
        size_t off = ((size_t)p * 32) % nv;
        for (size_t i = w.first; i < nv; i += w.step) {
            size_t j = i + off < nv ? i + off : i + off - nv;
            V bv = b[j], cv = c[j], av;
            const T *be = (const T *)&bv, *ce = (const T *)&cv;
            T *ae = (T *)&av;
            for (int l = 0; l < v16<T>::n; l++)
                ae[l] = be[l] + s * ce[l];
            a[j] = av;
        }
    }
}

template <typename T>
__global__ void k_fma(const typename v16<T>::t *__restrict__ a, typename v16<T>::t *__restrict__ b, T s, T t,
                      int intensity, size_t nv)
{
    typedef typename v16<T>::t V;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nv; i += (size_t)gridDim.x * blockDim.x) {
        V v = a[i];
        T *e = (T *)&v;
        for (int k = 0; k < intensity; k++)
            for (int l = 0; l < v16<T>::n; l++)
                e[l] = e[l] * s + t;
        b[i] = v;
    }
}

/* HBM: each block owns one contiguous tile of BLOCK x UNROLL vectors, each
 * thread loads its UNROLL vectors before using any, and the grid covers the
 * array once. On an H200 this beat every grid-stride variant by 5-7%, and
 * streaming cache hints only cost (bench/triad_variants.cu, docs/performance.md). */
#define UNROLL 4
template <typename T>
static __device__ inline typename v16<T>::t triad_v(typename v16<T>::t b, typename v16<T>::t c, T s)
{
    typename v16<T>::t a;
    const T *be = (const T *)&b, *ce = (const T *)&c;
    T *ae = (T *)&a;
    for (int l = 0; l < v16<T>::n; l++)
        ae[l] = be[l] + s * ce[l];
    return a;
}

template <typename T>
__global__ void k_hbm(int op, typename v16<T>::t *__restrict__ a, typename v16<T>::t *__restrict__ b,
                      typename v16<T>::t *__restrict__ c, T s, size_t nv, double *partial)
{
    typedef typename v16<T>::t V;
    const size_t base = blockIdx.x * (size_t)blockDim.x * UNROLL + threadIdx.x;
    double sum = 0.0;
    V x[UNROLL], y[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        size_t i = base + (size_t)u * blockDim.x;
        if (i < nv) {
            if (op == MCF_OP_TRIAD) { x[u] = b[i]; y[u] = c[i]; }
            else x[u] = a[i];
        }
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        size_t i = base + (size_t)u * blockDim.x;
        if (i < nv) {
            if (op == MCF_OP_TRIAD) a[i] = triad_v<T>(x[u], y[u], s);
            else if (op == MCF_OP_COPY) c[i] = x[u];
            else { const T *e = (const T *)&x[u]; for (int l = 0; l < v16<T>::n; l++) sum += e[l]; }
        }
    }
    if (op == MCF_OP_READ)
        block_sum(sum, partial);
}

/* Shared memory: fill from the formula, then sweep it `passes` times. */
template <typename T>
__global__ void k_lds_read(size_t nv, int passes, double *partial)
{
    typedef typename v16<T>::t V;
    extern __shared__ double lds_raw[];
    V *lds = (V *)lds_raw;
    T *flat = (T *)lds_raw;
    for (size_t i = threadIdx.x; i < nv * v16<T>::n; i += blockDim.x)
        flat[i] = (T)mcf_init_a(i);
    __syncthreads();
    block_sum(sweep_sum<T>(lds, nv, passes, threadIdx.x, blockDim.x), partial);
}

struct mem_run {
    struct gpu_state *s;
    struct mcf_kernel k;
    size_t n, nv;                     /* elements per array, 16-byte vectors per array */
    int sets, cur, passes, local, blocks;
    void *a[MAX_SETS], *b[MAX_SETS], *c[MAX_SETS];
    double *partial;                  /* device, one per block */
    int last;                         /* set the last repetition used */
};

template <typename T>
static void launch(struct mem_run *r)
{
    typedef typename v16<T>::t V;
    int set = r->cur;
    V *a = (V *)r->a[set], *b = (V *)r->b[set], *c = (V *)r->c[set];
    gpuStream_t st = r->s->stream;
    if (r->k.level == MCF_LEVEL_HBM && r->k.op != MCF_OP_FMA && r->k.occupancy <= 0) {
        k_hbm<T><<<r->blocks, BLOCK, 0, st>>>((int)r->k.op, a, b, c, (T)MCF_TRIAD_S, r->nv, r->partial);
        return;
    }
    switch (r->k.level == MCF_LEVEL_LDS ? -1 : (int)r->k.op) {
    case -1:
        k_lds_read<T><<<r->blocks, BLOCK, r->k.bytes, st>>>(r->nv, r->passes, r->partial);
        break;
    case MCF_OP_READ:
        k_read<T><<<r->blocks, BLOCK, 0, st>>>(a, r->nv, r->passes, r->local, r->partial);
        break;
    case MCF_OP_COPY:
        k_copy<T><<<r->blocks, BLOCK, 0, st>>>(a, c, r->nv, r->passes, r->local);
        break;
    case MCF_OP_TRIAD:
        k_triad<T><<<r->blocks, BLOCK, 0, st>>>(a, b, c, (T)MCF_TRIAD_S, r->nv, r->passes, r->local);
        break;
    case MCF_OP_FMA:
        k_fma<T><<<r->blocks, BLOCK, 0, st>>>(a, b, (T)MCF_FMA_S, (T)MCF_FMA_T, r->k.intensity, r->nv);
        break;
    }
}

static void mem_free(struct mem_run *r)
{
    if (!r)
        return;
    for (int i = 0; i < MAX_SETS; i++) {
        if (r->a[i]) GPU_RELEASE(gpuFree(r->a[i]));
        if (r->b[i]) GPU_RELEASE(gpuFree(r->b[i]));
        if (r->c[i]) GPU_RELEASE(gpuFree(r->c[i]));
    }
    if (r->partial) GPU_RELEASE(gpuFree(r->partial));
    free(r);
}

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
        MCF_FAIL(e, MCF_EINPUT, "memory test of %llu bytes: at least 1 KiB", (unsigned long long)k->bytes);
    r->n = r->nv * (size_t)vn;
    r->k.bytes = r->n * es;
    bytes = r->n * es;
    r->sets = 1;
    r->passes = 1;
    r->blocks = s->sms * 8;              /* 2048 threads per SM */
    if (k->occupancy > 0)
        r->blocks = s->sms * ((k->occupancy + 7) / 8);
    moved = (double)r->n * mcf_kernel_bytes_per_unit(k);
    switch (k->level) {
    case MCF_LEVEL_HBM:
        if (k->op != MCF_OP_FMA && k->occupancy <= 0)
            r->blocks = (int)((r->nv + BLOCK * UNROLL - 1) / (BLOCK * UNROLL));   /* one tile per block */
        /* enough sets that consecutive repetitions never share a cached byte */
        if (k->op != MCF_OP_FMA) {
            r->sets = (int)((4.0 * s->prop.l2CacheSize) / (3.0 * bytes)) + 1;
            if (r->sets > MAX_SETS) r->sets = MAX_SETS;
        }
        break;
    case MCF_LEVEL_L2:
        if (k->op == MCF_OP_FMA)
            MCF_FAIL(e, MCF_EINPUT, "the intensity kernel (op fma) runs at level hbm");
        r->passes = (int)(8e9 / moved) + 1;     /* about 8 GB per launch: well past launch costs */
        break;
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
                       ? (int)(gpuPropSharedPerSM(s->prop) / bytes) : 1;
            r->blocks = s->sms * per_sm;
        }
        r->passes = (int)(4e9 / (moved * r->blocks)) + 1;
        break;
    default:
        break;
    }
    for (int i = 0; i < r->sets; i++) {
        GPU_TRY(e, gpuMalloc(&r->a[i], bytes));
        GPU_TRY(e, gpuMalloc(&r->b[i], bytes));
        GPU_TRY(e, gpuMalloc(&r->c[i], bytes));
        MCF_TRY(gpu_init_arrays(k->dtype, r->a[i], r->b[i], r->c[i], r->n, s->sms * 8, s->stream, e));
    }
    GPU_TRY(e, gpuMalloc((void **)&r->partial, sizeof(double) * (size_t)r->blocks));
    if (k->level == MCF_LEVEL_LDS) {
        if (k->dtype == MCF_FP64)
            GPU_TRY(e, gpuFuncSetAttribute(k_lds_read<double>, gpuFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
        else
            GPU_TRY(e, gpuFuncSetAttribute(k_lds_read<float>, gpuFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    }
    GPU_TRY(e, gpuStreamSynchronize(s->stream));
    *ks = r;
    return MCF_OK;
fail:
    mem_free(r);
    return e->rc;
}

/* One timed repetition: `sweeps` launches back to back in one timed span
 * (each on the next set of arrays), so that a repetition lasts long enough
 * for a power window; the last launch's output is verified. */
static int memory_run(void *ks, struct mcf_sample *smp, struct mcf_err *e)
{
    struct mem_run *r = (struct mem_run *)ks;
    uint64_t sweeps = r->k.sweeps ? r->k.sweeps : 1;
    if (r->k.dtype == MCF_FP64)
        MCF_TRY(gpu_time(r->s, [&] {
            for (uint64_t i = 0; i < sweeps; i++) { r->last = r->cur; launch<double>(r); r->cur = (r->cur + 1) % r->sets; }
        }, &smp->seconds, e));
    else
        MCF_TRY(gpu_time(r->s, [&] {
            for (uint64_t i = 0; i < sweeps; i++) { r->last = r->cur; launch<float>(r); r->cur = (r->cur + 1) % r->sets; }
        }, &smp->seconds, e));
    smp->units = (double)r->n * r->passes * (r->local ? r->blocks : 1) * (double)sweeps;
    return MCF_OK;
fail:
    return e->rc;
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
    double *partial = NULL;
    int set = r->last;
    if (r->k.op == MCF_OP_READ || r->k.level == MCF_LEVEL_LDS) {
        long double got = 0, want = 0;
        MCF_ALLOC(e, partial, r->blocks);
        GPU_TRY(e, gpuMemcpy(partial, r->partial, sizeof(double) * r->blocks, gpuMemcpyDeviceToHost));
        if (r->k.inject_fault)
            partial[0] += 1.0;
        for (int i = 0; i < r->blocks; i++)
            got += partial[i];
        for (size_t g = 0; g < r->n; g++)
            want += fp64 ? mcf_init_a(g) : (float)mcf_init_a(g);
        want *= (long double)r->passes * (r->local ? r->blocks : 1);
        /* exact: every input is 1 + j/1024 (11 significant bits), so any sum of
         * fewer than 2^42 of them is exact in double, in any order; a single
         * wrong element shows */
        if (got != want)
            MCF_FAIL(e, MCF_EVERIFY, "memory %s read: sum %.17Lg, expected %.17Lg (exact)",
                     mcf_level_names[r->k.level], got, want);
        free(partial);
        return MCF_OK;
    }
    {
        void *out = r->k.op == MCF_OP_COPY ? r->c[set] : r->k.op == MCF_OP_TRIAD ? r->a[set] : r->b[set];
        MCF_TRY(gpu_check_output(r->k.op, r->k.dtype, r->k.intensity, out, r->n, r->k.inject_fault, e));
    }
    return MCF_OK;
fail:
    free(partial);
    return e->rc;
}

int gpu_check_output(enum mcf_memop op, enum mcf_dtype dtype, int intensity, const void *dev, size_t n,
                     int inject_fault, struct mcf_err *e)
{
    int fp64 = dtype == MCF_FP64;
    size_t es = fp64 ? 8 : 4;
    double eps = fp64 ? DBL_EPSILON : FLT_EPSILON;
    void *host = malloc(n * es);
    if (!host)
        MCF_FAIL(e, MCF_ERUNTIME, "out of host memory for verification");
    GPU_TRY(e, gpuMemcpy(host, dev, n * es, gpuMemcpyDeviceToHost));
    if (inject_fault) {
        if (fp64) ((double *)host)[0] += 1.0;
        else ((float *)host)[0] += 1.0f;
    }
    /* every element; the intensity kernel's long reference on a sample of 65536 */
    for (size_t g = 0; g < n; g += (op == MCF_OP_FMA && n > 65536) ? n / 65536 : 1) {
        double got = host_elem(host, fp64, g), want, tol;
        if (op == MCF_OP_COPY) {
            want = fp64 ? mcf_init_a(g) : (float)mcf_init_a(g);
            tol = 0.0;
        } else if (op == MCF_OP_TRIAD) {
            double b = fp64 ? mcf_init_b(g) : (float)mcf_init_b(g);
            double c = fp64 ? mcf_init_c(g) : (float)mcf_init_c(g);
            double s = fp64 ? MCF_TRIAD_S : (float)MCF_TRIAD_S;
            want = b + s * c;
            tol = 2.0 * eps * fabs(want);
        } else {
            long double y = fp64 ? mcf_init_a(g) : (float)mcf_init_a(g);
            long double s = fp64 ? MCF_FMA_S : (float)MCF_FMA_S, t = fp64 ? MCF_FMA_T : (float)MCF_FMA_T;
            for (int j = 0; j < intensity; j++)
                y = y * s + t;
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

static void memory_teardown(void *ks) { mem_free((struct mem_run *)ks); }

GPU_HOST_OPS(gpu_memory_ops, memory_setup, memory_run, memory_verify, memory_teardown);
