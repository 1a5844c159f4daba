#!/bin/sh
# The links between GPUs, end to end: the host backend's ranks read their
# health counters from the stub NVML (MCFLEET_INJECT_HEALTH_BUS, testing
# only), /health carries the NVLink counters, and `mcfleet report` judges
# them: one rank with a link down FAILs with "NVLink down: 17 of 18" and the
# evidence, its healthy peer has no link cause; error counters that grew
# during the run WARN with the counts (replays, CRC) or FAIL (recoveries);
# a healthy stub gives no link cause at all. The JSON carries the metric,
# value and reference, the CSV the text, each with the technician's step.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
PY=${PYTHON_H5:-/usr/bin/python3}

cat >"$work/deck.yaml" <<YAML
defaults:
  repetitions: 2
  warmup: 1
tests:
  - {name: mm, kernel: matrix, dtype: fp64, shape: [8, 8, 4], iterations: 2000}
YAML
export MCFLEET_INJECT_HEALTH_BUS=0000:00:06.0 MCFLEET_NVML_LIB="$builddir/tests/libstub_nvml.so"
export MCFLEET_RSMI_LIB=/nonexistent/librocm_smi64.so MCFLEET_AMDSMI_LIB=/nonexistent/libamd_smi.so
export STUB_NVML_NVLINKS=18

# run NAME STUB_WORDS DOWN_PER_RANK: $work/NAME.h5, its JSON and CSV reports
run() {
    STUB_NVML=$2 STUB_NVML_NVLINK_DOWN=$3 mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/$1.h5"
    expect_rc 0
    rrc=0
    "$MCFLEET" report "$work/$1.h5" --format json >"$work/$1.json" 2>"$work/$1.err" || rrc=$?
    "$MCFLEET" report "$work/$1.h5" --format csv >"$work/$1.csv" 2>>"$work/$1.err" || true
    "$MCFLEET" report "$work/$1.h5" >"$work/$1.txt" 2>>"$work/$1.err" || true
}

# rank 1 has its last link down; no counter grows
run down ok 0,1
[ "$rrc" = 1 ] || { cat "$work/down.json" "$work/down.err"; fail "a link down: report exit $rrc, expected 1"; }
"$PY" - "$work/down.h5" "$work/down.json" "$work/down.csv" <<'PY' || fail "a link down"
import csv, json, sys, h5py
f = h5py.File(sys.argv[1], "r")
h = f["health"]
assert list(h["nvlink_links"][:, 0]) == [18, 18] and list(h["nvlink_active"][:, 1]) == [18, 17], \
    (h["nvlink_links"][:], h["nvlink_active"][:])
assert list(h["nvlink_replay_errors"][0]) == [54, 54], h["nvlink_replay_errors"][:]   # 18 links x 3, unchanged
assert (h["xgmi_error_status"][:] == -1).all()
assert all(x.decode().startswith("nvml (testing: MCFLEET_INJECT_HEALTH_BUS=0000:00:06.0)") for x in h["source"][:]), h["source"][:]
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
assert s(h.attrs["counters"]).split(",")[-7:] == ["nvlink_links", "nvlink_active", "nvlink_replay_errors",
    "nvlink_recovery_errors", "nvlink_crc_flit_errors", "nvlink_crc_data_errors", "xgmi_error_status"]
d = json.load(open(sys.argv[2]))
g = {x["rank"]: x for x in d["gpus"]}
assert g[1]["verdict"] == "FAIL", g[1]
c = [c for c in g[1]["causes"] if c["metric"] == "nvlink_active"]
assert len(c) == 1 and c[0]["rule"] == "health" and c[0]["level"] == "FAIL", g[1]["causes"]
assert c[0]["value"] == 17 and c[0]["reference"] == 18, c[0]
assert c[0]["text"].startswith("NVLink down: 17 of 18 links active"), c[0]["text"]
assert "(17 up before the run, 17 after; the GPU has 18)" in c[0]["text"], c[0]["text"]
assert "NVLink bridge" in c[0]["next"] and "field diag" in c[0]["next"], c[0]["next"]
assert not [c for c in g[0]["causes"] if c["metric"].startswith("nvlink")], g[0]["causes"]
rows = {int(r["rank"]): r for r in csv.DictReader(open(sys.argv[3]))}
assert "NVLink down: 17 of 18" in rows[1]["causes"] and "NVLink" not in rows[0]["causes"], rows
PY
grep -q "NVLink down: 17 of 18 links active" "$work/down.txt" || { cat "$work/down.txt"; fail "text report"; }

# every link up; link 0's replay and CRC counters grow during the run: WARN with the counts
run errs nvlink-errors 0
"$PY" - "$work/errs.json" <<'PY' || fail "NVLink errors during the run"
import json, sys
d = json.load(open(sys.argv[1]))
for x in d["gpus"]:
    c = [c for c in x["causes"] if c["metric"].startswith("nvlink")]
    assert len(c) == 1 and c[0]["level"] == "WARN" and c[0]["metric"] == "nvlink_replay_errors", x["causes"]
    assert c[0]["value"] == 40, c[0]   # the replays; CRC errors without one are a note
    assert "replay +40, recovery +0, CRC flit +25, CRC data +5" in c[0]["text"], c[0]["text"]
    assert "keep growing" in c[0]["next"], c[0]["next"]
PY
# recoveries too: FAIL
run recov nvlink-errors,nvlink-recovery 0
[ "$rrc" = 1 ] || { cat "$work/recov.json"; fail "recovery errors: report exit $rrc, expected 1"; }
"$PY" - "$work/recov.json" <<'PY' || fail "NVLink recovery errors"
import json, sys
d = json.load(open(sys.argv[1]))
for x in d["gpus"]:
    c = [c for c in x["causes"] if c["metric"].startswith("nvlink")]
    assert len(c) == 1 and c[0]["level"] == "FAIL" and c[0]["metric"] == "nvlink_recovery_errors", x["causes"]
    assert x["verdict"] == "FAIL" and "recovery +1" in c[0]["text"], c[0]["text"]
PY

# healthy: no link cause on any GPU
run ok ok 0
"$PY" - "$work/ok.json" <<'PY' || fail "a healthy stub"
import json, sys
d = json.load(open(sys.argv[1]))
for x in d["gpus"]:
    bad = [c for c in x["causes"] if c["metric"].startswith(("nvlink", "xgmi")) or "NVLink" in c["text"]]
    assert not bad, bad
PY
# an older file, without the link counters: read as before, no link cause
cp "$work/down.h5" "$work/old.h5"
"$PY" - "$work/old.h5" <<'PY' || fail "making an older file"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    for k in ["nvlink_links", "nvlink_active", "nvlink_replay_errors", "nvlink_recovery_errors",
              "nvlink_crc_flit_errors", "nvlink_crc_data_errors", "xgmi_error_status"]:
        del f["health"][k]
PY
rrc=0
"$MCFLEET" report "$work/old.h5" --format json >"$work/old.json" 2>"$work/old.err" || rrc=$?
[ "$rrc" = 0 ] || { cat "$work/old.json" "$work/old.err"; fail "an older file: report exit $rrc, expected 0"; }
"$PY" - "$work/old.json" <<'PY' || fail "an older file"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] in ("PASS", "WARN"), d["verdict"]
assert not [c for x in d["gpus"] for c in x["causes"] if "NVLink" in c["text"]]
PY
echo "link health ok"
