/* Collectives through NCCL / RCCL (placeholder: unsupported until it lands). */
#include "gpu.h"

static int co_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    (void)state; (void)k; (void)ks;
    return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "collectives are not built into this GPU backend yet");
}
static int co_run(void *ks, struct mcf_sample *s, struct mcf_err *e) { (void)ks; (void)s; (void)e; return MCF_OK; }
static int co_verify(void *ks, struct mcf_err *e) { (void)ks; (void)e; return MCF_OK; }
static void co_teardown(void *ks) { (void)ks; }
const struct mcf_kernel_ops gpu_collective_ops = { co_setup, co_run, co_verify, co_teardown };
