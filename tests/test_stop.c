/* The stop signals (src/run/stop.c): a signal caught before MPI_Init is kept
 * by the run that follows, and only by it. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "stop.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_clears_an_old_stop),
        cmocka_unit_test(early_catch_keeps_a_signal_from_startup),
        cmocka_unit_test(cut_follows_the_grace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
