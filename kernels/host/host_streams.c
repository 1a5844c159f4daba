/* Concurrency on the host: each "stream" is a thread running its own matrix
 * tiles or triad arrays (the same jobs as the matrix and memory families).
 * One repetition runs every stream alone, then all together; the shared code
 * in src/run/concurrency.c turns the intervals into speedup, overlap and fairness. */
#include <math.h>
#include <stdlib.h>

#include "family.h" /* mcf_streams_work */
#include "host.h"

struct streams_run {
    struct mcf_kernel k;
    int n;
    struct host_tiles *tiles;
    struct host_arrays *arrays;
    host_work_fn fn;
    void *job;
    double start[MCF_MAX_STREAMS], end[MCF_MAX_STREAMS];
};

/* A repetition's lightest stream does at least this much work on the host,
 * in passes over its own arrays or tiles (the others as many passes): a
 * stream of the default deck's 16 MiB triad ran 2-5 ms, a matrix stream of
 * --quick's 1024 tiles 0.2 ms, within a scheduler's time slice, so whether a
 * thread lost one decided the speedup (3 host ranks on 2 cores, --quick: one
 * rank's 0.53 against the others' 1.17, a FAIL). The figures are ratios of
 * times: more passes leave what they measure as it was. On a GPU the kernels
 * are timed on the device: no such floor. */
#define STREAM_MIN_BYTES (96ull << 20) /* triad traffic: 10-20 ms at 5-10 GB/s */
#define STREAM_MIN_FLOPS (16ull << 20) /* matrix tiles: 15-20 ms at 0.8-1.2 GFLOP/s */

uint64_t host_streams_passes(const struct mcf_kernel *k)
{
    struct mcf_kernel w;
    mcf_streams_work(k, k->streams > 1 ? 1 : 0, &w); /* stream 0 carries the imbalance */
    double work = k->work == MCF_WORK_MATRIX
        ? (double)w.iterations * mcf_kernel_flops_per_unit(&w)
        : (double)w.bytes * mcf_kernel_bytes_per_unit(&w) / mcf_dtype_size(w.dtype);
    double min = k->work == MCF_WORK_MATRIX ? (double)STREAM_MIN_FLOPS : (double)STREAM_MIN_BYTES;
    return work > 0 && work < min ? (uint64_t)ceil(min / work) : 1;
}

/* Runs stream `index` alone through a team of one. */
struct solo {
    struct streams_run *r;
    int index;
};

static void solo_work(void *arg, int w, int n)
{
    struct solo *s = arg;
    (void)w;
    s->r->fn(s->r->job, s->index, n);
}

static int streams_setup(void *state, const struct mcf_kernel *k, void **ks, struct mcf_err *e)
{
    struct streams_run *r = NULL;
    uint64_t amount[MCF_MAX_STREAMS];
    struct mcf_kernel w; /* each stream's work differs only in its amount */
    (void)state;
    MCF_ALLOC(e, r, 1);
    r->k = *k;
    r->n = k->streams;
    uint64_t passes = host_streams_passes(k);
    for (int i = 0; i < r->n; i++) {
        mcf_streams_work(k, i, &w);
        amount[i] = k->work == MCF_WORK_MATRIX ? w.iterations * passes
                                               : w.bytes / (uint64_t)mcf_dtype_size(w.dtype);
    }
    w.sweeps = passes; /* memory: passes over the arrays (matrix: in the amounts) */
    if (k->work == MCF_WORK_MATRIX) {
        MCF_TRY(host_tiles_create(&w, r->n, amount, &r->tiles, e));
        r->fn = host_tiles_work;
        r->job = r->tiles;
    } else {
        MCF_TRY(host_arrays_create(&w, r->n, 0, amount, &r->arrays, e));
        r->fn = host_arrays_work;
        r->job = r->arrays;
    }
    *ks = r;
    return MCF_OK;
fail:
    free(r);
    return e->rc;
}

static int streams_run(void *ks, struct mcf_sample *s, struct mcf_err *e)
{
    struct streams_run *r = ks;
    double t0, t1;
    for (int i = 0; i < r->n; i++) {
        struct solo solo = { r, i };
        MCF_TRY(host_team_run(1, solo_work, &solo, &t0, &t1, e));
        s->stream_alone[i] = t1 - t0;
    }
    MCF_TRY(host_team_run(r->n, r->fn, r->job, r->start, r->end, e));
    if ((r->tiles && host_tiles_was_cut(r->tiles)) || (r->arrays && host_arrays_was_cut(r->arrays)))
        MCF_FAIL(e, MCF_ECUT, "cut before the streams' work was done");
    double origin = r->start[0];
    for (int i = 1; i < r->n; i++)
        if (r->start[i] < origin) origin = r->start[i];
    s->nstreams = r->n;
    for (int i = 0; i < r->n; i++) {
        s->stream_start[i] = r->start[i] - origin;
        s->stream_end[i] = r->end[i] - origin;
    }
    double wall = 0;
    for (int i = 0; i < r->n; i++)
        if (s->stream_end[i] > wall) wall = s->stream_end[i];
    s->seconds = wall;
    s->units = r->n;
    return MCF_OK;
fail:
    return e->rc;
}

static int streams_verify(void *ks, struct mcf_err *e)
{
    struct streams_run *r = ks;
    return r->tiles ? host_tiles_check(r->tiles, r->k.inject_fault, e)
                    : host_arrays_check(r->arrays, r->k.inject_fault, e);
}

static void streams_teardown(void *ks)
{
    struct streams_run *r = ks;
    host_tiles_destroy(r->tiles);
    host_arrays_destroy(r->arrays);
    free(r);
}

const struct mcf_kernel_ops host_streams_ops = { streams_setup, streams_run, streams_verify,
                                                 streams_teardown };
