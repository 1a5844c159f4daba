#include "numparse.h"

#include <ctype.h>
#include <string.h>

int mcf_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    int over = 0;
    if (!s || !isdigit((unsigned char)s[0]) || (s[0] == '0' && s[1] != '\0'))
        return MCF_NUM_MALFORMED;
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char)*p))
            return MCF_NUM_MALFORMED;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            over = 1;            /* keep scanning: a later letter is still malformed */
        else
            v = v * 10 + d;
    }
    if (over || v > max)
        return MCF_NUM_RANGE;
    *out = v;
    return MCF_NUM_OK;
}

const char *mcf_uint_problem(const char *s)
{
    if (!s || !*s)
        return "it is empty";
    if (*s == '+' || *s == '-')
        return "no sign is accepted";
    if (*s == ' ' || *s == '\t' || s[strlen(s) - 1] == ' ' || s[strlen(s) - 1] == '\t')
        return "it has spaces around it";
    if (s[0] == '0' && s[1] && strchr("xXoObB", s[1]))
        return "only decimal digits are accepted, no 0x/0o/0b prefix";
    if (s[0] == '0' && isdigit((unsigned char)s[1]))
        return "it has a leading zero (octal in YAML 1.1): write the number without it";
    if (isdigit((unsigned char)s[0]) && strpbrk(s, ".eE"))
        return "write it out in digits, without a decimal point or exponent";
    if (isdigit((unsigned char)s[0]) && strchr(s, '_'))
        return "write it without '_' separators";
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p))
            return "only decimal digits are accepted";
    return "";
}

int mcf_parse_duration(const char *s, double *sec)
{
    double total = 0;
    if (!s || !*s)
        return MCF_NUM_MALFORMED;
    while (*s) {
        char digits[24];
        size_t n = 0;
        uint64_t v;
        while (s[n] >= '0' && s[n] <= '9')
            n++;
        if (n == 0 || n >= sizeof digits)
            return n ? MCF_NUM_RANGE : MCF_NUM_MALFORMED;
        memcpy(digits, s, n);
        digits[n] = '\0';
        if (mcf_parse_uint(digits, 1000000000, &v) != MCF_NUM_OK)
            return n > 1 && digits[0] == '0' ? MCF_NUM_MALFORMED : MCF_NUM_RANGE;
        s += n;
        double unit = 1;
        if (*s == 's') unit = 1, s++;
        else if (*s == 'm') unit = 60, s++;
        else if (*s == 'h') unit = 3600, s++;
        else if (*s == 'd') unit = 86400, s++;
        else if (*s) return MCF_NUM_MALFORMED;
        total += (double)v * unit;
    }
    if (total <= 0)
        return MCF_NUM_MALFORMED;
    if (total > 366.0 * 86400)
        return MCF_NUM_RANGE;
    *sec = total;
    return MCF_NUM_OK;
}
