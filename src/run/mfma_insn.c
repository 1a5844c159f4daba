#include "mfma_insn.h"

#include <string.h>

#include "operand.h"
#include "sparsity.h"

/* OP, ACC, COUT's HIP types and BUILTIN mean nothing to C; COUT is double,
 * float or int, which C knows, and gives the result items' width. */
#define MCF_MFMA_ROW(NAME, M_, N_, K_, B_, BITS_, OP, ACC, COUT, C2, C3, BUILTIN, ASM2, ASM3, TA,  \
                     TB, CYC2, OPS2, CYC3, OPS3)                                                   \
    [MCF_MFMA_##NAME] = { .id = MCF_MFMA_##NAME,                                                   \
                          .name = #NAME,                                                           \
                          .mnemonic = { ASM2, ASM3 },                                              \
                          .m = M_,                                                                 \
                          .n = N_,                                                                 \
                          .k = K_,                                                                 \
                          .blk = B_,                                                               \
                          .ab_bits = BITS_,                                                        \
                          .dbits = (int)sizeof(COUT) * 8,                                          \
                          .on = { C2, C3 },                                                        \
                          .ta = TA,                                                                \
                          .tb = TB,                                                                \
                          .cycles = { CYC2, CYC3 },                                                \
                          .ops_per_cu_cycle = { OPS2, OPS3 } },
/* the sparse ones: CDNA3 only, one block */
#define MCF_SMFMAC_ROW(NAME, M_, N_, K_, BITS_, OPA, OPB, ACC, COUT, BUILTIN, ASM3, TA, TB, CYC3,  \
                       OPS3)                                                                       \
    [MCF_MFMA_##NAME] = { .id = MCF_MFMA_##NAME,                                                   \
                          .name = #NAME,                                                           \
                          .mnemonic = { "", ASM3 },                                                \
                          .m = M_,                                                                 \
                          .n = N_,                                                                 \
                          .k = K_,                                                                 \
                          .blk = 1,                                                                \
                          .sparse = 1,                                                             \
                          .ab_bits = BITS_,                                                        \
                          .dbits = (int)sizeof(COUT) * 8,                                          \
                          .on = { 0, 1 },                                                          \
                          .ta = TA,                                                                \
                          .tb = TB,                                                                \
                          .cycles = { 0, CYC3 },                                                   \
                          .ops_per_cu_cycle = { 0, OPS3 } },
const struct mcf_mfma_insn mcf_mfma_insns[MCF_MFMA_COUNT] = { MCF_MFMA_LIST(MCF_MFMA_ROW)
                                                                  MCF_SMFMAC_LIST(MCF_SMFMAC_ROW) };
#undef MCF_MFMA_ROW
#undef MCF_SMFMAC_ROW

int mcf_mfma_generation(const char *gfx)
{
    if (!strncmp(gfx, "gfx90a", 6)) return 2;
    if (!strncmp(gfx, "gfx940", 6) || !strncmp(gfx, "gfx941", 6) || !strncmp(gfx, "gfx942", 6))
        return 3;
    return 0;
}

const char *mcf_mfma_gfx(int gen)
{
    return gen == 2 ? "gfx90a" : gen == 3 ? "gfx942" : "?";
}

double mcf_mfma_operand(enum mcf_dtype t, const void *tiles, size_t idx)
{
    size_t bytes = (size_t)mcf_operand_bits(t) / 8;
    uint64_t bits = 0;
    memcpy(&bits, (const uint8_t *)tiles + idx * bytes, bytes); /* little-endian: the low bytes */
    return mcf_decode(t, bits, MCF_FP8_FNUZ) * (t == MCF_INT8 ? 8 : 1);
}

double mcf_mfma_dot(const struct mcf_mfma_insn *in, const void *a_tiles, const void *b_tiles,
                    const uint8_t *meta, int b, int i, int j)
{
    const int cols = mcf_mfma_a_cols(in);
    long double sum = 0;
    for (int c = 0; c < cols; c++) {
        /* block b's pairs start m x k/4 bytes after block 0's */
        int kk =
            in->sparse ? mcf_sparse_col(meta + (size_t)b * in->m * (in->k / 4), in->k, i, c) : c;
        sum += (long double)mcf_mfma_operand(in->ta, a_tiles, ((size_t)b * in->m + i) * cols + c) *
            mcf_mfma_operand(in->tb, b_tiles, ((size_t)b * in->k + kk) * in->n + j);
    }
    return (double)sum;
}

size_t mcf_mfma_dreg_bytes(const struct mcf_mfma_insn *in)
{
    return (size_t)64 * mcf_mfma_items(in) * (in->dbits / 8);
}

double mcf_mfma_dreg_get(const struct mcf_mfma_insn *in, const void *dregs, int lane, int r)
{
    size_t at = (size_t)lane * mcf_mfma_items(in) + r;
    if (in->dbits == 64) return ((const double *)dregs)[at];
    if (in->ta == MCF_INT8) return ((const int32_t *)dregs)[at];
    return ((const float *)dregs)[at];
}

void mcf_mfma_dreg_set(const struct mcf_mfma_insn *in, void *dregs, int lane, int r, double v)
{
    size_t at = (size_t)lane * mcf_mfma_items(in) + r;
    if (in->dbits == 64)
        ((double *)dregs)[at] = v;
    else if (in->ta == MCF_INT8)
        ((int32_t *)dregs)[at] = (int32_t)v;
    else
        ((float *)dregs)[at] = (float)v;
}
