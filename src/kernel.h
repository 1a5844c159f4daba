/* Kernels as data. A kernel is a family, a data type, a shape and a size; the
 * work one "unit" does (FLOPs, bytes) is a property of the descriptor, and the
 * backend only says how many units a timed repetition executed. Every kernel
 * of every backend goes through one timing, verification and recording path
 * (runner.c), in the manner of BabelStream's benchmark.h. */
#ifndef MCF_KERNEL_H
#define MCF_KERNEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mcf_cut;

enum mcf_family {
    MCF_FAMILY_MATRIX, /* matrix-core / tensor-core tiles */
    MCF_FAMILY_VALU, /* vector FMA peak */
    MCF_FAMILY_MEMORY, /* bandwidth at a level of the hierarchy, and the intensity sweep */
    MCF_FAMILY_LATENCY, /* pointer chase */
    MCF_FAMILY_STREAMS, /* multi-stream concurrency */
    MCF_FAMILY_GEMM, /* the vendor's BLAS library (cuBLASLt, hipBLASLt; CBLAS on the host) */
    MCF_FAMILY_LADDER, /* mcfleet's own C = A*B at one memory level: naive, shared tiles, register
                          tiles */
    MCF_FAMILY_TRANSFER, /* the links: host<->GPU, GPU<->GPU, collectives, the network
                            (family_transfer.h) */
    MCF_FAMILY_COUNT
};

enum mcf_dtype {
    MCF_FP64,
    MCF_FP32,
    MCF_TF32,
    MCF_FP16,
    MCF_FP16_ACC16,
    MCF_BF16,
    MCF_FP8_E4M3,
    MCF_FP8_E5M2,
    MCF_INT8,
    MCF_FP16X2,
    MCF_FP32X2,
    MCF_DTYPE_COUNT
};

/* tma and dsm (Hopper's Tensor Memory Accelerator, distributed shared memory)
 * come last, so the older levels keep their numbers */
enum mcf_level {
    MCF_LEVEL_HBM,
    MCF_LEVEL_L2,
    MCF_LEVEL_L1,
    MCF_LEVEL_LDS,
    MCF_LEVEL_TMA,
    MCF_LEVEL_DSM,
    MCF_LEVEL_COUNT
};
/* DSM: whose shared memory cluster rank r reads: r+1 mod size (ring), r^1
 * (pair), rank 0 (broadcast) */
enum mcf_pattern { MCF_PATTERN_RING, MCF_PATTERN_PAIR, MCF_PATTERN_BROADCAST, MCF_PATTERN_COUNT };
/* TMA: one-dimensional cp.async.bulk, or cp.async.bulk.tensor through a 2D tensor map */
enum mcf_tma { MCF_TMA_BULK, MCF_TMA_TENSOR_2D, MCF_TMA_COUNT };
/* write (c = mcf_init_w's values, computed: stores only) comes last, so the older ops keep their
 * numbers */
enum mcf_memop { MCF_OP_READ, MCF_OP_COPY, MCF_OP_TRIAD, MCF_OP_FMA, MCF_OP_WRITE, MCF_OP_COUNT };
enum mcf_mode { MCF_MODE_THROUGHPUT, MCF_MODE_LATENCY, MCF_MODE_COUNT };
enum mcf_work { MCF_WORK_MATRIX, MCF_WORK_MEMORY, MCF_WORK_COUNT };
/* Operand values: random is full entropy (seeded, every mantissa bit drawn,
 * checked within a tolerance); exact is values j/8 whose every partial sum is
 * exact (checked bit for bit); zero is all zeros. */
enum mcf_inputs { MCF_INPUTS_RANDOM, MCF_INPUTS_ZERO, MCF_INPUTS_EXACT, MCF_INPUTS_COUNT };
/* Which matrix instructions: warp-level mma.sync, Hopper's warpgroup wgmma
 * with A from shared memory (ss) or registers (rs), AMD's MFMA; auto picks by
 * shape (m = 64: wgmma-ss where the GPU has it). */
enum mcf_path {
    MCF_PATH_AUTO,
    MCF_PATH_MMA,
    MCF_PATH_WGMMA_SS,
    MCF_PATH_WGMMA_RS,
    MCF_PATH_MFMA,
    MCF_PATH_COUNT
};
/* Matrix operand A dense, or 2:4 structured-sparse (two of every four
 * elements along k are zero; the instruction takes the two values and their
 * positions: mma.sp, sparse wgmma, AMD's smfmac). */
enum mcf_sparsity { MCF_SPARSITY_DENSE, MCF_SPARSITY_2_4, MCF_SPARSITY_COUNT };
/* The ladder family's rung: where C = A*B keeps what it reuses (global
 * memory only; tiles in shared memory; register tiles from shared tiles). */
enum mcf_rung { MCF_RUNG_NAIVE, MCF_RUNG_SHARED, MCF_RUNG_REGISTER, MCF_RUNG_COUNT };

/* The transfer family's link: the GPU's host link (PCIe), the node's GPU to
 * GPU links (NVLink, xGMI, PCIe peer), a collective (NCCL, RCCL; MPI on the
 * host backend), the network between nodes (MPI). */
enum mcf_link {
    MCF_LINK_HOST,
    MCF_LINK_PEER,
    MCF_LINK_COLLECTIVE,
    MCF_LINK_NETWORK,
    MCF_LINK_COUNT
};
/* Seen from this rank's GPU: into it (host to device; a peer's data to it),
 * out of it (device to host; its data to a peer), both at once. */
enum mcf_direction { MCF_DIR_IN, MCF_DIR_OUT, MCF_DIR_BOTH, MCF_DIR_COUNT };
/* Who moves the bytes: the copy engines (DMA: cudaMemcpyAsync) or the SMs
 * (a kernel's loads and stores across the link). */
enum mcf_engine { MCF_ENGINE_COPY, MCF_ENGINE_SM, MCF_ENGINE_COUNT };
/* Host link: pinned host memory on the GPU's NUMA node, or on another one. */
enum mcf_numa { MCF_NUMA_LOCAL, MCF_NUMA_REMOTE, MCF_NUMA_COUNT };
enum mcf_collective {
    MCF_COLL_ALLREDUCE,
    MCF_COLL_ALLGATHER,
    MCF_COLL_REDUCESCATTER,
    MCF_COLL_COUNT
};
/* A collective among the ranks of one node, or of the whole job. */
enum mcf_scope { MCF_SCOPE_NODE, MCF_SCOPE_JOB, MCF_SCOPE_COUNT };

#define MCF_MAX_STREAMS 16
/* peer links: one figure per other rank of the node (local rank); network:
 * one per round */
#define MCF_MAX_PEERS 16
#define MCF_MAX_METRICS (8 + 2 * MCF_MAX_STREAMS)

struct mcf_comm; /* src/link/comm.h */

struct mcf_kernel {
    char label[128];
    enum mcf_family family;
    enum mcf_dtype dtype;
    enum mcf_dtype dtype_b; /* matrix: B's FP8 format where it differs from A's (AMD's
                               fp8 x bf8 pairings); MCF_DTYPE_COUNT: B is dtype too */
    int shape[3]; /* matrix: m, n, k of one tile / instruction */
    uint64_t size; /* gemm: m = n = k of the library call */
    enum mcf_mode mode; /* matrix, memory tma/dsm: throughput or dependent-chain latency */
    enum mcf_path path; /* matrix: which instructions */
    enum mcf_sparsity sparsity; /* matrix: A dense or 2:4 structured-sparse */
    enum mcf_rung rung; /* ladder: which memory level holds the reused operands */
    int occupancy; /* concurrent workers: host threads, GPU warps or waves */
    uint64_t iterations; /* inner iterations per timed repetition */
    enum mcf_level level;
    enum mcf_memop op;
    uint64_t bytes; /* memory: bytes per array; streams: bytes per stream */
    int intensity; /* memory op fma: FMAs per loaded element */
    uint64_t sweeps; /* memory: passes over the arrays in one timed repetition (1: one),
                        so that a repetition lasts long enough for a power window */
    int cluster; /* memory dsm: CTAs per cluster */
    enum mcf_pattern pattern; /* memory dsm: whose shared memory each CTA reads */
    enum mcf_tma tma; /* memory tma: bulk or tensor-2d copies */
    uint32_t load; /* memory tma: bytes per TMA copy */
    int ctas; /* memory tma/dsm: CTAs per SM (0: the backend's choice) */
    uint64_t working_set; /* latency: bytes chased */
    uint32_t stride; /* latency: bytes between chased elements */
    int streams; /* streams: concurrent streams */
    int imbalance; /* streams: stream 0 does this many times the work */
    enum mcf_work work; /* streams: what each stream runs */
    enum mcf_link link; /* transfer: which link */
    enum mcf_direction direction; /* transfer host / peer: into the GPU, out of it, both */
    enum mcf_engine engine; /* transfer host / peer: copy engines or SMs */
    enum mcf_numa host_memory; /* transfer host: pinned memory on the GPU's NUMA node or another */
    enum mcf_collective collective; /* transfer collective: which one */
    enum mcf_scope scope; /* transfer collective: the node's ranks or the job's */
    int rounds; /* transfer network: partners each rank meets (the schedule's rounds) */
    enum mcf_inputs inputs;
    uint64_t seed; /* random inputs are drawn from this seed */
    int inject_fault; /* testing: corrupt one output element before verify */
    int inject_slow; /* testing: a collective-run test's slow factor on this rank (inject.h;
                        the runner repeats every other test's run itself); 0 or 1: none */
    const struct mcf_cut
        *cut; /* polled by long host kernels between chunks (stop.h); NULL: never */
    const struct mcf_comm
        *comm; /* the other ranks, for the transfer family (link/comm.h); NULL: none */
};

/* What a backend returns for one timed repetition. */
struct mcf_sample {
    double seconds; /* device-timed (events, in-kernel clocks, or a monotonic host clock) */
    double units; /* work units executed (tile MMAs, elements, loads, FMAs) */
    double clock_mhz; /* clock measured during the kernel; 0 when the backend cannot */
    double cycles; /* matrix latency: SM cycles per dependent instruction; memory
                      tma/dsm latency: per dependent TMA copy / DSM load */
    double base_cycles; /* memory tma/dsm latency: per plain load of the same chain, the same way */
    double peak_gflops; /* matrix: dense peak at the measured clock; 0 when unknown */
    int nstreams; /* streams family */
    double stream_start[MCF_MAX_STREAMS]; /* concurrent run, seconds from a common origin */
    double stream_end[MCF_MAX_STREAMS];
    double stream_alone[MCF_MAX_STREAMS]; /* the same stream's kernel run by itself */
    int cut; /* cut short (stop.h), the output still checkable: no figure */
    double encode_s; /* gemm 2:4: one prune + compress of A, device-timed; 0: none done */
    double exec_fraction; /* gemm 2:4: the part of the dense multiply-adds the device executed
                             (0.5 on sparse tensor cores, 1 for a dense BLAS on the pruned A) */
    /* transfer peer: seconds of one transfer of `bytes` (each way) with local
     * rank j of the node, NaN for itself and where not measured (latency
     * mode: seconds per dependent access); network: per round, with the
     * partner's world rank in link_partner[] (-1: no partner that round) */
    double link_seconds[MCF_MAX_PEERS];
    int link_partner[MCF_MAX_PEERS];
    int nlinks; /* entries of link_seconds in use */
    int coll_ranks; /* transfer collective: the ranks in it (the bus bandwidth's n) */
};

/* The work one unit represents, from the descriptor alone. */
double mcf_kernel_flops_per_unit(const struct mcf_kernel *k);
double mcf_kernel_bytes_per_unit(const struct mcf_kernel *k);
int mcf_dtype_size(enum mcf_dtype t);

/* A recorded metric: name, unit, and how it is computed from a sample. */
struct mcf_metric {
    char name[32];
    const char *unit;
    double (*value)(const struct mcf_kernel *k, const struct mcf_sample *s, int index);
    int index; /* which stream, for per-stream metrics */
    int detail; /* recorded, but left out of the printed summary */
    int optional; /* NaN allowed (a figure the device cannot give), not an error */
    int better; /* +1 higher is better, -1 lower (judged); 0 shown, not judged */
};

/* The metrics a kernel records; the same on every rank (they depend on the
 * descriptor and the backend's capabilities, never on a run's outcome). */
int mcf_kernel_metrics(const struct mcf_kernel *k, unsigned backend_caps, struct mcf_metric *out,
                       int max);
/* Which way the summary metric NAME is judged wherever a family records
 * it (+1 higher is better, -1 lower), from the family rows; 0: no family
 * judges a metric of that name (a SKU profile can bound only those). */
int mcf_metric_judged(const char *name);

/* Names, for decks, labels and the results file. */
extern const char *const mcf_family_names[MCF_FAMILY_COUNT];
extern const char *const mcf_dtype_names[MCF_DTYPE_COUNT];
extern const char *const mcf_level_names[MCF_LEVEL_COUNT];
extern const char *const mcf_memop_names[MCF_OP_COUNT];
extern const char *const mcf_mode_names[MCF_MODE_COUNT];
extern const char *const mcf_work_names[MCF_WORK_COUNT];
extern const char *const mcf_inputs_names[MCF_INPUTS_COUNT];
extern const char *const mcf_path_names[MCF_PATH_COUNT];
extern const char *const mcf_sparsity_names[MCF_SPARSITY_COUNT];
extern const char *const mcf_rung_names[MCF_RUNG_COUNT];
extern const char *const mcf_pattern_names[MCF_PATTERN_COUNT];
extern const char *const mcf_tma_names[MCF_TMA_COUNT];
extern const char *const mcf_link_names[MCF_LINK_COUNT];
extern const char *const mcf_direction_names[MCF_DIR_COUNT];
extern const char *const mcf_engine_names[MCF_ENGINE_COUNT];
extern const char *const mcf_numa_names[MCF_NUMA_COUNT];
extern const char *const mcf_collective_names[MCF_COLL_COUNT];
extern const char *const mcf_scope_names[MCF_SCOPE_COUNT];
int mcf_name_index(const char *const *names, int count, const char *name);

void mcf_kernel_label(struct mcf_kernel *k);

#ifdef __cplusplus
}
#endif

#endif
