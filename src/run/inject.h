/* MCFLEET_INJECT_FAULT=GLOB[@RANK], for testing the verification path: the
 * tests whose names match GLOB get one corrupted output element before
 * verify, on rank RANK only or on every rank. Parsed strictly, and checked on
 * every rank before any test runs. */
#ifndef MCF_INJECT_H
#define MCF_INJECT_H

#include <mpi.h>

#include "error.h"

#define MCF_INJECT_ENV "MCFLEET_INJECT_FAULT"
#define MCF_INJECT_GLOB_LEN 256

struct mcf_inject {
    int active; /* the variable is set and not empty */
    char glob[MCF_INJECT_GLOB_LEN]; /* fnmatch(3) pattern over instance names */
    int rank; /* -1: every rank */
};

/* spec NULL or "": inactive. Otherwise GLOB must be 1 to 255 characters and
 * RANK decimal digits (no sign, no leading zero) naming a rank below nranks;
 * MCF_EINPUT with a message naming the variable when not. */
int mcf_inject_parse(const char *spec, int nranks, struct mcf_inject *out, struct mcf_err *e);
/* The same for another variable of the same form (messages name var). */
int mcf_inject_parse_var(const char *var, const char *spec, int nranks, struct mcf_inject *out,
                         struct mcf_err *e);

/* MCFLEET_INJECT_SLOW=GLOB[@RANK], for testing the verdict (a slow GPU): on
 * the ranks and tests it matches, every timed repetition runs the kernel
 * MCFLEET_INJECT_SLOW_FACTOR times (2 to 64, default 2: half speed) and
 * counts the work of one, so the figures are real measurements of that
 * fraction of the throughput. Recorded in /meta/injected_slow. Returns the
 * factor for rank and test (1: none); the variables are checked by
 * mcf_inject_check before any test. */
#define MCF_INJECT_SLOW_ENV "MCFLEET_INJECT_SLOW"
#define MCF_INJECT_SLOW_FACTOR_ENV "MCFLEET_INJECT_SLOW_FACTOR"
int mcf_inject_slow_here(int rank, int nranks, const char *test);
int mcf_inject_slow_factor(int *factor, struct mcf_err *e);

/* MCFLEET_INJECT_CLOCK_MHZ=MHZ, for testing the clock check (verdict.h's
 * clock_rel): every sample's in-kernel clock reads MHZ, on backends that
 * stamp one and on those that do not (the host), which then record it.
 * *mhz is 0 where the variable is unset or empty; MCF_EINPUT naming it where
 * it is not a number from 1 to 100000. */
#define MCF_INJECT_CLOCK_ENV "MCFLEET_INJECT_CLOCK_MHZ"
int mcf_inject_clock(double *mhz, struct mcf_err *e);

/* 1 when rank injects the fault into test. */
int mcf_inject_match(const struct mcf_inject *in, int rank, const char *test);

/* Collective over comm: parses this rank's MCFLEET_INJECT_FAULT (and
 * MCFLEET_INJECT_SLOW, MCFLEET_INJECT_CLOCK_MHZ) and agrees
 * (mcf_agree), so a bad value stops every rank, exit 2, before any test. */
int mcf_inject_check(MPI_Comm comm, struct mcf_err *e);

/* For runner.c's inject_here(): this rank's MCFLEET_INJECT_FAULT parsed and
 * matched against test. 0 when it does not parse (mcf_inject_check stops a
 * run with such a value before its first test). */
int mcf_inject_here(int rank, int nranks, const char *test);

#endif
