/* amd-smi (libamd_smi.so, ROCm 6.1 onward; MI300-era systems use it in place
 * of rocm-smi-lib), loaded with dlopen ($MCFLEET_AMDSMI_LIB for the tests'
 * stub): one loader for the power source and the health counters, so one
 * binary runs where ROCm is absent. The device is found by PCI bus id: every
 * socket's processor handles, each one's amdsmi_get_gpu_device_bdf. Only the
 * entry points needed to find the device are required; the rest may be NULL,
 * and the part that needs one says so.
 *
 * The declarations below are written here, not copied: their names and
 * values are those of AMD's include/amd_smi/amdsmi.h (checked against that
 * header at ROCm/amdsmi commit 0ceca28 of October 2024, library version
 * 24.7.0, the ROCm 6.3 line, against its history back to ROCm 6.0, and
 * against the 6.4-onward layouts where they differ). Handles are opaque pointers; every call
 * used returns amdsmi_status_t, a C enum (int). One small struct is declared
 * (a retired page's record, stable since ROCm 6.0, shared with rocm-smi's:
 * amd_pages.h); the calls that fill a
 * struct that has changed (amdsmi_get_power_info, amdsmi_get_pcie_info,
 * amdsmi_get_clock_info, amdsmi_get_gpu_total_ecc_count) write into an
 * oversized zeroed buffer, and only fields at fixed offsets are read: ones
 * no release has moved (mcf_amdsmi_link, mcf_amdsmi_clock, health_amdsmi.c),
 * or, for the power, those of the layout the library's version names
 * (mcf_amdsmi_power). */
#ifndef MCF_VENDOR_AMDSMI_H
#define MCF_VENDOR_AMDSMI_H

#include <stdint.h>

#include "amd_pages.h"
#include "error.h"

typedef int amdsmi_status_t;
typedef void *amdsmi_socket_handle;
typedef void *amdsmi_processor_handle;
#define AMDSMI_STATUS_SUCCESS 0
#define AMDSMI_INIT_AMD_GPUS (1ull << 1)
#define AMDSMI_TEMPERATURE_TYPE_EDGE 0
#define AMDSMI_TEMPERATURE_TYPE_HOTSPOT 1 /* = _JUNCTION */
#define AMDSMI_TEMP_CURRENT 0
#define AMDSMI_CLK_TYPE_GFX 0 /* = _SYS */
#define AMDSMI_CLK_TYPE_MEM 4
#define AMDSMI_STATUS_INSUFFICIENT_SIZE 41

struct mcf_amdsmi {
    void *lib;
    char path[256];
    amdsmi_processor_handle dev;
    /* The first word of amdsmi_get_lib_version's amdsmi_version_t: the year
     * (23: ROCm 6.0, 24: ROCm 6.1-6.3) until the year was dropped in 25.3
     * (ROCm 6.4), the major version (25 on) since; 0 where it could not be
     * read. It tells the layout of amdsmi_power_info_t (vendor_amdsmi.c). */
    uint32_t version;
    /* required */
    amdsmi_status_t (*init)(uint64_t);
    amdsmi_status_t (*shutdown)(void);
    amdsmi_status_t (*status_string)(amdsmi_status_t, const char **);
    amdsmi_status_t (*sockets)(uint32_t *, amdsmi_socket_handle *);
    amdsmi_status_t (*processors)(amdsmi_socket_handle, uint32_t *, amdsmi_processor_handle *);
    /* amdsmi_bdf_t is a union of bit fields over one uint64_t: function
     * bits 0-2, device 3-7, bus 8-15, domain 16-63 */
    amdsmi_status_t (*bdf)(amdsmi_processor_handle, uint64_t *);
    /* power (src/power/power_amdsmi.c) */
    amdsmi_status_t (*lib_version)(void *);
    amdsmi_status_t (*power_info)(amdsmi_processor_handle, void *);
    amdsmi_status_t (*energy)(amdsmi_processor_handle, uint64_t *, float *, uint64_t *);
    amdsmi_status_t (*temp)(amdsmi_processor_handle, int, int, int64_t *);
    amdsmi_status_t (*clock)(amdsmi_processor_handle, int, void *);
    amdsmi_status_t (*pcie)(amdsmi_processor_handle, void *);
    /* health (src/power/health_amdsmi.c) */
    amdsmi_status_t (*ecc_total)(amdsmi_processor_handle, void *);
    amdsmi_status_t (*reserved_pages)(amdsmi_processor_handle, uint32_t *,
                                      struct mcf_amd_page *); /* amdsmi_retired_page_record_t */
    /* amdsmi_xgmi_status_t, rocm-smi's values: 0 no errors, 1 an error, 2 several */
    amdsmi_status_t (*xgmi_error)(amdsmi_processor_handle, int *);
};

/* Loads, initializes (AMDSMI_INIT_AMD_GPUS) and finds the device at bus.
 * MCF_EUNSUPPORTED (no library or entry point, not a PCI GPU) or
 * MCF_ERUNTIME (init failed, no device there). */
int mcf_amdsmi_open(struct mcf_amdsmi *a, const char *bus, struct mcf_err *e);
void mcf_amdsmi_close(struct mcf_amdsmi *a);
/* amdsmi_status_code_to_string's text for rc. */
const char *mcf_amdsmi_error(const struct mcf_amdsmi *a, amdsmi_status_t rc);
int mcf_amdsmi_need(const struct mcf_amdsmi *a, int present, const char *name, struct mcf_err *e);
/* "0000:c1:00.0" as amdsmi_bdf_t's uint64_t; -1 where bus is not one. */
int mcf_amdsmi_parse_bdf(const char *bus, uint64_t *bdf);
/* Socket power (W) from amdsmi_get_power_info: 0, or -1 where the device
 * reports none or the library's version is unknown (see vendor_amdsmi.c for
 * the layouts it reads). */
int mcf_amdsmi_power(const struct mcf_amdsmi *a, double *w);
/* A clock (AMDSMI_CLK_TYPE_*) in MHz from amdsmi_get_clock_info; NaN if none. */
double mcf_amdsmi_clock(const struct mcf_amdsmi *a, int type);
/* The current PCIe link from amdsmi_get_pcie_info, and its maximum (max_*
 * may be NULL). 0, or -1 with every figure -1. */
int mcf_amdsmi_link(const struct mcf_amdsmi *a, int *gen, int *width, int *gen_max, int *width_max);

#endif
