/* The memory family's Hopper levels, tma and dsm (family.c's memory row
 * calls these): their cross-key rules, label and metrics. */
#ifndef MCF_FAMILY_HOPPER_H
#define MCF_FAMILY_HOPPER_H

#include <stddef.h>

#include "kernel.h"

/* 1: a level only Hopper's TMA / clusters reach */
int mcf_level_hopper(enum mcf_level level);
/* memory_check's rules for the keys of the tma and dsm levels (every level:
 * those keys given elsewhere are refused); NULL, or what is wrong, to follow
 * the test's name. May normalize k (op read, a dsm buffer's auto size). */
const char *mcf_memory_hopper_check(struct mcf_kernel *k, unsigned given, char *why, size_t len);
void mcf_memory_hopper_label(const struct mcf_kernel *k, char *out, size_t len);
/* The latency figures (mode latency); 0 where k is a throughput test. */
int mcf_memory_hopper_metrics(const struct mcf_kernel *k, unsigned caps, struct mcf_metric *out,
                              int max);

#endif
