/* The stop signals (src/run/stop.c): a signal caught before MPI_Init is kept
 * by the run that follows, and only by it. */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "stop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clocksync.h"
#include "numparse.h"
#include "timelimit.h"

static void run_clears_an_old_stop(void **state)
{
    (void)state;
    mcf_stop_catch();
    raise(SIGTERM);
    assert_int_equal(mcf_stop_signal(), SIGTERM);
    assert_true(isfinite(mcf_stop_time()));
    mcf_stop_catch();   /* the next run in this process starts clean */
    assert_int_equal(mcf_stop_signal(), 0);
    assert_true(isinf(mcf_stop_time()));
}

static void early_catch_keeps_a_signal_from_startup(void **state)
{
    (void)state;
    mcf_stop_catch_early();          /* main, before MPI_Init */
    raise(SIGUSR1);                  /* sbatch --signal while the ranks start */
    mcf_stop_catch();                /* the run's first step */
    assert_int_equal(mcf_stop_signal(), SIGUSR1);
    raise(SIGTERM);                  /* the first signal's time and kind count */
    assert_int_equal(mcf_stop_signal(), SIGUSR1);
    mcf_stop_catch();                /* a second run in-process: the early catch is spent */
    assert_int_equal(mcf_stop_signal(), 0);
}

static void cut_follows_the_grace(void **state)
{
    (void)state;
    struct mcf_cut c = { .deadline = INFINITY };
    mcf_stop_catch();
    assert_false(mcf_cut_due(&c));
    assert_false(mcf_cut_due(NULL));
    raise(SIGTERM);                  /* SIGTERM cuts at once */
    assert_true(mcf_cut_due(&c));
    mcf_stop_catch();
    assert_false(mcf_cut_due(&c));
}

static void time_limit_stops_like_a_signal(void **state)
{
    (void)state;
    struct mcf_cut c = { .deadline = INFINITY };
    char by[64];
    mcf_stop_catch();
    mcf_stop_at(mcf_now() + 3600, "the run's time limit (--time-limit)");      /* an hour away: nothing yet */
    assert_int_equal(mcf_stop_signal(), 0);
    assert_false(mcf_cut_due(&c));
    mcf_stop_at(mcf_now() - 1e-3, "the run's time limit (--time-limit)");      /* passed: a stop, and the repetition in hand is cut at once */
    assert_true(mcf_cut_due(&c));
    assert_int_equal(mcf_stop_signal(), MCF_STOP_LIMIT);
    assert_string_equal(mcf_stop_name(MCF_STOP_LIMIT, by, sizeof by), "the run's time limit (--time-limit)");
    assert_string_equal(mcf_stop_name(SIGTERM, by, sizeof by), "signal 15");
    assert_true(mcf_stop_time() <= mcf_now());
    mcf_stop_catch();                   /* a new run: no limit */
    assert_int_equal(mcf_stop_signal(), 0);
    assert_false(mcf_cut_due(&c));
}

static void durations_parse_strictly(void **state)
{
    (void)state;
    static const struct { const char *s; double v; } good[] = {
        { "20", 20 }, { "20s", 20 }, { "15m", 900 }, { "2h", 7200 }, { "1h30m", 5400 }, { "2d", 172800 },
        { "1m1s", 61 },
    };
    static const char *const bad[] = { "", "0", "0s", "s", "-5", "+5", "1.5s", "20x", "1e3", " 20", "20 ", "05",
                                       "367d", "99999999999s", "1h-1m" };
    double v;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        v = -1;
        assert_int_equal(mcf_parse_duration(good[i].s, &v), MCF_NUM_OK);
        assert_true(v == good[i].v);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = -1;
        assert_int_not_equal(mcf_parse_duration(bad[i], &v), MCF_NUM_OK);
        assert_true(v == -1);   /* untouched */
    }
}

static void deadline_keeps_a_reserve(void **state)
{
    (void)state;
    char why[256];
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_JOB_END_TIME");
    /* --time-limit 20s, the process 5 s old: the tests stop 18 s after its start, 13 s from now */
    assert_true(fabs(mcf_run_deadline(20, 100.0, 105.0, why, sizeof why) - 118.0) < 1e-9);
    assert_non_null(strstr(why, "--time-limit 20 s"));
    assert_true(isinf(mcf_run_deadline(0, 100.0, 105.0, why, sizeof why)));   /* no option, no job */
    assert_true(isinf(mcf_run_deadline(-1, 100.0, 105.0, why, sizeof why)));  /* 'none' */
    assert_true(mcf_end_reserve(20) == 2 && mcf_end_reserve(3600) == 60 && mcf_end_reserve(400) == 20);
    assert_true(mcf_slurm_margin(60) == 30 && mcf_slurm_margin(36000) == 300 && mcf_slurm_margin(1200) == 60);
    /* a Slurm job ending in 600 s: 30 s margin, 30 s reserve */
    char end[32];
    snprintf(end, sizeof end, "%lld", (long long)time(NULL) + 600);
    setenv("SLURM_JOB_ID", "42", 1);
    setenv("SLURM_JOB_END_TIME", end, 1);
    double at = mcf_run_deadline(0, 100.0, 105.0, why, sizeof why);
    assert_true(at > 105.0 + 600 - 60 - 2 && at <= 105.0 + 600 - 60);
    assert_non_null(strstr(why, "the Slurm job has"));
    assert_true(isinf(mcf_run_deadline(-1, 100.0, 105.0, why, sizeof why)));  /* 'none' beats the job's */
    setenv("SLURM_JOB_END_TIME", "soon", 1);   /* not a time, and no squeue for job 42: no limit */
    setenv("PATH", "/nonexistent", 1);
    assert_true(isinf(mcf_run_deadline(0, 100.0, 105.0, why, sizeof why)));
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_JOB_END_TIME");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_clears_an_old_stop),
        cmocka_unit_test(early_catch_keeps_a_signal_from_startup),
        cmocka_unit_test(cut_follows_the_grace),
        cmocka_unit_test(time_limit_stops_like_a_signal),
        cmocka_unit_test(durations_parse_strictly),
        cmocka_unit_test(deadline_keeps_a_reserve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
