#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "clocksync.h"
#include "host.h"

/* A start gate: workers wait until the caller opens it (all threads exist) or
 * aborts it (a thread could not be created), so a failed start never leaves
 * threads blocked. */
struct gate {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int open, abort;
};

struct member {
    struct gate *gate;
    host_work_fn fn;
    void *arg;
    int worker, nworkers;
    double *start, *end;
};

static int gate_wait(struct gate *g)
{
    pthread_mutex_lock(&g->mutex);
    while (!g->open && !g->abort) pthread_cond_wait(&g->cond, &g->mutex);
    int go = !g->abort;
    pthread_mutex_unlock(&g->mutex);
    return go;
}

static void gate_release(struct gate *g, int abort)
{
    pthread_mutex_lock(&g->mutex);
    if (abort)
        g->abort = 1;
    else
        g->open = 1;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->mutex);
}

static void *member_main(void *p)
{
    struct member *m = p;
    if (!gate_wait(m->gate)) return NULL;
    m->start[m->worker] = mcf_now();
    m->fn(m->arg, m->worker, m->nworkers);
    m->end[m->worker] = mcf_now();
    return NULL;
}

int host_team_run(int n, host_work_fn fn, void *arg, double *start, double *end, struct mcf_err *e)
{
    struct gate g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
    pthread_t *tid = NULL;
    struct member *m = NULL;
    int created = 0;
    MCF_ALLOC(e, tid, n);
    MCF_ALLOC(e, m, n);
    for (int i = 0; i < n; i++) m[i] = (struct member){ &g, fn, arg, i, n, start, end };
    /* worker 0 is the calling thread: one thread fewer to create per run */
    for (int i = 1; i < n; i++) {
        MCF_ERRNO(e, pthread_create(&tid[i], NULL, member_main, &m[i]));
        created = i;
    }
    gate_release(&g, 0);
    member_main(&m[0]);
    for (int i = 1; i <= created; i++) pthread_join(tid[i], NULL);
    free(tid);
    free(m);
    return MCF_OK;
fail:
    gate_release(&g, 1);
    for (int i = 1; i <= created; i++) pthread_join(tid[i], NULL);
    free(tid);
    free(m);
    return e->rc;
}

uint64_t host_chunk(uint64_t ops_per_iteration)
{
    uint64_t c = HOST_CHUNK_OPS / (ops_per_iteration ? ops_per_iteration : 1);
    return c ? c : 1;
}

int host_workers(const struct host_state *s, const struct mcf_kernel *k)
{
    int w = k->occupancy > 0 ? k->occupancy : s->threads;
    return w > 0 ? w : 1;
}

double host_relerr(const double *out, const double *ref, size_t n)
{
    long double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        long double d = (long double)out[i] - ref[i];
        num += d * d;
        den += (long double)ref[i] * ref[i];
    }
    if (num != num) /* NaN never passes */
        return 1.0 / 0.0;
    return den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
}
