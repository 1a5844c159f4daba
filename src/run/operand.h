/* How operand values are encoded in each matrix operand type: the bits the
 * GPUs' matrix units read. Plain C, used by the GPU backends' tiles
 * (kernels/gpu/gpu_mtiles.cu) and by the MFMA layout self-test. */
#ifndef MCF_OPERAND_H
#define MCF_OPERAND_H

#include <stdint.h>

#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* FP8 comes in two encodings: OCP's (NVIDIA, exponent bias 7 / 15) and the
 * "fnuz" one of AMD CDNA3 (bias 8 / 16, no negative zero: 0x80 is NaN). */
enum mcf_fp8_kind { MCF_FP8_OCP, MCF_FP8_FNUZ };

/* The bits of v in an operand type (fp64, fp32, tf32 in an fp32 word, fp16,
 * bf16, fp8, int8 as j*8), rounded to nearest even, and back; computed here
 * in plain arithmetic, not by the vendor's conversion intrinsics, so the
 * reference is independent of them. */
uint64_t mcf_encode(enum mcf_dtype t, double v, enum mcf_fp8_kind fp8);
double mcf_decode(enum mcf_dtype t, uint64_t bits, enum mcf_fp8_kind fp8);
/* Bits of one operand element of a type. */
int mcf_operand_bits(enum mcf_dtype t);

#ifdef __cplusplus
}
#endif

#endif
