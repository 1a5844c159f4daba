/* NCCL / RCCL loaded with dlopen (vendor_nccl.h). */
#define _GNU_SOURCE
#include "vendor_nccl.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "blas.h" /* mcf_blas_dlopen: the names tried in order, each failure's reason */

void mcf_nccl_version_split(int code, int *major, int *minor, int *patch)
{
    int big = code >= 10000; /* NCCL_VERSION_CODE's encoding since 2.9 */
    *major = big ? code / 10000 : code / 1000;
    *minor = big ? code % 10000 / 100 : code % 1000 / 100;
    *patch = code % 100;
}

int mcf_nccl_open(struct mcf_nccl *l, int rccl, char *why, size_t len)
{
    static const char *const nccl_names[] = { "libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2",
                                              NULL };
    static const char *const rccl_names[] = { "librccl.so.1", "/opt/rocm/lib/librccl.so.1", NULL };
#define MCF_NCCL_NAME(name, ret, params) #name,
    static const char *const syms[] = { MCF_NCCL_FUNCS(MCF_NCCL_NAME) NULL };
#undef MCF_NCCL_NAME
    char reasons[768];
    mcf_nccl_result_t r;
    memset(l, 0, sizeof *l);
    l->name = rccl ? "RCCL" : "NCCL";
    l->dl = mcf_blas_dlopen(MCF_NCCL_LIB_ENV, rccl ? rccl_names : nccl_names, syms, l->path,
                            sizeof l->path, reasons, sizeof reasons);
    if (!l->dl) {
        snprintf(why, len, "no usable %s: %s (%s names the library to use)", l->name, reasons,
                 MCF_NCCL_LIB_ENV);
        return -1;
    }
#define MCF_NCCL_SYM(name, ret, params) *(void **)&l->name = dlsym(l->dl, #name);
    MCF_NCCL_FUNCS(MCF_NCCL_SYM)
#undef MCF_NCCL_SYM
    *(void **)&l->ncclGetLastError = dlsym(l->dl, "ncclGetLastError");
    if ((r = l->ncclGetVersion(&l->code)) != MCF_NCCL_SUCCESS || l->code <= 0) {
        snprintf(why, len, "%s (%s): ncclGetVersion failed (%d): its version is unknown", l->name,
                 l->path, r);
        goto refuse;
    }
    mcf_nccl_version_split(l->code, &l->major, &l->minor, &l->patch);
    snprintf(l->version, sizeof l->version, "%d.%d.%d", l->major, l->minor, l->patch);
    { /* the file the loader picked (a bare name says nothing of which install) */
        struct link_map *map = NULL;
        const char *file =
            dlinfo(l->dl, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && map->l_name[0]
            ? map->l_name
            : l->path;
        snprintf(l->describe, sizeof l->describe, "%s %s (%s)", l->name, l->version, file);
    }
    return 0;
refuse:
    mcf_nccl_close(l);
    return -1;
}

void mcf_nccl_close(struct mcf_nccl *l)
{
    if (l->dl) dlclose(l->dl);
    l->dl = NULL;
}

const char *mcf_nccl_error(const struct mcf_nccl *l, mcf_nccl_comm_t comm, mcf_nccl_result_t r,
                           char *buf, size_t len)
{
    const char *text = l->ncclGetErrorString ? l->ncclGetErrorString(r) : NULL;
    const char *last = l->ncclGetLastError ? l->ncclGetLastError(comm) : NULL;
    int n = snprintf(buf, len, "%s (%d)", text ? text : "unknown result", r);
    if (last && *last && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ": %s", last);
    return buf;
}
