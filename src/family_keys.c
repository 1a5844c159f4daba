/* The deck keys (family.h): the table of them (type, range, where each lives
 * in struct mcf_kernel), a family's use of one, a kernel made from another
 * family's keys, and the keys as values in a kernel: get, set, their
 * recorded text, what a test measured. */
#include "family.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "concurrency.h"
#include "family_transfer.h"

#define FIELD(f)                                                                                   \
    .offset = offsetof(struct mcf_kernel, f), .width = sizeof(((struct mcf_kernel *)0)->f)
#define QUICK_BYTES (16ull << 20)

static const char *shape_text(const struct mcf_kernel *k, char *buf, size_t len)
{
    snprintf(buf, len, "%dx%dx%d", k->shape[0], k->shape[1], k->shape[2]);
    return buf;
}

/* B's format is A's unless a test pairs two FP8 formats */
static const char *dtype_b_text(const struct mcf_kernel *k, char *buf, size_t len)
{
    enum mcf_dtype ta, tb;
    (void)buf;
    (void)len;
    mcf_kernel_operands(k, &ta, &tb);
    return mcf_dtype_names[tb];
}

#define ENUM(n) .names = n##_names, .nnames = (int)(sizeof n##_names / sizeof n##_names[0])
#define RANGE(lo, hi) .min = (lo), .max = (hi)
const struct mcf_key mcf_kernel_keys[] = {
    { .name = "seed", .type = MCF_V_INT, FIELD(seed), RANGE(0, 9007199254740992.0), .amount = 1 },
    { .name = "dtype", .type = MCF_V_ENUM, FIELD(dtype), ENUM(mcf_dtype) },
    { .name = "dtype_b",
      .type = MCF_V_ENUM,
      FIELD(dtype_b),
      ENUM(mcf_dtype),
      .text = dtype_b_text },
    { .name = "shape",
      .type = MCF_V_SHAPE,
      FIELD(shape),
      RANGE(1, 1024),
      .hint = "shape: [m, n, k]",
      .text = shape_text },
    { .name = "mode", .type = MCF_V_ENUM, FIELD(mode), ENUM(mcf_mode) },
    { .name = "path", .type = MCF_V_ENUM, FIELD(path), ENUM(mcf_path) },
    { .name = "sparsity",
      .type = MCF_V_ENUM,
      FIELD(sparsity),
      ENUM(mcf_sparsity),
      .quiet_default = 1 },
    { .name = "occupancy", .type = MCF_V_INT, FIELD(occupancy), .sweepable = 1, RANGE(1, 1 << 20) },
    { .name = "iterations",
      .type = MCF_V_INT,
      FIELD(iterations),
      .sweepable = 1,
      RANGE(1, 1e12),
      .quick_max = 1024,
      .amount = 1 },
    { .name = "inputs", .type = MCF_V_ENUM, FIELD(inputs), ENUM(mcf_inputs) },
    { .name = "level", .type = MCF_V_ENUM, FIELD(level), ENUM(mcf_level) },
    { .name = "op", .type = MCF_V_ENUM, FIELD(op), ENUM(mcf_memop) },
    { .name = "bytes",
      .type = MCF_V_SIZE,
      FIELD(bytes),
      .sweepable = 1,
      RANGE(1024, 17592186044416.0),
      .quick_max = QUICK_BYTES,
      .allow_auto = 1 },
    { .name = "intensity", .type = MCF_V_INT, FIELD(intensity), .sweepable = 1, RANGE(1, 1024) },
    { .name = "sweeps",
      .type = MCF_V_INT,
      FIELD(sweeps),
      .sweepable = 1,
      RANGE(1, 1e6),
      .quick_max = 4,
      .amount = 1 },
    /* memory tma / dsm (family_hopper.c): quiet, so older memory tests' "measured" is unchanged */
    { .name = "cluster",
      .type = MCF_V_INT,
      FIELD(cluster),
      .sweepable = 1,
      RANGE(2, 16),
      .quiet_default = 1 },
    { .name = "pattern",
      .type = MCF_V_ENUM,
      FIELD(pattern),
      ENUM(mcf_pattern),
      .quiet_default = 1 },
    { .name = "tma", .type = MCF_V_ENUM, FIELD(tma), ENUM(mcf_tma), .quiet_default = 1 },
    { .name = "load",
      .type = MCF_V_SIZE,
      FIELD(load),
      .sweepable = 1,
      RANGE(16, 65536),
      .quiet_default = 1 },
    { .name = "ctas",
      .type = MCF_V_INT,
      FIELD(ctas),
      .sweepable = 1,
      RANGE(1, 32),
      .quiet_default = 1 },
    { .name = "working_set",
      .type = MCF_V_SIZE,
      FIELD(working_set),
      .sweepable = 1,
      RANGE(256, 1099511627776.0),
      .quick_max = QUICK_BYTES },
    { .name = "stride", .type = MCF_V_SIZE, FIELD(stride), RANGE(8, 65536) },
    { .name = "streams",
      .type = MCF_V_INT,
      FIELD(streams),
      .sweepable = 1,
      RANGE(1, MCF_MAX_STREAMS) },
    { .name = "imbalance", .type = MCF_V_INT, FIELD(imbalance), .sweepable = 1, RANGE(1, 16) },
    { .name = "work", .type = MCF_V_ENUM, FIELD(work), ENUM(mcf_work) },
    /* --quick: 1024^3, 2 GFLOP a multiply (milliseconds on a GPU, a fraction
     * of a second on a CPU core's BLAS; 8192^3 took the host minutes) */
    { .name = "size",
      .type = MCF_V_INT,
      FIELD(size),
      .sweepable = 1,
      RANGE(16, 65536),
      .quick_max = 1024 },
    { .name = "rung", .type = MCF_V_ENUM, FIELD(rung), ENUM(mcf_rung) },
    /* transfer (family_transfer.h); quiet: a key another link takes is left
     * out of "measured" at its default, which the family's rule resets it to */
    { .name = "link", .type = MCF_V_ENUM, FIELD(link), ENUM(mcf_link) },
    { .name = "direction",
      .type = MCF_V_ENUM,
      FIELD(direction),
      ENUM(mcf_direction),
      .quiet_default = 1 },
    { .name = "engine", .type = MCF_V_ENUM, FIELD(engine), ENUM(mcf_engine), .quiet_default = 1 },
    { .name = "host_memory",
      .type = MCF_V_ENUM,
      FIELD(host_memory),
      ENUM(mcf_numa),
      .quiet_default = 1 },
    { .name = "collective",
      .type = MCF_V_ENUM,
      FIELD(collective),
      ENUM(mcf_collective),
      .quiet_default = 1 },
    { .name = "scope", .type = MCF_V_ENUM, FIELD(scope), ENUM(mcf_scope), .quiet_default = 1 },
    { .name = "rounds",
      .type = MCF_V_INT,
      FIELD(rounds),
      RANGE(1, MCF_MAX_PEERS),
      .quiet_default = 1 },
    { .name = NULL }
};

const struct mcf_key *mcf_kernel_key(const char *name)
{
    for (const struct mcf_key *k = mcf_kernel_keys; k->name; k++)
        if (!strcmp(k->name, name)) return k;
    return NULL;
}

int mcf_family_key_index(enum mcf_family f, const char *name)
{
    if ((unsigned)f >= MCF_FAMILY_COUNT) return -1;
    for (int i = 0; mcf_families[f].keys[i].key; i++)
        if (!strcmp(mcf_families[f].keys[i].key, name)) return i;
    return -1;
}

const struct mcf_key_use *mcf_family_key(enum mcf_family f, const char *name)
{
    int i = mcf_family_key_index(f, name);
    if (i >= 0) return &mcf_families[f].keys[i];
    for (const struct mcf_key_use *u = mcf_common_kernel_keys; u->key; u++)
        if (!strcmp(u->key, name)) return u;
    return NULL;
}

void mcf_kernel_derive(const struct mcf_kernel *from, enum mcf_family to, struct mcf_kernel *out)
{
    struct mcf_kernel k = *from; /* label, seed, inject_fault, cut: the test's own */
    k.family = to;
    for (const struct mcf_key_use *u = mcf_families[to].keys; u->key; u++)
        if (u->def != MCF_KEY_REQUIRED && !mcf_family_key(from->family, u->key))
            mcf_key_set(mcf_kernel_key(u->key), &k, u->def);
    *out = k;
}

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
