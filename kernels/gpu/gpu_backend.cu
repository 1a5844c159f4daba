/* The GPU backend's table: device discovery, identity, and the families. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

double gpu_clock_mhz(const struct gpu_clock *c)
{
    double ns = (double)(c->t1 - c->t0);
    return ns > 0 ? (double)(c->c1 - c->c0) / ns * 1e3 : 0.0;
}

void gpu_fill(const struct gpu_state *s, int warps_per_sm, int default_warps, int *blocks,
              int *threads)
{
    int w = warps_per_sm > 0 ? warps_per_sm : default_warps;
    int per_block = w < 8 ? w : 8; /* blocks of up to 256 threads */
    int blocks_per_sm = (w + per_block - 1) / per_block;
    *threads = per_block * GPU_WARP;
    *blocks = blocks_per_sm * s->sms;
}

static int gpu_init(void **state, const struct mcf_rank_env *env, struct mcf_err *e)
{
    struct gpu_state *s = NULL;
    (void)env;
    MCF_ALLOC(e, s, 1);
    s->device = -1;
    *state = s;
    return MCF_OK;
fail:
    return e->rc;
}

static void gpu_finalize(void *state)
{
    struct gpu_state *s = (struct gpu_state *)state;
    if (s && s->opened) {
        GPU_RELEASE(gpuEventDestroy(s->ev0));
        GPU_RELEASE(gpuEventDestroy(s->ev1));
        GPU_RELEASE(gpuStreamDestroy(s->stream));
    }
    free(s);
}

static int gpu_device_count(void *state, int *count, struct mcf_err *e)
{
    (void)state;
    *count = 0;
    gpuError_t rc = gpuGetDeviceCount(count);
    if (rc != gpuSuccess) {
        *count = 0;
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                           "no %s GPU is usable here: %sGetDeviceCount: %s (%s)",
                           MCF_GPU_VENDOR[0] == 'h' ? "AMD" : "NVIDIA", MCF_GPU_VENDOR,
                           gpuGetErrorString(rc), gpuGetErrorName(rc));
    }
    return MCF_OK;
}

static int gpu_open_device(void *state, int index, struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    s->device = index;
    GPU_TRY(e, gpuSetDevice(index));
    GPU_TRY(e, gpuGetDeviceProperties(&s->prop, index));
    GPU_TRY(e, gpuDeviceGetAttribute(&s->clock_khz, gpuDevAttrClockRate, index));
    s->sms = s->prop.multiProcessorCount;
    GPU_TRY(e, gpuStreamCreateWithFlags(&s->stream, gpuStreamNonBlocking));
    GPU_TRY(e, gpuEventCreate(&s->ev0));
    GPU_TRY(e, gpuEventCreate(&s->ev1));
    s->opened = 1;
    return MCF_OK;
fail:
    return e->rc;
}

/* The kernel module's version (e.g. 580.159.04), which the runtime does not
 * give: the first dotted number on /proc/driver/nvidia/version's first line
 * ("NVRM version: NVIDIA UNIX [Open] Kernel Module [for x86_64]  580.159.04 ..."). */
extern "C" void gpu_module_version(const char *line, char *out, size_t len)
{
    const char *p = strstr(line, "Kernel Module");
    out[0] = '\0';
    for (p = p ? p : line; *p; p++) {
        if (*p >= '0' && *p <= '9' && (p == line || p[-1] == ' ')) {
            size_t n = strspn(p, "0123456789.");
            if (memchr(p, '.', n) && n < len) {
                memcpy(out, p, n);
                out[n] = '\0';
                return;
            }
        }
    }
}

/* The first line of a small system file, without its newline; "" if absent. */
static void read_line(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    out[0] = '\0';
    if (!f) return;
    if (fgets(out, (int)len, f)) out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

static int driver_version(char *out, size_t len, struct mcf_err *e)
{
    int drv = 0, rt = 0;
    char module[64] = "", line[256];
    GPU_TRY(e, gpuDriverGetVersion(&drv));
    GPU_TRY(e, gpuRuntimeGetVersion(&rt));
#if defined(MCF_GPU_HIP)
    /* amdgpu's own version where the DKMS module reports one; HIP versions
     * are major * 10^7 + minor * 10^5 + patch */
    read_line("/sys/module/amdgpu/version", module, sizeof module);
    snprintf(out, len, "%s%s%s driver %d.%d.%d, runtime %d.%d.%d", module[0] ? "amdgpu " : "",
             module, module[0] ? ", hip" : "hip", drv / 10000000, drv / 100000 % 100, drv % 100000,
             rt / 10000000, rt / 100000 % 100, rt % 100000);
    (void)line;
#else
    read_line("/proc/driver/nvidia/version", line, sizeof line);
    gpu_module_version(line, module, sizeof module);
    snprintf(out, len, "%s%s%s driver API %d.%d, runtime %d.%d", module, module[0] ? ", " : "",
             MCF_GPU_VENDOR, drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
#endif
    return MCF_OK;
fail:
    return e->rc;
}

#if defined(MCF_GPU_HIP)
/* An attribute of this PCI device in amdgpu's sysfs ("" where absent). */
static void pci_sysfs(const char *bus_id, const char *attr, char *out, size_t len)
{
    char path[160], bdf[32];
    size_t i;
    for (i = 0; bus_id[i] && i < sizeof bdf - 1; i++) /* sysfs spells the BDF in lower case */
        bdf[i] = (char)(bus_id[i] >= 'A' && bus_id[i] <= 'F' ? bus_id[i] - 'A' + 'a' : bus_id[i]);
    bdf[i] = '\0';
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/%s", bdf, attr);
    read_line(path, out, len);
}

#endif

/* AMD: the compute and memory partition modes (MI300's SPX/CPX, NPS1/NPS4),
 * and the board serial that identifies the package (both GCDs of an MI250X
 * report their board's), where the driver has them. */
static void amd_sysfs_identity(const char *bus_id, struct mcf_device_info *d)
{
#if defined(MCF_GPU_HIP)
    char compute[32], memory[32];
    pci_sysfs(bus_id, "current_compute_partition", compute, sizeof compute);
    pci_sysfs(bus_id, "current_memory_partition", memory, sizeof memory);
    if (compute[0] || memory[0])
        snprintf(d->partition, sizeof d->partition, "compute %s, memory %s",
                 compute[0] ? compute : "unknown", memory[0] ? memory : "unknown");
    pci_sysfs(bus_id, "serial_number", d->package, sizeof d->package);
#else
    (void)bus_id;
    (void)d;
#endif
}

static int gpu_device_info(void *state, struct mcf_device_info *d, struct mcf_err *e)
{
    struct gpu_state *s = (struct gpu_state *)state;
    const gpuDeviceProp *p = &s->prop;
    const unsigned char *u;
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%.127s", p->name);
#if defined(MCF_GPU_HIP)
    hipUUID id;
    GPU_TRY(e, hipDeviceGetUuid(&id, s->device));
    u = (const unsigned char *)id.bytes;
    snprintf(d->arch, sizeof d->arch, "%.31s", p->gcnArchName);
#else
    u = (const unsigned char *)p->uuid.bytes;
    snprintf(d->arch, sizeof d->arch, "sm_%d%d", p->major, p->minor);
#endif
    snprintf(d->uuid, sizeof d->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    GPU_TRY(e, gpuDeviceGetPCIBusId(d->pci_bus_id, (int)sizeof d->pci_bus_id, s->device));
    MCF_TRY(driver_version(d->driver, sizeof d->driver, e));
    amd_sysfs_identity(d->pci_bus_id, d);
    d->memory_bytes = p->totalGlobalMem;
    d->cache_bytes = (uint64_t)p->l2CacheSize;
    d->l1_bytes = gpuPropSharedPerSM(*p);
    d->compute_units = p->multiProcessorCount;
    d->clock_mhz = s->clock_khz / 1000.0;
    return MCF_OK;
fail:
    return e->rc;
}

/* What makes each memory kernel hit its level (gpu_memory.cu), and where the
 * counters that show it are. */
static const char *gpu_level_method(enum mcf_level level)
{
#if defined(MCF_GPU_HIP)
    static const char *const m[MCF_LEVEL_COUNT] = {
        /* in enum mcf_level's order */
        /* hbm */ "arrays of 4x the L2, rotated among sets; rocprof TCC_EA_RDREQ/WRREQ show the "
                  "HBM bytes (docs/amd.md; not measured by mcfleet)",
        /* l2 */
        "nontemporal loads and stores, the op's arrays in a quarter of the L2; rocprof "
        "TCP_TCC_READ_REQ and TCC_HIT show the level (docs/amd.md; not measured by mcfleet)",
        /* l1 */
        "plain loads, each block sweeping one window inside the vL1D; rocprof "
        "TCP_TOTAL_CACHE_ACCESSES shows the level (docs/amd.md; not measured by mcfleet)",
        /* lds */
        "ds_read_b128 from each block's LDS; rocprof SQ_LDS_IDX_ACTIVE and SQ_LDS_BANK_CONFLICT "
        "(docs/amd.md; not measured by mcfleet)",
        /* tma */
        "none: NVIDIA Hopper's Tensor Memory Accelerator (tests of it are unsupported here)",
        /* dsm */
        "none: NVIDIA Hopper's distributed shared memory (tests of it are unsupported here)",
    };
#else
    static const char *const m[MCF_LEVEL_COUNT] = {
        /* in enum mcf_level's order */
        /* hbm */ "arrays of 4x the L2, rotated among sets; ncu on an H100: DRAM bytes equal the "
                  "arrays' (docs/performance.md)",
        /* l2 */
        "ld.global.cg / st.global.cg around the L1, the op's arrays in a quarter of the L2; ncu on "
        "an H100: 0% L1 hits, 99.9% L2 hits (docs/performance.md)",
        /* l1 */
        "ld.global.ca, each block sweeping one window inside the L1; ncu on an H100: 99.97% L1 "
        "hits (docs/performance.md)",
        /* lds */
        "ld.shared from each block's own shared memory; ncu on an H100: shared wavefronts only, no "
        "bank conflicts (docs/performance.md)",
        /* tma */
        "cp.async.bulk / cp.async.bulk.tensor.2d into shared memory, mbarrier completion (sm_90a); "
        "ncu's TMA and DRAM counters in docs/bench/2026-11-27-issue28/tmadsm.sh",
        /* dsm */
        "ld.shared::cluster of a peer CTA's shared memory (mapa), clusters of 2-16 (sm_90a); ncu's "
        "distributed shared memory counters in docs/bench/2026-11-27-issue28/tmadsm.sh",
    };
#endif
    return (int)level >= 0 && level < MCF_LEVEL_COUNT ? m[level] : "";
}

extern "C" const struct mcf_backend MCF_GPU_BACKEND_TABLE = {
    MCF_GPU_VENDOR,
    "GPU kernels through " MCF_GPU_VENDOR,
    MCF_CAP_CLOCK | MCF_CAP_SPARSE_ENCODE,
    1,
    gpu_init,
    gpu_finalize,
    gpu_device_count,
    gpu_open_device,
    gpu_device_info,
    /* in enum mcf_family's order (C++ has no array designators) */
    { &gpu_matrix_ops, &gpu_valu_ops, &gpu_memory_level_ops, &gpu_latency_ops, &gpu_streams_ops,
      &gpu_gemm_lib_ops, &gpu_ladder_ops, &gpu_transfer_ops },
    gpu_level_method,
#ifdef MCF_GPU_HIP
    gpu_mfma_exec, /* the MFMA layout self-test; CUDA's stays NULL (the default: unsupported) */
#endif
};
