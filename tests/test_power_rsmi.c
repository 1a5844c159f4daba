/* The rocm-smi power source against a stub library with scripted values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "power.h"

static char lib[512];

static int open_at(const char *bus, const char *mode, void **st, struct mcf_err *e)
{
    struct mcf_power_env env = { "", 0, 1, -1 };
    snprintf(env.pci_bus_id, sizeof env.pci_bus_id, "%s", bus);
    setenv("MCFLEET_RSMI_LIB", lib, 1);
    setenv("STUB_RSMI", mode, 1);
    mcf_err_clear(e);
    return mcf_power_rsmi.open(st, &env, e);
}

static void readings_by_pci_bus_id(void **state)
{
    (void)state;
    void *st;
    struct mcf_err e = { 0 };
    struct mcf_preading r;
    assert_int_equal(open_at("0000:c1:00.0", "ok", &st, &e), MCF_OK);
    assert_int_equal(mcf_power_rsmi.read(st, &r, &e), MCF_OK);
    assert_float_equal(r.s.power_w, 480.0, 1e-9);                   /* uW -> W */
    assert_float_equal(r.s.energy_j, 1000000 * 15.3f * 1e-6, 1e-6);      /* counter x resolution (uJ) */
    assert_float_equal(r.src_t, 5.1, 1e-9);                          /* the counter's own ns stamp */
    assert_float_equal(r.temp_c, 51.0, 1e-9);
    mcf_power_rsmi.close(st);
}

static void secondary_gcd_and_failures(void **state)
{
    (void)state;
    void *st;
    struct mcf_err e = { 0 };
    assert_int_equal(open_at("0000:c6:00.0", "ok", &st, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "reports no power"));
    assert_int_equal(open_at("0000:d1:00.0", "ok", &st, &e), MCF_ERUNTIME);
    assert_non_null(strstr(e.msg, "no device at PCI 0000:d1:00.0"));
    assert_int_equal(open_at("0000:c1:00.0", "init-fail", &st, &e), MCF_ERUNTIME);
    assert_non_null(strstr(e.msg, "rsmi_init failed: RSMI_STATUS_INIT_ERROR (stub)"));
    assert_int_equal(open_at("none", "ok", &st, &e), MCF_EUNSUPPORTED);
    setenv("MCFLEET_RSMI_LIB", "/nonexistent/librocm_smi64.so", 1);
    mcf_err_clear(&e);
    struct mcf_power_env env = { "0000:c1:00.0", 0, 1, -1 };
    assert_int_equal(mcf_power_rsmi.open(&st, &env, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "cannot load"));
}

int main(void)
{
    const char *b = getenv("builddir");
    snprintf(lib, sizeof lib, "%s/tests/libstub_rsmi.so", b ? b : ".");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(readings_by_pci_bus_id),
        cmocka_unit_test(secondary_gcd_and_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
