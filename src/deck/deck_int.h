/* Shared by the deck's parser (deck.c), its names (deck_names.c) and its
 * expansion (deck_expand.c); not for other subsystems. */
#ifndef MCF_DECK_INT_H
#define MCF_DECK_INT_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "deck.h"
#include "yamlinput.h"

#define NAME_RULE                                                                                  \
    "1-63 characters of letters, digits, '-', '_' or '.', starting with a letter or digit"
_Static_assert(MCF_NAME_LEN == 64, "NAME_RULE states the length");

/* A string and where it came from, to find repeats by sorting: O(n log n)
 * whatever the input (a pairwise check took minutes on 90,000 tests). */
struct mcf_strref {
    const char *s;
    size_t pos; /* order in the document */
    const void *where; /* the node (or instance) */
};

/* A test name as the deck takes it (NAME_RULE). */
int mcf_deck_name_ok(const char *s);
/* What HDF5 needs of a link name; checked on every expanded instance. */
int mcf_hdf5_name_ok(const char *s);
/* Sorts v; the repeat that comes first in the document, and in *first the
 * earlier one it repeats; NULL when all differ. */
const struct mcf_strref *mcf_first_repeat(struct mcf_strref *v, size_t n,
                                          const struct mcf_strref **first);
/* MCF_OK, or an error at the second of a key given twice in one mapping. */
int mcf_unique_keys(struct mcf_yaml_ctx *c, const yaml_node_t *map, const char *owner);
/* deck_keys.c: a key of the test itself (repetitions, warmup ...: NULL for a
 * kernel's); a key of the test or of its kernel, with in *base the struct its
 * offset is into; a key set by name (a sweep point). */
const struct mcf_key *mcf_deck_test_key(const char *key);
const struct mcf_key *mcf_deck_find_key(struct mcf_deck_test *t, const char *key, void **base);
void mcf_deck_set_key(struct mcf_deck_test *t, const char *key, uint64_t v);
/* t at sweep point p: its swept key set and the family's cross-key rules
 * applied (which may normalize it, 'auto' bytes at level dsm); NULL, or what
 * is wrong, in why. The reader checks every point with it, the expansion
 * builds each instance with it. */
const char *mcf_deck_sweep_point(const struct mcf_deck_test *t, int p, struct mcf_deck_test *out,
                                 char *why, size_t len);

#endif
