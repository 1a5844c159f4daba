/* One struct per MFMA instruction (CDNA2 gfx90a, CDNA3 gfx94x): its shape,
 * block count, operand packing and the builtin. The lists follow the MI250X
 * paper's Table I (../shared/seeds/000_*) and the MI300A paper's Table 3
 * (003_*); the register layouts are AMD's matrix instruction calculator's,
 * computed generally in mfma_layout.h.
 *
 * Operands: each lane holds KL = K*M*BLK/64 consecutive k-elements of A (and
 * of B), packed into one 32- or 64-bit register. Results: M*N*BLK/64 items
 * per lane. */
#ifndef MCF_MFMA_OPS_H
#define MCF_MFMA_OPS_H

#include <stdint.h>

#include "mfma_layout.h"

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

/* NAME: shape M x N x K in BLK blocks, BITS per operand element packed into
 * OP, accumulator ACC of COUT items; C2 / C3: present on CDNA2 / CDNA3. */
#define MFMA(NAME, M_, N_, K_, B_, BITS_, OP, ACC, COUT, C2, C3, BUILTIN)                              \
    struct NAME {                                                                                     \
        enum { M = M_, N = N_, K = K_, BLK = B_, AB_BITS = BITS_, KL = K_ * M_ * B_ / 64,             \
               ITEMS = M_ * N_ * B_ / 64, ON_CDNA2 = C2, ON_CDNA3 = C3 };                             \
        typedef OP op; typedef ACC acc; typedef COUT cout;                                            \
        static __device__ acc mma(op a, op b, acc c)                                                  \
        {                                                                                             \
            if constexpr ((MCF_CDNA2 && C2) || (MCF_CDNA3 && C3)) return BUILTIN(a, b, c, 0, 0, 0);   \
            else { __builtin_trap(); return c; }                                                      \
        }                                                                                             \
    }

/* FP64; 4x4x4 (4 blocks) has one result item per lane, a plain double */
MFMA(mfma_f64_16x16x4, 16, 16, 4, 1, 64, double, f64x4, double, 1, 1, __builtin_amdgcn_mfma_f64_16x16x4f64);
MFMA(mfma_f64_4x4x4, 4, 4, 4, 4, 64, double, double, double, 1, 1, __builtin_amdgcn_mfma_f64_4x4x4f64);
/* FP32 */
MFMA(mfma_f32_32x32x2, 32, 32, 2, 1, 32, float, f32x16, float, 1, 1, __builtin_amdgcn_mfma_f32_32x32x2f32);
MFMA(mfma_f32_16x16x4, 16, 16, 4, 1, 32, float, f32x4, float, 1, 1, __builtin_amdgcn_mfma_f32_16x16x4f32);
MFMA(mfma_f32_32x32x1, 32, 32, 1, 2, 32, float, f32x32, float, 1, 1, __builtin_amdgcn_mfma_f32_32x32x1f32);
MFMA(mfma_f32_16x16x1, 16, 16, 1, 4, 32, float, f32x16, float, 1, 1, __builtin_amdgcn_mfma_f32_16x16x1f32);
MFMA(mfma_f32_4x4x1, 4, 4, 1, 16, 32, float, f32x4, float, 1, 1, __builtin_amdgcn_mfma_f32_4x4x1f32);
/* FP32 <- FP16 */
MFMA(mfma_f16_32x32x8, 32, 32, 8, 1, 16, f16x4, f32x16, float, 1, 1, __builtin_amdgcn_mfma_f32_32x32x8f16);
MFMA(mfma_f16_16x16x16, 16, 16, 16, 1, 16, f16x4, f32x4, float, 1, 1, __builtin_amdgcn_mfma_f32_16x16x16f16);
MFMA(mfma_f16_32x32x4, 32, 32, 4, 2, 16, f16x4, f32x32, float, 1, 1, __builtin_amdgcn_mfma_f32_32x32x4f16);
MFMA(mfma_f16_16x16x4, 16, 16, 4, 4, 16, f16x4, f32x16, float, 1, 1, __builtin_amdgcn_mfma_f32_16x16x4f16);
MFMA(mfma_f16_4x4x4, 4, 4, 4, 16, 16, f16x4, f32x4, float, 1, 1, __builtin_amdgcn_mfma_f32_4x4x4f16);
/* FP32 <- BF16: the _1k instructions (4 values per lane, as FP16) */
MFMA(mfma_bf16_32x32x8, 32, 32, 8, 1, 16, i16x4, f32x16, float, 1, 1, __builtin_amdgcn_mfma_f32_32x32x8bf16_1k);
MFMA(mfma_bf16_16x16x16, 16, 16, 16, 1, 16, i16x4, f32x4, float, 1, 1, __builtin_amdgcn_mfma_f32_16x16x16bf16_1k);
MFMA(mfma_bf16_32x32x4, 32, 32, 4, 2, 16, i16x4, f32x32, float, 1, 1, __builtin_amdgcn_mfma_f32_32x32x4bf16_1k);
MFMA(mfma_bf16_16x16x4, 16, 16, 4, 4, 16, i16x4, f32x16, float, 1, 1, __builtin_amdgcn_mfma_f32_16x16x4bf16_1k);
MFMA(mfma_bf16_4x4x4, 4, 4, 4, 16, 16, i16x4, f32x4, float, 1, 1, __builtin_amdgcn_mfma_f32_4x4x4bf16_1k);
/* INT32 <- INT8: 4 per lane in an int, or 8 in a long (CDNA3's k-doubled shapes) */
MFMA(mfma_i8_32x32x8, 32, 32, 8, 1, 8, int, i32x16, int, 1, 0, __builtin_amdgcn_mfma_i32_32x32x8i8);
MFMA(mfma_i8_16x16x16, 16, 16, 16, 1, 8, int, i32x4, int, 1, 0, __builtin_amdgcn_mfma_i32_16x16x16i8);
MFMA(mfma_i8_32x32x4, 32, 32, 4, 2, 8, int, i32x32, int, 1, 1, __builtin_amdgcn_mfma_i32_32x32x4i8);
MFMA(mfma_i8_16x16x4, 16, 16, 4, 4, 8, int, i32x16, int, 1, 1, __builtin_amdgcn_mfma_i32_16x16x4i8);
MFMA(mfma_i8_4x4x4, 4, 4, 4, 16, 8, int, i32x4, int, 1, 1, __builtin_amdgcn_mfma_i32_4x4x4i8);
MFMA(mfma_i8_32x32x16, 32, 32, 16, 1, 8, long, i32x16, int, 0, 1, __builtin_amdgcn_mfma_i32_32x32x16_i8);
MFMA(mfma_i8_16x16x32, 16, 16, 32, 1, 8, long, i32x4, int, 0, 1, __builtin_amdgcn_mfma_i32_16x16x32_i8);
/* FP32 <- FP8 / BF8 (CDNA3), 8 per lane in a long: fp8 is E4M3 and bf8 E5M2,
 * both in AMD's fnuz encoding; A's format first */
MFMA(mfma_fp8_fp8_16x16x32, 16, 16, 32, 1, 8, long, f32x4, float, 0, 1, __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8);
MFMA(mfma_fp8_bf8_16x16x32, 16, 16, 32, 1, 8, long, f32x4, float, 0, 1, __builtin_amdgcn_mfma_f32_16x16x32_fp8_bf8);
MFMA(mfma_bf8_fp8_16x16x32, 16, 16, 32, 1, 8, long, f32x4, float, 0, 1, __builtin_amdgcn_mfma_f32_16x16x32_bf8_fp8);
MFMA(mfma_bf8_bf8_16x16x32, 16, 16, 32, 1, 8, long, f32x4, float, 0, 1, __builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8);
MFMA(mfma_fp8_fp8_32x32x16, 32, 32, 16, 1, 8, long, f32x16, float, 0, 1, __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8);
MFMA(mfma_fp8_bf8_32x32x16, 32, 32, 16, 1, 8, long, f32x16, float, 0, 1, __builtin_amdgcn_mfma_f32_32x32x16_fp8_bf8);
MFMA(mfma_bf8_fp8_32x32x16, 32, 32, 16, 1, 8, long, f32x16, float, 0, 1, __builtin_amdgcn_mfma_f32_32x32x16_bf8_fp8);
MFMA(mfma_bf8_bf8_32x32x16, 32, 32, 16, 1, 8, long, f32x16, float, 0, 1, __builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8);

#endif
