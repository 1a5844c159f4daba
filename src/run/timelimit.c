#define _GNU_SOURCE
#include "timelimit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double mcf_end_reserve(double limit)
{
    return fmin(60.0, fmax(2.0, 0.05 * limit));
}

double mcf_slurm_margin(double left)
{
    return fmin(300.0, fmax(30.0, 0.05 * left));
}

/* squeue's %e: the job's end in local time, YYYY-MM-DDTHH:MM:SS; "N/A" or "Unknown" when none. */
static double squeue_end(const char *job)
{
    char cmd[128], line[128];
    double end = -1;
    if (strspn(job, "0123456789_") != strlen(job))
        return -1; /* only a job id goes into the command */
    /* at most 10 s: every rank waits for rank 0 meanwhile */
    snprintf(cmd, sizeof cmd, "timeout 10 squeue -h -o %%e -j %s 2>/dev/null", job);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    if (fgets(line, sizeof line, p)) {
        struct tm tm;
        memset(&tm, 0, sizeof tm);
        tm.tm_isdst = -1;
        char *rest = strptime(line, "%Y-%m-%dT%H:%M:%S", &tm);
        if (rest && (*rest == '\n' || *rest == '\0')) end = (double)mktime(&tm);
    }
    pclose(p);
    return end;
}

double mcf_slurm_time_left(void)
{
    const char *job = getenv("SLURM_JOB_ID"), *end_env = getenv("SLURM_JOB_END_TIME");
    double end = -1;
    if (!job || !*job) return -1;
    if (end_env && *end_env) {
        char *stop;
        double v = strtod(end_env, &stop);
        if (stop != end_env && *stop == '\0' && v > 0) end = v;
    }
    if (end < 0) end = squeue_end(job);
    if (end < 0) return -1;
    return end - (double)time(NULL);
}

double mcf_run_deadline(double opt, double origin, double now, char *why, size_t size)
{
    double limit, since = isfinite(origin) ? now - origin : 0.0, stop;
    snprintf(why, size, "%s", "");
    if (opt < 0) return INFINITY;
    if (opt > 0) {
        limit = opt;
        stop = limit - mcf_end_reserve(limit);
        snprintf(
            why, size,
            "time limit: --time-limit %.0f s from the start; tests stop %.0f s in (%.0f s kept to "
            "write the file)",
            limit, stop, limit - stop);
        return now - since + stop;
    }
    double left = mcf_slurm_time_left();
    if (left < 0) return INFINITY;
    double margin = mcf_slurm_margin(left), reserve = mcf_end_reserve(left);
    stop = left - margin - reserve;
    snprintf(
        why, size,
        "time limit: the Slurm job has %.0f s left; tests stop in %.0f s (%.0f s margin, %.0f s "
        "to write the file; --time-limit sets another, 'none' none)",
        left, stop > 0 ? stop : 0, margin, reserve);
    return now + (stop > 0 ? stop : 0);
}
