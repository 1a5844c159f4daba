"""The C report's verdict, for the tools written in Python: `mcfleet report
FILE --format json` run by the mcfleet binary that started the tool
(MCFLEET_BIN, which src/pytool.c sets), else the first `mcfleet` on PATH.
The page (mcfleet_html.py), the exports (mcfleet_export.py) and the health
check (mcfleet_health.py) read the verdict this way, so no Python code judges
a GPU a second time and the text report, the page and the exports never
disagree.
"""
import json
import os
import subprocess


class Report:
    """the report's JSON (None where the binary printed none), its exit code
    (docs/exit-codes.md: 0 PASS/WARN, 1 FAIL, 2 the file or an option cannot
    be used, 3 an incomplete run) and its stderr"""

    def __init__(self, report, code, stderr):
        self.report, self.code, self.stderr = report, code, stderr


def binary():
    return os.environ.get("MCFLEET_BIN") or "mcfleet"


def start(path, options=(), fmt="json"):
    """the C report of PATH started, to be taken with finish(): a reader
    that has other work on the file does it while the report runs"""
    try:
        return subprocess.Popen([binary(), "report", path, "--format", fmt] + list(options),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        return Report(None, 3, "mcfleet: cannot run %s report: %s\n" % (binary(), e.strerror or e))


def finish(p):
    """the Report of a start()ed report"""
    if isinstance(p, Report):
        return p
    out, err = p.communicate()
    try:
        rep = json.loads(out.decode("utf-8", "replace"))
    except ValueError:
        rep = None
    return Report(rep if isinstance(rep, dict) else None, p.returncode, err.decode("utf-8", "replace"))


def run(path, options=(), fmt="json"):
    """the C report of the results file PATH, with report OPTIONS (e.g.
    --profiles DIR), as FMT: json (the whole report), or tests-json (each
    test as the file's schema reads it and each GPU's tests shared with
    another job: what a reader of the tests needs, a fraction of a fleet's
    JSON); a binary that cannot be started is code 3"""
    return finish(start(path, options, fmt))
