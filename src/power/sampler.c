#include "sampler.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clocksync.h"

int mcf_sampler_open(struct mcf_sampler *s, const struct mcf_power_env *env, double period_s,
                     double offset, unsigned kinds, struct mcf_err *e)
{
    int n = 0;
    memset(s, 0, sizeof *s);
    s->period_s = period_s;
    s->offset = offset;
    pthread_mutex_init(&s->lock, NULL);
    while (mcf_power_sources[n]) n++;
    if (!(s->series = calloc((size_t)n, sizeof *s->series)))
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                           "out of memory for the power sources");
    for (int i = 0; i < n; i++) {
        struct mcf_series *v = &s->series[s->nseries++];
        struct mcf_err why = { 0 };
        v->src = mcf_power_sources[i];
        if (!(kinds >> v->src->kind & 1u)) {
            snprintf(v->status, sizeof v->status, "off: not among the deck's power sources");
        } else if (v->src->open(&v->state, env, &why) == MCF_OK) {
            v->on = 1;
            snprintf(v->status, sizeof v->status, "on");
            v->cap = 4096;
            if (!(v->r = malloc(v->cap * sizeof *v->r)))
                return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                                   "out of memory for power samples");
        } else {
            snprintf(v->status, sizeof v->status, "off: %.240s", why.msg);
        }
    }
    return MCF_OK;
}

static void sample_all(struct mcf_sampler *s)
{
    for (int i = 0; i < s->nseries; i++) {
        struct mcf_series *v = &s->series[i];
        struct mcf_preading r;
        struct mcf_err e = { 0 };
        if (!v->on) continue;
        double t = mcf_now() - s->offset;
        if (v->src->read(v->state, &r, &e) != MCF_OK) {
            v->failed_reads++;
            continue;
        }
        r.s.t = t;
        pthread_mutex_lock(&s->lock);
        if (v->n == v->cap) {
            struct mcf_preading *grown = realloc(v->r, 2 * v->cap * sizeof *v->r);
            if (grown) {
                v->r = grown;
                v->cap *= 2;
            }
        }
        if (v->n < v->cap) v->r[v->n++] = r;
        pthread_mutex_unlock(&s->lock);
    }
}

static void *sampler_main(void *arg)
{
    struct mcf_sampler *s = arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!s->stop) {
        sample_all(s);
        /* absolute deadlines: the period does not drift with the reads' cost */
        long ns = (long)(s->period_s * 1e9);
        next.tv_nsec += ns % 1000000000L;
        next.tv_sec += ns / 1000000000L + next.tv_nsec / 1000000000L;
        next.tv_nsec %= 1000000000L;
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
            ;
    }
    sample_all(s); /* one past the last window's end */
    return NULL;
}

int mcf_sampler_start(struct mcf_sampler *s, struct mcf_err *e)
{
    int any = 0;
    for (int i = 0; i < s->nseries; i++) any |= s->series[i].on;
    if (!any) return MCF_OK; /* nothing to sample */
    s->stop = 0;
    MCF_ERRNO(e, pthread_create(&s->thread, NULL, sampler_main, s));
    s->running = 1;
    return MCF_OK;
fail:
    return e->rc;
}

void mcf_sampler_stop(struct mcf_sampler *s)
{
    if (!s->running) return;
    s->stop = 1;
    pthread_join(s->thread, NULL);
    s->running = 0;
}

void mcf_sampler_close(struct mcf_sampler *s)
{
    mcf_sampler_stop(s);
    for (int i = 0; i < s->nseries; i++) {
        if (s->series[i].on) s->series[i].src->close(s->series[i].state);
        free(s->series[i].r);
    }
    free(s->series);
    pthread_mutex_destroy(&s->lock);
    memset(s, 0, sizeof *s);
}

const struct mcf_series *mcf_sampler_primary(const struct mcf_sampler *s)
{
    for (int i = 0; i < s->nseries; i++)
        if (s->series[i].on && !s->series[i].src->node_level) return &s->series[i];
    return NULL;
}
