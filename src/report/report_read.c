#include "report_read.h"
#include "text_safe.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One exit path per function: BAD records the problem and jumps to fail. */
#define BAD(...)                                                                                   \
    do {                                                                                           \
        mcf_rd_bad(rd, obj, __VA_ARGS__);                                                          \
        goto fail;                                                                                 \
    } while (0)
/* An HDF5 call that fails on a corrupt file: the problem is HDF5's own message. */
#define RD_H5(call, what)                                                                          \
    do {                                                                                           \
        if ((long long)(call) < 0) {                                                               \
            char w_[200];                                                                          \
            mcf_rd_h5why(w_, sizeof w_);                                                           \
            BAD("%s: %s", (what), w_);                                                             \
        }                                                                                          \
    } while (0)
#define NOMEM()                                                                                    \
    do {                                                                                           \
        rd->oom = 1;                                                                               \
        BAD("out of memory");                                                                      \
    } while (0)

static herr_t innermost(unsigned n, const H5E_error2_t *err, void *data)
{
    if (n == 0) snprintf(data, 200, "%s", err->desc ? err->desc : "HDF5 error");
    return 0;
}

void mcf_rd_h5why(char *buf, size_t len)
{
    char w[200] = "HDF5 error";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, innermost, w);
    H5Eclear2(H5E_DEFAULT);
    snprintf(buf, len, "%s", w);
    mcf_rd_clean(buf);
}

void mcf_rd_bad(struct mcf_rd *rd, const char *obj, const char *fmt, ...)
{
    char what[400], line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line, "%s: %s", obj, what);
    mcf_rd_clean(line);
    if (rd->problems++ == 0) snprintf(rd->first, sizeof rd->first, "%s", line);
    size_t n = strlen(line);
    char *grown = realloc(rd->list, rd->len + n + 4);
    if (!grown) {
        rd->oom = 1;
        return;
    }
    snprintf(grown + rd->len, n + 4, "  %s\n", line);
    rd->list = grown;
    rd->len += n + 3;
}

void mcf_rd_free(struct mcf_rd *rd)
{
    free(rd->list);
    rd->list = NULL;
    rd->len = 0;
}

const char *mcf_rd_name(char *buf, size_t len, const char *loc, const char *name)
{
    snprintf(buf, len, "%s/%s", loc, name);
    return buf;
}

void mcf_rd_clean(char *s)
{
    mcf_text_clean(
        s, ""); /* src/report/text_safe.c: the rule analysis/mcfleet_results.py show() keeps */
}

/* The dimensions of a dataspace: rank 0 for a scalar; -1 recorded for none. */
static int extent(struct mcf_rd *rd, hid_t space, const char *obj, hsize_t dims[2])
{
    int nd = -1;
    H5S_class_t cls = H5Sget_simple_extent_type(space);
    dims[0] = dims[1] = 1;
    if (cls == H5S_NULL) BAD("holds no data (a null dataspace)");
    if (cls != H5S_SCALAR && cls != H5S_SIMPLE) BAD("has an unreadable dataspace");
    nd = H5Sget_simple_extent_ndims(space);
    if (nd < 0 || nd > H5S_MAX_RANK) BAD("has an unreadable dataspace");
    if (nd > 2) BAD("has %d dimensions", nd);
    if (nd > 0 && H5Sget_simple_extent_dims(space, dims, NULL) != nd)
        BAD("has an unreadable dataspace");
    return nd;
fail:
    return -1;
}

static const char *class_name(H5T_class_t c)
{
    switch (c) {
    case H5T_INTEGER: return "an integer";
    case H5T_FLOAT: return "a float";
    case H5T_STRING: return "a string";
    case H5T_COMPOUND: return "a compound";
    case H5T_ENUM: return "an enum";
    case H5T_VLEN: return "a variable-length sequence";
    case H5T_ARRAY: return "an array";
    case H5T_OPAQUE: return "an opaque";
    case H5T_BITFIELD: return "a bitfield";
    case H5T_REFERENCE: return "a reference";
    case H5T_TIME: return "a time";
    default: return "an unknown";
    }
}

int mcf_rd_open(struct mcf_rd *rd, hid_t loc, const char *locname, const char *name,
                H5I_type_t want, hid_t *id)
{
    char obj[512];
    H5L_info_t li;
    hid_t o = H5I_INVALID_HID;
    int rc = -1;
    mcf_rd_name(obj, sizeof obj, locname, name);
    *id = H5I_INVALID_HID;
    if (!name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
        BAD("not a valid object name");
    htri_t ex = H5Lexists(loc, name, H5P_DEFAULT);
    RD_H5(ex, "cannot be looked up");
    if (!ex) return 0;
    RD_H5(H5Lget_info(loc, name, &li, H5P_DEFAULT), "cannot be looked up");
    if (li.type != H5L_TYPE_HARD)
        BAD("is %s link, not followed",
            li.type == H5L_TYPE_SOFT           ? "a soft"
                : li.type == H5L_TYPE_EXTERNAL ? "an external"
                                               : "a user-defined");
    RD_H5(o = H5Oopen(loc, name, H5P_DEFAULT), "cannot be opened");
    H5I_type_t t = H5Iget_type(o);
    if (t != want)
        BAD("is a %s, expected a %s",
            t == H5I_GROUP         ? "group"
                : t == H5I_DATASET ? "dataset"
                                   : "named datatype",
            want == H5I_GROUP ? "group" : "dataset");
    *id = o;
    return 1;
fail:
    if (o >= 0) H5Oclose(o);
    return rc;
}

/* A string of an attribute or dataset element: the memory type matching the
 * file type's character set (HDF5 converts no character sets). */
static hid_t string_memtype(hid_t ft, int variable, size_t size)
{
    hid_t mt = H5Tcopy(H5T_C_S1);
    if (mt < 0) return mt;
    H5T_cset_t cs = H5Tget_cset(ft);
    if (H5Tset_size(mt, variable ? H5T_VARIABLE : size) < 0 ||
        H5Tset_cset(mt, cs == H5T_CSET_UTF8 ? H5T_CSET_UTF8 : H5T_CSET_ASCII) < 0 ||
        (!variable && H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0)) {
        H5Tclose(mt);
        return H5I_INVALID_HID;
    }
    return mt;
}

/* Opens attribute NAME of OBJ, checks its class and that it holds one value. */
static int attr_open(struct mcf_rd *rd, hid_t objid, const char *obj, const char *name,
                     H5T_class_t want, hid_t *a, hid_t *t)
{
    hid_t s = H5I_INVALID_HID;
    hsize_t dims[2];
    *a = *t = H5I_INVALID_HID;
    htri_t ex = H5Aexists(objid, name);
    RD_H5(ex, "cannot be looked up");
    if (!ex) return 0;
    RD_H5(*a = H5Aopen(objid, name, H5P_DEFAULT), "cannot be opened");
    RD_H5(*t = H5Aget_type(*a), "has an unreadable type");
    H5T_class_t c = H5Tget_class(*t);
    if (c != want) BAD("is %s, expected %s", class_name(c), class_name(want));
    RD_H5(s = H5Aget_space(*a), "has an unreadable dataspace");
    int nd = extent(rd, s, obj, dims);
    if (nd < 0) goto fail;
    if (nd > 1 || (nd == 1 && dims[0] != 1))
        BAD("holds %llu values, expected one",
            (unsigned long long)(nd == 2 ? dims[0] * dims[1] : dims[0]));
    H5Sclose(s);
    return 1;
fail:
    if (s >= 0) H5Sclose(s);
    if (*t >= 0) H5Tclose(*t);
    if (*a >= 0) H5Aclose(*a);
    *a = *t = H5I_INVALID_HID;
    return -1;
}

int mcf_rd_attr_text(struct mcf_rd *rd, hid_t objid, const char *objname, const char *name,
                     char **text)
{
    char obj[512];
    hid_t a, t, mt = H5I_INVALID_HID;
    char *v = NULL, *buf = NULL;
    int rc;
    snprintf(obj, sizeof obj, "%s attribute %s", objname, name);
    *text = NULL;
    if ((rc = attr_open(rd, objid, obj, name, H5T_STRING, &a, &t)) <= 0) return rc;
    htri_t var = H5Tis_variable_str(t);
    RD_H5(var, "has an unreadable type");
    if (var) {
        RD_H5(mt = string_memtype(t, 1, 0), "has an unreadable type");
        RD_H5(H5Aread(a, mt, &v), "cannot be read");
        size_t n = v ? strnlen(v, MCF_RD_MAX_TEXT + 1) : 0;
        if (n > MCF_RD_MAX_TEXT) BAD("is longer than %d bytes", MCF_RD_MAX_TEXT);
        if (!(buf = malloc(n + 1))) NOMEM();
        memcpy(buf, v ? v : "", n);
        buf[n] = '\0';
    } else {
        size_t size = H5Tget_size(t);
        if (size == 0 || size > MCF_RD_MAX_TEXT)
            BAD("is a string of %zu bytes (at most %d)", size, MCF_RD_MAX_TEXT);
        RD_H5(mt = string_memtype(t, 0, size + 1), "has an unreadable type");
        if (!(buf = calloc(size + 1, 1))) NOMEM();
        RD_H5(H5Aread(a, mt, buf), "cannot be read");
        buf[size] = '\0';
    }
    *text = buf;
    buf = NULL;
    rc = 1;
    goto done;
fail:
    rc = -1;
done:
    free(buf);
    if (v) H5free_memory(v);
    if (mt >= 0) H5Tclose(mt);
    H5Tclose(t);
    H5Aclose(a);
    return rc;
}

int mcf_rd_attr_int(struct mcf_rd *rd, hid_t objid, const char *objname, const char *name,
                    long long *v)
{
    char obj[512];
    hid_t a, t;
    long long x = 0;
    int rc;
    snprintf(obj, sizeof obj, "%s attribute %s", objname, name);
    if ((rc = attr_open(rd, objid, obj, name, H5T_INTEGER, &a, &t)) <= 0) return rc;
    RD_H5(H5Aread(a, H5T_NATIVE_LLONG, &x), "cannot be read");
    *v = x;
    rc = 1;
    goto done;
fail:
    rc = -1;
done:
    H5Tclose(t);
    H5Aclose(a);
    return rc;
}

/* Opens a 1-D dataset of class WANT and WANTN elements (or any number). */
static int ds1_open(struct mcf_rd *rd, hid_t loc, const char *locname, const char *name,
                    H5T_class_t want, size_t wantn, hid_t *d, hid_t *t, size_t *n)
{
    char obj[512];
    hid_t s = H5I_INVALID_HID;
    hsize_t dims[2];
    int rc;
    mcf_rd_name(obj, sizeof obj, locname, name);
    *t = H5I_INVALID_HID;
    if ((rc = mcf_rd_open(rd, loc, locname, name, H5I_DATASET, d)) <= 0) return rc;
    RD_H5(*t = H5Dget_type(*d), "has an unreadable type");
    H5T_class_t c = H5Tget_class(*t);
    if (c != want) BAD("is %s dataset, expected %s", class_name(c), class_name(want));
    RD_H5(s = H5Dget_space(*d), "has an unreadable dataspace");
    int nd = extent(rd, s, obj, dims);
    if (nd < 0) goto fail;
    if (nd != 1) BAD("has %d dimensions, expected 1", nd);
    if (wantn != MCF_RD_ANY && dims[0] != wantn)
        BAD("has %llu elements, expected %zu", (unsigned long long)dims[0], wantn);
    if (dims[0] > MCF_RD_MAX_RANKS)
        BAD("has %llu elements, more than %d", (unsigned long long)dims[0], MCF_RD_MAX_RANKS);
    *n = (size_t)dims[0];
    H5Sclose(s);
    return 1;
fail:
    if (s >= 0) H5Sclose(s);
    if (*t >= 0) H5Tclose(*t);
    if (*d >= 0) H5Dclose(*d);
    *d = *t = H5I_INVALID_HID;
    return -1;
}

int mcf_rd_ints(struct mcf_rd *rd, hid_t loc, const char *locname, const char *name, size_t want,
                long long **v, size_t *count)
{
    char obj[512];
    hid_t d, t;
    size_t n = 0;
    long long *x = NULL;
    int rc;
    mcf_rd_name(obj, sizeof obj, locname, name);
    *v = NULL;
    if ((rc = ds1_open(rd, loc, locname, name, H5T_INTEGER, want, &d, &t, &n)) <= 0) return rc;
    if (!(x = calloc(n ? n : 1, sizeof *x))) NOMEM();
    if (n) RD_H5(H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, x), "cannot be read");
    *v = x;
    x = NULL;
    if (count) *count = n;
    rc = 1;
    goto done;
fail:
    rc = -1;
done:
    free(x);
    H5Tclose(t);
    H5Dclose(d);
    return rc;
}

static void reclaim(hid_t mt, size_t n, char **ptrs)
{
    hsize_t dim = n;
    hid_t s = H5Screate_simple(1, &dim, NULL);
    if (s < 0) return;
#if H5_VERSION_GE(1, 12, 0)
    H5Treclaim(mt, s, H5P_DEFAULT, ptrs);
#else
    H5Dvlen_reclaim(mt, s, H5P_DEFAULT, ptrs);
#endif
    H5Sclose(s);
}

int mcf_rd_strings(struct mcf_rd *rd, hid_t loc, const char *locname, const char *name, size_t want,
                   struct mcf_strs *out)
{
    char obj[512];
    hid_t d, t, mt = H5I_INVALID_HID;
    size_t n = 0;
    char **ptrs = NULL, *buf = NULL;
    int rc;
    mcf_rd_name(obj, sizeof obj, locname, name);
    memset(out, 0, sizeof *out);
    if ((rc = ds1_open(rd, loc, locname, name, H5T_STRING, want, &d, &t, &n)) <= 0) return rc;
    htri_t var = H5Tis_variable_str(t);
    RD_H5(var, "has an unreadable type");
    size_t stride = 1;
    if (var) {
        RD_H5(mt = string_memtype(t, 1, 0), "has an unreadable type");
        if (!(ptrs = calloc(n ? n : 1, sizeof *ptrs))) NOMEM();
        if (n) RD_H5(H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs), "cannot be read");
        for (size_t i = 0; i < n; i++) {
            size_t len = ptrs[i] ? strnlen(ptrs[i], MCF_RD_MAX_STRING + 1) : 0;
            if (len > MCF_RD_MAX_STRING)
                BAD("element %zu is longer than %d bytes", i, MCF_RD_MAX_STRING);
            if (len + 1 > stride) stride = len + 1;
        }
        if (!(buf = calloc(n ? n : 1, stride))) NOMEM();
        for (size_t i = 0; i < n; i++)
            if (ptrs[i]) memcpy(buf + i * stride, ptrs[i], strnlen(ptrs[i], stride - 1));
    } else {
        size_t size = H5Tget_size(t);
        if (size == 0 || size > MCF_RD_MAX_STRING)
            BAD("holds strings of %zu bytes (at most %d)", size, MCF_RD_MAX_STRING);
        stride = size + 1;
        if (n > MCF_RD_MAX_VALUES / stride)
            BAD("holds %zu strings of %zu bytes: too large", n, size);
        RD_H5(mt = string_memtype(t, 0, stride), "has an unreadable type");
        if (!(buf = calloc(n ? n : 1, stride))) NOMEM();
        if (n) RD_H5(H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), "cannot be read");
        for (size_t i = 0; i < n; i++) buf[i * stride + size] = '\0';
    }
    for (size_t i = 0; i < n; i++) mcf_rd_clean(buf + i * stride);
    out->buf = buf;
    out->stride = stride;
    out->n = n;
    buf = NULL;
    rc = 1;
    goto done;
fail:
    rc = -1;
done:
    if (ptrs) {
        reclaim(mt, n, ptrs);
        free(ptrs);
    }
    free(buf);
    if (mt >= 0) H5Tclose(mt);
    H5Tclose(t);
    H5Dclose(d);
    return rc;
}

const char *mcf_strs_at(const struct mcf_strs *s, size_t i)
{
    return s->buf && i < s->n ? s->buf + i * s->stride : "?";
}

void mcf_strs_free(struct mcf_strs *s)
{
    free(s->buf);
    memset(s, 0, sizeof *s);
}

int mcf_rd_rows_open(struct mcf_rd *rd, hid_t loc, const char *locname, const char *name,
                     size_t rows, int allow_1d, int allow_int, struct mcf_rows *m)
{
    char obj[512];
    hid_t t = H5I_INVALID_HID, s = H5I_INVALID_HID;
    hsize_t dims[2];
    int rc;
    mcf_rd_name(obj, sizeof obj, locname, name);
    m->d = H5I_INVALID_HID;
    m->rows = m->cols = 0;
    if ((rc = mcf_rd_open(rd, loc, locname, name, H5I_DATASET, &m->d)) <= 0) return rc;
    RD_H5(t = H5Dget_type(m->d), "has an unreadable type");
    H5T_class_t c = H5Tget_class(t);
    if (c != H5T_FLOAT && !(allow_int && c == H5T_INTEGER))
        BAD("is %s dataset, expected a float", class_name(c));
    RD_H5(s = H5Dget_space(m->d), "has an unreadable dataspace");
    int nd = extent(rd, s, obj, dims);
    if (nd < 0) goto fail;
    if (nd != 2 && !(allow_1d && nd == 1))
        BAD("has %d dimensions, expected %s", nd, allow_1d ? "1 or 2" : "2 [nranks, repetitions]");
    if (dims[0] != rows)
        BAD("has %llu rows, expected %zu (nranks)", (unsigned long long)dims[0], rows);
    if (nd == 2 && dims[1] == 0) BAD("has no repetitions (0 columns)");
    if (dims[1] > MCF_RD_MAX_COLS || rows * dims[1] > MCF_RD_MAX_VALUES)
        BAD("has %llu x %llu values (at most %d repetitions and %zu values)",
            (unsigned long long)dims[0], (unsigned long long)dims[1], MCF_RD_MAX_COLS,
            MCF_RD_MAX_VALUES);
    m->rows = rows;
    m->cols = (size_t)dims[1];
    H5Sclose(s);
    H5Tclose(t);
    return 1;
fail:
    if (s >= 0) H5Sclose(s);
    if (t >= 0) H5Tclose(t);
    mcf_rd_rows_close(m);
    return -1;
}

int mcf_rd_rows_read(struct mcf_rd *rd, const struct mcf_rows *m, const char *obj, size_t r0,
                     size_t count, double *buf)
{
    hid_t fs = H5I_INVALID_HID, ms = H5I_INVALID_HID;
    int rc = -1;
    if (r0 > m->rows || count > m->rows - r0) BAD("rows %zu..%zu out of range", r0, r0 + count);
    RD_H5(fs = H5Dget_space(m->d), "has an unreadable dataspace");
    hsize_t start[2] = { r0, 0 }, cnt[2] = { count, m->cols }, mdim = (hsize_t)count * m->cols;
    RD_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL), "cannot be selected");
    RD_H5(ms = H5Screate_simple(1, &mdim, NULL), "cannot be read");
    RD_H5(H5Dread(m->d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf), "cannot be read");
    rc = 1;
fail:
    if (ms >= 0) H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
    return rc;
}

void mcf_rd_rows_close(struct mcf_rows *m)
{
    if (m->d >= 0) H5Dclose(m->d);
    m->d = H5I_INVALID_HID;
}
