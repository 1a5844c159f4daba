/* Health counters of a rank's GPU, read before the first test and after the
 * last: ECC errors, remapped rows or retired pages, the PCIe link against
 * its maximum, and the board serial. Sources are tables like the power
 * sources (NVML, rocm-smi, amd-smi, loaded with dlopen): the first that opens on this
 * rank's device is used; none opening leaves every counter -1 with the
 * reasons, and the run goes on. The verdict reads them from the file
 * (docs/results-format.md, /health; docs/acceptance.md, "Health counters").
 *
 * The link at idle: GPUs lower their PCIe generation when idle to save
 * power, so a generation read before or after the run below its maximum is
 * not a downtrained link. The power sampler reads the link while tests run
 * (power.h, MCF_LINK_EVERY) and the most it saw inside the tests' windows is
 * kept as pcie_gen_busy / pcie_width_busy: that is the link at work.
 *
 * The links between GPUs: NVML's NVLink count and state and its error
 * counters; rocm-smi's / amd-smi's xGMI error status. A source that has no
 * such link leaves those counters -1 with the reason (report_links_health.c
 * judges them).
 *
 * Testing only: $MCFLEET_INJECT_HEALTH_BUS gives the ranks of a backend
 * without a PCI GPU (the host backend) a bus id to read health counters
 * from, so the stub libraries' counters travel the whole pipeline. */
#ifndef MCF_HEALTH_H
#define MCF_HEALTH_H

#include <stddef.h>

#include "amd_pages.h"
#include "error.h"
#include "results.h"
#include "sampler.h"

enum mcf_health_counter {
    MCF_HC_ECC_CORR_VOL,
    MCF_HC_ECC_UNC_VOL,
    MCF_HC_ECC_CORR_AGG,
    MCF_HC_ECC_UNC_AGG,
    MCF_HC_REMAP_CORR,
    MCF_HC_REMAP_UNC,
    MCF_HC_REMAP_PENDING,
    MCF_HC_REMAP_FAILED,
    MCF_HC_RETIRED,
    MCF_HC_RETIRED_PENDING,
    MCF_HC_PCIE_GEN,
    MCF_HC_PCIE_GEN_MAX,
    MCF_HC_PCIE_WIDTH,
    MCF_HC_PCIE_WIDTH_MAX,
    /* the links between GPUs (appended: older files lack them, read as -1):
     * NVLinks the GPU has and how many are up; the data-link error counters
     * summed over its links; AMD's xGMI error status (0 none, 1 an error,
     * 2 several, as rocm-smi / amd-smi give it) */
    MCF_HC_NVLINK_LINKS,
    MCF_HC_NVLINK_ACTIVE,
    MCF_HC_NVLINK_REPLAY,
    MCF_HC_NVLINK_RECOVERY,
    MCF_HC_NVLINK_CRC_FLIT,
    MCF_HC_NVLINK_CRC_DATA,
    MCF_HC_XGMI_ERROR,
    MCF_HC_COUNT
};
/* The dataset names under /health, in the enum's order. */
extern const char *const mcf_health_names[MCF_HC_COUNT];

#define MCF_HEALTH_WHY 112
/* One reading of every counter: a value, or -1 with why it is not there. */
struct mcf_health_snap {
    long long v[MCF_HC_COUNT];
    char why[MCF_HC_COUNT][MCF_HEALTH_WHY];
};
/* Every counter -1 for why. */
void mcf_health_snap_blank(struct mcf_health_snap *s, const char *why);
/* Counter c is -1 for the reason given. */
void mcf_health_none(struct mcf_health_snap *s, int c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An AMD library's reserved-pages call: 0 (all n records read, or the count
 * alone where rec is NULL), 1 (more than n: the n that fit are read), or -1
 * with the library's error text in *why. */
typedef int (*mcf_amd_pages_get)(const void *lib, uint32_t *n, struct mcf_amd_page *rec,
                                 const char **why);
/* AMD retires pages, not rows: reserved pages are retired_pages, pending
 * ones retired_pages_pending, pages that could not be reserved count as
 * remap_failed, and the row counters are -1. get NULL: the library (name)
 * lacks the call. */
void mcf_health_amd_pages(struct mcf_health_snap *s, const void *lib, mcf_amd_pages_get get,
                          const char *name, const char *call);
/* The reasons as one line: "a,b: why; c: why2" (counters with a value left out). */
void mcf_health_notes(const struct mcf_health_snap *s, char *buf, size_t len);

struct mcf_health_source {
    const char *name;
    /* MCF_OK, or why the source is off (MCF_EUNSUPPORTED / MCF_ERUNTIME) */
    int (*open)(void **state, const char *pci_bus_id, struct mcf_err *e);
    /* Fills every counter of s: its value, or -1 and why (a missing entry
     * point or a vendor error disables that counter alone). */
    void (*read)(void *state, struct mcf_health_snap *s);
    /* The board serial: 0, or -1 where the device reports none. */
    int (*serial)(void *state, char *buf, size_t len);
    void (*close)(void *state);
};

extern const struct mcf_health_source mcf_health_nvml, mcf_health_rsmi, mcf_health_amdsmi;
/* NULL-terminated, in the order they are tried. */
extern const struct mcf_health_source *const mcf_health_sources[];

/* A rank's health over a run. */
struct mcf_health {
    const struct mcf_health_source *src; /* NULL: off */
    void *state;
    char source[512]; /* "nvml", "rsmi", "amdsmi", or "off: <why>" */
    char serial[64]; /* "" where none */
    char notes[1024]; /* why counters are -1 (mcf_health_notes), before; after where it differs */
    struct mcf_health_snap before, after;
    long long gen_busy, width_busy; /* the most seen during the tests, -1 unknown */
    int abandoned; /* the after-reading outlived its time: its thread keeps the state */
};

/* Opens the first source that works on the device at pci_bus_id, reads the
 * serial (fallback_serial where the source has none: AMD's sysfs serial) and
 * the before-snapshot. Never fails: a source that cannot work is "off". */
void mcf_health_begin(struct mcf_health *h, const char *pci_bus_id, const char *fallback_serial);
/* The after-snapshot, given at most timeout_s: a GPU that hangs in the
 * driver leaves the counters it did not reach -1 ("not read in time") and
 * the run goes on. Then closes the source. */
void mcf_health_end(struct mcf_health *h, double timeout_s);
/* pcie_gen_busy / pcie_width_busy: the most the sampler's series (any
 * source that reads the link) saw inside the tests' windows, from each
 * test's first repetition's start to its last one's end. s may be NULL. */
void mcf_health_busy(struct mcf_health *h, const struct mcf_sampler *s,
                     const struct mcf_result *res, int n);
/* Closes what is still open (after an error before mcf_health_end). */
void mcf_health_free(struct mcf_health *h);

#endif
