/* The host backend: real CPU work with the semantics of the GPU kernels, so
 * the whole pipeline runs on any machine. Workers are pthreads; a kernel's
 * "occupancy" is its number of workers (0: one per CPU this rank may use). */
#ifndef MCF_HOST_H
#define MCF_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "error.h"
#include "kernel.h"
#include "reference.h"
#include "stop.h"

struct host_state {
    int threads; /* default worker count */
};

/* Runs fn(arg, worker, n) on n threads released together by a barrier; each
 * worker stamps its own start and end on the common monotonic clock. */
typedef void (*host_work_fn)(void *arg, int worker, int nworkers);
int host_team_run(int n, host_work_fn fn, void *arg, double *start, double *end, struct mcf_err *e);

/* Long loops run in chunks of about a millisecond and poll the cut between
 * them (stop.h): a stop signal or the time limit ends a repetition early. */
#define HOST_CHUNK_OPS (1u << 22) /* FMAs or loads per chunk */
uint64_t host_chunk(uint64_t ops_per_iteration);

/* Workers a kernel uses. */
int host_workers(const struct host_state *s, const struct mcf_kernel *k);

/* Norm-wise relative error ||out - ref|| / ||ref|| (absolute when ||ref|| is 0). */
double host_relerr(const double *out, const double *ref, size_t n);

/* ---- matrix tiles: C = A*B accumulated over `iterations` per worker ---- */
struct host_tiles;
int host_tiles_create(const struct mcf_kernel *k, int workers, const uint64_t *iterations,
                      struct host_tiles **out, struct mcf_err *e);
void host_tiles_work(void *tiles, int worker, int nworkers);
int host_tiles_was_cut(const struct host_tiles *t);
int host_tiles_check(struct host_tiles *t, int inject_fault, struct mcf_err *e);
void host_tiles_destroy(struct host_tiles *t);

/* ---- memory arrays: per-worker slices or per-worker arrays ---- */
struct host_arrays;
/* shared = 1: one set of arrays of n elements split among workers (the memory
 * family); shared = 0: each worker owns arrays of n[w] elements (streams). */
int host_arrays_create(const struct mcf_kernel *k, int workers, int shared, const uint64_t *n,
                       struct host_arrays **out, struct mcf_err *e);
void host_arrays_work(void *arrays, int worker, int nworkers);
int host_arrays_was_cut(const struct host_arrays *a);
int host_arrays_check(struct host_arrays *a, int inject_fault, struct mcf_err *e);
void host_arrays_destroy(struct host_arrays *a);
uint64_t host_arrays_elements(const struct host_arrays *a);

/* ---- streams: passes of each stream's work a repetition (host_streams.c) ---- */
uint64_t host_streams_passes(const struct mcf_kernel *k);

/* ---- pointer chase: loads per repetition (host_latency.c) ---- */
uint64_t host_chase_steps(const struct mcf_kernel *k);

/* The MFMA layout self-test's matrix unit (backend.h's mfma_exec): host_mfma.c */
struct mcf_mfma_insn;
int host_mfma_exec(void *state, const struct mcf_mfma_insn *in, const void *a_tiles,
                   const void *b_tiles, const uint8_t *meta, void *dregs, struct mcf_err *e);

extern const struct mcf_kernel_ops host_matrix_ops, host_valu_ops, host_memory_ops,
    host_latency_ops, host_streams_ops, host_gemm_ops, host_ladder_ops, host_transfer_ops;

#endif
