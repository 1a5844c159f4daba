/* A health snapshot's values as the sources fill them (health.h): every
 * counter unknown, one counter unknown and why, and AMD's retired pages
 * counted from a library's records. The sources (health_nvml.c, _rsmi.c,
 * _amdsmi.c) and health.c share these; they call nothing back. */
#include "health.h"
#include "amd_pages.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void mcf_health_snap_blank(struct mcf_health_snap *s, const char *why)
{
    for (int c = 0; c < MCF_HC_COUNT; c++) {
        s->v[c] = -1;
        snprintf(s->why[c], sizeof s->why[c], "%s", why);
    }
}

void mcf_health_none(struct mcf_health_snap *s, int c, const char *fmt, ...)
{
    va_list ap;
    s->v[c] = -1;
    va_start(ap, fmt);
    vsnprintf(s->why[c], sizeof s->why[c], fmt, ap);
    va_end(ap);
}

void mcf_health_amd_pages(struct mcf_health_snap *s, const void *lib, mcf_amd_pages_get get,
                          const char *name, const char *call)
{
    static const int counted[] = { MCF_HC_RETIRED, MCF_HC_RETIRED_PENDING, MCF_HC_REMAP_FAILED };
    struct mcf_amd_page *rec = NULL;
    uint32_t n = 0;
    const char *why = "";
    int rc;
    for (int c = MCF_HC_REMAP_CORR; c <= MCF_HC_REMAP_PENDING; c++)
        mcf_health_none(s, c, "AMD GPUs retire pages, not rows (see retired_pages*)");
    if (!get) {
        for (size_t i = 0; i < 3; i++) mcf_health_none(s, counted[i], "%s lacks %s", name, call);
        return;
    }
    /* the count first, then the records; a page retired in between is the next reading's */
    rc = get(lib, &n, NULL, &why);
    if (rc >= 0 && n > 0) {
        if (!(rec = calloc(n, sizeof *rec))) {
            for (size_t i = 0; i < 3; i++)
                mcf_health_none(s, counted[i], "out of memory for %u page records", n);
            return;
        }
        rc = get(lib, &n, rec, &why); /* 1: the records it had room for */
    }
    if (rc < 0) {
        for (size_t i = 0; i < 3; i++) mcf_health_none(s, counted[i], "%s: %s", call, why);
        free(rec);
        return;
    }
    s->v[MCF_HC_RETIRED] = s->v[MCF_HC_RETIRED_PENDING] = s->v[MCF_HC_REMAP_FAILED] = 0;
    for (uint32_t i = 0; rec && i < n; i++) {
        if (rec[i].status == MCF_AMD_PAGE_RESERVED)
            s->v[MCF_HC_RETIRED]++;
        else if (rec[i].status == MCF_AMD_PAGE_PENDING)
            s->v[MCF_HC_RETIRED_PENDING]++;
        else
            s->v[MCF_HC_REMAP_FAILED]++; /* unreservable: the retirement failed */
    }
    free(rec);
}
