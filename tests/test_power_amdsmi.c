/* The amd-smi power source against a stub library with scripted values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "power.h"
#include "vendor_amdsmi.h"

static char lib[512], lib_noenergy[512];

static int open_with(const char *path, const char *bus, const char *mode, void **st, struct mcf_err *e)
{
    struct mcf_power_env env = { "", 0, 1, -1 };
    snprintf(env.pci_bus_id, sizeof env.pci_bus_id, "%s", bus);
    setenv("MCFLEET_AMDSMI_LIB", path, 1);
    setenv("STUB_AMDSMI", mode, 1);
    mcf_err_clear(e);
    return mcf_power_amdsmi.open(st, &env, e);
}

static int open_at(const char *bus, const char *mode, void **st, struct mcf_err *e)
{
    return open_with(lib, bus, mode, st, e);
}

static void readings_by_pci_bus_id(void **state)
{
    (void)state;
    void *st;
    struct mcf_err e = { 0 };
    struct mcf_preading r;
    assert_string_equal(mcf_power_amdsmi.name, "amdsmi");
    assert_string_equal(mcf_power_kind_name(mcf_power_amdsmi.kind), "amdsmi");
    assert_int_equal(open_at("0000:c1:00.0", "ok", &st, &e), MCF_OK);
    assert_int_equal(mcf_power_amdsmi.read(st, &r, &e), MCF_OK);
    assert_float_equal(r.s.power_w, 480.0, 1e-9);                       /* 7.0's socket_power, W */
    assert_float_equal(r.s.energy_j, 1000000 * 15.3f * 1e-6, 1e-6);     /* counter x resolution (uJ) */
    assert_float_equal(r.src_t, 5.1, 1e-9);                             /* the counter's own ns stamp */
    assert_float_equal(r.temp_c, 51.0, 1e-9);                           /* edge, degrees C */
    assert_float_equal(r.sm_mhz, 1700.0, 1e-9);
    assert_float_equal(r.mem_mhz, 1600.0, 1e-9);
    assert_int_equal(r.pcie_gen, 4);                                    /* 16000 MT/s, on the first read */
    assert_int_equal(r.pcie_width, 16);
    assert_int_equal(r.throttle_read, 0);
    assert_int_equal(mcf_power_amdsmi.read(st, &r, &e), MCF_OK);
    assert_float_equal(r.s.energy_j, 2000000 * 15.3f * 1e-6, 1e-6);
    assert_float_equal(r.src_t, 5.2, 1e-9);
    assert_int_equal(r.pcie_gen, -1);                                   /* the link: every MCF_LINK_EVERY reads */
    assert_int_equal(r.pcie_width, -1);
    mcf_power_amdsmi.close(st);
}

static void every_power_layout_and_no_edge_sensor(void **state)
{
    (void)state;
    void *st;
    struct mcf_err e = { 0 };
    struct mcf_preading r;
    /* ROCm 6.1-6.3's amdsmi_power_info_t, an MI200: no current power (0xFFFF), the average at 4 */
    assert_int_equal(open_at("0000:c1:00.0", "layout-6.1,no-edge", &st, &e), MCF_OK);
    assert_int_equal(mcf_power_amdsmi.read(st, &r, &e), MCF_OK);
    assert_float_equal(r.s.power_w, 480.0, 1e-9);
    assert_float_equal(r.temp_c, 77.0, 1e-9);                           /* the hotspot, as on MI300 */
    mcf_power_amdsmi.close(st);
    assert_int_equal(open_at("0000:c1:00.0", "no-edge,millidegrees", &st, &e), MCF_OK);
    assert_int_equal(mcf_power_amdsmi.read(st, &r, &e), MCF_OK);
    assert_float_equal(r.temp_c, 77.0, 1e-9);                           /* a release that passes m°C through */
    mcf_power_amdsmi.close(st);
    /* ROCm 6.0's: the average at 0 (the GFX voltage at 4 is never read as power) */
    assert_int_equal(open_at("0000:c1:00.0", "layout-6.0", &st, &e), MCF_OK);
    assert_int_equal(mcf_power_amdsmi.read(st, &r, &e), MCF_OK);
    assert_float_equal(r.s.power_w, 480.0, 1e-9);
    assert_int_equal(r.pcie_gen, -1);                                   /* 6.0's amdsmi_pcie_info_t: not read */
    mcf_power_amdsmi.close(st);
    assert_int_equal(open_at("0000:c6:00.0", "layout-6.0", &st, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "reports no power"));
    /* ROCm 6.4's: socket_power not filled on bare metal, the current power at 8 */
    assert_int_equal(open_at("0000:c1:00.0", "layout-6.4", &st, &e), MCF_OK);
    assert_int_equal(mcf_power_amdsmi.read(st, &r, &e), MCF_OK);
    assert_float_equal(r.s.power_w, 480.0, 1e-9);
    mcf_power_amdsmi.close(st);
    assert_int_equal(open_at("0000:c6:00.0", "layout-6.4", &st, &e), MCF_EUNSUPPORTED);
    /* a 25.x library with 6.1-6.3's layout: the check finds it (never the GFX voltage at 8 as power) */
    assert_int_equal(open_at("0000:c1:00.0", "version-25-old-layout", &st, &e), MCF_OK);
    assert_int_equal(mcf_power_amdsmi.read(st, &r, &e), MCF_OK);
    assert_float_equal(r.s.power_w, 480.0, 1e-9);
    mcf_power_amdsmi.close(st);
    assert_int_equal(open_at("0000:c6:00.0", "version-25-old-layout", &st, &e), MCF_EUNSUPPORTED);
    /* no version: no guess at the layout */
    assert_int_equal(open_at("0000:c1:00.0", "no-version", &st, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "amd-smi: amdsmi_get_lib_version gave no version"));
}

static void link_and_its_maximum(void **state)
{
    (void)state;
    struct mcf_amdsmi a;
    struct mcf_err e = { 0 };
    int g, w, gm, wm;
    uint64_t bdf;
    setenv("MCFLEET_AMDSMI_LIB", lib, 1);
    setenv("STUB_AMDSMI", "ok", 1);
    assert_int_equal(mcf_amdsmi_open(&a, "0000:c1:00.0", &e), MCF_OK);
    assert_int_equal(mcf_amdsmi_link(&a, &g, &w, &gm, &wm), 0);
    assert_int_equal(g, 4);
    assert_int_equal(w, 16);
    assert_int_equal(gm, 5);                                            /* 32000 MT/s */
    assert_int_equal(wm, 16);
    mcf_amdsmi_close(&a);
    assert_int_equal(mcf_amdsmi_parse_bdf("0001:C1:1f.7", &bdf), 0);    /* amdsmi_bdf_t's bits */
    assert_int_equal(bdf, (1ull << 16) | (0xc1ull << 8) | (0x1full << 3) | 7);
    assert_int_equal(mcf_amdsmi_parse_bdf("0000:c1:00.0.1", &bdf), -1);
    assert_int_equal(mcf_amdsmi_parse_bdf("c1:00.0", &bdf), -1);
}

static void secondary_gcd_and_failures(void **state)
{
    (void)state;
    void *st;
    struct mcf_err e = { 0 };
    /* MI250X: the secondary GCD reports no power; the primary's covers the package */
    assert_int_equal(open_at("0000:c6:00.0", "ok", &st, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "amd-smi: this GCD reports no power"));
    assert_non_null(strstr(mcf_power_amdsmi.scope, "package"));
    assert_int_equal(open_at("0000:c6:00.0", "layout-6.1", &st, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "reports no power"));
    assert_int_equal(open_at("0000:d1:00.0", "ok", &st, &e), MCF_ERUNTIME);
    assert_non_null(strstr(e.msg, "amd-smi: no device at PCI 0000:d1:00.0"));
    assert_int_equal(open_at("0000:c1:00.0", "init-fail", &st, &e), MCF_ERUNTIME);
    assert_non_null(strstr(e.msg, "amd-smi: amdsmi_init failed: AMDSMI_STATUS_INIT_ERROR (stub)"));
    assert_int_equal(open_at("none", "ok", &st, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "not a PCI GPU"));
    assert_int_equal(open_with(lib_noenergy, "0000:c1:00.0", "ok", &st, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "libstub_amdsmi_noenergy.so lacks amdsmi_get_energy_count"));
    assert_int_equal(open_with("/nonexistent/libamd_smi.so", "0000:c1:00.0", "ok", &st, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "amd-smi: cannot load /nonexistent/libamd_smi.so"));
}

int main(void)
{
    const char *b = getenv("builddir");
    snprintf(lib, sizeof lib, "%s/tests/libstub_amdsmi.so", b ? b : ".");
    snprintf(lib_noenergy, sizeof lib_noenergy, "%s/tests/libstub_amdsmi_noenergy.so", b ? b : ".");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(readings_by_pci_bus_id),
        cmocka_unit_test(every_power_layout_and_no_edge_sensor),
        cmocka_unit_test(link_and_its_maximum),
        cmocka_unit_test(secondary_gcd_and_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
