/* The deck keys as values in a kernel: get, set, their recorded text, and
 * what a test measured (family.h). */
#include "family.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t mcf_key_get(const struct mcf_key *key, const void *base)
{
    const char *p = (const char *)base + key->offset;
    if (key->width == sizeof(uint64_t)) {
        uint64_t v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    uint32_t v; /* int, uint32_t, an enum, or a shape's first part */
    memcpy(&v, p, sizeof v);
    return v;
}

void mcf_key_set(const struct mcf_key *key, void *base, uint64_t v)
{
    char *p = (char *)base + key->offset;
    if (key->type == MCF_V_SHAPE) { /* only a default: all parts alike */
        int part = (int)v;
        for (size_t i = 0; i < key->width / sizeof part; i++)
            memcpy(p + i * sizeof part, &part, sizeof part);
    } else if (key->width == sizeof(uint64_t)) {
        memcpy(p, &v, sizeof v);
    } else {
        uint32_t w = (uint32_t)v;
        memcpy(p, &w, sizeof w);
    }
}

const char *mcf_key_value_text(const struct mcf_key *key, const struct mcf_kernel *k, char *buf,
                               size_t len)
{
    uint64_t v = mcf_key_get(key, k);
    if (key->text) return key->text(k, buf, len);
    if (key->type == MCF_V_ENUM) return v < (uint64_t)key->nnames ? key->names[v] : "";
    snprintf(buf, len, "%llu", (unsigned long long)v);
    return buf;
}

int mcf_key_quiet(enum mcf_family f, const struct mcf_key_use *u)
{
    const struct mcf_key *kd = mcf_kernel_key(u->key);
    int quiet = kd->quiet_default;
    for (const char *const *q = mcf_families[f].quiet; q && *q && !quiet; q++)
        quiet = !strcmp(*q, kd->name);
    return quiet && u->def != MCF_KEY_REQUIRED;
}

const char *mcf_key_implied(enum mcf_family f, const struct mcf_key_use *u, char *buf, size_t len)
{
    const struct mcf_key *kd = mcf_kernel_key(u->key);
    if (u->implied || !mcf_key_quiet(f, u)) return u->implied;
    struct mcf_kernel k;
    mcf_kernel_defaults(f, &k);
    return mcf_key_value_text(kd, &k, buf, len);
}

const char *mcf_kernel_measured(const struct mcf_kernel *k, char *buf, size_t len)
{
    size_t at = 0;
    int n = snprintf(buf, len, "kernel=%s", mcf_family_names[k->family]);
    at = n < 0 ? 0 : (size_t)n;
    for (const struct mcf_key_use *u = mcf_families[k->family].keys; u->key && at < len; u++) {
        const struct mcf_key *kd = mcf_kernel_key(u->key);
        char val[64];
        if (kd->amount || (mcf_key_quiet(k->family, u) && mcf_key_get(kd, k) == u->def)) continue;
        n = snprintf(buf + at, len - at, " %s=%s", kd->name,
                     mcf_key_value_text(kd, k, val, sizeof val));
        at += n < 0 ? 0 : (size_t)n;
    }
    return buf;
}

void mcf_kernel_defaults(enum mcf_family f, struct mcf_kernel *k)
{
    memset(k, 0, sizeof *k);
    k->family = f;
    for (const struct mcf_key_use *u = mcf_families[f].keys; u->key; u++)
        if (u->def != MCF_KEY_REQUIRED) mcf_key_set(mcf_kernel_key(u->key), k, u->def);
}

int mcf_key_set_text(const struct mcf_key *key, struct mcf_kernel *k, const char *text)
{
    char *p = (char *)k + key->offset, *end;
    if (key->type == MCF_V_SHAPE) { /* "MxNxK", as shape_text writes it */
        int part[3];
        if (sscanf(text, "%dx%dx%d", &part[0], &part[1], &part[2]) != 3 ||
            key->width != sizeof part)
            return -1;
        memcpy(p, part, sizeof part);
        return 0;
    }
    if (key->type == MCF_V_ENUM) {
        for (int i = 0; i < key->nnames; i++)
            if (!strcmp(key->names[i], text)) {
                mcf_key_set(key, k, (uint64_t)i);
                return 0;
            }
        return -1;
    }
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || *end) return -1;
    mcf_key_set(key, k, v);
    return 0;
}
