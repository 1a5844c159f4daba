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

/* This world rank's value ($OMPI_COMM_WORLD_RANK, else 0) of the environment
 * variable var, comma-separated values, one per rank, the last repeated;
 * dflt where unset or empty. */
static __attribute__((unused)) double stub_rank_value(const char *var, double dflt)
{
    const char *s = getenv(var), *rank = getenv("OMPI_COMM_WORLD_RANK");
    double v = dflt;
    int r = rank ? atoi(rank) : 0;
    for (int i = 0; s && *s; i++) {
        v = atof(s);
        if (i >= r)
            break;
        s = strchr(s, ',');
        s = s ? s + 1 : NULL;
    }
    return v;
}
#endif
