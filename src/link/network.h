/* The network test (transfer, link: network), the same on every backend:
 * host memory to host memory through MPI (link/comm.h's exchange), a rank
 * and its partner of each round (mcf_network_partner). A backend's transfer
 * table hands link: network tests to these ops. */
#ifndef MCF_NETWORK_H
#define MCF_NETWORK_H

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct mcf_kernel_ops mcf_network_ops;

#ifdef __cplusplus
}
#endif

#endif
