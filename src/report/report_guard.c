#include "report.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcfleet.h"
#include "text_safe.h"

/* The HDF5 library's own decoders can crash on corrupt metadata (the fuzzing
 * in docs/reliability.md found HDF5 1.10.8 reading past a buffer while it
 * decodes an attribute message or a B-tree header, before any of mcfleet's
 * checks can see the object). So "mcfleet report" reads the file in a child
 * process: a crash there is reported as an unreadable file, never as one of
 * ours. */
static int run(const char *path, const struct mcf_report_opts *opts, FILE *out, FILE *err)
{
    struct mcf_err e = { 0 };
    int code = mcf_report(path, opts, out, &e);
    fflush(out);
    if (e.rc != MCF_OK) {
        mcf_text_clean(e.msg, ""); /* the file's name and its text shown on one line */
        fprintf(err, "mcfleet: %s\n", e.msg);
    }
    fflush(err);
    return code;
}

int mcf_report_guarded(const char *path, const struct mcf_report_opts *opts, FILE *out, FILE *err)
{
    int status = 0;
    fflush(out);
    fflush(err);
    pid_t pid = fork();
    if (pid < 0) return run(path, opts, out, err); /* no process to spare: read it here */
    if (pid == 0) {
        /* a reader that goes away (| head -1) only stops the text: the
         * verdict is still judged and is the exit code */
        signal(SIGPIPE, SIG_IGN);
        exit(run(path, opts, out,
                 err)); /* exit, not _exit: the sanitizers' leak check runs at exit */
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            fprintf(err, "mcfleet: report: waiting for the reader of '%s': %s\n", path,
                    strerror(errno));
            return MCF_EXIT_RUNTIME;
        }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (sig == SIGPIPE) /* (not expected: ignored in the child) the reader went away; not the file's
                           fault */
        return MCF_EXIT_RUNTIME;
    fprintf(
        err,
        "mcfleet: report: reading '%s' crashed (signal %d, %s): the file is corrupt in a way "
        "the HDF5 library does not survive (or this is a bug: please report it with the file)\n",
        path, sig, sig ? strsignal(sig) : "?");
    return MCF_EXIT_USAGE;
}
