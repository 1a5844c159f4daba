/* The names a deck gives (tests, instances) and the keys of its mappings:
 * what HDF5 and shells accept, and repeats found by sorting. */
#include "deck_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Test names become HDF5 group names under /results. HDF5 refuses "." and
 * splits at '/'; a name must also survive shells and file names: letters,
 * digits, '-', '_', '.', starting with a letter or digit (so never ".", ".."
 * or "-x"), 1 to MCF_NAME_LEN - 1 characters. */
int mcf_deck_name_ok(const char *s)
{
    if (!isalnum((unsigned char)*s) || strlen(s) >= MCF_NAME_LEN) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.') return 0;
    return 1;
}

/* What HDF5 itself needs of a link name: not empty, not "." or "..", no '/',
 * no control characters. Checked on every expanded instance name. */
int mcf_hdf5_name_ok(const char *s)
{
    if (!*s || !strcmp(s, ".") || !strcmp(s, "..")) return 0;
    for (; *s; s++)
        if (*s == '/' || (unsigned char)*s < 0x20 || *s == 0x7f) return 0;
    return 1;
}

static int mcf_strref_cmp(const void *a, const void *b)
{
    const struct mcf_strref *x = a, *y = b;
    int d = strcmp(x->s, y->s);
    return d ? d : (x->pos > y->pos) - (x->pos < y->pos);
}

/* Sorts v; the repeat that comes first in the document, and in *first the
 * earlier one it repeats; NULL when all differ. */
const struct mcf_strref *mcf_first_repeat(struct mcf_strref *v, size_t n,
                                          const struct mcf_strref **first)
{
    const struct mcf_strref *rep = NULL;
    qsort(v, n, sizeof *v, mcf_strref_cmp);
    for (size_t i = 1; i < n; i++)
        if (!strcmp(v[i - 1].s, v[i].s) && (!rep || v[i].pos < rep->pos)) {
            rep = &v[i];
            *first = &v[i - 1];
        }
    return rep;
}

/* A key given twice in one mapping: YAML says it is an error and libyaml
 * keeps both, so the later one would win silently. Reported at the second. */
int mcf_unique_keys(struct mcf_yaml_ctx *c, const yaml_node_t *map, const char *owner)
{
    size_t n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start), m = 0;
    struct mcf_strref *v = NULL;
    const struct mcf_strref *rep, *first = NULL;
    if (n < 2) return MCF_OK;
    MCF_ALLOC(c->e, v, n);
    for (size_t i = 0; i < n; i++) {
        const yaml_node_t *kn =
            yaml_document_get_node(c->doc, map->data.mapping.pairs.start[i].key);
        if (kn && mcf_yaml_scalar(kn)) v[m++] = (struct mcf_strref){ mcf_yaml_scalar(kn), i, kn };
    }
    if ((rep = mcf_first_repeat(v, m, &first)) != NULL) {
        const yaml_node_t *kn = rep->where, *k0 = first->where;
        mcf_yaml_at(
            c, kn,
            "key '%s' is given twice %s (first at line %lu): a YAML mapping holds each key once",
            rep->s, owner, (unsigned long)k0->start_mark.line + 1);
        goto fail;
    }
    free(v);
    return MCF_OK;
fail:
    free(v);
    return c->e->rc;
}
