#include "report_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One comma-separated list attribute's names, each handed to fn. -1: bad. */
static int each_name(struct mcf_rd *rd, hid_t g, const char *gname, const char *attr,
                     int (*fn)(struct mcf_schema_family *sf, const char *name, void *ctx),
                     struct mcf_schema_family *sf, void *ctx)
{
    char *list = NULL, obj[256];
    int rc = mcf_rd_attr_text(rd, g, gname, attr, &list);
    snprintf(obj, sizeof obj, "%s attribute %s", gname, attr);
    for (char *save = NULL, *t = rc > 0 ? strtok_r(list, ",", &save) : NULL; t;
         t = strtok_r(NULL, ",", &save))
        if (fn(sf, t, ctx) < 0) {
            mcf_rd_bad(rd, obj, "'%.40s': %s", t, (const char *)ctx);
            rc = -1;
            break;
        }
    free(list);
    return rc;
}

static struct mcf_schema_key *key_of(struct mcf_schema_family *sf, const char *name)
{
    for (int i = 0; i < sf->nkeys; i++)
        if (!strcmp(sf->key[i].name, name)) return &sf->key[i];
    return NULL;
}

static int add_key(struct mcf_schema_family *sf, const char *name, void *why)
{
    if (strlen(name) >= MCF_SCHEMA_NAME || sf->nkeys == MCF_SCHEMA_MAX_KEYS || key_of(sf, name)) {
        snprintf(why, 64, "a key name too long, repeated, or more than %d keys",
                 MCF_SCHEMA_MAX_KEYS);
        return -1;
    }
    snprintf(sf->key[sf->nkeys++].name, MCF_SCHEMA_NAME, "%s", name);
    return 0;
}

static int mark_amount(struct mcf_schema_family *sf, const char *name, void *why)
{
    struct mcf_schema_key *k = key_of(sf, name);
    if (!k) return snprintf(why, 64, "not one of the family's keys"), -1;
    k->amount = 1;
    return 0;
}

static int mark_quiet(struct mcf_schema_family *sf, const char *name, void *why)
{
    struct mcf_schema_key *k = key_of(sf, name);
    if (!k || !k->has_implied)
        return snprintf(why, 64, "not one of the family's keys with an implied value"), -1;
    k->quiet = 1;
    return 0;
}

static void read_family(struct mcf_rd *rd, hid_t fams, const char *name,
                        struct mcf_schema_family *sf)
{
    char gname[128], why[64] = "";
    hid_t g;
    snprintf(gname, sizeof gname, "/meta/families/%s", name);
    if (mcf_rd_open(rd, fams, "/meta/families", name, H5I_GROUP, &g) <= 0) return;
    snprintf(sf->name, sizeof sf->name, "%s", name);
    if (each_name(rd, g, gname, "keys", add_key, sf, why) == 0)
        mcf_rd_bad(rd, gname, "attribute keys: missing");
    for (int i = 0; i < sf->nkeys; i++) {
        char attr[64], *v = NULL;
        snprintf(attr, sizeof attr, "implied_%s", sf->key[i].name);
        if (H5Aexists(g, attr) > 0 && mcf_rd_attr_text(rd, g, gname, attr, &v) > 0) {
            mcf_rd_clean(v);
            sf->key[i].has_implied = 1;
            snprintf(sf->key[i].implied, sizeof sf->key[i].implied, "%s", v);
        }
        free(v);
    }
    each_name(rd, g, gname, "amounts", mark_amount, sf, why);
    char *kind = NULL;
    if (H5Aexists(g, "kind") > 0 && mcf_rd_attr_text(rd, g, gname, "kind", &kind) > 0) {
        mcf_rd_clean(kind);
        snprintf(sf->kind, sizeof sf->kind, "%s", kind);
    }
    free(kind);
    if (H5Aexists(g, "quiet") > 0) each_name(rd, g, gname, "quiet", mark_quiet, sf, why);
    H5Gclose(g);
}

struct family_names {
    char name[MCF_SCHEMA_MAX_FAMILIES][MCF_SCHEMA_NAME];
    int n, over;
};

static herr_t collect(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
    struct family_names *l = data;
    (void)group;
    (void)info;
    if (l->n == MCF_SCHEMA_MAX_FAMILIES || strlen(name) >= MCF_SCHEMA_NAME) {
        l->over = 1;
        return 1;
    }
    snprintf(l->name[l->n++], MCF_SCHEMA_NAME, "%s", name);
    return 0;
}

static void schema_read(struct mcf_rd *rd, hid_t file, struct mcf_schema *s);

void mcf_schema_read(struct mcf_rd *rd, hid_t file, struct mcf_schema *s)
{
    size_t len0 = rd->len;
    schema_read(rd, file, s);
    mcf_schema_note(s, rd, len0);
}

static void schema_read(struct mcf_rd *rd, hid_t file, struct mcf_schema *s)
{
    hid_t meta = H5I_INVALID_HID, fams = H5I_INVALID_HID;
    int rc = 0;
    if (mcf_rd_open(rd, file, "", "meta", H5I_GROUP, &meta) > 0 &&
        H5Lexists(meta, "families", H5P_DEFAULT) > 0)
        rc = mcf_rd_open(rd, meta, "/meta", "families", H5I_GROUP, &fams);
    if (meta >= 0) H5Gclose(meta);
    if (rc <= 0) { /* a file older than the schema (or a bad one: reported) */
        mcf_schema_legacy(s);
        return;
    }
    memset(s, 0, sizeof *s);
    struct family_names *l = calloc(1, sizeof *l);
    if (!l) {
        rd->oom = 1;
        H5Gclose(fams);
        return;
    }
    if (H5Literate(fams, H5_INDEX_CRT_ORDER, H5_ITER_INC, NULL, collect, l) < 0 && !l->over)
        H5Literate(fams, H5_INDEX_NAME, H5_ITER_INC, NULL, collect, l);
    if (l->over)
        mcf_rd_bad(rd, "/meta/families",
                   "holds more than %d families, or a name of %d bytes or more",
                   MCF_SCHEMA_MAX_FAMILIES, MCF_SCHEMA_NAME);
    for (int i = 0; i < l->n; i++) read_family(rd, fams, l->name[i], &s->fam[s->nfam++]);
    free(l);
    H5Gclose(fams);
}

/* An attribute's value as text: a string as it is, an integer in decimal.
 * 1 read, 0 absent, -1 bad (reported). */
static int attr_value(struct mcf_rd *rd, hid_t g, const char *gname, const char *name, char *buf,
                      size_t len)
{
    if (H5Aexists(g, name) <= 0) return 0;
    hid_t a = H5Aopen(g, name, H5P_DEFAULT), t = a >= 0 ? H5Aget_type(a) : H5I_INVALID_HID;
    H5T_class_t c = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    if (t >= 0) H5Tclose(t);
    if (a >= 0) H5Aclose(a);
    int rc;
    if (c == H5T_INTEGER) {
        long long v;
        if ((rc = mcf_rd_attr_int(rd, g, gname, name, &v)) > 0) snprintf(buf, len, "%lld", v);
        return rc;
    }
    char *text = NULL;
    if ((rc = mcf_rd_attr_text(rd, g, gname, name, &text)) > 0) {
        mcf_rd_clean(text);
        snprintf(buf, len, "%s", text);
    }
    free(text);
    return rc;
}

void mcf_schema_note(struct mcf_schema *s, const struct mcf_rd *rd, size_t len0)
{
    if (s->why[0] || !rd->list || rd->len <= len0) return;
    const char *line = rd->list + len0 + 2; /* "  OBJECT: what\n" */
    snprintf(s->why, sizeof s->why, "%.*s", (int)strcspn(line, "\n"), line);
}

const char *mcf_test_key(const struct mcf_test_identity *id, const char *name)
{
    for (int i = 0; i < id->nkeys; i++)
        if (!strcmp(id->key[i].name, name)) return id->key[i].value;
    return NULL;
}

/* The text a build without measured would have recorded: the family and
 * each key not an amount, recorded or implied, a quiet one only away from
 * its implied value. */
static void rebuild_measured(struct mcf_test_identity *id, const struct mcf_schema_family *sf)
{
    size_t at = (size_t)snprintf(id->measured, sizeof id->measured, "kernel=%s", id->kernel);
    for (int i = 0; i < id->nkeys && at < sizeof id->measured; i++) {
        const struct mcf_test_key *k = &id->key[i];
        const struct mcf_schema_key *sk = &sf->key[i];
        if (k->amount || (k->implied && !sk->has_implied) ||
            (sk->quiet && !strcmp(k->value, sk->implied)))
            continue;
        int n = snprintf(id->measured + at, sizeof id->measured - at, " %s=%s", k->name, k->value);
        at += n < 0 ? 0 : (size_t)n;
    }
    id->rebuilt = 1;
}

int mcf_test_identity_read(struct mcf_rd *rd, const struct mcf_schema *s, hid_t g,
                           const char *gname, struct mcf_test_identity *id)
{
    memset(id, 0, sizeof *id);
    int rc = attr_value(rd, g, gname, "kernel", id->kernel, sizeof id->kernel);
    if (rc <= 0) return rc;
    const struct mcf_schema_family *sf = NULL;
    for (int f = 0; f < s->nfam && !sf; f++)
        if (!strcmp(s->fam[f].name, id->kernel)) sf = &s->fam[f];
    if (!sf) {
        char obj[300];
        snprintf(obj, sizeof obj, "%s attribute kernel", gname);
        mcf_rd_bad(rd, obj, "'%.64s' is no kernel family of the file's schema%s", id->kernel,
                   s->legacy ? " (its builds' families)" : " (/meta/families)");
        return -1;
    }
    snprintf(id->kind, sizeof id->kind, "%s", sf->kind);
    /* every key, so the table stays aligned with sf's: a key neither
     * recorded nor implied has the value "" */
    for (int i = 0; i < sf->nkeys; i++) {
        struct mcf_test_key *k = &id->key[id->nkeys++];
        snprintf(k->name, sizeof k->name, "%s", sf->key[i].name);
        k->amount = sf->key[i].amount;
        if ((rc = attr_value(rd, g, gname, k->name, k->value, sizeof k->value)) < 0) return -1;
        k->implied = rc == 0;
    }
    for (int i = 0; i < id->nkeys; i++) { /* "=K" after every recorded key is read */
        const struct mcf_schema_key *sk = &sf->key[i];
        struct mcf_test_key *k = &id->key[i];
        if (!k->implied || !sk->has_implied) continue;
        const char *v = sk->implied[0] == '=' ? mcf_test_key(id, sk->implied + 1) : sk->implied;
        snprintf(k->value, sizeof k->value, "%s", v ? v : "");
    }
    char *text = NULL;
    if ((rc = mcf_rd_attr_text(rd, g, gname, "measured", &text)) > 0) {
        mcf_rd_clean(text);
        snprintf(id->measured, sizeof id->measured, "%s", text);
    } else if (rc == 0) {
        rebuild_measured(id, sf);
    }
    free(text);
    return rc < 0 ? -1 : 1;
}
