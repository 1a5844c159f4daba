/* The NCCL / RCCL loader (src/link/vendor_nccl.c) against a stub library:
 * every entry point resolved and callable, the version read and described
 * ("NCCL 2.28.3 (path)"), result strings with the communicator's last error,
 * and each way a library is refused (none there, an entry point missing, a
 * version it cannot read) is a reason naming what was tried, never a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vendor_nccl.h"

static char lib[512], lib_noabort[512];

static int open_with(const char *path, const char *version, int rccl, struct mcf_nccl *l, char *why, size_t len)
{
    if (path)
        setenv("MCFLEET_NCCL_LIB", path, 1);
    else
        unsetenv("MCFLEET_NCCL_LIB");
    if (version)
        setenv("STUB_NCCL_VERSION", version, 1);
    else
        unsetenv("STUB_NCCL_VERSION");
    why[0] = '\0';
    return mcf_nccl_open(l, rccl, why, len);
}

static void resolves_and_describes(void **state)
{
    (void)state;
    struct mcf_nccl l;
    char why[1024], buf[256], want[600];
    assert_int_equal(open_with(lib, NULL, 0, &l, why, sizeof why), 0);
    assert_string_equal(l.path, lib);
    assert_int_equal(l.code, 22803);
    assert_string_equal(l.version, "2.28.3");
    snprintf(want, sizeof want, "NCCL 2.28.3 (%s)", lib);
    assert_string_equal(l.describe, want);
    print_message("loaded %s\n", l.describe);
    assert_non_null(l.ncclCommAbort);
    assert_non_null(l.ncclReduceScatter);
    assert_non_null(l.ncclGetLastError);
    /* the loaded functions are the library's own: calls go through */
    mcf_nccl_id_t id;
    mcf_nccl_comm_t comm = NULL;
    assert_int_equal(l.ncclGetUniqueId(&id), MCF_NCCL_SUCCESS);
    assert_int_equal(l.ncclCommInitRank(&comm, 4, id, 3), MCF_NCCL_SUCCESS);
    assert_non_null(comm);
    int r = l.ncclAllReduce(NULL, NULL, 1, MCF_NCCL_FLOAT32, MCF_NCCL_SUM, comm, NULL);
    assert_int_equal(r, 5);
    assert_string_equal(mcf_nccl_error(&l, comm, r, buf, sizeof buf),
                        "invalid usage (5): stub: the last error's words");
    assert_int_equal(l.ncclCommInitRank(&comm, 4, id, 4), 4);   /* a bad rank, the library's answer */
    assert_int_equal(l.ncclCommDestroy(comm), MCF_NCCL_SUCCESS);
    mcf_nccl_close(&l);
    assert_null(l.dl);
    /* RCCL: the same table, its own name; the old version encoding (2.8 and before) */
    assert_int_equal(open_with(lib, "2804", 1, &l, why, sizeof why), 0);
    assert_string_equal(l.version, "2.8.4");
    assert_non_null(strstr(l.describe, "RCCL 2.8.4 ("));
    mcf_nccl_close(&l);
}

static void versions(void **state)
{
    (void)state;
    int a, b, c;
    mcf_nccl_version_split(22803, &a, &b, &c);
    assert_true(a == 2 && b == 28 && c == 3);
    mcf_nccl_version_split(21804, &a, &b, &c);   /* RCCL 2.18.4 reports NCCL's code */
    assert_true(a == 2 && b == 18 && c == 4);
    mcf_nccl_version_split(2708, &a, &b, &c);
    assert_true(a == 2 && b == 7 && c == 8);
}

static void refusals_have_reasons(void **state)
{
    (void)state;
    struct mcf_nccl l;
    char why[1024];
    /* no library at all: dlerror's words under the name tried, and the variable to set */
    assert_int_equal(open_with("/nonexistent/libnccl.so.2", NULL, 0, &l, why, sizeof why), -1);
    assert_non_null(strstr(why, "no usable NCCL: /nonexistent/libnccl.so.2: "));
    assert_non_null(strstr(why, "cannot open shared object file"));
    assert_non_null(strstr(why, "MCFLEET_NCCL_LIB"));
    assert_null(l.dl);
    /* an entry point missing: named */
    assert_int_equal(open_with(lib_noabort, NULL, 0, &l, why, sizeof why), -1);
    assert_non_null(strstr(why, "lacks ncclCommAbort"));
    assert_non_null(strstr(why, lib_noabort));
    assert_null(l.dl);
    /* a version it cannot read */
    assert_int_equal(open_with(lib, "fail", 0, &l, why, sizeof why), -1);
    assert_non_null(strstr(why, "ncclGetVersion failed"));
    assert_non_null(strstr(why, "its version is unknown"));
    assert_null(l.dl);
}

/* Without the variable the documented names are tried (none is on this
 * machine unless NCCL / RCCL is installed: then it must open or say why). */
static void default_names(void **state)
{
    (void)state;
    struct mcf_nccl l;
    char why[1024];
    for (int rccl = 0; rccl < 2; rccl++) {
        if (open_with(NULL, NULL, rccl, &l, why, sizeof why) == 0) {
            assert_true(l.version[0] != '\0');
            assert_non_null(strstr(l.describe, "/"));   /* the file, resolved */
            print_message("this machine's: %s\n", l.describe);
            mcf_nccl_close(&l);
        } else {
            assert_non_null(strstr(why, rccl ? "no usable RCCL: librccl.so.1: " : "no usable NCCL: libnccl.so.2: "));
            assert_non_null(strstr(why, "MCFLEET_NCCL_LIB"));
        }
    }
}

int main(void)
{
    const char *b = getenv("builddir");
    snprintf(lib, sizeof lib, "%s/tests/libstub_nccl.so", b ? b : ".");
    snprintf(lib_noabort, sizeof lib_noabort, "%s/tests/libstub_nccl_noabort.so", b ? b : ".");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resolves_and_describes),
        cmocka_unit_test(versions),
        cmocka_unit_test(refusals_have_reasons),
        cmocka_unit_test(default_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
