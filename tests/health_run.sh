#!/bin/sh
# The health counters and the per-test evidence end to end, on the host
# backend (no GPU, no vendor library): /health exists in both write modes
# with every counter -1 and the reason in /health/source, /ranks/device_serial
# is there (empty); a run stopped by SIGTERM still writes /health; with a
# power source on (a simulated Cray node) every test carries test_sm_mhz,
# test_temp_c_max, test_throttle_reasons and test_gpu_procs_max, unknown
# (NaN) where the source reads no clock, temperature, throttle reasons or
# process list.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py

check() {   # check FILE NRANKS: the /health layout of a run without a GPU
    "$PYTHON_H5" - "$1" "$2" <<'PY' || fail "/health in $1"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
n = int(sys.argv[2])
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
names = ["ecc_corrected_volatile", "ecc_uncorrected_volatile", "ecc_corrected_aggregate",
         "ecc_uncorrected_aggregate", "remapped_rows_corrected", "remapped_rows_uncorrected", "remap_pending",
         "remap_failed", "retired_pages", "retired_pages_pending", "pcie_gen", "pcie_gen_max", "pcie_width",
         "pcie_width_max", "nvlink_links", "nvlink_active", "nvlink_replay_errors", "nvlink_recovery_errors",
         "nvlink_crc_flit_errors", "nvlink_crc_data_errors", "xgmi_error_status"]
h = f["health"]
assert s(h.attrs["counters"]).split(",") == names, h.attrs["counters"]
for c in names:
    d = h[c]
    assert d.dtype == np.int64 and d.shape == (n, 2), (c, d.dtype, d.shape)
    assert (d[:] == -1).all(), (c, d[:])
for c in ["pcie_gen_busy", "pcie_width_busy"]:
    assert h[c].dtype == np.int64 and h[c].shape == (n,) and (h[c][:] == -1).all(), (c, h[c][:])
src = [s(x) for x in h["source"][:]]
assert all(x == "off: this rank's device is not a PCI GPU (pci_bus_id 'none')" for x in src), src
assert h["notes"].shape == (n,)
assert [s(x) for x in f["ranks/device_serial"][:]] == [""] * n, f["ranks/device_serial"][:]
PY
}

mpi 2 --backend host --hdf5-mode gather --deck "$srcdir/tests/decks/tiny.yaml" -o "$work/g.h5"
expect_rc 0
check "$work/g.h5" 2
mpi 3 --backend host --hdf5-mode collective --deck "$srcdir/tests/decks/tiny.yaml" -o "$work/c.h5"
if [ "$rc" = 0 ]; then
    check "$work/c.h5" 3
elif grep -q "parallel" "$work/err"; then
    echo "collective mode: skipped (serial HDF5)"
else
    expect_rc 0
fi

# stopped mid-run: the before-snapshot and what the after-reading could give
launch 2 slow-chase --backend host --deck "$srcdir/tests/decks/slow.yaml" -o "$work/t.h5"
sleep 1
kill -TERM $pid
await SIGTERM
[ -e "$work/t.h5" ] || { cat "$work/out"; fail "SIGTERM: no results file"; }
check "$work/t.h5" 2

# per-test evidence beside the power figures
cat >"$work/deck.yaml" <<YAML
power:
  period_ms: 10
  sources: [craypm]
defaults:
  repetitions: 3
  warmup: 1
tests:
  - {name: mm, kernel: matrix, dtype: fp64, shape: [8, 8, 4], iterations: 100000}
  - {name: mm16, kernel: matrix, dtype: fp16, shape: [16, 8, 16], iterations: 1000}
YAML
"$PYTHON_H5" "$srcdir/tests/pmc_node.py" "$work/pmc" 600 300 &
node=$!
trap 'kill $node 2>/dev/null; rm -rf "$work"' EXIT
sleep 0.5
MCFLEET_CRAYPM_ROOT="$work/pmc" MCFLEET_CRAYPM_ACCEL=0 mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/p.h5"
kill $node 2>/dev/null
expect_rc 0
"$PYTHON_H5" - "$work/p.h5" <<'PY' || fail "per-test evidence"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
assert int(f["power"].attrs["per_test_figures"]) == 1
for t in ["mm", "mm16"]:   # mm16 is unsupported on the host: the datasets are there all the same
    g = f["results/" + t]
    for d, unit in [("test_sm_mhz", "MHz"), ("test_temp_c_max", "degC"),
                    ("test_throttle_reasons", "NVML clock-event reason bit mask"),
                    ("test_gpu_procs_max", "processes")]:
        x = g[d]
        assert x.dtype == np.float64 and x.shape == (2,), (t, d, x.dtype, x.shape)
        u = x.attrs["unit"]
        assert (u.decode() if isinstance(u, bytes) else u) == unit, (t, d, u)
        assert np.isnan(x[:]).all(), (t, d, x[:])   # pm_counters read no clock, temperature or reasons
assert np.isfinite(f["results/mm/test_avg_power_w"][:]).all()
PY
echo "health ok"
