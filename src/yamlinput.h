/* What every YAML input (a deck, a SKU profile) needs before it is parsed:
 * reading the file with care (a regular file only, bounded, no NUL bytes; a
 * FIFO never waited on) and a first pass over its tokens that stops input on
 * which libyaml's time grows with the square of its size. The callers word
 * the messages for their own files. */
#ifndef MCF_YAMLINPUT_H
#define MCF_YAMLINPUT_H

#include <stddef.h>
#include <yaml.h>

#include "error.h"

/* Reads PATH into *text (NUL-terminated; the caller frees). Messages are
 * "WHAT PATH: ..." and call a wrong file "not NOUN" (WHAT "--deck", NOUN
 * "a deck"); MCF_EINPUT for a missing, irregular, too large (over
 * max_bytes) or binary file. */
int mcf_yaml_read(const char *path, const char *what, const char *noun, size_t max_bytes, char **text,
                  struct mcf_err *e);

enum mcf_yaml_scan { MCF_YAML_SCAN_OK, MCF_YAML_SCAN_DEEP, MCF_YAML_SCAN_ANCHORS, MCF_YAML_SCAN_NOMEM };

/* The tokens of TEXT: DEEP at the first [ or { nested beyond max_depth,
 * ANCHORS at the anchor beyond max_anchors (*mark says where), OK otherwise
 * (a syntax error is left to the loader, which reports it). Linear in the
 * text under these limits. */
int mcf_yaml_prescan(const char *text, int max_depth, int max_anchors, yaml_mark_t *mark);

#endif
