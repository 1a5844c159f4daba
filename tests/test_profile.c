/* SKU profiles (src/report/profile.c): the shipped ones load, match the devices they
 * are for and no others, and cite a source for every figure; malformed ones
 * are refused with file:line:col. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <cmocka.h>

#include "profile.h"

static char sku_dir[2048], bad_dir[2048];

static int setup_dirs(void **state)
{
    const char *src = getenv("srcdir");
    if (!src || !*src)
        src = ".";
    snprintf(sku_dir, sizeof sku_dir, "%s/input/sku", src);
    snprintf(bad_dir, sizeof bad_dir, "%s/tests/profiles", src);
    return 0;
}

static const char *const shipped[] = {
    "h100-sxm.yaml", "h200.yaml", "a100-sxm4-40gb.yaml", "a100-sxm4-80gb.yaml",
    "mi250x-gcd.yaml", "mi300x.yaml", "mi300a.yaml",
};

/* Every shipped profile loads, and every figure it gives is sourced: a
 * datasheet citation with a URL, or a measurement that names its date. */
static void test_shipped_load_and_are_sourced(void **state)
{
    size_t nfiles = 0;
    DIR *d = opendir(sku_dir);
    struct dirent *de;
    assert_non_null(d);
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len > 5 && !strcmp(de->d_name + len - 5, ".yaml"))
            nfiles++;
    }
    closedir(d);
    assert_int_equal(nfiles, sizeof shipped / sizeof shipped[0]);   /* a new file is listed here and in Makefile.am */
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
        char path[4096];
        struct mcf_profile p;
        struct mcf_err e = { 0 };
        snprintf(path, sizeof path, "%s/%s", sku_dir, shipped[i]);
        int rc = mcf_profile_load(path, &p, &e);
        if (rc != MCF_OK)
            fail_msg("%s: %s", path, e.msg);
        assert_true(p.ntests >= 9);
        assert_true(p.narch >= 1 && p.ndevice_name >= 1 && p.ncompute_units >= 1);
        for (size_t t = 0; t < p.ntests; t++) {
            const struct mcf_profile_test *x = &p.tests[t];
            assert_true(x->expected > 0 && x->bound > 0);
            if (x->higher_is_better)
                assert_true(x->bound < x->expected);
            else
                assert_true(x->bound > x->expected);
            if (x->source_id[0])
                assert_non_null(strstr(x->source, "https://"));
            else
                assert_int_equal(strncmp(x->source, "measured:", 9), 0);
            /* no sparsity figure slipped in: dense tensor peaks on these SKUs stay
             * below 2.7 PFLOP/s (MI300X FP8 2614.9 TFLOP/s) */
            if (!strcmp(x->metric, "gflops"))
                assert_true(x->expected <= 2614900);
            if (!strcmp(x->metric, "bandwidth_gbs"))
                assert_true(x->expected <= 5300);
        }
        mcf_profile_free(&p);
    }
}

/* Known figures, spot-checked against the datasheets (the traps: sparsity
 * halved, MI250X per GCD, A100 FP64 tensor against vector). */
static void test_figures(void **state)
{
    struct { const char *file, *test; double expected; } spot[] = {
        { "h100-sxm.yaml", "matrix-fp16", 989500 },
        { "h100-sxm.yaml", "matrix-fp64", 67000 },
        { "h100-sxm.yaml", "hbm-triad", 3350 },
        { "h200.yaml", "hbm-triad", 4800 },
        { "a100-sxm4-40gb.yaml", "hbm-triad", 1555 },
        { "a100-sxm4-80gb.yaml", "hbm-triad", 2039 },
        { "a100-sxm4-80gb.yaml", "matrix-fp64", 19500 },
        { "a100-sxm4-80gb.yaml", "valu-fp64", 9700 },
        { "mi250x-gcd.yaml", "matrix-fp64", 47850 },
        { "mi250x-gcd.yaml", "hbm-triad", 1600 },
        { "mi300x.yaml", "matrix-fp8", 2614900 },
        { "mi300a.yaml", "matrix-fp16", 980600 },
    };
    for (size_t i = 0; i < sizeof spot / sizeof spot[0]; i++) {
        char path[4096];
        struct mcf_profile p;
        struct mcf_err e = { 0 };
        snprintf(path, sizeof path, "%s/%s", sku_dir, spot[i].file);
        assert_int_equal(mcf_profile_load(path, &p, &e), MCF_OK);
        const struct mcf_profile_test *t = mcf_profile_test(&p, spot[i].test, NULL);
        assert_non_null(t);
        assert_true(t->expected == spot[i].expected);
        assert_ptr_equal(mcf_profile_test(&p, spot[i].test, "latency_ns"), NULL);
        mcf_profile_free(&p);
    }
    {   /* types the SKU lacks are absent */
        char path[4096];
        struct mcf_profile p;
        struct mcf_err e = { 0 };
        snprintf(path, sizeof path, "%s/mi250x-gcd.yaml", sku_dir);
        assert_int_equal(mcf_profile_load(path, &p, &e), MCF_OK);
        assert_null(mcf_profile_test(&p, "matrix-fp8", NULL));
        assert_null(mcf_profile_test(&p, "matrix-tf32", NULL));
        mcf_profile_free(&p);
        snprintf(path, sizeof path, "%s/a100-sxm4-80gb.yaml", sku_dir);
        assert_int_equal(mcf_profile_load(path, &p, &e), MCF_OK);
        assert_null(mcf_profile_test(&p, "matrix-fp8", NULL));
        mcf_profile_free(&p);
    }
}

/* name, arch, CUs -> the SKU chosen, or NULL for none */
static void test_matching(void **state)
{
    struct { const char *name, *arch; long cu; const char *sku; } cases[] = {
        { "NVIDIA H100 80GB HBM3", "sm_90", 132, "NVIDIA H100 SXM5 80GB" },
        { "NVIDIA H100 PCIe", "sm_90", 114, NULL },
        { "NVIDIA H100 NVL", "sm_90", 132, NULL },
        { "NVIDIA H100 80GB HBM3", "sm_90", 16, NULL },        /* a MIG slice */
        { "NVIDIA H100 80GB HBM3", "sm_80", 132, NULL },       /* wrong arch */
        { "NVIDIA H200", "sm_90", 132, "NVIDIA H200 SXM 141GB" },
        { "nvidia h200", "SM_90", 132, "NVIDIA H200 SXM 141GB" },
        { "NVIDIA H200 NVL", "sm_90", 132, NULL },
        { "NVIDIA GH200 480GB", "sm_90", 132, NULL },
        { "NVIDIA A100-SXM4-80GB", "sm_80", 108, "NVIDIA A100 SXM4 80GB" },
        { "NVIDIA A100-SXM-80GB", "sm_80", 108, "NVIDIA A100 SXM4 80GB" },
        { "NVIDIA A100-SXM4-40GB", "sm_80", 108, "NVIDIA A100 SXM4 40GB" },
        { "NVIDIA A100-PCIE-40GB", "sm_80", 108, NULL },
        { "NVIDIA A100 80GB PCIe", "sm_80", 108, NULL },
        { "AMD Instinct MI250X", "gfx90a:sramecc+:xnack-", 110, "AMD Instinct MI250X (one GCD)" },
        { "AMD Instinct MI250X", "gfx90a", 110, "AMD Instinct MI250X (one GCD)" },
        { "AMD Instinct MI250X / MI250", "gfx90a", 104, NULL },  /* an MI250 GCD */
        { "AMD Instinct MI210", "gfx90a", 104, NULL },
        { "AMD Instinct MI250X", "gfx90a", 0, NULL },          /* CUs unknown */
        { "AMD Instinct MI300X", "gfx942:sramecc+:xnack-", 304, "AMD Instinct MI300X" },
        { "AMD Instinct MI300X", "gfx942", 38, NULL },         /* a CPX partition */
        { "AMD Instinct MI300A", "gfx942", 228, "AMD Instinct MI300A" },
        { "AMD Instinct MI325X", "gfx942", 304, NULL },
        { "Intel(R) Xeon(R) Processor", "x86_64", 2, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct mcf_profile p;
        struct mcf_err e = { 0 };
        int rc = mcf_profile_find(sku_dir, cases[i].name, cases[i].arch, cases[i].cu, &p, NULL, &e);
        if (rc < 0)
            fail_msg("%s: %s", cases[i].name, e.msg);
        if (!cases[i].sku) {
            if (rc != 0)
                fail_msg("'%s' (%s, %ld CUs) matched '%s'", cases[i].name, cases[i].arch, cases[i].cu, p.sku);
        } else {
            if (rc != 1)
                fail_msg("'%s' (%s, %ld CUs) matched nothing", cases[i].name, cases[i].arch, cases[i].cu);
            assert_string_equal(p.sku, cases[i].sku);
        }
        assert_int_equal(p.ntests == 0, rc == 0);
        mcf_profile_free(&p);
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

#define MINI(names) "sku: T\nmatch: {arch: [sm_90], device_name: " names "}\nsources:\n  ds: \"d, https://x.invalid\"\n" \
                    "tests:\n  valu-fp32: {metric: gflops, expected: 100, floor: 90, source: ds}\n"

/* The most specific match wins; two equally specific ones are an error that
 * names both files; a broken file in the directory is skipped and named,
 * the others still found. */
static void test_specificity_and_ambiguity(void **state)
{
    char dir[] = "/tmp/mcf-profiles-XXXXXX", a[256], b[256], c[256];
    struct mcf_profile p;
    struct mcf_err e = { 0 };
    assert_non_null(mkdtemp(dir));
    snprintf(a, sizeof a, "%s/a.yaml", dir);
    snprintf(b, sizeof b, "%s/b.yaml", dir);
    snprintf(c, sizeof c, "%s/c.yaml", dir);
    write_file(a, MINI("[\"GPU\"]"));
    write_file(b, MINI("[\"Big GPU\"]"));
    assert_int_equal(mcf_profile_find(dir, "Vendor Big GPU", "sm_90", 1, &p, NULL, &e), 1);
    assert_non_null(strstr(p.path, "b.yaml"));
    mcf_profile_free(&p);
    assert_int_equal(mcf_profile_find(dir, "Vendor Small GPU", "sm_90", 1, &p, NULL, &e), 1);
    assert_non_null(strstr(p.path, "a.yaml"));
    mcf_profile_free(&p);
    write_file(c, MINI("[\"big gpu\"]"));
    assert_int_equal(mcf_profile_find(dir, "Vendor Big GPU", "sm_90", 1, &p, NULL, &e), -1);
    assert_int_equal(e.rc, MCF_EINPUT);
    assert_non_null(strstr(e.msg, "b.yaml and "));
    assert_non_null(strstr(e.msg, "c.yaml both match"));
    assert_int_equal(p.ntests, 0);
    mcf_err_clear(&e);
    write_file(c, MINI("[\"Big GPU\"]") "vendor: x\n");
    struct mcf_profile_skipped skipped = { 0 };
    assert_int_equal(mcf_profile_find(dir, "Vendor Big GPU", "sm_90", 1, &p, &skipped, &e), 1);
    assert_non_null(strstr(p.path, "b.yaml"));
    mcf_profile_free(&p);
    assert_int_equal(e.rc, MCF_OK);
    assert_int_equal(skipped.n, 1);
    assert_non_null(strstr(skipped.msg[0], "c.yaml:7:1: unknown top-level key 'vendor'"));
    assert_int_equal(mcf_profile_find("/nonexistent-mcf-dir", "x", "sm_90", 1, &p, NULL, &e), -1);
    assert_int_equal(e.rc, MCF_EINPUT);
    unlink(a);
    unlink(b);
    unlink(c);
    rmdir(dir);
}

struct bad { const char *file, *message; };

static const struct bad bad_profiles[] = {
    { "unknown-key.yaml", "unknown-key.yaml:6:49: unknown key 'flor' in test 'matrix-fp16' "
      "(metric, expected, floor, ceiling, source, note, measured)" },
    { "duplicate-key.yaml", "duplicate-key.yaml:7:3: key 'matrix-fp16' is given twice in 'tests' (first at line 6)" },
    { "floor-above-expected.yaml", "floor-above-expected.yaml:6:56: test 'matrix-fp16': floor 1100 is above "
      "expected 1000 (gflops is higher-is-better: the floor lies below the expected figure)" },
    { "missing-source.yaml", "missing-source.yaml:6:16: test 'matrix-fp16' has no 'source'" },
    { "negative.yaml", "negative.yaml:6:43: 'expected' of test 'matrix-fp16' must be a positive number "
      "without a sign, got '-1000'" },
    { "unknown-metric.yaml", "unknown-metric.yaml:6:25: 'metric' of test 'matrix-fp16' must be a metric the "
      "kernel families judge (gflops, bandwidth_gbs, latency_ns, latency_cycles, busbw_gbs ...), got 'tflops'" },
    { "cycles-floor.yaml", "cycles-floor.yaml:6:63: test 'tma-latency': latency_cycles is lower-is-better, "
      "so its bound is a 'ceiling', not a 'floor'" },
    { "measured-without-date.yaml", "measured-without-date.yaml:6:72: test 'chase-hbm': a measured figure "
      "names the device and the date" },
    { "floor-for-latency.yaml", "floor-for-latency.yaml:6:57: test 'chase-hbm': latency_ns is lower-is-better, "
      "so its bound is a 'ceiling', not a 'floor'" },
    { "unknown-source.yaml", "unknown-source.yaml:6:69: test 'matrix-fp16': source 'datasheet' is not a key "
      "of 'sources' (ds)" },
    { "exponent.yaml", "exponent.yaml:6:43: 'expected' of test 'matrix-fp16' '1e': digits must follow the exponent's 'e'" },
    { "measured-not-a-signature.yaml", "measured-not-a-signature.yaml:6:43: 'measured' of test 'matrix-fp16' must be the results file's 'measured' text" },
    { "bad-sweep-name.yaml", "bad-sweep-name.yaml:6:3: test name 'intensity:=16' must be 1-127 letters" },
    { "match-without-name.yaml", "match-without-name.yaml:2:8: 'match' needs 'device_name'" },
    { "unknown-top-key.yaml", "unknown-top-key.yaml:7:1: unknown top-level key 'vendor'" },
};

static void test_bad_profiles(void **state)
{
    for (size_t i = 0; i < sizeof bad_profiles / sizeof bad_profiles[0]; i++) {
        char path[4096];
        struct mcf_profile p;
        struct mcf_err e = { 0 };
        snprintf(path, sizeof path, "%s/%s", bad_dir, bad_profiles[i].file);
        int rc = mcf_profile_load(path, &p, &e);
        assert_int_equal(rc, MCF_EINPUT);
        assert_int_equal(p.ntests, 0);
        assert_null(p.tests);
        const char *m = strstr(e.msg, bad_profiles[i].file);   /* after the directory */
        if (!m || strncmp(m, bad_profiles[i].message, strlen(bad_profiles[i].message)) != 0)
            fail_msg("%s:\n  got:  %s\n  want: %s...", bad_profiles[i].file, e.msg, bad_profiles[i].message);
    }
}

static void test_dir(void **state)
{
    /* an uninstalled build finds the source tree's profiles (or the installed ones) */
    const char *d = mcf_profile_dir();
    assert_non_null(d);
    struct stat st;
    assert_int_equal(stat(d, &st), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_load_and_are_sourced),
        cmocka_unit_test(test_figures),
        cmocka_unit_test(test_matching),
        cmocka_unit_test(test_specificity_and_ambiguity),
        cmocka_unit_test(test_bad_profiles),
        cmocka_unit_test(test_dir),
    };
    return cmocka_run_group_tests(tests, setup_dirs, NULL);
}
