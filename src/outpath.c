#include "outpath.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

const char *mcf_output_kind(mode_t mode)
{
    if (S_ISREG(mode)) return NULL;
    if (S_ISLNK(mode)) return "a symlink";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISDIR(mode)) return "a directory";
    return "not a regular file";
}

int mcf_output_check(const char *option, const char *path, int force, struct mcf_err *e)
{
    struct stat st;
    if (!path || !path[0])
        return mcf_err_set(e, MCF_EINPUT, __FILE__, __LINE__, "%s: an empty path", option);
    /* lstat: a symlink is judged itself, never through its target */
    if (lstat(path, &st) != 0)
        return MCF_OK; /* ENOENT: a new file; any other error is the create's to report */
    const char *kind = mcf_output_kind(st.st_mode);
    if (kind)
        return mcf_err_set(
            e, MCF_EINPUT, __FILE__, __LINE__,
            "%s '%s' is %s: mcfleet writes its output only to a new path or, with --force, over a "
            "regular file; never to a device, FIFO, socket, directory or through a symlink",
            option, path, kind);
    if (!force)
        return mcf_err_set(
            e, MCF_EINPUT, __FILE__, __LINE__,
            "%s '%s' exists: mcfleet does not overwrite results (choose another path, or pass "
            "--force to replace it)",
            option, path);
    return MCF_OK;
}

int mcf_open_regular(const char *path, int flags, struct stat *st)
{
    struct stat own;
    st = st ? st : &own;
    int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return -1;
    int bad = fstat(fd, st) != 0;
    if (bad || !S_ISREG(st->st_mode)) {
        int err = bad ? errno : EINVAL;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}
