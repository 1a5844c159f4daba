/* mcfleet public entry points. main() is a thin wrapper around mcfleet_main();
 * the tests call the same function in-process. */
#ifndef MCFLEET_H
#define MCFLEET_H

/* Exit codes (documented in --help and docs/exit-codes.md). */
enum mcf_exit {
    MCF_EXIT_OK = 0, /* every kernel verified */
    MCF_EXIT_VERIFY = 1, /* a kernel failed verification */
    MCF_EXIT_USAGE = 2, /* bad option, bad deck, bad input */
    MCF_EXIT_RUNTIME = 3 /* device, MPI or I/O failure */
};

/* Runs "mcfleet [options]" or "mcfleet report FILE". MPI must be initialised
 * by the caller for a run; "report", "--help", "--version" and "--list" need
 * no MPI. Returns an enum mcf_exit value. */
int mcfleet_main(int argc, char **argv);

/* Whether this command line runs benchmarks (and so needs MPI_Init); --help,
 * --version and the subcommands ("report", "selftest", ...) work on a login
 * node without a launcher. */
int mcfleet_needs_mpi(int argc, char **argv);

/* Catches the stop signals (SIGTERM, SIGINT, SIGUSR1, SIGUSR2) from now on,
 * before MPI_Init: one that comes while the ranks start stops the run with a
 * message and exit 3 instead of killing the rank silently. */
void mcfleet_catch_stops(void);

#endif
