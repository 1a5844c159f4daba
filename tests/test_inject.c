/* MCFLEET_INJECT_FAULT=GLOB[@RANK], parsed strictly (issue 9: '*@abc' injected
 * on rank 0, atoi's reading of "abc"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "inject.h"

static void accepted_forms(void **state)
{
    (void)state;
    struct mcf_inject in;
    struct mcf_err e = { 0 };
    assert_int_equal(mcf_inject_parse(NULL, 4, &in, &e), MCF_OK);
    assert_false(in.active);
    assert_false(mcf_inject_match(&in, 0, "x"));
    assert_int_equal(mcf_inject_parse("", 4, &in, &e), MCF_OK);
    assert_false(in.active);

    assert_int_equal(mcf_inject_parse("tiny-*", 4, &in, &e), MCF_OK);
    assert_true(in.active);
    assert_int_equal(in.rank, -1);                 /* every rank */
    assert_true(mcf_inject_match(&in, 0, "tiny-triad"));
    assert_true(mcf_inject_match(&in, 3, "tiny-chase:working_set=4096"));
    assert_false(mcf_inject_match(&in, 0, "big-triad"));

    assert_int_equal(mcf_inject_parse("tiny-triad@3", 4, &in, &e), MCF_OK);
    assert_int_equal(in.rank, 3);
    assert_string_equal(in.glob, "tiny-triad");
    assert_true(mcf_inject_match(&in, 3, "tiny-triad"));
    assert_false(mcf_inject_match(&in, 0, "tiny-triad"));
    assert_int_equal(mcf_inject_parse("*@0", 1, &in, &e), MCF_OK);
    assert_true(mcf_inject_match(&in, 0, "anything"));
}

struct bad { const char *spec; int nranks; const char *message; };

static void rejected_forms_name_the_variable(void **state)
{
    (void)state;
    static const struct bad bad[] = {
        { "*@abc", 4, "MCFLEET_INJECT_FAULT='*@abc': the rank after '@' must be a whole number, got 'abc' "
                      "(only decimal digits are accepted)" },
        { "*@", 4, "MCFLEET_INJECT_FAULT='*@': the rank after '@' must be a whole number, got '' (it is empty)" },
        { "*@-1", 4, "MCFLEET_INJECT_FAULT='*@-1': the rank after '@' must be a whole number, got '-1' (no sign" },
        { "*@+1", 4, "MCFLEET_INJECT_FAULT='*@+1': the rank after '@' must be a whole number, got '+1' (no sign" },
        { "*@01", 4, "MCFLEET_INJECT_FAULT='*@01': the rank after '@' must be a whole number, got '01' (it has a leading zero" },
        { "*@1 ", 4, "MCFLEET_INJECT_FAULT='*@1 ': the rank after '@' must be a whole number, got '1 '" },
        { "*@1x", 4, "MCFLEET_INJECT_FAULT='*@1x': the rank after '@' must be a whole number" },
        { "a@1@2", 4, "MCFLEET_INJECT_FAULT='a@1@2': the rank after '@' must be a whole number, got '1@2'" },
        { "*@4", 4, "MCFLEET_INJECT_FAULT='*@4': rank 4 does not exist: this run has 4 ranks (0 to 3)" },
        { "*@1", 1, "MCFLEET_INJECT_FAULT='*@1': rank 1 does not exist: this run has 1 rank (0 to 0)" },
        { "*@99999999999999999999", 4, "MCFLEET_INJECT_FAULT='*@99999999999999999999': rank 99999999999999999999 does not exist" },
        { "@1", 4, "MCFLEET_INJECT_FAULT='@1': the test pattern before '@' is empty" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct mcf_inject in;
        struct mcf_err e = { 0 };
        int rc = mcf_inject_parse(bad[i].spec, bad[i].nranks, &in, &e);
        if (rc != MCF_EINPUT || strncmp(e.msg, bad[i].message, strlen(bad[i].message)) != 0)
            fail_msg("'%s': rc %d\n  got:  %s\n  want: %s", bad[i].spec, rc, e.msg, bad[i].message);
        assert_false(in.active);
    }
    /* a pattern too long for the buffer is refused, never cut */
    char spec[400];
    memset(spec, 'a', sizeof spec - 1);
    spec[sizeof spec - 1] = '\0';
    struct mcf_inject in;
    struct mcf_err e = { 0 };
    assert_int_equal(mcf_inject_parse(spec, 4, &in, &e), MCF_EINPUT);
    assert_string_equal(e.msg, "MCFLEET_INJECT_FAULT: the test pattern is 399 characters; at most 255 are supported");
}

/* what runner.c's inject_here() calls */
static void here_reads_the_environment(void **state)
{
    (void)state;
    setenv(MCF_INJECT_ENV, "tiny-triad@1", 1);
    assert_true(mcf_inject_here(1, 2, "tiny-triad"));
    assert_false(mcf_inject_here(0, 2, "tiny-triad"));
    setenv(MCF_INJECT_ENV, "*@abc", 1);
    assert_false(mcf_inject_here(0, 2, "tiny-triad"));   /* was: injected on rank 0 */
    unsetenv(MCF_INJECT_ENV);
    assert_false(mcf_inject_here(0, 2, "tiny-triad"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepted_forms),
        cmocka_unit_test(rejected_forms_name_the_variable),
        cmocka_unit_test(here_reads_the_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
