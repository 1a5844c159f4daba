#include "inject.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "numparse.h"

int mcf_inject_parse(const char *spec, int nranks, struct mcf_inject *out, struct mcf_err *e)
{
    return mcf_inject_parse_var(MCF_INJECT_ENV, spec, nranks, out, e);
}

int mcf_inject_parse_var(const char *var, const char *spec, int nranks, struct mcf_inject *out,
                         struct mcf_err *e)
{
    memset(out, 0, sizeof *out);
    out->rank = -1;
    if (!spec || !*spec) return MCF_OK;
    const char *at = strchr(spec, '@');
    size_t glob_len = at ? (size_t)(at - spec) : strlen(spec);
    if (glob_len == 0)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "%s='%.64s': the test pattern before '@' is empty "
                           "(GLOB[@RANK], e.g. 'tiny-triad@1' or '*')",
                           var, spec);
    if (glob_len >= sizeof out->glob)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "%s: the test pattern is %zu characters; at most %zu are supported", var,
                           glob_len, sizeof out->glob - 1);
    if (at) {
        uint64_t r = 0;
        int rc = nranks > 0 ? mcf_parse_uint(at + 1, (uint64_t)nranks - 1, &r) : MCF_NUM_RANGE;
        if (rc == MCF_NUM_MALFORMED)
            return mcf_err_set(
                e, MCF_EINPUT, __FILE__, __LINE__,
                "%s='%.300s': the rank after '@' must be a whole number, got '%.64s' (%s)", var,
                spec, at + 1, mcf_uint_problem(at + 1));
        if (rc == MCF_NUM_RANGE)
            return mcf_err_set(
                e, MCF_EINPUT, __FILE__, __LINE__,
                "%s='%.300s': rank %.64s does not exist: this run has %d rank%s (0 to %d)", var,
                spec, at + 1, nranks, nranks == 1 ? "" : "s", nranks - 1);
        out->rank = (int)r;
    }
    memcpy(out->glob, spec, glob_len);
    out->glob[glob_len] = '\0';
    out->active = 1;
    return MCF_OK;
}

int mcf_inject_match(const struct mcf_inject *in, int rank, const char *test)
{
    if (!in->active || (in->rank >= 0 && in->rank != rank)) return 0;
    return fnmatch(in->glob, test, 0) == 0;
}

int mcf_inject_clock(double *mhz, struct mcf_err *e)
{
    const char *s = getenv(MCF_INJECT_CLOCK_ENV);
    char *end = NULL;
    *mhz = 0;
    if (!s || !*s) return MCF_OK;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 1 && v <= 100000))
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           MCF_INJECT_CLOCK_ENV
                           "='%.64s': expected a clock in MHz from 1 to 100000 (e.g. 2100)",
                           s);
    *mhz = v;
    return MCF_OK;
}

int mcf_inject_check(MPI_Comm comm, struct mcf_err *e)
{
    struct mcf_inject in;
    double mhz;
    int size = 0, factor;
    MCF_MPI(e, MPI_Comm_size(comm, &size));
    if (mcf_inject_parse(getenv(MCF_INJECT_ENV), size, &in, e) == MCF_OK &&
        mcf_inject_parse_var(MCF_INJECT_SLOW_ENV, getenv(MCF_INJECT_SLOW_ENV), size, &in, e) ==
            MCF_OK &&
        mcf_inject_slow_factor(&factor, e) == MCF_OK)
        mcf_inject_clock(&mhz, e);
    return mcf_agree(comm, e);
fail:
    return e->rc;
}

int mcf_inject_here(int rank, int nranks, const char *test)
{
    struct mcf_inject in;
    struct mcf_err e = { 0 };
    if (mcf_inject_parse(getenv(MCF_INJECT_ENV), nranks, &in, &e) != MCF_OK) return 0;
    return mcf_inject_match(&in, rank, test);
}

int mcf_inject_slow_factor(int *factor, struct mcf_err *e)
{
    const char *s = getenv(MCF_INJECT_SLOW_FACTOR_ENV);
    uint64_t v = 2;
    *factor = 2;
    if (!s || !*s) return MCF_OK;
    if (mcf_parse_uint(s, 64, &v) != MCF_NUM_OK || v < 2)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           MCF_INJECT_SLOW_FACTOR_ENV
                           "='%.64s': expected a whole number from 2 to 64 (the kernel "
                           "runs that many times per repetition, the work of one counted)",
                           s);
    *factor = (int)v;
    return MCF_OK;
}

int mcf_inject_slow_here(int rank, int nranks, const char *test)
{
    struct mcf_inject in;
    struct mcf_err e = { 0 };
    int factor;
    if (mcf_inject_parse_var(MCF_INJECT_SLOW_ENV, getenv(MCF_INJECT_SLOW_ENV), nranks, &in, &e) !=
            MCF_OK ||
        mcf_inject_slow_factor(&factor, &e) != MCF_OK)
        return 1;
    return mcf_inject_match(&in, rank, test) ? factor : 1;
}
