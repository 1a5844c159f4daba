#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "deck.h"

#define HEAD "tests:\n  - name: x\n    kernel: matrix\n    dtype: fp64\n    shape: [8, 8, 4]\n"

struct bad { const char *text, *message; };

/* Each class of error, with the exact position and wording a user sees. */
static const struct bad bad_decks[] = {
    { "tests:\n  - name: fp64-peak\n    kernel: matrix\n    dtype: fp64\n    shape: [8, 8, 4]\n    iters: 10\n",
      "deck.yaml:6:5: unknown key 'iters' in test 'fp64-peak'" },
    { HEAD "    repetitions: ten\n",
      "deck.yaml:6:18: 'repetitions' in test 'x' must be an integer, got 'ten'" },
    { HEAD "    repetitions: 0\n",
      "deck.yaml:6:18: 'repetitions' in test 'x' must be between 1 and 1000000, got 0" },
    { "tests:\n  - name: x\n    kernel: matrix\n    dtype: fp128\n    shape: [8, 8, 4]\n",
      "deck.yaml:4:12: 'dtype' in test 'x' must be one of fp64, fp32, tf32, fp16, fp16-acc16, bf16, "
      "fp8-e4m3, fp8-e5m2, int8, fp16x2, fp32x2, got 'fp128'" },
    { "tests:\n  - name: x\n    dtype: fp64\n",
      "deck.yaml:2:5: test 'x' has no 'kernel' (one of matrix, valu, memory, latency, streams)" },
    { "tests:\n  - kernel: valu\n    dtype: fp64\n",
      "deck.yaml:2:5: test 1 has no 'name'" },
    { HEAD "  - name: x\n    kernel: valu\n    dtype: fp32\n",
      "deck.yaml:6:5: test name 'x' is used twice (first at line 2)" },
    { "tests: [\n  - name: x\n",
      "deck.yaml:2:3: YAML syntax error" },
    { HEAD "    working_set: 4KiB\n",
      "deck.yaml:6:5: key 'working_set' does not apply to kernel 'matrix' in test 'x'" },
    { HEAD "    occupancy: [1, 2]\n    iterations: [10, 20]\n",
      "deck.yaml:7:17: test 'x' sweeps both 'occupancy' and 'iterations': one list-valued key per test" },
    { "tests:\n  - name: c\n    kernel: latency\n    working_set: 4 parsecs\n",
      "deck.yaml:4:18: 'working_set' in test 'c' must be a size such as 4096, 64KiB or 2GiB, got '4 parsecs'" },
    { "test:\n  - name: x\n",
      "deck.yaml:1:1: unknown top-level key 'test' (name, description, defaults, power, allow_shared_devices, tests)" },
    { "",
      "deck.yaml:1:1: the deck is empty" },
    { "tests:\n  - name: x\n    kernel: matrix\n    dtype: fp64\n    shape: [8, 8]\n",
      "deck.yaml:5:12: 'shape' in test 'x' must be a list of three integers [m, n, k]" },
    { "tests:\n  - name: x\n    kernel: memory\n    op: triad\n    intensity: 4\n",
      "deck.yaml:2:5: test 'x': 'intensity' needs 'op: fma'" },
    { HEAD "    occupancy: [1, 2, 1]\n",
      "deck.yaml:6:23: 'occupancy' in test 'x' lists 1 twice" },
    { "power:\n  period_ms: 5000\ntests:\n  - name: x\n    kernel: valu\n    dtype: fp64\n",
      "deck.yaml:2:14: 'period_ms' in 'power' must be an integer between 1 and 1000" },
    { "power:\n  series: maybe\ntests:\n  - name: x\n    kernel: valu\n    dtype: fp64\n",
      "deck.yaml:2:11: 'series' in 'power' must be true or false, got 'maybe'" },
    { "tests:\n  - name: bad/name\n    kernel: valu\n    dtype: fp64\n",
      "deck.yaml:2:11: test name must be" },
    { HEAD "    dtype_b: fp8-e5m2\n",
      "deck.yaml:2:5: test 'x': 'dtype_b' pairs FP8 formats: 'dtype' and 'dtype_b' must each be fp8-e4m3 or fp8-e5m2" },
};

static void every_error_class_names_file_line_column(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_decks / sizeof bad_decks[0]; i++) {
        struct mcf_deck d;
        struct mcf_err e = { 0 };
        int rc = mcf_deck_parse("deck.yaml", bad_decks[i].text, &d, &e);
        if (rc != MCF_EINPUT || strncmp(e.msg, bad_decks[i].message, strlen(bad_decks[i].message)) != 0)
            fail_msg("case %zu: rc %d\n  got:  %s\n  want: %s", i, rc, e.msg, bad_decks[i].message);
    }
}

static void default_deck_parses(void **state)
{
    (void)state;
    struct mcf_deck d;
    struct mcf_err e = { 0 };
    assert_int_equal(mcf_deck_parse("default.yaml", mcf_default_deck, &d, &e), MCF_OK);
    assert_true(d.ntests >= 15);
    assert_string_equal(d.tests[0].name, "matrix-fp64");
    assert_int_equal(d.tests[0].kernel.family, MCF_FAMILY_MATRIX);
    assert_int_equal(d.tests[0].kernel.shape[2], 4);
    assert_int_equal(d.tests[0].repetitions, 10);
    assert_non_null(strstr(d.text, "name: default"));
    mcf_deck_free(&d);
}

static void sizes(void **state)
{
    (void)state;
    uint64_t v;
    assert_int_equal(mcf_parse_size("64MiB", &v), 0); assert_true(v == 64ull << 20);
    assert_int_equal(mcf_parse_size("4 KiB", &v), 0); assert_true(v == 4096);
    assert_int_equal(mcf_parse_size("1GB", &v), 0); assert_true(v == 1000000000ull);
    assert_int_equal(mcf_parse_size("1.5KiB", &v), 0); assert_true(v == 1536);
    assert_int_equal(mcf_parse_size("4096", &v), 0); assert_true(v == 4096);
    assert_int_equal(mcf_parse_size("1.5", &v), -1);     /* fractional bytes */
    assert_int_equal(mcf_parse_size("-1", &v), -1);
    assert_int_equal(mcf_parse_size("12 furlongs", &v), -1);
    assert_int_equal(mcf_parse_size("", &v), -1);
}

static void sweeps_expand_and_auto_sizes_resolve(void **state)
{
    (void)state;
    const char *text =
        "defaults:\n  repetitions: 7\n  warmup: 1\n"
        "tests:\n"
        "  - name: chase\n    kernel: latency\n    working_set: [4KiB, 1MiB]\n"
        "  - name: triad\n    kernel: memory\n    op: triad\n"
        "  - name: l2\n    kernel: memory\n    level: l2\n    op: read\n    repetitions: 3\n";
    struct mcf_deck d;
    struct mcf_err e = { 0 };
    struct mcf_instance *in;
    int n;
    struct mcf_device_info dev = { .cache_bytes = 50ull << 20, .l1_bytes = 256 << 10, .memory_bytes = 80ull << 30 };
    assert_int_equal(mcf_deck_parse("d.yaml", text, &d, &e), MCF_OK);
    assert_int_equal(mcf_deck_expand(&d, &dev, &in, &n, &e), MCF_OK);
    assert_int_equal(n, 4);
    assert_string_equal(in[0].name, "chase:working_set=4096");
    assert_string_equal(in[1].name, "chase:working_set=1048576");
    assert_true(in[1].kernel.working_set == 1048576);
    assert_int_equal(in[1].repetitions, 7);
    assert_int_equal(in[1].warmup, 1);
    assert_true(in[2].kernel.bytes == 200ull << 20);      /* hbm: 4 x the last-level cache */
    assert_true(in[3].kernel.bytes == 50ull << 18);       /* l2: a quarter of it */
    assert_int_equal(in[3].repetitions, 3);
    free(in);
    mcf_deck_free(&d);
}

static void quick_caps_and_drops_duplicate_points(void **state)
{
    (void)state;
    const char *text =
        "tests:\n  - name: chase\n    kernel: latency\n    working_set: [4KiB, 256MiB, 1GiB]\n"
        "  - name: triad\n    kernel: memory\n    op: triad\n    repetitions: 50\n";
    struct mcf_deck d;
    struct mcf_err e = { 0 };
    struct mcf_instance *in;
    int n;
    struct mcf_device_info dev = { .cache_bytes = 50ull << 20 };
    assert_int_equal(mcf_deck_parse("d.yaml", text, &d, &e), MCF_OK);
    mcf_deck_quick(&d);
    assert_int_equal(mcf_deck_expand(&d, &dev, &in, &n, &e), MCF_OK);
    assert_int_equal(n, 3);        /* 256MiB and 1GiB both cap to 16MiB: one point */
    assert_true(in[1].kernel.working_set == 16ull << 20);
    assert_true(in[2].kernel.bytes <= 16ull << 20);     /* auto sizes are capped too */
    assert_int_equal(in[2].repetitions, 3);
    free(in);
    mcf_deck_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_error_class_names_file_line_column),
        cmocka_unit_test(default_deck_parses),
        cmocka_unit_test(sizes),
        cmocka_unit_test(sweeps_expand_and_auto_sizes_resolve),
        cmocka_unit_test(quick_caps_and_drops_duplicate_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
