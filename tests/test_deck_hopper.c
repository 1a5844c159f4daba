/* The memory family's Hopper levels in a deck (src/family_hopper.c): each
 * refusal names the test and the key, with the position; the keys of tma and
 * dsm are accepted where they mean something, and the quiet ones stay out of
 * an older memory test's "measured" text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "deck.h"
#include "family.h"

#define T(keys) "tests:\n  - {name: hop, kernel: memory, " keys "}\n"

struct bad { const char *text, *message; };

static const struct bad bad_decks[] = {
    { T("level: dsm, cluster: 1"), "deck.yaml:2:54: 'cluster' in test 'hop' must be between 2 and 16, got 1" },
    { T("level: dsm, cluster: 17"), "deck.yaml:2:54: 'cluster' in test 'hop' must be between 2 and 16, got 17" },
    { T("level: hbm, cluster: 4"), "deck.yaml:2:5: test 'hop': 'cluster' needs 'level: dsm'" },
    { T("cluster: 4"), "deck.yaml:2:5: test 'hop': 'cluster' needs 'level: dsm'" },
    { T("level: tma, pattern: pair"), "deck.yaml:2:5: test 'hop': 'pattern' needs 'level: dsm'" },
    { T("level: dsm, pattern: pair, cluster: 3"), "deck.yaml:2:5: test 'hop': 'pattern: pair' needs an even 'cluster' (not 3)" },
    { T("level: dsm, pattern: fan"), "deck.yaml:2:54: 'pattern' in test 'hop' must be one of ring, pair, broadcast" },
    { T("level: dsm, load: 1KiB"), "deck.yaml:2:5: test 'hop': 'load' needs 'level: tma'" },
    { T("level: l2, tma: tensor-2d"), "deck.yaml:2:5: test 'hop': 'tma' needs 'level: tma'" },
    { T("level: tma, load: 100"), "deck.yaml:2:5: test 'hop': 'load' must be a multiple of 16 bytes" },
    { T("level: tma, load: 128KiB"), "deck.yaml:2:51: 'load' in test 'hop' must be between 16 and 65536" },
    { T("level: tma, tma: tensor-2d, load: 1040"), "deck.yaml:2:5: test 'hop': 'tma: tensor-2d' copies boxes 256 bytes wide" },
    { T("level: tma, mode: latency, tma: tensor-2d, load: 256"),
      "deck.yaml:2:5: test 'hop': the TMA latency chain is of bulk copies: 'mode: latency' needs 'tma: bulk'" },
    { T("level: hbm, mode: latency"),
      "deck.yaml:2:5: test 'hop': 'mode: latency' of a memory test needs 'level: tma' or 'level: dsm'" },
    { T("level: tma, op: triad"), "deck.yaml:2:5: test 'hop': level tma is measured with 'op: read'" },
    { T("level: dsm, dtype: fp16"), "deck.yaml:2:5: test 'hop' (memory) 'dtype' must be fp64 or fp32" },
    { T("level: l2, ctas: 2"), "deck.yaml:2:5: test 'hop': 'ctas' needs 'level: tma' or 'level: dsm'" },
    { T("level: dsm, ctas: 33"), "deck.yaml:2:51: 'ctas' in test 'hop' must be between 1 and 32, got 33" },
    { T("level: dsm, occupancy: 64"), "deck.yaml:2:5: test 'hop': level dsm takes 'ctas' (CTAs per SM), not 'occupancy'" },
    { T("level: tma, sweeps: 4"), "deck.yaml:2:5: test 'hop': level tma takes no 'sweeps'" },
    { T("level: dsm, bytes: 200KiB"), "deck.yaml:2:5: test 'hop': level dsm: 'bytes' is one CTA's shared memory, at most 112KiB" },
    { T("level: tma, load: 4KiB, bytes: 8KiB"), "deck.yaml:2:5: test 'hop': level tma: 'bytes' (8192) must hold at least 4 loads" },
};

static void refusals_name_test_and_key(void **state)
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

/* accepted, normalized (op read; a dsm buffer's auto size), and what each measures */
static void accepted_and_measured(void **state)
{
    (void)state;
    struct mcf_deck d;
    struct mcf_err e = { 0 };
    char m[512];
    const char *text = "tests:\n"
        "  - {name: t, kernel: memory, level: tma, tma: tensor-2d, load: 4KiB, ctas: 2, bytes: 1GiB}\n"
        "  - {name: d, kernel: memory, level: dsm, pattern: broadcast, cluster: [2, 16]}\n"
        "  - {name: l, kernel: memory, level: dsm, mode: latency, cluster: 8}\n"
        "  - {name: h, kernel: memory, level: hbm, op: read, bytes: 1MiB}\n";
    assert_int_equal(mcf_deck_parse("deck.yaml", text, &d, &e), MCF_OK);
    assert_int_equal(d.ntests, 4);
    const struct mcf_kernel *t = &d.tests[0].kernel, *dk = &d.tests[1].kernel, *l = &d.tests[2].kernel, *h = &d.tests[3].kernel;
    assert_int_equal(t->level, MCF_LEVEL_TMA);
    assert_int_equal(t->op, MCF_OP_READ);
    assert_int_equal(t->tma, MCF_TMA_TENSOR_2D);
    assert_int_equal(t->load, 4096);
    assert_int_equal(t->ctas, 2);
    assert_string_equal(mcf_kernel_measured(t, m, sizeof m), "kernel=memory dtype=fp64 level=tma op=read "
                        "bytes=1073741824 intensity=1 occupancy=0 inputs=random tma=tensor-2d ctas=2");
    assert_int_equal(dk->level, MCF_LEVEL_DSM);
    assert_int_equal(dk->pattern, MCF_PATTERN_BROADCAST);
    assert_int_equal(dk->bytes, 16384);
    assert_int_equal(d.tests[1].nsweep, 2);
    assert_int_equal(l->mode, MCF_MODE_LATENCY);
    assert_string_equal(mcf_kernel_measured(l, m, sizeof m), "kernel=memory dtype=fp64 level=dsm op=read "
                        "bytes=16384 intensity=1 occupancy=0 inputs=random mode=latency cluster=8");
    /* an older memory test: none of the new keys in what it measured */
    assert_string_equal(mcf_kernel_measured(h, m, sizeof m), "kernel=memory dtype=fp64 level=hbm op=read "
                        "bytes=1048576 intensity=1 occupancy=0 inputs=random");
    mcf_deck_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refusals_name_test_and_key),
        cmocka_unit_test(accepted_and_measured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
