/* 2:4 sparse beside dense: each sparse matrix test with the dense test of the
 * same instruction in the same file (the Hopper paper's Table 7 and Table 15
 * comparison): the dense test of the same keys but the sparsity, and the
 * shape's k halved (mma.sp m16n8k32 beside mma m16n8k16, sparse wgmma
 * m64nNk32 beside m64nNk16); each 2:4 gemm test with the dense gemm of the
 * same type and size (the MI300A paper's library comparison). Both rates are dense-equivalent
 * GFLOP/s, so the ratio is the speedup a user of the sparse form gets; 2 is the vendors' claim.
 * Fleet medians of the per-rank medians. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "stats.h"

/* 1 where test d is the dense twin of 2:4 test s: the same family, every
 * key not an amount the same but the sparsity, dense in d, and for a matrix
 * test the shape's k halved in d (the instruction's dense form); a gemm
 * test's twin is the same product without the sparsity (cuBLASLt beside
 * cuSPARSELt). Read from the tests' keys (report_schema.h). */
static int dense_twin(const struct mcf_test_identity *s, const struct mcf_test_identity *d)
{
    const char *sp = mcf_test_key(s, "sparsity"), *dp = mcf_test_key(d, "sparsity");
    int matrix = !strcmp(s->kernel, "matrix");
    if (!sp || !dp || strcmp(sp, "2:4") || strcmp(dp, "dense") || strcmp(s->kernel, d->kernel) ||
        (!matrix && strcmp(s->kernel, "gemm")) || s->nkeys != d->nkeys)
        return 0;
    for (int i = 0; i < s->nkeys; i++) {
        const struct mcf_test_key *a = &s->key[i], *b = &d->key[i];
        if (a->amount || !strcmp(a->name, "sparsity")) continue;
        if (matrix && !strcmp(a->name, "shape")) {
            int m, n, k, m2, n2, k2;
            if (sscanf(a->value, "%dx%dx%d", &m, &n, &k) != 3 ||
                sscanf(b->value, "%dx%dx%d", &m2, &n2, &k2) != 3 || k % 2 || m != m2 || n != n2 ||
                k / 2 != k2)
                return 0;
        } else if (strcmp(a->value, b->value)) {
            return 0;
        }
    }
    return 1;
}

/* The figure a pair is compared by: a latency's in cycles (the paper's LAT,
 * cycles per instruction), else the test's first judged rate. NULL: none. */
static const struct fig *pair_figure(const struct fleet *f, const char *test, int latency)
{
    for (size_t i = 0; i < f->nfigs; i++)
        if (!strcmp(f->figs[i].test, test) &&
            (latency ? !strcmp(f->figs[i].unit, "cycles") : f->figs[i].better > 0))
            return &f->figs[i];
    return NULL;
}

static double fleet_median(const struct fleet *f, const char *test, const char *metric)
{
    double *v = malloc(f->nranks * sizeof *v), med = NAN;
    size_t n = 0;
    for (size_t i = 0; v && i < f->nfigs; i++)
        if (!strcmp(f->figs[i].test, test) && !strcmp(f->figs[i].metric, metric)) {
            for (size_t r = 0; r < f->nranks; r++)
                if (isfinite(f->figs[i].med[r])) v[n++] = f->figs[i].med[r];
            break;
        }
    if (n) med = mcf_median(v, n);
    free(v);
    return med;
}

void mcf_report_sparse(struct fleet *f, struct lines *out)
{
    for (size_t i = 0; i < f->nfacts; i++) {
        for (size_t j = 0; j < f->nfacts; j++) {
            if (!dense_twin(&f->facts[i].id, &f->facts[j].id)) continue;
            const char *mode = mcf_test_key(&f->facts[j].id, "mode");
            int lat = mode && !strcmp(mode, "latency");
            const struct fig *fs = pair_figure(f, f->facts[i].test, lat),
                             *fd = pair_figure(f, f->facts[j].test, lat);
            double s = fs ? fleet_median(f, fs->test, fs->metric) : NAN;
            double d = fd ? fleet_median(f, fd->test, fd->metric) : NAN;
            char sv[16] = "-", dv[16] = "-", ratio[16] = "-";
            if (isfinite(s)) snprintf(sv, sizeof sv, "%.5g", s);
            if (isfinite(d)) snprintf(dv, sizeof dv, "%.5g", d);
            if (isfinite(s) && isfinite(d) && d > 0) snprintf(ratio, sizeof ratio, "%.2fx", s / d);
            append(f, out, "  %-36.36s %11s  %-36.36s %11s  %6s%s\n", f->facts[i].test, sv,
                   f->facts[j].test, dv, ratio, lat ? "  (latency, cycles)" : "");
            break;
        }
    }
}
