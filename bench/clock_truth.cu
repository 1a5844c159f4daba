/* Which clock reading is right? For issue 12: the in-kernel clock
 * (clock64 cycles over %globaltimer nanoseconds, as mcfleet computes it)
 * read above the board's maximum during DMMA and below NVML during wgmma.
 *
 * Each load runs one persistent block per SM for a fixed amount of work, long
 * enough (0.3-3 s) that launch costs vanish. Four independent readings of the
 * same run:
 *   host   CLOCK_MONOTONIC around launch and synchronize (the host's clock);
 *   event  cudaEventElapsedTime (the GPU's timer, as mcfleet's rates use);
 *   gtimer the blocks' %globaltimer span (first start to last end);
 *   cycles each block's clock64 span.
 * So: f_gt = cycles / gtimer (mcfleet's in-kernel clock), f_host = cycles /
 * host time, the timer's rate gtimer / host, and NVML's SM clock sampled
 * every 5 ms beside the run (median, min, max of the samples inside it).
 * The work per cycle (flop per clock64 cycle per SM) is printed against the
 * architectural rate: no SM can beat it per real cycle, so a figure at it
 * says clock64 counts real cycles.
 *
 * Build: nvcc -O3 -gencode=arch=compute_90,code=sm_90 -o clock_truth bench/clock_truth.cu -ldl -lpthread
 * Run:   ./clock_truth [seconds-per-load]   (prints one line per load and a table) */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

struct stamp { long long c0, c1; unsigned long long t0, t1; double sink; };

__device__ inline unsigned long long gtimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ inline void start(struct stamp *s)
{
    __syncthreads();
    if (threadIdx.x == 0) { s[blockIdx.x].c0 = clock64(); s[blockIdx.x].t0 = gtimer(); }
}
__device__ inline void stop(struct stamp *s, double sink)
{
    __syncthreads();
    if (threadIdx.x == 0) { s[blockIdx.x].c1 = clock64(); s[blockIdx.x].t1 = gtimer(); }
    if (sink == 12345.678) s[blockIdx.x].sink = sink;   /* keeps the work */
}

/* spin: one warp reads clock64 in a loop (the SMs nearly idle) */
__global__ void k_spin(struct stamp *s, long long cycles)
{
    start(s);
    long long c = clock64();
    while (clock64() - c < cycles)
        ;
    stop(s, 0);
}

/* FFMA: 8 independent chains per thread, 1024 threads per SM */
__global__ void k_ffma(struct stamp *s, long long iters, float a, float b)
{
    float v[8];
    for (int i = 0; i < 8; i++) v[i] = threadIdx.x * 0.001f + i;
    start(s);
    for (long long it = 0; it < iters; it++)
#pragma unroll
        for (int i = 0; i < 8; i++) v[i] = fmaf(a, v[i], b);
    float t = 0;
    for (int i = 0; i < 8; i++) t += v[i];
    stop(s, t);
}

/* DMMA m16n8k16 fp64: 4 independent accumulators per warp, 16 warps per SM */
__global__ void k_dmma(struct stamp *s, long long iters)
{
    double a[8], b[4], c[4][4];
    for (int i = 0; i < 8; i++) a[i] = 1.0 + threadIdx.x * 1e-3 + i;
    for (int i = 0; i < 4; i++) b[i] = 0.5 + i * 1e-3;
    for (int j = 0; j < 4; j++) for (int i = 0; i < 4; i++) c[j][i] = 0;
    start(s);
    for (long long it = 0; it < iters; it++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                         "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};"
                         : "+d"(c[j][0]), "+d"(c[j][1]), "+d"(c[j][2]), "+d"(c[j][3])
                         : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                           "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
    double t = 0;
    for (int j = 0; j < 4; j++) for (int i = 0; i < 4; i++) t += c[j][i];
    stop(s, t);
}

/* HMMA m16n8k16 fp16 -> fp32, random-looking operands: 4 accumulators per warp */
__global__ void k_hmma(struct stamp *s, long long iters)
{
    unsigned a[4], b[2];
    float c[4][4];
    unsigned x = 0x9e3779b9u * (threadIdx.x + 1) + blockIdx.x;
    for (int i = 0; i < 4; i++) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; a[i] = (x & 0x3bff3bffu); }
    for (int i = 0; i < 2; i++) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; b[i] = (x & 0x3bff3bffu); }
    for (int j = 0; j < 4; j++) for (int i = 0; i < 4; i++) c[j][i] = 0;
    start(s);
    for (long long it = 0; it < iters; it++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                         "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                         : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    float t = 0;
    for (int j = 0; j < 4; j++) for (int i = 0; i < 4; i++) t += c[j][i];
    stop(s, t);
}

/* %globaltimer's update step: one thread reads it back to back and keeps
 * each new value; the differences between successive values are the step. */
__global__ void k_timer_steps(unsigned long long *v, int n)
{
    unsigned long long last = gtimer();
    for (int i = 0; i < n;) {
        unsigned long long t = gtimer();
        if (t != last) { v[i++] = t - last; last = t; }
    }
}

/* A short spin of `cycles`: the in-kernel clock over spans of microseconds,
 * as a short test's repetitions see it. */
__global__ void k_short(struct stamp *s, long long cycles)
{
    if (threadIdx.x == 0) { s[blockIdx.x].c0 = clock64(); s[blockIdx.x].t0 = gtimer(); }
    long long c = clock64();
    while (clock64() - c < cycles)
        ;
    if (threadIdx.x == 0) { s[blockIdx.x].c1 = clock64(); s[blockIdx.x].t1 = gtimer(); }
}

/* ---- NVML, loaded at run time ---- */
typedef int (*nvml_fn0)(void);
typedef int (*nvml_handle_fn)(unsigned, void **);
typedef int (*nvml_clock_fn)(void *, int, unsigned *);
typedef int (*nvml_clock2_fn)(void *, int, int, unsigned *);
typedef int (*nvml_power_fn)(void *, unsigned *);
struct nvml {
    void *dev;
    nvml_clock_fn clock_info;        /* nvmlDeviceGetClockInfo(dev, NVML_CLOCK_SM = 1) */
    nvml_clock2_fn clock;            /* nvmlDeviceGetClock(dev, type, id) */
    nvml_power_fn power;             /* nvmlDeviceGetPowerUsage, mW */
    nvml_clock_fn max_clock;         /* nvmlDeviceGetMaxClockInfo */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define MAXS 200000
struct sampler {
    struct nvml *n;
    volatile int run;
    int count;
    double t[MAXS];
    unsigned sm[MAXS], sm_cur[MAXS], mw[MAXS];
};

static void *sample(void *p)
{
    struct sampler *s = (struct sampler *)p;
    while (s->run && s->count < MAXS) {
        int i = s->count;
        s->t[i] = now();
        s->sm[i] = s->sm_cur[i] = s->mw[i] = 0;
        s->n->clock_info(s->n->dev, 1, &s->sm[i]);
        if (s->n->clock) s->n->clock(s->n->dev, 1, 0, &s->sm_cur[i]);   /* NVML_CLOCK_ID_CURRENT */
        s->n->power(s->n->dev, &s->mw[i]);
        s->count = i + 1;
        usleep(5000);
    }
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n)
{
    if (n <= 0) return NAN;
    qsort(v, n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    double want_s = argc > 1 ? atof(argv[1]) : 1.0;
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int sms = prop.multiProcessorCount, clock_khz = 0;
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    struct nvml n = { 0 };
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib) { fprintf(stderr, "no NVML: %s\n", dlerror()); return 1; }
    ((nvml_fn0)dlsym(lib, "nvmlInit_v2"))();
    ((nvml_handle_fn)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"))(0, &n.dev);
    n.clock_info = (nvml_clock_fn)dlsym(lib, "nvmlDeviceGetClockInfo");
    n.clock = (nvml_clock2_fn)dlsym(lib, "nvmlDeviceGetClock");
    n.power = (nvml_power_fn)dlsym(lib, "nvmlDeviceGetPowerUsage");
    n.max_clock = (nvml_clock_fn)dlsym(lib, "nvmlDeviceGetMaxClockInfo");
    unsigned maxsm = 0;
    n.max_clock(n.dev, 1, &maxsm);
    printf("device %s, %d SMs, runtime clock %.0f MHz, NVML max SM clock %u MHz\n", prop.name, sms,
           clock_khz / 1e3, maxsm);

    struct stamp *d, *h = (struct stamp *)calloc(sms, sizeof *h);
    CHECK(cudaMalloc(&d, sms * sizeof *d));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    static struct sampler smp;
    smp.n = &n;

    {
        enum { N = 2000 };
        unsigned long long *dv, hv[N];
        CHECK(cudaMalloc(&dv, sizeof hv));
        k_timer_steps<<<1, 1>>>(dv, N);
        CHECK(cudaMemcpy(hv, dv, sizeof hv, cudaMemcpyDeviceToHost));
        double steps[N];
        unsigned long long lo = ~0ull, hi = 0;
        for (int i = 0; i < N; i++) { steps[i] = (double)hv[i]; lo = hv[i] < lo ? hv[i] : lo; hi = hv[i] > hi ? hv[i] : hi; }
        printf("globaltimer step: median %.0f ns, min %llu, max %llu (over %d updates)\n", median(steps, N), lo, hi, N);
        /* the clock over short spans: 10 us to 10 ms of spinning */
        for (long long cyc = 20000; cyc <= 20000000; cyc *= 10) {
            double f[4096];
            int m = 0;
            for (int rep = 0; rep < 5; rep++) {
                k_short<<<sms, 32>>>(d, cyc);
                CHECK(cudaDeviceSynchronize());
                CHECK(cudaMemcpy(h, d, sms * sizeof *h, cudaMemcpyDeviceToHost));
                for (int b = 0; b < sms; b++)
                    f[m++] = (double)(h[b].c1 - h[b].c0) / (double)(h[b].t1 - h[b].t0) * 1e3;
            }
            double lo2 = 1e9, hi2 = 0;
            for (int i = 0; i < m; i++) { lo2 = f[i] < lo2 ? f[i] : lo2; hi2 = f[i] > hi2 ? f[i] : hi2; }
            printf("short spin %9lld cycles: in-kernel clock median %.1f MHz, min %.1f, max %.1f (%d blocks)\n", cyc,
                   median(f, m), lo2, hi2, m);
        }
        CHECK(cudaFree(dv));
    }
    /* work per iteration per SM (flop), architectural flop per clock per SM, threads per block */
    const char *names[] = { "spin", "ffma", "dmma", "hmma" };
    /* sm_90 per SM per clock: FP32 128 lanes x 2; DMMA 256; fp16 tensor 4096
     * (wgmma; mma.sync reaches about two thirds of it) */
    const double arch[] = { 0, 256, 256, 4096 };
    const int threads[] = { 32, 1024, 256, 512 };
    printf("%-5s %8s %9s %9s %9s %10s %10s %9s %9s %8s %8s %8s %7s %9s\n", "load", "host_s", "event_s", "gtimer_s",
           "gt/host", "f_gt_MHz", "f_host_MHz", "nvml_med", "nvml_cur", "nvml_min", "nvml_max", "power_W", "flop/c", "of_arch");
    for (int pass = 0; pass < 2; pass++)
    for (int L = 0; L < 4; L++) {
        /* calibrate: a short run, then scale the work to want_s */
        long long iters = L == 0 ? 100000 : 1000;
        double secs = 0;
        for (int cal = 0; cal < 3; cal++) {
            double t0 = now();
            if (L == 0) k_spin<<<sms, threads[L]>>>(d, iters);
            if (L == 1) k_ffma<<<sms, threads[L]>>>(d, iters, -1.0f, 0.5f);
            if (L == 2) k_dmma<<<sms, threads[L]>>>(d, iters);
            if (L == 3) k_hmma<<<sms, threads[L]>>>(d, iters);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            secs = now() - t0;
            if (cal < 2) iters = (long long)(iters * (cal == 0 ? 0.05 : want_s) / secs) + 1;
        }
        smp.run = 1;
        smp.count = 0;
        pthread_t th;
        pthread_create(&th, NULL, sample, &smp);
        usleep(50000);
        CHECK(cudaEventRecord(e0));
        double t0 = now();
        if (L == 0) k_spin<<<sms, threads[L]>>>(d, iters);
        if (L == 1) k_ffma<<<sms, threads[L]>>>(d, iters, -1.0f, 0.5f);
        if (L == 2) k_dmma<<<sms, threads[L]>>>(d, iters);
        if (L == 3) k_hmma<<<sms, threads[L]>>>(d, iters);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        double t1 = now();
        usleep(20000);
        smp.run = 0;
        pthread_join(th, NULL);
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        CHECK(cudaMemcpy(h, d, sms * sizeof *h, cudaMemcpyDeviceToHost));
        unsigned long long gmin = ~0ull, gmax = 0;
        double cyc = 0, fgt[1024];
        for (int b = 0; b < sms; b++) {
            if (h[b].t0 < gmin) gmin = h[b].t0;
            if (h[b].t1 > gmax) gmax = h[b].t1;
            cyc += (double)(h[b].c1 - h[b].c0);
            fgt[b] = (double)(h[b].c1 - h[b].c0) / (double)(h[b].t1 - h[b].t0) * 1e3;
        }
        cyc /= sms;
        double host = t1 - t0, gts = (gmax - gmin) * 1e-9;
        double v[MAXS], w[MAXS], pw[MAXS];
        int m = 0;
        double lo = 1e9, hi = 0;
        for (int i = 0; i < smp.count; i++)
            if (smp.t[i] >= t0 && smp.t[i] <= t1) {
                v[m] = smp.sm[i]; w[m] = smp.sm_cur[i]; pw[m] = smp.mw[i] * 1e-3;
                if (v[m] < lo) lo = v[m];
                if (v[m] > hi) hi = v[m];
                m++;
            }
        double work = 0;   /* flop per SM */
        if (L == 1) work = (double)iters * 8 * 2 * threads[L];
        if (L == 2) work = (double)iters * 4 * (16.0 * 8 * 16 * 2) * (threads[L] / 32);
        if (L == 3) work = (double)iters * 4 * (16.0 * 8 * 16 * 2) * (threads[L] / 32);
        double fpc = work / cyc;
        if (pass == 1)
            printf("%-5s %8.4f %9.4f %9.4f %9.5f %10.1f %10.1f %9.0f %9.0f %8.0f %8.0f %8.1f %7.1f %9.4f\n", names[L], host,
                   ms * 1e-3, gts, gts / host, median(fgt, sms), cyc / host * 1e-6, median(v, m), median(w, m), lo, hi,
                   median(pw, m), fpc, arch[L] > 0 ? fpc / arch[L] : NAN);
        fflush(stdout);
    }
    return 0;
}
