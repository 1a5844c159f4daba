/* The memory family's table: levels hbm, l2, l1 and lds are gpu_memory.cu's
 * (both vendors); tma and dsm, Hopper's Tensor Memory Accelerator and
 * distributed shared memory, are gpu_tma.cu's (CUDA, sm_90a code only), and
 * AMD GPUs refuse them. */
#include <stdlib.h>

#include "gpu.h"

#ifndef MCF_GPU_HIP
extern const struct mcf_kernel_ops cuda_hopper_ops; /* gpu_tma.cu */
#endif

static int level_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    const struct mcf_kernel_ops *ops = &gpu_memory_ops;
    if (k->level == MCF_LEVEL_TMA || k->level == MCF_LEVEL_DSM) {
#ifdef MCF_GPU_HIP
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "level %s is NVIDIA Hopper's (%s): AMD GPUs have no such unit",
                           mcf_level_names[k->level],
                           k->level == MCF_LEVEL_TMA
                               ? "the Tensor Memory Accelerator"
                               : "distributed shared memory between the CTAs of a cluster");
#else
        ops = &cuda_hopper_ops;
#endif
    }
    return mcf_forward_setup(ops, state, k, ks, e);
}

GPU_HOST_OPS(gpu_memory_level_ops, level_setup, mcf_forward_run, mcf_forward_verify,
             mcf_forward_teardown);
