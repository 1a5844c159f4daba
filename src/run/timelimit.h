/* When a run must stop to end in time: --time-limit, or inside a Slurm job
 * the job's own end, each less what the end of the run needs. */
#ifndef MCF_TIMELIMIT_H
#define MCF_TIMELIMIT_H

#include <stddef.h>

/* Seconds kept back from a limit of `limit` seconds for the end of the run
 * (the boundary, the file's write, the report): 5 %, at least 2 s, at most 60 s. */
double mcf_end_reserve(double limit);
/* A Slurm job's margin on top (its clock is not ours, its kill is SIGKILL
 * after KillWait): 5 % of the time left, at least 30 s, at most 5 min. */
double mcf_slurm_margin(double left);

/* The seconds a Slurm job has left (SLURM_JOB_END_TIME, else squeue's end
 * time for SLURM_JOB_ID), or -1 when not in a job or it has no end. */
double mcf_slurm_time_left(void);

/* Rank 0: when (on mcf_now's clock) the run stops, from opt (the option's
 * seconds; 0 not given: a Slurm job's time left; -1 'none'), origin (the
 * process's start) and now; INFINITY for no limit. why: a line for the user. */
double mcf_run_deadline(double opt, double origin, double now, char *why, size_t size);

#endif
