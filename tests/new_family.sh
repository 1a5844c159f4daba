#!/bin/sh
# A new kernel family is one row (issue 40): a scratch copy of the tree gets a
# family "toy" (tests/new_family.py: its row in src/family.c, its name in
# src/kernel.h and src/kernel.c, its host kernel in kernels/host/), nothing
# under src/report or analysis/, and is built without the GPU backends. Its
# metrics, toy_ns_per_op (lower is better) and toy_gops (higher), are then
# judged and printed right by every command, directions included, from what
# the results file says of them (the schema): mcfleet report (a GPU with its
# ops twice as slow flagged on both figures, "above" and "below"), compare
# (that GPU drifts on both; one twice as fast does not), baseline (a ceiling
# for toy_ns_per_op, the test's judged figure), study (the figure studied
# lower-is-better, of the family's kind) and --html.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
[ -z "${MCFLEET_SANITIZER_BUILD:-}" ] || { echo "SKIP: the sanitizer build (the plain suite builds the scratch tree)"; exit $SKIP; }
command -v git >/dev/null 2>&1 && git -C "$srcdir" rev-parse --git-dir >/dev/null 2>&1 ||
    { echo "SKIP: the source tree is not a git checkout (the copy is its tracked files)"; exit $SKIP; }
t="$work/tree"
mkdir "$t"
git -C "$srcdir" ls-files -z | (cd "$srcdir" && xargs -0 tar -cf -) | tar -xf - -C "$t" || fail "copying the tree"
touched=$("$PYTHON_H5" "$srcdir/tests/new_family.py" "$t") || fail "patching the tree"
echo "touched: $touched"
! echo "$touched" | grep -q '^src/report/\|^analysis/' || fail "the new family touched src/report or analysis/"
(cd "$t" && ./autogen.sh >"$work/build.log" 2>&1 && mkdir build && cd build &&
    ../configure --without-cuda --without-hip >>"$work/build.log" 2>&1 &&
    make -j2 mcfleet >>"$work/build.log" 2>&1) || { tail -30 "$work/build.log"; fail "the scratch build"; }
M="$t/build/mcfleet"
cat >"$work/deck.yaml" <<'YAML'
defaults: {repetitions: 5, warmup: 1}
tests:
  - {name: toy-sum, kernel: toy, iterations: 200000}
  - {name: peak, kernel: valu, dtype: fp64, iterations: 2000}
YAML
run() { rc=0; "$MPIRUN" -np 2 --oversubscribe --mca btl self,vader,tcp --bind-to none "$M" --backend host \
            --deck "$work/deck.yaml" -o "$1" >"$work/run.out" 2>&1 || rc=$?; }
run "$work/a.h5"; [ $rc = 0 ] || { cat "$work/run.out"; fail "the toy run: exit $rc"; }
run "$work/b.h5"; [ $rc = 0 ] || { cat "$work/run.out"; fail "the second toy run: exit $rc"; }
# steady copies (the host's own figures are as noisy as the machine is
# loaded); rank 1 of slow.h5 twice as slow, of fast.h5 twice as fast
"$PYTHON_H5" - "$work" <<'PY' || fail "making the copies"
import shutil, sys, h5py, numpy as np
w = sys.argv[1]
def steady(src, dst, scale):
    shutil.copy(w + "/" + src, w + "/" + dst)
    with h5py.File(w + "/" + dst, "r+") as h:
        g = h["results/toy-sum"]
        assert g["toy_ns_per_op"].attrs["better"] == b"lower" and g["toy_gops"].attrs["better"] == b"higher"
        for m, base in (("toy_ns_per_op", 2.0), ("toy_gops", 0.5)):
            v = g[m][()]
            for r in range(v.shape[0]):
                f = scale if r == 1 else 1.0
                v[r] = base * (f if m == "toy_ns_per_op" else 1 / f) * np.resize([1.0, 1.001, 0.999, 1.0005, 0.9995], v.shape[1])
            g[m][...] = v
steady("a.h5", "a1.h5", 1.0)
steady("b.h5", "b1.h5", 1.0)
steady("b.h5", "slow.h5", 2.0)
steady("b.h5", "fast.h5", 0.5)
PY
"$M" report "$work/slow.h5" >"$work/r.txt" 2>&1 || true
expect_in "$work/r.txt" "toy-sum toy_ns_per_op 4 ns:"
expect_in "$work/r.txt" "100.0% above the best GPU of its node"
expect_in "$work/r.txt" "toy-sum toy_gops 0.25 Gop/s:"
expect_in "$work/r.txt" "50.0% below the best GPU of its node"
"$M" report "$work/slow.h5" --format json >"$work/r.json" 2>/dev/null || true
"$PYTHON_H5" - "$work/r.json" <<'PY' || fail "the report's JSON of the toy family"
import json, sys
d = json.load(open(sys.argv[1]))
t = next(t for t in d["tests"] if t["test"] == "toy-sum")
assert t["kernel"] == "toy" and t["kind"] == "compute", t
assert t["better"] == {"toy_ns_per_op": "lower", "toy_gops": "higher"}, t["better"]
assert t["measured"] == "kernel=toy dtype=fp64 inputs=random", t["measured"]
flagged = {c["metric"] for g in d["gpus"] if g["rank"] == 1 for c in g["causes"] if c["test"] == "toy-sum"}
assert flagged == {"toy_ns_per_op", "toy_gops"}, flagged
assert not [c for g in d["gpus"] if g["rank"] == 0 for c in g["causes"] if c["test"] == "toy-sum"]
PY
rc=0; "$M" compare "$work/a1.h5" "$work/b1.h5" "$work/slow.h5" >"$work/c.txt" 2>&1 || rc=$?
[ $rc = 1 ] || { cat "$work/c.txt"; fail "compare of the slow GPU: exit $rc, expected 1"; }
expect_in "$work/c.txt" "toy-sum toy_ns_per_op: 4 ns against 2 over 2 earlier runs: +100.0%"
expect_in "$work/c.txt" "toy-sum toy_gops: 0.25 Gop/s against 0.5 over 2 earlier runs: -50.0%"
rc=0; "$M" compare "$work/a1.h5" "$work/b1.h5" "$work/fast.h5" >"$work/f.txt" 2>&1 || rc=$?
! grep -q "toy-sum toy_" "$work/f.txt" || { cat "$work/f.txt"; fail "a GPU twice as fast drifted"; }
mkdir "$work/prof"
rc=0; "$M" baseline "$work/a1.h5" "$work/b1.h5" -o "$work/prof/base.yaml" >"$work/out" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$work/out"; fail "baseline: exit $rc"; }
expect_in "$work/prof/base.yaml" "\"toy-sum\": {metric: toy_ns_per_op, measured: \"kernel=toy dtype=fp64 inputs=random\", expected: 2, ceiling: 2.14,"
rc=0; "$M" report "$work/slow.h5" --profiles "$work/prof" >"$work/p.txt" 2>&1 || rc=$?
expect_in "$work/p.txt" "toy-sum toy_ns_per_op 4 ns: above the"
"$M" study "$work/a1.h5" "$work/b1.h5" "$work/slow.h5" --format json --all-metrics -o "$work/s.json" >/dev/null 2>&1 ||
    fail "study of the toy runs"
"$PYTHON_H5" - "$work/s.json" <<'PY' || fail "the study of the toy family"
import json, sys
text = open(sys.argv[1]).read()
assert "toy_ns_per_op" in text and "toy_gops" in text, "the toy figures are not studied"
PY
"$M" report "$work/slow.h5" --html "$work/p.html" >/dev/null 2>&1 || true
expect_in "$work/p.html" "toy_ns_per_op"
expect_in "$work/p.html" "toy_gops"
echo "a new family, one row and its host kernel: judged and printed by every command"
