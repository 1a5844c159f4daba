/* The ladder family on the host: C = A*B in three plain C loops, the rungs
 * of the tiled matrix-multiply progression (shared/seeds/002_*), with the
 * host's caches in the role of the GPU's memories:
 *   naive:    each output element a dot product of A's row and B's column,
 *             read straight from the arrays (two loads per FMA);
 *   shared:   T x T tiles of A and B copied into a worker's small buffers
 *             (the cache-blocked tile standing for shared memory), the
 *             output tile accumulated from them;
 *   register: a B x B output tile per step of BK, its A and B panels staged
 *             as above, each M x M micro-tile summed in registers.
 * Every element of A and B a rung copies or reads is what mcf_ladder_elements
 * counts (src/family_ladder.h). Workers take rows (naive) or output tiles in
 * turn; each polls the cut between them. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "concurrency.h"
#include "family_ladder.h"
#include "host.h"
#include "ladder_check.h"

#define T_ MCF_LADDER_TILE
#define B_ MCF_LADDER_BLOCK
#define K_ MCF_LADDER_BK
#define M_ MCF_LADDER_MICRO

struct ladder {
    struct mcf_kernel k;
    int workers;
    uint64_t n;
    void *a, *b, *c; /* n x n each, row-major, of the test's type */
    double *start, *end;
    volatile int cut;
};

static uint64_t min_u(uint64_t x, uint64_t y)
{
    return x < y ? x : y;
}

/* Copies rows r0.. (nr of them) and columns c0.. (nc) of the n-wide src into
 * a ld-wide buffer, zeros beyond the matrix's edge. */
#define RUNGS(T)                                                                                   \
    static void stage_##T(T *dst, int ld, int rows, int cols, const T *src, uint64_t n,            \
                          uint64_t r0, uint64_t c0)                                                \
    {                                                                                              \
        uint64_t nr = min_u((uint64_t)rows, n - r0), nc = min_u((uint64_t)cols, n - c0);           \
        for (int r = 0; r < rows; r++)                                                             \
            for (int c = 0; c < cols; c++)                                                         \
                dst[r * ld + c] =                                                                  \
                    (uint64_t)r < nr && (uint64_t)c < nc ? src[(r0 + r) * n + c0 + c] : (T)0;      \
    }                                                                                              \
    static void stage_t_##T(T *dst, int ld, int rows, int cols, const T *src, uint64_t n,          \
                            uint64_t r0, uint64_t c0)                                              \
    {                                                                                              \
        uint64_t nr = min_u((uint64_t)rows, n - r0), nc = min_u((uint64_t)cols, n - c0);           \
        for (int r = 0; r < rows; r++)                                                             \
            for (int c = 0; c < cols; c++)                                                         \
                dst[c * ld + r] =                                                                  \
                    (uint64_t)r < nr && (uint64_t)c < nc ? src[(r0 + r) * n + c0 + c] : (T)0;      \
    }                                                                                              \
    static void naive_row_##T(const T *a, const T *b, T *c, uint64_t n, uint64_t i)                \
    {                                                                                              \
        for (uint64_t j = 0; j < n; j++) {                                                         \
            T acc = 0;                                                                             \
            for (uint64_t kk = 0; kk < n; kk++) acc += a[i * n + kk] * b[kk * n + j];              \
            c[i * n + j] = acc;                                                                    \
        }                                                                                          \
    }                                                                                              \
    static void shared_tile_##T(const T *a, const T *b, T *c, uint64_t n, uint64_t i0,             \
                                uint64_t j0)                                                       \
    {                                                                                              \
        T as[T_ * T_], bs[T_ * T_], cs[T_ * T_];                                                   \
        memset(cs, 0, sizeof cs);                                                                  \
        for (uint64_t k0 = 0; k0 < n; k0 += T_) {                                                  \
            stage_##T(as, T_, T_, T_, a, n, i0, k0);                                               \
            stage_##T(bs, T_, T_, T_, b, n, k0, j0);                                               \
            for (int ii = 0; ii < T_; ii++)                                                        \
                for (int kk = 0; kk < T_; kk++)                                                    \
                    for (int jj = 0; jj < T_; jj++)                                                \
                        cs[ii * T_ + jj] += as[ii * T_ + kk] * bs[kk * T_ + jj];                   \
        }                                                                                          \
        uint64_t nr = min_u(T_, n - i0), nc = min_u(T_, n - j0);                                   \
        for (uint64_t ii = 0; ii < nr; ii++)                                                       \
            memcpy(c + (i0 + ii) * n + j0, cs + ii * T_, nc * sizeof(T));                          \
    }                                                                                              \
    static void register_tile_##T(const T *a, const T *b, T *c, uint64_t n, uint64_t i0,           \
                                  uint64_t j0, T *as, T *bs, T *cs)                                \
    {                                                                                              \
        memset(cs, 0, sizeof(T) * B_ * B_);                                                        \
        for (uint64_t k0 = 0; k0 < n; k0 += K_) {                                                  \
            stage_t_##T(as, B_, B_, K_, a, n, i0, k0); /* B_ rows x K_ of A, k-major */            \
            stage_##T(bs, B_, K_, B_, b, n, k0, j0); /* K_ rows x B_ of B */                       \
            for (int mi = 0; mi < B_; mi += M_)                                                    \
                for (int mj = 0; mj < B_; mj += M_) {                                              \
                    T r[M_][M_];                                                                   \
                    for (int x = 0; x < M_; x++)                                                   \
                        for (int y = 0; y < M_; y++) r[x][y] = cs[(mi + x) * B_ + mj + y];         \
                    for (int kk = 0; kk < K_; kk++) {                                              \
                        T av[M_], bv[M_];                                                          \
                        for (int x = 0; x < M_; x++) av[x] = as[kk * B_ + mi + x];                 \
                        for (int y = 0; y < M_; y++) bv[y] = bs[kk * B_ + mj + y];                 \
                        for (int x = 0; x < M_; x++)                                               \
                            for (int y = 0; y < M_; y++) r[x][y] += av[x] * bv[y];                 \
                    }                                                                              \
                    for (int x = 0; x < M_; x++)                                                   \
                        for (int y = 0; y < M_; y++) cs[(mi + x) * B_ + mj + y] = r[x][y];         \
                }                                                                                  \
        }                                                                                          \
        uint64_t nr = min_u(B_, n - i0), nc = min_u(B_, n - j0);                                   \
        for (uint64_t ii = 0; ii < nr; ii++)                                                       \
            memcpy(c + (i0 + ii) * n + j0, cs + ii * B_, nc * sizeof(T));                          \
    }                                                                                              \
    static void multiply_##T(struct ladder *l, int w, int nworkers)                                \
    {                                                                                              \
        const T *a = l->a, *b = l->b;                                                              \
        T *c = l->c;                                                                               \
        uint64_t n = l->n, t = mcf_ladder_reuse(l->k.rung), tiles = (n + t - 1) / t;               \
        T as[B_ * K_], bs[K_ * B_], cs[B_ * B_];                                                   \
        for (uint64_t x = (uint64_t)w; x < (l->k.rung == MCF_RUNG_NAIVE ? n : tiles * tiles);      \
             x += (uint64_t)nworkers) {                                                            \
            if (l->cut || mcf_cut_due(l->k.cut)) {                                                 \
                l->cut = 1;                                                                        \
                return;                                                                            \
            }                                                                                      \
            if (l->k.rung == MCF_RUNG_NAIVE)                                                       \
                naive_row_##T(a, b, c, n, x);                                                      \
            else if (l->k.rung == MCF_RUNG_SHARED)                                                 \
                shared_tile_##T(a, b, c, n, x / tiles * t, x % tiles * t);                         \
            else                                                                                   \
                register_tile_##T(a, b, c, n, x / tiles * t, x % tiles * t, as, bs, cs);           \
        }                                                                                          \
    }
RUNGS(double)
RUNGS(float)

static void ladder_work(void *arg, int w, int nworkers)
{
    struct ladder *l = arg;
    for (uint64_t it = 0; it < l->k.iterations && !l->cut; it++) {
        if (l->k.dtype == MCF_FP64)
            multiply_double(l, w, nworkers);
        else
            multiply_float(l, w, nworkers);
    }
}

/* The arrays on 2 MiB boundaries, as transparent huge pages where the kernel
 * gives them: the naive rung walks B's columns a row apart, and with 4 KiB
 * pages every load of that walk was a TLB miss as well. */
#define HUGE (2u << 20)
static void *array_alloc(size_t bytes)
{
    size_t whole = (bytes + HUGE - 1) / HUGE * HUGE;
    void *p = aligned_alloc(HUGE, whole);
    if (p) {
        (void)madvise(p, whole, MADV_HUGEPAGE); /* advice: where refused, 4 KiB pages */
        memset(p, 0, bytes);
    }
    return p;
}

static void ladder_free(struct ladder *l)
{
    if (!l) return;
    free(l->a);
    free(l->b);
    free(l->c);
    free(l->start);
    free(l->end);
    free(l);
}

static int ladder_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct ladder *l = NULL;
    size_t es = (size_t)mcf_dtype_size(k->dtype), bytes;
    if (k->dtype != MCF_FP64 && k->dtype != MCF_FP32)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "the ladder multiplies fp64 and fp32 (got %s)",
                           mcf_dtype_names[k->dtype]);
    MCF_ALLOC(e, l, 1);
    l->k = *k;
    l->n = k->size;
    l->workers = host_workers(state, k);
    MCF_ALLOC(e, l->start, l->workers);
    MCF_ALLOC(e, l->end, l->workers);
    bytes = (size_t)l->n * l->n * es;
    if (!(l->a = array_alloc(bytes)) || !(l->b = array_alloc(bytes)) ||
        !(l->c = array_alloc(bytes)))
        MCF_FAIL(e, MCF_ERUNTIME, "cannot allocate 3 x %zu bytes for a %llu^3 ladder multiply",
                 bytes, (unsigned long long)l->n);
    for (uint64_t i = 0; i < l->n; i++)
        for (uint64_t j = 0; j < l->n; j++) {
            double va = mcf_ladder_a(k->dtype, k->inputs, k->seed, l->n, i, j);
            double vb = mcf_ladder_b(k->dtype, k->inputs, k->seed, l->n, i, j);
            if (k->dtype == MCF_FP64) {
                ((double *)l->a)[i * l->n + j] = va;
                ((double *)l->b)[i * l->n + j] = vb;
            } else {
                ((float *)l->a)[i * l->n + j] = (float)va;
                ((float *)l->b)[i * l->n + j] = (float)vb;
            }
        }
    *ks = l;
    return MCF_OK;
fail:
    ladder_free(l);
    return e->rc;
}

static int ladder_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    struct ladder *l = ks;
    MCF_TRY(host_team_run(l->workers, ladder_work, l, l->start, l->end, e));
    if (l->cut)
        MCF_FAIL(e, MCF_ECUT, "cut before %llu multiplies", (unsigned long long)l->k.iterations);
    s->seconds = mcf_wall_time(l->start, l->end, l->workers);
    s->units = (double)l->k.iterations;
    return MCF_OK;
fail:
    return e->rc;
}

static int ladder_verify(void *ks, struct mcf_err *e)
{
    struct ladder *l = ks;
    return mcf_ladder_verify(&l->k, l->c, e);
}

static void ladder_teardown(void *ks)
{
    ladder_free(ks);
}

const struct mcf_kernel_ops host_ladder_ops = { ladder_setup, ladder_run, ladder_verify,
                                                ladder_teardown };
