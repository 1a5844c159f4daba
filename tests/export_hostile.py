#!/usr/bin/env python3
"""Hostile node names and host lists for everything that names a node to
Slurm or a shell (tests/export_hostile.sh; docs/operations.md, "Node names").

1. Each hostile name (shell metacharacters, a newline, a space that would
   add a slurm.conf key, '#', '=', ',', quotes, non-ASCII, 300 characters,
   Slurm's DEFAULT, a range) put in a study's JSON, a results file's
   /ranks/slurm_nodename, --node and SLURMD_NODENAME goes through export
   --slurm-update, --slurm, --slurm-conf merging (and its update), --prom DIR,
   --drain-lines, --drain and health --drain: each exit 2 naming the file and
   line (the study's JSON line holding the name; a results file's rank; the
   option or variable), nothing on standard output, no file written, no
   scontrol or launcher run (stand-ins on PATH record any call).
2. Lines meant for a shell carry hostile data safely: the site's features
   `x$(id),y`id`,z'q` in --slurm-update's commands and the drain lines' GPU
   names reach a stand-in scontrol, through sh, as exactly the words
   mcfleet meant (no byte ends a word or a command).
3. The issue's range files (NodeName=node[0-99999999], node[0-1][0-99999][0-9999])
   and a line too large to split are refused naming their line, a huge
   line without a node of the study copied as it is, a 60,000-node line
   holding the study's nodes split: each in under 1 s of CPU and 50 MB.
4. export's output paths: a symlink, FIFO or directory for --slurm, a
   symlinked --prom directory, a per-node file that is a symlink, FIFO or
   directory, or one that exists without --force: exit 2, nothing written.

Calls run the tools' main() in this process (a process each would take a
minute); a canary file that a shell would create stays absent.

usage: export_hostile.py ANALYSIS_DIR WORK RUN.h5 STUDY.json
"""
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import time
import tracemalloc

analysis, work, run_h5, fixture = sys.argv[1:5]
sys.path.insert(0, analysis)
import h5py  # noqa: E402
import mcfleet_export as ex  # noqa: E402
import mcfleet_health as he  # noqa: E402
from mcfleet_hostlist import shown  # noqa: E402

os.chdir(work)
CANARY = os.path.join(work, "CANARY")
HOSTILE = ["n1;touch CANARY", "n2$(touch CANARY)", "n3`touch CANARY`", "n4\ntouch CANARY", "n5 Feature=x",
           "n6#x", "n7=x", "n8,n9", "n'q", 'n"q', "n\\x", "n\u00e9", "x" * 300, "DEFAULT", "-n", "n[1-2]", "a\tb",
           "n>x", "n|x", "n&x", "n*", "~n"]
failures = []


def fail(name, why):
    failures.append("%s: %s" % (name, why))


def call(fn):
    """(exit code, stdout, stderr) of fn() in this process; a traceback is code 'traceback'"""
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = fn()
    except SystemExit as e:
        code = e.code
    except BaseException:
        import traceback
        code = "traceback"
        err.write(traceback.format_exc())
    return (0 if code is None else code), out.getvalue(), err.getvalue()


# stand-ins that record any call: scontrol and a launcher
bindir = os.path.join(work, "bin")
os.makedirs(bindir, exist_ok=True)
for name in ("scontrol", "launcher"):
    with open(os.path.join(bindir, name), "w") as f:
        f.write('#!/bin/sh\nfor a in "$@"; do printf "%%s\\0" "$a"; done >>"%s/ran.%s"\nexit 0\n' % (work, name))
    os.chmod(os.path.join(bindir, name), 0o755)
os.environ["PATH"] = bindir + os.pathsep + os.environ["PATH"]


def ran(name):
    p = os.path.join(work, "ran." + name)
    return os.path.exists(p) and os.path.getsize(p) > 0


def recorded(name):
    """the words of every call of a stand-in, and forget them"""
    p = os.path.join(work, "ran." + name)
    if not os.path.exists(p):
        return []
    with open(p, "rb") as f:
        words = [w.decode() for w in f.read().split(b"\0")[:-1]]
    os.unlink(p)
    return words


def renamed(obj, old, new):
    """OBJ with every key and string value OLD made NEW"""
    if isinstance(obj, dict):
        return {(new if k == old else k): renamed(v, old, new) for k, v in obj.items()}
    if isinstance(obj, list):
        return [renamed(v, old, new) for v in obj]
    return new if obj == old else obj


def run_named(src, dst, rank, name):
    """a copy of the results file SRC with rank RANK's node named NAME"""
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        for col in ("slurm_nodename", "hostname"):
            v = [bytes(x) for x in f["ranks"][col][:]]
            v[rank] = name.encode()
            del f["ranks"][col]
            f["ranks"].create_dataset(col, data=v, dtype="S%d" % max(1, max(len(x) for x in v)))


study = json.load(open(fixture))
site = os.path.join(work, "site.conf")
with open(site, "w") as f:
    f.write("NodeName=DEFAULT CPUs=4\nNodeName=n[1-4] RealMemory=1000\n")
prom_dir = os.path.join(work, "prom")
os.makedirs(prom_dir, exist_ok=True)


def nothing_written(case, code, out, err, said, paths=()):
    if code != 2:
        fail(case, "exit %s, expected 2: %s" % (code, err.strip()[-400:]))
    if out:
        fail(case, "printed on standard output: %r" % out[:200])
    if said not in err:
        fail(case, "'%s' not in its message: %s" % (said, err.strip()[-400:]))
    for p in paths:
        if os.path.exists(p):
            fail(case, "%s written" % p)
            os.unlink(p)
    if os.listdir(prom_dir):
        fail(case, "files in --prom DIR: %s" % os.listdir(prom_dir)[:3])
        for x in os.listdir(prom_dir):
            os.unlink(os.path.join(prom_dir, x))
    for who in ("scontrol", "launcher"):
        if ran(who):
            fail(case, "%s ran: %s" % (who, recorded(who)))


# ---------------------------------------------------------------- 1. hostile names
for i, name in enumerate(HOSTILE):
    tag = "name %d %r" % (i, name[:24])
    sj = os.path.join(work, "s%d.json" % i)
    text = json.dumps(renamed(study, "n3", name), indent=1)
    with open(sj, "w") as f:
        f.write(text)
    line = next(k for k, x in enumerate(text.split("\n"), 1) if json.dumps(name) in x)
    at = "%s:%d: node name '%s' refused" % (sj, line, shown(name))
    out_conf = os.path.join(work, "o.conf")
    for case, args, paths in (
            ("--slurm-update", ["--study", sj, "--slurm-update"], ()),
            ("--slurm", ["--study", sj, "--slurm", out_conf], [out_conf]),
            ("--slurm-conf merge", ["--study", sj, "--slurm-conf", site, "--slurm", out_conf], [out_conf]),
            ("--slurm-conf update", ["--study", sj, "--slurm-conf", site, "--slurm-update"], ()),
            ("--prom DIR", ["--study", sj, "--prom", prom_dir], ())):
        nothing_written("%s %s" % (tag, case), *call(lambda: ex.main(args)), said=at, paths=paths)
    rh = os.path.join(work, "r%d.h5" % i)
    run_named(run_h5, rh, 1, name)
    at = "%s: rank 1's node" % rh
    for case, args in (("--drain-lines", [rh, "--drain-lines"]), ("--drain", [rh, "--drain"]),
                       ("--prom DIR of a run", [rh, "--prom", prom_dir])):
        nothing_written("%s %s" % (tag, case), *call(lambda: ex.main(args)), said=at)
    os.unlink(rh)
    hist = os.path.join(work, "hist")
    health = ["--drain", "--history", hist, "--np", "2", "--launcher", "launcher {np}", "--deck", "health-host.yaml"]
    nothing_written(tag + " export --node", *call(lambda: ex.main([run_h5, "--drain", "--node=" + name])),
                    said="--node: node name '%s' refused" % shown(name))
    nothing_written(tag + " health --node", *call(lambda: he.main(["--node=" + name] + health)),
                    said="--node: node name '%s' refused" % shown(name))
    if name:   # an empty SLURMD_NODENAME is none: the host name is taken
        os.environ["SLURMD_NODENAME"] = name
        nothing_written(tag + " health SLURMD_NODENAME", *call(lambda: he.main(health)),
                        said="SLURMD_NODENAME: node name '%s' refused" % shown(name))
        del os.environ["SLURMD_NODENAME"]
    if os.path.exists(hist):
        fail(tag + " health", "the history was created")
        shutil.rmtree(hist)
# a table's node: the study says where it read it, export names that too (the study's own run: in the .sh)

# ---------------------------------------------------------------- 2. shell lines carry data safely
feats = "x$(id),y`id`,z'q"
with open(site, "w") as f:
    f.write("NodeName=n[1-4] RealMemory=1000 Features=%s\n" % feats)
code, out, err = call(lambda: ex.main(["--study", fixture, "--slurm-conf", site, "--slurm-update"]))
if code != 0 or len(out.splitlines()) != 4:
    fail("update lines", "exit %s: %s %s" % (code, out, err))
for cmd in out.splitlines():
    subprocess.run(["sh", "-c", cmd], check=True)
    words = recorded("scontrol")
    node = words[1][len("NodeName="):] if len(words) > 1 else "?"
    mine = {"n1": "mcf_matrix_A,mcf_memory_A", "n2": "mcf_matrix_A,mcf_memory_B", "n3": "mcf_matrix_B,mcf_memory_A",
            "n4": "mcf_matrix_C,mcf_memory_A"}.get(node)
    want = ["update", "NodeName=" + node, words[2] if len(words) > 2 else "?",
            "AvailableFeatures=%s,%s" % (feats, mine), "ActiveFeatures=%s,%s" % (feats, mine)]
    if words != want:
        fail("update lines", "sh gave scontrol %s, meant %s (the line: %s)" % (words, want, cmd))
code, out, err = call(lambda: ex.main([run_h5, "--drain-lines"]))
plan = ex.drain_plan(json.loads(subprocess.run([os.environ["MCFLEET_BIN"], "report", run_h5, "--format", "json"],
                                               stdout=subprocess.PIPE).stdout), None, run_h5)
if code != 1 or len(out.splitlines()) != 1 or len(plan) != 1:
    fail("drain lines", "exit %s, %d lines: %s %s" % (code, len(out.splitlines()), out, err))
else:
    subprocess.run(["sh", "-c", out.splitlines()[0]], check=True)
    if recorded("scontrol") != plan[0][1][1:]:
        fail("drain lines", "sh did not give scontrol the words of the plan: %s" % plan[0][1])
    if "#" not in plan[0][1][-1]:
        fail("drain lines", "the reason has no '#' (the host backend's GPU name): the case proves nothing")

# ---------------------------------------------------------------- 3. host lists: bounded
def bounded(case, conf_text, rc, said, args=("--slurm", "-")):
    p = os.path.join(work, case.replace(" ", "_") + ".conf")
    with open(p, "w") as f:
        f.write(conf_text)
    tracemalloc.start()
    t0 = time.process_time()
    code, out, err = call(lambda: ex.main(["--study", fixture, "--slurm-conf", p] + list(args)))
    cpu = time.process_time() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    if code != rc or said not in (err if rc == 2 else out):
        fail(case, "exit %s (expected %d), '%s' not said: %s %s" % (code, rc, said, out[-300:], err[-300:]))
    if rc == 2 and out:
        fail(case, "printed %r" % out[:200])
    if cpu > 1.0 or peak > 50e6:
        fail(case, "%.2f s of CPU, %.0f MB at the peak (at most 1 s and 50 MB)" % (cpu, peak / 1e6))
    return out


bounded("one huge range", "NodeName=node[0-99999999]\n", 2, "one_huge_range.conf:1: host list 'node[0-99999999]'")
bounded("huge product", "# site\nNodeName=node[0-1][0-99999][0-9999]\n", 2, "huge_product.conf:2: host list")
bounded("huge range update", "NodeName=node[0-99999999]\n", 2, "huge_range_update.conf:1:", ("--slurm-update",))
bounded("too large to split", "NodeName=n[1-4],m[0-60000][0-9] CPUs=4\n", 2,
        "too_large_to_split.conf:1: host list 'n[1-4],m[0-60000][0-9]' names 600014 nodes, more than mcfleet expands")
out = bounded("huge, none of ours", "NodeName=x[0-60000][0-60000] CPUs=4\nNodeName=n[1-4] CPUs=4\n", 0,
              "NodeName=x[0-60000][0-60000] CPUs=4\n")
if "NodeName=n3 CPUs=4 Weight=33 Features=mcf_matrix_B,mcf_memory_A" not in out:
    fail("huge, none of ours", "n3 not merged: %s" % out)
out = bounded("large, split", "NodeName=n[1-50000] CPUs=4 Port=10001-60000\n", 0, "NodeName=n[5-50000] CPUs=4 "
              "Port=10005-60000")
if "NodeName=n4 CPUs=4 Port=10004 Weight=68 Features=mcf_matrix_C,mcf_memory_A" not in out:
    fail("large, split", "n4 not on its own line with its port: %s" % out[:400])

# ---------------------------------------------------------------- 4. output paths
target = os.path.join(work, "target")
with open(target, "w") as f:
    f.write("keep\n")
for kind in ("symlink", "fifo", "directory"):
    p = os.path.join(work, "out-" + kind)
    {"symlink": lambda: os.symlink(target, p), "fifo": lambda: os.mkfifo(p),
     "directory": lambda: os.mkdir(p)}[kind]()
    code, out, err = call(lambda: ex.main(["--study", fixture, "--slurm", p, "--force"]))
    if code != 2 or "is a %s" % {"fifo": "FIFO"}.get(kind, kind) not in err:
        fail("--slurm " + kind, "exit %s: %s" % (code, err))
    inner = os.path.join(prom_dir, "mcfleet-n3.prom")
    {"symlink": lambda: os.symlink(target, inner), "fifo": lambda: os.mkfifo(inner),
     "directory": lambda: os.mkdir(inner)}[kind]()
    code, out, err = call(lambda: ex.main(["--study", fixture, "--prom", prom_dir, "--force"]))
    if code != 2 or "mcfleet-n3.prom" not in err or sorted(os.listdir(prom_dir)) != ["mcfleet-n3.prom"]:
        fail("--prom DIR holding a " + kind, "exit %s, %s: %s" % (code, os.listdir(prom_dir), err))
    (os.rmdir if kind == "directory" else os.unlink)(inner)
link = os.path.join(work, "prom-link")
os.symlink(prom_dir, link)
code, out, err = call(lambda: ex.main(["--study", fixture, "--prom", link]))
if code != 2 or "is a symlink" not in err or os.listdir(prom_dir):
    fail("--prom a symlinked directory", "exit %s: %s" % (code, err))
with open(os.path.join(prom_dir, "mcfleet-n2.prom"), "w") as f:
    f.write("old\n")
code, out, err = call(lambda: ex.main(["--study", fixture, "--prom", prom_dir]))
if code != 2 or "exists" not in err or sorted(os.listdir(prom_dir)) != ["mcfleet-n2.prom"]:
    fail("--prom DIR, a node's file there", "exit %s, %s: %s" % (code, os.listdir(prom_dir), err))
if os.path.exists(CANARY) or open(target).read() != "keep\n":
    fail("canary", "a shell ran a name, or a symlink's target was written")
for x in failures:
    print("FAIL: " + x)
print("%d failures over %d hostile names" % (len(failures), len(HOSTILE)))
sys.exit(1 if failures else 0)
