#!/bin/sh
# The host's streams figures are judged only where each rank's stream threads
# have CPUs of their own: where a node's ranks run more of them together than
# it has CPUs, a rank's speedup is what its neighbours ran beside it (3 host
# ranks on 2 cores: one rank 10-20% below the others, run after run), so the
# run records them with better = none and the attribute not_judged
# (runner.c, mark_shared_cores). 2 ranks here: 2 x 16 streams outnumber the
# CPUs of any machine with fewer than 32; 1 stream each, of any with 2 or more.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
cat >"$work/d.yaml" <<'YAML'
tests:
  - {name: s, kernel: streams, streams: [1, 16], bytes: 1MiB, repetitions: 2, warmup: 0}
YAML
mpi 2 --backend host --power off --deck "$work/d.yaml" -o "$work/s.h5"
expect_rc 0
cpus=$(getconf _NPROCESSORS_ONLN)
"$PYTHON_H5" - "$work/s.h5" "$cpus" <<'PY' || fail "the streams tests' judgement does not follow the node's CPUs"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
cpus = int(sys.argv[2])
s = lambda v: v.decode() if isinstance(v, bytes) else str(v)
for streams in (1, 16):
    g = f["results/s:streams=%d" % streams]
    shared = 2 * streams > cpus
    better = s(g["speedup"].attrs["better"])
    assert ("not_judged" in g.attrs) == shared, (streams, cpus, dict(g.attrs))
    assert better == ("none" if shared else "higher"), (streams, cpus, better)
    assert s(g["fairness"].attrs["better"]) == "none"
print("streams judged as the CPUs allow: %d CPUs, 2 ranks" % cpus)
PY
"$MCFLEET" report "$work/s.h5" >"$work/report" 2>&1 || true
expect_in "$work/report" "s:streams=16 speedup"
echo PASS
