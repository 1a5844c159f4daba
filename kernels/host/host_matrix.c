/* Host matrix tiles: each worker owns A (m x k), B (k x n) and C (m x n), all
 * cache-resident, and runs C += A * B `iterations` times from C = 0. Each
 * iteration reads the C the previous one wrote, so one worker is a dependency
 * chain (the latency mode) and many workers give throughput. FP64 and FP32
 * only: the CPU has no matrix unit for the other types. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "concurrency.h"
#include "host.h"

struct host_tiles {
    enum mcf_dtype dtype;
    int m, n, k, workers;
    uint64_t *iterations;     /* per worker */
    void **a, **b, **c;       /* per worker, 64-byte aligned */
    double *ref;              /* A*B in double, per worker, m x n */
    const struct mcf_cut *cut;
    volatile int was_cut;     /* a worker stopped early: the output is partial */
};

#define TILE_LOOP(T)                                                            \
    static void tile_##T(const T *restrict a, const T *restrict b, T *restrict c, \
                         int m, int n, int k, uint64_t iterations)              \
    {                                                                           \
        for (uint64_t it = 0; it < iterations; it++)                            \
            for (int i = 0; i < m; i++)                                         \
                for (int p = 0; p < k; p++) {                                   \
                    const T aip = a[i * k + p];                                 \
                    for (int j = 0; j < n; j++)                                 \
                        c[i * n + j] += aip * b[p * n + j];                     \
                }                                                               \
    }
TILE_LOOP(double)
TILE_LOOP(float)

void host_tiles_work(void *arg, int w, int nworkers)
{
    struct host_tiles *t = arg;
    const uint64_t chunk = host_chunk((uint64_t)t->m * t->n * t->k), total = t->iterations[w];
    (void)nworkers;
    memset(t->c[w], 0, (size_t)mcf_dtype_size(t->dtype) * t->m * t->n);
    for (uint64_t done = 0; done < total; done += chunk) {
        uint64_t n = total - done < chunk ? total - done : chunk;
        if (t->was_cut || mcf_cut_due(t->cut)) {
            t->was_cut = 1;
            return;
        }
        if (t->dtype == MCF_FP64)
            tile_double(t->a[w], t->b[w], t->c[w], t->m, t->n, t->k, n);
        else
            tile_float(t->a[w], t->b[w], t->c[w], t->m, t->n, t->k, n);
    }
}

int host_tiles_was_cut(const struct host_tiles *t)
{
    return t->was_cut;
}

static void *aligned(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0)
        return NULL;
    memset(p, 0, bytes);
    return p;
}

int host_tiles_create(const struct mcf_kernel *k, int workers, const uint64_t *iterations,
                      struct host_tiles **out, struct mcf_err *e)
{
    struct host_tiles *t = NULL;
    if (k->dtype != MCF_FP64 && k->dtype != MCF_FP32)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "the host backend has no %s matrix unit (fp64 and fp32 only)",
                           mcf_dtype_names[k->dtype]);
    if (k->path != MCF_PATH_AUTO && k->path != MCF_PATH_MMA)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "the host backend has no %s instructions", mcf_path_names[k->path]);
    if (k->shape[0] > 64 || k->shape[1] > 64 || k->shape[2] > 64)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "host matrix tiles are at most 64x64x64 (got %dx%dx%d)",
                           k->shape[0], k->shape[1], k->shape[2]);
    MCF_ALLOC(e, t, 1);
    t->dtype = k->dtype;
    t->m = k->shape[0]; t->n = k->shape[1]; t->k = k->shape[2];
    t->workers = workers;
    t->cut = k->cut;
    size_t es = (size_t)mcf_dtype_size(k->dtype);
    size_t mn = (size_t)t->m * t->n;
    MCF_ALLOC(e, t->iterations, workers);
    MCF_ALLOC(e, t->a, workers);
    MCF_ALLOC(e, t->b, workers);
    MCF_ALLOC(e, t->c, workers);
    MCF_ALLOC(e, t->ref, mn * workers);
    uint64_t rng = k->seed;
    for (int w = 0; w < workers; w++) {
        t->iterations[w] = iterations[w];
        t->a[w] = aligned(es * t->m * t->k);
        t->b[w] = aligned(es * t->k * t->n);
        t->c[w] = aligned(es * mn);
        if (!t->a[w] || !t->b[w] || !t->c[w])
            MCF_FAIL(e, MCF_ERUNTIME, "out of memory for matrix tiles");
        double *A = malloc(sizeof(double) * t->m * t->k), *B = malloc(sizeof(double) * t->k * t->n);
        if (!A || !B) {
            free(A); free(B);
            MCF_FAIL(e, MCF_ERUNTIME, "out of memory for matrix tiles");
        }
        for (int i = 0; i < t->m * t->k; i++)
            A[i] = k->inputs == MCF_INPUTS_ZERO ? 0.0 : mcf_rng_unit(&rng);
        for (int i = 0; i < t->k * t->n; i++)
            B[i] = k->inputs == MCF_INPUTS_ZERO ? 0.0 : mcf_rng_unit(&rng);
        /* FP32 inputs are rounded first, so the reference multiplies the same values */
        for (int i = 0; i < t->m * t->k; i++) {
            if (t->dtype == MCF_FP64) ((double *)t->a[w])[i] = A[i];
            else A[i] = ((float *)t->a[w])[i] = (float)A[i];
        }
        for (int i = 0; i < t->k * t->n; i++) {
            if (t->dtype == MCF_FP64) ((double *)t->b[w])[i] = B[i];
            else B[i] = ((float *)t->b[w])[i] = (float)B[i];
        }
        /* Reference: iterations * (A*B), in long double, by a different loop order. */
        double *ref = t->ref + mn * w;
        for (int i = 0; i < t->m; i++)
            for (int j = 0; j < t->n; j++) {
                long double s = 0;
                for (int p = 0; p < t->k; p++)
                    s += (long double)A[i * t->k + p] * B[p * t->n + j];
                ref[i * t->n + j] = (double)(s * (long double)iterations[w]);
            }
        free(A);
        free(B);
    }
    *out = t;
    return MCF_OK;
fail:
    host_tiles_destroy(t);
    return e->rc;
}

int host_tiles_check(struct host_tiles *t, int inject_fault, struct mcf_err *e)
{
    size_t mn = (size_t)t->m * t->n;
    double *out = malloc(sizeof(double) * mn);
    if (!out)
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "out of memory");
    if (inject_fault) {   /* testing the verification path: one wrong element */
        if (t->dtype == MCF_FP64) ((double *)t->c[0])[0] += 1.0;
        else ((float *)t->c[0])[0] += 1.0f;
    }
    double eps = t->dtype == MCF_FP64 ? DBL_EPSILON : FLT_EPSILON;
    int rc = MCF_OK;
    for (int w = 0; w < t->workers && rc == MCF_OK; w++) {
        for (size_t i = 0; i < mn; i++)
            out[i] = t->dtype == MCF_FP64 ? ((double *)t->c[w])[i] : ((float *)t->c[w])[i];
        /* Accumulating `iterations` products of k terms: error grows at most
         * linearly in both, so the bound is a few ulps of that. */
        double tol = 4.0 * eps * (double)(t->k + t->iterations[w]);
        double err = host_relerr(out, t->ref + mn * w, mn);
        if (!(err <= tol))
            rc = mcf_err_set(e, MCF_EVERIFY, __FILE__, __LINE__,
                             "matrix %s %dx%dx%d worker %d: relative error %.3g exceeds %.3g",
                             mcf_dtype_names[t->dtype], t->m, t->n, t->k, w, err, tol);
    }
    free(out);
    return rc;
}

void host_tiles_destroy(struct host_tiles *t)
{
    if (!t)
        return;
    for (int w = 0; w < t->workers; w++) {
        if (t->a) free(t->a[w]);
        if (t->b) free(t->b[w]);
        if (t->c) free(t->c[w]);
    }
    free(t->a); free(t->b); free(t->c);
    free(t->iterations);
    free(t->ref);
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
    for (int w = 0; w < r->workers; w++)
        iters[w] = k->iterations;
    MCF_TRY(host_tiles_create(k, r->workers, iters, &r->tiles, e));
    free(iters);
    *ks = r;
    return MCF_OK;
fail:
    free(iters);
    if (r) { free(r->start); free(r->end); free(r); }
    return e->rc;
}

static int matrix_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    struct matrix_run *r = ks;
    MCF_TRY(host_team_run(r->workers, host_tiles_work, r->tiles, r->start, r->end, e));
    if (host_tiles_was_cut(r->tiles))
        MCF_FAIL(e, MCF_ECUT, "cut before %llu iterations", (unsigned long long)r->k.iterations);
    s->seconds = mcf_wall_time(r->start, r->end, r->workers);
    s->units = (double)r->k.iterations * r->workers;
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

const struct mcf_kernel_ops host_matrix_ops = { matrix_setup, matrix_run, matrix_verify, matrix_teardown };
