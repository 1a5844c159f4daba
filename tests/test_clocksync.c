#include <math.h>
#include <mpi.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "clocksync.h"

static void offset_from_least_round_trip(void **state)
{
    (void)state;
    /* remote clock = local + 100; the second exchange has the least RTT and a
     * symmetric path, so it gives the offset exactly */
    struct mcf_pingpong p[] = {
        { 0.0, 100.9, 2.0 },     /* rtt 2, asymmetric: midpoint 1.0 -> 99.9 */
        { 10.0, 110.1, 10.2 },   /* rtt 0.2 -> 100.0 */
        { 20.0, 121.0, 21.0 },   /* rtt 1 -> 100.5 */
    };
    double rtt;
    assert_float_equal(mcf_offset_estimate(p, 3, &rtt), 100.0, 1e-9);
    assert_float_equal(rtt, 0.2, 1e-12);
}

static void single_rank_sync_and_start(void **state)
{
    (void)state;
    struct mcf_clocksync cs;
    struct mcf_err e = { 0 };
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    assert_int_equal(mcf_clocksync_run(MPI_COMM_WORLD, node, 8, &cs, &e), MCF_OK);
    assert_float_equal(cs.offset, 0.0, 0);   /* rank 0 is its own reference */
    double start, skew;
    double before = mcf_now();
    assert_int_equal(mcf_start_together(MPI_COMM_WORLD, &cs, 0.002, &start, &skew, &e), MCF_OK);
    /* it waited for the deadline, and started at or after it */
    assert_true(start - before >= 0.0019);
    assert_true(skew >= 0.0);
    /* late only by scheduling: a loaded test machine may deschedule us for
     * tens of ms, never for the 0.2 s that would mean a wrong deadline */
    assert_true(skew < 200000.0);
    MPI_Comm_free(&node);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(offset_from_least_round_trip),
        cmocka_unit_test(single_rank_sync_and_start),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
