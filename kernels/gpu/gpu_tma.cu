/* Hopper's Tensor Memory Accelerator (level tma) and distributed shared
 * memory (level dsm), built for sm_90a only (like kernels/cuda/wgmma.cu):
 * this file is compiled with -gencode arch=compute_90a,code=sm_90a and
 * nothing else, so its kernels exist only where the instructions do; any
 * other GPU gets MCF_EUNSUPPORTED with the reason. After "Dissecting the
 * NVIDIA Hopper Architecture through Microbenchmarking" (Luo et al.),
 * sections 5 and 7.
 *
 * Throughput (mode throughput, op read):
 *   tma: each CTA copies tiles of `load` bytes of one array into shared
 *        memory, 4 copies in flight (one thread issues them, an mbarrier per
 *        stage completes them: expect-tx bytes), one-dimensional
 *        cp.async.bulk or cp.async.bulk.tensor.2d through a tensor map
 *        (cuTensorMapEncodeTiled, through the runtime's driver entry point:
 *        libcuda is not linked); all threads add the 32-bit words landed.
 *   dsm: clusters of `cluster` CTAs; each fills its shared memory (its rank's
 *        part of the formula), then reads a peer's (pattern ring, pair or
 *        broadcast) with ld.shared::cluster at the address mapa gives, and
 *        adds the words.
 * The host adds the same words of the formula's values: each CTA's sum
 * (dsm) or the grid's (tma) must match exactly, modulo 2^32.
 *
 * Latency (mode latency), one thread, a dependent chain, clock64:
 *   tma: each step a bulk copy of `load` bytes whose first word names the
 *        next slot; beside it the same kind of chain of ld.global.cg in
 *        another part of the array (the plain load the TMA is compared to);
 *   dsm: a chain of ld.shared::cluster in the peer's shared memory (another
 *        SM: checked by %smid) and one of ld.shared in the CTA's own.
 * Both chains end where the host's walk of them ends. */
#include "gpu_tma.h"

/* ---- device helpers (sm_90a PTX) ---- */

static __device__ inline unsigned saddr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

static __device__ inline void mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(saddr(bar)), "r"(count)
                 : "memory");
}
static __device__ inline void mbar_fence_init(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::
                     : "memory");
}
static __device__ inline void mbar_expect(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(saddr(bar)),
                 "r"(bytes)
                 : "memory");
}
static __device__ inline void mbar_wait(uint64_t *bar, unsigned phase)
{
    unsigned done = 0;
    while (!done)
        asm volatile(
            "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
            "selp.u32 %0, 1, 0, p;\n\t}"
            : "=r"(done)
            : "r"(saddr(bar)), "r"(phase)
            : "memory");
}
static __device__ inline void tma_bulk(void *dst, const void *src, unsigned bytes, uint64_t *bar)
{
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
            "r"(saddr(dst)),
        "l"(src), "r"(bytes), "r"(saddr(bar))
        : "memory");
}
static __device__ inline void tma_2d(void *dst, const CUtensorMap *map, int x, int y, uint64_t *bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%2, %3}], [%4];" ::"r"(saddr(dst)),
                 "l"((unsigned long long)map), "r"(x), "r"(y), "r"(saddr(bar))
                 : "memory");
}
static __device__ inline unsigned cluster_rank(void)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
static __device__ inline void cluster_sync(void)
{
    asm volatile(
        "barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::
            : "memory");
}
static __device__ inline unsigned mapa(unsigned local, unsigned rank)
{
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(local), "r"(rank));
    return r;
}
static __device__ inline uint4 ld_cluster_v4(unsigned a)
{
    uint4 v;
    asm volatile("ld.shared::cluster.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(a));
    return v;
}
static __device__ inline unsigned ld_cluster(unsigned a)
{
    unsigned v;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
    return v;
}
static __device__ inline unsigned ld_shared(unsigned a)
{
    unsigned v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
    return v;
}
static __device__ inline unsigned ld_global_cg(const void *p)
{
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

static __device__ inline unsigned peer_of(unsigned r, unsigned cs, int pattern)
{
    return pattern == MCF_PATTERN_RING ? (r + 1) % cs : pattern == MCF_PATTERN_PAIR ? r ^ 1u : 0u;
}

/* one sum per CTA through shared memory */
static __device__ void cta_sum(unsigned v, unsigned *partial)
{
    __shared__ unsigned sh[32];
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0) sh[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned s = 0;
        for (unsigned w = 0; w < blockDim.x / 32; w++) s += sh[w];
        partial[blockIdx.x] = s;
    }
}

/* per-SM earliest start and latest end, cycles and ns (as gpu_memory.cu) */
static __device__ inline void stamp_end(long long c0, unsigned long long t0, sm_clock *clk)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned sm = gpu_smid() % SLOTS;
        atomicMin(&clk->first[2 * sm], (unsigned long long)c0);
        atomicMin(&clk->first[2 * sm + 1], t0);
        atomicMax(&clk->last[2 * sm], (unsigned long long)clock64());
        atomicMax(&clk->last[2 * sm + 1], gpu_globaltimer());
    }
}

/* ---- kernels ---- */

template <typename T> __global__ void k_fill(T *a, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        a[i] = (T)mcf_init_a(i);
}

/* tiles t = blockIdx.x + j * gridDim.x of `total` (tiles x passes), tile t % tiles */
__global__ void __launch_bounds__(TBLOCK, 4)
    k_tma_read(const unsigned char *src, const __grid_constant__ CUtensorMap map, int tensor,
               unsigned load, unsigned long long tiles, unsigned long long total, int box_x,
               int box_rows, unsigned *partial, sm_clock *clk)
{
    extern __shared__ __align__(128) unsigned char stage_buf[];
    __shared__ __align__(8) uint64_t full[STAGES];
    const long long c0 = clock64();
    const unsigned long long t0 = gpu_globaltimer();
    unsigned long long mine =
        total > blockIdx.x ? (total - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) mbar_init(&full[s], 1);
        mbar_fence_init();
    }
    __syncthreads();
    auto issue = [&](unsigned long long j) {
        unsigned long long t = (blockIdx.x + j * gridDim.x) % tiles;
        unsigned s = (unsigned)(j % STAGES);
        mbar_expect(&full[s], load);
        if (tensor) {
            unsigned per_row = GROW / ROW; /* boxes side by side in a tensor row */
            tma_2d(stage_buf + (size_t)s * load, &map, (int)(t % per_row) * box_x,
                   (int)(t / per_row) * box_rows, &full[s]);
        } else {
            tma_bulk(stage_buf + (size_t)s * load, src + t * load, load, &full[s]);
        }
    };
    if (threadIdx.x == 0)
        for (unsigned long long j = 0; j < mine && j < STAGES; j++) issue(j);
    unsigned sum = 0;
    for (unsigned long long j = 0; j < mine; j++) {
        unsigned s = (unsigned)(j % STAGES);
        mbar_wait(&full[s], (unsigned)(j / STAGES) & 1u);
        const uint4 *v = (const uint4 *)(stage_buf + (size_t)s * load);
        for (unsigned i = threadIdx.x; i < load / 16; i += blockDim.x) {
            uint4 w = v[i];
            sum += w.x + w.y + w.z + w.w;
        }
        __syncthreads(); /* the stage is read: it may be refilled */
        if (threadIdx.x == 0 && j + STAGES < mine) issue(j + STAGES);
    }
    cta_sum(sum, partial);
    stamp_end(c0, t0, clk);
}

/* each CTA's shared memory holds elements rank * n .. rank * n + n - 1 of the formula */
template <typename T>
__global__ void __launch_bounds__(DBLOCK, 4)
    k_dsm_read(unsigned n, int passes, int pattern, unsigned *partial, sm_clock *clk)
{
    extern __shared__ __align__(16) unsigned char dsm_buf[];
    T *flat = (T *)dsm_buf;
    const unsigned rank = cluster_rank();
    unsigned size;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
        flat[i] = (T)mcf_init_a((uint64_t)rank * n + i);
    cluster_sync();
    const long long c0 = clock64();
    const unsigned long long t0 = gpu_globaltimer();
    const unsigned remote = mapa(saddr(dsm_buf), peer_of(rank, size, pattern));
    const unsigned nv = n * (unsigned)sizeof(T) / 16;
    unsigned s0 = 0, s1 = 0;
    /* broadcast: rank 0 is the source and reads nothing (as the Hopper paper's
     * benchmark): its own shared memory, read through the cluster window,
     * never crosses to another SM and would count local bytes as DSM's */
    const int reads = pattern == MCF_PATTERN_BROADCAST && rank == 0 ? 0 : passes;
    for (int p = 0; p < reads; p++) {
#pragma unroll 4
        for (unsigned i = threadIdx.x; i < nv; i += blockDim.x) {
            uint4 w = ld_cluster_v4(remote + 16 * i);
            s0 += w.x + w.y;
            s1 += w.z + w.w;
        }
    }
    cluster_sync(); /* no CTA leaves while a peer may still read its shared memory */
    cta_sum(s0 + s1, partial);
    stamp_end(c0, t0, clk);
}

/* slot s of the chain's array (load bytes each) starts with the next slot's index */
__global__ void k_chain_fill(unsigned *g, unsigned load, unsigned long long nslots,
                             unsigned long long step)
{
    for (unsigned long long s = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
         s < nslots; s += (unsigned long long)gridDim.x * blockDim.x)
        g[s * (load / 4)] = (unsigned)((s + step) % nslots);
}

/* out: [0] TMA cycles, [1] plain cycles, [2] TMA ns, [3] TMA last slot, [4] plain last slot, [5]
 * TMA sum, [6] plain sum */
__global__ void k_tma_chase(const unsigned char *g, unsigned load, unsigned steps,
                            unsigned long long start_tma, unsigned long long start_base,
                            unsigned long long *out)
{
    extern __shared__ __align__(128) unsigned char landing[];
    __shared__ __align__(8) uint64_t bar;
    if (threadIdx.x != 0) return;
    mbar_init(&bar, 1);
    mbar_fence_init();
    unsigned long long j = start_tma, sum = 0;
    unsigned phase = 0;
    long long c0 = clock64();
    unsigned long long t0 = gpu_globaltimer();
    for (unsigned k = 0; k < steps; k++) {
        mbar_expect(&bar, load);
        tma_bulk(landing, g + j * load, load, &bar);
        mbar_wait(&bar, phase);
        phase ^= 1u;
        j = ld_shared(saddr(landing));
        sum += j;
    }
    long long c1 = clock64();
    unsigned long long t1 = gpu_globaltimer();
    out[0] = (unsigned long long)(c1 - c0);
    out[2] = t1 - t0;
    out[3] = j;
    out[5] = sum;
    j = start_base;
    sum = 0;
    c0 = clock64();
    for (unsigned k = 0; k < steps; k++) {
        j = ld_global_cg(g + j * load);
        sum += j;
    }
    c1 = clock64();
    out[1] = (unsigned long long)(c1 - c0);
    out[4] = j;
    out[6] = sum;
}

/* words[i] = (i + step) % n + rank * n: the chain, tagged with whose it is.
 * out: [0] peer cycles, [1] own cycles, [2] peer ns, [3] peer last, [4] own
 * last, [5] peer sum, [6] own sum, [7] chaser's SM, [8] peer's SM */
__global__ void k_dsm_chase(unsigned n, unsigned step, unsigned steps, int pattern,
                            unsigned long long *out)
{
    extern __shared__ __align__(16) unsigned words[];
    const unsigned rank = cluster_rank();
    unsigned size;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) words[i] = (i + step) % n + rank * n;
    const unsigned chaser = pattern == MCF_PATTERN_BROADCAST ? size - 1 : 0,
                   peer = peer_of(chaser, size, pattern);
    if (rank == peer && threadIdx.x == 0) out[8] = gpu_smid();
    cluster_sync();
    if (rank == chaser && threadIdx.x == 0) {
        const unsigned remote = mapa(saddr(words), peer), own = saddr(words);
        unsigned j = 0, v;
        unsigned long long sum = 0;
        long long c0 = clock64();
        unsigned long long t0 = gpu_globaltimer();
        for (unsigned k = 0; k < steps; k++) {
            v = ld_cluster(remote + 4 * j);
            sum += v;
            j = v - peer * n;
        }
        long long c1 = clock64();
        unsigned long long t1 = gpu_globaltimer();
        out[0] = (unsigned long long)(c1 - c0);
        out[2] = t1 - t0;
        out[3] = j;
        out[5] = sum;
        j = 0;
        sum = 0;
        c0 = clock64();
        for (unsigned k = 0; k < steps; k++) {
            v = ld_shared(own + 4 * j);
            sum += v;
            j = v - rank * n;
        }
        c1 = clock64();
        out[1] = (unsigned long long)(c1 - c0);
        out[4] = j;
        out[6] = sum;
        out[7] = gpu_smid();
    }
    cluster_sync();
}

/* the host side (gpu_hopper.cu) launches these through cudaLaunchKernelExC */
const struct hop_kernels hop_kernels = {
    (const void *)k_tma_read,
    { (const void *)k_dsm_read<double>, (const void *)k_dsm_read<float> },
    { (const void *)k_fill<double>, (const void *)k_fill<float> },
    (const void *)k_chain_fill,
    (const void *)k_tma_chase,
    (const void *)k_dsm_chase,
};
