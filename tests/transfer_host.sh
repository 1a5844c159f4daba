#!/bin/bash
# The transfer family through the host backend (issue 29), on 4 ranks of one
# node: every link but the network (one node: unsupported, saying why; the
# network runs across the test Slurm cluster in tests/slurm_launch.sh).
# 1. input/transfer.yaml --quick: host, peer and collective tests verified on
#    every rank; each rank's peer row has its own slot and the slots past the
#    node's ranks NaN, the others measured, and its judged figure is its
#    worst link; bus bandwidth is nccl-tests' factor times algbw.
# 2. a corrupted transfer is a wrong result on the rank that checked it, and
#    its figures are no timing; a collective's too.
# 3. a rank slowed in a collective (its run() is collective: the kernel
#    slows itself) ends in time, every rank verified.
# 4. keys of another link are refused, naming the test and key (exit 2).
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
cd "$work"

# ---- 1. every link on one node: the shipped deck's tests at 1 MiB (2 s a
#      test beside a CPU hog at --quick's 16 MiB: too long for the suite)
sed '/bytes:/!s/{name: \([^,]*\), kernel: transfer,/{name: \1, kernel: transfer, bytes: 1MiB,/; s/repetitions: 10/repetitions: 3/' \
    "$srcdir/input/transfer.yaml" >transfer.yaml
grep -q "bytes: 1MiB" transfer.yaml || fail "the deck was not made smaller"
mpi 4 --backend host --power off --quick --deck transfer.yaml -o all.h5
[ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat out err; fail "transfer deck: exit $rc"; }
"$PYTHON_H5" - all.h5 <<'PY' || { cat out; fail "transfer deck: the figures in the file"; }
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
res, local = f["results"], f["ranks"]["local_rank"][:]
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
for t in res:
    st = list(res[t]["status"][:])
    if t in ("host-in-remote", "network-bandwidth", "network-latency"):
        assert st == [-1] * 4, (t, st)   # unsupported, with the reason
        why = s(res[t]["message"][0])
        assert ("one node" in why) if t.startswith("network") else ("remote" in why), (t, why)
        continue
    assert st == [1] * 4, (t, st, [s(m) for m in res[t]["message"][:]])
for t in ("peer-out-copy", "peer-in-copy", "peer-both-copy", "peer-out-sm", "peer-in-sm", "peer-latency"):
    g, unit = res[t], "ns" if t == "peer-latency" else "gbs"
    cols = np.stack([g["peer%d_%s" % (j, unit)][:] for j in range(16)], axis=1)   # rank x peer x rep
    for r in range(4):
        me = int(local[r])
        assert np.all(np.isnan(cols[r, me])), (t, r, "its own slot measured")
        assert np.all(np.isnan(cols[r, 4:])), (t, r, "slots past the node's ranks measured")
        row = np.delete(cols[r, :4], me, axis=0)
        assert np.all(np.isfinite(row) & (row > 0)), (t, r, row)
        judged = g["latency_ns" if unit == "ns" else "bandwidth_gbs"][r]
        worst = row.max(axis=0) if unit == "ns" else row.min(axis=0)
        assert np.allclose(judged, worst), (t, r, judged, worst)
for t, factor in (("allreduce-node", 1.5), ("allgather-node", 0.75), ("reducescatter-node", 0.75),
                  ("allreduce-job", 1.5)):
    g = res[t]
    assert np.allclose(g["busbw_gbs"][:], factor * g["algbw_gbs"][:]), t
    assert np.all(g["busbw_gbs"][:] > 0), t
m = s(res["peer-out-copy"].attrs["measured"])
assert m.startswith("kernel=transfer link=peer direction=out") and "collective" not in m, m
PY

# ---- 2. a corrupted transfer, a corrupted collective
cat >small.yaml <<'YAML'
name: small
defaults: {repetitions: 3, warmup: 1}
tests:
  - {name: peer-out, kernel: transfer, link: peer, direction: out, bytes: 64KiB}
  - {name: host-in, kernel: transfer, link: host, direction: in, bytes: 64KiB}
  - {name: allreduce, kernel: transfer, link: collective, bytes: 64KiB}
YAML
MCFLEET_INJECT_FAULT='*@1' mpi 4 --backend host --power off --deck small.yaml -o bad.h5
expect_rc 1
"$PYTHON_H5" - bad.h5 <<'PY' || { cat out; fail "injected faults: the file"; }
import sys, h5py, numpy as np
res = h5py.File(sys.argv[1], "r")["results"]
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
for t in ("peer-out", "host-in", "allreduce"):   # rank 1's check of each: what it wrote, received, reduced
    st = list(res[t]["status"][:])
    assert st == [1, 0, 1, 1], (t, st)   # 0: wrong result
    assert np.all(np.isnan(res[t]["busbw_gbs" if t == "allreduce" else "bandwidth_gbs"][1])), t
    msg = s(res[t]["message"][1])
    assert "word" in msg or "element" in msg, msg
PY
expect_in out "FAILED VERIFICATION"

# ---- 3. a slow rank in a collective: no hang, every rank verified
MCFLEET_INJECT_SLOW='allreduce@3' MCFLEET_INJECT_SLOW_FACTOR=4 timeout 120 \
    "$MPIRUN" -np 4 --oversubscribe --mca btl self,vader,tcp --bind-to none "$MCFLEET" --backend host --power off \
    --deck small.yaml -o slow.h5 >out 2>err || [ $? = 1 ] || { cat out err; fail "a slow collective rank"; }
"$PYTHON_H5" -c "
import h5py, sys
r = h5py.File('slow.h5', 'r')['results']
sys.exit(0 if all(list(r[t]['status'][:]) == [1] * 4 for t in r) else 1)" || { cat out; fail "slow collective: not verified"; }

# ---- 4. a key of another link
cat >wrong.yaml <<'YAML'
name: wrong
tests:
  - {name: h2d, kernel: transfer, link: host, collective: allgather}
YAML
mpi 1 --backend host --deck wrong.yaml -o wrong.h5
expect_rc 2
expect_in err "'collective' does not apply to 'link: host'"
echo "transfer (host backend) ok"
