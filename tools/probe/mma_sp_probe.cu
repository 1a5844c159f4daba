/* Where does mma.sp read each 4-bit index of its metadata register? A
 * developer's probe for mma_sp_traits.cuh's map, run once on a GPU:
 *   nvcc -std=c++17 -I kernels/cuda -gencode arch=compute_90,code=sm_90 \
 *        tools/probe/mma_sp_probe.cu -o mma_sp_probe && ./mma_sp_probe
 * For every lane and nibble, one warp issues the instruction with the kept
 * A values all 1, every index (0,1) but that one nibble (2,3), and B zero
 * except at k % 4 >= 2 of chunk c, column c % 8 (value 1 for c < 8, 2
 * beyond): the only nonzero result is 2 * value at (row, c % 8) of the
 * (row, chunk) that nibble indexes. Each is compared with the traits' map;
 * exit 0 when all agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "mma_sp_traits.cuh"


struct enc { uint32_t one, two; };

template <class T>
__global__ void k_probe(enc ab, const uint8_t *B, int lane_sel, int nib, float *out)
{
    const int lane = threadIdx.x;
    uint32_t a[T::NA], b[T::NB];
    for (int r = 0; r < T::NA; r++) {
        uint32_t v = 0;
        for (int h = 0; h < T::SUB; h++) v |= ab.one << (h * T::AB_BITS);
        a[r] = v;
    }
    for (int r = 0; r < T::NB; r++) {
        uint32_t v = 0;
        for (int h = 0; h < T::SUB; h++) {
            int k, n;
            T::b(lane, r, h, &k, &n);
            uint32_t x = B[k * T::N + n] == 0 ? 0 : B[k * T::N + n] == 1 ? ab.one : ab.two;
            v |= x << (h * T::AB_BITS);
        }
        b[r] = v;
    }
    uint32_t e = 0x44444444u;
    if (lane == lane_sel) e = (e & ~(0xfu << (4 * nib))) | (0xeu << (4 * nib));
    typename T::creg d[T::NC];
    for (int r = 0; r < T::NC; r++) d[r] = 0;
    T::mma(d, a, b, e);
    for (int r = 0; r < T::NC; r++) {
        int row, col;
        T::c(lane, r, 0, &row, &col);
        out[row * T::N + col] = (float)d[r];
    }
}

template <class T> static int probe(const char *name, enc ab)
{
    uint8_t hB[T::K * T::N], *dB;
    float hout[T::M * T::N], *dout;
    memset(hB, 0, sizeof hB);
    for (int k = 0; k < T::K; k++)
        if (k % 4 >= 2) hB[k * T::N + (k / 4) % 8] = k / 4 >= 8 ? 2 : 1;
    cudaMalloc(&dB, sizeof hB);
    cudaMalloc(&dout, sizeof hout);
    cudaMemcpy(dB, hB, sizeof hB, cudaMemcpyHostToDevice);
    int bad = 0, held = 0;
    for (int lane = 0; lane < 32; lane++)
        for (int p = 0; p < 8; p++) {
            k_probe<T><<<1, 32>>>(ab, dB, lane, p, dout);
            if (cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost) != cudaSuccess) {
                printf("%s: %s\n", name, cudaGetErrorString(cudaGetLastError()));
                return 1;
            }
            int found = 0, frow = -1, fchunk = -1;
            for (int i = 0; i < T::M * T::N; i++)
                if (hout[i] != 0) {
                    found++;
                    frow = i / T::N;
                    fchunk = i % T::N + (hout[i] == 4 ? 8 : 0);
                    if (hout[i] != 2 && hout[i] != 4) fchunk = -100;
                }
            int row, chunk;
            bool mapped = sp_meta_map::meta(lane, p, T::AB_BITS, &row, &chunk);
            bool agree = found == 0 ? !mapped : found == 1 && mapped && row == frow && chunk == fchunk;
            held += found > 0;
            if (!agree) {
                bad++;
                printf("%s: lane %2d nibble %d: hardware %s row %d chunk %d; map %s row %d chunk %d\n", name, lane, p,
                       found ? "reads" : "ignores", frow, fchunk, mapped ? "says" : "says none", mapped ? row : -1,
                       mapped ? chunk : -1);
            }
        }
    printf("%s: %d of 256 nibbles read by the hardware, %d disagree with mma_sp_traits.cuh\n", name, held, bad);
    cudaFree(dB);
    cudaFree(dout);
    return bad != 0;
}

int main(void)
{
    int rc = 0;
    rc |= probe<mma_sp_f16>("mma.sp f16 m16n8k32", enc{ 0x3c00, 0x4000 });
    rc |= probe<mma_sp_bf16>("mma.sp bf16 m16n8k32", enc{ 0x3f80, 0x4000 });
    rc |= probe<mma_sp_s8>("mma.sp s8 m16n8k64", enc{ 1, 2 });
    rc |= probe<mma_sp_e4m3>("mma.sp e4m3 m16n8k64", enc{ 0x38, 0x40 });
    return rc;
}
