/* Acceptance runs: the deck for this architecture (mcfleet --acceptance),
 * whether the node has GPUs allocated (an acceptance run must not end up on
 * the host backend there), and whether a device is one the deck targets.
 * docs/decks.md (acceptance, arch) and docs/acceptance.md. */
#ifndef MCF_ACCEPTANCE_H
#define MCF_ACCEPTANCE_H

#include <stddef.h>

#include "error.h"

/* The device node directory scanned for /dev/nvidia[0-9]* and /dev/kfd:
 * MCFLEET_DEV_ROOT (a testing hook, recorded in /meta/dev_root), else /dev. */
const char *mcf_dev_root(void);

/* 1 when this node has GPUs allocated to the job: a GPU-selecting variable
 * that names devices (CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES,
 * HIP_VISIBLE_DEVICES, SLURM_GPUS*, SLURM_JOB_GPUS, SLURM_STEP_GPUS), or a GPU
 * device node (nvidiaN, kfd under mcf_dev_root()). *seen says which ones. */
int mcf_gpus_allocated(char *seen, size_t len);

/* The acceptance deck for a device architecture (as in /ranks/device_arch;
 * AMD's ":feature" suffix is ignored): <dir>/acceptance/<arch>.yaml, else its
 * family's (sm_8x: sm_80; gfx940, gfx941, gfx942: gfx942); the host backend
 * (gpu = 0) takes host.yaml. dir is the source tree's input/ for a binary run
 * from its build directory, else the installed decks ($(pkgdatadir)/input).
 * MCF_EINPUT, listing the decks there, when there is none. */
int mcf_acceptance_deck(const char *arch, int gpu, char *path, size_t len, struct mcf_err *e);

/* 1 when arch (its ":feature" suffix ignored) is in the comma-separated list. */
int mcf_arch_listed(const char *arch, const char *list);

#endif
