/* Text from a file, shown and never obeyed: well-formed UTF-8 only, with
 * control, format (bidi), separator, private-use and noncharacter code
 * points replaced by '?', the rule analysis/mcfleet_results.py show() keeps
 * (Python's str.isprintable(), but for unassigned code points, which pass
 * here). */
#ifndef MCF_TEXT_SAFE_H
#define MCF_TEXT_SAFE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The length (1-4) of the well-formed UTF-8 sequence at p (Unicode's
 * table 3-7: no overlong forms, surrogates or code points above U+10FFFF)
 * and its code point in *cp; 0 where none starts there. */
size_t mcf_utf8_seq(const unsigned char *p, uint32_t *cp);

/* 1 for a code point shown as it is, 0 for one replaced by '?'. */
int mcf_cp_shown(uint32_t cp);

/* In place: every byte not in a well-formed sequence becomes '?', and every
 * code point not shown one '?' (the string may shrink); ASCII control
 * characters listed in keep (e.g. "\n") stay. */
void mcf_text_clean(char *s, const char *keep);

/* The same rule on output: len bytes of buf to out, newlines and tabs kept
 * (the program's own layout), so that a string cut short by a "%.100s"
 * inside a multi-byte character still prints as valid UTF-8. buf[len] is
 * read: a NUL there (as open_memstream leaves) ends the last sequence. */
void mcf_text_write(FILE *out, const char *buf, size_t len);

/* A report printed to a buffer first (begin), then written by
 * mcf_text_write (end); where the buffer cannot be had, straight to out. */
struct mcf_text_out {
    FILE *real, *mem;
    char *buf;
    size_t len;
};
FILE *mcf_text_begin(struct mcf_text_out *t, FILE *out);
void mcf_text_end(struct mcf_text_out *t);

#endif
