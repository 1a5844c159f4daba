/* The HIP backend's side of the MFMA layout self-test (backend.h's
 * mfma_exec, src/run/mfma_selftest.h): one wavefront loads its operand
 * registers from one A and one B per block with mfma_layout_operand (a sparse
 * instruction: its compressed A and index register with
 * mfma_layout_sparse_a / _index), issues the instruction once from a zero
 * accumulator, and writes its raw result items, lane by lane; the host
 * decodes and compares them. */
#include <string.h>

#include "gpu.h"
#include "mfma_insn.h"
#include "mfma_ops.h"

template <class T>
__global__ void __launch_bounds__(64)
    k_selftest(const uint8_t *A, const uint8_t *meta, const uint8_t *B, typename T::cout *out)
{
    const int lane = threadIdx.x;
    const typename T::opa a = load_a<T>(A, lane, (size_t)T::M * (T::SPARSE ? T::K / 2 : T::K));
    const typename T::opb b = load_b<T>(B, lane, (size_t)T::K * T::N);
    const int idx = load_index<T>(meta, lane, (size_t)T::M * (T::K / 4));
    typename T::acc acc = (typename T::acc)(0);
    acc = T::mma(a, b, acc, idx);
#pragma unroll
    for (int r = 0; r < T::ITEMS; r++) out[lane * T::ITEMS + r] = acc_item(acc, r);
}

template <class T>
static int exec(struct gpu_state *s, const struct mcf_mfma_insn *in, const void *a, const void *b,
                const uint8_t *meta, void *d, struct mcf_err *e)
{
    const size_t a_bytes = (size_t)T::BLK * T::M * (T::SPARSE ? T::K / 2 : T::K) * T::AB_BITS / 8;
    const size_t b_bytes = (size_t)T::BLK * T::K * T::N * T::AB_BITS / 8;
    const size_t meta_bytes = T::SPARSE ? (size_t)T::BLK * T::M * (T::K / 4) : 0;
    const size_t d_bytes = (size_t)64 * T::ITEMS * sizeof(typename T::cout);
    const int gen = mcf_mfma_generation(s->prop.gcnArchName);
    uint8_t *dA = NULL, *dB = NULL, *dmeta = NULL;
    typename T::cout *dD = NULL;
    int rc = MCF_ERUNTIME;
    if (!((gen == 2 && T::ON_CDNA2) || (gen == 3 && T::ON_CDNA3)))
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "%s is not on %s", in->name,
                           s->prop.gcnArchName);
    GPU_TRY(e, gpuMalloc(&dA, a_bytes));
    GPU_TRY(e, gpuMalloc(&dB, b_bytes));
    GPU_TRY(e, gpuMalloc(&dD, d_bytes));
    GPU_TRY(e, gpuMemcpy(dA, a, a_bytes, gpuMemcpyHostToDevice));
    GPU_TRY(e, gpuMemcpy(dB, b, b_bytes, gpuMemcpyHostToDevice));
    if (meta_bytes) {
        if (!meta)
            MCF_FAIL(e, MCF_ERUNTIME, "internal: %s is sparse, and no kept pairs came", in->name);
        GPU_TRY(e, gpuMalloc(&dmeta, meta_bytes));
        GPU_TRY(e, gpuMemcpy(dmeta, meta, meta_bytes, gpuMemcpyHostToDevice));
    }
    k_selftest<T><<<1, 64, 0, s->stream>>>(dA, dmeta, dB, dD);
    GPU_LAUNCHED(e, "the MFMA self-test kernel");
    GPU_TRY(e, gpuStreamSynchronize(s->stream));
    GPU_TRY(e, gpuMemcpy(d, dD, d_bytes, gpuMemcpyDeviceToHost));
    rc = MCF_OK;
fail:
    if (dA) GPU_RELEASE(gpuFree(dA));
    if (dB) GPU_RELEASE(gpuFree(dB));
    if (dmeta) GPU_RELEASE(gpuFree(dmeta));
    if (dD) GPU_RELEASE(gpuFree(dD));
    return rc == MCF_OK ? MCF_OK : e->rc;
}

extern "C" int gpu_mfma_exec(void *state, const struct mcf_mfma_insn *in, const void *a_tiles,
                             const void *b_tiles, const uint8_t *meta, void *dregs,
                             struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    switch (in->id) {
#define MCF_MFMA_CASE(NAME, ...)                                                                   \
    case MCF_MFMA_##NAME: return exec<NAME>(s, in, a_tiles, b_tiles, meta, dregs, e);
        MCF_MFMA_LIST(MCF_MFMA_CASE)
        MCF_SMFMAC_LIST(MCF_MFMA_CASE)
#undef MCF_MFMA_CASE
    default: break;
    }
    return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                       "internal: MFMA instruction %d is not in the list", (int)in->id);
}
