#!/bin/sh
# A real run, not a simulation: 8 host ranks, one of them (world rank 5)
# throttled from outside by SIGSTOP/SIGCONT duty cycling (running about 10%
# of each 0.2 s period, as a GPU held at a fraction of its clock would be);
# `mcfleet report --format json` must flag that rank and only that rank. The
# same run without the throttle must flag nobody: the test can fail both ways.
#
# Why this duty: the host ranks share the machine's cores (8 ranks on 2 here),
# and ranks start each test together but run their repetitions back to back,
# so a throttled rank finishes last and then runs nearly alone, faster. At 50%
# duty that made it come out anywhere from 25% slower to 30% FASTER than the
# others (measured, 2-core VM with a CPU hog); at about 10% it is slower even
# alone (-22% to -63% over 5 runs, the healthy ranks within -8%..+13% of the
# median). docs/acceptance.md, "Detection quality, measured", has the figures.
#
# Why --warn 15 --fail 30: the default floors (3.5%, 7%) are for GPUs. Host
# ranks time-sharing two loaded cores differ by up to 13% between healthy
# ranks, and the node rule (each rank against the fastest of the 8, all on
# one node) then warned on a healthy rank 6.9% below the fastest in 1 of 5
# runs. 15% and 30% keep the healthy ranks clear; the throttled rank is
# 64-84% below the median with this duty, far beyond either.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
PY=${PYTHON_H5:-/usr/bin/python3}
VICTIM=5
victim="" thr=""
ours() { [ -n "$victim" ] && grep -q "mcfleet" "/proc/$victim/cmdline" 2>/dev/null; }
cleanup() {
    [ -n "$thr" ] && kill "$thr" 2>/dev/null
    ours && kill -CONT "$victim" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

# run OUT THROTTLE(0|1): the 8-rank run; its exit code in $rc
run() {
    out=$1
    "$MPIRUN" -np 8 --oversubscribe --mca btl self,vader,tcp --bind-to none "$MCFLEET" --backend host \
        --deck "$srcdir/tests/decks/throttle.yaml" -o "$out" >"$work/out" 2>&1 &
    pid=$!
    victim="" i=0
    while [ -z "$victim" ]; do
        for p in $(pgrep -f -- "-o $out" || true); do
            if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$VICTIM"; then victim=$p; fi
        done
        i=$((i + 1))
        [ $i -lt 600 ] && kill -0 $pid 2>/dev/null || { kill -9 $pid 2>/dev/null; cat "$work/out"; fail "no process for rank $VICTIM"; }
        [ -n "$victim" ] || sleep 0.05
    done
    if [ "$2" = 1 ]; then
        ( while kill -STOP "$victim" 2>/dev/null; do sleep 0.19; kill -CONT "$victim" 2>/dev/null; sleep 0.01; done ) &
        thr=$!
    fi
    await "the 8-rank run"
    if [ -n "$thr" ]; then kill "$thr" 2>/dev/null; wait "$thr" 2>/dev/null; thr=""; fi
    ours && kill -CONT "$victim" 2>/dev/null
    victim=""
    [ "$rc" = 0 ] || { cat "$work/out"; fail "the run: exit code $rc"; }
}

# flagged FILE: the ranks `mcfleet report --format json` does not PASS, comma-separated
flagged() {
    rc=0
    "$MCFLEET" report "$1" --format json --warn 15 --fail 30 >"$work/r.json" 2>"$work/r.err" || rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat "$work/r.err"; fail "report: exit code $rc"; }
    "$PY" - "$work/r.json" "$rc" <<'PY' || fail "report: the JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit_code"] == int(sys.argv[2]), (d["exit_code"], sys.argv[2])
bad = [g for g in d["gpus"] if g["verdict"] != "PASS"]
for g in bad:
    print("  rank %d %s: %s" % (g["rank"], g["verdict"], "; ".join(c["text"] for c in g["causes"])[:300]),
          file=sys.stderr)
print(",".join(str(g["world_rank"]) for g in bad))
PY
}

run "$work/throttled.h5" 1
got=$(flagged "$work/throttled.h5")
[ "$got" = "$VICTIM" ] || fail "throttled rank $VICTIM: the report flagged '$got'"

run "$work/free.h5" 0
got=$(flagged "$work/free.h5")
[ -z "$got" ] || fail "no throttle: the report flagged '$got'"
echo "throttled rank ok"
