#include "record_schema.h"

#include <stdio.h>
#include <string.h>

#include "family.h"

#define MCF_SCHEMA_VERSION 1

static void append(char *list, size_t cap, const char *name)
{
    size_t at = strlen(list);
    snprintf(list + at, cap - at, "%s%s", at ? "," : "", name);
}

static int record_family(struct mcf_h5 *h, enum mcf_family f, struct mcf_err *e)
{
    char g[128], keys[1024] = "", amounts[512] = "", quiet[512] = "", attr[64];
    snprintf(g, sizeof g, "/meta/families/%s", mcf_family_names[f]);
    MCF_TRY(mcf_h5_group(h, g, e));
    const struct mcf_key_use *lists[] = { mcf_families[f].keys, mcf_common_kernel_keys };
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
        for (const struct mcf_key_use *u = lists[l]; u->key; u++) {
            char buf[64];
            const char *implied = mcf_key_implied(f, u, buf, sizeof buf);
            append(keys, sizeof keys, u->key);
            if (mcf_kernel_key(u->key)->amount) append(amounts, sizeof amounts, u->key);
            if (mcf_key_quiet(f, u)) append(quiet, sizeof quiet, u->key);
            if (implied) {
                snprintf(attr, sizeof attr, "implied_%s", u->key);
                MCF_TRY(mcf_h5_attr_str(h, g, attr, implied, e));
            }
        }
    MCF_TRY(mcf_h5_attr_str(h, g, "keys", keys, e));
    MCF_TRY(mcf_h5_attr_str(h, g, "amounts", amounts, e));
    MCF_TRY(mcf_h5_attr_str(h, g, "quiet", quiet, e));
    MCF_TRY(mcf_h5_attr_str(h, g, "kind", mcf_families[f].kind, e));
    return MCF_OK;
fail:
    return e->rc;
}

int mcf_record_schema(struct mcf_h5 *h, struct mcf_err *e)
{
    MCF_TRY(mcf_h5_group(h, "/meta/families", e));
    MCF_TRY(mcf_h5_attr_long(h, "/meta/families", "schema", MCF_SCHEMA_VERSION, e));
    for (int f = 0; f < MCF_FAMILY_COUNT; f++) MCF_TRY(record_family(h, (enum mcf_family)f, e));
    return MCF_OK;
fail:
    return e->rc;
}
