/* What the warp-level matrix kernels share, dense (matrix.cu) and 2:4 sparse
 * (matrix_sp.cu): the timed chain and the store of the result tiles. Each
 * warp keeps ACC independent accumulators and issues `half` pairs of
 * instructions into each, B then -B, and one more B, so each ends near A*B;
 * warp 0's lane 0 stamps the clocks, and a streams test's kernel span is
 * taken from every block's first thread. step(acc, negated) issues one
 * instruction into accumulator acc. */
#ifndef MCF_MMA_CHAIN_CUH
#define MCF_MMA_CHAIN_CUH

#include "gpu.h"

template <class T, int ACC, class Step>
__device__ inline void mma_chain(typename T::creg (&acc)[ACC][T::NC], long long half, bool stamps,
                                 struct gpu_clock *clk, unsigned long long *span, Step step)
{
#pragma unroll
    for (int j = 0; j < ACC; j++)
#pragma unroll
        for (int r = 0; r < T::NC; r++) acc[j][r] = 0;
    if (stamps) gpu_clock_start(clk);
    if (span && threadIdx.x == 0) atomicMin(&span[0], gpu_globaltimer()); /* the streams family */
    for (long long i = 0; i < half; i++) {
#pragma unroll
        for (int j = 0; j < ACC; j++) step(acc[j], false);
#pragma unroll
        for (int j = 0; j < ACC; j++) step(acc[j], true);
    }
#pragma unroll
    for (int j = 0; j < ACC; j++) step(acc[j], false);
    if (stamps) gpu_clock_stop(clk);
    if (span) {
        __syncthreads();
        if (threadIdx.x == 0) atomicMax(&span[1], gpu_globaltimer());
    }
}

/* The warp's ACC result tiles (M x N, row-major) at out, by the
 * accumulator's fragment map; packed 16-bit accumulators (csub 2) unpacked. */
template <class T, int ACC>
__device__ inline void mma_store(const typename T::creg (&acc)[ACC][T::NC], typename T::cout *out,
                                 size_t warp, int lane)
{
    const int csub = (int)(sizeof(typename T::creg) / sizeof(typename T::cout));
#pragma unroll
    for (int j = 0; j < ACC; j++) {
        typename T::cout *tile = out + (warp * ACC + j) * (size_t)(T::M * T::N);
#pragma unroll
        for (int r = 0; r < T::NC; r++)
#pragma unroll
            for (int h = 0; h < csub; h++) {
                int row, col;
                T::c(lane, r, h, &row, &col);
                typename T::cout v;
                if (csub == 1)
                    v = (typename T::cout)acc[j][r];
                else {
                    uint32_t bits = (uint32_t)acc[j][r] >> (16 * h);
                    v = (typename T::cout)(bits & 0xffffu);
                }
                tile[row * T::N + col] = v;
            }
    }
}

#endif
