/* Host memory kernels, after BabelStream: read (a sum), copy (c = a), write
 * (c = mcf_init_w, stores only), triad
 * (a = b + s*c) and the arithmetic-intensity kernel fma (b = a after
 * `intensity` steps of y = y*s + t), for the empirical roofline (shared/seeds/
 * 001_*). Inputs follow closed formulas of the element index, so the reference
 * is computed from the formula, never from the arrays the kernel touched. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "concurrency.h"
#include "host.h"

#define TRIAD_S MCF_TRIAD_S
#define FMA_S MCF_FMA_S
#define FMA_T MCF_FMA_T

struct host_arrays {
    struct mcf_kernel k;
    int workers, shared, init_phase;
    uint64_t
        sweeps; /* passes per run (the memory family's `sweeps`; streams: host_streams_passes) */
    volatile int cut; /* a worker stopped between sweeps (stop.h) */
    int *drift; /* read: per worker, a sweep's sum differed from the first's */
    uint64_t *n, *first; /* per worker: elements, and global index of element 0 */
    void **a, **b, **c; /* per worker */
    void *sa, *sb, *sc; /* shared allocations (shared == 1) */
    double *partial; /* read: per worker sum */
    double *start, *end;
};

/* Chains in flight in the fma kernel: 128 bytes of them, eight 16-byte
 * vectors (the baseline x86-64 build's), enough to cover the multiply's and
 * the add's latency on two ports without spilling the 16 vector registers.
 * With 8 fp64 chains the kernel waited on latency: intensity 256 over 64 MiB
 * took 1.5 s a repetition on a 2-core EPYC VM, 0.75 s with 16 (the
 * valu family's kernel keeps 32 chains for the same reason). */
#define FMA_LANES(T) ((int)(128 / sizeof(T)))

#define init_a mcf_init_a
#define init_b mcf_init_b
#define init_c mcf_init_c

/* One worker's part of one kernel, for element type T. */
#define MEMORY_KERNELS(T)                                                                          \
    static void init_##T(T *a, T *b, T *c, uint64_t n, uint64_t first)                             \
    {                                                                                              \
        for (uint64_t i = 0; i < n; i++) {                                                         \
            a[i] = (T)init_a(first + i);                                                           \
            b[i] = (T)init_b(first + i);                                                           \
            c[i] = (T)init_c(first + i);                                                           \
        }                                                                                          \
    }                                                                                              \
    static double read_##T(const T *restrict a, uint64_t n)                                        \
    {                                                                                              \
        double s[8] = { 0 };                                                                       \
        uint64_t i = 0;                                                                            \
        for (; i + 8 <= n; i += 8)                                                                 \
            for (int j = 0; j < 8; j++) s[j] += a[i + j];                                          \
        for (; i < n; i++) s[0] += a[i];                                                           \
        return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));                  \
    }                                                                                              \
    static void copy_##T(const T *restrict a, T *restrict c, uint64_t n)                           \
    {                                                                                              \
        for (uint64_t i = 0; i < n; i++) c[i] = a[i];                                              \
    }                                                                                              \
    static void write_##T(T *restrict c, uint64_t n, uint64_t first)                               \
    {                                                                                              \
        for (uint64_t i = 0; i < n; i++) c[i] = (T)mcf_init_w(first + i);                          \
    }                                                                                              \
    static void triad_##T(T *restrict a, const T *restrict b, const T *restrict c, T s,            \
                          uint64_t n)                                                              \
    {                                                                                              \
        for (uint64_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];                                   \
    }                                                                                              \
    /* FMA_LANES(T) elements' chains advance together: independent FMAs in                         \
     * flight, as on a GPU where each lane owns an element */                                      \
    static void fma_##T(const T *restrict a, T *restrict b, T s, T t, int k, uint64_t n)           \
    {                                                                                              \
        enum { L = FMA_LANES(T) };                                                                 \
        uint64_t i = 0;                                                                            \
        for (; i + L <= n; i += L) {                                                               \
            T y[L];                                                                                \
            for (int l = 0; l < L; l++) y[l] = a[i + l];                                           \
            for (int j = 0; j < k; j++)                                                            \
                for (int l = 0; l < L; l++) y[l] = y[l] * s + t;                                   \
            for (int l = 0; l < L; l++) b[i + l] = y[l];                                           \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            T y = a[i];                                                                            \
            for (int j = 0; j < k; j++) y = y * s + t;                                             \
            b[i] = y;                                                                              \
        }                                                                                          \
    }
MEMORY_KERNELS(double)
MEMORY_KERNELS(float)

#define DISPATCH(T, r, w)                                                                          \
    do {                                                                                           \
        T *a = (r)->a[w], *b = (r)->b[w], *c = (r)->c[w];                                          \
        uint64_t n = (r)->n[w];                                                                    \
        if ((r)->init_phase) {                                                                     \
            init_##T(a, b, c, n, (r)->first[w]);                                                   \
            break;                                                                                 \
        }                                                                                          \
        switch ((r)->k.op) {                                                                       \
        case MCF_OP_READ: (r)->partial[w] = read_##T(a, n); break;                                 \
        case MCF_OP_COPY: copy_##T(a, c, n); break;                                                \
        case MCF_OP_WRITE: write_##T(c, n, (r)->first[w]); break;                                  \
        case MCF_OP_TRIAD: triad_##T(a, b, c, (T)TRIAD_S, n); break;                               \
        case MCF_OP_FMA: fma_##T(a, b, (T)FMA_S, (T)FMA_T, (r)->k.intensity, n); break;            \
        default: break;                                                                            \
        }                                                                                          \
    } while (0)

void host_arrays_work(void *arg, int w, int nworkers)
{
    struct host_arrays *r = arg;
    (void)nworkers;
    if (r->init_phase || r->sweeps <= 1) {
        if (r->k.dtype == MCF_FP64)
            DISPATCH(double, r, w);
        else
            DISPATCH(float, r, w);
        return;
    }
    /* several sweeps in one repetition: the cut is polled between them; every
     * read sweep must give the first one's sum (the last one is verified) */
    double first = 0.0;
    for (uint64_t i = 0; i < r->sweeps; i++) {
        if (r->cut || mcf_cut_due(r->k.cut)) {
            r->cut = 1;
            return;
        }
        if (r->k.dtype == MCF_FP64)
            DISPATCH(double, r, w);
        else
            DISPATCH(float, r, w);
        if (r->k.op == MCF_OP_READ) {
            if (i == 0)
                first = r->partial[w];
            else if (r->partial[w] != first)
                r->drift[w] = 1;
        }
    }
}

static void *big_alloc(uint64_t bytes)
{
    void *p = NULL;
    /* page-aligned; not touched here, so the workers' first touch places it */
    if (posix_memalign(&p, 4096, bytes ? bytes : 4096) != 0) return NULL;
    return p;
}

int host_arrays_create(const struct mcf_kernel *k, int workers, int shared, const uint64_t *n,
                       struct host_arrays **out, struct mcf_err *e)
{
    struct host_arrays *r = NULL;
    size_t es = (size_t)mcf_dtype_size(k->dtype);
    double *dummy = NULL;
    MCF_ALLOC(e, r, 1);
    r->k = *k;
    r->workers = workers;
    r->shared = shared;
    r->sweeps = k->sweeps ? k->sweeps : 1;
    MCF_ALLOC(e, r->n, workers);
    MCF_ALLOC(e, r->first, workers);
    MCF_ALLOC(e, r->a, workers);
    MCF_ALLOC(e, r->b, workers);
    MCF_ALLOC(e, r->c, workers);
    MCF_ALLOC(e, r->partial, workers);
    MCF_ALLOC(e, r->drift, workers);
    MCF_ALLOC(e, r->start, workers);
    MCF_ALLOC(e, r->end, workers);
    if (shared) {
        uint64_t total = n[0];
        if (!(r->sa = big_alloc(total * es)) || !(r->sb = big_alloc(total * es)) ||
            !(r->sc = big_alloc(total * es)))
            MCF_FAIL(e, MCF_ERUNTIME, "cannot allocate 3 arrays of %llu bytes",
                     (unsigned long long)(total * es));
        for (int w = 0; w < workers; w++) {
            r->first[w] = total * (uint64_t)w / (uint64_t)workers;
            r->n[w] = total * (uint64_t)(w + 1) / (uint64_t)workers - r->first[w];
            r->a[w] = (char *)r->sa + r->first[w] * es;
            r->b[w] = (char *)r->sb + r->first[w] * es;
            r->c[w] = (char *)r->sc + r->first[w] * es;
        }
    } else {
        for (int w = 0; w < workers; w++) {
            r->n[w] = n[w];
            if (!(r->a[w] = big_alloc(n[w] * es)) || !(r->b[w] = big_alloc(n[w] * es)) ||
                !(r->c[w] = big_alloc(n[w] * es)))
                MCF_FAIL(e, MCF_ERUNTIME, "cannot allocate 3 arrays of %llu bytes",
                         (unsigned long long)(n[w] * es));
        }
    }
    MCF_ALLOC(e, dummy, 2 * workers);
    r->init_phase = 1;
    MCF_TRY(host_team_run(workers, host_arrays_work, r, dummy, dummy + workers, e));
    r->init_phase = 0;
    free(dummy);
    *out = r;
    return MCF_OK;
fail:
    free(dummy);
    host_arrays_destroy(r);
    return e->rc;
}

uint64_t host_arrays_elements(const struct host_arrays *r)
{
    uint64_t total = 0;
    for (int w = 0; w < r->workers; w++) total += r->n[w];
    return total;
}

static double element(const struct host_arrays *r, void *base, uint64_t i)
{
    return r->k.dtype == MCF_FP64 ? ((double *)base)[i] : ((float *)base)[i];
}

static int check_element(const struct host_arrays *r, int w, uint64_t i, double eps,
                         struct mcf_err *e)
{
    int fp32 = r->k.dtype == MCF_FP32;
    uint64_t g = r->first[w] + i;
    double got, want, tol;
    if (r->k.op == MCF_OP_COPY || r->k.op == MCF_OP_WRITE) {
        double v = r->k.op == MCF_OP_WRITE ? mcf_init_w(g) : init_a(g);
        got = element(r, r->c[w], i);
        want = fp32 ? (float)v : v;
        tol = 0.0;
    } else if (r->k.op == MCF_OP_TRIAD) {
        got = element(r, r->a[w], i);
        double b = fp32 ? (float)init_b(g) : init_b(g);
        double c = fp32 ? (float)init_c(g) : init_c(g);
        double s = fp32 ? (float)TRIAD_S : TRIAD_S;
        want = b + s * c;
        tol = 2.0 * eps * fabs(want);
    } else {
        got = element(r, r->b[w], i);
        long double y = fp32 ? (float)init_a(g) : init_a(g);
        long double s = fp32 ? (float)FMA_S : FMA_S, t = fp32 ? (float)FMA_T : FMA_T;
        for (int j = 0; j < r->k.intensity; j++) y = y * s + t;
        want = (double)y;
        tol = 4.0 * eps * (r->k.intensity + 1) * fabs(want);
    }
    if (!(fabs(got - want) <= tol))
        return mcf_err_set(e, MCF_EVERIFY, __FILE__, __LINE__,
                           "memory %s %s worker %d element %llu: %.17g, expected %.17g",
                           mcf_memop_names[r->k.op], mcf_dtype_names[r->k.dtype], w,
                           (unsigned long long)i, got, want);
    return MCF_OK;
}

int host_arrays_was_cut(const struct host_arrays *r)
{
    return r->cut;
}

int host_arrays_check(struct host_arrays *r, int inject_fault, struct mcf_err *e)
{
    double eps = r->k.dtype == MCF_FP64 ? DBL_EPSILON : FLT_EPSILON;
    int fp32 = r->k.dtype == MCF_FP32;
    if (inject_fault) {
        void *out = r->k.op == MCF_OP_COPY || r->k.op == MCF_OP_WRITE ? r->c[0]
            : r->k.op == MCF_OP_TRIAD                                 ? r->a[0]
                                                                      : r->b[0];
        if (r->k.op == MCF_OP_READ)
            r->partial[0] += 1.0;
        else if (r->k.dtype == MCF_FP64)
            ((double *)out)[0] += 1.0;
        else
            ((float *)out)[0] += 1.0f;
    }
    if (r->k.op == MCF_OP_READ) {
        long double want = 0, got = 0;
        uint64_t total = 0;
        for (int w = 0; w < r->workers; w++)
            if (r->drift[w])
                return mcf_err_set(
                    e, MCF_EVERIFY, __FILE__, __LINE__,
                    "memory read worker %d: the sums of its sweeps differ (each must be the same)",
                    w);
        for (int w = 0; w < r->workers; w++) {
            for (uint64_t i = 0; i < r->n[w]; i++) {
                double v = init_a(r->first[w] + i);
                want += fp32 ? (float)v : v;
            }
            got += r->partial[w];
            total += r->n[w];
        }
        /* exact: every input is 1 + j/1024 (11 significant bits), so any sum of
         * fewer than 2^42 of them is exact in double, in any order */
        if (got != want)
            return mcf_err_set(e, MCF_EVERIFY, __FILE__, __LINE__,
                               "memory read: sum %.17Lg, expected %.17Lg (exact)", got, want);
        return MCF_OK;
    }
    for (int w = 0; w < r->workers; w++) {
        /* fma is checked on a sample (its reference costs `intensity` steps
         * per element), copy and triad on every element; the last always */
        uint64_t n = r->n[w], step = 1;
        if (r->k.op == MCF_OP_FMA && n > 4096) step = n / 4096;
        for (uint64_t i = 0; i < n; i += step) MCF_TRY(check_element(r, w, i, eps, e));
        if (n) MCF_TRY(check_element(r, w, n - 1, eps, e));
    }
    return MCF_OK;
fail:
    return e->rc;
}

void host_arrays_destroy(struct host_arrays *r)
{
    if (!r) return;
    if (r->shared) {
        free(r->sa);
        free(r->sb);
        free(r->sc);
    } else {
        for (int w = 0; w < r->workers; w++) {
            if (r->a) free(r->a[w]);
            if (r->b) free(r->b[w]);
            if (r->c) free(r->c[w]);
        }
    }
    free(r->n);
    free(r->first);
    free(r->a);
    free(r->b);
    free(r->c);
    free(r->partial);
    free(r->drift);
    free(r->start);
    free(r->end);
    free(r);
}

/* ---- the memory family ---- */

static int memory_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct host_arrays *r = NULL;
    if (k->level == MCF_LEVEL_LDS)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "a CPU has no shared memory / LDS level");
    if (k->level == MCF_LEVEL_TMA || k->level == MCF_LEVEL_DSM)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "level %s is NVIDIA Hopper's %s: a CPU has none",
                           mcf_level_names[k->level],
                           k->level == MCF_LEVEL_TMA ? "Tensor Memory Accelerator"
                                                     : "distributed shared memory (CTA clusters)");
    uint64_t n = k->bytes / (uint64_t)mcf_dtype_size(k->dtype);
    int workers = host_workers(state, k);
    if (n < (uint64_t)workers)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "%llu bytes is too small for %d workers", (unsigned long long)k->bytes,
                           workers);
    MCF_TRY(host_arrays_create(k, workers, 1, &n, &r, e));
    r->sweeps = k->sweeps ? k->sweeps : 1;
    *ks = r;
    return MCF_OK;
fail:
    return e->rc;
}

static int memory_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    struct host_arrays *r = ks;
    MCF_TRY(host_team_run(r->workers, host_arrays_work, r, r->start, r->end, e));
    if (r->cut) MCF_FAIL(e, MCF_ECUT, "cut before %llu sweeps", (unsigned long long)r->sweeps);
    s->seconds = mcf_wall_time(r->start, r->end, r->workers);
    s->units = (double)host_arrays_elements(r) * (double)r->sweeps;
    return MCF_OK;
fail:
    return e->rc;
}

static int memory_verify(void *ks, struct mcf_err *e)
{
    struct host_arrays *r = ks;
    return host_arrays_check(r, r->k.inject_fault, e);
}

static void memory_teardown(void *ks)
{
    host_arrays_destroy(ks);
}

const struct mcf_kernel_ops host_memory_ops = { memory_setup, memory_run, memory_verify,
                                                memory_teardown };
