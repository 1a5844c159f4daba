/* The GPU backend, single-source for CUDA and HIP through gpu_compat.h. Only
 * the matrix-core family is vendor-specific (kernels/cuda, kernels/hip). */
#ifndef MCF_GPU_H
#define MCF_GPU_H

#include "backend.h"
#include "error.h"
#include "gpu_compat.h"
#include "kernel.h"
#include "reference.h"

struct gpu_state {
    int device;
    gpuDeviceProp prop;
    int sms;
    int clock_khz; /* nominal, from the runtime */
    gpuStream_t stream;
    gpuEvent_t ev0, ev1;
    int opened;
};

/* In-kernel clocks: one thread stamps SM cycles and wall nanoseconds at the
 * start and end of its work, giving the clock the kernel actually ran at. */
struct gpu_clock {
    long long c0, c1;
    unsigned long long t0, t1;
};
double gpu_clock_mhz(const struct gpu_clock *c);
/* The driver's version from /proc/driver/nvidia/version's first line. */
extern "C" void gpu_module_version(const char *line, char *out, size_t len);
/* Stamps go straight to memory: holding them in registers across a kernel's
 * loop costs registers the loop needs (ptxas spilled them). */
static __device__ inline void gpu_clock_start(struct gpu_clock *c)
{
    c->c0 = clock64();
    c->t0 = gpu_globaltimer();
}
static __device__ inline void gpu_clock_stop(struct gpu_clock *c)
{
    c->c1 = clock64();
    c->t1 = gpu_globaltimer();
}

/* Times one launch on the state's stream with device events. */
template <class Launch>
static inline int gpu_time(struct gpu_state *s, Launch launch, double *seconds, struct mcf_err *e)
{
    float ms = 0.0f;
    GPU_TRY(e, gpuEventRecord(s->ev0, s->stream));
    launch();
    GPU_LAUNCHED(e, "kernel");
    GPU_TRY(e, gpuEventRecord(s->ev1, s->stream));
    GPU_TRY(e, gpuEventSynchronize(s->ev1));
    GPU_TRY(e, gpuEventElapsedTime(&ms, s->ev0, s->ev1));
    *seconds = ms * 1e-3;
    return MCF_OK;
fail:
    return e->rc;
}

/* Threads per block and blocks for a kernel that should fill the device with
 * `warps_per_sm` warps on every multiprocessor (0: the backend's choice). */
void gpu_fill(const struct gpu_state *s, int warps_per_sm, int default_warps, int *blocks,
              int *threads);

/* Checks a copy / triad / fma output buffer of n elements on the device
 * against src/run/reference.h's formulas (the memory and streams families). */
int gpu_check_output(enum mcf_memop op, enum mcf_dtype dtype, int intensity, const void *dev,
                     size_t n, int inject_fault, struct mcf_err *e);

/* Fills a, b, c (n elements of dtype) from the formulas, on stream st. */
int gpu_init_arrays(enum mcf_dtype dtype, void *a, void *b, void *c, size_t n, int blocks,
                    gpuStream_t st, struct mcf_err *e);

/* The vendor's matrix work for the streams family: w is a matrix kernel
 * (mcf_streams_work's), run with one block of 4 warps per SM, launched on st,
 * stamping the kernel's span (the earliest block start, the latest block end)
 * into span[0], span[1]. */
int gpu_mwork_create(struct gpu_state *s, const struct mcf_kernel *w, gpuStream_t st,
                     unsigned long long *span, void **work, struct mcf_err *e);
void gpu_mwork_launch(void *work);
int gpu_mwork_check(void *work, int inject_fault, struct mcf_err *e);
void gpu_mwork_free(void *work);

#ifdef MCF_GPU_HIP
/* The MFMA layout self-test's instruction runner (backend.h's mfma_exec):
 * kernels/hip/selftest.hip. CUDA has none. */
extern "C" int gpu_mfma_exec(void *state, const struct mcf_mfma_insn *in, const void *a_tiles,
                             const void *b_tiles, const uint8_t *meta, void *dregs,
                             struct mcf_err *e);
#endif

extern const struct mcf_kernel_ops gpu_valu_ops, gpu_memory_ops, gpu_latency_ops, gpu_streams_ops,
    gpu_gemm_ops, gpu_ladder_ops;
/* the backend's gemm table: dense tests to gpu_gemm_ops, 2:4 ones to cuSPARSELt
 * (gpu_gemm_sparse.cu) */
extern const struct mcf_kernel_ops gpu_gemm_lib_ops;
/* the memory family's table: gpu_memory_ops, and Hopper's tma / dsm levels (gpu_mlevel.cu) */
extern const struct mcf_kernel_ops gpu_memory_level_ops;
/* the vendor's matrix-core family */
extern const struct mcf_kernel_ops gpu_matrix_ops;
/* the transfer family (gpu_transfer.cu): host and peer links here, collectives
 * through NCCL / RCCL (gpu_collective.cu), the network through MPI (link/network.h) */
extern const struct mcf_kernel_ops gpu_transfer_ops, gpu_collective_ops;

#endif
