/* The NVML power source against a stub library with scripted values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "power.h"

static char lib[512], lib_nosym[512];
static const struct mcf_power_env env = { "0000:00:06.0", 0, 1, -1 };

static int open_with(const char *path, const char *mode, void **st, struct mcf_err *e)
{
    setenv("MCFLEET_NVML_LIB", path, 1);
    setenv("STUB_NVML", mode, 1);
    mcf_err_clear(e);
    return mcf_power_nvml.open(st, &env, e);
}

static void scripted_readings(void **state)
{
    (void)state;
    void *st;
    struct mcf_err e = { 0 };
    struct mcf_preading r;
    assert_int_equal(open_with(lib, "ok", &st, &e), MCF_OK);
    assert_int_equal(mcf_power_nvml.read(st, &r, &e), MCF_OK);
    assert_float_equal(r.s.power_w, 262.5, 1e-9);      /* the instantaneous field where the GPU has it */
    assert_float_equal(r.power_avg_w, 250.0, 1e-9);
    assert_float_equal(r.s.energy_j, 1001.0, 1e-9);   /* mJ -> J */
    assert_float_equal(r.temp_c, 47, 0);
    assert_float_equal(r.sm_mhz, 1980, 0);
    assert_float_equal(r.mem_mhz, 2619, 0);
    assert_true(r.throttle == 0x4);
    assert_int_equal(r.gpu_procs, 1);                  /* the stub's default: this process alone */
    for (int i = 1; i < MCF_LINK_EVERY; i++) {         /* then not read until MCF_LINK_EVERY readings on */
        assert_int_equal(mcf_power_nvml.read(st, &r, &e), MCF_OK);
        assert_int_equal(r.gpu_procs, -1);
    }
    mcf_power_nvml.close(st);
    /* another job's process beside it; none at all (before a context); the call failing */
    static const struct { const char *procs, *mode; int want; } procs[] = {
        { "2", "ok", 2 }, { "0", "ok", 0 }, { "5", "procs-fail", -1 },
    };
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++) {
        setenv("STUB_NVML_PROCS", procs[i].procs, 1);
        assert_int_equal(open_with(lib, procs[i].mode, &st, &e), MCF_OK);
        assert_int_equal(mcf_power_nvml.read(st, &r, &e), MCF_OK);
        assert_int_equal(r.gpu_procs, procs[i].want);
        mcf_power_nvml.close(st);
    }
    unsetenv("STUB_NVML_PROCS");
    /* no instantaneous field: the averaged power stands in */
    assert_int_equal(open_with(lib, "no-instant", &st, &e), MCF_OK);
    assert_int_equal(mcf_power_nvml.read(st, &r, &e), MCF_OK);
    assert_float_equal(r.s.power_w, 250.0, 1e-9);
    mcf_power_nvml.close(st);
}

static void failures_disable_with_a_reason(void **state)
{
    (void)state;
    void *st;
    struct mcf_err e = { 0 };
    assert_int_equal(open_with(lib, "init-fail", &st, &e), MCF_ERUNTIME);
    assert_non_null(strstr(e.msg, "nvmlInit_v2 failed: Unknown Error (stub)"));
    assert_int_equal(open_with(lib_nosym, "ok", &st, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "lacks nvmlDeviceGetTotalEnergyConsumption"));
    assert_int_equal(open_with("/nonexistent/libnvidia-ml.so.1", "ok", &st, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "cannot load"));
    struct mcf_power_env other = env;
    strcpy(other.pci_bus_id, "0000:00:07.0");
    setenv("MCFLEET_NVML_LIB", lib, 1);
    setenv("STUB_NVML", "ok", 1);
    mcf_err_clear(&e);
    assert_int_equal(mcf_power_nvml.open(&st, &other, &e), MCF_ERUNTIME);
    assert_non_null(strstr(e.msg, "no device at PCI 0000:00:07.0"));
}

static void a_counter_that_goes_back_gives_no_energy(void **state)
{
    (void)state;
    void *st;
    struct mcf_err e = { 0 };
    struct mcf_psample s[6];
    assert_int_equal(open_with(lib, "reset", &st, &e), MCF_OK);
    for (int i = 0; i < 6; i++) {
        struct mcf_preading r;
        assert_int_equal(mcf_power_nvml.read(st, &r, &e), MCF_OK);
        s[i] = r.s;
        s[i].t = i;
    }
    mcf_power_nvml.close(st);
    /* before the reset the counter gives energy; across it, none */
    assert_float_equal(mcf_window(s, 6, 0.0, 2.0, 1.0).energy_j, 2.0, 1e-9);
    assert_true(isnan(mcf_window(s, 6, 1.0, 4.0, 1.0).energy_j));
}

int main(void)
{
    const char *b = getenv("builddir");
    snprintf(lib, sizeof lib, "%s/tests/libstub_nvml.so", b ? b : ".");
    snprintf(lib_nosym, sizeof lib_nosym, "%s/tests/libstub_nvml_noenergy.so", b ? b : ".");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scripted_readings),
        cmocka_unit_test(failures_disable_with_a_reason),
        cmocka_unit_test(a_counter_that_goes_back_gives_no_energy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
