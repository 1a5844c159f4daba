#!/bin/sh
# The whole power path on any machine: a simulated Cray node (tests/pmc_node.py)
# as the power source; the run must find its 300 W, energies consistent with
# it, its 50 ms cadence, and windows long enough not to be flagged.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
cat >"$work/deck.yaml" <<YAML
power:
  period_ms: 10
  sources: [craypm]
defaults:
  repetitions: 4
  warmup: 1
tests:
  - name: chase
    kernel: latency
    working_set: 16MiB
    iterations: 4000000
  - {name: mm, kernel: matrix, dtype: fp64, shape: [8, 8, 4], occupancy: [1, 2], iterations: 100000, repetitions: 3}
  - {name: mm-zero, kernel: matrix, dtype: fp64, shape: [8, 8, 4], occupancy: [1, 2], iterations: 100000, repetitions: 3, inputs: zero}
YAML
"$PYTHON_H5" "$srcdir/tests/pmc_node.py" "$work/pmc" 600 300 &   # killed when the run ends; 600 s outlives a slow (sanitizer) run
node=$!
trap 'kill $node 2>/dev/null; rm -rf "$work"' EXIT
sleep 0.5
MCFLEET_CRAYPM_ROOT="$work/pmc" MCFLEET_CRAYPM_ACCEL=0 mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/p.h5"
kill $node 2>/dev/null
expect_rc 0
expect_in "$work/out" "chase test_avg_power_w"
"$PYTHON_H5" - "$work/p.h5" <<'PY' || fail "power figures"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
p = f["power/craypm"]
assert [s(x) for x in p["status"][:]] == ["on", "on"], p["status"][:]
assert int(f["power"].attrs["per_test_figures"]) == 1
assert [s(x) for x in f["power/nvml/status"][:]][0].startswith("off: not among the deck"), f["power/nvml/status"][:]
cad = p["cadence_s"][:]
assert np.all(np.abs(cad - 0.05) < 0.02), cad
idle = p["idle_power_w"][:]
assert np.all(np.abs(idle - 300) < 3), idle             # 1%: whole joules over a 2 s window
n = p["count"][:]
assert p["t_s"].shape[0] == n.sum() and p["power_w"].shape[0] == n.sum() and n.min() > 50, n
assert p["throttle_reasons"].shape[0] == n.sum() and p["source_t_s"].shape[0] == n.sum()
g = f["results/chase"]
w, e = g["avg_power_w"][:], g["energy_j"][:]
dur = g["rep_end_s"][:] - g["rep_start_s"][:]
assert np.all(np.abs(w - 300) < 9), w                    # 3%: the counter, whole joules, 0.3 s windows
assert np.all(np.abs(e - 300 * dur) < 0.05 * 300 * dur + 2), (e, dur)
assert np.all(g["power_under_sampled"][:] == 0), g["power_under_sampled"][:]
assert np.all(g["power_samples"][:] >= 3), g["power_samples"][:]
pm = f["power_model"]
assert sorted(pm.keys()) == ["fp64", "fp64-zero"], list(pm.keys())
assert s(pm["fp64-zero"].attrs["inputs"]) == "zero" and list(pm["fp64"]["points"][:]) == [2, 2], pm["fp64"]["points"][:]
nd = f["power/craypm_node"]
st = [s(x) for x in nd["status"][:]]
assert st[0] == "on" and st[1] == "off: node counters are read by local rank 0", st
assert nd["count"][1] == 0 and abs(nd["idle_power_w"][0] - 550) < 6, (nd["count"][:], nd["idle_power_w"][:])
print("power ok: %.1f W, windows %.2f-%.2f s, cadence %.3f s" % (np.median(w), dur.min(), dur.max(), np.median(cad)))
PY

# `power: series: false` (fleet scale): no samples in the file, the same figures
sed 's/^  sources: \[craypm\]$/  sources: [craypm]\n  series: false/' "$work/deck.yaml" >"$work/deck2.yaml"
grep -q "series: false" "$work/deck2.yaml" || fail "test setup: the deck edit"
"$PYTHON_H5" "$srcdir/tests/pmc_node.py" "$work/pmc" 600 300 &   # killed when the run ends; 600 s outlives a slow (sanitizer) run
node=$!
sleep 0.5
MCFLEET_CRAYPM_ROOT="$work/pmc" MCFLEET_CRAYPM_ACCEL=0 mpi 2 --backend host --deck "$work/deck2.yaml" -o "$work/q.h5"
kill $node 2>/dev/null
expect_rc 0
"$PYTHON_H5" - "$work/q.h5" <<'PY' || fail "power: series: false"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
p = f["power/craypm"]
assert int(p.attrs["series_kept"]) == 0
assert p["count"][:].min() > 50, p["count"][:]                 # sampled all the same
assert p["t_s"].shape[0] == 0 and p["power_w"].shape[0] == 0   # but not kept
w = f["results/chase/avg_power_w"][:]
assert np.all(np.abs(w - 300) < 9), w                          # the figures are still there
assert abs(np.median(p["idle_power_w"][:]) - 300) < 3
assert int(f["power/nvml"].attrs["series_kept"]) == 0
PY
echo "power craypm ok"
