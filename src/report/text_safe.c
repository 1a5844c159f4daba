#include "text_safe.h"

#include <stdlib.h>
#include <string.h>

size_t mcf_utf8_seq(const unsigned char *p, uint32_t *cp)
{
    unsigned c = p[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    /* the second byte's range narrows after E0, ED, F0 and F4 (no overlong
     * forms, no surrogates, nothing above U+10FFFF); C0, C1 and F5..FF never lead */
    unsigned lo = 0x80, hi = 0xBF;
    size_t n;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    uint32_t v = c & (0xFF >> (n + 1));
    for (size_t k = 1; k < n; k++) {
        if ((p[k] & 0xC0) != 0x80) /* the NUL that ends the string included */
            return 0;
        v = v << 6 | (p[k] & 0x3F);
    }
    *cp = v;
    return n;
}

/* Python's str.isprintable() is false for these (Unicode 14's Cc, Cf, Zs but
 * the space, Zl, Zp, Co and the noncharacters; surrogates never decode) */
static const uint32_t hidden[][2] = {
    { 0x80, 0xA0 },       { 0xAD, 0xAD },       { 0x600, 0x605 },      { 0x61C, 0x61C },
    { 0x6DD, 0x6DD },     { 0x70F, 0x70F },     { 0x890, 0x891 },      { 0x8E2, 0x8E2 },
    { 0x1680, 0x1680 },   { 0x180E, 0x180E },   { 0x2000, 0x200F },    { 0x2028, 0x202F },
    { 0x205F, 0x2064 },   { 0x2066, 0x206F },   { 0x3000, 0x3000 },    { 0xE000, 0xF8FF },
    { 0xFDD0, 0xFDEF },   { 0xFEFF, 0xFEFF },   { 0xFFF9, 0xFFFB },    { 0x110BD, 0x110BD },
    { 0x110CD, 0x110CD }, { 0x13430, 0x13438 }, { 0x1BCA0, 0x1BCA3 },  { 0x1D173, 0x1D17A },
    { 0xE0001, 0xE0001 }, { 0xE0020, 0xE007F }, { 0xF0000, 0x10FFFF },
};

int mcf_cp_shown(uint32_t cp)
{
    if (cp < 0x80) return cp >= 0x20 && cp != 0x7F;
    if ((cp & 0xFFFE) == 0xFFFE) /* U+FFFE, U+FFFF and their kin in every plane */
        return 0;
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
        if (cp >= hidden[i][0] && cp <= hidden[i][1]) return 0;
    return 1;
}

/* One step of the rule: how many bytes at p make one unit (a byte that is in
 * no sequence, or one sequence), and whether it is shown */
static size_t unit(const unsigned char *p, const char *keep, int *shown)
{
    uint32_t cp;
    size_t n = mcf_utf8_seq(p, &cp);
    if (!n) {
        *shown = 0;
        return 1;
    }
    *shown = mcf_cp_shown(cp) || (cp < 0x20 && cp && strchr(keep, (int)cp));
    return n;
}

void mcf_text_clean(char *s, const char *keep)
{
    unsigned char *r = (unsigned char *)s, *w = r;
    while (*r) {
        int shown;
        size_t n = unit(r, keep, &shown);
        if (shown)
            memmove(w, r, n), w += n;
        else
            *w++ = '?';
        r += n;
    }
    *w = 0;
}

void mcf_text_write(FILE *out, const char *buf, size_t len)
{
    const unsigned char *p = (const unsigned char *)buf, *end = p + len;
    while (p < end) {
        /* a run of shown units goes out as one write */
        const unsigned char *run = p;
        size_t n = 1;
        int shown = 0;
        while (p < end && *p && (n = unit(p, "\n\t", &shown)) && shown && n <= (size_t)(end - p))
            p += n;
        fwrite(run, 1, (size_t)(p - run), out);
        if (p < end) { /* a NUL, a byte in no sequence, or a hidden code point: one '?' */
            fputc('?', out);
            p += *p && n <= (size_t)(end - p) ? n : 1;
        }
    }
}

FILE *mcf_text_begin(struct mcf_text_out *t, FILE *out)
{
    t->real = out;
    t->buf = NULL;
    t->len = 0;
    t->mem = open_memstream(&t->buf, &t->len);
    return t->mem ? t->mem : out;
}

void mcf_text_end(struct mcf_text_out *t)
{
    if (!t->mem) return;
    if (fclose(t->mem) == 0 && t->buf)
        mcf_text_write(t->real, t->buf, t->len);
    else
        fputs("mcfleet: report: out of memory printing the report\n", stderr);
    free(t->buf);
}
