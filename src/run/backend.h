/* GPU (and host) backends as tables of function pointers, after IOR's aiori.h.
 * Each backend is one const struct, registered in a NULL-terminated list under
 * its configure define and chosen at run time by name. Optional hooks may be
 * NULL in the definition: mcf_backend_select() fills them with defaults, so
 * callers never test for NULL. State is passed explicitly. */
#ifndef MCF_BACKEND_H
#define MCF_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the backend knows about the device a rank uses. */
struct mcf_device_info {
    char name[128];
    char uuid[80]; /* UUID, or serial, or a stable host identity */
    char pci_bus_id[32];
    char driver[64];
    char arch[32]; /* sm_90, gfx90a, x86_64 ... */
    uint64_t memory_bytes;
    uint64_t cache_bytes; /* last-level cache: L2 on a GPU, LLC on a CPU */
    uint64_t l1_bytes;
    int compute_units; /* SMs, CUs, cores */
    double clock_mhz; /* nominal; measured clocks are per sample */
    char partition[64]; /* AMD MI300: compute / memory partition mode; "" where not reported */
    char package[64]; /* AMD: the board's serial number (amdgpu sysfs); the two GCDs of an
                         MI250X share it, and power is reported for the package */
};

/* What a backend may need to know about the rank at init. */
struct mcf_rank_env {
    int local_rank, local_size; /* ranks sharing this node */
    int ncpus; /* CPUs in this rank's affinity mask */
};

/* Capabilities that add metrics. */
#define MCF_CAP_CLOCK 0x1u /* samples carry a measured clock */
#define MCF_CAP_SPARSE_ENCODE                                                                      \
    0x2u /* gemm 2:4 samples carry the time of one encoding of A (encode_s) */

/* One entry per kernel family: set up buffers for a kernel, run one timed
 * repetition, check the output against an independent reference, free. */
struct mcf_kernel_ops {
    int (*setup)(void *state, const struct mcf_kernel *k, void **kstate, struct mcf_err *e);
    int (*run)(void *kstate, struct mcf_sample *s, struct mcf_err *e);
    /* MCF_OK, or MCF_EVERIFY with the first mismatch in e->msg. */
    int (*verify)(void *kstate, struct mcf_err *e);
    void (*teardown)(void *kstate);
};

struct mcf_mfma_insn; /* src/run/mfma_insn.h */

struct mcf_backend {
    const char *name;
    const char *summary;
    unsigned caps;
    int is_gpu; /* considered by --backend auto */
    int (*init)(void **state, const struct mcf_rank_env *env, struct mcf_err *e); /* required */
    void (*finalize)(void *state);
    int (*device_count)(void *state, int *count, struct mcf_err *e);
    int (*open_device)(void *state, int index, struct mcf_err *e);
    int (*device_info)(void *state, struct mcf_device_info *info, struct mcf_err *e);
    /* one table per family; NULL (or an incomplete table) means unsupported */
    const struct mcf_kernel_ops *family[MCF_FAMILY_COUNT];
    /* how the memory kernels make sure they hit each level, and what proves
     * it (recorded as /meta level_method_<level>); optional */
    const char *(*level_method)(enum mcf_level level);
    /* the MFMA layout self-test (mfma_selftest.h), optional: issues insn once
     * in one 64-lane wavefront from a zero accumulator, its operands loaded
     * from encoded per-block tiles (a_tiles: blk x m x k, b_tiles: blk x k x
     * n, row-major; a sparse insn's a_tiles hold the compressed m x k/2 and
     * meta its kept pairs, m x k/4 bytes (sparsity.h); meta NULL for dense),
     * and writes the raw result registers, dregs[lane * items + r].
     * MCF_EUNSUPPORTED where the device lacks the instruction. */
    int (*mfma_exec)(void *state, const struct mcf_mfma_insn *insn, const void *a_tiles,
                     const void *b_tiles, const uint8_t *meta, void *dregs, struct mcf_err *e);
};

/* A family's table that picks another table per kernel (memory's levels,
 * transfer's links): mcf_forward_setup runs ops' setup and keeps the pair;
 * the other three pass every call on to it. */
int mcf_forward_setup(const struct mcf_kernel_ops *ops, void *state, const struct mcf_kernel *k,
                      void **ks, struct mcf_err *e);
int mcf_forward_run(void *ks, struct mcf_sample *s, struct mcf_err *e);
int mcf_forward_verify(void *ks, struct mcf_err *e);
void mcf_forward_teardown(void *ks);

/* NULL-terminated, in order of preference for --backend auto. */
extern const struct mcf_backend *const mcf_backends[];

/* Copies the backend called name into *out with every missing hook filled.
 * Unknown names are MCF_EINPUT; known-but-not-built ones are MCF_ERUNTIME. */
int mcf_backend_select(const char *name, struct mcf_backend *out, struct mcf_err *e);

/* Fills every missing optional hook of b with its default. */
void mcf_backend_fill(struct mcf_backend *b);

/* --backend auto: the first GPU backend (with the MFMA self-test, if
 * need_selftest) whose device_count is positive, else "host", in name; why
 * says why no GPU backend was taken ("" when one was), each probe's answer
 * labelled "backend NAME<where>". */
void mcf_backend_auto(const struct mcf_rank_env *env, int need_selftest, const char *where,
                      char *name, size_t name_len, char *why, size_t why_len);

/* Names a user may pass to --backend, built or not (for --help). */
extern const char *const mcf_backend_known[];

#ifdef __cplusplus
}
#endif

#endif
