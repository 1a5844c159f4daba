/* One struct per MFMA instruction of mfma_list.h (CDNA2 gfx90a, CDNA3
 * gfx94x): its shape, block count, operand packing and the builtin; and how a
 * lane loads its operands and reads its result items. The register layouts
 * are AMD's matrix instruction calculator's, computed generally in
 * mfma_layout.h.
 *
 * Operands: each lane holds KL = K*M*BLK/64 consecutive k-elements of A (and
 * of B), packed into one 32- or 64-bit register. Results: M*N*BLK/64 items
 * per lane. */
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
typedef short i16x4 __attribute__((ext_vector_type(4)));

/* One struct per row of mfma_list.h: NAME::mma(a, b, c) issues the
 * instruction (or traps on a target without it); C2 / C3: present on CDNA2 /
 * CDNA3. The columns after BUILTIN are C's (src/run/mfma_insn.c). */
#define MFMA(NAME, M_, N_, K_, B_, BITS_, OP, ACC, COUT, C2, C3, BUILTIN, ...)                         \
    struct NAME {                                                                                     \
        enum { M = M_, N = N_, K = K_, BLK = B_, AB_BITS = BITS_, KL = K_ * M_ * B_ / 64,             \
               ITEMS = M_ * N_ * B_ / 64, ON_CDNA2 = C2, ON_CDNA3 = C3 };                             \
        typedef OP op; typedef ACC acc; typedef COUT cout;                                            \
        static __device__ acc mma(op a, op b, acc c)                                                  \
        {                                                                                             \
            if constexpr ((MCF_CDNA2 && C2) || (MCF_CDNA3 && C3)) return BUILTIN(a, b, c, 0, 0, 0);   \
            else { __builtin_trap(); return c; }                                                      \
        }                                                                                             \
    };
MCF_MFMA_LIST(MFMA)
#undef MFMA

/* One operand register of lane `lane`: its KL elements of A (M x K, row-major)
 * or of B (K x N, row-major), packed low element first. Block b's matrix
 * starts block_elems elements after block 0's: 0 when every block multiplies
 * the same A and B (the benchmark), M*K or K*N for one matrix per block (the
 * layout self-test). */
template <class T>
__device__ inline typename T::op load_operand(const uint8_t *tile, int lane, bool is_a, size_t block_elems)
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

/* Result item r of an accumulator: a vector's element, or the one double of
 * v_mfma_f64_4x4x4f64 */
template <class V> __device__ inline auto acc_item(const V &v, int r) { return v[r]; }
__device__ inline double acc_item(double v, int) { return v; }

#endif
