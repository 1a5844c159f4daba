#include "blas.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *mcf_blas_dlopen(const char *env_var, const char *const *names, const char *const *syms,
                      char *path, size_t path_len, char *why, size_t len)
{
    const char *forced = env_var ? getenv(env_var) : NULL;
    size_t used = 0;
    why[0] = '\0';
    /* n = -1: the library the variable names, and then no other */
    for (int n = forced && *forced ? -1 : 0; n < 0 || names[n]; n++) {
        const char *name = n < 0 ? forced : names[n];
        void *dl = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        const char *missing = NULL;
        if (dl)
            for (int s = 0; syms[s] && !missing; s++)
                if (!dlsym(dl, syms[s])) missing = syms[s];
        if (dl && !missing) {
            snprintf(path, path_len, "%s", name);
            return dl;
        }
        if (used < len)
            used += (size_t)snprintf(why + used, len - used, "%s%s: %s", used ? "; " : "", name,
                                     dl ? "lacks " : dlerror());
        if (dl) {
            if (used < len) used += (size_t)snprintf(why + used, len - used, "%s", missing);
            dlclose(dl);
        }
        if (n < 0) break; /* a library named by the variable is the only one tried */
    }
    return NULL;
}

int mcf_cblas_open(struct mcf_cblas *b, char *why, size_t len)
{
    static const char *const names[] = { "libopenblas.so.0", "libcblas.so.3", "libblas.so.3",
                                         NULL };
    static const char *const syms[] = { "cblas_dgemm", "cblas_sgemm", NULL };
    char reasons[512];
    memset(b, 0, sizeof *b);
    b->dl = mcf_blas_dlopen("MCFLEET_CBLAS_LIB", names, syms, b->path, sizeof b->path, reasons,
                            sizeof reasons);
    if (!b->dl) {
        snprintf(why, len, "no CBLAS library (%s); Debian: apt-get install libopenblas0-pthread",
                 reasons);
        return -1;
    }
    *(void **)&b->dgemm = dlsym(b->dl, "cblas_dgemm");
    *(void **)&b->sgemm = dlsym(b->dl, "cblas_sgemm");
    {
        char *(*config)(void);
        *(void **)&config = dlsym(b->dl, "openblas_get_config");
        snprintf(b->version, sizeof b->version, "%s", config ? config() : "");
    }
    return 0;
}

void mcf_cblas_close(struct mcf_cblas *b)
{
    if (b->dl) dlclose(b->dl);
    b->dl = NULL;
}
