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
int mcf_yaml_read(const char *path, const char *what, const char *noun, size_t max_bytes,
                  char **text, struct mcf_err *e);

enum mcf_yaml_scan {
    MCF_YAML_SCAN_OK,
    MCF_YAML_SCAN_DEEP,
    MCF_YAML_SCAN_ANCHORS,
    MCF_YAML_SCAN_NOMEM
};

/* The tokens of TEXT: DEEP at the first [ or { nested beyond max_depth,
 * ANCHORS at the anchor beyond max_anchors (*mark says where), OK otherwise
 * (a syntax error is left to the loader, which reports it). Linear in the
 * text under these limits. */
int mcf_yaml_prescan(const char *text, int max_depth, int max_anchors, yaml_mark_t *mark);

/* Where a YAML input is read: its path (for messages), the loaded document
 * and the error to fill. */
struct mcf_yaml_ctx {
    const char *path;
    yaml_document_t *doc;
    struct mcf_err *e;
};

/* Every error of a YAML input: MCF_EINPUT with "path:line:col: message"
 * (1-based like compilers; the end of a very long path; control bytes of the
 * file shown as '?', never sent to the terminal raw). */
int mcf_yaml_at_mark(const struct mcf_yaml_ctx *c, yaml_mark_t mark, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* mcf_yaml_prescan with its findings as c's error at the token that crossed
 * a limit; depth_need and anchors_need say what such an input needs ("a deck
 * needs 3 at most"; "; a deck needs a few" or ""). */
int mcf_yaml_limits(struct mcf_yaml_ctx *c, const char *text, int max_depth, int max_anchors,
                    const char *depth_need, const char *anchors_need);
int mcf_yaml_at(const struct mcf_yaml_ctx *c, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A scalar node's text, or NULL (n NULL or not a scalar). */
const char *mcf_yaml_scalar(const yaml_node_t *n);
/* "a scalar", "a list", "a mapping", "nothing": for messages. */
const char *mcf_yaml_node_kind(const yaml_node_t *n);

#endif
