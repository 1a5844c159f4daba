/* Strict whole numbers, for deck values and environment variables: decimal
 * digits only. No sign, no spaces, no leading zero (010 is octal in YAML 1.1),
 * no exponent, no 0x/0o/0b prefix, no '_' separators. */
#ifndef MCF_NUMPARSE_H
#define MCF_NUMPARSE_H

#include <stdint.h>

enum { MCF_NUM_OK = 0, MCF_NUM_MALFORMED = -1, MCF_NUM_RANGE = -2 };

/* *out = s when s is a decimal whole number <= max. MCF_NUM_MALFORMED when s
 * is not one (NULL, empty, a sign, ...), MCF_NUM_RANGE when it is but exceeds
 * max (or 2^64 - 1). *out is written only on success. */
int mcf_parse_uint(const char *s, uint64_t max, uint64_t *out);

/* Why s is not a decimal whole number, in a few words for a message
 * ("has a leading zero (octal in YAML 1.1)"); "" when it is one. */
const char *mcf_uint_problem(const char *s);

/* A duration: whole numbers each with a unit, s, m, h or d ("90s", "15m",
 * "1h30m"); a bare number is seconds. *sec on success (0 < *sec <= 1 year);
 * MCF_NUM_MALFORMED or MCF_NUM_RANGE otherwise. */
int mcf_parse_duration(const char *s, double *sec);

/* A size: DIGITS[.DIGITS][spaces][UNIT] (B, KiB, MiB, GiB, TiB, K, M, G
 * binary; KB, MB, GB, TB decimal), exactly a whole number of bytes. 0 and
 * *out on success; -1 and, in *why, what is wrong (for a message). */
int mcf_size_parse(const char *s, uint64_t *out, const char **why);
int mcf_parse_size(const char *s, uint64_t *out); /* the same, without the why */

#endif
