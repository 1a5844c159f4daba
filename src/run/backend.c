#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

extern const struct mcf_backend mcf_backend_host;
#ifdef MCF_HAVE_CUDA
extern const struct mcf_backend mcf_backend_cuda;
#endif
#ifdef MCF_HAVE_HIP
extern const struct mcf_backend mcf_backend_hip;
#endif

const struct mcf_backend *const mcf_backends[] = {
#ifdef MCF_HAVE_CUDA
    &mcf_backend_cuda,
#endif
#ifdef MCF_HAVE_HIP
    &mcf_backend_hip,
#endif
    &mcf_backend_host, NULL
};

const char *const mcf_backend_known[] = { "auto", "host", "cuda", "hip", NULL };

/* ---- defaults for optional hooks ---- */

static void default_finalize(void *state)
{
    (void)state;
}

static int default_device_count(void *state, int *count, struct mcf_err *e)
{
    (void)state;
    (void)e;
    *count = 1;
    return MCF_OK;
}

static int default_open_device(void *state, int index, struct mcf_err *e)
{
    (void)state;
    (void)index;
    (void)e;
    return MCF_OK;
}

static int default_device_info(void *state, struct mcf_device_info *info, struct mcf_err *e)
{
    (void)state;
    (void)e;
    memset(info, 0, sizeof *info);
    strcpy(info->name, "unknown");
    strcpy(info->uuid, "unknown");
    strcpy(info->pci_bus_id, "unknown");
    return MCF_OK;
}

static int unsupported_setup(void *state, const struct mcf_kernel *k, void **kstate,
                             struct mcf_err *e)
{
    (void)state;
    (void)kstate;
    return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "this backend has no %s kernels",
                       mcf_family_names[k->family]);
}

static int unsupported_run(void *kstate, struct mcf_sample *s, struct mcf_err *e)
{
    (void)kstate;
    (void)s;
    return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "kernel not supported");
}

static int unsupported_verify(void *kstate, struct mcf_err *e)
{
    (void)kstate;
    return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "kernel not supported");
}

static void default_teardown(void *kstate)
{
    (void)kstate;
}

static const struct mcf_kernel_ops unsupported_ops = { unsupported_setup, unsupported_run,
                                                       unsupported_verify, default_teardown };

#define FILL(field, fallback)                                                                      \
    do {                                                                                           \
        if (!(field)) (field) = (fallback);                                                        \
    } while (0)

static const char *default_level_method(enum mcf_level level)
{
    (void)level;
    return "the level targeted by the arrays' size alone; no counters show which level served them";
}

static int default_mfma_exec(void *state, const struct mcf_mfma_insn *insn, const void *a_tiles,
                             const void *b_tiles, const uint8_t *meta, void *dregs,
                             struct mcf_err *e)
{
    (void)state;
    (void)insn;
    (void)a_tiles;
    (void)b_tiles;
    (void)meta;
    (void)dregs;
    return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__,
                       "this backend has no MFMA self-test");
}

void mcf_backend_fill(struct mcf_backend *b)
{
    FILL(b->mfma_exec, default_mfma_exec);
    FILL(b->level_method, default_level_method);
    FILL(b->finalize, default_finalize);
    FILL(b->device_count, default_device_count);
    FILL(b->open_device, default_open_device);
    FILL(b->device_info, default_device_info);
    for (int f = 0; f < MCF_FAMILY_COUNT; f++) {
        const struct mcf_kernel_ops *ops = b->family[f];
        /* a family is all or nothing: half a kernel would time unverified work */
        if (!ops || !ops->setup || !ops->run || !ops->verify || !ops->teardown)
            b->family[f] = &unsupported_ops;
    }
}

int mcf_backend_select(const char *name, struct mcf_backend *out, struct mcf_err *e)
{
    const struct mcf_backend *found = NULL;
    for (int i = 0; mcf_backends[i]; i++)
        if (strcmp(mcf_backends[i]->name, name) == 0) found = mcf_backends[i];
    if (!found) {
        for (int i = 0; mcf_backend_known[i]; i++)
            if (strcmp(mcf_backend_known[i], name) == 0)
                return mcf_err_set(
                    e, MCF_ERUNTIME, __FILE__, __LINE__,
                    "backend '%s' is not built into this mcfleet: configure did not enable it "
                    "(see the configure summary; --with-%s)",
                    name, name);
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "--backend: unknown backend '%s' (auto, host, cuda or hip)", name);
    }
    *out = *found;
    mcf_backend_fill(out);
    return MCF_OK;
}

void mcf_backend_auto(const struct mcf_rank_env *env, int need_selftest, const char *where,
                      char *name, size_t name_len, char *why, size_t why_len)
{
    snprintf(name, name_len, "host");
    snprintf(why, why_len,
             "this mcfleet has no GPU backend%s (built without %s: 'mcfleet --version' lists them)",
             need_selftest ? " with the MFMA self-test" : "",
             need_selftest ? "HIP" : "CUDA and HIP");
    for (int i = 0, tried = 0; mcf_backends[i]; i++) {
        struct mcf_backend be;
        struct mcf_err probe = { 0 };
        void *state = NULL;
        int count = 0;
        if (!mcf_backends[i]->is_gpu || (need_selftest && !mcf_backends[i]->mfma_exec) ||
            mcf_backend_select(mcf_backends[i]->name, &be, &probe))
            continue;
        if (be.init(&state, env, &probe) == MCF_OK) {
            if (be.device_count(state, &count, &probe) == MCF_OK && count > 0) {
                snprintf(name, name_len, "%s", be.name);
                why[0] = '\0';
            }
            be.finalize(state);
        }
        if (strcmp(name, "host") != 0) break;
        size_t len = tried++ ? strlen(why) : 0;
        snprintf(why + len, why_len - len, "%sbackend %s%s: %.300s", len ? "; " : "", be.name,
                 where, probe.msg[0] ? probe.msg : "it sees no device");
    }
}

struct forward {
    const struct mcf_kernel_ops *ops;
    void *ks;
};

int mcf_forward_setup(const struct mcf_kernel_ops *ops, void *state, const struct mcf_kernel *k,
                      void **ks, struct mcf_err *e)
{
    struct forward *f = NULL;
    MCF_ALLOC(e, f, 1);
    f->ops = ops;
    MCF_TRY(ops->setup(state, k, &f->ks, e));
    *ks = f;
    return MCF_OK;
fail:
    free(f);
    return e->rc;
}

int mcf_forward_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    struct forward *f = ks;
    return f->ops->run(f->ks, s, e);
}

int mcf_forward_verify(void *ks, struct mcf_err *e)
{
    struct forward *f = ks;
    return f->ops->verify(f->ks, e);
}

void mcf_forward_teardown(void *ks)
{
    struct forward *f = ks;
    if (!f) return;
    f->ops->teardown(f->ks);
    free(f);
}
