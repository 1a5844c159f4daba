/* mcfleet selftest: the MFMA register-layout self-test (src/run/mfma_selftest.h)
 * as a subcommand, without MPI: per device, one line per instruction, ok or
 * the first mismatch, and a summary. */
#ifndef MCF_SELFTEST_H
#define MCF_SELFTEST_H

#include <stdio.h>

/* argv: the words after "selftest". Returns an enum mcf_exit value: 0 every
 * instruction the device has is ok, 1 a mismatch, 2 usage, 3 runtime. */
int mcf_selftest_main(int argc, char **argv, FILE *out, FILE *err);
void mcf_selftest_usage(FILE *out);

#endif
