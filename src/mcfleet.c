#include "mcfleet.h"
#include "text_safe.h"

#include <mpi.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "backend.h"
#include "error.h"
#include "journal.h"
#include "options.h"
#include "outpath.h"
#include "pytool.h"
#include "report.h"
#include "runner.h"
#include "selftest.h"
#include "stop.h"

/* "mcfleet report FILE" of a run that was killed: FILE rebuilt from its
 * journal first (journal.h). path may name FILE, FILE.partial or
 * FILE.journal; out: the file to read. A rebuild that fails is said, and the
 * reader then says what it finds. */
static const char *rebuild_if_killed(const char *path, char *out, size_t size)
{
    int status = 0;
    if (!path || !mcf_journal_pending(path, out, size)) return path;
    /* in a child, as the report reads (report_guard.c): a journal damaged in a
     * way that crashes the HDF5 library must not take the command with it */
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        struct mcf_err e = { 0 };
        if (mcf_journal_rebuild(out, stderr, &e) != MCF_OK)
            fprintf(stderr, "mcfleet: report: %s\n", e.msg);
        exit(e.rc == MCF_OK ? 0 : 1); /* exit: the sanitizers' leak check runs at exit */
    }
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (pid < 0 || !WIFEXITED(status)) {
        fprintf(stderr, "mcfleet: report: rebuilding '%s' from its journal %s\n", out,
                pid < 0 ? "failed: no process to spare" : "crashed: the journal is damaged");
        return path;
    }
    return WEXITSTATUS(status) == 0 ? out : path;
}

/* report --html OUT: OUT under the output rule (outpath.h), checked here
 * before a journal is rebuilt or the page's script starts (which checks it
 * again: it may be run by hand). argv[at] is --html or --html=OUT; a missing
 * OUT is the script's to report. */
static int html_refused(int argc, char **argv, int at)
{
    struct mcf_err e = { 0 };
    const char *out = argv[at][6] == '=' ? argv[at] + 7 : at + 1 < argc ? argv[at + 1] : NULL;
    int force = 0;
    for (int k = 2; k < argc; k++) force |= !strcmp(argv[k], "--force");
    if (!out || mcf_output_check("--html", out, force, &e) == MCF_OK) return 0;
    fprintf(stderr, "mcfleet: report: %s\n", e.msg);
    return 1;
}

int mcfleet_main(int argc, char **argv)
{
    char rebuilt[1100];
    struct mcf_options o;
    struct mcf_err e = { 0 };
    int rank = 0, initialized = 0;
    if (argc > 1 && !strcmp(argv[1], "compare")) /* Python: analysis/mcfleet_compare.py */
        return mcf_pytool("mcfleet_compare.py", argc - 2, argv + 2);
    if (argc > 1 && !strcmp(argv[1], "baseline")) /* Python: analysis/mcfleet_baseline.py */
        return mcf_pytool("mcfleet_baseline.py", argc - 2, argv + 2);
    if (argc > 1 && !strcmp(argv[1], "study")) /* Python: analysis/mcfleet_study.py */
        return mcf_pytool("mcfleet_study.py", argc - 2, argv + 2);
    if (argc > 1 && !strcmp(argv[1], "export")) /* Python: analysis/mcfleet_export.py */
        return mcf_pytool("mcfleet_export.py", argc - 2, argv + 2);
    if (argc > 1 && !strcmp(argv[1], "health")) /* Python: analysis/mcfleet_health.py */
        return mcf_pytool("mcfleet_health.py", argc - 2, argv + 2);
    if (argc > 1 && !strcmp(argv[1], "selftest")) /* the MFMA layout self-test: no MPI */
        return mcf_selftest_main(argc - 2, argv + 2, stdout, stderr);
    if (argc > 1 &&
        !strcmp(argv[1],
                "report")) /* the page: analysis/mcfleet_html.py, with this binary's verdict */
        for (int i = 2; i < argc; i++)
            if (!strcmp(argv[i], "--html") || !strncmp(argv[i], "--html=", 7)) {
                if (html_refused(argc, argv, i)) /* before anything is read or written */
                    return MCF_EXIT_USAGE;
                for (int k = 2; k < argc; k++) /* a killed run's file, rebuilt first */
                    if (argv[k][0] != '-' &&
                        rebuild_if_killed(argv[k], rebuilt, sizeof rebuilt) == rebuilt) {
                        char *copy =
                            strdup(rebuilt); /* each argument its own: the page reads the files */
                        if (copy) argv[k] = copy;
                    }
                return mcf_pytool("mcfleet_html.py", argc - 2, argv + 2);
            }
    MPI_Initialized(&initialized);
    if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (mcf_options_parse(argc, argv, &o, &e) != MCF_OK) {
        mcf_text_clean(e.msg,
                       ""); /* a path given may hold a newline or an escape: one line, shown */
        if (rank == 0)
            fprintf(stderr, "mcfleet: %s\nTry 'mcfleet %s--help'.\n", e.msg,
                    o.report ? "report " : "");
        return MCF_EXIT_USAGE;
    }
    if (o.report_help) {
        mcf_report_usage(stdout);
        return MCF_EXIT_OK;
    }
    if (o.help) {
        if (rank == 0) mcf_usage(stdout);
        return MCF_EXIT_OK;
    }
    if (o.version) {
        if (rank == 0) {
            printf("mcfleet %s\nbackends:", PACKAGE_VERSION);
            for (int i = 0; mcf_backends[i]; i++) printf(" %s", mcf_backends[i]->name);
            printf("\nbuild: %s\n", MCF_BUILD_INFO);
        }
        return MCF_EXIT_OK;
    }
    if (o.report) /* the exit code is the file's verdict (report.h) */
        return rank == 0
            ? mcf_report_guarded(rebuild_if_killed(o.report_file, rebuilt, sizeof rebuilt),
                                 &o.report_opts, stdout, stderr)
            : MCF_EXIT_OK;
    if (!initialized) {
        fprintf(stderr, "mcfleet: internal error: MPI is not initialised\n");
        return MCF_EXIT_RUNTIME;
    }
    return mcf_run(&o, MPI_COMM_WORLD);
}

void mcfleet_catch_stops(void)
{
    mcf_stop_catch_early();
}

int mcfleet_needs_mpi(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-') return 0; /* a subcommand (report) or a stray word: no MPI */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "-V") || !strcmp(a, "--version"))
            return 0;
    }
    return 1;
}
