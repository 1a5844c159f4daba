/* The writer, in both strategies, read back through the plain HDF5 API. */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>

#include "h5out.h"

static char dir[256];

static int exists(const char *path) { return access(path, F_OK) == 0; }

static void write_and_read_back(enum mcf_h5_mode mode)
{
    struct mcf_h5 h;
    struct mcf_err e = { 0 };
    char path[512], partial[600];
    snprintf(path, sizeof path, "%s/out-%s.h5", dir, mcf_h5_mode_name(mode));
    snprintf(partial, sizeof partial, "%s.partial", path);
    double row[3] = { 1.5, 2.5, NAN };
    assert_int_equal(mcf_h5_create(&h, path, MPI_COMM_WORLD, mode, 0, &e), MCF_OK);
    assert_true(exists(partial));
    assert_false(exists(path));                 /* nothing looks complete yet */
    assert_int_equal(mcf_h5_group(&h, "/results/t:key=1", &e), MCF_OK);
    assert_int_equal(mcf_h5_attr_str(&h, "/results/t:key=1", "label", "a test", &e), MCF_OK);
    assert_int_equal(mcf_h5_attr_long(&h, "/results/t:key=1", "repetitions", 3, &e), MCF_OK);
    assert_int_equal(mcf_h5_rows_double(&h, "/results/t:key=1/gflops", row, 3, "GFLOP/s", &e), MCF_OK);
    assert_int_equal(mcf_h5_rows_long(&h, "/results/t:key=1/verified", 1, &e), MCF_OK);
    assert_int_equal(mcf_h5_rows_str(&h, "/ranks/hostname", "node-a", &e), MCF_OK);
    /* larger than MCF_H5_GATHER_BYTES: written collectively, row by row, in that mode */
    int nbig = (int)(MCF_H5_GATHER_BYTES / sizeof(double)) + 7;
    double *big = malloc(sizeof *big * (size_t)nbig);
    assert_non_null(big);
    for (int i = 0; i < nbig; i++)
        big[i] = i * 0.5;
    assert_int_equal(mcf_h5_rows_double(&h, "/results/t:key=1/big", big, nbig, "1", &e), MCF_OK);
    assert_int_equal(mcf_h5_close(&h, 1, &e), MCF_OK);
    assert_true(exists(path));
    assert_false(exists(partial));

    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t d = H5Dopen2(f, "/results/t:key=1/gflops", H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t s = H5Dget_space(d);
    hsize_t dims[2];
    assert_int_equal(H5Sget_simple_extent_ndims(s), 2);
    H5Sget_simple_extent_dims(s, dims, NULL);
    assert_int_equal(dims[0], 1);
    assert_int_equal(dims[1], 3);
    double back[3];
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, back);
    assert_float_equal(back[0], 1.5, 0);
    assert_float_equal(back[1], 2.5, 0);
    assert_true(isnan(back[2]));
    assert_true(H5Aexists(d, "unit") > 0);
    H5Sclose(s);
    H5Dclose(d);
    d = H5Dopen2(f, "/results/t:key=1/big", H5P_DEFAULT);
    assert_true(d >= 0);
    memset(big, 0, sizeof *big * (size_t)nbig);
    assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, big) >= 0);
    for (int i = 0; i < nbig; i++)
        if (big[i] != i * 0.5)
            fail_msg("big[%d] = %g", i, big[i]);
    free(big);
    H5Dclose(d);
    d = H5Dopen2(f, "/ranks/hostname", H5P_DEFAULT);
    hid_t t = H5Dget_type(d);
    char name[32] = "";
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, H5Tget_size(t));
    H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, name);
    assert_string_equal(name, "node-a");
    H5Tclose(mt);
    H5Tclose(t);
    H5Dclose(d);
    H5Fclose(f);
    unlink(path);
}

static void collective_mode(void **state)
{
    (void)state;
    if (!mcf_h5_parallel_available())
        skip();
    write_and_read_back(MCF_H5_COLLECTIVE);
}

static void gather_mode(void **state)
{
    (void)state;
    write_and_read_back(MCF_H5_GATHER);
}

/* A run that fails before it can write leaves nothing: not the file, not the
 * .partial it made (which holds nothing), so the next run is not refused. */
static void failed_run_leaves_nothing(void **state)
{
    (void)state;
    struct mcf_h5 h;
    struct mcf_err e = { 0 };
    char path[512], partial[600];
    snprintf(path, sizeof path, "%s/failed.h5", dir);
    snprintf(partial, sizeof partial, "%s.partial", path);
    assert_int_equal(mcf_h5_create(&h, path, MPI_COMM_WORLD, MCF_H5_GATHER, 0, &e), MCF_OK);
    assert_true(exists(partial));
    assert_int_equal(mcf_h5_close(&h, 0, &e), MCF_OK);
    assert_false(exists(path));
    assert_false(exists(partial));
}

/* Never destroy what another run made: an existing output and a .partial
 * are refused (input error, exit 2) and left as they were; --force replaces
 * a killed run's .partial and an old output, never a live run's .partial. */
static void existing_files_are_not_taken(void **state)
{
    (void)state;
    struct mcf_h5 h, live;
    struct mcf_err e = { 0 };
    char path[512], partial[600];
    snprintf(path, sizeof path, "%s/taken.h5", dir);
    snprintf(partial, sizeof partial, "%s.partial", path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("an earlier run", f);
    fclose(f);
    assert_int_equal(mcf_h5_create(&h, path, MPI_COMM_WORLD, MCF_H5_GATHER, 0, &e), MCF_EINPUT);
    assert_non_null(strstr(e.msg, "exists: mcfleet does not overwrite results"));
    assert_false(exists(partial));
    unlink(path);

    mcf_err_clear(&e);   /* a live run holds the .partial: refused, even with force */
    assert_int_equal(mcf_h5_create(&live, path, MPI_COMM_WORLD, MCF_H5_GATHER, 0, &e), MCF_OK);
    assert_int_equal(mcf_h5_create(&h, path, MPI_COMM_WORLD, MCF_H5_GATHER, 1, &e), MCF_EINPUT);
    assert_non_null(strstr(e.msg, "is being written by another mcfleet run"));
    assert_true(exists(partial));
    mcf_err_clear(&e);
    assert_int_equal(mcf_h5_group(&live, "/meta", &e), MCF_OK);
    assert_int_equal(mcf_h5_close(&live, 1, &e), MCF_OK);   /* the first run still finishes */
    assert_true(exists(path));
    unlink(path);

    f = fopen(partial, "w");   /* a killed run's leftover: refused, then replaced with force */
    assert_non_null(f);
    fclose(f);
    assert_int_equal(mcf_h5_create(&h, path, MPI_COMM_WORLD, MCF_H5_GATHER, 0, &e), MCF_EINPUT);
    assert_non_null(strstr(e.msg, "left by a run that was killed"));
    assert_true(exists(partial));
    mcf_err_clear(&e);
    assert_int_equal(mcf_h5_create(&h, path, MPI_COMM_WORLD, MCF_H5_GATHER, 1, &e), MCF_OK);
    assert_int_equal(mcf_h5_close(&h, 1, &e), MCF_OK);
    assert_true(exists(path));
    assert_false(exists(partial));
    unlink(path);
}

/* A full disk at the end is reported as such, not as a crash. */
static void write_all_reports_a_full_disk(void **state)
{
    (void)state;
    char buf[4096] = { 0 };
    int fd = open("/dev/full", O_WRONLY);
    if (fd < 0)
        skip();
    assert_int_equal(mcf_write_all(fd, buf, sizeof buf), ENOSPC);
    close(fd);
}

static void unwritable_path_is_a_runtime_error(void **state)
{
    (void)state;
    struct mcf_h5 h;
    struct mcf_err e = { 0 };
    assert_int_equal(mcf_h5_create(&h, "/nonexistent-mcfleet-dir/x.h5", MPI_COMM_WORLD, MCF_H5_GATHER, 0, &e),
                     MCF_ERUNTIME);
    assert_non_null(strstr(e.msg, "cannot create results file '/nonexistent-mcfleet-dir/x.h5.partial'"));
    assert_non_null(strstr(e.msg, "No such file or directory"));
    assert_false(exists("/nonexistent-mcfleet-dir/x.h5.partial"));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    snprintf(dir, sizeof dir, "/tmp/mcfleet-test-h5out-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(collective_mode),
        cmocka_unit_test(gather_mode),
        cmocka_unit_test(failed_run_leaves_nothing),
        cmocka_unit_test(existing_files_are_not_taken),
        cmocka_unit_test(write_all_reports_a_full_disk),
        cmocka_unit_test(unwritable_path_is_a_runtime_error),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(dir);
    MPI_Finalize();
    return rc;
}
