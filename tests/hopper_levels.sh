#!/bin/sh
# The memory family's Hopper levels, tma and dsm (src/family_hopper.c; the
# deck's refusals of their keys are tests/test_deck_hopper.c's):
# 1. a refusal stops the run with exit 2, naming the test and the key;
# 2. input/hopper.yaml parses, every sweep point expanded;
# 3. the host backend reports them unsupported with the reason (not a
#    failure: exit 0), the results file records status -1 and the message,
#    and an older memory test's "measured" text is what it was before the
#    new keys (none of them in it).
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py

# 1. one refusal end to end
printf 'name: d\ntests:\n  - {name: hop, kernel: memory, level: hbm, cluster: 4}\n' > "$work/d.yaml"
rc=0
"$MCFLEET" --list --deck "$work/d.yaml" >"$work/out" 2>"$work/err" || rc=$?
expect_rc 2
expect_in "$work/err" "d.yaml:3:5: test 'hop': 'cluster' needs 'level: dsm'"

# 2. the deck of these levels
rc=0
"$MCFLEET" --list --deck "$srcdir/input/hopper.yaml" >"$work/out" 2>"$work/err" || rc=$?
expect_rc 0
expect_in "$work/out" "12 tests, 32 instances"
expect_in "$work/out" "dsm-broadcast:cluster=16"
expect_in "$work/out" "memory tma tensor-2d 16384 B throughput fp32 1073741824 B x2/SM"

# 3. the host backend: unsupported, with the reason, recorded as such
cat > "$work/h.yaml" <<'DECK'
name: hopper-on-host
tests:
  - {name: tma-bulk, kernel: memory, level: tma, dtype: fp32, bytes: 1MiB, load: 4KiB, ctas: 2}
  - {name: tma-lat, kernel: memory, level: tma, mode: latency, load: 16, bytes: 1MiB}
  - {name: dsm-ring, kernel: memory, level: dsm, cluster: 4, pattern: ring}
  - {name: dsm-lat, kernel: memory, level: dsm, mode: latency, cluster: 16}
  - {name: hbm-read, kernel: memory, level: hbm, op: read, bytes: 1MiB, repetitions: 2, warmup: 0}
DECK
mpi 1 --backend host --deck "$work/h.yaml" -o "$work/h.h5"
expect_rc 0
expect_in "$work/out" "5 tests: 1 verified on every rank, 4 unsupported, 0 failed verification, 0 with errors"
expect_in "$work/out" "tma-bulk: unsupported on 1 of 1 ranks (rank 0: level tma is NVIDIA Hopper's Tensor Memory Accelerator: a CPU has none)"
expect_in "$work/out" "dsm-lat: unsupported on 1 of 1 ranks (rank 0: level dsm is NVIDIA Hopper's distributed shared memory"
schema "$work/h.h5" 1
"${PYTHON_H5:-/usr/bin/python3}" - "$work/h.h5" <<'PY' || fail "results file"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
def text(v): return v.decode() if isinstance(v, bytes) else str(v)
for t, level in (("tma-bulk", "tma"), ("tma-lat", "tma"), ("dsm-ring", "dsm"), ("dsm-lat", "dsm")):
    g = f["/results/" + t]
    assert list(g["status"][()]) == [-1], (t, g["status"][()])
    msg = text(g["message"][0])
    assert "level %s is NVIDIA Hopper's" % level in msg, (t, msg)
    assert text(g.attrs["level"]) == level, t
assert "level=dsm" in text(f["/results/dsm-ring"].attrs["measured"])
assert "cluster=4" in text(f["/results/dsm-ring"].attrs["measured"])
assert "mode=latency" in text(f["/results/dsm-lat"].attrs["measured"])
# an older kind of memory test: none of the new keys in what it measured
m = text(f["/results/hbm-read"].attrs["measured"])
assert m == "kernel=memory dtype=fp64 level=hbm op=read bytes=1048576 intensity=1 occupancy=0 inputs=random", m
assert list(f["/results/hbm-read/status"][()]) == [1]
PY
echo "hopper levels ok"
