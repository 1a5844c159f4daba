/* Stopping a run: the stop signals, and the cut that ends a repetition early.
 *
 * SIGTERM and SIGINT (Slurm's time limit, scancel, Ctrl-C, mpirun passing
 * them on), SIGUSR1 and SIGUSR2 (sbatch --signal) ask the run to stop: the
 * repetition in hand may finish within MCF_CUT_GRACE_S, else the kernel cuts
 * it; the ranks stop together at the next test boundary and write what was
 * measured. A launcher that kills soon after it signals (mpirun: 1 s) leaves
 * no time for long repetitions, hence the cut.
 *
 * The signal state is the one process-wide variable mcfleet keeps: a signal
 * handler can reach nothing else. */
#ifndef MCF_STOP_H
#define MCF_STOP_H

#include <math.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How long the repetition in hand may go on after SIGUSR1 or SIGUSR2, which
 * a batch system sends ahead of the end (sbatch --signal). SIGTERM and SIGINT
 * cut at once: a kill follows them (mpirun: 1 s later; Slurm: KillWait). */
#define MCF_CUT_GRACE_S 0.2

/* Installs the handlers and clears any earlier stop (a run's first step),
 * except one caught since mcf_stop_catch_early. */
void mcf_stop_catch(void);
/* Installs the handlers before MPI_Init: a batch system's signal that comes
 * while the ranks start (Slurm may send --signal's up to a minute early)
 * stops the run cleanly instead of killing the rank with no word. */
void mcf_stop_catch_early(void);
/* The signal that asked for a stop, MCF_STOP_LIMIT once the run's time
 * limit passed, or 0. */
int mcf_stop_signal(void);
#define MCF_STOP_LIMIT 1000 /* no signal's number */
/* --time-limit: from t on (mcf_now's clock) the run stops as a SIGTERM would
 * stop it, the repetition in hand cut at once. INFINITY: none. what: the
 * limit's name in messages (a string that outlives the run). */
void mcf_stop_at(double t, const char *what);
/* When this process began (mcf_stop_catch_early, before MPI_Init, or else
 * mcf_stop_catch): where --time-limit counts from. */
double mcf_stop_origin(void);
/* "signal 15", or the time limit's name: for messages. */
const char *mcf_stop_name(int sig, char *buf, size_t size);
/* When it came (mcf_now's clock), or INFINITY. */
double mcf_stop_time(void);

/* What a kernel polls between chunks of its work. deadline: the test's time
 * limit on mcf_now's clock (INFINITY: none). */
struct mcf_cut {
    double deadline;
};

/* Whether to stop the work now: the time limit passed, SIGTERM or SIGINT
 * came, or SIGUSR1/SIGUSR2 came more than MCF_CUT_GRACE_S ago. NULL never cuts. Cheap (one clock
 * read): poll it every millisecond or so of work, not per element. */
int mcf_cut_due(const struct mcf_cut *c);

#ifdef __cplusplus
}
#endif

#endif
