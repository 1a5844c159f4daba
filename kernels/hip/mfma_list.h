/* The MFMA instructions mcfleet knows (CDNA2 gfx90a, CDNA3 gfx94x), one list
 * for the HIP kernels (mfma_ops.h makes a struct of each row) and for plain C
 * (src/run/mfma_insn.c makes a table, which the layout self-test and
 * tests/test_mfma_layout use). The lists follow the MI250X paper's Table I
 * (../shared/seeds/000_*) and the MI300A paper's Table 3 (003_*).
 *
 * X(NAME, M, N, K, BLK, AB_BITS, OP, ACC, COUT, C2, C3, BUILTIN,
 * ASM2, ASM3, TA, TB, CYC2, OPS2, CYC3, OPS3):
 * shape M x N x K in BLK blocks; AB_BITS per operand element, a lane's KL =
 * K*M*BLK/64 elements packed into one OP; accumulator ACC of M*N*BLK/64 COUT
 * items; C2 / C3: present on CDNA2 / CDNA3; BUILTIN: the compiler's builtin;
 * ASM2 / ASM3: AMD's mnemonic on each generation ("" where absent); TA, TB:
 * the operands' mcfleet dtypes; CYC2, OPS2 / CYC3, OPS3: its execution
 * cycles and dense operations per CU per cycle on each generation (0 where
 * absent), as AMD's calculator gives them (-d; tests/test_mfma_layout checks
 * them against tests/data/mfma-layouts): its own peak, which on CDNA3 is below
 * the type's for the older multi-block FP16/BF16 and INT8 shapes. OP, ACC and
 * BUILTIN mean something to HIP only; C ignores them. */
#ifndef MCF_MFMA_LIST_H
#define MCF_MFMA_LIST_H

/* X-macro tables, one instruction a row (tests/selftest.sh and tests/hip_isa.sh
 * read them): laid out by hand */
/* clang-format off */

#define MCF_MFMA_LIST(X) \
    /* FP64; 4x4x4 (4 blocks) has one result item per lane, a plain double */ \
    X(mfma_f64_16x16x4, 16, 16, 4, 1, 64, double, f64x4, double, 1, 1, \
      __builtin_amdgcn_mfma_f64_16x16x4f64, \
      "v_mfma_f64_16x16x4f64", "v_mfma_f64_16x16x4_f64", MCF_FP64, MCF_FP64, 32, 256, 32, 256) \
    X(mfma_f64_4x4x4, 4, 4, 4, 4, 64, double, double, double, 1, 1, \
      __builtin_amdgcn_mfma_f64_4x4x4f64, \
      "v_mfma_f64_4x4x4f64", "v_mfma_f64_4x4x4_4b_f64", MCF_FP64, MCF_FP64, 16, 128, 16, 128) \
    /* FP32 */ \
    X(mfma_f32_32x32x2, 32, 32, 2, 1, 32, float, f32x16, float, 1, 1, \
      __builtin_amdgcn_mfma_f32_32x32x2f32, \
      "v_mfma_f32_32x32x2f32", "v_mfma_f32_32x32x2_f32", MCF_FP32, MCF_FP32, 64, 256, 64, 256) \
    X(mfma_f32_16x16x4, 16, 16, 4, 1, 32, float, f32x4, float, 1, 1, \
      __builtin_amdgcn_mfma_f32_16x16x4f32, \
      "v_mfma_f32_16x16x4f32", "v_mfma_f32_16x16x4_f32", MCF_FP32, MCF_FP32, 32, 256, 32, 256) \
    X(mfma_f32_32x32x1, 32, 32, 1, 2, 32, float, f32x32, float, 1, 1, \
      __builtin_amdgcn_mfma_f32_32x32x1f32, \
      "v_mfma_f32_32x32x1f32", "v_mfma_f32_32x32x1_2b_f32", MCF_FP32, MCF_FP32, 64, 256, 64, 256) \
    X(mfma_f32_16x16x1, 16, 16, 1, 4, 32, float, f32x16, float, 1, 1, \
      __builtin_amdgcn_mfma_f32_16x16x1f32, \
      "v_mfma_f32_16x16x1f32", "v_mfma_f32_16x16x1_4b_f32", MCF_FP32, MCF_FP32, 32, 256, 32, 256) \
    X(mfma_f32_4x4x1, 4, 4, 1, 16, 32, float, f32x4, float, 1, 1, \
      __builtin_amdgcn_mfma_f32_4x4x1f32, \
      "v_mfma_f32_4x4x1f32", "v_mfma_f32_4x4x1_16b_f32", MCF_FP32, MCF_FP32, 8, 256, 8, 256) \
    /* FP32 <- FP16 */ \
    X(mfma_f16_32x32x8, 32, 32, 8, 1, 16, f16x4, f32x16, float, 1, 1, \
      __builtin_amdgcn_mfma_f32_32x32x8f16, \
      "v_mfma_f32_32x32x8f16", "v_mfma_f32_32x32x8_f16", MCF_FP16, MCF_FP16, 64, 1024, 32, 2048) \
    X(mfma_f16_16x16x16, 16, 16, 16, 1, 16, f16x4, f32x4, float, 1, 1, \
      __builtin_amdgcn_mfma_f32_16x16x16f16, \
      "v_mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16_f16", MCF_FP16, MCF_FP16, 32, 1024, 16, 2048) \
    X(mfma_f16_32x32x4, 32, 32, 4, 2, 16, f16x4, f32x32, float, 1, 1, \
      __builtin_amdgcn_mfma_f32_32x32x4f16, \
      "v_mfma_f32_32x32x4f16", "v_mfma_f32_32x32x4_2b_f16", MCF_FP16, MCF_FP16, \
      64, 1024, 64, 1024) \
    X(mfma_f16_16x16x4, 16, 16, 4, 4, 16, f16x4, f32x16, float, 1, 1, \
      __builtin_amdgcn_mfma_f32_16x16x4f16, \
      "v_mfma_f32_16x16x4f16", "v_mfma_f32_16x16x4_4b_f16", MCF_FP16, MCF_FP16, \
      32, 1024, 32, 1024) \
    X(mfma_f16_4x4x4, 4, 4, 4, 16, 16, f16x4, f32x4, float, 1, 1, \
      __builtin_amdgcn_mfma_f32_4x4x4f16, \
      "v_mfma_f32_4x4x4f16", "v_mfma_f32_4x4x4_16b_f16", MCF_FP16, MCF_FP16, 8, 1024, 8, 1024) \
    /* FP32 <- BF16: the _1k instructions (4 values per lane, as FP16) */ \
    X(mfma_bf16_32x32x8, 32, 32, 8, 1, 16, i16x4, f32x16, float, 1, 1, \
      __builtin_amdgcn_mfma_f32_32x32x8bf16_1k, \
      "v_mfma_f32_32x32x8bf16_1k", "v_mfma_f32_32x32x8_bf16", MCF_BF16, MCF_BF16, \
      64, 1024, 32, 2048) \
    X(mfma_bf16_16x16x16, 16, 16, 16, 1, 16, i16x4, f32x4, float, 1, 1, \
      __builtin_amdgcn_mfma_f32_16x16x16bf16_1k, \
      "v_mfma_f32_16x16x16bf16_1k", "v_mfma_f32_16x16x16_bf16", MCF_BF16, MCF_BF16, \
      32, 1024, 16, 2048) \
    X(mfma_bf16_32x32x4, 32, 32, 4, 2, 16, i16x4, f32x32, float, 1, 1, \
      __builtin_amdgcn_mfma_f32_32x32x4bf16_1k, \
      "v_mfma_f32_32x32x4bf16_1k", "v_mfma_f32_32x32x4_2b_bf16", MCF_BF16, MCF_BF16, \
      64, 1024, 64, 1024) \
    X(mfma_bf16_16x16x4, 16, 16, 4, 4, 16, i16x4, f32x16, float, 1, 1, \
      __builtin_amdgcn_mfma_f32_16x16x4bf16_1k, \
      "v_mfma_f32_16x16x4bf16_1k", "v_mfma_f32_16x16x4_4b_bf16", MCF_BF16, MCF_BF16, \
      32, 1024, 32, 1024) \
    X(mfma_bf16_4x4x4, 4, 4, 4, 16, 16, i16x4, f32x4, float, 1, 1, \
      __builtin_amdgcn_mfma_f32_4x4x4bf16_1k, \
      "v_mfma_f32_4x4x4bf16_1k", "v_mfma_f32_4x4x4_16b_bf16", MCF_BF16, MCF_BF16, \
      8, 1024, 8, 1024) \
    /* INT32 <- INT8: 4 per lane in an int, or 8 in a long (CDNA3's k-doubled shapes) */ \
    X(mfma_i8_32x32x8, 32, 32, 8, 1, 8, int, i32x16, int, 1, 0, \
      __builtin_amdgcn_mfma_i32_32x32x8i8, \
      "v_mfma_i32_32x32x8i8", "", MCF_INT8, MCF_INT8, 64, 1024, 0, 0) \
    X(mfma_i8_16x16x16, 16, 16, 16, 1, 8, int, i32x4, int, 1, 0, \
      __builtin_amdgcn_mfma_i32_16x16x16i8, \
      "v_mfma_i32_16x16x16i8", "", MCF_INT8, MCF_INT8, 32, 1024, 0, 0) \
    X(mfma_i8_32x32x4, 32, 32, 4, 2, 8, int, i32x32, int, 1, 1, \
      __builtin_amdgcn_mfma_i32_32x32x4i8, \
      "v_mfma_i32_32x32x4i8", "v_mfma_i32_32x32x4_2b_i8", MCF_INT8, MCF_INT8, 64, 1024, 64, 1024) \
    X(mfma_i8_16x16x4, 16, 16, 4, 4, 8, int, i32x16, int, 1, 1, \
      __builtin_amdgcn_mfma_i32_16x16x4i8, \
      "v_mfma_i32_16x16x4i8", "v_mfma_i32_16x16x4_4b_i8", MCF_INT8, MCF_INT8, 32, 1024, 32, 1024) \
    X(mfma_i8_4x4x4, 4, 4, 4, 16, 8, int, i32x4, int, 1, 1, __builtin_amdgcn_mfma_i32_4x4x4i8, \
      "v_mfma_i32_4x4x4i8", "v_mfma_i32_4x4x4_16b_i8", MCF_INT8, MCF_INT8, 8, 1024, 8, 1024) \
    X(mfma_i8_32x32x16, 32, 32, 16, 1, 8, long, i32x16, int, 0, 1, \
      __builtin_amdgcn_mfma_i32_32x32x16_i8, \
      "", "v_mfma_i32_32x32x16_i8", MCF_INT8, MCF_INT8, 0, 0, 32, 4096) \
    X(mfma_i8_16x16x32, 16, 16, 32, 1, 8, long, i32x4, int, 0, 1, \
      __builtin_amdgcn_mfma_i32_16x16x32_i8, \
      "", "v_mfma_i32_16x16x32_i8", MCF_INT8, MCF_INT8, 0, 0, 16, 4096) \
    /* FP32 <- FP8 / BF8 (CDNA3), 8 per lane in a long: fp8 is E4M3 and bf8 E5M2, */ \
    /* both in AMD's fnuz encoding; A's format first */ \
    X(mfma_fp8_fp8_16x16x32, 16, 16, 32, 1, 8, long, f32x4, float, 0, 1, \
      __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8, \
      "", "v_mfma_f32_16x16x32_fp8_fp8", MCF_FP8_E4M3, MCF_FP8_E4M3, 0, 0, 16, 4096) \
    X(mfma_fp8_bf8_16x16x32, 16, 16, 32, 1, 8, long, f32x4, float, 0, 1, \
      __builtin_amdgcn_mfma_f32_16x16x32_fp8_bf8, \
      "", "v_mfma_f32_16x16x32_fp8_bf8", MCF_FP8_E4M3, MCF_FP8_E5M2, 0, 0, 16, 4096) \
    X(mfma_bf8_fp8_16x16x32, 16, 16, 32, 1, 8, long, f32x4, float, 0, 1, \
      __builtin_amdgcn_mfma_f32_16x16x32_bf8_fp8, \
      "", "v_mfma_f32_16x16x32_bf8_fp8", MCF_FP8_E5M2, MCF_FP8_E4M3, 0, 0, 16, 4096) \
    X(mfma_bf8_bf8_16x16x32, 16, 16, 32, 1, 8, long, f32x4, float, 0, 1, \
      __builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8, \
      "", "v_mfma_f32_16x16x32_bf8_bf8", MCF_FP8_E5M2, MCF_FP8_E5M2, 0, 0, 16, 4096) \
    X(mfma_fp8_fp8_32x32x16, 32, 32, 16, 1, 8, long, f32x16, float, 0, 1, \
      __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8, \
      "", "v_mfma_f32_32x32x16_fp8_fp8", MCF_FP8_E4M3, MCF_FP8_E4M3, 0, 0, 32, 4096) \
    X(mfma_fp8_bf8_32x32x16, 32, 32, 16, 1, 8, long, f32x16, float, 0, 1, \
      __builtin_amdgcn_mfma_f32_32x32x16_fp8_bf8, \
      "", "v_mfma_f32_32x32x16_fp8_bf8", MCF_FP8_E4M3, MCF_FP8_E5M2, 0, 0, 32, 4096) \
    X(mfma_bf8_fp8_32x32x16, 32, 32, 16, 1, 8, long, f32x16, float, 0, 1, \
      __builtin_amdgcn_mfma_f32_32x32x16_bf8_fp8, \
      "", "v_mfma_f32_32x32x16_bf8_fp8", MCF_FP8_E5M2, MCF_FP8_E4M3, 0, 0, 32, 4096) \
    X(mfma_bf8_bf8_32x32x16, 32, 32, 16, 1, 8, long, f32x16, float, 0, 1, \
      __builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8, \
      "", "v_mfma_f32_32x32x16_bf8_bf8", MCF_FP8_E5M2, MCF_FP8_E5M2, 0, 0, 32, 4096)

/* CDNA3's 2:4 sparse instructions (smfmac, gfx940/941/942): D += A*B with A
 * structured-sparse, its kept half held compressed (src/run/sparsity.h: in
 * each run of 4 along k, 2 values and their positions). K is the LOGICAL k
 * (AMD's name: v_smfmac_f32_16x16x32_f16 multiplies 16x32 by 32x16), so a
 * lane holds KL/2 = K*M/128 compressed A values in OPA, K*M/64 of B in OPB,
 * and each pair's 4-bit index (i0 | i1 << 2) in a third VGPR (the
 * instruction's src2, where the dense ones take C). One block each.
 *
 * X(NAME, M, N, K, AB_BITS, OPA, OPB, ACC, COUT, BUILTIN, ASM3, TA, TB, CYC3, OPS3):
 * as above; OPS3 is AMD's calculator's -d "FLOPs/CU/cycle", which counts the
 * logical 2*M*N*K per instruction: dense-equivalent, twice the type's dense
 * rate, as AMD's data sheets quote sparse peaks (docs/amd.md). */
#define MCF_SMFMAC_LIST(X) \
    X(smfmac_f16_16x16x32, 16, 16, 32, 16, f16x4, f16x8, f32x4, float, \
      __builtin_amdgcn_smfmac_f32_16x16x32_f16, \
      "v_smfmac_f32_16x16x32_f16", MCF_FP16, MCF_FP16, 16, 4096) \
    X(smfmac_f16_32x32x16, 32, 32, 16, 16, f16x4, f16x8, f32x16, float, \
      __builtin_amdgcn_smfmac_f32_32x32x16_f16, \
      "v_smfmac_f32_32x32x16_f16", MCF_FP16, MCF_FP16, 32, 4096) \
    X(smfmac_bf16_16x16x32, 16, 16, 32, 16, i16x4, i16x8, f32x4, float, \
      __builtin_amdgcn_smfmac_f32_16x16x32_bf16, \
      "v_smfmac_f32_16x16x32_bf16", MCF_BF16, MCF_BF16, 16, 4096) \
    X(smfmac_bf16_32x32x16, 32, 32, 16, 16, i16x4, i16x8, f32x16, float, \
      __builtin_amdgcn_smfmac_f32_32x32x16_bf16, \
      "v_smfmac_f32_32x32x16_bf16", MCF_BF16, MCF_BF16, 32, 4096) \
    X(smfmac_i8_16x16x64, 16, 16, 64, 8, i32x2, i32x4, i32x4, int, \
      __builtin_amdgcn_smfmac_i32_16x16x64_i8, \
      "v_smfmac_i32_16x16x64_i8", MCF_INT8, MCF_INT8, 16, 8192) \
    X(smfmac_i8_32x32x32, 32, 32, 32, 8, i32x2, i32x4, i32x16, int, \
      __builtin_amdgcn_smfmac_i32_32x32x32_i8, \
      "v_smfmac_i32_32x32x32_i8", MCF_INT8, MCF_INT8, 32, 8192) \
    X(smfmac_fp8_fp8_16x16x64, 16, 16, 64, 8, i32x2, i32x4, f32x4, float, \
      __builtin_amdgcn_smfmac_f32_16x16x64_fp8_fp8, \
      "v_smfmac_f32_16x16x64_fp8_fp8", MCF_FP8_E4M3, MCF_FP8_E4M3, 16, 8192) \
    X(smfmac_fp8_bf8_16x16x64, 16, 16, 64, 8, i32x2, i32x4, f32x4, float, \
      __builtin_amdgcn_smfmac_f32_16x16x64_fp8_bf8, \
      "v_smfmac_f32_16x16x64_fp8_bf8", MCF_FP8_E4M3, MCF_FP8_E5M2, 16, 8192) \
    X(smfmac_bf8_fp8_16x16x64, 16, 16, 64, 8, i32x2, i32x4, f32x4, float, \
      __builtin_amdgcn_smfmac_f32_16x16x64_bf8_fp8, \
      "v_smfmac_f32_16x16x64_bf8_fp8", MCF_FP8_E5M2, MCF_FP8_E4M3, 16, 8192) \
    X(smfmac_bf8_bf8_16x16x64, 16, 16, 64, 8, i32x2, i32x4, f32x4, float, \
      __builtin_amdgcn_smfmac_f32_16x16x64_bf8_bf8, \
      "v_smfmac_f32_16x16x64_bf8_bf8", MCF_FP8_E5M2, MCF_FP8_E5M2, 16, 8192) \
    X(smfmac_fp8_fp8_32x32x32, 32, 32, 32, 8, i32x2, i32x4, f32x16, float, \
      __builtin_amdgcn_smfmac_f32_32x32x32_fp8_fp8, \
      "v_smfmac_f32_32x32x32_fp8_fp8", MCF_FP8_E4M3, MCF_FP8_E4M3, 32, 8192) \
    X(smfmac_fp8_bf8_32x32x32, 32, 32, 32, 8, i32x2, i32x4, f32x16, float, \
      __builtin_amdgcn_smfmac_f32_32x32x32_fp8_bf8, \
      "v_smfmac_f32_32x32x32_fp8_bf8", MCF_FP8_E4M3, MCF_FP8_E5M2, 32, 8192) \
    X(smfmac_bf8_fp8_32x32x32, 32, 32, 32, 8, i32x2, i32x4, f32x16, float, \
      __builtin_amdgcn_smfmac_f32_32x32x32_bf8_fp8, \
      "v_smfmac_f32_32x32x32_bf8_fp8", MCF_FP8_E5M2, MCF_FP8_E4M3, 32, 8192) \
    X(smfmac_bf8_bf8_32x32x32, 32, 32, 32, 8, i32x2, i32x4, f32x16, float, \
      __builtin_amdgcn_smfmac_f32_32x32x32_bf8_bf8, \
      "v_smfmac_f32_32x32x32_bf8_bf8", MCF_FP8_E5M2, MCF_FP8_E5M2, 32, 8192)

/* The instructions' numbers, in the lists' order: the dense ones, then the sparse */
#define MCF_MFMA_ID(NAME, ...) MCF_MFMA_##NAME,
enum mcf_mfma_id { MCF_MFMA_LIST(MCF_MFMA_ID) MCF_SMFMAC_LIST(MCF_MFMA_ID) MCF_MFMA_COUNT };
#undef MCF_MFMA_ID

/* clang-format on */

#endif
