/* 2:4 sparse beside dense: each sparse matrix test with the dense test of the
 * same instruction in the same file (the Hopper paper's Table 7 and Table 15
 * comparison): its "measured" text without " sparsity=2:4" and with the
 * shape's k halved (mma.sp m16n8k32 beside mma m16n8k16, sparse wgmma
 * m64nNk32 beside m64nNk16); each 2:4 gemm test with the dense gemm of the
 * same type and size (the MI300A paper's library comparison). Both rates are dense-equivalent GFLOP/s, so the
 * ratio is the speedup a user of the sparse form gets; 2 is the vendors'
 * claim. Fleet medians of the per-rank medians. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "stats.h"

/* The dense twin's measured text; 0 where `sparse` is no 2:4 test. A matrix
 * test's twin has the shape's k halved (the instruction's dense form); a
 * gemm test's is the same product without the sparsity (cuBLASLt beside
 * cuSPARSELt). */
static int dense_twin(const char *sparse, char *out, size_t len)
{
    const char *sp = strstr(sparse, " sparsity=2:4"), *shape;
    int m, n, k, at, w;
    if (!sp || (sp[13] != '\0' && sp[13] != ' '))
        return 0;
    if (!strncmp(sparse, "kernel=gemm ", 12)) {
        w = snprintf(out, len, "%.*s%s", (int)(sp - sparse), sparse, sp + 13);
        return w > 0 && (size_t)w < len;
    }
    if (strncmp(sparse, "kernel=matrix ", 14))
        return 0;
    if (!(shape = strstr(sparse, " shape=")) || sscanf(shape, " shape=%dx%dx%d%n", &m, &n, &k, &at) != 3 || k % 2)
        return 0;
    /* text before the shape, the shape with k / 2, then the rest without the sparsity */
    w = snprintf(out, len, "%.*s shape=%dx%dx%d%.*s%s", (int)(shape - sparse), sparse, m, n, k / 2,
                 (int)(sp - (shape + at)), shape + at, sp + 13);
    return w > 0 && (size_t)w < len && sp > shape;
}

static double fleet_median(const struct fleet *f, const char *test, const char *metric)
{
    double *v = malloc(f->nranks * sizeof *v), med = NAN;
    size_t n = 0;
    for (size_t i = 0; v && i < f->nfigs; i++)
        if (!strcmp(f->figs[i].test, test) && !strcmp(f->figs[i].metric, metric)) {
            for (size_t r = 0; r < f->nranks; r++)
                if (isfinite(f->figs[i].med[r]))
                    v[n++] = f->figs[i].med[r];
            break;
        }
    if (n)
        med = mcf_median(v, n);
    free(v);
    return med;
}

void mcf_report_sparse(struct fleet *f, struct lines *out)
{
    char twin[sizeof f->facts[0].id.measured];
    for (size_t i = 0; i < f->nfacts; i++) {
        if (!dense_twin(f->facts[i].id.measured, twin, sizeof twin))
            continue;
        for (size_t j = 0; j < f->nfacts; j++) {
            if (strcmp(f->facts[j].id.measured, twin))
                continue;
            /* latency pairs: cycles per instruction (the paper's LAT), lower is better */
            int lat = strstr(twin, " mode=latency") != NULL;
            const char *metric = lat ? "latency_cycles" : "gflops";
            double s = fleet_median(f, f->facts[i].test, metric), d = fleet_median(f, f->facts[j].test, metric);
            char sv[16] = "-", dv[16] = "-", ratio[16] = "-";
            if (isfinite(s)) snprintf(sv, sizeof sv, "%.5g", s);
            if (isfinite(d)) snprintf(dv, sizeof dv, "%.5g", d);
            if (isfinite(s) && isfinite(d) && d > 0) snprintf(ratio, sizeof ratio, "%.2fx", s / d);
            append(f, out, "  %-36.36s %11s  %-36.36s %11s  %6s%s\n", f->facts[i].test, sv, f->facts[j].test, dv, ratio,
                   lat ? "  (latency, cycles)" : "");
            break;
        }
    }
}
