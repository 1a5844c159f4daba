/* The links between GPUs, judged from the health counters (/health,
 * docs/results-format.md; read by src/power/health_nvml.c, health_rsmi.c,
 * health_amdsmi.c). Called by judge_health() for each row.
 *
 * NVLink down (FAIL): fewer links up than the GPU has, or than another GPU
 * of the same model in the file has up. The lower of the two readings
 * counts: a link down before or after the run is down. A GPU with no link
 * up whose model has none up anywhere in the file is a system without
 * NVLink in use (a PCIe card without its bridge): nothing is said.
 *
 * The data-link error counters (NVML counts them since the driver loaded,
 * so the run's own are the after-reading less the before-reading):
 * - recovery errors (FAIL): NVML's "transmit recovery" is the link dropping
 *   out of its active state and retraining, traffic stalled meanwhile; a
 *   link that has to recover under a benchmark's load is not holding its
 *   training, and DCGM's health watch fails a GPU at one such error;
 * - replays (WARN): a flit or data CRC error caught by the receiver and the
 *   packet replayed, so no data is lost; a sign to watch, with the counts.
 *   CRC errors that needed no replay are a note: NVIDIA counts CRC errors a
 *   problem only at high rates, and healthy H200s counted hundreds in a run.
 * xGMI (AMD) error status set (FAIL): rocm-smi / amd-smi say the GPU's xGMI
 * links saw an error (1) or several (2) since the driver loaded or the
 * status was last reset. */
#include <stdio.h>
#include <string.h>

#include "health.h"
#include "report_int.h"

static long long at(const struct fleet *f, int c, size_t row, int after)
{
    return f->health[c] ? f->health[c][2 * row + (after ? 1 : 0)] : -1;
}

/* The lower reading that has a value (-1 where neither has). */
static long long lower(const struct fleet *f, int c, size_t row)
{
    long long a = at(f, c, row, 0), b = at(f, c, row, 1);
    return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

static long long higher(const struct fleet *f, int c, size_t row)
{
    long long a = at(f, c, row, 0), b = at(f, c, row, 1);
    return a > b ? a : b;
}

/* after - before where both were read and the counter did not go back (a
 * reset between the readings: unknown); -1 unknown */
static long long grew(const struct fleet *f, int c, size_t row)
{
    long long a = at(f, c, row, 0), b = at(f, c, row, 1);
    return a >= 0 && b >= a ? b - a : -1;
}

/* The most links up on any other GPU of row r's model; -1 where none was read. */
static long long model_most(const struct fleet *f, size_t r, long long own)
{
    const char *model = mcf_strs_at(&f->device, r);
    long long most = -1;
    for (size_t i = 0; i < f->nranks; i++) {
        long long a = higher(f, MCF_HC_NVLINK_ACTIVE, i);
        /* the integer first: a healthy fleet compares no names */
        if (i == r || a <= most || a <= own || strcmp(mcf_strs_at(&f->device, i), model) != 0)
            continue;
        most = a;
    }
    return most;
}

static void nvlink_down(struct fleet *f, size_t r)
{
    long long up = lower(f, MCF_HC_NVLINK_ACTIVE, r), links = higher(f, MCF_HC_NVLINK_LINKS, r);
    long long ref = up > 0 && links > up ? links : -1, peers;
    char why[160];
    if (up < 0) return;
    peers = model_most(f, r, up);
    if (peers > up && peers > ref) ref = peers;
    if (ref <= up) return;
    if (ref == links)
        snprintf(why, sizeof why, "the GPU has %lld", links);
    else
        snprintf(why, sizeof why, "another %.60s in this file has %lld up; this one has %lld",
                 mcf_strs_at(&f->device, r), peers, links);
    mcf_cause_add(
        f, r, MCF_RULE_HEALTH, MCF_V_FAIL, "", "nvlink_active", (double)up, (double)ref, 5e4,
        "NVLink down: %lld of %lld links active (%lld up before the run, %lld after; %s)", up, ref,
        at(f, MCF_HC_NVLINK_ACTIVE, r, 0), at(f, MCF_HC_NVLINK_ACTIVE, r, 1), why);
}

static void nvlink_errors(struct fleet *f, size_t r)
{
    long long replay = grew(f, MCF_HC_NVLINK_REPLAY, r),
              recovery = grew(f, MCF_HC_NVLINK_RECOVERY, r),
              flit = grew(f, MCF_HC_NVLINK_CRC_FLIT, r), data = grew(f, MCF_HC_NVLINK_CRC_DATA, r);
    char counts[200];
    snprintf(counts, sizeof counts,
             "replay %+lld, recovery %+lld, CRC flit %+lld, CRC data %+lld; after the run "
             "%lld, %lld, %lld, %lld",
             replay, recovery, flit, data, at(f, MCF_HC_NVLINK_REPLAY, r, 1),
             at(f, MCF_HC_NVLINK_RECOVERY, r, 1), at(f, MCF_HC_NVLINK_CRC_FLIT, r, 1),
             at(f, MCF_HC_NVLINK_CRC_DATA, r, 1));
    if (recovery > 0) {
        mcf_cause_add(
            f, r, MCF_RULE_HEALTH, MCF_V_FAIL, "", "nvlink_recovery_errors", (double)recovery, 0,
            5e4, "NVLink recovery errors during the run: a link dropped out and retrained (%s)",
            counts);
        return;
    }
    if (replay <= 0) {
        /* CRC errors alone, corrected at the receiver without a replay: a
         * healthy H200 pair counted 7 to 731 in a run of the link tests
         * (docs/performance.md, issue 29): a note with the counts, no cause */
        if (flit > 0 || data > 0)
            append(f, &f->notes,
                   "  rank %zu: NVLink CRC errors during the run, corrected without a replay (%s); "
                   "NVIDIA counts them a fault only at high rates\n",
                   r, counts);
        return;
    }
    mcf_cause_add(f, r, MCF_RULE_HEALTH, MCF_V_WARN, "", "nvlink_replay_errors", (double)replay, 0,
                  2, "NVLink errors during the run, corrected by replay (%s)", counts);
}

static void xgmi(struct fleet *f, size_t r)
{
    long long before = at(f, MCF_HC_XGMI_ERROR, r, 0), after = at(f, MCF_HC_XGMI_ERROR, r, 1);
    long long st = before > after ? before : after;
    if (st <= 0) return;
    mcf_cause_add(f, r, MCF_RULE_HEALTH, MCF_V_FAIL, "", "xgmi_error_status", (double)st, 0, 5e4,
                  "xGMI link error%s: status %lld before the run, %lld after (rocm-smi/amd-smi "
                  "xGMI error status: "
                  "1 an error, 2 several, since the driver loaded or the status was reset)",
                  st > 1 ? "s" : "", before, after);
}

void mcf_judge_links_health(struct fleet *f, size_t r)
{
    nvlink_down(f, r);
    nvlink_errors(f, r);
    xgmi(f, r);
}
