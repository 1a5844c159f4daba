/* The one rule for every output path mcfleet writes (a run's -o, report
 * --html, baseline -o, the plots; docs/reliability.md, "Output files"):
 * a regular file is created where nothing is, or, with --force, an existing
 * regular file is replaced. Never a symlink (nor its target), a FIFO, a
 * device, a socket or a directory, not even with --force: `-o /dev/null
 * --force` run as root must not replace /dev/null. Without --force an
 * existing output is refused. A refusal names the option and the path and is
 * MCF_EINPUT (exit 2). analysis/mcfleet_outpath.py is the same rule, in the
 * same words, for the outputs written by Python. */
#ifndef MCF_OUTPATH_H
#define MCF_OUTPATH_H

#include <sys/stat.h>
#include <sys/types.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* OPTION names where PATH came from ("-o", "--html"). MCF_OK where PATH may
 * be written: nothing there, or a regular file and force. A path that cannot
 * be looked at (a folder missing or unreadable) passes: creating it then says
 * why it fails. */
int mcf_output_check(const char *option, const char *path, int force, struct mcf_err *e);

/* open(path, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY), then fstat: the
 * descriptor of a regular file. -1 with errno from open or fstat, or with
 * errno EINVAL where the path is something else (a FIFO opened this way
 * never waits for a writer; *st says what it was). st may be NULL. */
int mcf_open_regular(const char *path, int flags, struct stat *st);

/* What lstat found at a path that the rule refuses ("a FIFO", "a symlink",
 * ...); NULL for a regular file. */
const char *mcf_output_kind(mode_t mode);

#ifdef __cplusplus
}
#endif

#endif
