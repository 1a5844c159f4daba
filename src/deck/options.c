#include "options.h"
#include "numparse.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "deck.h"
#include "h5out.h"
#include "report_opts.h"

/* every buffer a --deck or -o path is copied into holds MCF_PATH_MAX */
_Static_assert(sizeof((struct mcf_deck *)0)->path >= MCF_PATH_MAX, "deck path buffer");
_Static_assert(sizeof((struct mcf_h5 *)0)->path >= MCF_PATH_MAX, "output path buffer");
_Static_assert(sizeof((struct mcf_h5 *)0)->partial >= MCF_PATH_MAX + sizeof ".partial" - 1,
               "output .partial buffer");

/* A path option: not empty, and short enough for every buffer it goes to. */
static int path_arg(const char *opt, const char *arg, struct mcf_err *e)
{
    size_t n = strlen(arg);
    if (n == 0) return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__, "%s: empty file name", opt);
    if (n >= MCF_PATH_MAX)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "%s: the path is %zu characters long; at most %d are supported "
                           "(a shorter path, or a symbolic link to the directory, will do)",
                           opt, n, MCF_PATH_MAX - 1);
    return MCF_OK;
}

void mcf_usage(FILE *out)
{
    fprintf(
        out,
        "Usage: srun [...] mcfleet [OPTIONS]        run the deck on every rank, one rank per GPU\n"
        "       mpirun -np N mcfleet [OPTIONS]\n"
        "       mcfleet report FILE.h5 [OPTIONS]    the acceptance verdict of a results file\n"
        "                                           (mcfleet report --help)\n"
        "       mcfleet compare OLD.h5 ... NEW.h5   each GPU against its own history, by UUID\n"
        "                                           (mcfleet compare --help)\n"
        "       mcfleet baseline FILE.h5 ... -o B.yaml  a SKU profile from this center's own\n"
        "                                           runs, for report --profiles (mcfleet baseline "
        "--help)\n"
        "       mcfleet study RUN.h5|TABLE.csv ...  where the fleet's spread comes from: levels\n"
        "                                           (cabinet > node > GPU > run), clocks, power,\n"
        "                                           classes for the scheduler (mcfleet study "
        "--help)\n"
        "       mcfleet export [RUN.h5] [OPTIONS]   Slurm weights/features, a Prometheus file, "
        "drains (--help)\n"
        "       mcfleet health [OPTIONS]            this node's GPUs against their own baseline "
        "(--help)\n"
        "       mcfleet selftest [OPTIONS]          the MFMA register-layout self-test, one line "
        "per\n"
        "                                           instruction (mcfleet selftest --help; "
        "docs/amd.md)\n"
        "\n"
        "All ranks run the same micro-benchmarks, started together on a common clock;\n"
        "every rank's results go to one HDF5 file, and rank 0 prints the fleet summary.\n"
        "\n"
        "Options:\n"
        "  --deck FILE          YAML deck of tests (default: the built-in default deck, the\n"
        "                       same as input/default.yaml; see docs/decks.md)\n"
        "  --acceptance         the acceptance deck of rank 0's GPU architecture:\n"
        "                       input/acceptance/<arch>.yaml (sm_90, sm_80, gfx90a,\n"
        "                       gfx942; host.yaml on the host backend). An acceptance\n"
        "                       run where GPUs are allocated refuses the host backend\n"
        "                       (exit 3). The run exits with the report's verdict:\n"
        "                       0 PASS or WARN, 1 FAIL, 3 incomplete. docs/acceptance.md\n"
        "  -o, --output FILE    results file (default: mcfleet-<SLURM_JOB_ID>.h5, or\n"
        "                       mcfleet-<date>-<time>.h5 outside Slurm). Written as\n"
        "                       FILE.partial (created by this run, locked while it runs)\n"
        "                       and renamed to FILE once written through; /meta/complete\n"
        "                       says whether every test ran. Each finished test also goes\n"
        "                       to FILE.journal as it ends: after a kill, 'mcfleet report\n"
        "                       FILE' rebuilds FILE from it. An existing FILE, or a\n"
        "                       FILE.partial or FILE.journal left by a killed run, is\n"
        "                       never overwritten without --force. FILE is a new path\n"
        "                       or a regular file: a symlink, FIFO, device, socket or\n"
        "                       directory is refused (exit 2), even with --force\n"
        "  --force              replace an existing FILE or a killed run's FILE.partial\n"
        "                       and FILE.journal, when each is a regular file\n"
        "                       (never the .partial of a run still writing)\n"
        "  --backend NAME       auto (default: a GPU backend when a GPU is seen, else host),\n"
        "                       host, cuda or hip\n"
        "  --quick              few repetitions and small sizes: a smoke run in seconds\n"
        "                       (its report skips the SKU profiles' floors, set for full sizes)\n"
        "  --list               print the deck's tests (sweeps expanded) and exit\n"
        "  --power on|off       sample power (default on: NVML, rocm-smi, Cray pm_counters,\n"
        "                       whichever work here; each one's status is recorded)\n"
        "  --hdf5-mode MODE     auto (default: gather, unless the results would pass 1 GiB\n"
        "                       and HDF5 has MPI-IO), gather (rank 0 gathers the rows and\n"
        "                       writes) or collective (every rank writes its rows through\n"
        "                       MPI-IO; docs/scaling.md)\n"
        "  --time-limit DURATION  end the run before DURATION (90s, 20m, 1h30m) has passed\n"
        "                       since it started: the test in hand is cut, the finished\n"
        "                       ones are written (complete = 0), exit 3. Inside a Slurm job\n"
        "                       the default is the job's time left, less a margin of 5%%\n"
        "                       (30 s to 5 min); 'none' turns that off\n"
        "  -v, --verbose        more progress output\n"
        "  -h, --help           this help\n"
        "  -V, --version        print the version\n"
        "\n"
        "Exit codes:\n"
        "  0  every kernel ran and verified (unsupported kernels are recorded, not errors)\n"
        "  1  a kernel produced a wrong result (it is recorded as a failure, never a timing)\n"
        "  2  usage or input error: a bad option, or a deck error reported as file:line:col\n"
        "  3  runtime error: device, MPI or I/O (an unwritable output path, a full disk),\n"
        "     an acceptance run on the host backend where GPUs are allocated,\n"
        "     a rank hung (the watchdog: the others write without it), or the run was\n"
        "     stopped by SIGTERM/SIGINT/SIGUSR1/SIGUSR2 or its time limit: what was\n"
        "     measured is written, marked complete = 0, the tests not run listed\n"
        "     (docs/exit-codes.md)\n"
        "  An acceptance run (--acceptance, or a deck with acceptance: true) exits with\n"
        "  its verdict where that is worse: 1 when a GPU FAILs, 3 when incomplete.\n"
        "\n"
        "Stopping: best, --time-limit (the run ends itself in time). Under mpirun,\n"
        "signals sent to mpirun (timeout, kill) reach the ranks only as SIGTERM followed\n"
        "by SIGKILL 1 s later (raise it: mpirun --mca odls_base_sigkill_timeout 30);\n"
        "under Slurm, sbatch --signal=B:USR1@120 or scancel. Each finished test is\n"
        "journalled as it ends (FILE.journal): after a SIGKILL, 'mcfleet report FILE'\n"
        "rebuilds FILE from it. See docs/reliability.md.\n"
        "\n"
        "Environment:\n"
        "  MCFLEET_HOST_THREADS       worker threads per rank for the host backend (1-4096)\n"
        "  MCFLEET_NVML_LIB           the NVML library to load (default libnvidia-ml.so.1)\n"
        "  MCFLEET_RSMI_LIB           the rocm-smi library to load (default librocm_smi64.so)\n"
        "  MCFLEET_CRAYPM_ROOT        pm_counters directory (default /sys/cray/pm_counters)\n"
        "  MCFLEET_CRAYPM_ACCEL       this rank's accelN (default: its GPU's place in PCI order)\n"
        "  MCFLEET_INJECT_FAULT=P[@R] testing only: corrupt the output of tests matching\n"
        "                             the glob P (on rank R only, 0 <= R < ranks); recorded\n"
        "                             in /meta/injected\n"
        "  MCFLEET_INJECT_SLOW=P[@R]  testing only: tests matching P (on rank R) run their\n"
        "                             kernel MCFLEET_INJECT_SLOW_FACTOR times (2-64, default\n"
        "                             2) per repetition, the work of one counted: a slow GPU,\n"
        "                             measured; recorded in /meta/injected_slow\n"
        "  MCFLEET_DEV_ROOT           testing only: where to look for the GPU device nodes\n"
        "                             nvidiaN and kfd (default /dev); recorded in /meta/dev_root\n"
        "  MCFLEET_INJECT_HEALTH_BUS  testing only: ranks without a PCI GPU (the host\n"
        "                             backend) read health counters from this PCI bus id\n"
        "                             (the stub libraries'); named in /health/source\n"
        "  A malformed MCFLEET_HOST_THREADS or MCFLEET_INJECT_* stops the run before\n"
        "  any test, exit code 2.\n"
        "\n"
        "Examples:\n"
        "  srun -N 64 --gpus-per-task=1 mcfleet --acceptance\n"
        "  mpirun -np 2 mcfleet --backend host --quick -o smoke.h5\n"
        "  mcfleet report smoke.h5\n"
        "\n"
        "Documentation: README.md, docs/decks.md, docs/results-format.md\n");
}

int mcf_options_parse(int argc, char **argv, struct mcf_options *o, struct mcf_err *e)
{
    enum {
        OPT_DECK = 256,
        OPT_BACKEND,
        OPT_QUICK,
        OPT_LIST,
        OPT_H5MODE,
        OPT_POWER,
        OPT_FORCE,
        OPT_ACCEPTANCE,
        OPT_TIME_LIMIT
    };
    static const struct option longopts[] = { { "deck", required_argument, NULL, OPT_DECK },
                                              { "acceptance", no_argument, NULL, OPT_ACCEPTANCE },
                                              { "output", required_argument, NULL, 'o' },
                                              { "backend", required_argument, NULL, OPT_BACKEND },
                                              { "quick", no_argument, NULL, OPT_QUICK },
                                              { "force", no_argument, NULL, OPT_FORCE },
                                              { "list", no_argument, NULL, OPT_LIST },
                                              { "hdf5-mode", required_argument, NULL, OPT_H5MODE },
                                              { "power", required_argument, NULL, OPT_POWER },
                                              { "time-limit", required_argument, NULL,
                                                OPT_TIME_LIMIT },
                                              { "verbose", no_argument, NULL, 'v' },
                                              { "help", no_argument, NULL, 'h' },
                                              { "version", no_argument, NULL, 'V' },
                                              { NULL, 0, NULL, 0 } };
    memset(o, 0, sizeof *o);
    o->backend = "auto";
    size_t used = 0;
    for (int i = 0; i < argc; i++) {
        int n = snprintf(o->command_line + used, sizeof o->command_line - used, "%s%s",
                         i ? " " : "", argv[i]);
        if (n < 0 || (size_t)n >= sizeof o->command_line - used) {
            /* recorded in /meta: a cut command line says so */
            memcpy(o->command_line + sizeof o->command_line - 5, " ...", 5);
            break;
        }
        used += (size_t)n;
    }
    if (argc > 1 && strcmp(argv[1], "report") == 0) {
        o->report = 1;
        mcf_report_opts_default(&o->report_opts);
        return mcf_report_opts_parse(argc - 1, argv + 1, &o->report_opts, &o->report_file,
                                     &o->report_help, e);
    }
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:vhV", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_DECK:
            if (path_arg("--deck", optarg, e) != MCF_OK) return e->rc;
            o->deck = optarg;
            break;
        case 'o':
            if (path_arg("--output", optarg, e) != MCF_OK) return e->rc;
            o->output = optarg;
            break;
        case OPT_BACKEND: {
            int known = 0;
            for (int i = 0; mcf_backend_known[i]; i++)
                known |= strcmp(mcf_backend_known[i], optarg) == 0;
            if (!known)
                return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                                   "--backend: unknown backend '%s' (auto, host, cuda or hip)",
                                   optarg);
            o->backend = optarg;
            break;
        }
        case OPT_QUICK: o->quick = 1; break;
        case OPT_ACCEPTANCE: o->acceptance = 1; break;
        case OPT_FORCE: o->force = 1; break;
        case OPT_LIST: o->list = 1; break;
        case OPT_H5MODE:
            if (strcmp(optarg, "auto") && strcmp(optarg, "collective") && strcmp(optarg, "gather"))
                return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                                   "--hdf5-mode: '%s' is not auto, collective or gather", optarg);
            o->h5_mode = optarg;
            break;
        case OPT_POWER:
            if (strcmp(optarg, "on") && strcmp(optarg, "off"))
                return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                                   "--power: '%s' is neither on nor off", optarg);
            o->power_off = !strcmp(optarg, "off");
            break;
        case OPT_TIME_LIMIT:
            if (!strcmp(optarg, "none")) {
                o->time_limit_s = -1;
                break;
            }
            if (mcf_parse_duration(optarg, &o->time_limit_s) != MCF_NUM_OK)
                return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                                   "--time-limit: '%s' is not a duration such as "
                                   "90s, 20m, 1h30m or 2d (at most 366d), nor 'none'",
                                   optarg);
            break;
        case 'v': o->verbose++; break;
        case 'h': o->help = 1; break;
        case 'V': o->version = 1; break;
        case ':':
            return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__, "option '%s' needs a value",
                               argv[optind - 1]);
        default:
            return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__, "unknown option '%s'",
                               argv[optind - 1]);
        }
    }
    if (optind < argc)
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                           "unexpected argument '%s' (did you mean 'mcfleet report %s'?)",
                           argv[optind], argv[optind]);
    if (o->acceptance && o->deck)
        return mcf_err_set(
            e, MCF_EINPUT, __FILE__, __LINE__,
            "--acceptance chooses the deck by the GPU's architecture: give it or --deck, not both "
            "(a deck of your own is an acceptance deck with 'acceptance: true', docs/decks.md)");
    return MCF_OK;
}
