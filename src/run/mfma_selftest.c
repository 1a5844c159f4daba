#include "mfma_selftest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counter_rng.h"
#include "operand.h"

#define SELFTEST_SEED 0x14u /* issue 14; any fixed seed: the inputs are part of the test */

/* Operand values: small integers, different per block, element and matrix,
 * exact in the operand type and every sum of K products exact in the fp32 or
 * int32 accumulator (8-bit floats: |v| <= 4, so even E5M2 holds them; K * 16
 * <= 512). Wider types get a wider range, so that the hint (where the
 * expected value is instead) is rarely ambiguous. */
static int value_range(enum mcf_dtype t)
{
    switch (t) {
    case MCF_FP8_E4M3:
    case MCF_FP8_E5M2: return 4;
    case MCF_FP16:
    case MCF_BF16: return 16;
    default: return 64; /* int8, fp32 (K <= 4), fp64 */
    }
}

/* Encodes stream s's count values of type t into *out; each must survive the
 * round trip (an internal check: the reference assumes the exact values). */
static int make_tiles(enum mcf_dtype t, uint64_t s, size_t count, uint8_t **out, struct mcf_err *e)
{
    const size_t bytes = (size_t)mcf_operand_bits(t) / 8;
    uint8_t *buf = NULL;
    MCF_ALLOC(e, buf, count * bytes);
    for (size_t i = 0; i < count; i++) {
        int v = mcf_counter_int(SELFTEST_SEED, s, i, value_range(t));
        uint64_t bits =
            mcf_encode(t, t == MCF_INT8 ? v / 8.0 : v, MCF_FP8_FNUZ); /* int8: mcfleet's j/8 */
        memcpy(buf + i * bytes, &bits, bytes);
        if (mcf_mfma_operand(t, buf, i) != v)
            MCF_FAIL(e, MCF_ERUNTIME, "internal: %d is not exact in %s", v, mcf_dtype_names[t]);
    }
    *out = buf;
    return MCF_OK;
fail:
    free(buf);
    return e->rc;
}

/* A sparse instruction's kept pairs, one of the six per chunk (i0 | i1 << 2,
 * sparsity.h), drawn per chunk: every pair, in every lane's every nibble */
static int make_meta(const struct mcf_mfma_insn *in, uint8_t **out, struct mcf_err *e)
{
    static const uint8_t pairs[6] = { 0 | 1 << 2, 0 | 2 << 2, 0 | 3 << 2,
                                      1 | 2 << 2, 1 | 3 << 2, 2 | 3 << 2 };
    const size_t count = (size_t)in->blk * in->m * (in->k / 4);
    uint8_t *buf = NULL;
    MCF_ALLOC(e, buf, count);
    for (size_t i = 0; i < count; i++)
        buf[i] =
            pairs[mcf_counter_bits(SELFTEST_SEED, 2 * (uint64_t)MCF_MFMA_COUNT + in->id, i, 0) % 6];
    *out = buf;
    return MCF_OK;
fail:
    return e->rc;
}

int mcf_mfma_case_make(struct mcf_mfma_case *c, const struct mcf_mfma_insn *in, struct mcf_err *e)
{
    const int m = in->m, n = in->n, k = in->k;
    *c = (struct mcf_mfma_case){ .in = in };
    MCF_TRY(make_tiles(in->ta, 2 * (uint64_t)in->id, (size_t)in->blk * m * mcf_mfma_a_cols(in),
                       &c->a_tiles, e));
    MCF_TRY(make_tiles(in->tb, 2 * (uint64_t)in->id + 1, (size_t)in->blk * k * n, &c->b_tiles, e));
    if (in->sparse) MCF_TRY(make_meta(in, &c->meta, e));
    MCF_ALLOC(e, c->ref, (size_t)in->blk * m * n);
    c->dregs = calloc(1, mcf_mfma_dreg_bytes(in));
    if (!c->dregs)
        MCF_FAIL(e, MCF_ERUNTIME, "calloc(%zu) failed: out of memory", mcf_mfma_dreg_bytes(in));
    for (int b = 0; b < in->blk; b++)
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++)
                c->ref[((size_t)b * m + i) * n + j] =
                    mcf_mfma_dot(in, c->a_tiles, c->b_tiles, c->meta, b, i, j);
    return MCF_OK;
fail:
    mcf_mfma_case_free(c);
    return e->rc;
}

void mcf_mfma_case_free(struct mcf_mfma_case *c)
{
    free(c->a_tiles);
    free(c->b_tiles);
    free(c->meta);
    free(c->ref);
    free(c->dregs);
    *c = (struct mcf_mfma_case){ 0 };
}

void mcf_mfma_reg_name(const struct mcf_mfma_insn *in, int r, char *buf, size_t len)
{
    if (in->dbits == 64)
        snprintf(buf, len, "a[%d:%d]", 2 * r, 2 * r + 1);
    else
        snprintf(buf, len, "a[%d]", r);
}

/* "lane L, register R" of the first register holding v, or "nowhere" */
static void find_value(const struct mcf_mfma_case *c, double v, char *buf, size_t len)
{
    const int items = mcf_mfma_items(c->in);
    char reg[24];
    for (int lane = 0; lane < 64; lane++)
        for (int r = 0; r < items; r++)
            if (mcf_mfma_dreg_get(c->in, c->dregs, lane, r) == v) {
                mcf_mfma_reg_name(c->in, r, reg, sizeof reg);
                snprintf(buf, len, "in lane %d, register %s", lane, reg);
                return;
            }
    snprintf(buf, len, "nowhere");
}

int mcf_mfma_compare(const struct mcf_mfma_case *c, mcf_mfma_result_fn decode, char *line,
                     size_t len)
{
    const struct mcf_mfma_insn *in = c->in;
    const struct mfma_layout L = mcf_mfma_layout(in);
    const int items = mcf_mfma_items(in), elems = in->blk * in->m * in->n;
    int *owner =
        malloc(sizeof *owner * (size_t)elems); /* lane * items + r holding each element; -1: none */
    char reg[24], reg2[24], where[64];
    int layout_bad = 0, value_bad = 0;
    if (!owner) {
        snprintf(line, len, "out of memory");
        return MCF_ERUNTIME;
    }
    for (int x = 0; x < elems; x++) owner[x] = -1;
    for (int lane = 0; lane < 64 && !layout_bad; lane++)
        for (int r = 0; r < items && !layout_bad; r++) {
            int i, j, b;
            decode(L, lane, r, &i, &j, &b);
            mcf_mfma_reg_name(in, r, reg, sizeof reg);
            if (i < 0 || i >= in->m || j < 0 || j >= in->n || b < 0 || b >= in->blk) {
                snprintf(line, len,
                         "LAYOUT lane %d, register %s decodes to D[%d][%d] (block %d), outside the "
                         "%dx%d result of %d block%s",
                         lane, reg, i, j, b, in->m, in->n, in->blk, in->blk == 1 ? "" : "s");
                layout_bad = 1;
                break;
            }
            const int x = (b * in->m + i) * in->n + j;
            if (owner[x] >= 0) {
                mcf_mfma_reg_name(in, owner[x] % items, reg2, sizeof reg2);
                snprintf(line, len,
                         "LAYOUT D[%d][%d] (block %d) decodes from lane %d, register %s and from "
                         "lane %d, register %s",
                         i, j, b, owner[x] / items, reg2, lane, reg);
                layout_bad = 1;
                break;
            }
            owner[x] = lane * items + r;
            const double got = mcf_mfma_dreg_get(in, c->dregs, lane, r), want = c->ref[x];
            if (got != want && !value_bad) {
                find_value(c, want, where, sizeof where);
                snprintf(line, len,
                         "MISMATCH D[%d][%d] (block %d): lane %d, register %s holds %.17g, "
                         "expected %.17g; %.17g is %s",
                         i, j, b, lane, reg, got, want, want, where);
                value_bad = 1;
            }
        }
    for (int x = 0; x < elems && !layout_bad; x++)
        if (owner[x] < 0) {
            snprintf(line, len, "LAYOUT D[%d][%d] (block %d) is in no lane and register",
                     x / in->n % in->m, x % in->n, x / (in->m * in->n));
            layout_bad = 1;
        }
    free(owner);
    if (!layout_bad && !value_bad) snprintf(line, len, "ok");
    return layout_bad || value_bad ? MCF_EVERIFY : MCF_OK;
}

int mcf_mfma_selftest(const struct mcf_backend *be, void *state, const struct mcf_mfma_insn *in,
                      int gen, mcf_mfma_result_fn decode, const struct mcf_layout_inject *inj,
                      int *injected, char *line, size_t len, struct mcf_err *e)
{
    struct mcf_mfma_case c = { 0 };
    int rc;
    *injected = 0;
    if (gen && !in->on[gen - 2]) {
        snprintf(line, len, "absent on %s", mcf_mfma_gfx(gen));
        return MCF_EUNSUPPORTED;
    }
    MCF_TRY(mcf_mfma_case_make(&c, in, e));
    rc = be->mfma_exec(state, in, c.a_tiles, c.b_tiles, c.meta, c.dregs, e);
    if (rc == MCF_EUNSUPPORTED) {
        snprintf(line, len, "absent on this GPU (%.200s)", e->msg);
        mcf_err_clear(e);
        mcf_mfma_case_free(&c);
        return MCF_EUNSUPPORTED;
    }
    MCF_TRY(rc);
    *injected = mcf_layout_inject_apply(inj, in, c.dregs);
    rc = mcf_mfma_compare(&c, decode, line, len);
    if (rc == MCF_ERUNTIME) MCF_FAIL(e, MCF_ERUNTIME, "%s: %s", in->name, line);
    mcf_mfma_case_free(&c);
    return rc;
fail:
    mcf_mfma_case_free(&c);
    return e->rc;
}
