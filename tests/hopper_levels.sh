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
# every point of a sweep passes the family's rules, not only the first (a
# pair at cluster 3 would read a CTA that does not exist; a 2D box of 272
# bytes would copy 256 and count 272)
printf 'tests:\n  - { name: x, kernel: memory, level: dsm, pattern: pair, cluster: [2, 3, 4] }\n' >"$work/sw1.yaml"
mpi 1 --backend host --deck "$work/sw1.yaml" -o "$work/sw1.h5"
expect_rc 2
expect_in "$work/err" "test 'x': 'pattern: pair' needs an even 'cluster' (not 3) (the sweep's point cluster=3)"
printf 'tests:\n  - { name: z, kernel: memory, level: tma, tma: tensor-2d, load: [256, 272] }\n' >"$work/sw2.yaml"
mpi 1 --backend host --deck "$work/sw2.yaml" -o "$work/sw2.h5"
expect_rc 2
expect_in "$work/err" "(the sweep's point load=272)"
# 'auto' as a sweep point at level dsm is one CTA's 16 KiB, as the single value
printf 'tests:\n  - { name: y, kernel: memory, level: dsm, bytes: [8192, auto] }\n' >"$work/sw3.yaml"
"$MCFLEET" --deck "$work/sw3.yaml" --list -v >"$work/sw3" 2>&1 || true
[ "$(grep -c 'bytes=16384' "$work/sw3")" = 1 ] || { cat "$work/sw3"; fail "bytes: auto at level dsm in a sweep"; }
# a GPU's tma / dsm figures are no roofs: the roofline of a file with them is
# the other levels' (a host file whose HBM triad is relabelled tma stands in)
if "${PYTHON_H5:-/usr/bin/python3}" -c 'import matplotlib' 2>/dev/null; then
    printf 'tests:\n  - {name: fma, kernel: memory, level: l2, op: fma, intensity: [1, 4]}\n  - {name: triad, kernel: memory, level: hbm, op: triad, bytes: 8MiB}\n  - {name: tcopy, kernel: memory, level: hbm, op: read, bytes: 8MiB}\n' >"$work/r.yaml"
    mpi 1 --backend host --deck "$work/r.yaml" -o "$work/r.h5"
    expect_rc 0
    "${PYTHON_H5:-/usr/bin/python3}" - "$work/r.h5" <<'PY' || fail "relabelling a test"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    g = f["results"]["tcopy"]
    g.attrs["level"] = "tma"
PY
    "${PYTHON_H5:-/usr/bin/python3}" "$srcdir/analysis/mcfleet_plot.py" roofline "$work/r.h5" -o "$work/r.png" \
        >"$work/roof" 2>&1 || { cat "$work/roof"; fail "the roofline of a file with a tma test"; }
    expect_in "$work/roof" "(triad)"
    ! grep -q "tcopy" "$work/roof" || { cat "$work/roof"; fail "a tma test drawn as a roof"; }
fi
echo "hopper levels ok"
