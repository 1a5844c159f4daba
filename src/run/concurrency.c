#include "concurrency.h"

#include <stdlib.h>

#include "stats.h"

double mcf_wall_time(const double *start, const double *end, int n)
{
    if (n <= 0) return 0.0;
    double lo = start[0], hi = end[0];
    for (int i = 1; i < n; i++) {
        if (start[i] < lo) lo = start[i];
        if (end[i] > hi) hi = end[i];
    }
    return hi - lo;
}

struct edge {
    double t;
    int delta;
};

static int edge_cmp(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    if (x->t < y->t) return -1;
    if (x->t > y->t) return 1;
    return x->delta -
        y->delta; /* an end before a start at the same instant: touching is not overlap */
}

double mcf_overlap_efficiency(const double *start, const double *end, int n)
{
    if (n < 2) return 0.0;
    struct edge ev[64];
    if (n > 32) n = 32;
    for (int i = 0; i < n; i++) {
        ev[2 * i] = (struct edge){ start[i], +1 };
        ev[2 * i + 1] = (struct edge){ end[i], -1 };
    }
    qsort(ev, (size_t)(2 * n), sizeof ev[0], edge_cmp);
    double overlapped = 0.0;
    int running = 0;
    for (int i = 0; i < 2 * n; i++) {
        if (i > 0 && running >= 2) overlapped += ev[i].t - ev[i - 1].t;
        running += ev[i].delta;
    }
    double wall = mcf_wall_time(start, end, n);
    return wall > 0.0 ? overlapped / wall : 0.0;
}

double mcf_fairness(const double *duration, int n)
{
    if (n < 2) return 1.0;
    double lo = duration[0], hi = duration[0], sum = 0.0;
    for (int i = 0; i < n; i++) {
        if (duration[i] < lo) lo = duration[i];
        if (duration[i] > hi) hi = duration[i];
        sum += duration[i];
    }
    double mean = sum / n;
    return mean > 0.0 ? 1.0 - (hi - lo) / mean : 0.0;
}
