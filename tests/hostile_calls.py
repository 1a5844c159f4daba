"""One call of an analysis tool's main() on a hostile results file, in the
calling process (a process per call would take minutes over hundreds of
files): for tests/hostile_report.sh (the plots) and tests/hostile_tools.sh
(compare, baseline)."""
import contextlib
import io
import signal
import traceback


def _alarm(*_):
    raise TimeoutError("no answer in 60 s")


def call(fn, seconds=60):
    """Runs fn() with stdout dropped and stderr kept, under an alarm of
    `seconds` (the hang check). Returns (exit code, stderr): the code fn
    returned or exited with (None: 0), or "traceback" where it raised."""
    err = io.StringIO()
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = fn()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        code = "traceback"
        err.write(traceback.format_exc())
    finally:
        signal.alarm(0)
    return (0 if code is None else code), err.getvalue()


def fault(code, msg, path, allowed):
    """Why a call's outcome fails the test (None: it does not): a traceback,
    an exit code not among the documented ones, or exit 2 (a file it cannot
    read) without naming the file."""
    if code == "traceback":
        return "a traceback"
    if code not in allowed:
        return "exit %s, documented: %s" % (code, ", ".join(str(c) for c in allowed))
    if code == 2 and path not in msg:
        return "exit 2 without naming the file"
    return None


def summary(codes):
    """'exit 0: 12, exit 2: 30' from {code: count}"""
    return ", ".join("exit %s: %d" % kv for kv in sorted(codes.items(), key=str))
