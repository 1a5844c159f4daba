/* The stub libraries' script: is word m one of the comma-separated words of
 * the environment variable var (unset or empty: "ok")? */
#ifndef STUB_WORDS_H
#define STUB_WORDS_H
#include <stdlib.h>
#include <string.h>

static int stub_word(const char *var, const char *m)
{
    const char *s = getenv(var);
    size_t n = strlen(m);
    s = s && *s ? s : "ok";
    for (const char *p = s; (p = strstr(p, m)) != NULL; p += n)
        if ((p == s || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
    return 0;
}
#endif
