/* Power over a run: sources opened and sampled from before the first test
 * (idle power) to after the last; per-repetition energy and power for every
 * test and the power model per data type and input kind, computed into
 * struct mcf_power_figures; src/results/record_power.c writes them and the
 * series (docs/results-format.md, /power and /power_model). */
#ifndef MCF_POWER_RUN_H
#define MCF_POWER_RUN_H

#include "backend.h"
#include "deck.h"
#include "results.h"
#include "sampler.h"
#include "topo.h"

struct mcf_power_run {
    struct mcf_sampler sampler;
    int all_on; /* every rank has a source: per-test figures are recorded */
    int keep_series; /* write every sample (/power/<source>/t_s ...), or only the figures */
    double idle_t0, idle_t1; /* the idle window, rank 0's time base */
};

/* Opens the sources (none when off), starts sampling, waits idle_s for the
 * idle window. Collective. */
int mcf_power_begin(struct mcf_power_run *p, const struct mcf_topo *t,
                    const struct mcf_device_info *dev, double period_s, unsigned sources, int off,
                    double clock_offset, double idle_s, struct mcf_err *e);
void mcf_power_end(struct mcf_power_run *p);
void mcf_power_free(struct mcf_power_run *p);

/* Evidence for a GPU's figures over a test window [t0, t1] (rank 0's time
 * base), from the readings whose time held inside it (a reading holds from
 * its sample until the next, as for power): the median SM clock (MHz), the
 * highest temperature (degC), the OR of NVML's clock-event (throttle)
 * reasons, and the most processes seen holding a compute context on the GPU
 * (read every MCF_LINK_EVERY readings: the last count read before a reading
 * holds for it too, so a short test still has one). NaN where the source has
 * no such reading or none fell in. */
struct mcf_evidence {
    double sm_mhz, temp_c_max, throttle; /* throttle: the bit mask, exact as a double below 2^53 */
    double gpu_procs_max;
};
struct mcf_evidence mcf_window_evidence(const struct mcf_preading *r, size_t n, double t0,
                                        double t1);
/* A test's whole window: its first repetition's start to its last one's end
 * (a stopped test keeps its first repetitions); 0, or -1 where it has none. */
int mcf_result_window(const struct mcf_result *r, double *t0, double *t1);

/* ---- the figures, computed from the samples (compute, then write) ---- */

/* A registered source over the run: its series (NULL where the run has
 * none: power off), the update cadences, the idle power; NaN where unknown. */
struct mcf_source_figures {
    const struct mcf_power_source *src;
    const struct mcf_series *series;
    double cadence, cadence_power, cadence_energy, idle_w;
};

enum mcf_rate_kind { MCF_RATE_NONE, MCF_RATE_FLOPS, MCF_RATE_BYTES };

/* One test on this rank: per repetition (arrays of its repetitions), the
 * whole test, and the GPU's state over it. */
struct mcf_test_power {
    double *energy, *power, *mean, *count, *under, *eff;
    /* the two clocks: the source's SM clock per repetition (the median of
     * its readings in the repetition's window), and the in-kernel clock over
     * it, per repetition and their median (NaN where either is missing) */
    double *sm_mhz, *clock_ratio, clock_ratio_med;
    double span_w, span_mean_w, span_e, span_eff;
    enum mcf_rate_kind rate; /* what eff and span_eff are per watt of */
    double tflops_med; /* the median rate, for the model (NaN without one) */
    struct mcf_evidence ev;
    /* Two readings of one quantity: every per-rank source that is on, over
     * the whole test as span_w (one per registered source, in the
     * registry's order; NaN where off, node-level, or the test did not
     * verify), and of the others the one that departs most from the primary:
     * its index in sources[] and its power over the primary's (-1 and NaN
     * where the rank has one source). */
    double *source_w;
    int check_source;
    double power_ratio;
};

/* The most tests one model is fitted over (the first ones of the deck). */
#define MCF_MODEL_POINTS 256

/* P = slope x TFLOP/s + intercept over the tests of one type and input kind. */
struct mcf_power_model {
    enum mcf_family family; /* matrix (the group is the type's name) or gemm ("gemm-" before it) */
    enum mcf_dtype dtype;
    enum mcf_inputs inputs;
    double slope, intercept, r2;
    int points;
};

struct mcf_power_figures {
    int per_test; /* every rank had a source: tests[] and models[] exist */
    int keep_series;
    double period_s;
    int nsources; /* one per registered source, in the registry's order */
    struct mcf_source_figures *sources;
    int primary; /* sources[primary] gives the per-test figures; -1: none on this rank */
    int ntests;
    struct mcf_test_power *tests;
    int nmodels;
    struct mcf_power_model models[2 * MCF_DTYPE_COUNT * MCF_INPUTS_COUNT];
};

/* Whether a test of kernel k is among model m's points (its family, the
 * matrix tiles' throughput mode, its type and input kind). */
int mcf_power_model_member(const struct mcf_power_model *m, const struct mcf_kernel *k);

/* Computes every figure from the stopped sampler. MCF_ERUNTIME for memory. */
int mcf_power_compute(const struct mcf_power_run *p, const struct mcf_result *res, int n,
                      struct mcf_power_figures *f, struct mcf_err *e);
void mcf_power_figures_free(struct mcf_power_figures *f);

#endif
