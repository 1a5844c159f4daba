#!/bin/sh
# The clock check (issue 12) end to end through the host backend: every test
# records the in-kernel clock beside the power source's SM clock, per
# repetition, and the report flags a test whose two clocks part by more than
# 2 %. The host has no in-kernel clock, so one is injected
# (MCFLEET_INJECT_CLOCK_MHZ); the power source is NVML, the stub library
# (tests/stub_nvml.c, whose SM clock reads 1980 MHz). Injected 1990 (+0.5 %):
# no flag. Injected 2100 (+6.1 %): a clock-check WARN on every test, naming
# both clocks, and the injection recorded in the file. On 3 ranks, the
# disagreement of a whole SKU against one GPU's, where rank 1's GPU also
# holds another process (the stub's process count, STUB_NVML_PROCS; the
# three host ranks share one device, so 3 is mcfleet alone): its evidence
# names it. A bad value stops the run before any test, exit 2,
# naming the variable.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
cat >"$work/deck.yaml" <<YAML
power:
  period_ms: 10
  sources: [nvml]
tests:
  - {name: clk-valu, kernel: valu, dtype: fp64, iterations: 200000, repetitions: 4}
  - {name: clk-triad, kernel: memory, op: triad, bytes: 4MiB, repetitions: 4, sweeps: 20}
YAML
# the host rank stands for a PCI GPU, which the stub NVML then serves
export MCFLEET_NVML_LIB="$builddir/tests/libstub_nvml.so" MCFLEET_HOST_PCI_BUS_ID=0000:00:06.0

# (exported, not prefixed: a prefix to a shell function may not reach mpirun)
export MCFLEET_INJECT_CLOCK_MHZ=1990
mpi 1 --backend host --deck "$work/deck.yaml" -o "$work/ok.h5"
expect_rc 0
export MCFLEET_INJECT_CLOCK_MHZ=2100
mpi 1 --backend host --deck "$work/deck.yaml" -o "$work/off.h5"
expect_rc 0
unset MCFLEET_INJECT_CLOCK_MHZ

"$PYTHON_H5" - "$work/ok.h5" "$work/off.h5" <<'PY' || fail "the two clocks in the file"
import sys, h5py, numpy as np
for path, want in ((sys.argv[1], 1990.0), (sys.argv[2], 2100.0)):
    with h5py.File(path, "r") as h:
        inj = h["/meta"].attrs["injected_clock_mhz"]
        inj = inj.decode() if isinstance(inj, bytes) else inj
        assert inj == str(int(want)), ("injection not recorded", path, inj)
        for t in ("clk-valu", "clk-triad"):
            g = h["/results/" + t]
            k = np.array(g["clock_mhz"])[0]
            s = np.array(g["source_sm_mhz"])[0]
            q = np.array(g["clock_ratio"])[0]
            assert k.shape == s.shape == q.shape == (4,), (t, k.shape, s.shape, q.shape)
            assert np.all(k == want), (t, "in-kernel clock", k)
            assert np.all(s == 1980.0), (t, "the stub's SM clock per repetition", s)
            assert np.allclose(q, want / 1980.0), (t, "ratio", q)
            assert abs(float(np.array(g["test_clock_ratio"])[0]) - want / 1980.0) < 1e-12, t
print("clocks recorded per repetition")
PY

# the report: no clock cause at +0.5 %; a clock-check WARN per test at +6 %
"$MCFLEET" report --format json "$work/ok.h5" >"$work/ok.json" 2>"$work/ok.err" || fail "report of the agreeing run: exit $?"
"$MCFLEET" report "$work/off.h5" >"$work/off.txt" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "report of the disagreeing run: exit $rc (a WARN is exit 0)"
"$MCFLEET" report --format json "$work/off.h5" >"$work/off.json" 2>/dev/null
"$PYTHON_H5" - "$work/ok.json" "$work/off.json" <<'PY' || fail "clock-check causes (json above)"
import sys, json
def causes(p):
    d = json.load(open(p))
    out = []
    def walk(x):
        if isinstance(x, dict):
            if x.get("rule") == "clock-check":
                out.append(x)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(d)
    return d, out
_, ok = causes(sys.argv[1])
assert not ok, ("flagged a 0.5 % difference", ok)
d, off = causes(sys.argv[2])
tests = sorted({c.get("test") for c in off})
assert tests == ["clk-triad", "clk-valu"], ("a clock-check cause per test", off)
assert all(c.get("level") == "WARN" for c in off), off
print("clock-check:", tests)
PY
expect_in "$work/off.txt" "clock-check"
expect_in "$work/off.txt" "2100 MHz and the power source's 1980 MHz"

# A whole SKU parting its clocks the same way (an H200 at its power limit) is
# said once for the fleet, not flagged on every GPU; a GPU unlike its peers
# is. Three ranks at +6 %: no per-GPU cause, one fleet line per test. Then
# the same file with rank 1's ratio set back to 1990/1980 (h5py, a copy):
# rank 1 alone is flagged, against its SKU's median ratio.
export MCFLEET_INJECT_CLOCK_MHZ=2100 STUB_NVML_PROCS=3,4,3
mpi 3 --backend host --deck "$work/deck.yaml" -o "$work/sku.h5"
expect_rc 0
unset MCFLEET_INJECT_CLOCK_MHZ STUB_NVML_PROCS
# (exit 0 or 1: three host ranks sharing two loaded cores may differ enough
# for the peer rules to flag a figure; only the clock causes are tested here)
rc=0; "$MCFLEET" report "$work/sku.h5" >"$work/sku.txt" 2>&1 || rc=$?
[ $rc -le 1 ] || { cat "$work/sku.txt"; fail "report of the SKU-wide run: exit $rc"; }
"$MCFLEET" report --format json "$work/sku.h5" >"$work/sku.json" 2>/dev/null
# one header line for the SKU, naming both tests (not a line per test); rank
# 1's GPU, which another job shared, is no reference: 2 of the 2 others
expect_in "$work/sku.txt" "the in-kernel and the power source's SM clocks differ the same way on 2 of 2 GPUs on 2 tests (clk-valu, clk-triad), median ratio 1.061:"
[ "$(grep -c "SM clocks differ the same way" "$work/sku.txt")" = 1 ] || fail "one SKU line for the clock check"
cp "$work/sku.h5" "$work/odd.h5"
"$PYTHON_H5" - "$work/odd.h5" <<'PY' || fail "editing the copy"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as h:
    for t in ("clk-valu", "clk-triad"):
        h["/results/%s/test_clock_ratio" % t][1] = 1990.0 / 1980.0
PY
"$MCFLEET" report --format json "$work/odd.h5" >"$work/odd.json" 2>/dev/null
"$MCFLEET" report "$work/odd.h5" >"$work/odd.txt" 2>&1
"$PYTHON_H5" - "$work/sku.json" "$work/odd.json" <<'PY' || fail "clock-check against the SKU (json above)"
import sys, json
def causes(p):
    out = []
    def walk(x, rank=None):
        if isinstance(x, dict):
            rank = x.get("world_rank", x.get("rank", rank))
            if x.get("rule") == "clock-check":
                out.append((x.get("rank", rank), x.get("test"), x.get("reference")))
            for v in x.values():
                walk(v, rank)
        elif isinstance(x, list):
            for v in x:
                walk(v, rank)
    walk(json.load(open(p)))
    return out
assert causes(sys.argv[1]) == [], ("a SKU-wide disagreement flagged per GPU", causes(sys.argv[1]))
odd = causes(sys.argv[2])
assert sorted(t for _, t, _ in odd) == ["clk-triad", "clk-valu"], odd
assert {r for r, _, _ in odd} == {1}, ("only rank 1 is unlike its peers", odd)
assert all(abs(ref - 2100.0 / 1980.0) < 1e-9 for _, _, ref in odd), ("reference: the SKU's median ratio", odd)
print("clock-check against the SKU:", odd)
PY
expect_in "$work/odd.txt" "from its SKU's median ratio 1.061"
# the evidence of the flagged GPU: the processes on it, against its peers'
"$PYTHON_H5" - "$work/sku.h5" <<'PY' || fail "test_gpu_procs_max"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as h:
    for t in ("clk-valu", "clk-triad"):
        d = h["/results/%s/test_gpu_procs_max" % t]
        assert list(d[:]) == [3.0, 4.0, 3.0], (t, d[:])
PY
expect_in "$work/odd.txt" "ANOTHER JOB ON THE GPU: 1 compute process not mcfleet's (4 in all; fleet median 3)"
expect_in "$work/odd.txt" "[environment: another job on the GPU]"

export MCFLEET_INJECT_CLOCK_MHZ=fast
mpi 1 --backend host --deck "$work/deck.yaml" -o "$work/bad.h5"
unset MCFLEET_INJECT_CLOCK_MHZ
expect_rc 2
cat "$work/out" "$work/err" >"$work/both"
expect_in "$work/both" "MCFLEET_INJECT_CLOCK_MHZ='fast'"
[ ! -e "$work/bad.h5" ] || fail "a rejected injection left a results file"
echo "PASS"
