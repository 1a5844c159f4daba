#!/bin/sh
# mcfleet compare (analysis/mcfleet_compare.py through the binary's
# subcommand): each GPU against its own history, matched by identity, not by
# rank. Two real runs of the host backend on 2 ranks; the host's figures are
# as noisy as the machine is loaded, so copies of the files get steady
# figures (the rule's arithmetic is what is tested here; its noise gate too):
#   same figures                   -> no drift, exit 0
#   rank 1's triad 10 % lower      -> that GPU flagged on triad alone, exit 1
#   the same drop, a noisy history -> not flagged (3 x noise > 10 %)
#   the two GPUs' identities swapped between runs -> both "moved", and each
#                                    compared with its own past, not its slot's
#   a test that measures another size -> "not comparable" (the key named),
#                                    never compared
# Bad input: exit 2 naming the file; nothing in common: exit 3.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
cat >"$work/deck.yaml" <<YAML
defaults:
  repetitions: 5
  warmup: 1
tests:
  - {name: peak, kernel: valu, dtype: fp64, iterations: 20000}
  - {name: triad, kernel: memory, op: triad, bytes: 4MiB}
  - {name: chase, kernel: latency, working_set: 64KiB}
YAML
sed 's/bytes: 4MiB/bytes: 2MiB/' "$work/deck.yaml" >"$work/other.yaml"
mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/a.h5"
expect_rc 0
mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/b.h5"
expect_rc 0
mpi 2 --backend host --deck "$work/other.yaml" -o "$work/o.h5"
expect_rc 0
"$PYTHON_H5" - "$work" <<'PY' || fail "making the copies"
import shutil, sys, h5py, numpy as np
w = sys.argv[1]
def steady(src, dst, scale=None, uuids=("GPU-aaaa", "GPU-bbbb"), noisy=False):
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as h:
        h["ranks/device_uuid"][...] = np.array(uuids, dtype=h["ranks/device_uuid"].dtype)
        h["ranks/device"][...] = [0, 1]
        for t in h["results"]:
            g = h["results"][t]
            for m in g.attrs["summary_metrics"].decode().split(","):
                if m not in g:
                    continue
                v = g[m][()]
                base = {"GPU-aaaa": 100.0, "GPU-bbbb": 200.0}
                for r in range(v.shape[0]):
                    v[r] = base[uuids[r]] * (1 + 0.001 * np.sin(np.arange(v.shape[1])))
                    if noisy:   # a 7 % spread (1.4826 MAD of these factors)
                        v[r] *= np.resize([1.0, 0.92, 1.08, 0.95, 1.05], v.shape[1])
                    if scale and t == scale[0] and r == scale[1]:
                        v[r] *= scale[2]
                g[m][...] = v
steady(w + "/a.h5", w + "/a1.h5")
steady(w + "/b.h5", w + "/b1.h5")
steady(w + "/b.h5", w + "/slow.h5", scale=("triad", 1, 0.9))
steady(w + "/a.h5", w + "/noisy.h5", noisy=True)
steady(w + "/b.h5", w + "/swap.h5", uuids=("GPU-bbbb", "GPU-aaaa"))
steady(w + "/b.h5", w + "/swapslow.h5", uuids=("GPU-bbbb", "GPU-aaaa"), scale=("triad", 0, 0.9))
steady(w + "/o.h5", w + "/o1.h5")
PY

cmp_rc() {  # cmp_rc WANT OUT ARGS...: mcfleet compare ARGS, output to OUT
    want=$1; out=$2; shift 2
    rc=0; "$MCFLEET" compare "$@" >"$out" 2>"$out.err" || rc=$?
    [ $rc = "$want" ] || { cat "$out" "$out.err"; fail "mcfleet compare $*: exit $rc, expected $want"; }
}
cmp_rc 0 "$work/same" "$work/a1.h5" "$work/b1.h5"
expect_in "$work/same" "DRIFT: 0 of 2 GPUs compared"
cmp_rc 1 "$work/slow" "$work/a1.h5" "$work/b1.h5" "$work/slow.h5"
expect_in "$work/slow" "DRIFT: 1 of 2 GPUs compared"
"$MCFLEET" compare --format json "$work/a1.h5" "$work/b1.h5" "$work/slow.h5" >"$work/slow.json"
"$PYTHON_H5" - "$work/slow.json" <<'PY' || fail "the drifted GPU (json above)"
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((x["gpu"], x["test"], x["metric"]) for x in d["drift"])
assert got == [("GPU-bbbb", "triad", "bandwidth_gbs")], got
x = d["drift"][0]
assert abs(x["deviation"] + 0.1) < 1e-9 and x["earlier_runs"] == 2 and abs(x["threshold"] - 0.02) < 0.01, x
print("drift:", got)
PY
cmp_rc 0 "$work/gated" "$work/noisy.h5" "$work/slow.h5"
expect_in "$work/gated" "DRIFT: 0 of 2 GPUs compared"
# moved GPUs: compared with their own past wherever they are now
cmp_rc 1 "$work/moved" "$work/a1.h5" "$work/swapslow.h5"
expect_in "$work/moved" "GPU-aaaa moved from vm device 0 (local rank 0) to vm device 1 (local rank 1)"
expect_in "$work/moved" "GPU-bbbb moved from vm device 1 (local rank 1) to vm device 0 (local rank 0)"
"$MCFLEET" compare --format json "$work/a1.h5" "$work/swapslow.h5" >"$work/moved.json"
"$PYTHON_H5" - "$work/moved.json" <<'PY' || fail "the moved GPU's drift (json above)"
import json, sys
d = json.load(open(sys.argv[1]))
assert [(x["gpu"], x["test"]) for x in d["drift"]] == [("GPU-bbbb", "triad")], d["drift"]
PY
cmp_rc 0 "$work/swap" "$work/a1.h5" "$work/swap.h5"
expect_in "$work/swap" "DRIFT: 0 of 2 GPUs compared"
# other parameters: not comparable, and not compared
cmp_rc 0 "$work/other" "$work/a1.h5" "$work/o1.h5"
expect_in "$work/other" "triad: not the same measurement as in $work/a1.h5: bytes differs (4194304 in $work/a1.h5, 2097152 in $work/o1.h5)"
# bad input
cmp_rc 2 "$work/bad" "$work/a1.h5" "$work/none.h5"
expect_in "$work/bad.err" "$work/none.h5"
cmp_rc 2 "$work/one" "$work/a1.h5"
cmp_rc 2 "$work/deckfile" "$work/a1.h5" "$work/deck.yaml"
expect_in "$work/deckfile.err" "$work/deck.yaml"
! grep -q Traceback "$work"/*.err || fail "a traceback"
# the same history on the HTML page (report --html --history): the drifted
# GPU named with its test; the page's exit code stays the verdict's
if "$PYTHON_H5" -c 'import matplotlib' 2>/dev/null; then
    want=0; "$MCFLEET" report "$work/slow.h5" >/dev/null 2>&1 || want=$?
    rc=0; "$MCFLEET" report "$work/slow.h5" --html "$work/slow.html" --history "$work/a1.h5" "$work/b1.h5" \
        >"$work/html.out" 2>&1 || rc=$?
    [ $rc = $want ] || { cat "$work/html.out"; fail "report --html --history: exit $rc, the verdict's is $want"; }
    expect_in "$work/slow.html" "Drift against history (2 earlier runs)"
    expect_in "$work/slow.html" "<tr><td>GPU-bbbb</td>"
    [ "$(grep -c '<td>triad</td><td>bandwidth_gbs</td>' "$work/slow.html")" = 1 ] || fail "the page: not one triad drift"
    rc=0; "$MCFLEET" report "$work/slow.h5" --html "$work/x.html" --history "$work/none.h5" >"$work/e" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -qF "$work/none.h5" "$work/e" && [ ! -e "$work/x.html" ] \
        || { cat "$work/e"; fail "--history of a missing file: exit $rc, expected 2 naming it"; }
fi
"$MCFLEET" compare --help >"$work/help" || fail "compare --help"
expect_in "$work/help" "its UUID"
echo "compare ok"
