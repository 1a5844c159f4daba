/* AMD's retired-page record: rocm-smi's rsmi_retired_page_record_t and
 * amd-smi's amdsmi_retired_page_record_t are one layout (24 bytes, unchanged
 * since ROCm 6.0) with one status enum, so both libraries fill this one
 * struct and one function counts them (mcf_health_amd_pages, health.c). */
#ifndef MCF_AMD_PAGES_H
#define MCF_AMD_PAGES_H

#include <stdint.h>

struct mcf_amd_page {
    uint64_t page_address, page_size;
    int status;
};
enum { MCF_AMD_PAGE_RESERVED = 0, MCF_AMD_PAGE_PENDING, MCF_AMD_PAGE_UNRESERVABLE };

#endif
