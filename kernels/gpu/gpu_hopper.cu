/* The host side of the memory family's Hopper levels, tma and dsm (the
 * kernels, sm_90a code only, are gpu_tma.cu's; what they do is said there).
 * CUDA only: gpu_mlevel.cu sends these levels here, and AMD refuses them. */
#include <cudaTypedefs.h> /* PFN_cuTensorMapEncodeTiled_v12000 */
#include <stdlib.h>
#include <string.h>

#include "gpu_tma.h"
#include "stats.h"

#define LAUNCH_BYTES 2e9 /* bytes one throughput launch moves: a millisecond or more */
#define CHAIN_STEPS 4096 /* dependent steps of a latency chain */
#define DSM_STEP 37 /* words between a DSM chain's steps (prime: every bank) */

struct hop_run {
    struct gpu_state *s;
    struct mcf_kernel k;
    size_t es, n; /* element size; elements (tma: the array; dsm: one CTA's) */
    unsigned char *a; /* device: the array (tma) */
    unsigned *partial; /* device: one sum per CTA */
    unsigned long long *out; /* device: the latency kernels' figures */
    struct sm_clock *clk, *host_clk;
    CUtensorMap map;
    int blocks, passes, smem, box_x, box_rows, latency, fp;
    unsigned long long tiles, nslots, step, rep, start_tma, start_base;
    unsigned steps;
    unsigned long long got[9];
};

static void hop_free(struct hop_run *r)
{
    if (!r) return;
    if (r->a) GPU_RELEASE(cudaFree(r->a));
    if (r->partial) GPU_RELEASE(cudaFree(r->partial));
    if (r->out) GPU_RELEASE(cudaFree(r->out));
    if (r->clk) GPU_RELEASE(cudaFree(r->clk));
    free(r->host_clk);
    free(r);
}

/* the sm_90a image resolves only on an sm_90 device */
static int hopper_available(const struct gpu_state *s)
{
    struct cudaFuncAttributes attr;
    if (s->prop.major != 9 || s->prop.minor != 0) return 0;
    if (cudaFuncGetAttributes(&attr, hop_kernels.chain_fill) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return attr.binaryVersion == 90;
}

static unsigned long long gcd(unsigned long long a, unsigned long long b)
{
    while (b) {
        unsigned long long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int encode_2d(struct hop_run *r, struct mcf_err *e)
{
    void *fn = NULL;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    GPU_TRY(e,
            cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                             cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !fn)
        MCF_FAIL(
            e, MCF_EUNSUPPORTED,
            "the driver has no cuTensorMapEncodeTiled (tma: tensor-2d needs CUDA 12's driver)");
    {
        cuuint64_t dims[2] = { GROW / r->es,
                               (cuuint64_t)(r->tiles / (GROW / ROW)) * (cuuint64_t)r->box_rows };
        cuuint64_t strides[1] = { GROW };
        cuuint32_t box[2] = { (cuuint32_t)r->box_x, (cuuint32_t)r->box_rows }, estr[2] = { 1, 1 };
        CUresult rc = ((PFN_cuTensorMapEncodeTiled_v12000)fn)(
            &r->map, r->es == 8 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT64 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            2, r->a, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
            CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (rc != CUDA_SUCCESS)
            MCF_FAIL(
                e, MCF_ERUNTIME,
                "cuTensorMapEncodeTiled failed (CUresult %d) for a %llu x %llu tensor, box %d x %d",
                (int)rc, (unsigned long long)dims[0], (unsigned long long)dims[1], r->box_x,
                r->box_rows);
    }
    return MCF_OK;
fail:
    return e->rc;
}

/* `want` CTAs fit one SM at once, or the ctas key would not be what ran */
static int fits(struct hop_run *r, const void *fn, int threads, int want, struct mcf_err *e)
{
    int per_sm = 0;
    GPU_TRY(e, cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, r->smem));
    GPU_TRY(e,
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, (size_t)r->smem));
    if (per_sm < want)
        MCF_FAIL(e, MCF_EUNSUPPORTED,
                 "%d CTAs of %d threads and %d bytes of shared memory per SM: only %d fit", want,
                 threads, r->smem, per_sm);
    return MCF_OK;
fail:
    return e->rc;
}

static void cluster_config(struct hop_run *r, cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr,
                           int blocks, int threads)
{
    *cfg = cudaLaunchConfig_t();
    cfg->gridDim = dim3((unsigned)blocks);
    cfg->blockDim = dim3((unsigned)threads);
    cfg->dynamicSmemBytes = (size_t)r->smem;
    cfg->stream = r->s->stream;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = (unsigned)r->k.cluster;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg->attrs = attr;
    cfg->numAttrs = 1;
}

/* how many clusters of k.cluster CTAs of r->smem bytes fit the GPU at once
 * (over 8 CTAs is non-portable: allowed by the kernel's attribute) */
static int clusters_fit(struct hop_run *r, const void *fn, int threads, int *nclusters,
                        struct mcf_err *e)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    *nclusters = 0;
    GPU_TRY(e, cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, r->smem));
    if (r->k.cluster > 8)
        GPU_TRY(e, cudaFuncSetAttribute(fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cluster_config(r, &cfg, &attr, r->k.cluster, threads);
    GPU_TRY(e, cudaOccupancyMaxActiveClusters(nclusters, fn, &cfg));
    return MCF_OK;
fail:
    return e->rc;
}

static int cluster_ready(struct hop_run *r, const void *fn, int threads, struct mcf_err *e)
{
    int nclusters = 0;
    MCF_TRY(clusters_fit(r, fn, threads, &nclusters, e));
    if (nclusters < 1)
        MCF_FAIL(e, MCF_EUNSUPPORTED,
                 "a cluster of %d CTAs with %d bytes of shared memory each cannot be scheduled "
                 "on this GPU",
                 r->k.cluster, r->smem);
    return MCF_OK;
fail:
    return e->rc;
}

static int setup_tma(struct hop_run *r, struct mcf_err *e)
{
    const struct mcf_kernel *k = &r->k;
    const int ctas = k->ctas > 0 ? k->ctas : 2;
    int tensor = k->tma == MCF_TMA_TENSOR_2D;
    size_t bytes;
    r->smem = STAGES * (int)k->load;
    r->blocks = r->s->sms * ctas;
    if (tensor) {
        r->box_x = ROW / (int)r->es;
        r->box_rows = (int)k->load / ROW;
        r->tiles = (k->bytes / GROW / r->box_rows) * (GROW / ROW);
    } else {
        r->tiles = k->bytes / k->load;
    }
    if (r->tiles < 4)
        MCF_FAIL(e, MCF_EINPUT, "memory tma test of %llu bytes: fewer than 4 copies of %u bytes",
                 (unsigned long long)k->bytes, k->load);
    bytes = (size_t)(r->tiles * k->load);
    r->n = bytes / r->es;
    r->k.bytes = bytes;
    r->passes = (int)(LAUNCH_BYTES / (double)bytes) + 1;
    GPU_TRY(e, cudaMalloc((void **)&r->a, bytes));
    {
        void *args[] = { &r->a, &r->n };
        GPU_TRY(e,
                cudaLaunchKernel(hop_kernels.fill[r->fp], dim3(r->s->sms * 8), dim3(256), args, 0,
                                 r->s->stream));
    }
    if (tensor) MCF_TRY(encode_2d(r, e));
    MCF_TRY(fits(r, hop_kernels.tma_read, TBLOCK, ctas, e));
    return MCF_OK;
fail:
    return e->rc;
}

static int setup_dsm(struct hop_run *r, struct mcf_err *e)
{
    const struct mcf_kernel *k = &r->k;
    const int ctas = k->ctas > 0 ? k->ctas : 4, cs = k->cluster;
    r->smem = (int)k->bytes;
    r->n = k->bytes / r->es;
    int nclusters = 0;
    r->blocks = (r->s->sms * ctas + cs - 1) / cs * cs;
    MCF_TRY(cluster_ready(r, hop_kernels.dsm_read[r->fp], DBLOCK, e));
    /* one wave: no more clusters than are resident at once (a GPC holds
     * whole clusters, so from 4 CTAs on fewer than sms * ctas fit; a second
     * wave would halve the rate of an unchanged per-SM traffic) */
    MCF_TRY(clusters_fit(r, hop_kernels.dsm_read[r->fp], DBLOCK, &nclusters, e));
    if (nclusters * cs < r->blocks) r->blocks = nclusters * cs;
    r->passes = (int)(LAUNCH_BYTES / ((double)k->bytes * r->blocks)) + 1;
    MCF_TRY(fits(r, hop_kernels.dsm_read[r->fp], DBLOCK, ctas, e));
    return MCF_OK;
fail:
    return e->rc;
}

/* TMA chain: slots of `load` bytes, each step 4 KiB or more ahead; the
 * plain chain runs in the array's other half, so neither warms the other's lines */
static int setup_tma_chase(struct hop_run *r, struct mcf_err *e)
{
    const unsigned load = r->k.load;
    r->nslots = r->k.bytes / load;
    r->step = 4096 / load + 1;
    while (r->nslots > 1 && gcd(r->step, r->nslots) != 1) r->nslots--;
    r->steps =
        (unsigned)(r->nslots / 2 / r->step < CHAIN_STEPS ? r->nslots / 2 / r->step : CHAIN_STEPS);
    if (r->nslots > 0xffffffffull)
        MCF_FAIL(e, MCF_EINPUT,
                 "memory tma latency test: at most 2^32 copies of %u bytes in 'bytes'", load);
    if (r->steps < 16)
        MCF_FAIL(
            e, MCF_EINPUT,
            "memory tma latency test of %llu bytes: too small for two chains of 16 copies of %u "
            "bytes 4 KiB apart",
            (unsigned long long)r->k.bytes, load);
    r->smem = (int)load;
    GPU_TRY(e, cudaMalloc((void **)&r->a, r->nslots * load));
    GPU_TRY(e, cudaMemsetAsync(r->a, 0, r->nslots * load, r->s->stream));
    {
        void *args[] = { &r->a, (void *)&load, &r->nslots, &r->step };
        GPU_TRY(e,
                cudaLaunchKernel(hop_kernels.chain_fill, dim3(r->s->sms * 8), dim3(256), args, 0,
                                 r->s->stream));
    }
    GPU_TRY(e,
            cudaFuncSetAttribute(hop_kernels.tma_chase, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 r->smem));
    return MCF_OK;
fail:
    return e->rc;
}

/* DSM chain: each CTA takes over half an SM's shared memory, so no two share
 * an SM; where a cluster of such CTAs cannot be scheduled (16 of them need
 * 16 SMs of one GPC), only `bytes`, the CTAs then spread by the scheduler
 * (the paper saw one SM each) and the kernel's %smid check keeps it honest */
static int setup_dsm_chase(struct hop_run *r, struct mcf_err *e)
{
    size_t want = r->s->prop.sharedMemPerMultiprocessor / 2 + 1024,
           most = r->s->prop.sharedMemPerBlockOptin;
    r->nslots = r->k.bytes / 4;
    while (r->nslots > 1 && gcd(DSM_STEP, r->nslots) != 1) r->nslots--;
    r->step = DSM_STEP;
    r->steps = CHAIN_STEPS;
    r->smem = (int)(r->k.bytes > want ? r->k.bytes : want);
    if ((size_t)r->smem > most) r->smem = (int)most;
    if (r->k.bytes > (uint64_t)r->smem)
        MCF_FAIL(e, MCF_EINPUT, "memory dsm latency test of %llu bytes: a CTA may have %zu",
                 (unsigned long long)r->k.bytes, most);
    {
        int nclusters = 0;
        MCF_TRY(clusters_fit(r, hop_kernels.dsm_chase, 32, &nclusters, e));
        if (nclusters < 1) r->smem = (int)r->k.bytes;
    }
    MCF_TRY(cluster_ready(r, hop_kernels.dsm_chase, 32, e));
    return MCF_OK;
fail:
    return e->rc;
}

static int hop_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    struct hop_run *r = NULL;
    if (!hopper_available(s))
        return mcf_err_set(
            e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
            "level %s needs a Hopper GPU (sm_90) and this binary's sm_90a code (this is sm_%d%d)",
            mcf_level_names[k->level], s->prop.major, s->prop.minor);
    /* the tensor map inside is 64-byte aligned (cuda.h): calloc's 16 is not enough */
    if (posix_memalign((void **)&r, 64, sizeof *r) != 0)
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of host memory");
    memset(r, 0, sizeof *r);
    r->s = s;
    r->k = *k;
    r->es = (size_t)mcf_dtype_size(k->dtype);
    r->fp = k->dtype == MCF_FP64 ? 0 : 1;
    r->latency = k->mode == MCF_MODE_LATENCY;
    if (k->level == MCF_LEVEL_TMA)
        MCF_TRY(r->latency ? setup_tma_chase(r, e) : setup_tma(r, e));
    else
        MCF_TRY(r->latency ? setup_dsm_chase(r, e) : setup_dsm(r, e));
    GPU_TRY(e, cudaMalloc((void **)&r->out, sizeof r->got));
    GPU_TRY(e,
            cudaMalloc((void **)&r->partial,
                       sizeof(unsigned) * (size_t)(r->blocks > 0 ? r->blocks : 1)));
    GPU_TRY(e, cudaMalloc((void **)&r->clk, sizeof *r->clk));
    MCF_ALLOC(e, r->host_clk, 1);
    GPU_TRY(e, cudaStreamSynchronize(s->stream));
    *ks = r;
    return MCF_OK;
fail:
    hop_free(r);
    return e->rc;
}

static double sm_clock_mhz(const struct sm_clock *c)
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

static int run_latency(struct hop_run *r, struct mcf_sample *smp, struct mcf_err *e)
{
    GPU_TRY(e, cudaMemsetAsync(r->out, 0, sizeof r->got, r->s->stream));
    if (r->k.level == MCF_LEVEL_TMA) {
        /* each repetition in a part of the array the ones before did not touch (beyond the L2 where
         * it is larger) */
        r->start_tma = (r->rep++ * 2ull * r->steps * r->step) % r->nslots;
        r->start_base = (r->start_tma + r->nslots / 2) % r->nslots;
        void *args[] = { &r->a, &r->k.load, &r->steps, &r->start_tma, &r->start_base, &r->out };
        GPU_TRY(e,
                cudaLaunchKernel(hop_kernels.tma_chase, dim3(1), dim3(32), args, (size_t)r->smem,
                                 r->s->stream));
    } else {
        cudaLaunchConfig_t cfg;
        cudaLaunchAttribute attr;
        unsigned n = (unsigned)r->nslots, step = (unsigned)r->step;
        int pattern = (int)r->k.pattern;
        void *args[] = { &n, &step, &r->steps, &pattern, &r->out };
        cluster_config(r, &cfg, &attr, r->k.cluster, 32);
        GPU_TRY(e, cudaLaunchKernelExC(&cfg, hop_kernels.dsm_chase, args));
    }
    GPU_TRY(e,
            cudaMemcpyAsync(r->got, r->out, sizeof r->got, cudaMemcpyDeviceToHost, r->s->stream));
    GPU_TRY(e, cudaStreamSynchronize(r->s->stream));
    smp->units = r->steps;
    smp->seconds = (double)r->got[2] * 1e-9;
    smp->cycles = (double)r->got[0] / r->steps;
    smp->base_cycles = (double)r->got[1] / r->steps;
    smp->clock_mhz = r->got[2] ? (double)r->got[0] / (double)r->got[2] * 1e3 : 0.0;
    return MCF_OK;
fail:
    return e->rc;
}

static int hop_run_rep(void *ks, struct mcf_sample *smp, struct mcf_err *e)
{
    struct hop_run *r = (struct hop_run *)ks;
    int rc = MCF_OK;
    if (r->latency) return run_latency(r, smp, e);
    GPU_TRY(e, cudaMemsetAsync(r->clk->first, 0xff, sizeof r->clk->first, r->s->stream));
    GPU_TRY(e, cudaMemsetAsync(r->clk->last, 0, sizeof r->clk->last, r->s->stream));
    if (r->k.level == MCF_LEVEL_TMA) {
        int tensor = r->k.tma == MCF_TMA_TENSOR_2D;
        unsigned long long total = r->tiles * (unsigned long long)r->passes;
        void *args[] = { &r->a,  &r->map,   &tensor,      &r->k.load,  &r->tiles,
                         &total, &r->box_x, &r->box_rows, &r->partial, &r->clk };
        MCF_TRY(gpu_time(
            r->s,
            [&] {
                cudaLaunchKernel(hop_kernels.tma_read, dim3(r->blocks), dim3(TBLOCK), args,
                                 (size_t)r->smem, r->s->stream);
            },
            &smp->seconds, e));
        smp->units = (double)r->n * r->passes;
    } else {
        cudaLaunchConfig_t cfg;
        cudaLaunchAttribute attr;
        unsigned n = (unsigned)r->n;
        int pattern = (int)r->k.pattern;
        void *args[] = { &n, &r->passes, &pattern, &r->partial, &r->clk };
        cluster_config(r, &cfg, &attr, r->blocks, DBLOCK);
        MCF_TRY(gpu_time(
            r->s, [&] { rc = (int)cudaLaunchKernelExC(&cfg, hop_kernels.dsm_read[r->fp], args); },
            &smp->seconds, e));
        GPU_TRY(e, (cudaError_t)rc);
        /* the bytes that crossed: broadcast's source CTA (rank 0 of each cluster) reads nothing */
        double readers = r->k.pattern == MCF_PATTERN_BROADCAST
            ? (double)r->blocks / r->k.cluster * (r->k.cluster - 1)
            : (double)r->blocks;
        smp->units = (double)r->n * r->passes * readers;
    }
    GPU_TRY(e, cudaMemcpy(r->host_clk, r->clk, sizeof *r->clk, cudaMemcpyDeviceToHost));
    smp->clock_mhz = sm_clock_mhz(r->host_clk);
    return MCF_OK;
fail:
    return e->rc;
}

/* ---- verification: the host's own walk of the same formula and chains ---- */

/* the 32-bit words of formula element g */
static unsigned element_words(int fp64, uint64_t g)
{
    uint32_t w[2] = { 0, 0 };
    if (fp64) {
        double v = mcf_init_a(g);
        memcpy(w, &v, 8);
    } else {
        float v = (float)mcf_init_a(g);
        memcpy(w, &v, 4);
    }
    return w[0] + w[1];
}

/* ... of elements first .. first + count - 1, added modulo 2^32: the formula
 * repeats every MCF_A_PERIOD elements, so whole periods are one product (a
 * GiB of fp32 is summed in microseconds, not seconds) */
#define MCF_A_PERIOD 1021 /* reference.h's mcf_init_a: 1 + (g % 1021) / 1024 */
static unsigned formula_words(int fp64, uint64_t first, uint64_t count)
{
    unsigned period = 0, sum = 0;
    for (uint64_t g = first; g < first + MCF_A_PERIOD; g++) period += element_words(fp64, g);
    for (uint64_t g = first; g < first + count % MCF_A_PERIOD; g++) sum += element_words(fp64, g);
    return sum + period * (unsigned)(count / MCF_A_PERIOD);
}

static unsigned host_peer(unsigned r, unsigned cs, enum mcf_pattern p)
{
    return p == MCF_PATTERN_RING ? (r + 1) % cs : p == MCF_PATTERN_PAIR ? r ^ 1u : 0u;
}

static int verify_throughput(struct hop_run *r, struct mcf_err *e)
{
    unsigned *partial = NULL, *want_rank = NULL;
    int fp64 = r->k.dtype == MCF_FP64;
    MCF_ALLOC(e, partial, r->blocks);
    GPU_TRY(e,
            cudaMemcpy(partial, r->partial, sizeof(unsigned) * r->blocks, cudaMemcpyDeviceToHost));
    if (r->k.inject_fault) partial[0] += 1u;
    if (r->k.level == MCF_LEVEL_TMA) {
        unsigned got = 0, want = formula_words(fp64, 0, r->n) * (unsigned)r->passes;
        for (int b = 0; b < r->blocks; b++) got += partial[b];
        if (got != want)
            MCF_FAIL(
                e, MCF_EVERIFY,
                "memory tma %s: the sum of the words the CTAs copied is %u, expected %u (exact, "
                "modulo 2^32)",
                mcf_tma_names[r->k.tma], got, want);
    } else {
        unsigned cs = (unsigned)r->k.cluster;
        MCF_ALLOC(e, want_rank, cs);
        for (unsigned q = 0; q < cs; q++)
            want_rank[q] = formula_words(fp64, (uint64_t)q * r->n, r->n) * (unsigned)r->passes;
        for (int b = 0; b < r->blocks; b++) {
            unsigned rank = (unsigned)b % cs, peer = host_peer(rank, cs, r->k.pattern);
            if (r->k.pattern == MCF_PATTERN_BROADCAST && rank == 0) { /* the source reads nothing */
                if (partial[b] != 0)
                    MCF_FAIL(
                        e, MCF_EVERIFY,
                        "memory dsm broadcast cluster %u: CTA %d (rank 0, the source) summed %u, "
                        "expected 0",
                        cs, b, partial[b]);
                continue;
            }
            if (partial[b] != want_rank[peer])
                MCF_FAIL(
                    e, MCF_EVERIFY,
                    "memory dsm %s cluster %u: CTA %d (rank %u) summed %u from rank %u's shared "
                    "memory, expected %u (exact, modulo 2^32)",
                    mcf_pattern_names[r->k.pattern], cs, b, rank, partial[b], peer,
                    want_rank[peer]);
        }
    }
    free(partial);
    free(want_rank);
    return MCF_OK;
fail:
    free(partial);
    free(want_rank);
    return e->rc;
}

/* A chain from `start`: slot (or word) j -> (j + step) % n, each value read
 * being the next index plus `tag`; its last index and the sum of the values. */
static void walk(unsigned long long start, unsigned long long step, unsigned long long n,
                 unsigned long long tag, unsigned steps, unsigned long long *last,
                 unsigned long long *sum)
{
    unsigned long long j = start, s = 0;
    for (unsigned k = 0; k < steps; k++) {
        j = (j + step) % n;
        s += j + tag;
    }
    *last = j;
    *sum = s;
}

static int verify_latency(struct hop_run *r, struct mcf_err *e)
{
    unsigned long long got[9], last[2], sum[2];
    const char *what[2];
    memcpy(got, r->got, sizeof got);
    if (r->k.inject_fault) got[5] += 1;
    if (r->k.level == MCF_LEVEL_TMA) {
        walk(r->start_tma, r->step, r->nslots, 0, r->steps, &last[0], &sum[0]);
        walk(r->start_base, r->step, r->nslots, 0, r->steps, &last[1], &sum[1]);
        what[0] = "TMA copies";
        what[1] = "plain loads";
    } else {
        unsigned cs = (unsigned)r->k.cluster;
        unsigned chaser = r->k.pattern == MCF_PATTERN_BROADCAST ? cs - 1 : 0,
                 peer = host_peer(chaser, cs, r->k.pattern);
        walk(0, r->step, r->nslots, (unsigned long long)peer * r->nslots, r->steps, &last[0],
             &sum[0]);
        walk(0, r->step, r->nslots, (unsigned long long)chaser * r->nslots, r->steps, &last[1],
             &sum[1]);
        what[0] = "DSM loads";
        what[1] = "own shared-memory loads";
        if (got[7] == got[8])
            MCF_FAIL(
                e, MCF_ERUNTIME,
                "memory dsm latency: the chasing CTA and its peer ran on one SM (%llu): not an "
                "SM-to-SM figure",
                got[7]);
    }
    for (int c = 0; c < 2; c++)
        if (got[3 + c] != last[c] || got[5 + c] != sum[c])
            MCF_FAIL(
                e, MCF_EVERIFY,
                "memory %s latency: the chain of %s ended at %llu with sum %llu, expected %llu "
                "and %llu",
                mcf_level_names[r->k.level], what[c], got[3 + c], got[5 + c], last[c], sum[c]);
    return MCF_OK;
fail:
    return e->rc;
}

static int hop_verify(void *ks, struct mcf_err *e)
{
    struct hop_run *r = (struct hop_run *)ks;
    return r->latency ? verify_latency(r, e) : verify_throughput(r, e);
}

static void hop_teardown(void *ks)
{
    hop_free((struct hop_run *)ks);
}

GPU_HOST_OPS(cuda_hopper_ops, hop_setup, hop_run_rep, hop_verify, hop_teardown);
