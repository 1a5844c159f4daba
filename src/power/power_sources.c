/* The registry of power sources: every table, in the order they are tried,
 * each naming the kind a deck selects it by (power.h). */
#include "power.h"

const struct mcf_power_source *const mcf_power_sources[] = {
    &mcf_power_nvml,   &mcf_power_rsmi,        &mcf_power_amdsmi,
    &mcf_power_craypm, &mcf_power_craypm_node, NULL
};
