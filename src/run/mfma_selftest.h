/* The MFMA register-layout self-test (issue 14): one instruction issued once
 * by one wavefront on inputs that differ per block and element, its raw
 * result registers read back, and each (lane, register) decoded with
 * mfma_layout_result and compared with D_b = A_b * B_b computed exactly on
 * the host. The first mismatch becomes one line that names the element, the
 * lane and register, and where the expected value is instead. Plain C: the
 * backends only run the instruction (backend.h's mfma_exec); the host
 * backend's emulator plays the matrix unit, so the comparison is tested on
 * any machine. */
#ifndef MCF_MFMA_SELFTEST_H
#define MCF_MFMA_SELFTEST_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "error.h"
#include "layout_inject.h"
#include "mfma_insn.h"

/* mfma_layout_result's signature: the decode under test (a wrong one, in the
 * unit tests) */
typedef void (*mcf_mfma_result_fn)(struct mfma_layout L, int lane, int r, int *i, int *j, int *b);

/* One instruction's inputs, encoded as the matrix unit reads them (block b's
 * A at a_tiles + b*m*k elements, row-major; B likewise, k x n; a sparse
 * instruction's A compressed, m x k/2, and meta its kept pairs, m x k/4
 * bytes, sparsity.h), the exact product per block (blk x m x n, row-major),
 * and room for the 64 x items result registers the backend returns. */
struct mcf_mfma_case {
    const struct mcf_mfma_insn *in;
    uint8_t *a_tiles, *b_tiles;
    uint8_t *meta; /* sparse only; NULL when dense */
    double *ref;
    void *dregs;
};
int mcf_mfma_case_make(struct mcf_mfma_case *c, const struct mcf_mfma_insn *in, struct mcf_err *e);
void mcf_mfma_case_free(struct mcf_mfma_case *c);

/* c->dregs against c->ref through decode: MCF_OK ("ok" in line) when every
 * register holds its element and the registers cover every element of D
 * once; else MCF_EVERIFY and the first problem in line. */
int mcf_mfma_compare(const struct mcf_mfma_case *c, mcf_mfma_result_fn decode, char *line,
                     size_t len);

/* Runs one instruction on an open device: gen 2 or 3 emulates that CDNA
 * generation (the host: an instruction absent there is skipped), 0 lets the
 * device refuse what it lacks. MCF_OK or MCF_EVERIFY with line as above;
 * MCF_EUNSUPPORTED with "absent on ..." in line; another code with *e set.
 * *injected is set where inj corrupted a register. */
int mcf_mfma_selftest(const struct mcf_backend *be, void *state, const struct mcf_mfma_insn *in,
                      int gen, mcf_mfma_result_fn decode, const struct mcf_layout_inject *inj,
                      int *injected, char *line, size_t len, struct mcf_err *e);

/* Register item r of an instruction as AMD's tables name it: a[r], or the
 * pair a[2r:2r+1] of a 64-bit item. */
void mcf_mfma_reg_name(const struct mcf_mfma_insn *in, int r, char *buf, size_t len);

#endif
