/* Finding the SKU profile of a device in a directory of profiles
 * (profile.h): the most specific match, every file tried, a broken one
 * skipped and named. */
#include "profile.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#ifndef MCF_PROFILE_DIR
#define MCF_PROFILE_DIR ""
#endif
#ifndef MCF_SRC_PROFILE_DIR
#define MCF_SRC_PROFILE_DIR ""
#endif

/* Case-insensitive substring search. */
static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (!strncasecmp(hay, needle, n)) return 1;
    return n == 0;
}

int mcf_profile_matches(const struct mcf_profile *p, const char *device_name, const char *arch,
                        long compute_units)
{
    int ok = 0, best = 0;
    if (!device_name || !arch) return 0;
    size_t alen = strcspn(arch, ":"); /* "gfx90a:sramecc+:xnack-" is gfx90a */
    for (size_t i = 0; i < p->narch && !ok; i++)
        ok = strlen(p->arch[i]) == alen && !strncasecmp(p->arch[i], arch, alen);
    if (!ok) return 0;
    for (size_t i = 0; i < p->nexclude; i++)
        if (contains_ci(device_name, p->exclude[i])) return 0;
    if (p->ncompute_units) {
        ok = 0;
        for (size_t i = 0; i < p->ncompute_units && !ok; i++)
            ok = compute_units > 0 && p->compute_units[i] == compute_units;
        if (!ok) return 0;
    }
    for (size_t i = 0; i < p->ndevice_name; i++)
        if (contains_ci(device_name, p->device_name[i]) &&
            (int)strlen(p->device_name[i]) + 1 > best)
            best = (int)strlen(p->device_name[i]) + 1;
    return best;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int mcf_profile_find(const char *dir, const char *device_name, const char *arch, long compute_units,
                     struct mcf_profile *p, struct mcf_profile_skipped *skipped, struct mcf_err *e)
{
    DIR *d = NULL;
    struct dirent *de;
    char **names = NULL, path[2048];
    size_t n = 0, cap = 0;
    int best = 0, found = 0;
    struct mcf_profile cand;

    memset(p, 0, sizeof *p);
    memset(&cand, 0, sizeof cand);
    if (!(d = opendir(dir))) MCF_FAIL(e, MCF_EINPUT, "SKU profiles %s: %s", dir, strerror(errno));
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (de->d_name[0] == '.' || len < 6 || strcmp(de->d_name + len - 5, ".yaml") != 0) continue;
        if (n == cap) {
            char **grown = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names);
            if (!grown) MCF_FAIL(e, MCF_ERUNTIME, "out of memory listing %s", dir);
            names = grown;
        }
        if (!(names[n] = strdup(de->d_name)))
            MCF_FAIL(e, MCF_ERUNTIME, "out of memory listing %s", dir);
        n++;
    }
    closedir(d);
    d = NULL;
    if (n) qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n; i++) {
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= sizeof path)
            MCF_FAIL(e, MCF_EINPUT, "SKU profile %s/%s: the path is too long", dir, names[i]);
        struct mcf_err bad = { 0 };
        if (mcf_profile_load(path, &cand, &bad) != MCF_OK) {
            if (bad.rc != MCF_EINPUT) { /* out of memory: not the file's fault */
                *e = bad;
                goto fail;
            }
            if (skipped && skipped->n < MCF_PROFILE_MAX_SKIPPED)
                snprintf(skipped->msg[skipped->n++], sizeof skipped->msg[0], "%.590s", bad.msg);
            else if (skipped)
                skipped->more++;
            continue;
        }
        int score = mcf_profile_matches(&cand, device_name, arch, compute_units);
        if (score > 0 && score == best) {
            mcf_err_set(
                e, MCF_EINPUT, __FILE__, __LINE__,
                "SKU profiles %s and %s both match device '%s' (%s, %ld compute units) equally "
                "well: make one's 'match' more specific",
                p->path, cand.path, device_name, arch, compute_units);
            goto fail;
        }
        if (score > best) {
            mcf_profile_free(p);
            *p = cand;
            memset(&cand, 0, sizeof cand);
            best = score;
            found = 1;
        } else {
            mcf_profile_free(&cand);
        }
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return found;
fail:
    if (d) closedir(d);
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    mcf_profile_free(&cand);
    mcf_profile_free(p);
    memset(p, 0, sizeof *p);
    return -1;
}

static int is_dir(const char *path)
{
    struct stat st;
    return path[0] && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *mcf_profile_dir(void)
{
    if (is_dir(MCF_PROFILE_DIR)) return MCF_PROFILE_DIR;
    if (is_dir(MCF_SRC_PROFILE_DIR)) return MCF_SRC_PROFILE_DIR;
    return NULL;
}
