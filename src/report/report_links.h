/* The links in the report (issue 29): each peer test's per-node matrix of
 * GPU-to-GPU figures, each network test's worst pair per node, in the text,
 * JSON and CSV forms; and a transfer test's causes named by their link ("host
 * link (PCIe) of GPU ..."). Read from the detail metrics the transfer family
 * writes (family_transfer.c: peer<j>_gbs, round<r>_gbs, round<r>_partner);
 * docs/report.md, "Links", describes the output. Internal to the report. */
#ifndef MCF_REPORT_LINKS_H
#define MCF_REPORT_LINKS_H

#include <hdf5.h>
#include <stdio.h>

struct fleet;

/* One /results group g just read: where its keys (report_schema.h) say it
 * is a transfer test, its link and, for peer and network tests, each rank's
 * median of every link slot are kept in f->links. */
struct mcf_test_identity;
void mcf_links_read(struct fleet *f, hid_t g, const char *gname, const char *test,
                    const struct mcf_test_identity *id);
void mcf_links_free(struct fleet *f);

/* The causes of a transfer test's figures (peer, node, profile rules) name
 * the link and carry it (mcf_cause.link) for mcf_cause_next. */
void mcf_links_attribute(struct fleet *f);

/* The matrices and worst pairs: a section of the text report (nothing where
 * the file has no peer or network test), the JSON's "links" member (written
 * as ",\n \"links\": [...]"), and --format links-csv, one row per cell. */
void mcf_links_print_text(struct fleet *f, FILE *out);
void mcf_links_print_json(struct fleet *f, FILE *out);
void mcf_links_print_csv(struct fleet *f, FILE *out);

#endif
