/* Host matrix tiles: each worker owns copies of A (m x k), B and -B (k x n)
 * and C (m x n), all cache-resident, and runs the chain of every matrix
 * kernel: C += A*B, C += A*(-B), ..., C += A*B (an odd number of steps) from
 * C = 0, so C ends near A*B whatever the count (reference.h). Each step reads
 * the C the previous one wrote, so one worker is a dependency chain (the
 * latency mode) and many workers give throughput. FP64 and FP32 only: the CPU
 * has no matrix unit for the other types. With 2:4 sparsity each worker's A
 * is the kept half (sparsity.h) and the loop multiplies only those, reading
 * B at the positions the pairs name: half the multiply-adds of the dense
 * product of the pruned A, which the reference computes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "concurrency.h"
#include "host.h"
#include "sparsity.h"

struct host_tiles {
    enum mcf_dtype dtype;
    int m, n, k, workers;
    int exact; /* exact or zero inputs: the result must be A*B bit for bit */
    uint64_t *steps; /* per worker: 2 * (iterations / 2) + 1 */
    void **a, **b, **nb, **c; /* per worker (the same values), 64-byte aligned */
    double *ref, *abs_sum; /* A*B and sum_k |a_ik b_kj| in long double, m x n */
    uint8_t *idx; /* 2:4 sparse: each chunk's kept pair (a[w]: the kept values); NULL: dense */
    const struct mcf_cut *cut;
    volatile int was_cut; /* a worker stopped early: the output is partial */
};

/* Steps first .. first+count-1 of the chain: even steps add A*B, odd A*(-B). */
#define TILE_LOOP(T)                                                                               \
    static void tile_##T(const T *restrict a, const T *restrict b, const T *restrict nb,           \
                         T *restrict c, int m, int n, int k, uint64_t first, uint64_t count)       \
    {                                                                                              \
        for (uint64_t it = first; it < first + count; it++) {                                      \
            const T *restrict bb = it % 2 ? nb : b;                                                \
            for (int i = 0; i < m; i++)                                                            \
                for (int p = 0; p < k; p++) {                                                      \
                    const T aip = a[i * k + p];                                                    \
                    for (int j = 0; j < n; j++) c[i * n + j] += aip * bb[p * n + j];               \
                }                                                                                  \
        }                                                                                          \
    }
TILE_LOOP(double)
TILE_LOOP(float)

/* The same chain with A 2:4 sparse: a holds the kept values (m x k/2). */
#define TILE_LOOP_SP(T)                                                                            \
    static void tile_sp_##T(const T *restrict a, const uint8_t *idx, const T *restrict b,          \
                            const T *restrict nb, T *restrict c, int m, int n, int k,              \
                            uint64_t first, uint64_t count)                                        \
    {                                                                                              \
        for (uint64_t it = first; it < first + count; it++) {                                      \
            const T *restrict bb = it % 2 ? nb : b;                                                \
            for (int i = 0; i < m; i++)                                                            \
                for (int q = 0; q < k / 2; q++) {                                                  \
                    const T aiq = a[i * (k / 2) + q];                                              \
                    const T *restrict brow = bb + mcf_sparse_col(idx, k, i, q) * n;                \
                    for (int j = 0; j < n; j++) c[i * n + j] += aiq * brow[j];                     \
                }                                                                                  \
        }                                                                                          \
    }
TILE_LOOP_SP(double)
TILE_LOOP_SP(float)

static uint64_t host_tiles_steps(uint64_t iterations)
{
    return 2 * (iterations / 2) + 1;
}

static void tile_steps(const struct host_tiles *t, int w, void *c, uint64_t first, uint64_t count)
{
    if (t->idx && t->dtype == MCF_FP64)
        tile_sp_double(t->a[w], t->idx, t->b[w], t->nb[w], c, t->m, t->n, t->k, first, count);
    else if (t->idx)
        tile_sp_float(t->a[w], t->idx, t->b[w], t->nb[w], c, t->m, t->n, t->k, first, count);
    else if (t->dtype == MCF_FP64)
        tile_double(t->a[w], t->b[w], t->nb[w], c, t->m, t->n, t->k, first, count);
    else
        tile_float(t->a[w], t->b[w], t->nb[w], c, t->m, t->n, t->k, first, count);
}

void host_tiles_work(void *arg, int w, int nworkers)
{
    struct host_tiles *t = arg;
    const uint64_t chunk = host_chunk((uint64_t)t->m * t->n * (t->idx ? t->k / 2 : t->k)),
                   total = t->steps[w];
    (void)nworkers;
    memset(t->c[w], 0, (size_t)mcf_dtype_size(t->dtype) * t->m * t->n);
    for (uint64_t done = 0; done < total; done += chunk) {
        uint64_t n = total - done < chunk ? total - done : chunk;
        if (t->was_cut || mcf_cut_due(t->cut)) {
            t->was_cut = 1;
            return;
        }
        tile_steps(t, w, t->c[w], done, n);
    }
}

int host_tiles_was_cut(const struct host_tiles *t)
{
    return t->was_cut;
}

static void *aligned(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) return NULL;
    memset(p, 0, bytes);
    return p;
}

/* One operand value: full entropy (normal, rounded to the type), j/8 for j in
 * -8..8 (every partial sum exact), or zero. */
static double input_value(enum mcf_inputs in, enum mcf_dtype t, uint64_t *rng)
{
    if (in == MCF_INPUTS_ZERO) return 0.0;
    if (in == MCF_INPUTS_EXACT) return mcf_rng_eighths(rng) / 8.0;
    double v = mcf_rng_normal(rng);
    return t == MCF_FP64 ? v : (double)(float)v;
}

static void store(enum mcf_dtype t, void *p, int i, double v)
{
    if (t == MCF_FP64)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

int host_tiles_create(const struct mcf_kernel *k, int workers, const uint64_t *iterations,
                      struct host_tiles **out, struct mcf_err *e)
{
    struct host_tiles *t = NULL;
    double *A = NULL, *B = NULL, *AC = NULL;
    if (k->dtype != MCF_FP64 && k->dtype != MCF_FP32)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "the host backend has no %s matrix unit (fp64 and fp32 only)",
                           mcf_dtype_names[k->dtype]);
    if (k->path != MCF_PATH_AUTO && k->path != MCF_PATH_MMA)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "the host backend has no %s instructions", mcf_path_names[k->path]);
    if (k->shape[0] > 64 || k->shape[1] > 64 || k->shape[2] > 64)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "host matrix tiles are at most 64x64x64 (got %dx%dx%d)", k->shape[0],
                           k->shape[1], k->shape[2]);
    if (k->sparsity == MCF_SPARSITY_2_4 && k->shape[2] % 4)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "2:4 sparsity needs k a multiple of 4 (got %dx%dx%d)", k->shape[0],
                           k->shape[1], k->shape[2]);
    MCF_ALLOC(e, t, 1);
    t->dtype = k->dtype;
    t->m = k->shape[0];
    t->n = k->shape[1];
    t->k = k->shape[2];
    t->workers = workers;
    t->exact = k->inputs != MCF_INPUTS_RANDOM;
    t->cut = k->cut;
    size_t es = (size_t)mcf_dtype_size(k->dtype);
    size_t mn = (size_t)t->m * t->n, mk = (size_t)t->m * t->k, kn = (size_t)t->k * t->n;
    MCF_ALLOC(e, t->steps, workers);
    MCF_ALLOC(e, t->a, workers);
    MCF_ALLOC(e, t->b, workers);
    MCF_ALLOC(e, t->nb, workers);
    MCF_ALLOC(e, t->c, workers);
    MCF_ALLOC(e, t->ref, mn);
    MCF_ALLOC(e, t->abs_sum, mn);
    MCF_ALLOC(e, A, mk);
    MCF_ALLOC(e, B, kn);
    uint64_t rng = k->seed;
    for (size_t i = 0; i < mk; i++) A[i] = input_value(k->inputs, t->dtype, &rng);
    for (size_t i = 0; i < kn; i++) B[i] = input_value(k->inputs, t->dtype, &rng);
    if (k->sparsity == MCF_SPARSITY_2_4) { /* A pruned; the workers get its kept values */
        MCF_ALLOC(e, t->idx, mk / 4);
        MCF_ALLOC(e, AC, mk / 2);
        mcf_prune_24(A, t->m, t->k, &rng, AC, t->idx);
    }
    for (int w = 0; w < workers; w++) {
        t->steps[w] = host_tiles_steps(iterations[w]);
        t->a[w] = aligned(es * mk);
        t->b[w] = aligned(es * kn);
        t->nb[w] = aligned(es * kn);
        t->c[w] = aligned(es * mn);
        if (!t->a[w] || !t->b[w] || !t->nb[w] || !t->c[w])
            MCF_FAIL(e, MCF_ERUNTIME, "out of memory for matrix tiles");
        for (size_t i = 0; i < (AC ? mk / 2 : mk); i++)
            store(t->dtype, t->a[w], (int)i, AC ? AC[i] : A[i]);
        for (size_t i = 0; i < kn; i++) {
            store(t->dtype, t->b[w], (int)i, B[i]);
            store(t->dtype, t->nb[w], (int)i, -B[i]);
        }
    }
    /* Reference: A*B of the values as stored, in long double, by a different loop order. */
    for (int i = 0; i < t->m; i++)
        for (int j = 0; j < t->n; j++) {
            long double s = 0, sa = 0;
            for (int p = 0; p < t->k; p++) {
                long double prod = (long double)A[i * t->k + p] * B[p * t->n + j];
                s += prod;
                sa += fabsl(prod);
            }
            t->ref[i * t->n + j] = (double)s;
            t->abs_sum[i * t->n + j] = (double)sa;
        }
    free(A);
    free(B);
    free(AC);
    *out = t;
    return MCF_OK;
fail:
    free(A);
    free(B);
    free(AC);
    host_tiles_destroy(t);
    return e->rc;
}

/* Worker w's (or any) C as doubles. */
static void c_values(const struct host_tiles *t, const void *c, double *out)
{
    for (size_t i = 0; i < (size_t)t->m * t->n; i++)
        out[i] = t->dtype == MCF_FP64 ? ((const double *)c)[i] : ((const float *)c)[i];
}

static struct mcf_chain host_chain(const struct host_tiles *t, uint64_t steps)
{
    struct mcf_chain c = { steps, t->k,
                           t->exact                   ? 0.0
                               : t->dtype == MCF_FP64 ? MCF_UNIT_FP64
                                                      : MCF_UNIT_FP32,
                           0.0 };
    return c;
}

int host_tiles_check(struct host_tiles *t, int inject_fault, struct mcf_err *e)
{
    size_t mn = (size_t)t->m * t->n;
    char what[96];
    double *out = NULL;
    void *scratch = NULL;
    snprintf(what, sizeof what, "matrix %s %dx%dx%d", mcf_dtype_names[t->dtype], t->m, t->n, t->k);
    MCF_ALLOC(e, out, 2 * mn);
    /* each worker's C within the bound of its chain, and equal bit for bit to
     * the first worker's that ran as many steps (streams: stream 0 runs more) */
    for (int w = 0; w < t->workers; w++) {
        int first = 0;
        while (t->steps[first] != t->steps[w]) first++;
        struct mcf_chain chain = host_chain(t, t->steps[w]);
        size_t count = first == w ? 1 : 2;
        c_values(t, t->c[first], out);
        c_values(t, t->c[w], out + mn);
        char who[160];
        if (count == 1)
            snprintf(who, sizeof who, "%s worker %d", what, w);
        else
            snprintf(who, sizeof who, "%s (tile 0: worker %d, tile 1: worker %d)", what, first, w);
        MCF_TRY(mcf_check_tiles(out, count, t->m, t->n, t->ref, t->abs_sum, &chain,
                                inject_fault && w == 0, who, e));
    }
    /* full entropy: also a chain of 3 steps, whose bound is tight */
    if (!t->exact) {
        struct mcf_chain chain = host_chain(t, 3);
        scratch = aligned((size_t)mcf_dtype_size(t->dtype) * mn);
        if (!scratch) MCF_FAIL(e, MCF_ERUNTIME, "out of memory for matrix tiles");
        tile_steps(t, 0, scratch, 0, 3);
        c_values(t, scratch, out);
        snprintf(what + strlen(what), sizeof what - strlen(what), " (3-step chain)");
        MCF_TRY(
            mcf_check_tiles(out, 1, t->m, t->n, t->ref, t->abs_sum, &chain, inject_fault, what, e));
    }
    free(out);
    free(scratch);
    return MCF_OK;
fail:
    free(out);
    free(scratch);
    return e->rc;
}

void host_tiles_destroy(struct host_tiles *t)
{
    if (!t) return;
    for (int w = 0; w < t->workers; w++) {
        if (t->a) free(t->a[w]);
        if (t->b) free(t->b[w]);
        if (t->nb) free(t->nb[w]);
        if (t->c) free(t->c[w]);
    }
    free(t->a);
    free(t->b);
    free(t->nb);
    free(t->c);
    free(t->steps);
    free(t->ref);
    free(t->abs_sum);
    free(t->idx);
    free(t);
}

/* ---- the matrix family ---- */

struct matrix_run {
    const struct host_state *s;
    struct mcf_kernel k;
    int workers;
    struct host_tiles *tiles;
    double *start, *end;
};

static int matrix_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct matrix_run *r = NULL;
    uint64_t *iters = NULL;
    MCF_ALLOC(e, r, 1);
    r->s = state;
    r->k = *k;
    r->workers = k->mode == MCF_MODE_LATENCY ? 1 : host_workers(state, k);
    MCF_ALLOC(e, iters, r->workers);
    MCF_ALLOC(e, r->start, r->workers);
    MCF_ALLOC(e, r->end, r->workers);
    for (int w = 0; w < r->workers; w++) iters[w] = k->iterations;
    MCF_TRY(host_tiles_create(k, r->workers, iters, &r->tiles, e));
    free(iters);
    *ks = r;
    return MCF_OK;
fail:
    free(iters);
    if (r) {
        free(r->start);
        free(r->end);
        free(r);
    }
    return e->rc;
}

static int matrix_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    struct matrix_run *r = ks;
    MCF_TRY(host_team_run(r->workers, host_tiles_work, r->tiles, r->start, r->end, e));
    if (host_tiles_was_cut(r->tiles))
        MCF_FAIL(e, MCF_ECUT, "cut before %llu iterations", (unsigned long long)r->k.iterations);
    s->seconds = mcf_wall_time(r->start, r->end, r->workers);
    s->units = (double)host_tiles_steps(r->k.iterations) * r->workers;
    return MCF_OK;
fail:
    return e->rc;
}

static int matrix_verify(void *ks, struct mcf_err *e)
{
    struct matrix_run *r = ks;
    return host_tiles_check(r->tiles, r->k.inject_fault, e);
}

static void matrix_teardown(void *ks)
{
    struct matrix_run *r = ks;
    host_tiles_destroy(r->tiles);
    free(r->start);
    free(r->end);
    free(r);
}

const struct mcf_kernel_ops host_matrix_ops = { matrix_setup, matrix_run, matrix_verify,
                                                matrix_teardown };
