// Standalone: HBM triad (a = b + s*c, double2) kernel variants on one GPU,
// same arrays, CUDA events, median of 20 after 3 warm-ups. Explains the
// choice of the HBM kernel in kernels/gpu/gpu_memory.cu (docs/performance.md).
// nvcc -O3 -arch=sm_90 bench/triad_variants.cu -o triad_variants
#include <algorithm>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

__device__ inline double2 tri(double2 b, double2 c, double s) { return make_double2(b.x + s * c.x, b.y + s * c.y); }

// grid-stride, one vector per iteration (the first version)
__global__ void gs1(double2 *a, const double2 *b, const double2 *c, double s, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        a[i] = tri(b[i], c[i], s);
}
// grid-stride, U vectors in flight, optional streaming hints (the second version)
template <int U, bool HINT>
__global__ void gsu(double2 *a, const double2 *b, const double2 *c, double s, size_t n)
{
    size_t step = (size_t)gridDim.x * blockDim.x, i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i + (U - 1) * step < n; i += U * step) {
        double2 x[U], y[U];
#pragma unroll
        for (int u = 0; u < U; u++) { x[u] = HINT ? __ldcs(&b[i + u * step]) : b[i + u * step]; y[u] = HINT ? __ldcs(&c[i + u * step]) : c[i + u * step]; }
#pragma unroll
        for (int u = 0; u < U; u++) { if (HINT) __stcs(&a[i + u * step], tri(x[u], y[u], s)); else a[i + u * step] = tri(x[u], y[u], s); }
    }
    for (; i < n; i += step) a[i] = tri(b[i], c[i], s);
}
// block-contiguous tiles of blockDim*U vectors, one tile per block, many blocks
template <int U, bool HINT>
__global__ void tile(double2 *a, const double2 *b, const double2 *c, double s, size_t n)
{
    size_t base = blockIdx.x * (size_t)blockDim.x * U + threadIdx.x;
    double2 x[U], y[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
        size_t i = base + u * blockDim.x;
        if (i < n) { x[u] = HINT ? __ldcs(&b[i]) : b[i]; y[u] = HINT ? __ldcs(&c[i]) : c[i]; }
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
        size_t i = base + u * blockDim.x;
        if (i < n) { if (HINT) __stcs(&a[i], tri(x[u], y[u], s)); else a[i] = tri(x[u], y[u], s); }
    }
}

typedef void (*kfn)(double2 *, const double2 *, const double2 *, double, size_t);

int main()
{
    const size_t bytes = 2ull << 30, n = bytes / 16;
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    double2 *a, *b, *c;
    CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&b, bytes)); CK(cudaMalloc(&c, bytes));
    CK(cudaMemset(b, 0, bytes)); CK(cudaMemset(c, 0, bytes));
    struct V { const char *name; kfn k; int threads; size_t blocks; } v[] = {
        { "grid-stride x1, 8x256/SM", gs1, 256, (size_t)sms * 8 },
        { "grid-stride x4 hints, 8x256/SM", gsu<4, true>, 256, (size_t)sms * 8 },
        { "grid-stride x4, 8x256/SM", gsu<4, false>, 256, (size_t)sms * 8 },
        { "grid-stride x2, 8x256/SM", gsu<2, false>, 256, (size_t)sms * 8 },
        { "tile x4, 256 thr", tile<4, false>, 256, (n + 1023) / 1024 },
        { "tile x4 hints, 256 thr", tile<4, true>, 256, (n + 1023) / 1024 },
        { "tile x8, 256 thr", tile<8, false>, 256, (n + 2047) / 2048 },
        { "tile x2, 512 thr", tile<2, false>, 512, (n + 1023) / 1024 },
        { "tile x4, 128 thr", tile<4, false>, 128, (n + 511) / 512 },
    };
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    printf("%-34s %10s %10s %10s  (GB/s, 3 x 2 GiB arrays)\n", "variant", "median", "min", "max");
    for (auto &x : v) {
        std::vector<float> t;
        for (int r = 0; r < 23; r++) {
            CK(cudaEventRecord(e0));
            x.k<<<(unsigned)x.blocks, x.threads>>>(a, b, c, 0.4, n);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 3) t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        auto bw = [&](float ms) { return 3.0 * bytes / (ms * 1e-3) / 1e9; };
        printf("%-34s %10.1f %10.1f %10.1f\n", x.name, bw(t[t.size() / 2]), bw(t.back()), bw(t.front()));
    }
    return 0;
}
