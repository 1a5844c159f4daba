/* mcfleet: thin main. Everything lives in libmcfleet.a (mcfleet_main). */
#include <mpi.h>
#include <stdio.h>

#include "mcfleet.h"

int main(int argc, char **argv)
{
    if (!mcfleet_needs_mpi(argc, argv)) return mcfleet_main(argc, argv);
    int provided;
    mcfleet_catch_stops(); /* a batch system's early signal must not kill a starting rank */
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "mcfleet: MPI_Init_thread failed\n");
        return MCF_EXIT_RUNTIME;
    }
    int code = mcfleet_main(argc, argv);
    MPI_Finalize();
    return code;
}
