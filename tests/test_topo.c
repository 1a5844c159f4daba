#include <mpi.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "topo.h"

static void device_choice(void **state)
{
    (void)state;
    assert_int_equal(mcf_choose_device(0, 0), -1);    /* nothing visible */
    assert_int_equal(mcf_choose_device(1, 5), 0);     /* the launcher bound one device */
    assert_int_equal(mcf_choose_device(8, 3), 3);
    assert_int_equal(mcf_choose_device(8, 11), 3);    /* more ranks than devices wrap */
    assert_int_equal(mcf_choose_device(4, 0), 0);
}

static void cpu_lists(void **state)
{
    (void)state;
    char out[64];
    unsigned char a[] = { 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 1 };
    mcf_format_cpulist(a, 12, out, sizeof out);
    assert_string_equal(out, "0-3,8,10-11");
    unsigned char none[4] = { 0 };
    mcf_format_cpulist(none, 4, out, sizeof out);
    assert_string_equal(out, "");
    unsigned char one[3] = { 0, 1, 0 };
    mcf_format_cpulist(one, 3, out, sizeof out);
    assert_string_equal(out, "1");
    /* a list too long for the buffer is cut, visibly */
    unsigned char alt[64];
    for (int i = 0; i < 64; i++) alt[i] = (unsigned char)(i % 2 == 0);
    char small[16];
    mcf_format_cpulist(alt, 64, small, sizeof small);
    assert_string_equal(small + strlen(small) - 3, "...");
}

static void single_rank_topology(void **state)
{
    (void)state;
    struct mcf_topo t;
    struct mcf_err e = { 0 };
    assert_int_equal(mcf_topo_init(MPI_COMM_WORLD, &t, &e), MCF_OK);
    assert_int_equal(t.size, 1);
    assert_int_equal(t.nnodes, 1);
    assert_int_equal(t.node_index, 0);
    assert_int_equal(t.local_rank, 0);
    assert_int_equal(t.local_size, 1);
    assert_true(t.ncpus >= 1);
    assert_true(strlen(t.hostname) > 0);
    assert_true(strlen(t.affinity) > 0);
    mcf_topo_free(&t);
}

static void binding_checks(void **state)
{
    (void)state;
    char msg[512];
    int same[] = { 8, 8, 8 }, differ[] = { 8, 8, 1 };
    const char ok[3][16] = { "GPU-a", "GPU-b", "GPU-c" }, dup[3][16] = { "GPU-a", "GPU-b", "GPU-a" };
    assert_int_equal(mcf_check_binding(same, &ok[0][0], 16, 3, 0, msg, sizeof msg), 0);
    assert_int_equal(mcf_check_binding(differ, &ok[0][0], 16, 3, 0, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "local ranks 0 and 2 see 8 and 1 GPUs"));
    assert_int_equal(mcf_check_binding(same, &dup[0][0], 16, 3, 0, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "local ranks 0 and 2 both use GPU GPU-a"));
    assert_int_equal(mcf_check_binding(same, &dup[0][0], 16, 3, 1, msg, sizeof msg), 0);   /* allowed */
}

static void oversubscription(void **state)
{
    (void)state;
    char msg[512];
    assert_int_equal(mcf_oversubscribed(2, 2, NULL, NULL, msg, sizeof msg), 0);
    assert_int_equal(mcf_oversubscribed(8, 2, NULL, NULL, msg, sizeof msg), 1);
    assert_non_null(strstr(msg, "8 ranks on 2 online CPUs"));
    assert_non_null(strstr(msg, "OMPI_MCA_mpi_yield_when_idle=1"));
    assert_int_equal(mcf_oversubscribed(8, 2, "1", NULL, msg, sizeof msg), 0);    /* told to yield */
    assert_int_equal(mcf_oversubscribed(8, 2, NULL, "1", msg, sizeof msg), 0);    /* mpirun --oversubscribe */
    assert_int_equal(mcf_oversubscribed(8, 2, "0", NULL, msg, sizeof msg), 1);
    assert_int_equal(mcf_oversubscribed(8, 0, NULL, NULL, msg, sizeof msg), 0);   /* unknown CPU count */
}

/* a stand-in environment for mcf_check_launch: NAME=VALUE pairs */
static const char *fake_env[16];

static char *fake_getenv(const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; fake_env[i]; i++)
        if (strncmp(fake_env[i], name, n) == 0 && fake_env[i][n] == '=')
            return (char *)fake_env[i] + n + 1;
    return NULL;
}

static int launch(int size, char *msg, size_t len, ...)
{
    va_list ap;
    int i = 0;
    va_start(ap, len);
    for (const char *kv; i < 15 && (kv = va_arg(ap, const char *)) != NULL;)
        fake_env[i++] = kv;
    va_end(ap);
    fake_env[i] = NULL;
    return mcf_check_launch(size, fake_getenv, msg, len);
}

static void launch_checks(void **state)
{
    (void)state;
    char msg[512];
    /* srun without PMI: four singletons, each told the step has 4 tasks */
    assert_int_equal(launch(1, msg, sizeof msg, "SLURM_STEP_ID=0", "SLURM_NTASKS=4", NULL), -1);
    assert_non_null(strstr(msg, "Slurm's step has 4 tasks (SLURM_NTASKS=4) but the MPI world has 1 rank:"));
    assert_non_null(strstr(msg, "srun --mpi=pmix"));
    assert_int_equal(launch(2, msg, sizeof msg, "SLURM_STEP_ID=3", "SLURM_NTASKS=4", NULL), -1);
    assert_non_null(strstr(msg, "but the MPI world has 2 ranks"));
    /* SLURM_NPROCS when SLURM_NTASKS is absent (older Slurm) */
    assert_int_equal(launch(1, msg, sizeof msg, "SLURM_STEP_ID=0", "SLURM_NPROCS=8", NULL), -1);
    assert_non_null(strstr(msg, "(SLURM_NPROCS=8)"));
    /* a correct launch */
    assert_int_equal(launch(4, msg, sizeof msg, "SLURM_STEP_ID=0", "SLURM_NTASKS=4", "SLURM_NPROCS=4", NULL), 0);
    assert_string_equal(msg, "");
    /* not in a step (a batch script running mcfleet itself; no Slurm at all) */
    assert_int_equal(launch(1, msg, sizeof msg, "SLURM_NTASKS=4", NULL), 0);
    assert_int_equal(launch(1, msg, sizeof msg, NULL), 0);
    /* another launcher started the ranks inside the allocation: its world counts */
    assert_int_equal(launch(2, msg, sizeof msg, "SLURM_STEP_ID=0", "SLURM_NTASKS=4", "OMPI_COMM_WORLD_SIZE=2", NULL), 0);
    assert_int_equal(launch(2, msg, sizeof msg, "SLURM_STEP_ID=0", "SLURM_NTASKS=4", "PMI_SIZE=2", NULL), 0);
    /* a heterogeneous step: SLURM_NTASKS is one component's */
    assert_int_equal(launch(6, msg, sizeof msg, "SLURM_STEP_ID=0", "SLURM_NTASKS=4", "SLURM_HET_SIZE=2", NULL), 0);
    /* a count that is not a number is not compared */
    assert_int_equal(launch(1, msg, sizeof msg, "SLURM_STEP_ID=0", "SLURM_NTASKS=4(x2)", NULL), 0);
    assert_int_equal(launch(1, msg, sizeof msg, "SLURM_STEP_ID=0", "SLURM_NTASKS=", NULL), 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_choice),
        cmocka_unit_test(cpu_lists),
        cmocka_unit_test(single_rank_topology),
        cmocka_unit_test(binding_checks),
        cmocka_unit_test(oversubscription),
        cmocka_unit_test(launch_checks),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
