/* Vector FMA peak on the host: each worker runs LANES independent chains of
 * x = a*x + b. With a = -1 and b = 0.5 (passed at run time, so the compiler
 * cannot fold them) and x0 = j/1024, every step is exact in binary floating
 * point: after n steps x = x0 for even n and 0.5 - x0 for odd n. That closed
 * form is the independent reference, and it is checked bit for bit. */
#include <stdlib.h>
#include <string.h>

#include "concurrency.h"
#include "host.h"

#define LANES 32 /* independent chains: enough to cover FMA latency x ports */

struct valu_run {
    struct mcf_kernel k;
    int workers;
    double a, b;
    void *x; /* workers x LANES values of the kernel's type */
    double *start, *end;
    uint64_t steps; /* steps applied so far, warm-up included */
    volatile int cut; /* a worker stopped early (stop.h) */
};

#define CHAINS(T)                                                                                  \
    static void chains_##T(T *restrict x, T a, T b, uint64_t n)                                    \
    {                                                                                              \
        T v[LANES];                                                                                \
        for (int l = 0; l < LANES; l++) v[l] = x[l];                                               \
        for (uint64_t i = 0; i < n; i++)                                                           \
            for (int l = 0; l < LANES; l++) v[l] = a * v[l] + b;                                   \
        for (int l = 0; l < LANES; l++) x[l] = v[l];                                               \
    }
CHAINS(double)
CHAINS(float)

static void valu_work(void *arg, int w, int nworkers)
{
    struct valu_run *r = arg;
    const uint64_t chunk = host_chunk(LANES);
    (void)nworkers;
    for (uint64_t done = 0; done < r->k.iterations; done += chunk) {
        uint64_t n = r->k.iterations - done < chunk ? r->k.iterations - done : chunk;
        if (r->cut || mcf_cut_due(r->k.cut)) {
            r->cut = 1;
            return;
        }
        if (r->k.dtype == MCF_FP64)
            chains_double((double *)r->x + (size_t)w * LANES, r->a, r->b, n);
        else
            chains_float((float *)r->x + (size_t)w * LANES, (float)r->a, (float)r->b, n);
    }
}

static double x0(int w, int l)
{
    return mcf_valu_x0((uint64_t)(w * LANES + l));
}

static int valu_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct valu_run *r = NULL;
    if (k->dtype != MCF_FP64 && k->dtype != MCF_FP32)
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                           "host VALU kernels are fp64 and fp32 (got %s)",
                           mcf_dtype_names[k->dtype]);
    MCF_ALLOC(e, r, 1);
    r->k = *k;
    r->workers = host_workers(state, k);
    /* volatile reads keep a and b opaque to the optimiser */
    volatile double a = MCF_VALU_A, b = MCF_VALU_B;
    r->a = a;
    r->b = b;
    MCF_ALLOC(e, r->start, r->workers);
    MCF_ALLOC(e, r->end, r->workers);
    r->x = calloc((size_t)r->workers * LANES, (size_t)mcf_dtype_size(k->dtype));
    if (!r->x) MCF_FAIL(e, MCF_ERUNTIME, "out of memory");
    for (int w = 0; w < r->workers; w++)
        for (int l = 0; l < LANES; l++) {
            if (k->dtype == MCF_FP64)
                ((double *)r->x)[w * LANES + l] = x0(w, l);
            else
                ((float *)r->x)[w * LANES + l] = (float)x0(w, l);
        }
    *ks = r;
    return MCF_OK;
fail:
    if (r) {
        free(r->start);
        free(r->end);
        free(r->x);
        free(r);
    }
    return e->rc;
}

static int valu_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    struct valu_run *r = ks;
    MCF_TRY(host_team_run(r->workers, valu_work, r, r->start, r->end, e));
    if (r->cut)
        MCF_FAIL(e, MCF_ECUT, "cut before %llu iterations", (unsigned long long)r->k.iterations);
    r->steps += r->k.iterations;
    s->seconds = mcf_wall_time(r->start, r->end, r->workers);
    s->units = (double)r->k.iterations * LANES * r->workers;
    return MCF_OK;
fail:
    return e->rc;
}

static int valu_verify(void *ks, struct mcf_err *e)
{
    struct valu_run *r = ks;
    if (r->k.inject_fault) {
        if (r->k.dtype == MCF_FP64)
            ((double *)r->x)[0] += 0.25;
        else
            ((float *)r->x)[0] += 0.25f;
    }
    for (int w = 0; w < r->workers; w++)
        for (int l = 0; l < LANES; l++) {
            double want = mcf_valu_expect((uint64_t)(w * LANES + l), r->steps);
            double got = r->k.dtype == MCF_FP64 ? ((double *)r->x)[w * LANES + l]
                                                : ((float *)r->x)[w * LANES + l];
            if (got != want)
                return mcf_err_set(
                    e, MCF_EVERIFY, __FILE__, __LINE__,
                    "valu %s worker %d lane %d: %.17g after %llu steps, expected %.17g",
                    mcf_dtype_names[r->k.dtype], w, l, got, (unsigned long long)r->steps, want);
        }
    return MCF_OK;
}

static void valu_teardown(void *ks)
{
    struct valu_run *r = ks;
    free(r->start);
    free(r->end);
    free(r->x);
    free(r);
}

const struct mcf_kernel_ops host_valu_ops = { valu_setup, valu_run, valu_verify, valu_teardown };
