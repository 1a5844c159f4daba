/* The warp-level matrix path's host side (gpu_mrun.h), for every vendor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h" /* mcf_kernel_operands_differ */
#include "gpu_mrun.h"

static void mrun_free(struct mrun *r)
{
    if (!r) return;
    mbuffers_free(&r->b);
    free(r);
}

static int mrun_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    struct mrun *r = NULL;
    MCF_ALLOC(e, r, 1);
    r->s = s;
    r->k = *k;
    r->stream = s->stream;
    r->blk = 1;
    MCF_TRY(gpu_mrun_bind(r, k, e));
    {
        /* the reference multiplies what the instruction does, or nothing runs:
         * a wrong operand type reads as a wrong result (issue 31) */
        char why[256];
        if (mcf_kernel_operands_differ(k, r->ta, r->tb, why, sizeof why))
            MCF_FAIL(e, MCF_ERUNTIME, "%s %s %dx%dx%d: %s", r->insn, mcf_dtype_names[k->dtype],
                     r->m, r->n, r->kk, why);
    }
    if (k->mode == MCF_MODE_LATENCY) {
        r->acc = 1;
        r->blocks = 1;
        r->threads = GPU_WARP;
    } else {
        r->acc = r->one_acc ? 1 : 4;
        gpu_fill(s, k->occupancy, r->default_warps, &r->blocks, &r->threads);
    }
    r->half = (long long)(k->iterations / 2);
    r->warps = (size_t)r->blocks * r->threads / GPU_WARP;
    MCF_TRY(mbuffers_make(&r->b, r->m, r->n, r->kk, k, r->fp8,
                          r->warps * r->acc * r->blk * r->m * r->n * r->out_bytes, e));
    *ks = r;
    return MCF_OK;
fail:
    mrun_free(r);
    return e->rc;
}

static int mrun_run(void *ks, struct mcf_sample *smp, struct mcf_err *e)
{
    struct mrun *r = (struct mrun *)ks;
    struct gpu_clock clk;
    double per_acc = 2.0 * r->half + 1;
    double peak = r->peak_per_cu_cycle > 0 ? r->peak_per_cu_cycle
        : r->peak_per_cu_cycle < 0         ? 0.0
                                           : gpu_matrix_peak(r->s, r->k.dtype);
    MCF_TRY(gpu_time(
        r->s, [&] { r->launch(r); }, &smp->seconds, e));
    GPU_TRY(e, gpuMemcpy(&clk, r->b.clk, sizeof clk, gpuMemcpyDeviceToHost));
    /* a unit is one block's m x n x k product: an instruction does blk of them */
    msample_fill(smp, r->s, peak, &clk, per_acc, (double)r->acc * r->warps * r->blk);
    return MCF_OK;
fail:
    return e->rc;
}

static int mrun_verify(void *ks, struct mcf_err *e)
{
    struct mrun *r = (struct mrun *)ks;
    const long long half = r->half;
    unsigned long long *const span = r->span;
    const size_t tiles = r->warps * r->acc * r->blk;
    char what[160];
    snprintf(what, sizeof what, "%s %s %dx%dx%d", r->insn, mcf_dtype_names[r->k.dtype], r->m, r->n,
             r->kk);
    MCF_TRY(mverify_device(r->b.dout, tiles, r->out_bytes, r->decode, &r->b.tiles,
                           2 * (uint64_t)half + 1, what, r->k.inject_fault, e));
    if (mtiles_need_short_chain(&r->b.tiles)) {
        /* the same kernel and operands, 3 steps: a bound that is tight whatever the timed chain's
         * length */
        r->half = (MCHECK_SHORT_STEPS - 1) / 2;
        r->span = NULL;
        r->launch(r);
        r->half = half;
        r->span = span;
        GPU_LAUNCHED(e, "the 3-step verification chain");
        GPU_TRY(e, gpuStreamSynchronize(r->stream));
        snprintf(what + strlen(what), sizeof what - strlen(what), " (3-step verification chain)");
        MCF_TRY(mverify_device(r->b.dout, tiles, r->out_bytes, r->decode, &r->b.tiles,
                               MCHECK_SHORT_STEPS, what, r->k.inject_fault, e));
    }
    return MCF_OK;
fail:
    r->half = half;
    r->span = span;
    return e->rc;
}

static void mrun_teardown(void *ks)
{
    mrun_free((struct mrun *)ks);
}

GPU_HOST_OPS(gpu_mrun_ops, mrun_setup, mrun_run, mrun_verify, mrun_teardown);

/* ------------------------------------------------------------ work for the streams family */

int gpu_mwork_create(struct gpu_state *s, const struct mcf_kernel *k, gpuStream_t st,
                     unsigned long long *span, void **work, struct mcf_err *e)
{
    struct mcf_kernel w = *k;
    struct mrun *r = NULL;
    w.occupancy = 4; /* one block of 4 warps per SM: room for other streams' kernels */
    MCF_TRY(mrun_setup(s, &w, (void **)&r, e));
    r->stream = st;
    r->span = span;
    *work = r;
    return MCF_OK;
fail:
    return e->rc;
}

void gpu_mwork_launch(void *work)
{
    struct mrun *r = (struct mrun *)work;
    r->launch(r);
}
int gpu_mwork_check(void *work, int inject_fault, struct mcf_err *e)
{
    struct mrun *r = (struct mrun *)work;
    r->k.inject_fault = inject_fault;
    return mrun_verify(r, e);
}
void gpu_mwork_free(void *work)
{
    mrun_free((struct mrun *)work);
}
