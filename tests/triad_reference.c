/* The plain C STREAM triad the host backend is held against (tests/
 * triad_sanity.sh): one thread, a = b + s*c over arrays of N doubles, warm-up
 * then REPS timed passes; prints the median bandwidth in GB/s. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (1u << 25);
    int reps = argc > 2 ? atoi(argv[2]) : 10;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    double *t = malloc(reps * sizeof *t);
    if (!a || !b || !c || !t || reps < 1)
        return 2;
    for (size_t i = 0; i < n; i++) { a[i] = 0; b[i] = 0.5 + (i % 509) / 512.0; c[i] = 0.25; }
    const double s = 0.4;
    for (int r = -2; r < reps; r++) {
        double t0 = now();
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
        double dt = now() - t0;
        if (r >= 0) t[r] = dt;
    }
    for (size_t i = 0; i < n; i += n / 7 + 1)     /* the loop really ran */
        if (a[i] != b[i] + s * c[i]) { fprintf(stderr, "wrong\n"); return 1; }
    qsort(t, reps, sizeof *t, cmp);
    printf("%.4f\n", 3.0 * sizeof(double) * n / t[reps / 2] * 1e-9);
    return 0;
}
