/* One struct per MFMA instruction of mfma_list.h (CDNA2 gfx90a, CDNA3
 * gfx94x): its shape, block count, operand packing and the builtin; and how a
 * lane loads its operands and reads its result items. The register layouts
 * are AMD's matrix instruction calculator's, computed generally in
 * mfma_layout.h.
 *
 * Operands: each lane holds KL = K*M*BLK/64 consecutive k-elements of A (and
 * of B), packed into one 32- or 64-bit register. Results: M*N*BLK/64 items
 * per lane. The sparse instructions (smfmac) hold A compressed, and an index
 * register (load_a, load_b, load_index). */
#ifndef MCF_MFMA_OPS_H
#define MCF_MFMA_OPS_H

#include <stdint.h>

#include "mfma_layout.h"
#include "mfma_list.h"

/* CDNA3 (gfx940, gfx941, gfx942) has FP8 and the k-doubled INT8 shapes, and
 * dropped gfx90a's 32x32x8 / 16x16x16 INT8 (its backend cannot select them).
 * Every struct exists for every target; on a target without the instruction
 * its kernel traps, and the host never launches it (mfma_available). */
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define MCF_CDNA3 1
#else
#define MCF_CDNA3 0
#endif
#if defined(__gfx90a__)
#define MCF_CDNA2 1
#else
#define MCF_CDNA2 0
#endif

typedef float f32x4 __attribute__((ext_vector_type(4)));
typedef float f32x16 __attribute__((ext_vector_type(16)));
typedef float f32x32 __attribute__((ext_vector_type(32)));
typedef double f64x4 __attribute__((ext_vector_type(4)));
typedef int i32x4 __attribute__((ext_vector_type(4)));
typedef int i32x16 __attribute__((ext_vector_type(16)));
typedef int i32x32 __attribute__((ext_vector_type(32)));
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));
typedef _Float16 f16x8 __attribute__((ext_vector_type(8)));
typedef short i16x4 __attribute__((ext_vector_type(4)));
typedef short i16x8 __attribute__((ext_vector_type(8)));
typedef int i32x2 __attribute__((ext_vector_type(2)));

/* One struct per row of mfma_list.h: NAME::mma(a, b, c, idx) issues the
 * instruction (or traps on a target without it); C2 / C3: present on CDNA2 /
 * CDNA3. The columns after BUILTIN are C's (src/run/mfma_insn.c). Dense
 * instructions ignore idx; opa and opb are both op. */
#define MFMA(NAME, M_, N_, K_, B_, BITS_, OP, ACC, COUT, C2, C3, BUILTIN, ...)                     \
    struct NAME {                                                                                  \
        enum {                                                                                     \
            M = M_,                                                                                \
            N = N_,                                                                                \
            K = K_,                                                                                \
            BLK = B_,                                                                              \
            AB_BITS = BITS_,                                                                       \
            KL = K_ * M_ * B_ / 64,                                                                \
            ITEMS = M_ * N_ * B_ / 64,                                                             \
            ON_CDNA2 = C2,                                                                         \
            ON_CDNA3 = C3,                                                                         \
            SPARSE = 0                                                                             \
        };                                                                                         \
        typedef OP op;                                                                             \
        typedef OP opa;                                                                            \
        typedef OP opb;                                                                            \
        typedef ACC acc;                                                                           \
        typedef COUT cout;                                                                         \
        static __device__ acc mma(op a, op b, acc c, int)                                          \
        {                                                                                          \
            if constexpr ((MCF_CDNA2 && C2) || (MCF_CDNA3 && C3))                                  \
                return BUILTIN(a, b, c, 0, 0, 0);                                                  \
            else {                                                                                 \
                __builtin_trap();                                                                  \
                return c;                                                                          \
            }                                                                                      \
        }                                                                                          \
    };
MCF_MFMA_LIST(MFMA)
#undef MFMA

/* The sparse ones (CDNA3 only): D += A*B, A compressed (KLC = K*M/128 values
 * a lane, in opa), B dense (KL = K*N/64, in opb), idx the lane's index
 * register. CBSZ = ABID = 0: the indices in its low 8 (16-bit types) or 16
 * (8-bit types) bits. */
#define SMFMA(NAME, M_, N_, K_, BITS_, OPA, OPB, ACC, COUT, BUILTIN, ...)                          \
    struct NAME {                                                                                  \
        enum {                                                                                     \
            M = M_,                                                                                \
            N = N_,                                                                                \
            K = K_,                                                                                \
            BLK = 1,                                                                               \
            AB_BITS = BITS_,                                                                       \
            KL = K_ * N_ / 64,                                                                     \
            KLC = K_ * M_ / 128,                                                                   \
            ITEMS = M_ * N_ / 64,                                                                  \
            ON_CDNA2 = 0,                                                                          \
            ON_CDNA3 = 1,                                                                          \
            SPARSE = 1                                                                             \
        };                                                                                         \
        typedef OPA opa;                                                                           \
        typedef OPB opb;                                                                           \
        typedef ACC acc;                                                                           \
        typedef COUT cout;                                                                         \
        static __device__ acc mma(opa a, opb b, acc c, int idx)                                    \
        {                                                                                          \
            if constexpr (MCF_CDNA3)                                                               \
                return BUILTIN(a, b, c, idx, 0, 0);                                                \
            else {                                                                                 \
                __builtin_trap();                                                                  \
                return c;                                                                          \
            }                                                                                      \
        }                                                                                          \
    };
MCF_SMFMAC_LIST(SMFMA)
#undef SMFMA

template <class T> __device__ inline mfma_layout layout_of()
{
    const mfma_layout L = { T::M, T::N, T::K, T::BLK, (int)sizeof(typename T::cout) * 8 };
    return L;
}

/* One operand register of lane `lane`: its KL elements of A (M x K, row-major)
 * or of B (K x N, row-major), packed low element first. Block b's matrix
 * starts block_elems elements after block 0's: 0 when every block multiplies
 * the same A and B (the benchmark), M*K or K*N for one matrix per block (the
 * layout self-test). */
template <class T>
__device__ inline typename T::op load_operand(const uint8_t *tile, int lane, bool is_a,
                                              size_t block_elems)
{
    const mfma_layout L = { T::M, T::N, T::K, T::BLK, (int)sizeof(typename T::cout) * 8 };
    unsigned long long bits = 0;
#pragma unroll
    for (int v = 0; v < T::KL; v++) {
        int i, kk, b;
        mfma_layout_operand(L, lane, v, &i, &kk, &b);
        size_t idx = b * block_elems + (is_a ? (size_t)i * T::K + kk : (size_t)kk * T::N + i);
        unsigned long long x = 0;
        __builtin_memcpy(&x, tile + idx * (T::AB_BITS / 8), T::AB_BITS / 8);
        bits |= x << (v * T::AB_BITS);
    }
    typename T::op out;
    __builtin_memcpy(&out, &bits, sizeof out);
    return out;
}

/* COUNT elements of BITS (8 or 16) bits, element v at element offset at(v)
 * of tile, packed low element first into OP (up to 128 bits: sparse B). */
template <class OP, int BITS, int COUNT, class AT>
__device__ inline OP pack_words(const uint8_t *tile, AT at)
{
    uint32_t w[sizeof(OP) / 4];
#pragma unroll
    for (int x = 0; x < (int)(sizeof(OP) / 4); x++) w[x] = 0;
#pragma unroll
    for (int v = 0; v < COUNT; v++) {
        uint32_t x = 0;
        __builtin_memcpy(&x, tile + at(v) * (BITS / 8), BITS / 8);
        w[v * BITS / 32] |= x << (v * BITS % 32);
    }
    OP out;
    __builtin_memcpy(&out, w, sizeof out);
    return out;
}

/* The A register of lane `lane`: dense, load_operand's; sparse, its KLC
 * values of the compressed A (m x k/2 row-major, sparsity.h), block b's
 * starting block_elems elements after block 0's. */
template <class T>
__device__ inline typename T::opa load_a(const uint8_t *tile, int lane, size_t block_elems)
{
    if constexpr (!T::SPARSE) {
        return load_operand<T>(tile, lane, true, block_elems);
    } else {
        const mfma_layout L = layout_of<T>();
        return pack_words<typename T::opa, T::AB_BITS, T::KLC>(tile, [&](int v) {
            int i, c, b;
            mfma_layout_sparse_a(L, lane, v, &i, &c, &b);
            return b * block_elems + (size_t)i * (T::K / 2) + c;
        });
    }
}

/* The B register (K x N row-major): the same layout, dense or sparse (K the
 * logical k), wider for sparse instructions. */
template <class T>
__device__ inline typename T::opb load_b(const uint8_t *tile, int lane, size_t block_elems)
{
    if constexpr (!T::SPARSE) {
        return load_operand<T>(tile, lane, false, block_elems);
    } else {
        const mfma_layout L = layout_of<T>();
        return pack_words<typename T::opb, T::AB_BITS, T::KL>(tile, [&](int v) {
            int j, kk, b;
            mfma_layout_operand(L, lane, v, &j, &kk, &b);
            return b * block_elems + (size_t)kk * T::N + j;
        });
    }
}

/* The index register of a sparse instruction from the kept pairs (a byte
 * i0 | i1 << 2 per chunk of 4, m x k/4 row-major, sparsity.h; block b's
 * block_chunks after block 0's); 0 for a dense one. */
template <class T>
__device__ inline int load_index(const uint8_t *meta, int lane, size_t block_chunks)
{
    if constexpr (!T::SPARSE) {
        return 0;
    } else {
        const mfma_layout L = layout_of<T>();
        unsigned idx = 0;
#pragma unroll
        for (int q = 0; q < T::KLC / 2; q++) {
            int i, chunk, b;
            mfma_layout_sparse_index(L, lane, q, &i, &chunk, &b);
            idx |= (meta[b * block_chunks + (size_t)i * (T::K / 4) + chunk] & 15u) << (4 * q);
        }
        return (int)idx;
    }
}

/* Result item r of an accumulator: a vector's element, or the one double of
 * v_mfma_f64_4x4x4f64 */
template <class V> __device__ inline auto acc_item(const V &v, int r)
{
    return v[r];
}
__device__ inline double acc_item(double v, int)
{
    return v;
}

#endif
