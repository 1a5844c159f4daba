/* Decks: YAML lists of tests, validated completely before any rank starts work.
 * The format is documented in docs/decks.md. */
#ifndef MCF_DECK_H
#define MCF_DECK_H

#include <stdint.h>

#include "backend.h"
#include "error.h"
#include "kernel.h"
#include "numparse.h" /* mcf_parse_size */

#define MCF_MAX_SWEEP 64
#define MCF_NAME_LEN 64

/* A value of 0 for bytes means "auto": resolved from rank 0's device. */
struct mcf_deck_test {
    char name[MCF_NAME_LEN];
    struct mcf_kernel kernel; /* parameters; the swept one holds the first point */
    int repetitions, warmup;
    int time_limit; /* seconds a rank may spend in the test (0: derived, see watchdog.h) */
    int duration; /* sustained: seconds of back-to-back repetitions (0: a
                     fixed number of repetitions) */
    char sweep_key[32]; /* "" when the test has no list-valued key */
    int nsweep;
    uint64_t sweep[MCF_MAX_SWEEP];
    int line; /* where the test starts in the deck */
    unsigned given; /* bit i: the family's key i came from the deck (family.h's check) */
};

struct mcf_deck {
    char path[1024]; /* fits any --deck (options.c: MCF_PATH_MAX) */
    char *text; /* the whole deck, recorded in /meta */
    char name[MCF_NAME_LEN];
    int repetitions, warmup; /* defaults for tests */
    int time_limit; /* default time limit of a test, seconds (0: derived) */
    int power_period_ms; /* sampling period (power issue) */
    int quick; /* --quick applied */
    unsigned power_sources; /* bit k: sources of kind k (power.h) may be used (default all) */
    int power_series; /* keep every sample in the file (default 1); 0: only the
                         per-test and per-repetition figures (fleet-scale runs) */
    int allow_shared_devices; /* several ranks may use one GPU */
    int acceptance; /* acceptance: true: an acceptance deck (recorded in /meta/acceptance) */
    char arch[256]; /* arch: the architectures it targets, comma-separated ("" none;
                       /meta/deck_arch) */
    int ntests;
    struct mcf_deck_test *tests;
};

/* One test at one sweep point: what the runner executes and records. */
struct mcf_instance {
    char name[MCF_NAME_LEN + 48]; /* test name, or "name:key=value" for a sweep point */
    const struct mcf_deck_test *test;
    struct mcf_kernel kernel;
    int repetitions, warmup;
    int time_limit; /* seconds (0: derived from the test's own time) */
    int duration; /* sustained: seconds (0: repetitions) */
    uint64_t sweep_value;
};

/* Parses text (named path in messages). MCF_EINPUT with "path:line:col: ..." on error. */
int mcf_deck_parse(const char *path, const char *text, struct mcf_deck *deck, struct mcf_err *e);
/* Reads a deck file into *text (caller frees). */
int mcf_deck_read(const char *path, char **text, struct mcf_err *e);
int mcf_deck_load(const char *path, struct mcf_deck *deck, struct mcf_err *e);
void mcf_deck_free(struct mcf_deck *deck);

/* --quick: few repetitions and small sizes, a smoke run in seconds. */
void mcf_deck_quick(struct mcf_deck *deck);

/* Expands sweeps into instances, resolving "auto" sizes from dev (rank 0's
 * device, so every rank runs identical work). Caller frees *out. */
int mcf_deck_expand(const struct mcf_deck *deck, const struct mcf_device_info *dev,
                    struct mcf_instance **out, int *count, struct mcf_err *e);

/* The built-in default deck (input/default.yaml, compiled in). */
extern const char mcf_default_deck[];

#endif
