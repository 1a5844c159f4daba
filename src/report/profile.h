/* SKU profiles: what a healthy GPU of one SKU reaches in each acceptance test
 * (the YAML files of input/sku; the format: docs/acceptance.md, "SKU profiles and their
 * sources"). Read with the deck's strictness: every key known and given once,
 * every number checked, every figure with its source; a mistake is
 * MCF_EINPUT with "file:line:col: message". No globals. */
#ifndef MCF_PROFILE_H
#define MCF_PROFILE_H

#include <stddef.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCF_PROFILE_MAX_RULES 8 /* entries per match list */

struct mcf_profile_test {
    char test[128]; /* the deck's test (instance) name, e.g. "matrix-fp16", "chase:working_set=4096"
                     */
    char metric[32]; /* the judged metric it bounds, as results files name it */
    double expected; /* the sourced figure, in the metric's unit */
    double bound; /* floor (higher_is_better) or ceiling */
    int higher_is_better; /* 1: a floor bounds it; 0: a ceiling (the file's direction must agree) */
    char source_id[64]; /* the key in sources:, "" for a measured label */
    char source[512]; /* the citation: sources[source_id], or "measured: device, date, ..." */
    char note[256]; /* "" when none */
    char measured[512]; /* what the figure measured (the results file's attribute "measured"); ""
                         * when the profile does not say: then it judges no test */
    int line; /* 1-based line of the test in the file */
};

struct mcf_profile {
    char path[1024];
    char sku[128];
    char description[256];
    /* match rules: every given rule must hold */
    char arch[MCF_PROFILE_MAX_RULES]
             [32]; /* exact, case-insensitive, up to the recorded arch's first ':' */
    size_t narch;
    char device_name[MCF_PROFILE_MAX_RULES][64]; /* case-insensitive substrings: one must occur */
    size_t ndevice_name;
    char exclude[MCF_PROFILE_MAX_RULES][64]; /* case-insensitive substrings: none may occur */
    size_t nexclude;
    long compute_units[MCF_PROFILE_MAX_RULES]; /* /ranks/compute_units must be one of these (none:
                                                  any) */
    size_t ncompute_units;
    struct mcf_profile_test *tests;
    size_t ntests;
};

/* Reads and validates one profile. MCF_OK, or MCF_EINPUT with
 * "path:line:col: message" (MCF_ERUNTIME for out of memory). *p is zeroed
 * first and holds nothing to free on error. */
int mcf_profile_load(const char *path, struct mcf_profile *p, struct mcf_err *e);

/* How well p matches a device: 0 when it does not, else 1 + the length of the
 * longest device_name substring found (the more specific, the higher).
 * compute_units <= 0 means unknown: a profile with a compute_units rule then
 * does not match. */
int mcf_profile_matches(const struct mcf_profile *p, const char *device_name, const char *arch,
                        long compute_units);

/* Profiles of a directory that did not load: "file:line:col: message" each. */
#define MCF_PROFILE_MAX_SKIPPED 16
struct mcf_profile_skipped {
    size_t n, more; /* kept; not kept beyond the first MCF_PROFILE_MAX_SKIPPED */
    char msg[MCF_PROFILE_MAX_SKIPPED][600];
};

/* The profile in dir (every regular *.yaml file, in name order) that matches
 * a device (device_name, arch and compute_units as recorded in /ranks).
 * A file that does not load is skipped and its message added to *skipped
 * (NULL: not kept): the others still serve the SKUs they cover, and the
 * caller names it (a typo never drops a SKU silently). 1: found, *p filled
 * (free it with mcf_profile_free); 0: none matches, *p empty; -1: an error
 * in *e, *p empty: dir not readable, out of memory, or two profiles matching
 * equally well (both named). */
int mcf_profile_find(const char *dir, const char *device_name, const char *arch, long compute_units,
                     struct mcf_profile *p, struct mcf_profile_skipped *skipped, struct mcf_err *e);

/* The entry for a test, or NULL. metric NULL: any metric. */
const struct mcf_profile_test *mcf_profile_test(const struct mcf_profile *p, const char *test,
                                                const char *metric);

void mcf_profile_free(struct mcf_profile *p);

/* The shipped profiles' directory: $(pkgdatadir)/sku when installed there
 * (MCF_PROFILE_DIR, set by Makefile.am), else the source tree's input/sku
 * (MCF_SRC_PROFILE_DIR) for an uninstalled build; NULL when neither is a
 * directory. `mcfleet report --profiles DIR` and MCFLEET_PROFILES come first
 * (the caller's). */
const char *mcf_profile_dir(void);

#ifdef __cplusplus
}
#endif

#endif
