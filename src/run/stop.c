#define _GNU_SOURCE
#include "stop.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clocksync.h"

static volatile sig_atomic_t stop_sig;
static volatile double stop_at = INFINITY;
static volatile double cut_at = INFINITY; /* stop_at, plus the grace for SIGUSR1/2 */
static volatile double limit_at = INFINITY; /* --time-limit, this rank's clock */
static double origin = NAN; /* when the process began to catch stops */
static int caught_early; /* set before MPI_Init: a stop that came during it is kept */

static void on_stop(int sig)
{
    if (stop_sig) return; /* the first signal's time counts */
    struct timespec ts; /* clock_gettime is async-signal-safe */
    clock_gettime(CLOCK_MONOTONIC, &ts);
    stop_at = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    cut_at = stop_at + (sig == SIGUSR1 || sig == SIGUSR2 ? MCF_CUT_GRACE_S : 0.0);
    stop_sig = sig;
}

static void clear(void)
{
    stop_sig = 0;
    stop_at = cut_at = limit_at = INFINITY;
}

static void install(void)
{
    static const int signals[] = { SIGTERM, SIGINT, SIGUSR1, SIGUSR2 };
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        sigaction(signals[i], &sa, NULL);
}

void mcf_stop_catch_early(void)
{
    clear();
    origin = mcf_now();
    install();
    caught_early = 1;
}

void mcf_stop_catch(void)
{
    if (!caught_early) {
        clear();
        origin = mcf_now();
    }
    caught_early = 0; /* a later run in this process starts clean */
    install();
}

static const char *limit_what = "the run's time limit";

void mcf_stop_at(double t, const char *what)
{
    limit_at = t;
    limit_what = what;
}

double mcf_stop_origin(void)
{
    return origin;
}

int mcf_stop_signal(void)
{
    if (!stop_sig && limit_at < INFINITY && mcf_now() >= limit_at) { /* as if a signal came then */
        stop_at = cut_at = limit_at;
        stop_sig = MCF_STOP_LIMIT;
    }
    return stop_sig;
}

const char *mcf_stop_name(int sig, char *buf, size_t size)
{
    if (sig == MCF_STOP_LIMIT)
        snprintf(buf, size, "%s", limit_what);
    else
        snprintf(buf, size, "signal %d", sig);
    return buf;
}

double mcf_stop_time(void)
{
    return stop_sig ? stop_at : INFINITY;
}

int mcf_cut_due(const struct mcf_cut *c)
{
    if (!c) return 0;
    double now = mcf_now();
    return now > c->deadline || (stop_sig && now > cut_at) || now > limit_at;
}
