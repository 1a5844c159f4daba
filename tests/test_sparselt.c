/* The cuSPARSELt loader (src/blas/vendor_cusparselt.c) against a stub
 * library: every entry point resolved, the version read and recorded, status
 * names in messages, and each way a library is refused (none there, an entry
 * point missing, a version older than the declared ABI) is a reason, never
 * a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gemm_check.h"
#include "sparselt.h"

static char lib[512], lib_nocompress[512];

static int open_with(const char *path, const char *version, struct mcf_sparselt *l, char *why, size_t len)
{
    setenv("MCFLEET_CUSPARSELT_LIB", path, 1);
    if (version)
        setenv("STUB_SPARSELT_VERSION", version, 1);
    else
        unsetenv("STUB_SPARSELT_VERSION");
    why[0] = '\0';
    return mcf_sparselt_open(l, why, len);
}

static void resolves_and_records(void **state)
{
    (void)state;
    struct mcf_sparselt l;
    char why[1024], buf[256];
    assert_int_equal(open_with(lib, NULL, &l, why, sizeof why), 0);
    assert_string_equal(l.path, lib);
    assert_string_equal(l.version, "0.8.1");
    assert_int_equal(l.minor, 8);
    assert_non_null(l.cusparseLtSpMMAPrune);
    assert_non_null(l.cusparseLtSpMMACompress);
    assert_non_null(l.cusparseLtMatmul);
    assert_non_null(l.cusparseLtMatmulAlgSelectionDestroy);
    /* the loaded functions are the library's own: a call goes through */
    mcf_slt_handle_t h;
    assert_int_equal(l.cusparseLtInit(&h), MCF_SLT_SUCCESS);
    assert_string_equal(mcf_sparselt_status(&l, MCF_SLT_NOT_SUPPORTED, buf, sizeof buf),
                        "CUSPARSE_STATUS_NOT_SUPPORTED (the operation or data type combination is currently not "
                        "supported)");
    assert_string_equal(mcf_sparselt_status(&l, 3, buf, sizeof buf), "CUSPARSE_STATUS_INVALID_VALUE (stub status)");
    mcf_sparselt_close(&l);
    assert_null(l.dl);
    assert_int_equal(open_with(lib, "0.7.0", &l, why, sizeof why), 0);   /* the oldest declared */
    assert_string_equal(l.version, "0.7.0");
    mcf_sparselt_close(&l);
    assert_int_equal(open_with(lib, "1.0.0", &l, why, sizeof why), 0);
    mcf_sparselt_close(&l);
}

static void refusals_have_reasons(void **state)
{
    (void)state;
    struct mcf_sparselt l;
    char why[1024];
    /* no library at all: dlerror's words, under the name tried */
    assert_int_equal(open_with("/nonexistent/libcusparseLt.so.0", NULL, &l, why, sizeof why), -1);
    assert_non_null(strstr(why, "cuSPARSELt not found: /nonexistent/libcusparseLt.so.0: "));
    assert_non_null(strstr(why, "cannot open shared object file"));
    assert_null(l.dl);
    /* an entry point missing */
    assert_int_equal(open_with(lib_nocompress, NULL, &l, why, sizeof why), -1);
    assert_non_null(strstr(why, "lacks cusparseLtSpMMACompress"));
    /* older than the ABI declared: refused, not called with the wrong numbers */
    assert_int_equal(open_with(lib, "0.6.3", &l, why, sizeof why), -1);
    assert_non_null(strstr(why, "cuSPARSELt 0.6.3"));
    assert_non_null(strstr(why, "predates 0.7"));
    assert_null(l.dl);
    /* a version it cannot read */
    assert_int_equal(open_with(lib, "garbage", &l, why, sizeof why), -1);
    assert_non_null(strstr(why, "its version is unknown"));
}

/* Without the variable the documented names are tried (none is on this
 * machine unless cuSPARSELt is installed: then it must open or say why). */
static void default_names(void **state)
{
    (void)state;
    struct mcf_sparselt l;
    char why[1024];
    unsetenv("MCFLEET_CUSPARSELT_LIB");
    why[0] = '\0';
    if (mcf_sparselt_open(&l, why, sizeof why) == 0) {
        assert_true(l.version[0] != '\0');
        mcf_sparselt_close(&l);
    } else {
        assert_true(strstr(why, "libcusparseLt.so.0") != NULL || strstr(why, "predates") != NULL);
    }
}

/* The 2:4 mask host and GPU share (gemm_check.h): two of every four along
 * k, one of each pair for fp32/tf32 (cuSPARSELt's 1:2), every one of the six
 * pairs drawn, and a different draw for another row or seed. */
static void the_mask(void **state)
{
    (void)state;
    const uint64_t k = 4096;
    int seen[16] = { 0 }, differs = 0;
    for (uint64_t i = 0; i < 8; i++)
        for (uint64_t g = 0; g < k / 4; g++) {
            unsigned m16 = 0, m32 = 0, other = 0;
            for (unsigned p = 0; p < 4; p++) {
                m16 |= (unsigned)mcf_gemm_kept(MCF_FP16, 7, k, i, 4 * g + p) << p;
                m32 |= (unsigned)mcf_gemm_kept(MCF_TF32, 7, k, i, 4 * g + p) << p;
                other |= (unsigned)mcf_gemm_kept(MCF_FP16, 8, k, i, 4 * g + p) << p;
            }
            assert_int_equal(__builtin_popcount(m16), 2);
            assert_int_equal(__builtin_popcount(m32 & 3u), 1);
            assert_int_equal(__builtin_popcount(m32 & 12u), 1);
            seen[m16]++;
            differs += other != m16;
        }
    static const unsigned pairs[6] = { 0x3, 0x5, 0x9, 0x6, 0xa, 0xc };
    for (int c = 0; c < 6; c++)   /* 8192 groups: each pair about 1365 times */
        assert_true(seen[pairs[c]] > 1000 && seen[pairs[c]] < 1750);
    assert_true(differs > 8192 / 2);   /* another seed, another mask (5 in 6 groups) */
}

int main(void)
{
    const char *b = getenv("builddir");
    snprintf(lib, sizeof lib, "%s/tests/libstub_cusparselt.so", b ? b : ".");
    snprintf(lib_nocompress, sizeof lib_nocompress, "%s/tests/libstub_cusparselt_nocompress.so", b ? b : ".");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resolves_and_records),
        cmocka_unit_test(refusals_have_reasons),
        cmocka_unit_test(default_names),
        cmocka_unit_test(the_mask),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
