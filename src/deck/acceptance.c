#include "acceptance.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MCF_DECKS_DIR
#define MCF_DECKS_DIR "/usr/local/share/mcfleet/input"
#endif
#ifndef MCF_SOURCE_DECKS_DIR
#define MCF_SOURCE_DECKS_DIR ""
#endif
#ifndef MCF_BUILD_DIR
#define MCF_BUILD_DIR ""
#endif

extern char **environ;

const char *mcf_dev_root(void)
{
    const char *r = getenv("MCFLEET_DEV_ROOT");
    return r && *r ? r : "/dev";
}

static void append(char *buf, size_t len, const char *what)
{
    size_t n = strlen(buf);
    if (n + 1 < len) snprintf(buf + n, len - n, "%s%s", n ? ", " : "", what);
}

/* A device list that selects nothing: unset, empty, Slurm's NoDevFiles, -1, 0 (a count). */
static int names_devices(const char *name, const char *v)
{
    if (!v || !*v || !strcmp(v, "NoDevFiles") || !strcmp(v, "-1")) return 0;
    if (!strncmp(name, "SLURM_GPUS", 10) && !strcmp(v, "0")) return 0;
    return 1;
}

int mcf_gpus_allocated(char *seen, size_t len)
{
    static const char *const vars[] = { "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                                        "HIP_VISIBLE_DEVICES", "SLURM_JOB_GPUS",
                                        "SLURM_STEP_GPUS" };
    char item[160];
    const char *root = mcf_dev_root();
    DIR *d;
    seen[0] = '\0';
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (names_devices(vars[i], v)) {
            snprintf(item, sizeof item, "%s=%.64s", vars[i], v);
            append(seen, len, item);
        }
    }
    for (char **ep = environ; ep && *ep;
         ep++) { /* SLURM_GPUS, SLURM_GPUS_ON_NODE, SLURM_GPUS_PER_TASK, ... */
        const char *eq = strchr(*ep, '=');
        char name[64];
        if (strncmp(*ep, "SLURM_GPUS", 10) != 0 || !eq || (size_t)(eq - *ep) >= sizeof name)
            continue;
        memcpy(name, *ep, (size_t)(eq - *ep));
        name[eq - *ep] = '\0';
        if (names_devices(name, eq + 1)) {
            snprintf(item, sizeof item, "%s=%.64s", name, eq + 1);
            append(seen, len, item);
        }
    }
    if ((d = opendir(root)) != NULL) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            const char *n = de->d_name;
            int gpu = !strcmp(n, "kfd");
            if (!strncmp(n, "nvidia", 6) && n[6]) {
                gpu = 1;
                for (const char *p = n + 6; *p; p++) gpu &= *p >= '0' && *p <= '9';
            }
            if (gpu) {
                snprintf(item, sizeof item, "%.100s/%.40s", root, n);
                append(seen, len, item);
            }
        }
        closedir(d);
    }
    return seen[0] != '\0';
}

int mcf_arch_listed(const char *arch, const char *list)
{
    size_t n = strcspn(arch, ":");
    const char *p = list;
    while (n && *p) {
        size_t m = strcspn(p, ",");
        if (m == n && !strncmp(p, arch, n)) return 1;
        p += m;
        if (*p == ',') p++;
    }
    return 0;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The decks directory: the source tree's for a binary in its build directory
 * (not installed), else the installed one; the other where the first is missing. */
static const char *decks_dir(void)
{
    char exe[PATH_MAX], build[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    int in_build = 0;
    if (n > 0 && MCF_BUILD_DIR[0] && realpath(MCF_BUILD_DIR, build)) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            in_build = !strcmp(exe, build);
        }
    }
    int source_first = in_build && MCF_SOURCE_DECKS_DIR[0];
    const char *first = source_first ? MCF_SOURCE_DECKS_DIR : MCF_DECKS_DIR;
    const char *second = source_first ? MCF_DECKS_DIR : MCF_SOURCE_DECKS_DIR;
    char sub[PATH_MAX];
    snprintf(sub, sizeof sub, "%s/acceptance", first);
    if (is_dir(sub) || !second[0]) return first;
    snprintf(sub, sizeof sub, "%s/acceptance", second);
    return is_dir(sub) ? second : first;
}

/* The family an architecture's deck also serves. */
static void family(const char *arch, char *out, size_t len)
{
    if (!strncmp(arch, "sm_8", 4) && strlen(arch) == 5)
        snprintf(out, len, "sm_80");
    else if (!strcmp(arch, "gfx940") || !strcmp(arch, "gfx941") || !strcmp(arch, "gfx942"))
        snprintf(out, len, "gfx942");
    else
        snprintf(out, len, "%s", arch);
}

int mcf_acceptance_deck(const char *arch, int gpu, char *path, size_t len, struct mcf_err *e)
{
    const char *dir = decks_dir();
    char name[40], fam[40], list[512] = "";
    snprintf(name, sizeof name, "%.*s", (int)strcspn(arch, ":"), gpu ? arch : "host");
    family(name, fam, sizeof fam);
    for (int i = 0; i < 2; i++) {
        const char *try = i ? fam : name;
        int n = snprintf(path, len, "%s/acceptance/%s.yaml", dir, try);
        if (n > 0 && (size_t)n < len && is_file(path)) return MCF_OK;
    }
    {
        char sub[PATH_MAX];
        DIR *d;
        snprintf(sub, sizeof sub, "%s/acceptance", dir);
        if ((d = opendir(sub)) != NULL) {
            struct dirent *de;
            while ((de = readdir(d)) != NULL) {
                size_t n = strlen(de->d_name);
                if (n > 5 && !strcmp(de->d_name + n - 5, ".yaml"))
                    append(list, sizeof list, de->d_name);
            }
            closedir(d);
        }
    }
    path[0] = '\0';
    return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__,
                       "--acceptance: no acceptance deck for %s%s%s in %s/acceptance (there: %s); "
                       "give one with --deck FILE (a deck with 'acceptance: true' and 'arch: "
                       "[%s]', docs/decks.md)",
                       name, strcmp(name, fam) ? " or " : "", strcmp(name, fam) ? fam : "", dir,
                       list[0] ? list : "none", name);
}
