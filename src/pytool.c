/* The subcommands written in Python (mcfleet compare, mcfleet baseline,
 * mcfleet report --html): mcfleet hands the
 * command line to the script, so there is one entry point and one --help.
 * The script is the installed one ($(pkgdatadir)/analysis), or the source
 * tree's for a binary run from its build directory. The interpreter is the
 * first that imports the modules the script needs (h5py and numpy; and
 * matplotlib for the page): MCFLEET_PYTHON where set (then the only one
 * tried), else the one configure was given (PYTHON_H5, /usr/bin/python3 by
 * default), /usr/bin/python3, /usr/local/bin/python3, each python3 on PATH. A
 * python3 first on PATH (pyenv, conda, a venv) without them is passed over;
 * where none has them, one message names the modules missing and the Debian
 * packages, and the exit code is 3 (docs/exit-codes.md). analysis/
 * mcfleet_python.py does the same for a script run by hand. */
#include "pytool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcfleet.h"

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* what a candidate runs: each module it cannot import, one a line */
static const char PROBE[] = "import sys\n"
                            "for m in sys.argv[1:]:\n"
                            "    try:\n"
                            "        __import__(m)\n"
                            "    except Exception:\n"
                            "        print(m)\n";

/* PY's modules of MODS it cannot import, space-separated in MISSING ("" when
 * it has them all); -1 where PY cannot be run or the probe fails */
static int probe(const char *py, const char *const *mods, char *missing, size_t size)
{
    const char *argv[8] = { py, "-c", PROBE };
    int na = 3, fd[2], status = 0;
    for (int i = 0; mods[i] && na < 7; i++) argv[na++] = mods[i];
    argv[na] = NULL;
    missing[0] = 0;
    if (pipe(fd) < 0) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDERR_FILENO);
            if (null > STDERR_FILENO) close(null);
        }
        execvp(py, (char **)argv);
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0;
    ssize_t n;
    char buf[256];
    while ((n = read(fd[0], buf, sizeof buf)) != 0) {
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (ssize_t i = 0; i < n; i++) /* lines to words; what does not fit is dropped */
            if (len + 1 < size) missing[len++] = buf[i] == '\n' ? ' ' : buf[i];
    }
    missing[len] = 0;
    while (len > 0 && missing[len - 1] == ' ') missing[--len] = 0;
    close(fd[0]);
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    return w == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* the Debian package of each module named in MISSING */
static void packages(const char *missing, char *out, size_t size)
{
    char copy[256];
    size_t len = 0;
    snprintf(copy, sizeof copy, "%s", missing);
    out[0] = 0;
    for (char *save = NULL, *m = strtok_r(copy, " ", &save); m; m = strtok_r(NULL, " ", &save)) {
        int n = snprintf(out + len, size - len, "%spython3-%s", len ? " " : "", m);
        if (n < 0 || (size_t)n >= size - len) break;
        len += (size_t)n;
    }
}

int mcf_pytool(const char *script, int argc, char **argv)
{
    char path[4096];
    const char *dirs[] = { MCF_ANALYSIS_DIR, MCF_SRC_ANALYSIS_DIR };
    const char *found = NULL;
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs && !found; i++) {
        int n = snprintf(path, sizeof path, "%s/%s", dirs[i], script);
        if (n > 0 && (size_t)n < sizeof path && is_file(path)) found = path;
    }
    if (!found) {
        fprintf(stderr, "mcfleet: %s not found in %s or %s: reinstall mcfleet\n", script,
                MCF_ANALYSIS_DIR, MCF_SRC_ANALYSIS_DIR);
        return MCF_EXIT_RUNTIME;
    }
    /* the modules the script needs: the page and the plots draw */
    const char *mods[] = { "h5py", "numpy", strcmp(script, "mcfleet_html.py") ? NULL : "matplotlib",
                           NULL };
    const char *explicit = getenv("MCFLEET_PYTHON");
    const char *what = strncmp(script, "mcfleet_", 8) ? script : script + 8; /* compare, baseline */
    char whatbuf[64];
    snprintf(whatbuf, sizeof whatbuf, "%.*s", (int)strcspn(what, "."), what);
    what = whatbuf;
    /* the candidates: MCFLEET_PYTHON alone where set; else configure's, the
     * system's, and every python3 on PATH, each once */
    enum { MAXC = 16 };
    char cands[MAXC][1024];
    int nc = 0;
    if (explicit && explicit[0])
        snprintf(cands[nc++], sizeof cands[0], "%s", explicit);
    else {
        const char *fixed[] = { MCF_PYTHON, "/usr/bin/python3", "/usr/local/bin/python3" };
        for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
            snprintf(cands[nc++], sizeof cands[0], "%s", fixed[i]);
        const char *path = getenv("PATH");
        while (path && *path && nc < MAXC) {
            size_t len = strcspn(path, ":");
            int n =
                snprintf(cands[nc], sizeof cands[0], "%.*s/python3", (int)len, len ? path : ".");
            if (n > 0 && (size_t)n < sizeof cands[0] && access(cands[nc], X_OK) == 0) nc++;
            path += len + (path[len] == ':');
        }
    }
    const char *py = NULL;
    char report[2048] = "", first_missing[256] = "";
    size_t rlen = 0;
    int runnable = 0;
    for (int i = 0; i < nc && !py; i++) {
        const char *c = cands[i];
        int seen = !c[0];
        for (int k = 0; k < i; k++) seen |= !strcmp(cands[k], c);
        if (seen) continue;
        char missing[256];
        int rc = probe(c, mods, missing, sizeof missing);
        if (rc == 0 && !missing[0]) {
            py = c;
            break;
        }
        if (rc == 0 && !runnable++) snprintf(first_missing, sizeof first_missing, "%s", missing);
        int n = snprintf(report + rlen, sizeof report - rlen, "\n  %s%s: %s%s",
                         explicit && explicit[0] ? "MCFLEET_PYTHON=" : "", c,
                         rc == 0 ? "cannot import " : "cannot be run", rc == 0 ? missing : "");
        if (n > 0 && (size_t)n < sizeof report - rlen) rlen += (size_t)n;
    }
    if (!py) {
        char pkgs[256];
        const char *need = mods[2] ? "h5py numpy matplotlib" : "h5py numpy";
        packages(runnable ? first_missing : need, pkgs, sizeof pkgs);
        fprintf(stderr,
                "mcfleet %s needs the Python modules %s; no python3 tried has them all:%s\n"
                "install them: apt-get install %s (Debian, Ubuntu), or pip install %s; or set "
                "MCFLEET_PYTHON to a"
                " python3 that has them\n",
                mods[2] ? "report --html" : what, need, report, pkgs,
                runnable ? first_missing : need);
        return MCF_EXIT_RUNTIME;
    }
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args) {
        fprintf(stderr, "mcfleet: out of memory\n");
        return MCF_EXIT_RUNTIME;
    }
    args[0] = (char *)py;
    args[1] = (char *)found;
    for (int i = 0; i < argc; i++) args[i + 2] = argv[i];
    /* the script runs this binary for what it computes in C (the verdict) */
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        setenv("MCFLEET_BIN", self, 1);
    }
    fflush(NULL);
    execvp(py, args);
    fprintf(stderr,
            "mcfleet: cannot run %s %s: %s (set MCFLEET_PYTHON to a python3 with h5py and numpy)\n",
            py, found, strerror(errno));
    free(args);
    return MCF_EXIT_RUNTIME;
}
