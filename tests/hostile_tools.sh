#!/bin/sh
# `mcfleet compare`, `mcfleet baseline` and `mcfleet study` on the malformed results files of
# tests/hostile_files.py (the set tests/hostile_report.sh gives the report):
# never a traceback or a hang; the exit code is a documented one
# (docs/exit-codes.md: compare 0-3, baseline and study 0, 2, 3; study's JSON
# strict: no NaN or infinity), and 2 on the files the
# manifest calls unreadable (empty, a directory, truncated ...) and on the
# size-* files, which declare more than the C report's bounds
# (analysis/mcfleet_limits.txt; tests/hostile_sizes.sh runs them under
# ulimit -v); exit 2 names the file.
# Every file goes through both tools' main() in one Python process (a process
# per call would take minutes; each call has its own 60 s alarm, the hang
# check); the binary's own path (src/pytool.c runs the script) is taken on the
# files it cannot read at all, and on the base file, where both must succeed.
# HOSTILE_RANDOM and HOSTILE_SEED choose the random variants as for the report.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
command -v timeout >/dev/null 2>&1 || { echo "SKIP: no timeout(1)"; exit $SKIP; }
mpi 2 --backend host --quick --deck "$srcdir/tests/decks/tiny.yaml" -o "$work/base.h5"
expect_rc 0
"$PYTHON_H5" "$srcdir/tests/hostile_files.py" --base "$work/base.h5" --out "$work/h" \
    --random "${HOSTILE_RANDOM:-24}" --seed "${HOSTILE_SEED:-1}" >/dev/null || fail "the generator failed"

timeout 1800 "$PYTHON_H5" - "$srcdir/analysis" "$work/base.h5" "$work/h" "$work/out.yaml" "$srcdir/tests" <<'PY' || fail "compare, baseline and study on hostile files"
import importlib, json, os, sys
analysis, base, d, out, here = sys.argv[1:6]
sys.path[:0] = [analysis, here]
from hostile_calls import call, fault, summary
tools = {"compare": importlib.import_module("mcfleet_compare"), "baseline": importlib.import_module("mcfleet_baseline"),
         "study": importlib.import_module("mcfleet_study")}
allowed = {"compare": (0, 1, 2, 3), "baseline": (0, 2, 3), "study": (0, 2, 3)}
runs = fails = 0
codes = {"compare": {}, "baseline": {}, "study": {}}
study_json = out + ".study.json"


def strict(c):
    raise ValueError("%s in the study's JSON" % c)
for line in open(os.path.join(d, "manifest.tsv")):
    name, _, _, expect = line.rstrip("\n").split("\t")
    f = os.path.join(d, name)
    for tool, argv in (("compare", [base, f]), ("baseline", [f, "-o", out, "--force", "--allow-quick"]),
                       ("study", [f, "--boot", "20", "--format", "json", "-o", study_json, "--force"])):
        runs += 1
        code, msg = call(lambda: tools[tool].main(argv))
        codes[tool][code] = codes[tool].get(code, 0) + 1
        why = fault(code, msg, f, (2,) if expect == "unreadable" or "-size-" in name else allowed[tool])
        if not why and tool == "study" and code == 0:
            try:
                json.loads(open(study_json).read(), parse_constant=strict)
            except ValueError as e:
                why = str(e)
        if why:
            fails += 1
            print("FAIL: %s %s: %s\n%s" % (tool, name, why, msg[-2000:]), file=sys.stderr)
print("%d runs: compare %s; baseline %s; study %s; failures: %d" % (
    runs, summary(codes["compare"]), summary(codes["baseline"]), summary(codes["study"]), fails))
sys.exit(1 if fails else 0)
PY

# the binary: the base file compares with itself (no drift) and baselines;
# the files nothing can read exit 2, named, without a traceback
rc=0; "$MCFLEET" compare "$work/base.h5" "$work/base.h5" >"$work/o" 2>"$work/e" || rc=$?
self_compared $rc "$work/o" || { cat "$work/o" "$work/e"; fail "compare of the base file with itself: exit $rc"; }
"$MCFLEET" baseline "$work/base.h5" --allow-quick -o "$work/b.yaml" >"$work/o" 2>"$work/e" || { cat "$work/e"; fail "baseline of the base file (a --quick run: --allow-quick)"; }
"$MCFLEET" study "$work/base.h5" --boot 20 >"$work/o" 2>"$work/e" || { cat "$work/e"; fail "study of the base file"; }
n=0
for name in $(grep -E -- '^[0-9]+-(empty|directory|fifo|no-meta|truncated-1024)\.h5' "$work/h/manifest.tsv" | cut -f1); do
    f="$work/h/$name"
    n=$((n + 1))
    for tool in compare baseline study; do
        case $tool in
        compare) set -- "$work/base.h5" "$f" ;;
        baseline) set -- "$f" -o "$work/x.yaml" ;;
        study) set -- "$f" --boot 20 ;;
        esac
        rc=0
        timeout 120 "$MCFLEET" $tool "$@" >/dev/null 2>"$work/e" </dev/null || rc=$?
        [ $rc = 2 ] && ! grep -q Traceback "$work/e" && grep -qF "$f" "$work/e" \
            || { cat "$work/e" >&2; fail "mcfleet $tool on $name: exit $rc, expected 2 naming the file"; }
    done
done
[ $n -ge 5 ] || fail "only $n of the 5 unreadable kinds found in the manifest (hostile_files.py renamed them?)"
echo "hostile files ok for compare, baseline and study"
