/* The memory family's table: levels hbm, l2, l1 and lds are gpu_memory.cu's
 * (both vendors); tma and dsm, Hopper's Tensor Memory Accelerator and
 * distributed shared memory, are gpu_tma.cu's (CUDA, sm_90a code only), and
 * AMD GPUs refuse them. */
#include <stdlib.h>

#include "gpu.h"

#ifndef MCF_GPU_HIP
extern const struct mcf_kernel_ops cuda_hopper_ops;   /* gpu_tma.cu */
#endif

struct level_run {
    const struct mcf_kernel_ops *ops;
    void *ks;
};

static int level_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct level_run *p = NULL;
    const struct mcf_kernel_ops *ops = &gpu_memory_ops;
    if (k->level == MCF_LEVEL_TMA || k->level == MCF_LEVEL_DSM) {
#ifdef MCF_GPU_HIP
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "level %s is NVIDIA Hopper's (%s): AMD GPUs have no such unit", mcf_level_names[k->level],
                           k->level == MCF_LEVEL_TMA ? "the Tensor Memory Accelerator"
                                                     : "distributed shared memory between the CTAs of a cluster");
#else
        ops = &cuda_hopper_ops;
#endif
    }
    MCF_ALLOC(e, p, 1);
    p->ops = ops;
    MCF_TRY(ops->setup(state, k, &p->ks, e));
    *ks = p;
    return MCF_OK;
fail:
    free(p);
    return e->rc;
}

static int level_run_rep(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    struct level_run *p = (struct level_run *)ks;
    return p->ops->run(p->ks, s, e);
}

static int level_verify(void *ks, struct mcf_err *e)
{
    struct level_run *p = (struct level_run *)ks;
    return p->ops->verify(p->ks, e);
}

static void level_teardown(void *ks)
{
    struct level_run *p = (struct level_run *)ks;
    if (!p)
        return;
    p->ops->teardown(p->ks);
    free(p);
}

GPU_HOST_OPS(gpu_memory_level_ops, level_setup, level_run_rep, level_verify, level_teardown);
