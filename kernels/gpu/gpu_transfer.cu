/* The transfer family on the GPU (placeholder: every link unsupported until
 * its kernels land). */
#include "gpu.h"

static int tr_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    (void)state; (void)k; (void)ks;
    return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "transfer tests are not built into this GPU backend yet");
}
static int tr_run(void *ks, struct mcf_sample *s, struct mcf_err *e) { (void)ks; (void)s; (void)e; return MCF_OK; }
static int tr_verify(void *ks, struct mcf_err *e) { (void)ks; (void)e; return MCF_OK; }
static void tr_teardown(void *ks) { (void)ks; }
const struct mcf_kernel_ops gpu_transfer_ops = { tr_setup, tr_run, tr_verify, tr_teardown };
