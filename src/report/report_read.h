/* Reading a results file that may be hostile: every object is checked (link
 * kind, object kind, type class, size, rank and dimensions) before it is read,
 * reads are bounded, and what is wrong is recorded as a problem naming the
 * object ("/results/t/status: missing"), never trusted. Used by report.c. */
#ifndef MCF_REPORT_READ_H
#define MCF_REPORT_READ_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds on what a results file may claim (a fleet of a million ranks and a
 * dataset of 2^28 values are far beyond any run; a file that claims more is
 * malformed, not a reason to allocate it). The Python readers (compare,
 * baseline) hold the same numbers from analysis/mcfleet_limits.txt;
 * tests/limits_agree.sh fails when the two differ. */
#define MCF_RD_MAX_RANKS (1 << 20)
#define MCF_RD_MAX_VALUES ((size_t)1 << 28)
#define MCF_RD_MAX_COLS (1 << 20) /* repetitions of one metric, read a row at a time */
#define MCF_RD_MAX_STRING (1 << 16) /* bytes in one string of a dataset */
#define MCF_RD_MAX_TEXT (1 << 24) /* bytes of one string attribute */
#define MCF_RD_ANY SIZE_MAX /* a 1-D dataset of any length */

struct mcf_rd {
    const char *path; /* the file, for messages */
    int problems; /* malformed or unreadable objects found */
    int oom; /* an allocation failed: a runtime error, not the file's fault */
    char first[600]; /* the first problem */
    char *list; /* every problem, one "  OBJECT: what" line each */
    size_t len;
};

/* Strings of a 1-D dataset: element i at buf + i * stride, NUL-terminated. */
struct mcf_strs {
    char *buf;
    size_t stride, n;
};

/* A float dataset [rows] or [rows, cols], read a block of rows at a time. */
struct mcf_rows {
    hid_t d;
    size_t rows, cols;
};

void mcf_rd_bad(struct mcf_rd *rd, const char *obj, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mcf_rd_free(struct mcf_rd *rd);

/* The innermost message of HDF5's error stack, which is then cleared. */
void mcf_rd_h5why(char *buf, size_t len);

/* "LOC/NAME" into buf (LOC "" is the root). */
const char *mcf_rd_name(char *buf, size_t len, const char *loc, const char *name);

/* Replaces control characters and bytes that are not UTF-8 with '?' in place:
 * text from a file is printed, never interpreted by the terminal. Bytes in
 * no well-formed UTF-8 sequence (overlong forms, surrogates, beyond
 * U+10FFFF, F5..FF) are '?' each; a code point Python's str.isprintable()
 * refuses (control, bidi and other format characters, U+2028/U+2029, other
 * separators than the space, private use, noncharacters) is one '?'; the
 * string may shrink (src/report/text_safe.c). */
void mcf_rd_clean(char *s);

/* The functions below return 1 when the object was read, 0 when it is
 * absent, -1 when it is malformed or unreadable (recorded in rd). */

/* NAME (one path component) under LOC, a hard link to an object of kind WANT
 * (H5I_GROUP or H5I_DATASET); soft and external links are never followed. */
int mcf_rd_open(struct mcf_rd *rd, hid_t loc, const char *locname, const char *name,
                H5I_type_t want, hid_t *id);

/* A scalar (or one-element) string attribute, fixed or variable length, as a
 * fresh NUL-terminated string of at most MCF_RD_MAX_TEXT bytes. */
int mcf_rd_attr_text(struct mcf_rd *rd, hid_t obj, const char *objname, const char *name,
                     char **text);
/* A scalar (or one-element) integer attribute. */
int mcf_rd_attr_int(struct mcf_rd *rd, hid_t obj, const char *objname, const char *name,
                    long long *v);

/* 1-D datasets of WANT elements (MCF_RD_ANY: any length up to the bounds; the
 * length is in *n). */
int mcf_rd_ints(struct mcf_rd *rd, hid_t loc, const char *locname, const char *name, size_t want,
                long long **v, size_t *n);
int mcf_rd_strings(struct mcf_rd *rd, hid_t loc, const char *locname, const char *name, size_t want,
                   struct mcf_strs *s);
const char *mcf_strs_at(const struct mcf_strs *s, size_t i); /* "?" when not read */
void mcf_strs_free(struct mcf_strs *s);

/* A float dataset of ROWS rows: rank 2 ([rows, cols], cols >= 1) or, with
 * allow_1d, rank 1 (cols = 1); allow_int also takes integers. */
int mcf_rd_rows_open(struct mcf_rd *rd, hid_t loc, const char *locname, const char *name,
                     size_t rows, int allow_1d, int allow_int, struct mcf_rows *m);
/* Rows r0 .. r0+count-1 into buf (count * cols doubles); -1 recorded on failure. */
int mcf_rd_rows_read(struct mcf_rd *rd, const struct mcf_rows *m, const char *objname, size_t r0,
                     size_t count, double *buf);
void mcf_rd_rows_close(struct mcf_rows *m);

#endif
