#!/usr/bin/env python3
"""tests/new_family.sh's patch: a kernel family "toy" added to a scratch copy
of the tree as a new family is meant to be added, one row of mcf_families[]
(src/family.c) with its name (src/kernel.h, src/kernel.c) and its host kernel
(kernels/host/host_backend.c), nothing under src/report or analysis/. Its
metrics: toy_ns_per_op (lower is better, its first summary figure: what
baseline and study judge) and toy_gops (higher is better). The kernel sums
1..n and checks the sum against n(n+1)/2.

  new_family.py TREE    patches TREE; prints the files it touched"""
import sys

TREE = sys.argv[1]
touched = []


def patch(path, old, new):
    p = "%s/%s" % (TREE, path)
    s = open(p).read()
    assert s.count(old) == 1, "%s: %r found %d times" % (path, old, s.count(old))
    open(p, "w").write(s.replace(old, new))
    if path not in touched:
        touched.append(path)


patch("src/kernel.h", "    MCF_FAMILY_COUNT\n", "    MCF_FAMILY_TOY, /* tests/new_family.sh */\n    MCF_FAMILY_COUNT\n")
patch("src/kernel.c", '"transfer" };', '"transfer", "toy" };')
patch("src/family.c", "/* ---- the rows ---- */", r'''/* ---- toy (tests/new_family.sh) ---- */
static double toy_flops(const struct mcf_kernel *k) { (void)k; return 1.0; }
static int toy_metrics(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out, int max)
{
    (void)k; (void)caps;
    int n = add(out, 0, max, "toy_ns_per_op", "ns", m_latency, 0, SUMMARY | LOWER);
    n = add(out, n, max, "toy_gops", "Gop/s", m_gflops, 0, SUMMARY | HIGHER);
    return add(out, n, max, "time_s", "s", m_time, 0, DETAIL);
}
static void toy_label(const struct mcf_kernel *k, char *out, size_t len)
{ snprintf(out, len, "toy %s x%d", mcf_dtype_names[k->dtype], k->iterations); }
static const struct mcf_key_use toy_keys[] = { KEY("dtype", MCF_FP64), KEY("iterations", 100000),
                                               KEY("inputs", MCF_INPUTS_RANDOM), KEYS_END };

/* ---- the rows ---- */''')
patch("src/family.c", "const struct mcf_family_row mcf_families[MCF_FAMILY_COUNT] = {\n",
      "const struct mcf_family_row mcf_families[MCF_FAMILY_COUNT] = {\n"
      "    [MCF_FAMILY_TOY] = { .keys = toy_keys, .flops_per_unit = toy_flops, .bytes_per_unit = no_work,\n"
      "                         .metrics = toy_metrics, .label = toy_label, .kind = \"compute\" },\n")
patch("kernels/host/host_backend.c", '#include "host.h"\n', '#include "host.h"\n#include "clocksync.h"\n')
patch("kernels/host/host_backend.c", "const struct mcf_backend mcf_backend_host = {", r'''/* toy (tests/new_family.sh): 1 + 2 + ... + n, checked against n(n+1)/2 */
struct toy { long long n; volatile double sum; };
static int toy_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    (void)state;
    struct toy *t = calloc(1, sizeof *t);
    if (!t) return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "calloc failed");
    t->n = k->iterations;
    *ks = t;
    return MCF_OK;
}
static int toy_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    (void)e;
    struct toy *t = ks;
    double t0 = mcf_now(), sum = 0;
    for (long long i = 1; i <= t->n; i++) sum += (double)i;
    t->sum = sum;
    s->seconds = mcf_now() - t0;
    s->units = (double)t->n;
    return MCF_OK;
}
static int toy_verify(void *ks, struct mcf_err *e)
{
    struct toy *t = ks;
    double want = (double)t->n * (double)(t->n + 1) / 2;
    if (t->sum != want)
        return mcf_err_set(e, MCF_EVERIFY, __FILE__, __LINE__, "sum %.17g, expected %.17g", t->sum, want);
    return MCF_OK;
}
static void toy_teardown(void *ks) { free(ks); }
static const struct mcf_kernel_ops host_toy_ops = { toy_setup, toy_run, toy_verify, toy_teardown };

const struct mcf_backend mcf_backend_host = {''')
patch("kernels/host/host_backend.c", "        [MCF_FAMILY_TRANSFER] = &host_transfer_ops,\n",
      "        [MCF_FAMILY_TRANSFER] = &host_transfer_ops,\n        [MCF_FAMILY_TOY] = &host_toy_ops,\n")
print("\n".join(touched))
