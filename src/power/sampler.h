/* Power sampling: one thread per rank polls every open source at the deck's
 * period (default 20 ms) into memory; nothing is written to disk while tests
 * run. One thread per rank, not per node: each rank owns its device's
 * readings and its own time base, and a node's ranks never wait on each other. */
#ifndef MCF_SAMPLER_H
#define MCF_SAMPLER_H

#include <pthread.h>
#include <stddef.h>

#include "power.h"

struct mcf_series {
    const struct mcf_power_source *src;
    void *state;
    int on;
    char status[256]; /* "on", or why the source is off */
    struct mcf_preading *r;
    size_t n, cap;
    int failed_reads;
};

struct mcf_sampler {
    struct mcf_series *series; /* one per registered source (mcf_power_sources), on or off */
    int nseries;
    double period_s, offset; /* offset: this rank's clock minus rank 0's */
    pthread_t thread;
    pthread_mutex_t lock;
    int running;
    volatile int stop;
};

/* Opens every registered source whose kind is in `kinds` (bit k: enum
 * mcf_power_kind k); the others, and those that cannot work, are kept, off,
 * with their reason. Never fails for a missing source; MCF_ERUNTIME only for
 * memory. */
int mcf_sampler_open(struct mcf_sampler *s, const struct mcf_power_env *env, double period_s,
                     double offset, unsigned kinds, struct mcf_err *e);
int mcf_sampler_start(struct mcf_sampler *s, struct mcf_err *e);
void mcf_sampler_stop(struct mcf_sampler *s);
void mcf_sampler_close(struct mcf_sampler *s);
/* The first per-rank source that is on, or NULL: the one per-test figures come from. */
const struct mcf_series *mcf_sampler_primary(const struct mcf_sampler *s);

#endif
