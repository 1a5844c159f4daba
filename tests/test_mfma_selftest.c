/* The MFMA layout self-test's comparison (src/run/mfma_selftest.c), run
 * through the host backend's emulator (kernels/host/host_mfma.c) for every
 * instruction of kernels/hip/mfma_list.h on both CDNA generations (the 2:4
 * sparse smfmac ones on CDNA3, whose reference is checked against the logical
 * product): all ok; an
 * injected corruption is named by instruction, lane and register; wrong
 * decodes are caught on every instruction; and the command's exit codes. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "backend.h"
#include "mcfleet.h"
#include "mfma_selftest.h"
#include "selftest.h"

struct fixture {
    struct mcf_backend be;
    void *state;
};

static int setup(void **st)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct mcf_err e = { 0 };
    const struct mcf_rank_env env = { .local_rank = 0, .local_size = 1, .ncpus = 1 };
    if (!f || mcf_backend_select("host", &f->be, &e) || f->be.init(&f->state, &env, &e)) {
        fprintf(stderr, "host backend: %s\n", e.msg);
        free(f);
        return -1;
    }
    *st = f;
    return 0;
}

static int teardown(void **st)
{
    struct fixture *f = *st;
    f->be.finalize(f->state);
    free(f);
    return 0;
}

/* One instruction on generation gen through decode; line filled. */
static int run(struct fixture *f, const struct mcf_mfma_insn *in, int gen, mcf_mfma_result_fn decode,
               const struct mcf_layout_inject *inj, char *line, size_t len)
{
    struct mcf_err e = { 0 };
    int injected = 0;
    int rc = mcf_mfma_selftest(&f->be, f->state, in, gen, decode, inj, &injected, line, len, &e);
    if (rc != MCF_OK && rc != MCF_EVERIFY && rc != MCF_EUNSUPPORTED)
        fprintf(stderr, "%s: %s\n", in->name, e.msg);
    return rc;
}

static int first_gen(const struct mcf_mfma_insn *in) { return in->on[0] ? 2 : 3; }

static void every_instruction_is_ok_on_both_generations(void **st)
{
    char line[512];
    int present[2] = { 0, 0 };
    for (int gen = 2; gen <= 3; gen++)
        for (int n = 0; n < MCF_MFMA_COUNT; n++) {
            const struct mcf_mfma_insn *in = &mcf_mfma_insns[n];
            int rc = run(*st, in, gen, mfma_layout_result, NULL, line, sizeof line);
            if (!in->on[gen - 2]) {
                assert_int_equal(rc, MCF_EUNSUPPORTED);
                continue;
            }
            if (rc != MCF_OK) fprintf(stderr, "CDNA%d %s: %s\n", gen, in->name, line);
            assert_int_equal(rc, MCF_OK);
            assert_string_equal(line, "ok");
            present[gen - 2]++;
        }
    assert_int_equal(present[0], 22);   /* docs/amd.md: CDNA2 22 instructions, CDNA3 30 + 14 sparse */
    assert_int_equal(present[1], 44);
}

/* The sparse instructions' reference (mcf_mfma_dot on the compressed A and
 * its kept pairs) is the dense product of the logical A they stand for: each
 * chunk of 4 expanded from its pair, zeros elsewhere. Every pair occurs. */
static void the_sparse_reference_is_the_logical_product(void **st)
{
    (void)st;
    struct mcf_err e = { 0 };
    int sparse = 0, pairs_seen[16] = { 0 };
    for (int n = 0; n < MCF_MFMA_COUNT; n++) {
        const struct mcf_mfma_insn *in = &mcf_mfma_insns[n];
        if (!in->sparse) continue;
        sparse++;
        assert_int_equal(in->k % 4, 0);
        assert_false(in->on[0]);
        struct mcf_mfma_case c;
        assert_int_equal(mcf_mfma_case_make(&c, in, &e), MCF_OK);
        assert_non_null(c.meta);
        const int m = in->m, n_ = in->n, k = in->k;
        double *a = calloc((size_t)m * k, sizeof *a);
        assert_non_null(a);
        for (int i = 0; i < m; i++)
            for (int ch = 0; ch < k / 4; ch++) {
                const uint8_t p = c.meta[i * (k / 4) + ch];
                const int i0 = p & 3, i1 = p >> 2 & 3;
                assert_true(i0 < i1);
                pairs_seen[p] = 1;
                a[i * k + 4 * ch + i0] = mcf_mfma_operand(in->ta, c.a_tiles, (size_t)i * (k / 2) + 2 * ch);
                a[i * k + 4 * ch + i1] = mcf_mfma_operand(in->ta, c.a_tiles, (size_t)i * (k / 2) + 2 * ch + 1);
            }
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n_; j++) {
                double want = 0;
                for (int kk = 0; kk < k; kk++)
                    want += a[i * k + kk] * mcf_mfma_operand(in->tb, c.b_tiles, (size_t)kk * n_ + j);
                assert_true(want == c.ref[i * n_ + j]);   /* small integers: exact */
            }
        free(a);
        mcf_mfma_case_free(&c);
    }
    assert_int_equal(sparse, 14);
    const uint8_t all[6] = { 0 | 1 << 2, 0 | 2 << 2, 0 | 3 << 2, 1 | 2 << 2, 1 | 3 << 2, 2 | 3 << 2 };
    for (int p = 0; p < 6; p++) assert_true(pairs_seen[all[p]]);
}

/* For every instruction, a register of its own (lane and item from its
 * number) is corrupted: the report names exactly that lane and register. */
static void an_injected_register_is_named(void **st)
{
    char line[512], want[96], reg[24];
    for (int n = 0; n < MCF_MFMA_COUNT; n++) {
        const struct mcf_mfma_insn *in = &mcf_mfma_insns[n];
        const int gen = first_gen(in);
        struct mcf_layout_inject inj = { .active = 1, .lane = (n * 11 + 5) % 64, .reg = n % mcf_mfma_items(in) };
        snprintf(inj.glob, sizeof inj.glob, "%s", in->mnemonic[gen - 2]);
        assert_int_equal(run(*st, in, gen, mfma_layout_result, &inj, line, sizeof line), MCF_EVERIFY);
        mcf_mfma_reg_name(in, inj.reg, reg, sizeof reg);
        snprintf(want, sizeof want, ": lane %d, register %s holds ", inj.lane, reg);
        if (strncmp(line, "MISMATCH D[", 11) != 0 || !strstr(line, want))
            fprintf(stderr, "%s: '%s' lacks '%s'\n", in->name, line, want);
        assert_memory_equal(line, "MISMATCH D[", 11);
        assert_non_null(strstr(line, want));
        /* the other instructions are left alone */
        const struct mcf_mfma_insn *other = &mcf_mfma_insns[(n + 1) % MCF_MFMA_COUNT];
        if (strcmp(other->mnemonic[0], in->mnemonic[gen - 2]) && strcmp(other->mnemonic[1], in->mnemonic[gen - 2]))
            assert_int_equal(run(*st, other, first_gen(other), mfma_layout_result, &inj, line, sizeof line), MCF_OK);
    }
}

/* Wrong decodes: each must be caught on every instruction. */
static void result_i_j_swapped(struct mfma_layout L, int lane, int r, int *i, int *j, int *b)
{
    mfma_layout_result(L, lane, r, j, i, b);
}

static void result_lanes_rotated(struct mfma_layout L, int lane, int r, int *i, int *j, int *b)
{
    mfma_layout_result(L, (lane + 1) % 64, r, i, j, b);
}

static void result_rows_rotated(struct mfma_layout L, int lane, int r, int *i, int *j, int *b)
{
    mfma_layout_result(L, lane, r, i, j, b);
    *i = (*i + 1) % L.m;
}

static void result_block_ignored(struct mfma_layout L, int lane, int r, int *i, int *j, int *b)
{
    mfma_layout_result(L, lane, r, i, j, b);
    *b = 0;
}

static void result_row_out_of_range(struct mfma_layout L, int lane, int r, int *i, int *j, int *b)
{
    mfma_layout_result(L, lane, r, i, j, b);
    if (lane == 63) *i = L.m;
}

static void a_wrong_decode_is_caught(void **st)
{
    const struct {
        const char *what, *report;
        mcf_mfma_result_fn fn;
        int multi_block_only;   /* the mutation is the identity with one block */
    } bad[] = {
        { "i <-> j", "MISMATCH", result_i_j_swapped, 0 },
        { "lanes rotated", "MISMATCH", result_lanes_rotated, 0 },
        { "rows rotated", "MISMATCH", result_rows_rotated, 0 },
        { "block ignored", "LAYOUT", result_block_ignored, 1 },
        { "a row outside D", "LAYOUT", result_row_out_of_range, 0 },
    };
    char line[512];
    int missed = 0;
    for (int n = 0; n < MCF_MFMA_COUNT; n++)
        for (size_t m = 0; m < sizeof bad / sizeof bad[0]; m++) {
            const struct mcf_mfma_insn *in = &mcf_mfma_insns[n];
            if (bad[m].multi_block_only && in->blk == 1) continue;
            int rc = run(*st, in, first_gen(in), bad[m].fn, NULL, line, sizeof line);
            if (rc != MCF_EVERIFY || strncmp(line, bad[m].report, strlen(bad[m].report)) != 0) {
                fprintf(stderr, "%s: the wrong decode '%s' gave %d: %s\n", in->name, bad[m].what, rc, line);
                missed++;
            }
        }
    assert_int_equal(missed, 0);
}

static void injection_is_parsed_strictly(void **st)
{
    (void)st;
    struct mcf_layout_inject inj;
    struct mcf_err e = { 0 };
    assert_int_equal(mcf_layout_inject_parse(NULL, &inj, &e), MCF_OK);
    assert_false(inj.active);
    assert_int_equal(mcf_layout_inject_parse("v_mfma_*:63:31", &inj, &e), MCF_OK);
    assert_true(inj.active);
    assert_string_equal(inj.glob, "v_mfma_*");
    assert_int_equal(inj.lane, 63);
    assert_int_equal(inj.reg, 31);
    const char *bad[] = { "x", "x:1", ":1:2", "x:64:0", "x:1:32", "x:-1:0", "x:1:", "x::1", "x:1:2z", "x:01:2" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mcf_err_clear(&e);
        if (mcf_layout_inject_parse(bad[i], &inj, &e) != MCF_EINPUT) fprintf(stderr, "accepted '%s'\n", bad[i]);
        assert_int_equal(e.rc, MCF_EINPUT);
        assert_non_null(strstr(e.msg, MCF_INJECT_LAYOUT_ENV));
    }
}

/* mcfleet selftest's exit codes: 0 clean, 1 with the injected mismatch, 2 usage */
static int command(const char *inject, char **argv, int argc, char **out_text)
{
    char *err_text = NULL;
    size_t olen = 0, elen = 0;
    FILE *out = open_memstream(out_text, &olen), *err = open_memstream(&err_text, &elen);
    assert_non_null(out);
    assert_non_null(err);
    if (inject) setenv(MCF_INJECT_LAYOUT_ENV, inject, 1);
    else unsetenv(MCF_INJECT_LAYOUT_ENV);
    int rc = mcf_selftest_main(argc, argv, out, err);
    unsetenv(MCF_INJECT_LAYOUT_ENV);
    fclose(out);
    fclose(err);
    if (rc == MCF_EXIT_USAGE) {   /* the error is what the test wants to read */
        free(*out_text);
        *out_text = err_text;
    } else {
        free(err_text);
    }
    return rc;
}

static void the_command_exits_by_its_findings(void **st)
{
    (void)st;
    char *text = NULL;
    char *host[] = { "--backend", "host" };
    assert_int_equal(command(NULL, host, 2, &text), MCF_EXIT_OK);
    assert_non_null(strstr(text, "22 ok, 0 mismatched, 24 absent on this generation"));
    assert_non_null(strstr(text, "44 ok, 0 mismatched, 2 absent on this generation"));
    free(text);
    assert_int_equal(command("v_mfma_f32_32x32x2f32:5:3", host, 2, &text), MCF_EXIT_VERIFY);
    assert_non_null(strstr(text, "injected: " MCF_INJECT_LAYOUT_ENV "=v_mfma_f32_32x32x2f32:5:3"));
    assert_non_null(strstr(text, "v_mfma_f32_32x32x2f32          MISMATCH D["));
    assert_non_null(strstr(text, "(block 0): lane 5, register a[3] holds "));
    assert_non_null(strstr(text, "21 ok, 1 mismatched, 24 absent"));
    free(text);
    assert_int_equal(command("v_mfma_f32_32x32x2f32:64:3", host, 2, &text), MCF_EXIT_USAGE);
    assert_non_null(strstr(text, MCF_INJECT_LAYOUT_ENV));
    free(text);
    char *bad[] = { "--backend", "host", "--nope" };
    assert_int_equal(command(NULL, bad, 3, &text), MCF_EXIT_USAGE);
    assert_non_null(strstr(text, "'--nope'"));
    assert_non_null(strstr(text, "Try 'mcfleet selftest --help'"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_instruction_is_ok_on_both_generations),
        cmocka_unit_test(the_sparse_reference_is_the_logical_product),
        cmocka_unit_test(an_injected_register_is_named),
        cmocka_unit_test(a_wrong_decode_is_caught),
        cmocka_unit_test(injection_is_parsed_strictly),
        cmocka_unit_test(the_command_exits_by_its_findings),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
