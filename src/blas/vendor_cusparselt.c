/* cuSPARSELt loaded with dlopen (sparselt.h). */
#include "sparselt.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "blas.h"

int mcf_sparselt_open(struct mcf_sparselt *l, char *why, size_t len)
{
    static const char *const names[] = { "libcusparseLt.so.0",
                                         "/usr/local/cuda/lib64/libcusparseLt.so.0", NULL };
#define MCF_SLT_NAME(name, ret, params) #name,
    static const char *const syms[] = { MCF_SLT_FUNCS(MCF_SLT_NAME) NULL };
#undef MCF_SLT_NAME
    char reasons[768];
    memset(l, 0, sizeof *l);
    l->dl = mcf_blas_dlopen("MCFLEET_CUSPARSELT_LIB", names, syms, l->path, sizeof l->path, reasons,
                            sizeof reasons);
    if (!l->dl) {
        snprintf(why, len, "cuSPARSELt not found: %s", reasons);
        return -1;
    }
#define MCF_SLT_SYM(name, ret, params) *(void **)&l->name = dlsym(l->dl, #name);
    MCF_SLT_FUNCS(MCF_SLT_SYM)
#undef MCF_SLT_SYM
    if (l->cusparseLtGetProperty(MCF_SLT_MAJOR, &l->major) != MCF_SLT_SUCCESS ||
        l->cusparseLtGetProperty(MCF_SLT_MINOR, &l->minor) != MCF_SLT_SUCCESS ||
        l->cusparseLtGetProperty(MCF_SLT_PATCH, &l->patch) != MCF_SLT_SUCCESS) {
        snprintf(why, len, "cuSPARSELt (%s): cusparseLtGetProperty failed: its version is unknown",
                 l->path);
        goto refuse;
    }
    snprintf(l->version, sizeof l->version, "%d.%d.%d", l->major, l->minor, l->patch);
    if (l->major == 0 && l->minor < 7) {
        snprintf(why, len,
                 "cuSPARSELt %s (%s) predates 0.7, whose types and numbers this build declares "
                 "(src/blas/sparselt.h); install 0.7 or later",
                 l->version, l->path);
        goto refuse;
    }
    return 0;
refuse:
    mcf_sparselt_close(l);
    return -1;
}

void mcf_sparselt_close(struct mcf_sparselt *l)
{
    if (l->dl) dlclose(l->dl);
    l->dl = NULL;
}

const char *mcf_sparselt_status(const struct mcf_sparselt *l, mcf_slt_status_t st, char *buf,
                                size_t len)
{
    const char *name = l->cusparseLtGetErrorName ? l->cusparseLtGetErrorName(st) : NULL;
    const char *text = l->cusparseLtGetErrorString ? l->cusparseLtGetErrorString(st) : NULL;
    if (name && text && strcmp(name, text))
        snprintf(buf, len, "%s (%s)", name, text);
    else if (name || text)
        snprintf(buf, len, "%s", name ? name : text);
    else
        snprintf(buf, len, "status %d", st);
    return buf;
}
