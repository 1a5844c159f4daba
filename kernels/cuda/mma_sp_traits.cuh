/* One struct per sparse mma instruction, mma.sp::ordered_metadata (PTX ISA
 * 8.5, sm_80 and later; FP8 from sm_89): the logical shape (K is the
 * uncompressed k: m16n8k32 for 16-bit types, m16n8k64 for 8-bit), how lane
 * `lane`'s registers map to the compressed A (M x K/2, the kept values:
 * sparsity.h), to B (K x N) and to the accumulator, and where each 4-bit
 * index of the metadata register lies. The compressed A takes the dense
 * layout of its own shape (m16n8k16's A for 16-bit types, m16n8k32's for
 * 8-bit); B extends the dense B layout along k. The metadata (sparsity
 * selector 0), measured on an H200 by tools/probe/mma_sp_probe.cu: 16-bit
 * types' indices sit in threads 0 and 1 of each group g of four, nibble p of
 * thread t indexing row g (p < 4) or g + 8 (p >= 4), chunk 4t + p % 4;
 * 8-bit types' in all four threads, nibble p of thread t indexing row
 * g + 8 (t & 1), chunk 8 (t >> 1) + p. tools/probe/mma_sp_probe.cu finds
 * where the hardware reads each index, one index at a time, and
 * checks this map (docs/bench/2026-11-27-issue28). */
#ifndef MCF_MMA_SP_TRAITS_CUH
#define MCF_MMA_SP_TRAITS_CUH

#include <stdint.h>

#include "mma_traits.cuh"

struct sp_meta_map {
    /* nibble p of lane's metadata register for operands of `bits` (16 or 8):
     * the (row, chunk) it indexes of the warp's 16 rows; false if none */
    static __host__ __device__ bool meta(int lane, int p, int bits, int *row, int *chunk)
    {
        int g = lane / 4, t = lane % 4;
        if (bits == 8) {
            *row = g + 8 * (t & 1);
            *chunk = 8 * (t >> 1) + p;
            return true;
        }
        if (t >= 2) return false;
        *row = g + 8 * (p >= 4);
        *chunk = 4 * t + p % 4;
        return true;
    }
};

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define MMA_SP_OK 1
#else
#define MMA_SP_OK 0
#endif

/* m16n8k32, 16-bit operands: A 16 x 16 kept (4 registers), B 32 x 8 (4 registers) */
#define MMA_SP_K32(NAME, TYPE)                                                                     \
    struct NAME : frag16x8 {                                                                       \
        enum { M = 16, N = 8, K = 32, KC = 16, NA = 4, NB = 4, NC = 4, AB_BITS = 16, SUB = 2 };    \
        typedef uint32_t areg;                                                                     \
        typedef float creg;                                                                        \
        typedef float cout;                                                                        \
        static __host__ __device__ void a(int lane, int r, int h, int *row, int *col)              \
        {                                                                                          \
            k16_layout::a(lane, r, h, row, col);                                                   \
        }                                                                                          \
        static __host__ __device__ void b(int lane, int r, int h, int *k, int *n)                  \
        {                                                                                          \
            *k = 2 * (lane % 4) + h + 8 * r;                                                       \
            *n = lane / 4;                                                                         \
        }                                                                                          \
        static __device__ void mma(creg *d, const areg *a, const areg *b, uint32_t e)              \
        {                                                                                          \
            MMA_SP_BODY_F32("m16n8k32", TYPE)                                                      \
        }                                                                                          \
    };

/* m16n8k64, 8-bit operands: A 16 x 32 kept (4 registers), B 64 x 8 (4 registers) */
#define MMA_SP_K64(NAME, TYPE, CT, CON, BODY)                                                      \
    struct NAME : frag16x8 {                                                                       \
        enum { M = 16, N = 8, K = 64, KC = 32, NA = 4, NB = 4, NC = 4, AB_BITS = 8, SUB = 4 };     \
        typedef uint32_t areg;                                                                     \
        typedef CT creg;                                                                           \
        typedef CT cout;                                                                           \
        static __host__ __device__ void a(int lane, int r, int h, int *row, int *col)              \
        {                                                                                          \
            k32_layout::a(lane, r, h, row, col);                                                   \
        }                                                                                          \
        static __host__ __device__ void b(int lane, int r, int h, int *k, int *n)                  \
        {                                                                                          \
            *k = 4 * (lane % 4) + h + 16 * r;                                                      \
            *n = lane / 4;                                                                         \
        }                                                                                          \
        static __device__ void mma(creg *d, const areg *a, const areg *b, uint32_t e)              \
        {                                                                                          \
            BODY                                                                                   \
        }                                                                                          \
    };

#define MMA_SP_ASM(SHAPE, TYPES, CON)                                                              \
    asm volatile("mma.sp::ordered_metadata.sync.aligned." SHAPE ".row.col." TYPES                  \
                 " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0x0;"        \
                 : "+" CON(d[0]), "+" CON(d[1]), "+" CON(d[2]), "+" CON(d[3])                      \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]),    \
                   "r"(b[3]), "r"(e));
#define CON_F(x) "f"(x)
#define CON_R(x) "r"(x)

#if MMA_SP_OK
#define MMA_SP_BODY_F32(SHAPE, TYPE) MMA_SP_ASM(SHAPE, "f32." TYPE "." TYPE ".f32", CON_F)
#else
#define MMA_SP_BODY_F32(SHAPE, TYPE) ((void)d, (void)a, (void)b, (void)e, __trap());
#endif

MMA_SP_K32(mma_sp_f16, "f16")
MMA_SP_K32(mma_sp_bf16, "bf16")

#if MMA_SP_OK
#define SP_S8_BODY MMA_SP_ASM("m16n8k64", "s32.s8.s8.s32", CON_R)
#else
#define SP_S8_BODY ((void)d, (void)a, (void)b, (void)e, __trap());
#endif
MMA_SP_K64(mma_sp_s8, "s8", int, CON_R, SP_S8_BODY)

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 890
#define SP_FP8_BODY(TYPE) MMA_SP_ASM("m16n8k64", "f32." TYPE "." TYPE ".f32", CON_F)
#else
#define SP_FP8_BODY(TYPE)                                                                          \
    ((void)d, (void)a, (void)b, (void)e, __trap()); /* the host refuses fp8 below sm_89 */
#endif
MMA_SP_K64(mma_sp_e4m3, "e4m3", float, CON_F, SP_FP8_BODY("e4m3"))
MMA_SP_K64(mma_sp_e5m2, "e5m2", float, CON_F, SP_FP8_BODY("e5m2"))

#endif
