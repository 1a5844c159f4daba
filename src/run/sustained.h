/* Sustained tests (a deck's `duration`): repetitions back to back for that
 * many seconds from the test's common start, a trace per one-second window,
 * the steady state found in it and the figures at the limit: rate, clock,
 * power, energy per unit of work, the time to reach the limit and the time
 * spent throttled (docs/decks.md, docs/results-format.md).
 *
 * The windows are the same seconds on every rank (rank 0's time base), so a
 * trace is one row per rank and one column per second. In a sustained test a
 * "repetition" of the per-repetition datasets is a window: their width stays
 * fixed (the duration) and every reader of them keeps working; the real
 * number of repetitions is recorded beside them.
 *
 * Pure functions over arrays: the runner feeds the repetitions and, once
 * sampling has ended, the power source's readings; the results layer writes
 * what they computed (src/results/record_sustained.c). */
#ifndef MCF_SUSTAINED_H
#define MCF_SUSTAINED_H

#include <stddef.h>

#include "deck.h"
#include "energy.h"
#include "kernel.h"
#include "power.h"

#define MCF_SUSTAINED_WINDOW_S 1.0

/* Steady state: the windows from the first one after which the rate and the
 * power stay within this fraction of their median over the test's last half
 * (see mcf_steady_from). */
#define MCF_STEADY_BAND 0.02
/* The limit is reached when the power first reads this fraction of its steady value. */
#define MCF_LIMIT_LEVEL 0.97
/* NVML's clock-event reasons that mean the limit holds the clock down:
 * software power cap (0x4), hardware slowdown (0x8), software and hardware
 * thermal slowdown (0x20, 0x40), hardware power brake (0x80). Idle, sync
 * boost and clock settings are not the limit. */
#define MCF_LIMIT_REASONS 0xecull

/* The trace's columns, one value per window, NaN where there is none. */
enum mcf_trace_field {
    MCF_TRACE_RATE, /* the test's rate metric: work / device time spent in the window */
    MCF_TRACE_WORK, /* work done in the window (GFLOP or GB) */
    MCF_TRACE_CLOCK, /* in-kernel clock: median over the repetitions in the window (MHz) */
    MCF_TRACE_SM_MHZ, /* the power source's SM clock: median of its readings (MHz) */
    MCF_TRACE_POWER, /* W: the energy counter over the window, else the mean of the readings */
    MCF_TRACE_TEMP, /* the highest temperature read (degC) */
    MCF_TRACE_THROTTLE, /* OR of the clock-event reason masks read; NaN where none was read */
    MCF_TRACE_SPAN, /* seconds of the window the test ran (1, less at its first and a stop) */
    MCF_TRACE_COUNT
};
extern const char *const mcf_trace_names[MCF_TRACE_COUNT];
extern const char *const mcf_trace_units[MCF_TRACE_COUNT]; /* rate and work: the metric's own */

/* The figures at the limit, over the steady windows [from, to). */
struct mcf_steady {
    int found; /* 1: steady from `from`; 0: never steady, the figures are over the last half */
    int from, to; /* -1, -1: no window to compute from */
    double start_s; /* when the steady windows begin, seconds after the test's start (NaN: never) */
    double rate; /* work / device time over the steady windows */
    double clock_mhz, sm_mhz; /* medians of the windows' in-kernel and source clocks */
    double power_w; /* energy / time over the steady windows */
    double j_per_unit; /* energy / work over the steady windows (J per GFLOP or GB) */
    double time_to_limit_s; /* first power reading at MCF_LIMIT_LEVEL of the steady power, after the
                               start */
    double throttled_fraction; /* windows throttled by a limit reason, of those whose reasons were
                                  read */
    double throttle_reasons; /* OR of the limit reasons over those windows (NaN: none read) */
};

/* Per-window accumulation of repetitions as they end, in time order. Rates
 * (work per second: gflops, bandwidth_gbs) are work over device time in the
 * window; every other metric is the median of the repetitions that overlap
 * the window. A repetition spanning windows goes to each in proportion to its
 * time there, so no window between two repetitions is left without a figure. */
struct mcf_sustained_acc {
    int nwin, nmetrics, open; /* open: the window whose medians are being gathered */
    unsigned char *rate; /* [nmetrics]: 1 for a rate */
    double *num, *den; /* [nmetrics * nwin]: sum of f*s*v and f*s (rates) */
    double *med; /* [nmetrics * nwin]: medians, once a window closes */
    double **buf; /* [nmetrics]: the open window's values */
    size_t nbuf, cap;
    double *carry; /* [nmetrics]: the last repetition, where it spans later windows */
    int carry_to; /* the last window it overlaps; -1 none */
    double first, last; /* the first repetition's start, the last one's end */
};

/* A sustained test on one rank: its windows, trace and figures. */
struct mcf_sustained {
    int nwin; /* windows: the duration in seconds */
    double t0; /* window 0's start: the common start (rank 0's time base) */
    long long reps; /* repetitions run */
    int rate_metric, clock_metric; /* indices in the result's metrics; -1 where the test has none */
    int power_on; /* every rank had a power source (the same on every rank) */
    double *trace[MCF_TRACE_COUNT]; /* [nwin] each */
    struct mcf_steady steady; /* computed where the rank verified */
    struct mcf_sustained_acc acc;
};

/* A sustained instance runs one repetition per window in the per-repetition
 * datasets and no separate warm-up (its first seconds are the ramp that steady
 * state leaves out): repetitions = duration, warmup = 0, for instances with a
 * duration. */
void mcf_sustained_instances(struct mcf_instance *in, int n);
/* A sustained test's time limit covers its duration: the deck's time_limit
 * counts from the end of the duration (the last repetition and the check);
 * 0 where there is none. */
int mcf_sustained_time_limit(const struct mcf_instance *in);

/* The rate metric of a test: gflops, else bandwidth_gbs (as the power's
 * rate per watt), -1 where it has neither. */
int mcf_sustained_rate_metric(const struct mcf_metric *m, int n);

/* 0, or -1 out of memory (then nothing to free). */
int mcf_sustained_init(struct mcf_sustained *s, int nwin, const struct mcf_metric *m, int nmetrics);
void mcf_sustained_free(struct mcf_sustained *s);

int mcf_acc_init(struct mcf_sustained_acc *a, int nwin, const unsigned char *rate, int nmetrics);
void mcf_acc_free(struct mcf_sustained_acc *a);
/* One repetition from a to b (seconds from window 0's start), device-timed
 * seconds, its metric values v[nmetrics]. 0, or -1 out of memory. */
int mcf_acc_add(struct mcf_sustained_acc *a, double from, double to, double seconds,
                const double *v);
/* Closes every window: values[m * nwin + w] each window's figure (NaN where
 * no repetition ran in it), span[2 * w] and span[2 * w + 1] the part of
 * window w between the first repetition's start and the last one's end
 * (seconds from window 0's start; NaN without work). Returns the windows with
 * work. */
int mcf_acc_close(struct mcf_sustained_acc *a, double *values, double *span);

/* The first steady window of n: the earliest w from which every window's rate
 * and power (where there is a reading: NaN is no evidence against) lie within
 * band of their medians over the last half, the last quarter (2 windows at
 * least) included; -1 where there is none. A series without any reading is
 * left out. */
int mcf_steady_from(const double *rate, const double *power, int n, double band);

/* The figures over the trace's first n windows (those with work): steady
 * from mcf_steady_from, else the last half (found = 0); from = -1 and NaN
 * figures (the throttled time aside) where the trace has neither a rate nor
 * power to tell by. trace[] as the fields above; the time to the limit is
 * left NaN (mcf_time_to_level). */
struct mcf_steady mcf_steady_figures(double *const trace[MCF_TRACE_COUNT], int n);

/* The first sample at or after t0 (and not after t1) whose power reads at
 * least level, in seconds after t0; NaN where none does. */
double mcf_time_to_level(const struct mcf_psample *s, size_t n, double t0, double t1, double level);

/* Starts the test's windows at t0 (rank 0's time base); feeds one
 * repetition [a, b] (the same base) with its device-timed seconds and metric
 * values; closes the windows into the per-window datasets (values, rep_start,
 * rep_end: each window's span, NaN without work) and the kernel's columns of
 * the trace. add: 0, or -1 out of memory; close: the windows with work. */
void mcf_sustained_start(struct mcf_sustained *s, double t0);
int mcf_sustained_add(struct mcf_sustained *s, double a, double b, double seconds, const double *v);
int mcf_sustained_close(struct mcf_sustained *s, double *values, double *rep_start,
                        double *rep_end);

/* Once sampling ended: the source's columns of the trace over each window's
 * span, from readings r[n] on rank 0's time base (NULL, 0: no source), and
 * where verified the steady figures. kernel: keep the kernel's columns (rate,
 * work, clock; a wrong or failed kernel's timing is no figure). 0, or -1 out
 * of memory. */
int mcf_sustained_finish(struct mcf_sustained *s, const struct mcf_preading *r, size_t n,
                         const double *rep_start, const double *rep_end, int kernel, int verified);

#endif
