/* The host backend's matrix unit for the MFMA layout self-test
 * (src/run/mfma_selftest.h): it decodes the encoded operand tiles, multiplies
 * each block exactly, and places D_b[i][j] in the result register that
 * mfma_layout_result assigns it, as an MFMA instruction would if the layout
 * is right (a sparse one multiplies the kept values at the columns meta
 * names). It runs every instruction of both CDNA generations, so the
 * comparison, the fault injection and the command are tested on any machine;
 * what it cannot test is the GPU's own layout (that takes an AMD GPU). */
#include "host.h"

#include "mfma_insn.h"

int host_mfma_exec(void *state, const struct mcf_mfma_insn *in, const void *a_tiles,
                   const void *b_tiles, const uint8_t *meta, void *dregs, struct mcf_err *e)
{
    (void)state;
    (void)e;
    const struct mfma_layout L = mcf_mfma_layout(in);
    for (int lane = 0; lane < 64; lane++)
        for (int r = 0; r < mcf_mfma_items(in); r++) {
            int i, j, b;
            mfma_layout_result(L, lane, r, &i, &j, &b);
            mcf_mfma_dreg_set(in, dregs, lane, r,
                              mcf_mfma_dot(in, a_tiles, b_tiles, meta, b, i, j));
        }
    return MCF_OK;
}
