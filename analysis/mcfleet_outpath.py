"""The one rule for every output path mcfleet writes, in Python (the page of
`mcfleet report --html`, `mcfleet baseline -o`, analysis/mcfleet_plot.py's
plots); src/outpath.c is the same rule, in the same words, for a run's -o
(docs/reliability.md, "Output files").

A regular file is created where nothing is, or, with --force, an existing
regular file is replaced. Never a symlink (nor its target), a FIFO, a device,
a socket or a directory, not even with --force. Without --force an existing
output is refused. A refusal (Refused) names the option and the path; the
commands exit 2 on it.

write() checks, writes the whole output to a new file beside it (never
opened through a symlink, never a FIFO's wait), then checks again and puts it
in place: os.replace with --force, else a link that fails where anything
appeared meanwhile. A write that fails leaves the old output as it was.
"""
import errno
import os
import stat
import tempfile

from mcfleet_results import show   # a path from a shared folder, shown on one line


class Refused(Exception):
    """an output path the rule refuses (exit 2)"""


def kind(mode):
    """what the rule refuses at a path, or None for a regular file"""
    for test, what in ((stat.S_ISREG, None), (stat.S_ISLNK, "a symlink"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return what
    return "not a regular file"


def check(option, path, force):
    """raises Refused where PATH may not be written (see the module); a path
    that cannot be looked at (a folder missing) passes: writing it says why"""
    if not path:
        raise Refused("%s: an empty path" % option)
    try:
        st = os.lstat(path)   # a symlink is judged itself, never through its target
    except OSError:
        return
    what = kind(st.st_mode)
    if what:
        raise Refused("%s '%s' is %s: mcfleet writes its output only to a new path or, with --force, over a "
                      "regular file; never to a device, FIFO, socket, directory or through a symlink"
                      % (option, show(path), what))
    if not force:
        raise Refused("%s '%s' exists: mcfleet does not overwrite results (choose another path, or pass "
                      "--force to replace it)" % (option, show(path)))


class Path(str):
    """a path with its option and --force: what a writer taking a path or a
    buffer (mcfleet_plot.save) is given"""

    def __new__(cls, option, path, force):
        self = str.__new__(cls, path)
        self.option, self.force = option, force
        return self


def write(option, path, force, fill, binary=False, mode=None):
    """PATH written by fill(file) under the rule; Refused, or OSError where it
    cannot be written. mode: the file's permissions whatever the umask (a
    file another user's daemon reads), else what open() would have made"""
    check(option, path, force)
    folder = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path)[:32] + ".", suffix=".tmp", dir=folder)
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask if mode is None else mode)   # by default what open(path, "w") would have made
        with os.fdopen(fd, "wb" if binary else "w") as f:
            fd = -1
            fill(f)
            f.flush()
            os.fsync(f.fileno())
        check(option, path, force)     # again: what came meanwhile is not replaced
        if force:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)     # never over anything (a rename would replace)
                os.unlink(tmp)
            except FileExistsError:
                check(option, path, force)   # raises: says what is there now
                raise
            except OSError as e:       # a file system without hard links
                if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS):
                    raise
                check(option, path, force)
                os.rename(tmp, path)
        tmp = None
    finally:
        if fd >= 0:
            os.close(fd)
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
