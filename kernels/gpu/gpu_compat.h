/* The small compat layer that lets one source serve CUDA and HIP. Runtime
 * calls, types and the few intrinsics the shared kernels use are spelled
 * gpu*; everything vendor-specific beyond this (the matrix-core kernels)
 * lives in kernels/cuda or kernels/hip. */
#ifndef MCF_GPU_COMPAT_H
#define MCF_GPU_COMPAT_H

#include <stdio.h>
#include <string.h>

#if defined(__HIPCC__) || defined(MCF_GPU_HIP)
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#define MCF_GPU_VENDOR "hip"
typedef hipError_t gpuError_t;
typedef hipStream_t gpuStream_t;
typedef hipEvent_t gpuEvent_t;
typedef hipDeviceProp_t gpuDeviceProp;
#define gpuSuccess hipSuccess
#define gpuGetErrorString hipGetErrorString
#define gpuGetErrorName hipGetErrorName
#define gpuGetLastError hipGetLastError
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuSetDevice hipSetDevice
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuDriverGetVersion hipDriverGetVersion
#define gpuRuntimeGetVersion hipRuntimeGetVersion
#define gpuDeviceGetPCIBusId hipDeviceGetPCIBusId
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuMemcpy hipMemcpy
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemset hipMemset
#define gpuMemsetAsync hipMemsetAsync
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuDeviceSynchronize hipDeviceSynchronize
#define gpuStreamCreateWithFlags hipStreamCreateWithFlags
#define gpuStreamNonBlocking hipStreamNonBlocking
#define gpuStreamDestroy hipStreamDestroy
#define gpuStreamSynchronize hipStreamSynchronize
#define gpuEventCreate hipEventCreate
#define gpuEventDestroy hipEventDestroy
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuFuncSetAttribute(f, a, v) hipFuncSetAttribute((const void *)(f), a, v)
#define gpuFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
#define gpuDevAttrClockRate hipDeviceAttributeClockRate
#define gpuDeviceGetAttribute hipDeviceGetAttribute
#define GPU_WARP 64
/* HIP's properties lack CUDA's opt-in LDS size: a block may use all 64 KiB */
#define gpuPropSharedPerSM(p) ((p).maxSharedMemoryPerMultiProcessor)
#define gpuPropSharedPerBlockOptin(p) ((p).sharedMemPerBlock)
/* wall-clock nanoseconds on the device: CDNA2 and CDNA3's constant 100 MHz
 * counter (s_memrealtime; the runtime reports its rate as
 * hipDeviceAttributeWallClockRate). clock64() is s_memtime, the shader clock. */
__device__ static inline unsigned long long gpu_globaltimer(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
    return __builtin_amdgcn_s_memrealtime() * 10ull;
#else
    return 0;
#endif
}

/* 16-byte loads that name the level they are meant to hit (gpu_memory.cu).
 * AMD: plain loads for the vL1D and LDS, nontemporal ones for the L2; which
 * level served them is shown by rocprof's counters (docs/amd.md). */
typedef unsigned int gpu_u32x4 __attribute__((ext_vector_type(4)));
/* the compute unit a wave runs on (with its SE and XCC bits) */
__device__ static inline unsigned gpu_smid(void)
{
    return __smid();
}
__device__ static inline gpu_u32x4 gpu_load_l1(const gpu_u32x4 *p)
{
    return *(const volatile gpu_u32x4 *)p;
}
__device__ static inline gpu_u32x4 gpu_load_l2(const gpu_u32x4 *p)
{
    return __builtin_nontemporal_load(p);
}
__device__ static inline gpu_u32x4 gpu_load_lds(const gpu_u32x4 *p)
{
    return *(const volatile gpu_u32x4 *)p;
}
__device__ static inline void gpu_store_l2(gpu_u32x4 *p, gpu_u32x4 v)
{
    __builtin_nontemporal_store(v, p);
}
#else
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define MCF_GPU_VENDOR "cuda"
typedef cudaError_t gpuError_t;
typedef cudaStream_t gpuStream_t;
typedef cudaEvent_t gpuEvent_t;
typedef cudaDeviceProp gpuDeviceProp;
#define gpuSuccess cudaSuccess
#define gpuGetErrorString cudaGetErrorString
#define gpuGetErrorName cudaGetErrorName
#define gpuGetLastError cudaGetLastError
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuSetDevice cudaSetDevice
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuDriverGetVersion cudaDriverGetVersion
#define gpuRuntimeGetVersion cudaRuntimeGetVersion
#define gpuDeviceGetPCIBusId cudaDeviceGetPCIBusId
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuMemcpy cudaMemcpy
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemset cudaMemset
#define gpuMemsetAsync cudaMemsetAsync
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuDeviceSynchronize cudaDeviceSynchronize
#define gpuStreamCreateWithFlags cudaStreamCreateWithFlags
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuStreamDestroy cudaStreamDestroy
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuEventCreate cudaEventCreate
#define gpuEventDestroy cudaEventDestroy
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuFuncSetAttribute(f, a, v) cudaFuncSetAttribute(f, a, v)
#define gpuFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define gpuDevAttrClockRate cudaDevAttrClockRate
#define gpuDeviceGetAttribute cudaDeviceGetAttribute
#define GPU_WARP 32
#define gpuPropSharedPerSM(p) ((p).sharedMemPerMultiprocessor)
#define gpuPropSharedPerBlockOptin(p) ((p).sharedMemPerBlockOptin)
__device__ static inline unsigned long long gpu_globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* 16-byte loads that name the level they are meant to hit (gpu_memory.cu):
 * .ca caches in the L1, .cg only in the L2 (the L1 is bypassed). Volatile:
 * a sweep repeated over the same data is never merged or hoisted. The
 * counters that prove the level are in docs/performance.md (ncu). */
typedef uint4 gpu_u32x4;
__device__ static inline unsigned gpu_smid(void)
{
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}
__device__ static inline gpu_u32x4 gpu_load_l1(const gpu_u32x4 *p)
{
    gpu_u32x4 v;
    asm volatile("ld.global.ca.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}
__device__ static inline gpu_u32x4 gpu_load_l2(const gpu_u32x4 *p)
{
    gpu_u32x4 v;
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}
__device__ static inline gpu_u32x4 gpu_load_lds(const gpu_u32x4 *p)
{
    gpu_u32x4 v;
    unsigned a = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(a));
    return v;
}
__device__ static inline void gpu_store_l2(gpu_u32x4 *p, gpu_u32x4 v)
{
    asm volatile("st.global.cg.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
                 "r"(v.w)
                 : "memory");
}
#endif

/* A kernel family's table of host functions. HIP's device pass would emit a
 * namespace-scope const object for the GPU too, with references to host
 * functions it cannot resolve: it sees only a declaration. */
#if defined(__HIP_DEVICE_COMPILE__)
#define GPU_HOST_OPS(name, ...) extern const struct mcf_kernel_ops name
/* there, the static host functions that only the tables use look unused */
#pragma clang diagnostic ignored "-Wunused-function"
#else
#define GPU_HOST_OPS(name, ...) const struct mcf_kernel_ops name = { __VA_ARGS__ }
#endif

/* A call's text as the user's runtime spells it: gpuMalloc(...) is reported
 * as cudaMalloc(...) or hipMalloc(...). */
#define GPU_CALL_NAME(text)                                                                        \
    (strncmp((text), "gpu", 3) ? "" : MCF_GPU_VENDOR),                                             \
        (strncmp((text), "gpu", 3) ? (text) : (text) + 3)

/* Every runtime call is checked: the call, file:line and the vendor's words. */
#define GPU_TRY(e, call)                                                                           \
    do {                                                                                           \
        gpuError_t gpu_rc_ = (call);                                                               \
        if (gpu_rc_ != gpuSuccess) {                                                               \
            mcf_err_set((e), MCF_ERUNTIME, __FILE__, __LINE__, "%s%s failed: %s (%s)",             \
                        GPU_CALL_NAME(#call), gpuGetErrorString(gpu_rc_),                          \
                        gpuGetErrorName(gpu_rc_));                                                 \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* Releases in cleanup paths, where nothing can be undone: a failure is still
 * reported (a freed pointer that fails means a corrupted context), not lost. */
#define GPU_RELEASE(call)                                                                          \
    do {                                                                                           \
        gpuError_t gpu_rc_ = (call);                                                               \
        if (gpu_rc_ != gpuSuccess)                                                                 \
            fprintf(stderr, "mcfleet: %s:%d: %s%s failed: %s\n", __FILE__, __LINE__,               \
                    GPU_CALL_NAME(#call), gpuGetErrorString(gpu_rc_));                             \
    } while (0)

/* After a launch: the launch's own error, then the kernel's. */
#define GPU_LAUNCHED(e, what)                                                                      \
    do {                                                                                           \
        gpuError_t gpu_rc_ = gpuGetLastError();                                                    \
        if (gpu_rc_ != gpuSuccess) {                                                               \
            mcf_err_set((e), MCF_ERUNTIME, __FILE__, __LINE__, "launching %s: %s (%s)", what,      \
                        gpuGetErrorString(gpu_rc_), gpuGetErrorName(gpu_rc_));                     \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

#endif
