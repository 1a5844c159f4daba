/* Text from a file, shown and never obeyed (src/report/text_safe.c, the C
 * report's mcf_rd_clean): issue 27's bidi overrides and invalid UTF-8 forms,
 * each with what analysis/mcfleet_results.py show() makes of the same bytes
 * (tests/text_safety.sh checks the two agree on a results file). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report_read.h"
#include "text_safe.h"

static const struct { const char *in, *out; } cases[] = {
    { "abc", "abc" },
    { "a\x1b[31mb\r\n\t\x7f", "a?[31mb????" },                         /* C0 controls and DEL */
    { "\xe2\x80\xae" "evil", "?evil" },                                 /* U+202E RIGHT-TO-LEFT OVERRIDE */
    { "x\xe2\x80\x8ey\xe2\x80\x8fz", "x?y?z" },                         /* U+200E, U+200F */
    { "\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", "????" },     /* U+202A..U+202D */
    { "\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9", "????" },     /* U+2066..U+2069 isolates */
    { "\xd8\x9c", "?" },                                                /* U+061C ARABIC LETTER MARK */
    { "a\xe2\x80\xa8" "b\xe2\x80\xa9", "a?b?" },                        /* U+2028, U+2029 */
    { "\xc2\x85\xc2\x9b", "??" },                                       /* C1 controls: one '?' each */
    { "\xc2\xa0\xc2\xad\xe2\x80\x8b\xef\xbb\xbf", "????" },             /* NBSP, soft hyphen, ZWSP, BOM */
    { "\xee\x80\x80\xef\xbf\xbf\xf4\x8f\xbf\xbd", "???" },              /* private use, noncharacter */
    { "\xed\xa0\x80\xed\xbf\xbf", "??????" },                           /* UTF-16 surrogates */
    { "\xe0\x80\xaf\xe0\x9f\xbf", "??????" },                           /* 3-byte overlong forms */
    { "\xc0\xaf\xc1\xbf", "????" },                                     /* 2-byte overlong forms */
    { "\xf0\x80\x80\xaf\xf0\x8f\xbf\xbf", "????????" },                 /* 4-byte overlong forms */
    { "\xf4\x90\x80\x80", "????" },                                     /* above U+10FFFF */
    { "\xf5\x80\x80\x80\xf7\xbf\xbf\xbf\xf8\xff\xfe", "?????????""??" }, /* F5..FF never lead */
    { "\x80z", "?z" },                                                  /* a lone continuation byte */
    { "\xe2\x82" "A", "??A" },                                          /* cut short: a '?' a byte */
    { "x\xe2\x82", "x??" },
    { "\xe2\xe2\x82\xac", "?\xe2\x82\xac" },                            /* then a whole euro sign */
    { "h\xc3\xb6st \xe2\x82\xac \xe4\xb8\xad \xf0\x9f\x98\x80 \xef\xbf\xbd",
      "h\xc3\xb6st \xe2\x82\xac \xe4\xb8\xad \xf0\x9f\x98\x80 \xef\xbf\xbd" },   /* shown as they are */
    { "$\\undefinedmacro$ =HYPERLINK(\"x\")", "$\\undefinedmacro$ =HYPERLINK(\"x\")" },   /* ASCII: as it is */
};

static void clean_cases(void **state)
{
    (void)state;
    int wrong = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", cases[i].in);
        mcf_rd_clean(buf);
        if (strcmp(buf, cases[i].out) != 0) {   /* every case that fails is listed */
            print_error("case %zu: \"%s\", expected \"%s\"\n", i, buf, cases[i].out);
            wrong++;
        }
    }
    assert_int_equal(wrong, 0);
}

static void keep_newlines(void **state)
{
    (void)state;
    char buf[] = "a\nb\tc\r\xe2\x80\xae";
    mcf_text_clean(buf, "\n");
    assert_string_equal(buf, "a\nb?c??");
}

static void sequences(void **state)
{
    (void)state;
    uint32_t cp = 0;
    assert_int_equal(mcf_utf8_seq((const unsigned char *)"\xf4\x8f\xbf\xbf", &cp), 4);
    assert_int_equal(cp, 0x10FFFF);
    assert_int_equal(mcf_utf8_seq((const unsigned char *)"\xed\x9f\xbf", &cp), 3);
    assert_int_equal(cp, 0xD7FF);
    assert_int_equal(mcf_utf8_seq((const unsigned char *)"\xe0\xa0\x80", &cp), 3);
    assert_int_equal(cp, 0x800);
    assert_int_equal(mcf_utf8_seq((const unsigned char *)"\xf0\x90\x80\x80", &cp), 4);
    assert_int_equal(cp, 0x10000);
    assert_int_equal(mcf_utf8_seq((const unsigned char *)"\xe2\x82", &cp), 0);   /* the NUL ends it */
    assert_true(mcf_cp_shown(0x20) && mcf_cp_shown(0xFFFD) && mcf_cp_shown(0x1F600));
    assert_false(mcf_cp_shown(0x202E) || mcf_cp_shown(0x2029) || mcf_cp_shown(0x3000) || mcf_cp_shown(0x1FFFE));
}

/* The output pass: the layout's newlines and tabs stay; a string cut inside
 * a character ("%.2s" of a euro sign) and a bidi override become '?' */
static void output_pass(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    struct mcf_text_out t;
    FILE *out = mcf_text_begin(&t, m);
    fprintf(out, "a\tb\n[%.2s]\xe2\x80\xae\xed\xa0\x80\xc3\xa9", "\xe2\x82\xac");
    fputc(0, out);
    fputs("z\xe2", out);
    mcf_text_end(&t);
    fclose(m);
    assert_string_equal(buf, "a\tb\n[??]????\xc3\xa9?z?");
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clean_cases),
        cmocka_unit_test(keep_newlines),
        cmocka_unit_test(sequences),
        cmocka_unit_test(output_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
