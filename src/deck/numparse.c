#include "numparse.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

int mcf_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    int over = 0;
    if (!s || !isdigit((unsigned char)s[0]) || (s[0] == '0' && s[1] != '\0'))
        return MCF_NUM_MALFORMED;
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char)*p)) return MCF_NUM_MALFORMED;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            over = 1; /* keep scanning: a later letter is still malformed */
        else
            v = v * 10 + d;
    }
    if (over || v > max) return MCF_NUM_RANGE;
    *out = v;
    return MCF_NUM_OK;
}

const char *mcf_uint_problem(const char *s)
{
    if (!s || !*s) return "it is empty";
    if (*s == '+' || *s == '-') return "no sign is accepted";
    if (*s == ' ' || *s == '\t' || s[strlen(s) - 1] == ' ' || s[strlen(s) - 1] == '\t')
        return "it has spaces around it";
    if (s[0] == '0' && s[1] && strchr("xXoObB", s[1]))
        return "only decimal digits are accepted, no 0x/0o/0b prefix";
    if (s[0] == '0' && isdigit((unsigned char)s[1]))
        return "it has a leading zero (octal in YAML 1.1): write the number without it";
    if (isdigit((unsigned char)s[0]) && strpbrk(s, ".eE"))
        return "write it out in digits, without a decimal point or exponent";
    if (isdigit((unsigned char)s[0]) && strchr(s, '_')) return "write it without '_' separators";
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p)) return "only decimal digits are accepted";
    return "";
}

int mcf_parse_duration(const char *s, double *sec)
{
    double total = 0;
    if (!s || !*s) return MCF_NUM_MALFORMED;
    while (*s) {
        char digits[24];
        size_t n = 0;
        uint64_t v;
        while (s[n] >= '0' && s[n] <= '9') n++;
        if (n == 0 || n >= sizeof digits) return n ? MCF_NUM_RANGE : MCF_NUM_MALFORMED;
        memcpy(digits, s, n);
        digits[n] = '\0';
        if (mcf_parse_uint(digits, 1000000000, &v) != MCF_NUM_OK)
            return n > 1 && digits[0] == '0' ? MCF_NUM_MALFORMED : MCF_NUM_RANGE;
        s += n;
        double unit = 1;
        if (*s == 's')
            unit = 1, s++;
        else if (*s == 'm')
            unit = 60, s++;
        else if (*s == 'h')
            unit = 3600, s++;
        else if (*s == 'd')
            unit = 86400, s++;
        else if (*s)
            return MCF_NUM_MALFORMED;
        total += (double)v * unit;
    }
    if (total <= 0) return MCF_NUM_MALFORMED;
    if (total > 366.0 * 86400) return MCF_NUM_RANGE;
    *sec = total;
    return MCF_NUM_OK;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* A size: DIGITS[.DIGITS][spaces][UNIT], exactly a whole number of bytes, in
 * integer arithmetic (no rounding, no float-to-integer conversion). On error
 * *why says what is wrong, for the message. */
int mcf_size_parse(const char *s, uint64_t *out, const char **why)
{
    static const struct {
        const char *suffix;
        uint64_t mult;
    } units[] = {
        { "", 1 },
        { "B", 1 },
        { "KiB", 1ull << 10 },
        { "MiB", 1ull << 20 },
        { "GiB", 1ull << 30 },
        { "TiB", 1ull << 40 },
        { "K", 1ull << 10 },
        { "M", 1ull << 20 },
        { "G", 1ull << 30 },
        { "KB", 1000ull },
        { "MB", 1000000ull },
        { "GB", 1000000000ull },
        { "TB", 1000000000000ull },
    };
    uint64_t whole = 0, frac = 0, scale = 1;
    const char *p = s;
    *why = "";
    if (!s || !isdigit((unsigned char)*s)) {
        *why = s && (*s == '+' || *s == '-') ? "no sign is accepted" : "it must start with a digit";
        return -1;
    }
    if (s[0] == '0' && isdigit((unsigned char)s[1])) {
        *why = "it has a leading zero (octal in YAML 1.1)";
        return -1;
    }
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X' || s[1] == 'o' || s[1] == 'O')) {
        *why = "only decimal digits are accepted, no 0x/0o prefix";
        return -1;
    }
    for (; isdigit((unsigned char)*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        if (whole > (UINT64_MAX - d) / 10) {
            *why = "it is too large";
            return -1;
        }
        whole = whole * 10 + d;
    }
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p)) {
            *why = "digits must follow the decimal point";
            return -1;
        }
        for (int nd = 0; isdigit((unsigned char)*p); p++, nd++) {
            if (nd == 18) {
                *why = "it has too many decimal places";
                return -1;
            }
            frac = frac * 10 + (uint64_t)(*p - '0');
            scale *= 10;
        }
    }
    while (*p == ' ') p++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(p, units[i].suffix) != 0) continue;
        uint64_t m = units[i].mult, g = gcd(m, scale);
        /* frac/scale of the unit must be whole bytes: frac * m / scale, which
         * is below m, so it cannot overflow once reduced by the gcd */
        if (frac % (scale / g) != 0) {
            *why = "it is not a whole number of bytes";
            return -1;
        }
        uint64_t part = frac / (scale / g) * (m / g);
        if (whole > (UINT64_MAX - part) / m) {
            *why = "it is too large";
            return -1;
        }
        *out = whole * m + part;
        return 0;
    }
    *why = *p == 'e' || *p == 'E'
        ? "no exponent is accepted: write the digits or use a unit"
        : "the unit must be one of B, KiB, MiB, GiB, TiB, K, M, G (binary), "
          "KB, MB, GB, TB (decimal)";
    return -1;
}

int mcf_parse_size(const char *s, uint64_t *out)
{
    const char *why;
    return mcf_size_parse(s, out, &why);
}
