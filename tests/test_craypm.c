/* The pm_counters reader against a fixture directory shaped like the real
 * /sys/cray/pm_counters (values from an HPE EX node), including a torn read
 * and a counter reset. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "craypm.h"
#include "power.h"

static char root[256];

static void put(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/mcfleet-pmc-XXXXXX");
    if (!mkdtemp(root)) return -1;
    put("freshness", "1432\n");
    put("generation", "7\n");
    put("startup", "1700000000\n");
    put("raw_scan_hz", "10\n");
    put("power", "724 W 7810213855886 us\n");
    put("energy", "5374287 J 7810213855886 us\n");
    put("cpu_power", "181 W 7810213855886 us\n");
    put("cpu_energy", "1320405 J 7810213855886 us\n");
    put("memory_power", "41 W 7810213855886 us\n");
    put("memory_energy", "300112 J 7810213855886 us\n");
    for (int a = 0; a < 4; a++) {
        char n[32], v[64];
        snprintf(n, sizeof n, "accel%d_power", a);
        snprintf(v, sizeof v, "%d W 7810213855886 us\n", 120 + a);
        put(n, v);
        snprintf(n, sizeof n, "accel%d_energy", a);
        snprintf(v, sizeof v, "%d J 7810213855886 us\n", 900000 + a);
        put(n, v);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    return system(cmd);
}

static void reads_a_node(void **state)
{
    (void)state;
    struct mcf_craypm_snapshot s;
    struct mcf_err e = { 0 };
    assert_int_equal(mcf_craypm_read(root, &s, NULL, NULL, &e), MCF_OK);
    assert_int_equal(s.retries, 0);
    assert_true(s.power.present);
    assert_float_equal(s.power.value, 724, 0);
    assert_float_equal(s.power.t_us, 7810213855886.0, 0);
    assert_float_equal(s.energy.value, 5374287, 0);
    assert_float_equal(s.memory_power.value, 41, 0);
    assert_int_equal(s.naccel, 4);
    assert_float_equal(s.accel_power[3].value, 123, 0);
    assert_float_equal(s.accel_energy[2].value, 900002, 0);
    assert_int_equal(s.generation, 7);
    assert_float_equal(s.raw_scan_hz, 10, 0);
}

/* The counters update between the first freshness read and the values. */
static void tear(void *ctx)
{
    (void)ctx;
    put("power", "731 W 7810213955886 us\n");
    put("freshness", "1433\n");
}

static void torn_read_is_retried(void **state)
{
    (void)state;
    struct mcf_craypm_snapshot s;
    struct mcf_err e = { 0 };
    assert_int_equal(mcf_craypm_read(root, &s, tear, NULL, &e), MCF_OK);
    assert_int_equal(s.retries, 1);
    assert_int_equal(s.freshness, 1433);
    assert_float_equal(s.power.value, 731, 0);       /* the consistent, later values */
}

/* A read inside an update that freshness cannot see (the files written, not
 * yet freshness): the power from one update, the energy from the next. The
 * reading is timed by its energy's own stamp, since the windows' energies are
 * interpolated between the counter's update times; timed by the power's stamp
 * the new energy would sit one update (here 100 ms) early. */
static void energy_keeps_its_own_stamp(void **state)
{
    (void)state;
    struct mcf_power_env env = { .pci_bus_id = "0000:c1:00.0", .local_rank = 0, .node_leader = 1, .accel_index = 1 };
    struct mcf_preading r;
    struct mcf_err e = { 0 };
    void *src = NULL, *node = NULL;
    setenv("MCFLEET_CRAYPM_ROOT", root, 1);
    assert_int_equal(mcf_power_craypm.open(&src, &env, &e), MCF_OK);
    assert_int_equal(mcf_power_craypm_node.open(&node, &env, &e), MCF_OK);
    put("accel1_energy", "900051 J 7810213955886 us\n");   /* the next update's energy, its power not yet */
    put("energy", "5374359 J 7810213955886 us\n");
    assert_int_equal(mcf_power_craypm.read(src, &r, &e), MCF_OK);
    assert_float_equal(r.s.energy_j, 900051, 0);
    assert_true(fabs(r.src_t - 7810213.955886) < 1e-6);   /* not assert_float_equal: a float cannot tell */
    assert_float_equal(r.s.power_w, 121, 0);
    assert_int_equal(mcf_power_craypm_node.read(node, &r, &e), MCF_OK);
    assert_float_equal(r.s.energy_j, 5374359, 0);
    assert_true(fabs(r.src_t - 7810213.955886) < 1e-6);   /* not assert_float_equal: a float cannot tell */
    put("accel1_energy", "900001 J 7810213855886 us\n");   /* back to one update */
    put("energy", "5374287 J 7810213855886 us\n");
    assert_int_equal(mcf_power_craypm.read(src, &r, &e), MCF_OK);
    assert_true(fabs(r.src_t - 7810213.855886) < 1e-6);
    mcf_power_craypm.close(src);
    mcf_power_craypm_node.close(node);
    unsetenv("MCFLEET_CRAYPM_ROOT");
}

static void reset_breaks_comparability(void **state)
{
    (void)state;
    struct mcf_craypm_snapshot a, b;
    struct mcf_err e = { 0 };
    assert_int_equal(mcf_craypm_read(root, &a, NULL, NULL, &e), MCF_OK);
    assert_int_equal(mcf_craypm_read(root, &b, NULL, NULL, &e), MCF_OK);
    assert_true(mcf_craypm_comparable(&a, &b));
    put("generation", "8\n");
    assert_int_equal(mcf_craypm_read(root, &b, NULL, NULL, &e), MCF_OK);
    assert_false(mcf_craypm_comparable(&a, &b));
}

static void bad_files_and_missing_root(void **state)
{
    (void)state;
    struct mcf_craypm_snapshot s;
    struct mcf_err e = { 0 };
    assert_int_equal(mcf_craypm_read("/nonexistent/pm_counters", &s, NULL, NULL, &e), MCF_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "no Cray pm_counters"));
    put("accel1_energy", "garbage\n");
    mcf_err_clear(&e);
    assert_int_equal(mcf_craypm_read(root, &s, NULL, NULL, &e), MCF_ERUNTIME);
    assert_non_null(strstr(e.msg, "accel1_energy"));
    put("accel1_energy", "900001 J 7810213855886 us\n");
}

/* A FIFO where a counter file should be (issue 27): read without blocking
 * and refused, in no time. alarm: a reader that waits in open() is killed,
 * and the test fails instead of hanging. */
static void fifos_never_block(void **state)
{
    (void)state;
    static const char *const names[] = { "freshness", "accel1_energy" };
    char path[512];
    struct mcf_craypm_snapshot s;
    struct mcf_err e = { 0 };
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", root, names[i]);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(mkfifo(path, 0644), 0);
    }
    alarm(5);
    assert_int_equal(mcf_craypm_read(root, &s, NULL, NULL, &e), MCF_ERUNTIME);
    alarm(0);
    assert_non_null(strstr(e.msg, "accel1_energy: not a readable regular file"));
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", root, names[i]);
        assert_int_equal(unlink(path), 0);
    }
    put("freshness", "1432\n");
    put("accel1_energy", "900001 J 7810213855886 us\n");
    mcf_err_clear(&e);
    assert_int_equal(mcf_craypm_read(root, &s, NULL, NULL, &e), MCF_OK);
}

static void accelerators_map_by_sorted_bus_id(void **state)
{
    (void)state;
    const char *buses[] = { "0000:D1:00.0", "0000:C1:00.0", "0000:D6:00.0", "0000:C6:00.0" };
    assert_int_equal(mcf_craypm_accel_index("0000:C1:00.0", buses, 4), 0);
    assert_int_equal(mcf_craypm_accel_index("0000:C6:00.0", buses, 4), 1);
    assert_int_equal(mcf_craypm_accel_index("0000:D1:00.0", buses, 4), 2);
    assert_int_equal(mcf_craypm_accel_index("0000:D6:00.0", buses, 4), 3);
    assert_int_equal(mcf_craypm_accel_index("0000:01:00.0", buses, 4), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_a_node),
        cmocka_unit_test(torn_read_is_retried),
        cmocka_unit_test(energy_keeps_its_own_stamp),
        cmocka_unit_test(reset_breaks_comparability),
        cmocka_unit_test(bad_files_and_missing_root),
        cmocka_unit_test(fifos_never_block),
        cmocka_unit_test(accelerators_map_by_sorted_bus_id),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
