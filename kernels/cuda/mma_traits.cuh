/* One struct per mma.sync instruction: its shape, operand element width, how
 * lane `lane`'s registers map to matrix coordinates (the PTX ISA's fragment
 * layouts for mma.m8n8k4 .f64, m16n8k8 .tf32, m16n8k16 .f16/.bf16 and
 * m16n8k32 .e4m3/.e5m2/.s8), and the instruction itself. g = lane / 4 is the
 * group, t = lane % 4 the thread in the group. */
#ifndef MCF_MMA_TRAITS_CUH
#define MCF_MMA_TRAITS_CUH

#include <stdint.h>

/* Register r, sub-element h of A (M x K, row-major) -> (row, col). */
struct frag16x8 { /* the m16n8 accumulator: 4 registers of 32 bits */
    enum { NC = 4 };
    static __host__ __device__ void c(int lane, int r, int h, int *row, int *col)
    {
        (void)h;
        *row = lane / 4 + 8 * (r >> 1);
        *col = 2 * (lane % 4) + (r & 1);
    }
};

struct mma_f64 { /* mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 */
    enum { M = 8, N = 8, K = 4, NA = 1, NB = 1, NC = 2, AB_BITS = 64, SUB = 1 };
    typedef double areg;
    typedef double creg;
    typedef double cout;
    static __host__ __device__ void a(int lane, int r, int h, int *row, int *col)
    {
        (void)r;
        (void)h;
        *row = lane / 4;
        *col = lane % 4;
    }
    static __host__ __device__ void b(int lane, int r, int h, int *k, int *n)
    {
        (void)r;
        (void)h;
        *k = lane % 4;
        *n = lane / 4;
    }
    static __host__ __device__ void c(int lane, int r, int h, int *row, int *col)
    {
        (void)h;
        *row = lane / 4;
        *col = 2 * (lane % 4) + r;
    }
    static __device__ void mma(creg *d, const areg *a, const areg *b)
    {
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                     : "+d"(d[0]), "+d"(d[1])
                     : "d"(a[0]), "d"(b[0]));
    }
};

/* Hopper's fp64 shapes m16n8k4, k8, k16 (sm_90): A row g + 8*(r%2), column
 * t + 4*(r/2); B row t + 4*r, column g; the m16n8 accumulator. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define MMA_F64_SM90 1
#else
#define MMA_F64_SM90 0
#endif
template <int KK> struct mma_f64_16x8 {
    enum { M = 16, N = 8, K = KK, NA = KK / 2, NB = KK / 4, NC = 4, AB_BITS = 64, SUB = 1 };
    typedef double areg;
    typedef double creg;
    typedef double cout;
    static __host__ __device__ void a(int lane, int r, int h, int *row, int *col)
    {
        (void)h;
        *row = lane / 4 + 8 * (r & 1);
        *col = lane % 4 + 4 * (r >> 1);
    }
    static __host__ __device__ void b(int lane, int r, int h, int *k, int *n)
    {
        (void)h;
        *k = lane % 4 + 4 * r;
        *n = lane / 4;
    }
    static __host__ __device__ void c(int lane, int r, int h, int *row, int *col)
    {
        frag16x8::c(lane, r, h, row, col);
    }
    static __device__ void mma(creg *d, const areg *a, const areg *b)
    {
#if MMA_F64_SM90
        if (KK == 4)
            asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, "
                         "{%6}, {%0,%1,%2,%3};"
                         : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                         : "d"(a[0]), "d"(a[1]), "d"(b[0]));
        else if (KK == 8)
            asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                         "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                         : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                         : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
        else
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                         "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};"
                         : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                         : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]),
                           "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#else
        (void)d;
        (void)a;
        (void)b;
        __trap(); /* the host refuses these shapes below sm_90 */
#endif
    }
};

struct mma_tf32 { /* mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 */
    enum { M = 16, N = 8, K = 8, NA = 4, NB = 2, NC = 4, AB_BITS = 32, SUB = 1 };
    typedef uint32_t areg;
    typedef float creg;
    typedef float cout;
    static __host__ __device__ void a(int lane, int r, int h, int *row, int *col)
    {
        (void)h;
        *row = lane / 4 + 8 * (r & 1);
        *col = lane % 4 + 4 * (r >> 1);
    }
    static __host__ __device__ void b(int lane, int r, int h, int *k, int *n)
    {
        (void)h;
        *k = lane % 4 + 4 * r;
        *n = lane / 4;
    }
    static __host__ __device__ void c(int lane, int r, int h, int *row, int *col)
    {
        frag16x8::c(lane, r, h, row, col);
    }
    static __device__ void mma(creg *d, const areg *a, const areg *b)
    {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
};

/* m16n8k16 with 16-bit operands: each register holds 2 elements (SUB = 2). */
struct k16_layout {
    static __host__ __device__ void a(int lane, int r, int h, int *row, int *col)
    {
        *row = lane / 4 + 8 * (r & 1);
        *col = 2 * (lane % 4) + h + 8 * (r >> 1);
    }
    static __host__ __device__ void b(int lane, int r, int h, int *k, int *n)
    {
        *k = 2 * (lane % 4) + h + 8 * r;
        *n = lane / 4;
    }
};

#define MMA_K16_F32(NAME, TYPE)                                                                    \
    struct NAME : k16_layout {                                                                     \
        enum { M = 16, N = 8, K = 16, NA = 4, NB = 2, NC = 4, AB_BITS = 16, SUB = 2 };             \
        typedef uint32_t areg;                                                                     \
        typedef float creg;                                                                        \
        typedef float cout;                                                                        \
        static __host__ __device__ void c(int lane, int r, int h, int *row, int *col)              \
        {                                                                                          \
            frag16x8::c(lane, r, h, row, col);                                                     \
        }                                                                                          \
        static __device__ void mma(creg *d, const areg *a, const areg *b)                          \
        {                                                                                          \
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." TYPE "." TYPE                    \
                         ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"              \
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                          \
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));      \
        }                                                                                          \
    };
MMA_K16_F32(mma_f16, "f16")
MMA_K16_F32(mma_bf16, "bf16")

struct mma_f16_acc16 : k16_layout { /* .f16 accumulate: 2 registers of packed halves */
    enum { M = 16, N = 8, K = 16, NA = 4, NB = 2, NC = 2, AB_BITS = 16, SUB = 2 };
    typedef uint32_t areg;
    typedef uint32_t creg;
    typedef uint16_t cout;
    static __host__ __device__ void c(int lane, int r, int h, int *row, int *col)
    {
        *row = lane / 4 + 8 * r;
        *col = 2 * (lane % 4) + h;
    }
    static __device__ void mma(creg *d, const areg *a, const areg *b)
    {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, "
                     "{%6,%7}, {%0,%1};"
                     : "+r"(d[0]), "+r"(d[1])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
};

/* m16n8k32 with 8-bit operands: 4 elements per register (SUB = 4). */
struct k32_layout {
    static __host__ __device__ void a(int lane, int r, int h, int *row, int *col)
    {
        *row = lane / 4 + 8 * (r & 1);
        *col = 4 * (lane % 4) + h + 16 * (r >> 1);
    }
    static __host__ __device__ void b(int lane, int r, int h, int *k, int *n)
    {
        *k = 4 * (lane % 4) + h + 16 * r;
        *n = lane / 4;
    }
};

/* FP8 mma.sync exists from sm_89; the sm_80 image gets a trap instead. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 890
#define MMA_FP8_OK 1
#else
#define MMA_FP8_OK 0
#endif

#if MMA_FP8_OK
#define MMA_K32_BODY(TYPE)                                                                         \
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." TYPE "." TYPE                            \
                 ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                      \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
#define MMA_K32_BODY(TYPE)                                                                         \
    ((void)d, (void)a, (void)b, __trap()); /* the host refuses fp8 below sm_89 */
#endif

#define MMA_K32_F32(NAME, TYPE)                                                                    \
    struct NAME : k32_layout {                                                                     \
        enum { M = 16, N = 8, K = 32, NA = 4, NB = 2, NC = 4, AB_BITS = 8, SUB = 4 };              \
        typedef uint32_t areg;                                                                     \
        typedef float creg;                                                                        \
        typedef float cout;                                                                        \
        static __host__ __device__ void c(int lane, int r, int h, int *row, int *col)              \
        {                                                                                          \
            frag16x8::c(lane, r, h, row, col);                                                     \
        }                                                                                          \
        static __device__ void mma(creg *d, const areg *a, const areg *b)                          \
        {                                                                                          \
            MMA_K32_BODY(TYPE)                                                                     \
        }                                                                                          \
    };
MMA_K32_F32(mma_e4m3, "e4m3")
MMA_K32_F32(mma_e5m2, "e5m2")

struct mma_s8 : k32_layout { /* mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 */
    enum { M = 16, N = 8, K = 32, NA = 4, NB = 2, NC = 4, AB_BITS = 8, SUB = 4 };
    typedef uint32_t areg;
    typedef int creg;
    typedef int cout;
    static __host__ __device__ void c(int lane, int r, int h, int *row, int *col)
    {
        frag16x8::c(lane, r, h, row, col);
    }
    static __device__ void mma(creg *d, const areg *a, const areg *b)
    {
        asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
};

#endif
