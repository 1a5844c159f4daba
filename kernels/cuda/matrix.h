/* The CUDA matrix family's two paths, mma.sync (matrix.cu) and wgmma
 * (wgmma.cu); what they share with AMD's is in kernels/gpu/gpu_mtiles.h. */
#ifndef MCF_CUDA_MATRIX_H
#define MCF_CUDA_MATRIX_H

#include <stdint.h>

#include "gpu_mtiles.h"

/* The 2:4 sparse mma.sp instructions (matrix_sp.cu): binds r as
 * gpu_mrun_bind does for the dense ones. */
struct mrun;
int cuda_mrun_bind_sparse(struct mrun *r, const struct mcf_kernel *k, struct mcf_err *e);

/* The wgmma path (wgmma.cu, built for sm_90a only). */
extern const struct mcf_kernel_ops cuda_wgmma_ops;
/* Whether this binary has wgmma code for the open device. */
int cuda_wgmma_available(const struct gpu_state *s);

#endif
