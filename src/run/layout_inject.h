/* MCFLEET_INJECT_LAYOUT=GLOB:LANE:REG, for testing the MFMA layout self-test
 * (mfma_selftest.h): for the instructions whose struct name or AMD mnemonic
 * matches GLOB (fnmatch(3)), result register REG (item REG: a[REG], or the
 * pair a[2REG:2REG+1] of fp64) of lane LANE is corrupted (1 is added) after
 * the instruction ran and before the comparison, so the self-test must name
 * that instruction, lane and register. Parsed strictly. */
#ifndef MCF_LAYOUT_INJECT_H
#define MCF_LAYOUT_INJECT_H

#include "error.h"
#include "mfma_insn.h"

#define MCF_INJECT_LAYOUT_ENV "MCFLEET_INJECT_LAYOUT"

struct mcf_layout_inject {
    int active; /* the variable is set and not empty */
    char glob[128];
    int lane, reg; /* lane 0..63; item 0..31 */
};

/* spec NULL or "": inactive. MCF_EINPUT with a message naming the variable
 * where GLOB is empty or too long, LANE is not 0..63 or REG not 0..31. */
int mcf_layout_inject_parse(const char *spec, struct mcf_layout_inject *out, struct mcf_err *e);

/* Corrupts dregs when the injection names this instruction (under either of
 * its mnemonics) and it has the register; returns 1 when it did. */
int mcf_layout_inject_apply(const struct mcf_layout_inject *inj, const struct mcf_mfma_insn *in,
                            void *dregs);

#endif
