#!/bin/sh
# Two readings of one power (issue 14: "where both libraries work, the run
# records both, and the report compares their readings"), end to end through
# the host backend: the host rank stands for the GPU at 0000:c1:00.0, which
# the stub rocm-smi (tests/stub_rsmi.c) and the stub amd-smi
# (tests/stub_amdsmi.c) both serve, at 480 W each. rocm-smi comes first in the
# registry, so it is the figures' source; amd-smi is the second reading.
# Agreeing: every test records both sources' power and a ratio of 1, and the
# report has no power-check cause. STUB_AMDSMI_SCALE=1,1.25 (amd-smi reads 25 %
# high on rank 1 only): a power-check WARN on rank 1's every test, naming
# both sources and their watts, none on rank 0. Both ranks 25 % high: the
# SKU's way of reading, said once in the header, no GPU flagged.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
cat >"$work/deck.yaml" <<YAML
power:
  period_ms: 10
  sources: [rsmi, amdsmi]
tests:
  - {name: pw-valu, kernel: valu, dtype: fp64, iterations: 200000, repetitions: 4}
  - {name: pw-triad, kernel: memory, op: triad, bytes: 4MiB, repetitions: 4, sweeps: 20}
YAML
export MCFLEET_RSMI_LIB="$builddir/tests/libstub_rsmi.so" MCFLEET_AMDSMI_LIB="$builddir/tests/libstub_amdsmi.so"
export MCFLEET_HOST_PCI_BUS_ID=0000:c1:00.0

mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/ok.h5"
expect_rc 0
export STUB_AMDSMI_SCALE=1,1.25
mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/one.h5"
expect_rc 0
export STUB_AMDSMI_SCALE=1.25
mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/sku.h5"
expect_rc 0
unset STUB_AMDSMI_SCALE

"$PYTHON_H5" - "$work/ok.h5" "$work/one.h5" <<'PY' || fail "both sources' power in the file"
import sys, h5py, numpy as np
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
for path, scale in ((sys.argv[1], (1.0, 1.0)), (sys.argv[2], (1.0, 1.25))):
    with h5py.File(path, "r") as h:
        assert [s(x) for x in h["/power/rsmi/status"][:]] == ["on", "on"], h["/power/rsmi/status"][:]
        assert [s(x) for x in h["/power/amdsmi/status"][:]] == ["on", "on"], h["/power/amdsmi/status"][:]
        assert [s(x) for x in h["/power/primary_source"][:]] == ["rsmi", "rsmi"], h["/power/primary_source"][:]
        for t in ("pw-valu", "pw-triad"):
            g = h["/results/" + t]
            d = g["source_avg_power_w"]
            names = s(d.attrs["sources"]).split(",")
            assert names[:3] == ["nvml", "rsmi", "amdsmi"] and d.shape == (2, len(names)), (names, d.shape)
            w = d[:]
            main = np.array(g["test_avg_power_w"]).reshape(2)
            assert np.all(w[:, 1] == main), (t, "the primary's column is the figures'", w, main)
            assert np.all(np.isnan(w[:, [i for i, n in enumerate(names) if n not in ("rsmi", "amdsmi")]])), (t, w)
            q = np.array(g["test_power_ratio"]).reshape(2)
            # both stubs count energy per read under the same stamps: the ratio is the scale
            assert np.allclose(q, scale, rtol=1e-6), (t, path, q, w)
            assert np.allclose(w[:, 2] / w[:, 1], scale, rtol=1e-6), (t, w)
            assert [s(x) for x in g["test_power_ratio_source"][:]] == ["amdsmi", "amdsmi"], g["test_power_ratio_source"][:]
print("both sources recorded, ratios as scripted")
PY

for r in ok one sku; do
    "$MCFLEET" report --format json "$work/$r.h5" >"$work/$r.json" 2>"$work/$r.err"
    echo "$?" >"$work/$r.rc"
    "$MCFLEET" report "$work/$r.h5" >"$work/$r.txt" 2>&1
done
"$PYTHON_H5" - "$work" <<'PY' || fail "power-check causes (reports in $work)"
import sys, json, re
w = sys.argv[1]
def causes(name):
    d = json.load(open(f"{w}/{name}.json"))
    return {g["rank"]: [c for c in g["causes"] if c.get("rule") == "power-check"] for g in d["gpus"]}
for name in ("ok", "sku"):
    c = causes(name)
    assert all(not v for v in c.values()), (name, c)
    assert open(f"{w}/{name}.rc").read().strip() == "0", name
c = causes("one")
assert not c[0], ("rank 0 agrees", c[0])
assert sorted(x["test"] for x in c[1]) == ["pw-triad", "pw-valu"], ("one WARN per test on rank 1", c[1])
for x in c[1]:
    assert x["level"] == "WARN", x
    t = x["text"]
    # the watts are the counters' over the window (the stubs count energy per read)
    assert re.search(r"amdsmi reads (\d+) W where rsmi, the figures' source, reads (\d+) W \(\+25\.0%", t), t
print("power-check:", [x["test"] for x in c[1]])
PY
expect_in "$work/one.txt" "power-check"
expect_in "$work/ok.txt" "power figures: rsmi on 2 of 2 GPUs"
expect_in "$work/sku.txt" "the two power sources differ the same way on 2 of 2 GPUs on 2 tests (pw-valu, pw-triad), median ratio 1.250:"
grep -q "power-check" "$work/ok.txt" && fail "a power-check in the agreeing run's report"
# malformed: a ratio that is no ratio of two powers, a ratio with no source named
for case in negative unnamed; do
    cp "$work/one.h5" "$work/$case.h5"
    "$PYTHON_H5" - "$work/$case.h5" "$case" <<'PY' || fail "editing $case"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as h:
    g = h["/results/pw-valu"]
    if sys.argv[2] == "negative":
        g["test_power_ratio"][1] = -1.0
    else:
        g["test_power_ratio_source"][1] = b""
PY
    rc=0; "$MCFLEET" report "$work/$case.h5" >"$work/$case.txt" 2>&1 || rc=$?
    [ $rc = 2 ] || { cat "$work/$case.txt"; fail "$case: report exit $rc, expected 2 (malformed)"; }
done
expect_in "$work/negative.txt" "/results/pw-valu/test_power_ratio: rank 1: -1 is not a ratio of two powers"
expect_in "$work/unnamed.txt" "/results/pw-valu/test_power_ratio_source: empty where rank 1 has a ratio"
exit 0
