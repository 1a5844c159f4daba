#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "deck.h"
#include "numparse.h"
#include "power.h"

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
      "deck.yaml:2:5: test 'x' has no 'kernel' (one of matrix, valu, memory, latency, streams, gemm, ladder, transfer)" },
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
      "deck.yaml:1:1: unknown top-level key 'test' (name, description, acceptance, arch, defaults, power, allow_shared_devices, tests)" },
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
    { "power:\n  sources: [rsmi, amd-smi]\ntests:\n  - name: x\n    kernel: valu\n    dtype: fp64\n",
      "deck.yaml:2:19: unknown power source 'amd-smi' (nvml, rsmi, craypm, amdsmi)" },
    { "tests:\n  - name: bad/name\n    kernel: valu\n    dtype: fp64\n",
      "deck.yaml:2:11: test name must be" },
    { HEAD "    dtype_b: fp8-e5m2\n",
      "deck.yaml:2:5: test 'x': 'dtype_b' pairs FP8 formats: 'dtype' and 'dtype_b' must each be fp8-e4m3 or fp8-e5m2" },

    /* issue 9: names HDF5 cannot hold (H5Gcreate2 "/results/." failed after the whole run) */
    { "tests:\n  - name: .\n    kernel: valu\n    dtype: fp64\n",
      "deck.yaml:2:11: test name must be 1-63 characters of letters, digits, '-', '_' or '.', starting with a letter or digit" },
    { "tests:\n  - name: ..\n    kernel: valu\n    dtype: fp64\n", "deck.yaml:2:11: test name must be" },
    { "tests:\n  - name: .hidden\n    kernel: valu\n    dtype: fp64\n", "deck.yaml:2:11: test name must be" },
    { "tests:\n  - name: -x\n    kernel: valu\n    dtype: fp64\n", "deck.yaml:2:11: test name must be" },
    { "tests:\n  - name: \"\"\n    kernel: valu\n    dtype: fp64\n", "deck.yaml:2:11: test name must be" },
    { "tests:\n  - name: \" a\"\n    kernel: valu\n    dtype: fp64\n", "deck.yaml:2:11: test name must be" },
    { "tests:\n  - name: \"a \"\n    kernel: valu\n    dtype: fp64\n", "deck.yaml:2:11: test name must be" },
    { "tests:\n  - name: \"a\\x01b\"\n    kernel: valu\n    dtype: fp64\n", "deck.yaml:2:11: test name must be" },
    { "tests:\n  - name: a/b\n    kernel: valu\n    dtype: fp64\n", "deck.yaml:2:11: test name must be" },
    { "tests:\n  - name: 1234567890123456789012345678901234567890123456789012345678901234\n"
      "    kernel: valu\n    dtype: fp64\n", "deck.yaml:2:11: test name must be" },
    { "name: .\ntests:\n  - name: x\n    kernel: valu\n    dtype: fp64\n",
      "deck.yaml:1:7: deck 'name' must be 1-63 characters" },

    /* issue 9: numbers in one plain decimal form; sizes exact, without float conversion */
    { "tests:\n  - name: c\n    kernel: latency\n    working_set: 2e19\n",
      "deck.yaml:4:18: 'working_set' in test 'c' must be a size such as 4096, 64KiB or 2GiB, got '2e19' "
      "(no exponent is accepted: write the digits or use a unit)" },
    { "tests:\n  - name: c\n    kernel: latency\n    working_set: 18446744073709551616\n",
      "deck.yaml:4:18: 'working_set' in test 'c' must be a size such as 4096, 64KiB or 2GiB, got '18446744073709551616' "
      "(it is too large)" },
    { "tests:\n  - name: c\n    kernel: latency\n    working_set: 16777216TiB\n",
      "deck.yaml:4:18: 'working_set' in test 'c' must be a size such as 4096, 64KiB or 2GiB, got '16777216TiB' "
      "(it is too large)" },
    { "tests:\n  - name: c\n    kernel: latency\n    working_set: 18446744073709551615\n",
      "deck.yaml:4:18: 'working_set' in test 'c' must be between 256 and 1099511627776, got 18446744073709551615" },
    { "tests:\n  - name: c\n    kernel: latency\n    working_set: 0x1000\n",
      "deck.yaml:4:18: 'working_set' in test 'c' must be a size such as 4096, 64KiB or 2GiB, got '0x1000' "
      "(only decimal digits are accepted, no 0x/0o prefix)" },
    { "tests:\n  - name: c\n    kernel: latency\n    working_set: 1e4\n",
      "deck.yaml:4:18: 'working_set' in test 'c' must be a size such as 4096, 64KiB or 2GiB, got '1e4' (no exponent" },
    { "tests:\n  - name: c\n    kernel: latency\n    working_set: 04096\n",
      "deck.yaml:4:18: 'working_set' in test 'c' must be a size such as 4096, 64KiB or 2GiB, got '04096' "
      "(it has a leading zero (octal in YAML 1.1))" },
    { "tests:\n  - name: c\n    kernel: latency\n    working_set: +4096\n",
      "deck.yaml:4:18: 'working_set' in test 'c' must be a size such as 4096, 64KiB or 2GiB, got '+4096' (no sign is accepted)" },
    { "tests:\n  - name: c\n    kernel: latency\n    working_set: 4096.5\n",
      "deck.yaml:4:18: 'working_set' in test 'c' must be a size such as 4096, 64KiB or 2GiB, got '4096.5' "
      "(it is not a whole number of bytes)" },
    { HEAD "    repetitions: 0x1000\n",
      "deck.yaml:6:18: 'repetitions' in test 'x' must be an integer, got '0x1000' (only decimal digits are accepted, no 0x/0o/0b prefix)" },
    { HEAD "    repetitions: 1e4\n",
      "deck.yaml:6:18: 'repetitions' in test 'x' must be an integer, got '1e4' (write it out in digits, without a decimal point or exponent)" },
    { HEAD "    repetitions: 010\n",
      "deck.yaml:6:18: 'repetitions' in test 'x' must be an integer, got '010' (it has a leading zero (octal in YAML 1.1)" },
    { HEAD "    repetitions: +5\n",
      "deck.yaml:6:18: 'repetitions' in test 'x' must be an integer, got '+5' (no sign is accepted)" },
    { HEAD "    repetitions: -0\n",
      "deck.yaml:6:18: 'repetitions' in test 'x' must be an integer, got '-0' (no sign is accepted)" },
    { HEAD "    repetitions: 1_000\n",
      "deck.yaml:6:18: 'repetitions' in test 'x' must be an integer, got '1_000' (write it without '_' separators)" },
    { HEAD "    repetitions: \" 5\"\n",
      "deck.yaml:6:18: 'repetitions' in test 'x' must be an integer, got ' 5' (it has spaces around it)" },
    { HEAD "    seed: 9007199254740993\n",
      "deck.yaml:6:11: 'seed' in test 'x' must be between 0 and 9007199254740992, got 9007199254740993" },
    { HEAD "    seed: 99999999999999999999999\n",
      "deck.yaml:6:11: 'seed' in test 'x' must be between 0 and 9007199254740992, got 99999999999999999999999" },
    { "tests:\n  - name: x\n    kernel: matrix\n    dtype: fp64\n    shape: [8, 08, 4]\n",
      "deck.yaml:5:16: 'shape' in test 'x': each of m, n, k must be an integer between 1 and 1024" },
    { "power:\n  period_ms: +20\ntests:\n  - name: x\n    kernel: valu\n    dtype: fp64\n",
      "deck.yaml:2:14: 'period_ms' in 'power' must be an integer between 1 and 1000" },

    /* issue 9: a key given twice, a second 'tests:', a second document */
    { HEAD "    dtype: fp32\n",
      "deck.yaml:6:5: key 'dtype' is given twice in test 'x' (first at line 4)" },
    { HEAD "tests:\n  - name: y\n    kernel: valu\n    dtype: fp64\n",
      "deck.yaml:6:1: key 'tests' is given twice at the top level (first at line 1)" },
    { "power:\n  period_ms: 10\n  period_ms: 20\n" HEAD,
      "deck.yaml:3:3: key 'period_ms' is given twice in 'power' (first at line 2)" },
    { "defaults:\n  warmup: 1\n  repetitions: 3\n  warmup: 2\n" HEAD,
      "deck.yaml:4:3: key 'warmup' is given twice in 'defaults' (first at line 2)" },
    { "tests:\n  - {name: x, kernel: valu, dtype: fp64, iterations: 5, \"iterations\": 6}\n",
      "deck.yaml:2:57: key 'iterations' is given twice in test 'x' (first at line 2)" },
    { HEAD "---\n" HEAD,
      "deck.yaml:6:1: a second YAML document starts here: a deck is one document" },
    { HEAD "---\n",
      "deck.yaml:6:1: a second YAML document starts here" },
    { HEAD "---\ntests: [\n",
      "deck.yaml:8:1: YAML syntax error" },
    { HEAD "  - name: y\n    kernel: valu\n    dtype: fp64\n  - name: x\n    kernel: valu\n    dtype: fp32\n"
      "  - name: y\n    kernel: valu\n    dtype: fp32\n",
      "deck.yaml:9:5: test name 'x' is used twice (first at line 2)" },
};

static void every_error_class_names_file_line_column(void **state)
{
    (void)state;
    int wrong = 0;
    for (size_t i = 0; i < sizeof bad_decks / sizeof bad_decks[0]; i++) {
        struct mcf_deck d;
        struct mcf_err e = { 0 };
        int rc = mcf_deck_parse("deck.yaml", bad_decks[i].text, &d, &e);
        if (rc == MCF_OK)
            mcf_deck_free(&d);
        if (rc != MCF_EINPUT || strncmp(e.msg, bad_decks[i].message, strlen(bad_decks[i].message)) != 0) {
            print_message("case %zu: rc %d\n  got:  %s\n  want: %s\n", i, rc, e.msg, bad_decks[i].message);
            wrong++;
        }
    }
    if (wrong)
        fail_msg("%d of %zu cases wrong", wrong, sizeof bad_decks / sizeof bad_decks[0]);
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

/* power: sources: names the kinds of power.h, amdsmi among them. */
static void power_sources_by_name(void **state)
{
    (void)state;
    struct mcf_deck d;
    struct mcf_err e = { 0 };
    assert_int_equal(mcf_deck_parse("d.yaml", "power:\n  sources: [rsmi, amdsmi]\n" HEAD, &d, &e), MCF_OK);
    assert_int_equal(d.power_sources, (1u << MCF_POWER_RSMI) | (1u << MCF_POWER_AMDSMI));
    mcf_deck_free(&d);
    assert_int_equal(mcf_deck_parse("d.yaml", "power:\n  sources: [amdsmi]\n" HEAD, &d, &e), MCF_OK);
    assert_int_equal(d.power_sources, 1u << MCF_POWER_AMDSMI);
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
    /* issue 9: exact integer arithmetic, one plain decimal form */
    assert_int_equal(mcf_parse_size("0.5KiB", &v), 0); assert_true(v == 512);
    assert_int_equal(mcf_parse_size("4096.0", &v), 0); assert_true(v == 4096);
    assert_int_equal(mcf_parse_size("0.001KB", &v), 0); assert_true(v == 1);
    assert_int_equal(mcf_parse_size("1.0009765625KiB", &v), 0); assert_true(v == 1025);
    assert_int_equal(mcf_parse_size("18446744073709551615", &v), 0); assert_true(v == UINT64_MAX);
    assert_int_equal(mcf_parse_size("16777215TiB", &v), 0); assert_true(v == 16777215ull << 40);
    assert_int_equal(mcf_parse_size("15.99999999999999999TiB", &v), -1);   /* 18 places at most */
    assert_int_equal(mcf_parse_size("18446744073709551616", &v), -1);
    assert_int_equal(mcf_parse_size("16777216TiB", &v), -1);              /* 2^64 */
    assert_int_equal(mcf_parse_size("1.8e19", &v), -1);                   /* UB in the float version */
    assert_int_equal(mcf_parse_size("2e19", &v), -1);
    assert_int_equal(mcf_parse_size("1e4", &v), -1);
    assert_int_equal(mcf_parse_size("0x1000", &v), -1);
    assert_int_equal(mcf_parse_size("010", &v), -1);
    assert_int_equal(mcf_parse_size("+5", &v), -1);
    assert_int_equal(mcf_parse_size(".5KiB", &v), -1);
    assert_int_equal(mcf_parse_size("5.KiB", &v), -1);
    assert_int_equal(mcf_parse_size("4\tKiB", &v), -1);
    assert_int_equal(mcf_parse_size("inf", &v), -1);
    assert_int_equal(mcf_parse_size("nan", &v), -1);
    assert_int_equal(mcf_parse_size("0.3KiB", &v), -1);                  /* 307.2 bytes */
    assert_int_equal(mcf_parse_size("0", &v), 0); assert_true(v == 0);
    assert_int_equal(mcf_parse_size("0B", &v), 0); assert_true(v == 0);
}

static void strict_whole_numbers(void **state)
{
    (void)state;
    uint64_t v = 7;
    assert_int_equal(mcf_parse_uint("0", 10, &v), MCF_NUM_OK); assert_true(v == 0);
    assert_int_equal(mcf_parse_uint("10", 10, &v), MCF_NUM_OK); assert_true(v == 10);
    assert_int_equal(mcf_parse_uint("18446744073709551615", UINT64_MAX, &v), MCF_NUM_OK);
    assert_true(v == UINT64_MAX);
    v = 7;
    assert_int_equal(mcf_parse_uint("11", 10, &v), MCF_NUM_RANGE);
    assert_int_equal(mcf_parse_uint("18446744073709551616", UINT64_MAX, &v), MCF_NUM_RANGE);
    assert_int_equal(mcf_parse_uint("99999999999999999999999x", UINT64_MAX, &v), MCF_NUM_MALFORMED);
    const char *bad[] = { NULL, "", "+5", "-5", "-0", "010", "00", "0x10", "1e4", "1.0", " 5", "5 ", "1_000", "abc", "5k" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (mcf_parse_uint(bad[i], UINT64_MAX, &v) != MCF_NUM_MALFORMED)
            fail_msg("'%s' was accepted", bad[i] ? bad[i] : "(null)");
        if (!*mcf_uint_problem(bad[i]))
            fail_msg("no reason given for '%s'", bad[i] ? bad[i] : "(null)");
    }
    assert_true(v == 7);                       /* untouched on failure */
    assert_string_equal(mcf_uint_problem("42"), "");
}

/* The expansion checks what it makes, whatever made the deck: every instance
 * name an HDF5 group can hold, and no two alike. */
static void expansion_refuses_unwritable_or_repeated_names(void **state)
{
    (void)state;
    struct mcf_deck_test t[2];
    struct mcf_deck d = { .ntests = 1, .tests = t };
    struct mcf_device_info dev = { 0 };
    struct mcf_instance *in = NULL;
    struct mcf_err e = { 0 };
    int n = 0;
    memset(t, 0, sizeof t);
    snprintf(d.path, sizeof d.path, "made.yaml");
    t[0].kernel.family = t[1].kernel.family = MCF_FAMILY_VALU;
    t[0].line = 3;
    t[1].line = 9;
    snprintf(t[0].name, sizeof t[0].name, ".");
    assert_int_equal(mcf_deck_expand(&d, &dev, &in, &n, &e), MCF_EINPUT);
    assert_string_equal(e.msg, "made.yaml:3: test '.': '.' cannot name an HDF5 group");
    snprintf(t[0].name, sizeof t[0].name, "a/b");
    mcf_err_clear(&e);
    assert_int_equal(mcf_deck_expand(&d, &dev, &in, &n, &e), MCF_EINPUT);
    snprintf(t[0].name, sizeof t[0].name, "same");
    snprintf(t[1].name, sizeof t[1].name, "same");
    d.ntests = 2;
    mcf_err_clear(&e);
    assert_int_equal(mcf_deck_expand(&d, &dev, &in, &n, &e), MCF_EINPUT);
    assert_string_equal(e.msg, "made.yaml:9: test 'same': instance 'same' is also made by the test at line 3");
    snprintf(t[1].name, sizeof t[1].name, "other");
    mcf_err_clear(&e);
    assert_int_equal(mcf_deck_expand(&d, &dev, &in, &n, &e), MCF_OK);
    assert_int_equal(n, 2);
    free(in);
}

/* issue 9: the repeated-name check was pairwise (201 s for 91,418 tests in
 * the fuzzing report; 30 s of CPU for 100,000 here). Sorted, 100,000 tests
 * parse and expand in 0.3 s of CPU. The bound is CPU time, so a loaded
 * machine does not move it, and loose enough for sanitizer builds. */
static void many_tests_parse_in_n_log_n(void **state)
{
    (void)state;
    const int count = 100000;
    size_t cap = (size_t)count * 48 + 16, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text, cap, "tests:\n");
    for (int i = 0; i < count; i++)
        len += (size_t)snprintf(text + len, cap - len, "- {name: t%d, kernel: valu, dtype: fp64}\n", i);
    struct mcf_deck d;
    struct mcf_err e = { 0 };
    struct mcf_instance *in;
    int n;
    struct mcf_device_info dev = { 0 };
    clock_t t0 = clock();
    assert_int_equal(mcf_deck_parse("big.yaml", text, &d, &e), MCF_OK);
    assert_int_equal(mcf_deck_expand(&d, &dev, &in, &n, &e), MCF_OK);
    double took = (double)(clock() - t0) / CLOCKS_PER_SEC;
    assert_int_equal(n, count);
    if (took > 5 && !getenv("MCFLEET_SANITIZER_BUILD"))   /* no time bound under ASan */
        fail_msg("%d tests took %.1f s of CPU to parse and expand", count, took);
    free(in);
    mcf_deck_free(&d);
    /* and the check still finds a repeat among them, at the later one */
    len += (size_t)snprintf(text + len, cap - len, "- {name: t77777, kernel: valu, dtype: fp32}\n");
    assert_int_equal(mcf_deck_parse("big.yaml", text, &d, &e), MCF_EINPUT);
    assert_string_equal(e.msg, "big.yaml:100002:3: test name 't77777' is used twice (first at line 77779)");
    free(text);
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
        "  - name: triad\n    kernel: memory\n    op: triad\n    repetitions: 50\n"
        "  - {name: hot, kernel: gemm, dtype: fp64, size: 64, duration: 60s}\n"
        "  - {name: big, kernel: gemm, dtype: fp32, size: [1024, 8192]}\n";
    struct mcf_deck d;
    struct mcf_err e = { 0 };
    struct mcf_instance *in;
    int n;
    struct mcf_device_info dev = { .cache_bytes = 50ull << 20 };
    assert_int_equal(mcf_deck_parse("d.yaml", text, &d, &e), MCF_OK);
    mcf_deck_quick(&d);
    assert_int_equal(mcf_deck_expand(&d, &dev, &in, &n, &e), MCF_OK);
    assert_int_equal(n, 5);        /* 256MiB and 1GiB both cap to 16MiB: one point; gemm's 8192 to 1024 */
    assert_true(in[1].kernel.working_set == 16ull << 20);
    assert_true(in[2].kernel.bytes <= 16ull << 20);     /* auto sizes are capped too */
    assert_int_equal(in[2].repetitions, 3);
    assert_int_equal(in[3].duration, 3);                /* a sustained test: seconds, not a minute */
    assert_int_equal(in[4].kernel.size, 1024);          /* a GEMM: 2 GFLOP, not 1.1 TFLOP */
    free(in);
    mcf_deck_free(&d);
}

static int parse_text(const char *text, struct mcf_err *e)
{
    struct mcf_deck d;
    mcf_err_clear(e);
    int rc = mcf_deck_parse("deck.yaml", text, &d, e);
    if (rc == MCF_OK)
        mcf_deck_free(&d);
    return rc;
}

/* libyaml is quadratic in the nesting of [ ] / { } (its scanner) and in the
 * number of anchors (its loader): a 4 MiB deck of brackets ran for an hour.
 * A token pass stops such decks at the token that crosses the limit. */
static void hostile_nesting_and_anchors_stop_early(void **state)
{
    (void)state;
    const size_t deep = 100000;
    char *text = malloc(16 + 2 * deep);
    struct mcf_err e = { 0 };
    assert_non_null(text);
    strcpy(text, "tests: ");
    memset(text + 7, '[', 64);
    memset(text + 7 + 64, ']', 64);
    text[7 + 128] = '\0';
    assert_int_equal(parse_text(text, &e), MCF_EINPUT);   /* 64 deep: past the pre-pass */
    assert_string_equal(e.msg, "deck.yaml:1:9: test 1 must be a mapping (name:, kernel:, ...), got a list");
    memset(text + 7, '[', deep);
    memset(text + 7 + deep, ']', deep);
    text[7 + 2 * deep] = '\0';
    clock_t t0 = clock();
    assert_int_equal(parse_text(text, &e), MCF_EINPUT);
    double took = (double)(clock() - t0) / CLOCKS_PER_SEC;
    assert_string_equal(e.msg, "deck.yaml:1:72: [ ] and { } nested more than 64 deep (a deck needs 3 at most)");
    if (took > 5)
        fail_msg("%zu nested brackets took %.1f s of CPU", deep, took);
    free(text);

    const int anchors = 1001;
    size_t cap = 16 + (size_t)anchors * 24, len = 0;
    text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text, cap, "x:\n");
    for (int i = 0; i < anchors; i++)
        len += (size_t)snprintf(text + len, cap - len, "  k%d: &a%d v\n", i, i);
    assert_int_equal(parse_text(text, &e), MCF_EINPUT);
    assert_string_equal(e.msg, "deck.yaml:1002:10: more than 1000 anchors (&name); a deck needs a few");
    text[len - strlen("  k1000: &a1000 v\n")] = '\0';                  /* 1000: allowed */
    assert_int_equal(parse_text(text, &e), MCF_EINPUT);
    assert_string_equal(e.msg, "deck.yaml:1:1: unknown top-level key 'x'"
                               " (name, description, acceptance, arch, defaults, power, allow_shared_devices, tests)");
    free(text);
}

/* a path of any accepted length keeps line:col and the message whole */
static void long_paths_keep_the_position(void **state)
{
    (void)state;
    char path[1000];
    struct mcf_deck d;
    struct mcf_err e = { 0 };
    memset(path, 'd', sizeof path - 1);
    path[sizeof path - 1] = '\0';
    memcpy(path + sizeof path - 6, ".yaml", 5);
    assert_int_equal(mcf_deck_parse(path, "tests:\n  - name: .\n", &d, &e), MCF_EINPUT);
    assert_non_null(strstr(e.msg, "dd.yaml:2:11: test name must be 1-63 characters"));
    assert_true(strncmp(e.msg, "...ddd", 6) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_error_class_names_file_line_column),
        cmocka_unit_test(default_deck_parses),
        cmocka_unit_test(power_sources_by_name),
        cmocka_unit_test(sizes),
        cmocka_unit_test(strict_whole_numbers),
        cmocka_unit_test(expansion_refuses_unwritable_or_repeated_names),
        cmocka_unit_test(many_tests_parse_in_n_log_n),
        cmocka_unit_test(hostile_nesting_and_anchors_stop_early),
        cmocka_unit_test(long_paths_keep_the_position),
        cmocka_unit_test(sweeps_expand_and_auto_sizes_resolve),
        cmocka_unit_test(quick_caps_and_drops_duplicate_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
