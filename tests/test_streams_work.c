/* The streams family's work (issue 31): what each stream runs is the kernel
 * a matrix (or memory triad) test with the same keys would be, for every
 * type, so the GPU's matrix chain and the reference it is checked against
 * multiply the same operands. Before the fix a streams test's matrix work was
 * the streams struct with its family changed: its unset dtype_b (0, fp64)
 * made the GPU path encode B as fp64 for an fp16 instruction, and every
 * streams test with fp16 matrix work failed verification on an H100. */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "deck.h"
#include "family.h"

/* every type a matrix test takes, and a shape the deck accepts for it */
static const struct { enum mcf_dtype t; int shape[3]; } types[] = {
    { MCF_FP64, { 8, 8, 4 } },      { MCF_FP32, { 16, 16, 4 } },   { MCF_TF32, { 16, 8, 8 } },
    { MCF_FP16, { 16, 8, 16 } },    { MCF_FP16_ACC16, { 16, 8, 16 } }, { MCF_BF16, { 16, 8, 16 } },
    { MCF_FP8_E4M3, { 16, 8, 32 } }, { MCF_FP8_E5M2, { 16, 8, 32 } }, { MCF_INT8, { 16, 8, 32 } },
};
#define NTYPES (sizeof types / sizeof types[0])

static void parse(const char *text, struct mcf_deck *d)
{
    struct mcf_err e = { 0 };
    if (mcf_deck_parse("deck.yaml", text, d, &e) != MCF_OK)
        fail_msg("%s\n%s", e.msg, text);
}

/* Every key family f takes (its own and the common ones) holds the same value in a and b. */
static void same_keys(enum mcf_family f, const struct mcf_kernel *a, const struct mcf_kernel *b, const char *what)
{
    for (const struct mcf_key *key = mcf_kernel_keys; key->name; key++) {
        if (!mcf_family_key(f, key->name))
            continue;
        if (memcmp((const char *)a + key->offset, (const char *)b + key->offset, key->width))
            fail_msg("%s: key '%s' is %llu in the stream's work, %llu in the %s test", what, key->name,
                     (unsigned long long)mcf_key_get(key, a), (unsigned long long)mcf_key_get(key, b),
                     mcf_family_names[f]);
    }
}

/* A streams test's matrix work, stream by stream, is the matrix test of the
 * same type, shape, inputs and seed, with stream 0 doing `imbalance` times the
 * iterations; its operands are the type's, both of them. */
static void matrix_work_is_the_matrix_test(void **state)
{
    (void)state;
    for (size_t i = 0; i < NTYPES; i++)
        for (int in = 0; in < MCF_INPUTS_COUNT; in++) {
            char s_text[512], m_text[512];
            const char *name = mcf_dtype_names[types[i].t], *inputs = mcf_inputs_names[in];
            const int *sh = types[i].shape;
            snprintf(s_text, sizeof s_text,
                     "tests:\n  - {name: s, kernel: streams, streams: 3, imbalance: 4, work: matrix, dtype: %s, "
                     "shape: [%d, %d, %d], iterations: 250, inputs: %s, seed: 17}\n", name, sh[0], sh[1], sh[2],
                     inputs);
            snprintf(m_text, sizeof m_text,
                     "tests:\n  - {name: m, kernel: matrix, dtype: %s, shape: [%d, %d, %d], iterations: 250, "
                     "inputs: %s, seed: 17}\n", name, sh[0], sh[1], sh[2], inputs);
            struct mcf_deck sd, md;
            parse(s_text, &sd);
            parse(m_text, &md);
            for (int stream = 0; stream < 3; stream++) {
                struct mcf_kernel w, want = md.tests[0].kernel;
                enum mcf_dtype a, b;
                char what[96];
                snprintf(what, sizeof what, "%s inputs %s, stream %d", name, inputs, stream);
                mcf_streams_work(&sd.tests[0].kernel, stream, &w);
                want.iterations = stream == 0 ? 1000 : 250;
                assert_int_equal(w.family, MCF_FAMILY_MATRIX);
                same_keys(MCF_FAMILY_MATRIX, &w, &want, what);
                mcf_kernel_operands(&w, &a, &b);
                if (a != types[i].t || b != types[i].t)
                    fail_msg("%s: the work multiplies %s by %s", what, mcf_dtype_names[a], mcf_dtype_names[b]);
            }
            mcf_deck_free(&sd);
            mcf_deck_free(&md);
        }
}

/* Memory work is the memory family's triad over the test's bytes per array. */
static void memory_work_is_a_triad(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        const char *name = t ? "fp32" : "fp64";
        char s_text[256], m_text[256];
        snprintf(s_text, sizeof s_text,
                 "tests:\n  - {name: s, kernel: streams, streams: 2, imbalance: 3, work: memory, dtype: %s, "
                 "bytes: 1MiB}\n", name);
        snprintf(m_text, sizeof m_text, "tests:\n  - {name: m, kernel: memory, op: triad, dtype: %s, bytes: 1MiB}\n",
                 name);
        struct mcf_deck sd, md;
        parse(s_text, &sd);
        parse(m_text, &md);
        for (int stream = 0; stream < 2; stream++) {
            struct mcf_kernel w, want = md.tests[0].kernel;
            mcf_streams_work(&sd.tests[0].kernel, stream, &w);
            want.bytes = stream == 0 ? 3u << 20 : 1u << 20;
            assert_int_equal(w.family, MCF_FAMILY_MEMORY);
            same_keys(MCF_FAMILY_MEMORY, &w, &want, name);
        }
        mcf_deck_free(&sd);
        mcf_deck_free(&md);
    }
}

/* B is dtype unless two FP8 formats are paired: a struct no deck filled (its
 * dtype_b 0, which is fp64) multiplies dtype by dtype; the check that runs
 * before every GPU matrix kernel names both sides where they differ. */
static void operands_and_their_check(void **state)
{
    (void)state;
    char why[256];
    enum mcf_dtype a, b;
    struct mcf_kernel zero = { .family = MCF_FAMILY_MATRIX, .dtype = MCF_FP16 };
    mcf_kernel_operands(&zero, &a, &b);
    assert_int_equal(a, MCF_FP16);
    assert_int_equal(b, MCF_FP16);
    assert_null(mcf_kernel_operands_differ(&zero, MCF_FP16, MCF_FP16, why, sizeof why));
    struct mcf_kernel pair = { .family = MCF_FAMILY_MATRIX, .dtype = MCF_FP8_E4M3, .dtype_b = MCF_FP8_E5M2 };
    mcf_kernel_operands(&pair, &a, &b);
    assert_int_equal(b, MCF_FP8_E5M2);
    assert_null(mcf_kernel_operands_differ(&pair, MCF_FP8_E4M3, MCF_FP8_E5M2, why, sizeof why));
    assert_non_null(mcf_kernel_operands_differ(&pair, MCF_FP8_E4M3, MCF_FP8_E4M3, why, sizeof why));
    assert_non_null(strstr(why, "the reference would multiply fp8-e4m3 by fp8-e5m2, the instruction multiplies "
                                "fp8-e4m3 by fp8-e4m3"));
    assert_non_null(mcf_kernel_operands_differ(&zero, MCF_FP16, MCF_FP64, why, sizeof why));
    assert_non_null(strstr(why, "fp16 by fp16, the instruction multiplies fp16 by fp64"));
}

/* Every shipped deck's streams tests with matrix work (input/amd.yaml's fp16
 * among them): each stream's work multiplies the test's type by itself. */
static void shipped_decks(void **state)
{
    (void)state;
    const char *src = getenv("srcdir");
    const char *patterns[] = { "input/*.yaml", "input/acceptance/*.yaml", "bench/*.yaml", "tests/decks/*.yaml" };
    int decks = 0, works = 0;
    glob_t g;
    for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++) {
        char pattern[1024];
        snprintf(pattern, sizeof pattern, "%s/%s", src && *src ? src : ".", patterns[p]);
        if (glob(pattern, 0, NULL, &g) != 0)
            continue;
        for (size_t f = 0; f < g.gl_pathc; f++) {
            struct mcf_deck d;
            struct mcf_err e = { 0 };
            if (mcf_deck_load(g.gl_pathv[f], &d, &e) != MCF_OK)
                continue;   /* tests/decks holds broken decks on purpose; decks_parse.sh judges them */
            decks++;
            for (int t = 0; t < d.ntests; t++) {
                const struct mcf_kernel *k = &d.tests[t].kernel;
                if (k->family != MCF_FAMILY_STREAMS || k->work != MCF_WORK_MATRIX)
                    continue;
                for (int stream = 0; stream < MCF_MAX_STREAMS; stream++) {
                    struct mcf_kernel w;
                    enum mcf_dtype a, b;
                    mcf_streams_work(k, stream, &w);
                    mcf_kernel_operands(&w, &a, &b);
                    if (a != k->dtype || b != k->dtype || w.mode != MCF_MODE_THROUGHPUT || w.path != MCF_PATH_AUTO)
                        fail_msg("%s: test %s, stream %d: %s x %s, mode %s, path %s", g.gl_pathv[f], d.tests[t].name,
                                 stream, mcf_dtype_names[a], mcf_dtype_names[b], mcf_mode_names[w.mode],
                                 mcf_path_names[w.path]);
                }
                works++;
            }
            mcf_deck_free(&d);
        }
        globfree(&g);
    }
    if (decks < 8 || works < 3)   /* the default, amd and bench decks have such tests */
        fail_msg("only %d decks and %d streams tests with matrix work found under %s (set srcdir)", decks, works,
                 src ? src : ".");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matrix_work_is_the_matrix_test),
        cmocka_unit_test(memory_work_is_a_triad),
        cmocka_unit_test(operands_and_their_check),
        cmocka_unit_test(shipped_decks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
