/* Inside a run (runner.c): the state every step shares, and the steps that
 * live in run_setup.c (before the first test) and run_test.c (one test). Not
 * for other layers. */
#ifndef MCF_RUN_INT_H
#define MCF_RUN_INT_H

#include <mpi.h>

#include "config.h"
#include "acceptance.h"
#include "agree.h"
#include "backend.h"
#include "clocksync.h"
#include "comm_mpi.h"
#include "deck.h"
#include "h5out.h"
#include "health.h"
#include "inject.h"
#include "journal.h"
#include "locality.h"
#include "mcfleet.h"
#include "power_run.h"
#include "record.h"
#include "report.h"
#include "results.h"
#include "stats.h"
#include "stop.h"
#include "sustained.h"
#include "timelimit.h"
#include "topo.h"
#include "watchdog.h"

#define SYNC_ROUNDS 16

struct run {
    const struct mcf_options *o;
    struct mcf_topo topo;
    struct mcf_deck deck;
    struct mcf_backend be;
    double inject_clock_mhz; /* MCFLEET_INJECT_CLOCK_MHZ (inject.h); 0: none */
    void *state;
    int have_state;
    int device, device_count;
    struct mcf_device_info dev;
    struct mcf_clocksync cs;
    double lead; /* how far ahead each test's start deadline is set */
    double t_start; /* rank 0's clock at the first test */
    struct mcf_instance *inst;
    int ninst;
    struct mcf_result *res;
    struct mcf_power_run power;
    int have_power;
    struct mcf_health
        health; /* ECC, memory repair, PCIe link: before the first test and after the last */
    int have_health;
    double sync_s; /* time in the synchronized starts, all tests */
    struct mcf_locality loc; /* the cores closest to this rank's GPU */
    struct mcf_cut cut; /* what the kernel in hand polls (stop.h) */
    double test_start; /* when the test in hand started, this rank's clock */
    double next_start; /* the next test's common start, rank 0's time base (a boundary gives it) */
    struct mcf_watchdog wd; /* test boundaries with a deadline */
    int have_wd;
    struct mcf_journal journal; /* each finished test, as it finishes (journal.h) */
    int have_journal;
    struct mcf_record_ctx rec; /* what the file says of the run and the rank before any test */
    char start_time[32], output[1024];
    char acceptance_deck[MCF_PATH_MAX]; /* --acceptance: the deck chosen by rank 0's device */
    char no_gpu_why[512]; /* why no GPU backend was used (rank 0's probe, shared) */
    int backend_open;
    struct mcf_comm comm; /* the other ranks, for the transfer family (link/comm.h) */
    int have_comm;
};

/* The test in hand: set up before the boundary that starts it, so that a
 * rank hung in its setup is found by the watchdog, not waited for. */
struct in_hand {
    int index;
    struct mcf_kernel k; /* the backend's view; metrics read it too */
    void *ks;
    int have_ks;
    struct mcf_err e; /* the test's own outcome (not fatal to the run) */
    double t0;
    int slow; /* runs per repetition: MCFLEET_INJECT_SLOW's factor where it matches (inject.h), else
                 1 */
};

/* Rank 0 prints (and flushes); the other ranks say nothing. */
void say(const struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* run_setup.c: before the first test (each collective where it says so) */
int load_deck(struct run *r, struct mcf_err *e);
int choose_backend(struct run *r, struct mcf_err *e);
int choose_acceptance_deck(struct run *r, struct mcf_err *e);
int check_acceptance(struct run *r, struct mcf_err *e);
int check_binding(struct run *r, struct mcf_err *e);
int check_locality(struct run *r, struct mcf_err *e);
int check_oversubscription(struct run *r, struct mcf_err *e);
void default_output(struct run *r);
void list_tests(const struct run *r);
int stop_before_start(struct run *r, struct mcf_err *e);
int check_free_space(struct run *r, const struct mcf_h5 *h5, struct mcf_err *e);
int start_watchdog(struct run *r, struct mcf_err *e);

/* run_test.c: one test */
int init_result(struct run *r, int index, struct mcf_err *e);
int prepare_instance(struct run *r, int index, struct in_hand *h, struct mcf_err *fatal);
void release_instance(struct run *r, struct in_hand *h);
int run_instance(struct run *r, struct in_hand *h, struct mcf_err *fatal);
void progress(const struct run *r, int i);
void verbose_result(const struct run *r, int i);

#endif
