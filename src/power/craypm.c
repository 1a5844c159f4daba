#include "craypm.h"
#include "outpath.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The text of ROOT/NAME, at most LEN - 1 bytes. Opened without blocking: a
 * FIFO (or a device) where a counter should be must not hold the run before
 * its first test, deaf to the stop signals (their handlers restart an open
 * that waits); only a regular file is read (sysfs's are). 0: read; 1:
 * absent; -1: not a regular file, or unreadable. */
static int read_text(const char *root, const char *name, char *buf, size_t len)
{
    char path[1024];
    ssize_t n = 0;
    size_t got = 0;
    buf[0] = '\0';
    snprintf(path, sizeof path, "%s/%s", root, name);
    int fd = mcf_open_regular(path, O_RDONLY, NULL);
    if (fd < 0) return errno == ENOENT ? 1 : -1;
    while (got + 1 < len) {
        n = read(fd, buf + got, len - 1 - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    return n < 0 ? -1 : 0;
}

/* "<value> <unit> <timestamp> us"; a missing file leaves v->present = 0.
 * -1: not in that form; -2: not a regular file (read_text). */
static int read_value(const char *root, const char *name, struct mcf_craypm_value *v)
{
    char text[128], unit[16] = "", us[8] = "";
    memset(v, 0, sizeof *v);
    int rc = read_text(root, name, text, sizeof text);
    if (rc != 0) return rc == 1 ? 0 : -2;
    int n = sscanf(text, "%lf %15s %lf %7s", &v->value, unit, &v->t_us, us);
    if (n != 4 || strcmp(us, "us") != 0) return -1;
    v->present = 1;
    return 0;
}

/* A file holding one integer (freshness, generation, startup); -1 if absent
 * (or not a regular file). */
static long long read_int(const char *root, const char *name)
{
    char text[64];
    long long v = -1;
    if (read_text(root, name, text, sizeof text) == 0 && sscanf(text, "%lld", &v) != 1) v = -1;
    return v;
}

static int read_values(const char *root, struct mcf_craypm_snapshot *s, char *bad, size_t len)
{
    static const struct {
        const char *name;
        size_t off;
    } files[] = {
        { "power", offsetof(struct mcf_craypm_snapshot, power) },
        { "energy", offsetof(struct mcf_craypm_snapshot, energy) },
        { "cpu_power", offsetof(struct mcf_craypm_snapshot, cpu_power) },
        { "cpu_energy", offsetof(struct mcf_craypm_snapshot, cpu_energy) },
        { "memory_power", offsetof(struct mcf_craypm_snapshot, memory_power) },
        { "memory_energy", offsetof(struct mcf_craypm_snapshot, memory_energy) },
    };
    int rc;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if ((rc = read_value(root, files[i].name,
                             (struct mcf_craypm_value *)((char *)s + files[i].off))) != 0) {
            snprintf(bad, len, "%s", files[i].name);
            return rc;
        }
    s->naccel = 0;
    for (int a = 0; a < MCF_CRAYPM_MAX_ACCEL; a++) {
        char name[32];
        snprintf(name, sizeof name, "accel%d_power", a);
        if ((rc = read_value(root, name, &s->accel_power[a])) != 0) {
            snprintf(bad, len, "%s", name);
            return rc;
        }
        snprintf(name, sizeof name, "accel%d_energy", a);
        if ((rc = read_value(root, name, &s->accel_energy[a])) != 0) {
            snprintf(bad, len, "%s", name);
            return rc;
        }
        if (s->accel_power[a].present) s->naccel = a + 1;
    }
    return 0;
}

int mcf_craypm_read(const char *root, struct mcf_craypm_snapshot *s, void (*between)(void *),
                    void *ctx, struct mcf_err *e)
{
    struct stat st;
    char bad[64] = "";
    memset(s, 0, sizeof *s);
    if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode))
        return mcf_err_set(e, MCF_EUNSUPPORTED, __FILE__, __LINE__, "no Cray pm_counters at %s",
                           root);
    for (int attempt = 0; attempt <= MCF_CRAYPM_RETRIES; attempt++) {
        long long before = read_int(root, "freshness");
        if (between && attempt == 0) between(ctx);
        s->generation = read_int(root, "generation");
        s->startup = read_int(root, "startup");
        s->raw_scan_hz = (double)read_int(root, "raw_scan_hz");
        int rc = read_values(root, s, bad, sizeof bad);
        if (rc != 0)
            return mcf_err_set(
                e, MCF_ERUNTIME, __FILE__, __LINE__, "%s/%s: %s", root, bad,
                rc == -2
                    ? "not a readable regular file (a FIFO or a device is never opened to wait)"
                    : "not '<value> <unit> <timestamp> us'");
        long long after = read_int(root, "freshness");
        if (before == after) {
            s->freshness = after;
            s->retries = attempt;
            return MCF_OK;
        }
    }
    return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__,
                       "%s: freshness changed during each of %d reads", root,
                       MCF_CRAYPM_RETRIES + 1);
}

int mcf_craypm_comparable(const struct mcf_craypm_snapshot *a, const struct mcf_craypm_snapshot *b)
{
    return a->generation == b->generation && a->startup == b->startup;
}

int mcf_craypm_accel_index(const char *mine, const char *const *node_buses, int n)
{
    int found = 0, before = 0;
    for (int i = 0; i < n; i++) {
        int c = strcmp(node_buses[i], mine);
        if (c == 0)
            found = 1;
        else if (c < 0)
            before++;
    }
    return found ? before : -1;
}
