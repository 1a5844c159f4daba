"""The Python modules the analysis tools need, checked before they are
imported: standard library only, so that it runs in any python3.

A script run as `analysis/mcfleet_plot.py ...` gets the first `python3` on
PATH (its shebang is `#!/usr/bin/env python3`), which may be a pyenv, conda
or venv Python without h5py, numpy or matplotlib while the system's
/usr/bin/python3 has them (Debian's python3-h5py, python3-numpy,
python3-matplotlib). require() then runs the script again with the first
interpreter that has them all: MCFLEET_PYTHON if set (the only one tried
then), else /usr/bin/python3, /usr/local/bin/python3, each python3 on PATH.
Where none has them it prints one line naming the modules missing and the
packages that hold them, and exits 3 (docs/exit-codes.md). mcfleet itself
(compare, baseline, report --html) picks its interpreter the same way, in
src/pytool.c, before the script starts.
"""
import os
import subprocess
import sys

PACKAGES = {"h5py": "python3-h5py", "numpy": "python3-numpy", "matplotlib": "python3-matplotlib"}
CANDIDATES = ("/usr/bin/python3", "/usr/local/bin/python3")
EXIT_MISSING = 3     # a runtime error: an install step is missing (docs/exit-codes.md)
REEXEC = "MCFLEET_PYTHON_REEXEC"
# what the candidates run: each module it cannot import, one a line
PROBE = "import sys\nfor m in sys.argv[1:]:\n    try:\n        __import__(m)\n    except Exception:\n        print(m)\n"


def missing_here(modules):
    """the modules this interpreter cannot import"""
    out = []
    for m in modules:
        try:
            __import__(m)
        except Exception:   # ImportError, or a broken install (an ABI mismatch raises others)
            out.append(m)
    return out


def missing_in(python, modules):
    """the modules PYTHON cannot import, or None where it cannot be run"""
    try:
        p = subprocess.run([python, "-c", PROBE] + list(modules), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.decode("utf-8", "replace").split() if p.returncode == 0 else None


def candidates():
    explicit = os.environ.get("MCFLEET_PYTHON")
    if explicit:
        return [explicit]
    out = []
    on_path = [os.path.join(d or ".", "python3") for d in os.environ.get("PATH", "").split(os.pathsep)]
    for c in list(CANDIDATES) + on_path:
        if c not in out and os.path.isfile(c) and os.access(c, os.X_OK):
            out.append(c)
    return out


def packages(modules):
    return " ".join(PACKAGES.get(m, m) for m in modules)


def require(prog, modules=("h5py", "numpy", "matplotlib")):
    """returns where this interpreter has MODULES; else runs the script again
    with one that has them, or exits 3 naming what is missing"""
    miss = missing_here(modules)
    if not miss:
        return
    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    tried = []
    if not os.environ.get(REEXEC) and os.path.isfile(script):
        for c in candidates():
            m = missing_in(c, modules)
            if m == []:
                os.environ[REEXEC] = sys.executable or "?"
                sys.stdout.flush()
                sys.stderr.flush()
                try:
                    os.execv(c, [c, script] + sys.argv[1:])
                except OSError:
                    del os.environ[REEXEC]
                    m = None
            tried.append("%s: %s" % (c, "cannot be run" if m is None else "no " + ", ".join(m)))
    sys.stderr.write("%s: no module named %s in %s%s; install them: apt-get install %s (Debian, Ubuntu), or pip "
                     "install %s; or set MCFLEET_PYTHON to a python3 that has them\n" % (
                         prog, ", ".join(repr(m) for m in miss), sys.executable or "python3",
                         " (tried: %s)" % "; ".join(tried) if tried else "", packages(miss), " ".join(miss)))
    sys.exit(EXIT_MISSING)
