/* The subcommands written in Python (mcfleet compare, mcfleet baseline,
 * mcfleet report --html): mcfleet hands the
 * command line to the script, so there is one entry point and one --help.
 * The script is the installed one ($(pkgdatadir)/analysis), or the source
 * tree's for a binary run from its build directory; the interpreter is
 * MCFLEET_PYTHON, else the one configure found with h5py (PYTHON_H5). */
#include "pytool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcfleet.h"

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int mcf_pytool(const char *script, int argc, char **argv)
{
    char path[4096];
    const char *dirs[] = { MCF_ANALYSIS_DIR, MCF_SRC_ANALYSIS_DIR };
    const char *found = NULL;
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs && !found; i++) {
        int n = snprintf(path, sizeof path, "%s/%s", dirs[i], script);
        if (n > 0 && (size_t)n < sizeof path && is_file(path))
            found = path;
    }
    if (!found) {
        fprintf(stderr, "mcfleet: %s not found in %s or %s: reinstall mcfleet\n", script, MCF_ANALYSIS_DIR,
                MCF_SRC_ANALYSIS_DIR);
        return MCF_EXIT_RUNTIME;
    }
    const char *py = getenv("MCFLEET_PYTHON");
    if (!py || !py[0])
        py = MCF_PYTHON;
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args) {
        fprintf(stderr, "mcfleet: out of memory\n");
        return MCF_EXIT_RUNTIME;
    }
    args[0] = (char *)py;
    args[1] = (char *)found;
    for (int i = 0; i < argc; i++)
        args[i + 2] = argv[i];
    /* the script runs this binary for what it computes in C (the verdict) */
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        setenv("MCFLEET_BIN", self, 1);
    }
    fflush(NULL);
    execv(py, args);
    fprintf(stderr, "mcfleet: cannot run %s %s: %s (set MCFLEET_PYTHON to a python3 with h5py and numpy)\n", py,
            found, strerror(errno));
    free(args);
    return MCF_EXIT_RUNTIME;
}
