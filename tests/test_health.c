/* Health counters against the stub NVML and rocm-smi libraries with
 * scripted values: every counter read, a missing entry point or a vendor
 * error disabling only its counter with the reason, the PCIe link at idle
 * against the link at work, the per-test evidence from the sampler. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "health.h"
#include "power_run.h"
#include "vendor_rsmi.h"

static char nvml[512], nvml_old[512], rsmi[512], amdsmi[512];
#define NV_BUS "0000:00:06.0"
#define AMD_BUS "0000:c1:00.0"

static void use(const char *nvml_lib, const char *nvml_mode, const char *rsmi_lib, const char *rsmi_mode)
{
    setenv("MCFLEET_NVML_LIB", nvml_lib, 1);
    setenv("STUB_NVML", nvml_mode, 1);
    setenv("MCFLEET_RSMI_LIB", rsmi_lib, 1);
    setenv("STUB_RSMI", rsmi_mode, 1);
    setenv("MCFLEET_AMDSMI_LIB", "/nonexistent/libamd_smi.so", 1);   /* amdsmi_every_counter sets its stub */
    unsetenv("STUB_NVML_GEN");
    unsetenv("STUB_RSMI_GEN");
}

/* Reads one snapshot through source src on bus. */
static void snap(const struct mcf_health_source *src, const char *bus, struct mcf_health_snap *s)
{
    void *st = NULL;
    struct mcf_err e = { 0 };
    assert_int_equal(src->open(&st, bus, &e), MCF_OK);
    src->read(st, s);
    src->close(st);
}

static void expect(const struct mcf_health_snap *s, int c, long long v)
{
    if (s->v[c] != v)
        fail_msg("%s: %lld, expected %lld (%s)", mcf_health_names[c], s->v[c], v, s->why[c]);
}

static void expect_none(const struct mcf_health_snap *s, int c, const char *why)
{
    if (s->v[c] != -1 || !strstr(s->why[c], why))
        fail_msg("%s: %lld '%s', expected -1 for '%s'", mcf_health_names[c], s->v[c], s->why[c], why);
}

static void nvml_every_counter(void **state)
{
    (void)state;
    struct mcf_health_snap s;
    use(nvml, "ok", "/nonexistent/librocm_smi64.so", "ok");
    snap(&mcf_health_nvml, NV_BUS, &s);
    expect(&s, MCF_HC_ECC_CORR_VOL, 3);
    expect(&s, MCF_HC_ECC_UNC_VOL, 0);
    expect(&s, MCF_HC_ECC_CORR_AGG, 10);
    expect(&s, MCF_HC_ECC_UNC_AGG, 0);
    expect(&s, MCF_HC_REMAP_CORR, 1);
    expect(&s, MCF_HC_REMAP_UNC, 0);
    expect(&s, MCF_HC_REMAP_PENDING, 0);
    expect(&s, MCF_HC_REMAP_FAILED, 0);
    expect_none(&s, MCF_HC_RETIRED, "remaps rows");          /* Ampere on: rows, not pages */
    expect_none(&s, MCF_HC_RETIRED_PENDING, "remaps rows");
    expect(&s, MCF_HC_PCIE_GEN, 5);
    expect(&s, MCF_HC_PCIE_GEN_MAX, 5);
    expect(&s, MCF_HC_PCIE_WIDTH, 16);
    expect(&s, MCF_HC_PCIE_WIDTH_MAX, 16);

    use(nvml, "ecc-uncorrected,remap-pending,remap-failed", "", "");
    snap(&mcf_health_nvml, NV_BUS, &s);
    expect(&s, MCF_HC_ECC_UNC_VOL, 2);
    expect(&s, MCF_HC_ECC_UNC_AGG, 5);
    expect(&s, MCF_HC_REMAP_PENDING, 1);
    expect(&s, MCF_HC_REMAP_FAILED, 1);

    /* a GPU that does not remap rows: its retired pages, both causes */
    use(nvml, "no-remap,retire-pending", "", "");
    snap(&mcf_health_nvml, NV_BUS, &s);
    expect_none(&s, MCF_HC_REMAP_CORR, "nvmlDeviceGetRemappedRows: Not Supported (stub)");
    expect_none(&s, MCF_HC_REMAP_PENDING, "nvmlDeviceGetRemappedRows: Not Supported (stub)");
    expect(&s, MCF_HC_RETIRED, 3);
    expect(&s, MCF_HC_RETIRED_PENDING, 1);
}

static void a_vendor_error_or_missing_symbol_disables_only_its_counter(void **state)
{
    (void)state;
    struct mcf_health_snap s;
    char notes[1024];
    use(nvml, "ecc-off", "", "");
    snap(&mcf_health_nvml, NV_BUS, &s);
    expect_none(&s, MCF_HC_ECC_CORR_VOL, "nvmlDeviceGetTotalEccErrors: Not Supported (stub)");
    expect_none(&s, MCF_HC_ECC_UNC_AGG, "nvmlDeviceGetTotalEccErrors: Not Supported (stub)");
    expect(&s, MCF_HC_REMAP_CORR, 1);
    expect(&s, MCF_HC_PCIE_WIDTH, 16);

    /* an older driver: no ECC totals, no row remapping entry point */
    use(nvml_old, "ok", "", "");
    snap(&mcf_health_nvml, NV_BUS, &s);
    expect_none(&s, MCF_HC_ECC_CORR_VOL, "NVML lacks nvmlDeviceGetTotalEccErrors");
    expect_none(&s, MCF_HC_ECC_UNC_VOL, "NVML lacks nvmlDeviceGetTotalEccErrors");
    expect_none(&s, MCF_HC_REMAP_UNC, "NVML lacks nvmlDeviceGetRemappedRows");
    expect_none(&s, MCF_HC_REMAP_FAILED, "NVML lacks nvmlDeviceGetRemappedRows");
    expect(&s, MCF_HC_RETIRED, 3);   /* the rest still read */
    expect(&s, MCF_HC_RETIRED_PENDING, 0);
    expect(&s, MCF_HC_PCIE_GEN, 5);
    expect(&s, MCF_HC_PCIE_WIDTH_MAX, 16);
    /* the reasons as one line, the counters that share one named together */
    mcf_health_notes(&s, notes, sizeof notes);
    assert_non_null(strstr(notes, "ecc_corrected_volatile,ecc_uncorrected_volatile,ecc_corrected_aggregate,"
                                  "ecc_uncorrected_aggregate: NVML lacks nvmlDeviceGetTotalEccErrors"));
    assert_non_null(strstr(notes, "remapped_rows_corrected,remapped_rows_uncorrected,remap_pending,remap_failed: "
                                  "NVML lacks nvmlDeviceGetRemappedRows"));
    assert_null(strstr(notes, "retired_pages"));
}

/* A run's begin and end on a fake sampler: the link read at idle and at work. */
struct fake_run {
    struct mcf_sampler s;
    struct mcf_series series[1];   /* the sampler's one series (it points here) */
    struct mcf_preading r[6];
    struct mcf_instance inst;
    struct mcf_result res;
    double start[2], end[2];
};

/* Readings at t = 0..5 s, the test's repetitions over [2, 4] s: idle before
 * and after at gen `idle`, during the test at gen `busy` and width `width`. */
static void fake_run(struct fake_run *f, int idle, int busy, int width)
{
    memset(f, 0, sizeof *f);
    for (int i = 0; i < 6; i++) {
        mcf_preading_blank(&f->r[i]);
        f->r[i].s.t = i;
        int in = i >= 2 && i <= 4;
        f->r[i].pcie_gen = in ? busy : idle;
        f->r[i].pcie_width = in ? width : 16;
    }
    f->s.series = f->series;
    f->s.nseries = 1;
    f->s.series[0].on = 1;
    f->s.series[0].r = f->r;
    f->s.series[0].n = 6;
    f->inst.repetitions = 2;
    f->start[0] = 2.0; f->end[0] = 3.0;
    f->start[1] = 3.0; f->end[1] = 4.0;
    f->res.inst = &f->inst;
    f->res.rep_start = f->start;
    f->res.rep_end = f->end;
}

static void an_idle_link_below_its_maximum_is_not_a_downtrain(void **state)
{
    (void)state;
    struct mcf_health h;
    struct fake_run f;
    use(nvml, "ok", "", "");
    setenv("STUB_NVML_GEN", "1", 1);   /* idle: the GPU saves power on its link */
    mcf_health_begin(&h, NV_BUS, "");
    assert_string_equal(h.source, "nvml");
    assert_string_equal(h.serial, "1654922001234");
    expect(&h.before, MCF_HC_PCIE_GEN, 1);
    expect(&h.before, MCF_HC_PCIE_GEN_MAX, 5);
    /* at work the link ran at its maximum: gen 1 before and after is idle, not a fault */
    fake_run(&f, 1, 5, 16);
    mcf_health_busy(&h, &f.s, &f.res, 1);
    assert_int_equal(h.gen_busy, 5);
    assert_int_equal(h.width_busy, 16);
    mcf_health_end(&h, 5.0);
    expect(&h.after, MCF_HC_PCIE_GEN, 1);
    assert_false(h.abandoned);
    /* a link that stayed at gen 3 at work is what the busy reading shows */
    fake_run(&f, 1, 3, 16);
    mcf_health_busy(&h, &f.s, &f.res, 1);
    assert_int_equal(h.gen_busy, 3);
    /* readings outside the tests' windows never count */
    fake_run(&f, 5, 2, 16);
    mcf_health_busy(&h, &f.s, &f.res, 1);
    assert_int_equal(h.gen_busy, 2);
    /* no test window: unknown */
    f.end[0] = f.end[1] = NAN;
    mcf_health_busy(&h, &f.s, &f.res, 1);
    assert_int_equal(h.gen_busy, -1);
    assert_int_equal(h.width_busy, -1);
}

static void a_width_below_its_maximum_is_recorded(void **state)
{
    (void)state;
    struct mcf_health h;
    struct fake_run f;
    use(nvml, "link-x8", "", "");
    mcf_health_begin(&h, NV_BUS, "");
    expect(&h.before, MCF_HC_PCIE_WIDTH, 8);
    expect(&h.before, MCF_HC_PCIE_WIDTH_MAX, 16);
    fake_run(&f, 5, 5, 8);
    mcf_health_busy(&h, &f.s, &f.res, 1);
    assert_int_equal(h.width_busy, 8);
    mcf_health_end(&h, 5.0);
    expect(&h.after, MCF_HC_PCIE_WIDTH, 8);
    /* rocm-smi: the lanes of the current rate against the most of the list */
    use("/nonexistent/libnvidia-ml.so.1", "", rsmi, "link-x8");
    setenv("STUB_RSMI_GEN", "2", 1);
    mcf_health_begin(&h, AMD_BUS, "");
    assert_string_equal(h.source, "rsmi");
    expect(&h.before, MCF_HC_PCIE_GEN, 2);
    expect(&h.before, MCF_HC_PCIE_GEN_MAX, 5);
    expect(&h.before, MCF_HC_PCIE_WIDTH, 8);
    expect(&h.before, MCF_HC_PCIE_WIDTH_MAX, 8);   /* every rate of this stub's list has 8 lanes */
    mcf_health_end(&h, 5.0);
}

static void the_power_source_reads_the_link_every_few_readings(void **state)
{
    (void)state;
    void *st;
    struct mcf_err e = { 0 };
    struct mcf_power_env env = { NV_BUS, 0, 1, -1 };
    struct mcf_preading r;
    use(nvml, "link-x8", "", "");
    setenv("STUB_NVML_GEN", "4", 1);
    assert_int_equal(mcf_power_nvml.open(&st, &env, &e), MCF_OK);
    for (int i = 0; i < 2 * MCF_LINK_EVERY; i++) {
        assert_int_equal(mcf_power_nvml.read(st, &r, &e), MCF_OK);
        assert_int_equal(r.pcie_gen, i % MCF_LINK_EVERY == 0 ? 4 : -1);
        assert_int_equal(r.pcie_width, i % MCF_LINK_EVERY == 0 ? 8 : -1);
        assert_true(r.throttle_read);
    }
    mcf_power_nvml.close(st);
}

static void rsmi_every_counter(void **state)
{
    (void)state;
    struct mcf_health_snap s;
    struct mcf_health h;
    use("/nonexistent/libnvidia-ml.so.1", "", rsmi, "ok");
    snap(&mcf_health_rsmi, AMD_BUS, &s);
    expect(&s, MCF_HC_ECC_CORR_VOL, 5);   /* UMC 4 + GFX 1, the enabled blocks */
    expect(&s, MCF_HC_ECC_UNC_VOL, 0);
    expect_none(&s, MCF_HC_ECC_CORR_AGG, "since the driver loaded");
    expect_none(&s, MCF_HC_REMAP_CORR, "retire pages, not rows");
    expect_none(&s, MCF_HC_REMAP_PENDING, "retire pages, not rows");
    expect(&s, MCF_HC_REMAP_FAILED, 0);
    expect(&s, MCF_HC_RETIRED, 2);
    expect(&s, MCF_HC_RETIRED_PENDING, 1);
    expect(&s, MCF_HC_PCIE_GEN, 5);
    expect(&s, MCF_HC_PCIE_GEN_MAX, 5);
    expect(&s, MCF_HC_PCIE_WIDTH, 16);
    expect(&s, MCF_HC_PCIE_WIDTH_MAX, 16);
    use("", "", rsmi, "ecc-uncorrected,page-unreservable");
    snap(&mcf_health_rsmi, AMD_BUS, &s);
    expect(&s, MCF_HC_ECC_UNC_VOL, 1);
    expect(&s, MCF_HC_REMAP_FAILED, 1);   /* a page that could not be retired */
    /* every health call failing: -1 with rocm-smi's words, the serial from sysfs */
    use("/nonexistent/libnvidia-ml.so.1", "", rsmi, "no-health");
    mcf_health_begin(&h, AMD_BUS, "sysfs-serial");
    assert_string_equal(h.source, "rsmi");
    assert_string_equal(h.serial, "sysfs-serial");
    expect_none(&h.before, MCF_HC_ECC_CORR_VOL, "rsmi_dev_ecc_enabled_get: RSMI_STATUS_NOT_SUPPORTED (stub)");
    expect_none(&h.before, MCF_HC_RETIRED, "rsmi_dev_memory_reserved_pages_get: RSMI_STATUS_NOT_SUPPORTED");
    expect_none(&h.before, MCF_HC_PCIE_GEN, "rsmi_dev_pci_bandwidth_get failed");
    assert_non_null(strstr(h.notes, "ecc_corrected_volatile,ecc_uncorrected_volatile: rsmi_dev_ecc_enabled_get"));
    mcf_health_end(&h, 5.0);
    use("", "", rsmi, "ok");
    mcf_health_begin(&h, AMD_BUS, "sysfs-serial");
    assert_string_equal(h.serial, "PCB-0042");   /* rocm-smi's own serial first */
    mcf_health_end(&h, 5.0);
    assert_int_equal(mcf_pcie_gen_of_rate(2500000000ull), 1);
    assert_int_equal(mcf_pcie_gen_of_rate(16000000000ull), 4);
    assert_int_equal(mcf_pcie_gen_of_rate(64000000000ull), 6);
    assert_int_equal(mcf_pcie_gen_of_rate(0), -1);
}

static void amdsmi_every_counter(void **state)
{
    (void)state;
    struct mcf_health_snap s;
    struct mcf_health h;
    use("/nonexistent/libnvidia-ml.so.1", "", "/nonexistent/librocm_smi64.so", "");
    setenv("MCFLEET_AMDSMI_LIB", amdsmi, 1);
    setenv("STUB_AMDSMI", "ok", 1);
    snap(&mcf_health_amdsmi, AMD_BUS, &s);
    expect(&s, MCF_HC_ECC_CORR_VOL, 5);   /* the library's total over the enabled blocks */
    expect(&s, MCF_HC_ECC_UNC_VOL, 0);
    expect_none(&s, MCF_HC_ECC_CORR_AGG, "since the driver loaded");
    expect_none(&s, MCF_HC_REMAP_CORR, "retire pages, not rows");
    expect(&s, MCF_HC_REMAP_FAILED, 0);
    expect(&s, MCF_HC_RETIRED, 2);
    expect(&s, MCF_HC_RETIRED_PENDING, 1);
    expect(&s, MCF_HC_PCIE_GEN, 4);       /* 16000 MT/s */
    expect(&s, MCF_HC_PCIE_GEN_MAX, 5);   /* 32000 MT/s */
    expect(&s, MCF_HC_PCIE_WIDTH, 16);
    expect(&s, MCF_HC_PCIE_WIDTH_MAX, 16);
    setenv("STUB_AMDSMI", "ecc-uncorrected,page-unreservable", 1);
    snap(&mcf_health_amdsmi, AMD_BUS, &s);
    expect(&s, MCF_HC_ECC_UNC_VOL, 1);
    expect(&s, MCF_HC_REMAP_FAILED, 1);   /* a page that could not be retired */
    setenv("STUB_AMDSMI", "layout-6.0", 1);
    snap(&mcf_health_amdsmi, AMD_BUS, &s);
    expect_none(&s, MCF_HC_PCIE_GEN, "before ROCm 6.1 is not read");
    expect(&s, MCF_HC_ECC_CORR_VOL, 5);
    /* tried after rocm-smi; every health call failing: -1 with amd-smi's words, the serial from sysfs */
    setenv("STUB_AMDSMI", "no-health", 1);
    mcf_health_begin(&h, AMD_BUS, "sysfs-serial");
    assert_string_equal(h.source, "amdsmi");
    assert_string_equal(h.serial, "sysfs-serial");
    expect_none(&h.before, MCF_HC_ECC_CORR_VOL, "amdsmi_get_gpu_total_ecc_count: AMDSMI_STATUS_NOT_SUPPORTED (stub)");
    expect_none(&h.before, MCF_HC_RETIRED, "amdsmi_get_gpu_memory_reserved_pages: AMDSMI_STATUS_NOT_SUPPORTED");
    expect_none(&h.before, MCF_HC_PCIE_GEN, "amdsmi_get_pcie_info failed");
    mcf_health_end(&h, 5.0);
    /* rocm-smi, where it works, comes first */
    use("/nonexistent/libnvidia-ml.so.1", "", rsmi, "ok");
    setenv("MCFLEET_AMDSMI_LIB", amdsmi, 1);
    mcf_health_begin(&h, AMD_BUS, "");
    assert_string_equal(h.source, "rsmi");
    mcf_health_end(&h, 5.0);
    setenv("MCFLEET_AMDSMI_LIB", "/nonexistent/libamd_smi.so", 1);
}

/* NVLink through NVML: the links the GPU has (the count field, or link by
 * link where the field is missing), how many are up, and the error counters
 * summed over the links, growing between the before and after readings. */
static void nvml_nvlink_links_and_errors(void **state)
{
    (void)state;
    struct mcf_health h;
    struct mcf_health_snap s;
    use(nvml, "nvlink-errors,nvlink-recovery", "/nonexistent/librocm_smi64.so", "ok");
    setenv("STUB_NVML_NVLINKS", "18", 1);
    setenv("STUB_NVML_NVLINK_DOWN", "1", 1);
    mcf_health_begin(&h, NV_BUS, "");
    assert_string_equal(h.source, "nvml");
    mcf_health_end(&h, 5.0);
    for (int after = 0; after < 2; after++) {
        const struct mcf_health_snap *x = after ? &h.after : &h.before;
        expect(x, MCF_HC_NVLINK_LINKS, 18);
        expect(x, MCF_HC_NVLINK_ACTIVE, 17);
        /* every link counts 3 replays, 0 recoveries, 2 flit and 1 data CRC
         * errors; link 0 adds 40, 1, 25 and 5 at the second reading */
        expect(x, MCF_HC_NVLINK_REPLAY, 18 * 3 + 40 * after);
        expect(x, MCF_HC_NVLINK_RECOVERY, after);
        expect(x, MCF_HC_NVLINK_CRC_FLIT, 18 * 2 + 25 * after);
        expect(x, MCF_HC_NVLINK_CRC_DATA, 18 * 1 + 5 * after);
        expect_none(x, MCF_HC_XGMI_ERROR, "not xGMI");
    }
    /* no count field: probed link by link until NVML says there is no such link */
    use(nvml, "nvlink-no-field", "", "");
    setenv("STUB_NVML_NVLINKS", "12", 1);
    setenv("STUB_NVML_NVLINK_DOWN", "0", 1);
    snap(&mcf_health_nvml, NV_BUS, &s);
    expect(&s, MCF_HC_NVLINK_LINKS, 12);
    expect(&s, MCF_HC_NVLINK_ACTIVE, 12);
    expect(&s, MCF_HC_NVLINK_REPLAY, 12 * 3);
    /* a GPU without NVLink: 0 links, 0 up, no counters, with either way of counting */
    setenv("STUB_NVML_NVLINKS", "0", 1);
    snap(&mcf_health_nvml, NV_BUS, &s);
    expect(&s, MCF_HC_NVLINK_LINKS, 0);
    expect(&s, MCF_HC_NVLINK_ACTIVE, 0);
    expect_none(&s, MCF_HC_NVLINK_RECOVERY, "the GPU has no NVLink");
    use(nvml, "ok", "", "");
    snap(&mcf_health_nvml, NV_BUS, &s);
    expect(&s, MCF_HC_NVLINK_LINKS, 0);
    expect(&s, MCF_HC_NVLINK_ACTIVE, 0);
    /* a driver without the NVLink calls: unknown, with the reason */
    use(nvml_old, "ok", "", "");
    setenv("STUB_NVML_NVLINKS", "18", 1);
    snap(&mcf_health_nvml, NV_BUS, &s);
    expect_none(&s, MCF_HC_NVLINK_ACTIVE, "NVML lacks nvmlDeviceGetNvLinkState");
    expect_none(&s, MCF_HC_NVLINK_CRC_DATA, "NVML lacks nvmlDeviceGetNvLinkErrorCounter");
    unsetenv("STUB_NVML_NVLINKS");
    unsetenv("STUB_NVML_NVLINK_DOWN");
}

/* xGMI: the error status through rocm-smi and amd-smi; no NVLink counters there. */
static void amd_xgmi_error_status(void **state)
{
    (void)state;
    struct mcf_health_snap s;
    use("/nonexistent/libnvidia-ml.so.1", "", rsmi, "ok");
    snap(&mcf_health_rsmi, AMD_BUS, &s);
    expect(&s, MCF_HC_XGMI_ERROR, 0);
    expect_none(&s, MCF_HC_NVLINK_ACTIVE, "AMD GPUs link by xGMI");
    setenv("STUB_RSMI", "xgmi-error", 1);
    snap(&mcf_health_rsmi, AMD_BUS, &s);
    expect(&s, MCF_HC_XGMI_ERROR, 1);
    setenv("STUB_RSMI", "no-health", 1);
    snap(&mcf_health_rsmi, AMD_BUS, &s);
    expect_none(&s, MCF_HC_XGMI_ERROR, "rsmi_dev_xgmi_error_status: RSMI_STATUS_NOT_SUPPORTED (stub)");
    setenv("MCFLEET_AMDSMI_LIB", amdsmi, 1);
    setenv("STUB_AMDSMI", "ok", 1);
    snap(&mcf_health_amdsmi, AMD_BUS, &s);
    expect(&s, MCF_HC_XGMI_ERROR, 0);
    expect_none(&s, MCF_HC_NVLINK_LINKS, "AMD GPUs link by xGMI");
    setenv("STUB_AMDSMI", "xgmi-errors", 1);
    snap(&mcf_health_amdsmi, AMD_BUS, &s);
    expect(&s, MCF_HC_XGMI_ERROR, 2);
    setenv("MCFLEET_AMDSMI_LIB", "/nonexistent/libamd_smi.so", 1);
}

static void no_library_or_no_gpu_leaves_every_counter_unknown_with_the_reason(void **state)
{
    (void)state;
    struct mcf_health h;
    use("/nonexistent/libnvidia-ml.so.1", "", "/nonexistent/librocm_smi64.so", "");
    mcf_health_begin(&h, NV_BUS, "");
    assert_null(h.src);
    assert_non_null(strstr(h.source, "off: NVML: cannot load /nonexistent/libnvidia-ml.so.1"));
    assert_non_null(strstr(h.source, "; rocm-smi: cannot load /nonexistent/librocm_smi64.so"));
    assert_non_null(strstr(h.source, "; amd-smi: cannot load /nonexistent/libamd_smi.so"));
    for (int c = 0; c < MCF_HC_COUNT; c++) {
        expect(&h.before, c, -1);
        expect(&h.after, c, -1);
    }
    mcf_health_end(&h, 5.0);
    assert_int_equal(h.gen_busy, -1);
    /* the host backend */
    mcf_health_begin(&h, "none", "");
    assert_string_equal(h.source, "off: this rank's device is not a PCI GPU (pci_bus_id 'none')");
    expect(&h.before, MCF_HC_ECC_UNC_AGG, -1);
    assert_string_equal(h.serial, "");
    mcf_health_end(&h, 5.0);
    /* a device NVML does not know, and no rocm-smi */
    use(nvml, "ok", "/nonexistent/librocm_smi64.so", "");
    mcf_health_begin(&h, "0000:00:07.0", "");
    assert_non_null(strstr(h.source, "off: NVML: no device at PCI 0000:00:07.0"));
    mcf_health_end(&h, 5.0);
}

static void evidence_over_a_test_window(void **state)
{
    (void)state;
    struct mcf_preading r[6];
    static const double mhz[6] = { 1980, 1400, 1500, 1980, 1200, 1980 };
    static const double temp[6] = { 40, 71, 75, 73, 90, 45 };
    static const uint64_t why[6] = { 0x1, 0x4, 0x0, 0x20, 0x40, 0x1 };
    for (int i = 0; i < 6; i++) {
        mcf_preading_blank(&r[i]);
        r[i].s.t = i;
        r[i].sm_mhz = mhz[i];
        r[i].temp_c = temp[i];
        r[i].throttle = why[i];
        r[i].throttle_read = 1;
    }
    /* the process count is read at t = 0 (1) and t = 3 (2) only */
    r[0].gpu_procs = 1;
    r[3].gpu_procs = 2;
    /* [1.5, 3.5]: the readings of t = 1 (held until 2), 2 and 3 */
    struct mcf_evidence ev = mcf_window_evidence(r, 6, 1.5, 3.5);
    assert_float_equal(ev.sm_mhz, 1500, 0);
    assert_float_equal(ev.temp_c_max, 75, 0);
    assert_float_equal(ev.throttle, (double)(0x4 | 0x20), 0);
    assert_float_equal(ev.gpu_procs_max, 2, 0);
    /* before the second count: the first one read still holds */
    ev = mcf_window_evidence(r, 6, 1.2, 2.5);
    assert_float_equal(ev.gpu_procs_max, 1, 0);
    /* a window between two readings: the one that held there */
    ev = mcf_window_evidence(r, 6, 4.2, 4.4);
    assert_float_equal(ev.sm_mhz, 1200, 0);
    assert_float_equal(ev.throttle, 0x40, 0);
    assert_float_equal(ev.gpu_procs_max, 2, 0);
    /* a source without throttle reasons (rocm-smi, pm_counters): unknown, not 0 */
    for (int i = 0; i < 6; i++)
        r[i].throttle_read = 0;
    r[0].gpu_procs = r[3].gpu_procs = -1;   /* and no process count (rocm-smi): unknown */
    ev = mcf_window_evidence(r, 6, 1.5, 3.5);
    assert_true(isnan(ev.throttle));
    assert_true(isnan(ev.gpu_procs_max));
    /* no readings, or no window */
    ev = mcf_window_evidence(r, 0, 1.5, 3.5);
    assert_true(isnan(ev.sm_mhz) && isnan(ev.temp_c_max) && isnan(ev.throttle) && isnan(ev.gpu_procs_max));
    ev = mcf_window_evidence(r, 6, NAN, 3.5);
    assert_true(isnan(ev.sm_mhz));
}

int main(void)
{
    const char *b = getenv("builddir");
    snprintf(nvml, sizeof nvml, "%s/tests/libstub_nvml.so", b ? b : ".");
    snprintf(nvml_old, sizeof nvml_old, "%s/tests/libstub_nvml_old.so", b ? b : ".");
    snprintf(rsmi, sizeof rsmi, "%s/tests/libstub_rsmi.so", b ? b : ".");
    snprintf(amdsmi, sizeof amdsmi, "%s/tests/libstub_amdsmi.so", b ? b : ".");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nvml_every_counter),
        cmocka_unit_test(a_vendor_error_or_missing_symbol_disables_only_its_counter),
        cmocka_unit_test(an_idle_link_below_its_maximum_is_not_a_downtrain),
        cmocka_unit_test(a_width_below_its_maximum_is_recorded),
        cmocka_unit_test(the_power_source_reads_the_link_every_few_readings),
        cmocka_unit_test(rsmi_every_counter),
        cmocka_unit_test(amdsmi_every_counter),
        cmocka_unit_test(nvml_nvlink_links_and_errors),
        cmocka_unit_test(amd_xgmi_error_status),
        cmocka_unit_test(no_library_or_no_gpu_leaves_every_counter_unknown_with_the_reason),
        cmocka_unit_test(evidence_over_a_test_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
