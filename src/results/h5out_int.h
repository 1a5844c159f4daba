/* Inside the results writer: what h5out.c (the calls), h5replay.c (gather
 * mode's replay and the write-through) and journal.c (the per-test journal
 * and its rebuild) share. Not for other layers. */
#ifndef MCF_H5OUT_INT_H
#define MCF_H5OUT_INT_H

#include "h5out.h"

/* Every rank's rows of a batch of calls, one after another in rank order:
 * rank r's items lie in all[pos[r] .. end[r]); replay moves pos on. */
struct mcf_h5_rows {
    const char *all;
    size_t *pos, *end;
    int size;
};

/* Rank 0 alone (h->mode set to collective, so that the calls act at once):
 * the calls ops[0..nops) with every rank's rows from g, into h->file. */
int mcf_h5_replay(struct mcf_h5 *h, const struct mcf_h5_op *ops, size_t nops, struct mcf_h5_rows *g,
                  struct mcf_err *e);
/* An HDF5 file in memory (the core driver), named path; < 0 on failure. */
hid_t mcf_h5_in_memory(const char *path);
/* The in-memory file written through to h->fd with every error checked; a
 * disk that refuses it gets the image saved under TMPDIR (h->rescued). */
int mcf_h5_write_image(struct mcf_h5 *h, struct mcf_err *e);
/* h->partial renamed to h->path, never over a file that appeared meanwhile unless h->force. */
int mcf_h5_publish(struct mcf_h5 *h, struct mcf_err *e);
/* Gather mode's close (h5replay.c): every rank's rows to rank 0, which
 * replays the calls, writes the image through and publishes. Collective. */
int mcf_h5_close_gathered(struct mcf_h5 *h, int publish, struct mcf_err *e);
/* Every rank learns an outcome only rank 0 may know (none to learn in a rebuild). */
int mcf_h5_agree(struct mcf_h5 *h, struct mcf_err *e);
/* The calls and rows queued so far are dropped (freed). */
void mcf_h5_queue_clear(struct mcf_h5 *h);

#endif
