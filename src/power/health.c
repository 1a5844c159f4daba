#include "health.h"
#include "power_run.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const mcf_health_names[MCF_HC_COUNT] = {
    [MCF_HC_ECC_CORR_VOL] = "ecc_corrected_volatile",
    [MCF_HC_ECC_UNC_VOL] = "ecc_uncorrected_volatile",
    [MCF_HC_ECC_CORR_AGG] = "ecc_corrected_aggregate",
    [MCF_HC_ECC_UNC_AGG] = "ecc_uncorrected_aggregate",
    [MCF_HC_REMAP_CORR] = "remapped_rows_corrected",
    [MCF_HC_REMAP_UNC] = "remapped_rows_uncorrected",
    [MCF_HC_REMAP_PENDING] = "remap_pending",
    [MCF_HC_REMAP_FAILED] = "remap_failed",
    [MCF_HC_RETIRED] = "retired_pages",
    [MCF_HC_RETIRED_PENDING] = "retired_pages_pending",
    [MCF_HC_PCIE_GEN] = "pcie_gen",
    [MCF_HC_PCIE_GEN_MAX] = "pcie_gen_max",
    [MCF_HC_PCIE_WIDTH] = "pcie_width",
    [MCF_HC_PCIE_WIDTH_MAX] = "pcie_width_max",
    [MCF_HC_NVLINK_LINKS] = "nvlink_links",
    [MCF_HC_NVLINK_ACTIVE] = "nvlink_active",
    [MCF_HC_NVLINK_REPLAY] = "nvlink_replay_errors",
    [MCF_HC_NVLINK_RECOVERY] = "nvlink_recovery_errors",
    [MCF_HC_NVLINK_CRC_FLIT] = "nvlink_crc_flit_errors",
    [MCF_HC_NVLINK_CRC_DATA] = "nvlink_crc_data_errors",
    [MCF_HC_XGMI_ERROR] = "xgmi_error_status",
};

/* Every loader is dlopen'd at run time and needs nothing at build time:
 * each entry is there unless the build leaves it out. */
#ifndef MCF_HEALTH_NO_NVML
#define MCF_HEALTH_NVML 1
#endif
#ifndef MCF_HEALTH_NO_RSMI
#define MCF_HEALTH_RSMI 1
#endif
#ifndef MCF_HEALTH_NO_AMDSMI
#define MCF_HEALTH_AMDSMI 1
#endif
const struct mcf_health_source *const mcf_health_sources[] = {
#if MCF_HEALTH_NVML
    &mcf_health_nvml,
#endif
#if MCF_HEALTH_RSMI
    &mcf_health_rsmi,
#endif
#if MCF_HEALTH_AMDSMI
    &mcf_health_amdsmi,
#endif
    NULL,
};

/* text after what buf holds, cut where buf ends */
static void append(char *buf, size_t len, const char *text)
{
    size_t at = strlen(buf), n = strlen(text);
    if (at + 1 >= len) return;
    if (n > len - at - 1) n = len - at - 1;
    memcpy(buf + at, text, n);
    buf[at + n] = '\0';
}

void mcf_health_notes(const struct mcf_health_snap *s, char *buf, size_t len)
{
    int done[MCF_HC_COUNT] = { 0 };
    buf[0] = '\0';
    for (int c = 0; c < MCF_HC_COUNT; c++) {
        if (done[c] || s->v[c] >= 0 || !s->why[c][0]) continue;
        if (buf[0]) append(buf, len, "; ");
        /* the counters that share this reason, then the reason once */
        for (int d = c, first = 1; d < MCF_HC_COUNT; d++)
            if (!done[d] && s->v[d] < 0 && !strcmp(s->why[d], s->why[c])) {
                append(buf, len, first ? "" : ",");
                append(buf, len, mcf_health_names[d]);
                done[d] = 1;
                first = 0;
            }
        append(buf, len, ": ");
        append(buf, len, s->why[c]);
    }
}

void mcf_health_begin(struct mcf_health *h, const char *pci_bus_id, const char *fallback_serial)
{
    char why[sizeof h->source] = "";
    const char *inject = getenv("MCFLEET_INJECT_HEALTH_BUS");
    memset(h, 0, sizeof *h);
    if (inject && inject[0] && (!pci_bus_id[0] || !strcmp(pci_bus_id, "none")))
        pci_bus_id = inject; /* testing only (health.h) */
    h->gen_busy = h->width_busy = -1;
    for (int i = 0; mcf_health_sources[i] && !h->src && pci_bus_id[0] && strcmp(pci_bus_id, "none");
         i++) {
        struct mcf_err e = { 0 };
        if (mcf_health_sources[i]->open(&h->state, pci_bus_id, &e) == MCF_OK) {
            h->src = mcf_health_sources[i];
        } else {
            append(why, sizeof why, why[0] ? "; " : "");
            append(why, sizeof why, e.msg);
        }
    }
    snprintf(h->serial, sizeof h->serial, "%s", fallback_serial ? fallback_serial : "");
    if (!pci_bus_id[0] ||
        !strcmp(pci_bus_id, "none")) /* the host backend: what each source would say */
        snprintf(why, sizeof why, "this rank's device is not a PCI GPU (pci_bus_id '%s')",
                 pci_bus_id);
    if (!h->src) {
        snprintf(h->source, sizeof h->source, "off: %.480s",
                 why[0] ? why : "no health source is built in");
        mcf_health_snap_blank(&h->before, "no health source: see /health/source");
        mcf_health_snap_blank(&h->after, "no health source: see /health/source");
        return;
    }
    snprintf(h->source, sizeof h->source, "%s", h->src->name);
    if (pci_bus_id == inject) /* a file made so says so */
        snprintf(h->source, sizeof h->source, "%s (testing: MCFLEET_INJECT_HEALTH_BUS=%.64s)",
                 h->src->name, inject);
    {
        char serial[sizeof h->serial];
        if (h->src->serial(h->state, serial, sizeof serial) == 0 && serial[0])
            snprintf(h->serial, sizeof h->serial, "%s", serial);
    }
    h->src->read(h->state, &h->before);
    mcf_health_snap_blank(&h->after, "not read: the run ended before its last test");
    mcf_health_notes(&h->before, h->notes, sizeof h->notes);
}

/* The after-reading runs in a thread of its own, so that a driver call that
 * never returns cannot hold the end of the run (the results matter more).
 * Whoever finishes last, the thread or the waiter, frees the job; a thread
 * still running when the waiter gives up owns the source and closes it. */
struct after_job {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    const struct mcf_health_source *src;
    void *state;
    struct mcf_health_snap snap;
    int done, abandoned;
};

static void job_free(struct after_job *j)
{
    pthread_cond_destroy(&j->cond);
    pthread_mutex_destroy(&j->lock);
    free(j);
}

static void *after_main(void *arg)
{
    struct after_job *j = arg;
    struct mcf_health_snap s;
    j->src->read(j->state, &s);
    pthread_mutex_lock(&j->lock);
    j->snap = s;
    j->done = 1;
    int abandoned = j->abandoned;
    pthread_cond_signal(&j->cond);
    pthread_mutex_unlock(&j->lock);
    if (abandoned) { /* the run went on without this reading */
        j->src->close(j->state);
        job_free(j);
    }
    return NULL;
}

void mcf_health_end(struct mcf_health *h, double timeout_s)
{
    struct after_job *j;
    pthread_t t;
    struct timespec until;
    int abandoned = 0;
    if (!h->src) return;
    if (!(j = calloc(1, sizeof *j))) {
        mcf_health_snap_blank(&h->after, "not read: out of memory");
        goto close;
    }
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->cond, NULL);
    j->src = h->src;
    j->state = h->state;
    if (pthread_create(&t, NULL, after_main, j) != 0) {
        job_free(j);
        mcf_health_snap_blank(&h->after, "not read: pthread_create failed");
        goto close;
    }
    pthread_detach(t);
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)timeout_s;
    until.tv_nsec += (long)((timeout_s - (time_t)timeout_s) * 1e9);
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&j->lock);
    while (!j->done)
        if (pthread_cond_timedwait(&j->cond, &j->lock, &until) == ETIMEDOUT) break;
    if (j->done)
        h->after = j->snap;
    else
        abandoned = j->abandoned = 1;
    pthread_mutex_unlock(&j->lock);
    if (abandoned) {
        char why[MCF_HEALTH_WHY];
        snprintf(why, sizeof why, "not read in time: the %s calls took more than %.1f s",
                 h->src->name, timeout_s);
        mcf_health_snap_blank(&h->after, why);
        h->abandoned = 1;
        h->src = NULL; /* the thread closes it */
        return;
    }
    job_free(j);
close : {
    char after[sizeof h->notes];
    mcf_health_notes(&h->after, after, sizeof after);
    if (strcmp(after, h->notes) != 0 && after[0]) {
        append(h->notes, sizeof h->notes, h->notes[0] ? "; after the run: " : "after the run: ");
        append(h->notes, sizeof h->notes, after);
    }
}
    mcf_health_free(h);
}

void mcf_health_free(struct mcf_health *h)
{
    if (h->src) h->src->close(h->state);
    h->src = NULL;
    h->state = NULL;
}

void mcf_health_busy(struct mcf_health *h, const struct mcf_sampler *s,
                     const struct mcf_result *res, int n)
{
    h->gen_busy = h->width_busy = -1;
    for (int i = 0; s && i < n; i++) {
        double t0, t1;
        if (mcf_result_window(&res[i], &t0, &t1) != 0) continue;
        for (int j = 0; j < s->nseries; j++) {
            const struct mcf_series *v = &s->series[j];
            for (size_t k = 0; v->on && k < v->n; k++) {
                const struct mcf_preading *p = &v->r[k];
                if (p->s.t < t0 || p->s.t > t1) continue;
                if (p->pcie_gen > h->gen_busy) h->gen_busy = p->pcie_gen;
                if (p->pcie_width > h->width_busy) h->width_busy = p->pcie_width;
            }
        }
    }
}
