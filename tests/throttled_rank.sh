#!/bin/sh
# A real run, not a simulation: 8 host ranks, one of them (world rank 5)
# throttled from outside by SIGSTOP/SIGCONT to a quarter of a healthy rank's
# CPU time (a GPU held at a quarter of its clock); `mcfleet report --format
# json --warn 30 --fail 60` must flag that rank, with a peer cause on the
# throttled test's figure (thr-valu gflops), and only that rank. The same run
# without the throttle must flag nobody: the test can fail both ways.
#
# Measured 2026-11-23 on the 2-core build VM, a CPU hog beside it and load
# 15-24 from other sessions (docs/acceptance.md, "Detection quality,
# measured"): 15 of 15 passes, 17-25 s each. Over those and 16 runs with the
# default rules: the throttled rank 66-81 % below the healthy ranks' median in
# every run, the healthy ranks within -10..+15 % of it, at most 20.5 % below
# the best of the 8.
#
# - All 8 ranks run on ONE CPU (the first of ours), so that they are fair
#   shares of one run queue. Spread over two CPUs with a hog, the scheduler
#   placed them 4 and 3+hog and kept them there: the healthy ranks came out
#   in two groups about 20 % apart, and the node rule (against the best of
#   the node, with the good side's spread: made to see a slow half) flagged
#   the slow group.
# - The throttle is a CPU budget, not a fixed duty. A rank woken by SIGCONT
#   gets the CPU at once, so SIGSTOP 0.19 s / SIGCONT 0.01 s left it only 17 %
#   and 27 % slower on a crowded CPU, and once the healthy ranks had ended
#   the test it ran alone, faster than they had. The throttler below (Python,
#   10 ms ticks) starts before MPI_Init and holds until the run ends; no stop
#   comes near the watchdog's grace (60 s, docs/reliability.md): the run of
#   the throttled rank takes 4x the healthy ranks' (15-32 s for the whole test).
# - Why not the default rules (3.5 %/7 %, for GPUs): they passed 12 of 16
#   runs. Host ranks on one loaded CPU still differ by 2-5 % (their medians
#   catch the load's swings at different moments), and with 8 ranks the node
#   rule's spread comes from the top 3 values: it was often below the 3.5 %
#   floor, so healthy ranks 3.7-8.5 % below the best were flagged (reported
#   to the lead). --warn 30 is 1.46x the worst healthy gap seen (20.5 %) and
#   below half the throttled rank's (70 % or more below the best).
. "$srcdir/tests/lib.sh"
# Under ASan the kernels run several times slower and the throttled rank a
# quarter of that: the run outlives any sensible bound, and it measures the
# instrumentation. The verdict's code runs under the sanitizers in
# verdict_cases.sh.
[ -z "${MCFLEET_SANITIZER_BUILD:-}" ] || { echo "SKIP: sanitizer build: a throughput comparison means nothing with instrumented kernels, and the throttled run outlives the 120 s bound (the verdict's code is covered by verdict_cases.sh there)"; exit 77; }
need_mpirun
need_h5py
PY=${PYTHON_H5:-/usr/bin/python3}
VICTIM=5 NP=8 SHARE=0.25
victim="" thr=""
ours() { [ -n "$victim" ] && grep -q "mcfleet" "/proc/$victim/cmdline" 2>/dev/null; }
cleanup() {
    [ -n "$thr" ] && kill "$thr" 2>/dev/null
    ours && kill -CONT "$victim" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

# one CPU for the whole job: the first we may use
cpu=$("$PY" -c 'import os; print(min(os.sched_getaffinity(0)))') || fail "test setup: the CPU to pin to"

# run OUT THROTTLE(0|1): the 8-rank run on one CPU; fails unless it exits 0
run() {
    out=$1
    "$PY" -c 'import os, sys; os.sched_setaffinity(0, {int(sys.argv[1])}); os.execv(sys.argv[2], sys.argv[2:])' "$cpu" \
        "$MPIRUN" -np $NP --oversubscribe --mca btl self,vader,tcp --bind-to none "$MCFLEET" --backend host \
        --deck "$srcdir/tests/decks/throttle.yaml" -o "$out" >"$work/out" 2>&1 &
    pid=$!
    victim="" healthy="" i=0 n=0
    while [ $n -lt $NP ]; do
        victim="" healthy="" n=0
        for p in $(pgrep -f -- "-o $out" || true); do
            r=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
            [ -n "$r" ] || continue
            n=$((n + 1))
            if [ "$r" = $VICTIM ]; then victim=$p; else healthy="$healthy $p"; fi
        done
        i=$((i + 1))
        [ $i -lt 600 ] && kill -0 $pid 2>/dev/null || { kill -9 $pid 2>/dev/null; cat "$work/out"; fail "found $n of $NP rank processes"; }
        [ $n -ge $NP ] || sleep 0.05
    done
    [ -n "$victim" ] || fail "no process for rank $VICTIM"
    if [ "$2" = 1 ]; then
        "$PY" - "$SHARE" "$victim" $healthy <<'PY' &
# Holds VICTIM to SHARE x the CPU time of a healthy rank that computes. Every
# 0.2 s each healthy rank's main thread (where a one-thread host test runs) is
# seen computing when it made no voluntary context switch, at most 50 others,
# and used some CPU; one that has ended the test spins on sched_yield (many
# switches), then polls in 0.1 ms sleeps. Until 4 of the 7 compute (MPI_Init,
# the start) VICTIM runs free; while they compute it gets SHARE x their mean
# rate; once fewer than 4 compute after 1 s or more of it, that rate holds to
# the end.
import os, signal, sys, time
share, victim, healthy = float(sys.argv[1]), int(sys.argv[2]), [int(p) for p in sys.argv[3:]]
def cpu(p):     # seconds on a CPU, main thread
    with open("/proc/%d/schedstat" % p) as f:
        return int(f.read().split()[0]) * 1e-9
def sample(p):  # CPU time, voluntary and other context switches of the main thread
    sw = {}
    with open("/proc/%d/status" % p) as f:
        for line in f:
            if "ctxt_switches:" in line:
                sw[line.split(":")[0]] = int(line.split()[1])
    return cpu(p), sw.get("voluntary_ctxt_switches", 0), sw.get("nonvoluntary_ctxt_switches", 0)
def samples():
    s = {}
    for p in healthy:
        try:
            s[p] = sample(p)
        except (FileNotFoundError, ProcessLookupError):
            pass
    return s
tick, window, bank = 0.01, 0.2, 0.02    # s: control tick, classification window, most credit held
phase, rate, computed = 0, 0.0, 0.0     # 0 start, 1 computing, 2 ended; CPUs per computing rank
debug = os.environ.get("THROTTLE_DEBUG")
try:
    os.kill(victim, signal.SIGSTOP)
    stopped = True
    budget, h0, w0 = cpu(victim), samples(), time.monotonic()
    t0 = w0
    while True:
        time.sleep(tick)
        t = time.monotonic()
        if t - w0 >= window:
            h = samples()
            if not h:
                break
            d = [h[p][0] - h0[p][0] for p in h if p in h0
                 and h[p][1] == h0[p][1] and h[p][2] - h0[p][2] <= 50 and h[p][0] > h0[p][0]]
            if phase < 2 and len(d) >= 4:
                r = sum(d) / len(d) / (t - w0)
                rate = r if phase == 0 else rate + 0.3 * (r - rate)
                phase, computed = 1, computed + t - w0
            elif phase == 1:     # an end after 1 s of computing; before, MPI_Init's
                phase = 2 if computed >= 1.0 else 0
                computed = computed if phase else 0.0
            if debug:
                print("throttle %.2f phase %d computing %d rate %.4f victim %.3f s" % (t, phase, len(d), rate, cpu(victim)),
                      file=sys.stderr)
            h0, w0 = h, t
        v = cpu(victim)
        if phase == 0:
            budget = v + bank
        else:
            budget = min(budget + share * rate * (t - t0), v + bank)
        t0 = t
        if v < budget and stopped:
            os.kill(victim, signal.SIGCONT)
            stopped = False
        elif v >= budget and not stopped:
            os.kill(victim, signal.SIGSTOP)
            stopped = True
except (FileNotFoundError, ProcessLookupError):
    pass
finally:
    try:
        os.kill(victim, signal.SIGCONT)
    except ProcessLookupError:
        pass
PY
        thr=$!
    fi
    await "the 8-rank run"
    if [ -n "$thr" ]; then kill "$thr" 2>/dev/null; wait "$thr" 2>/dev/null; thr=""; fi
    ours && kill -CONT "$victim" 2>/dev/null
    victim=""
    [ "$rc" = 0 ] || { cat "$work/out"; fail "the run: exit code $rc"; }
    if [ -n "${THROTTLE_KEEP:-}" ]; then cp "$out" "$THROTTLE_KEEP/"; fi
}

# flagged FILE: the ranks the report (--warn 30 --fail 60) does not PASS,
# comma-separated, each as RANK or RANK+ when one of its causes is a peer
# rule's on thr-valu gflops (the throttled test's figure)
flagged() {
    rc=0
    "$MCFLEET" report "$1" --format json --warn 30 --fail 60 >"$work/r.json" 2>"$work/r.err" || rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat "$work/r.err"; fail "report: exit code $rc"; }
    if [ -n "${THROTTLE_KEEP:-}" ]; then cp "$work/r.json" "$THROTTLE_KEEP/$(basename "$1" .h5).json"; fi
    "$PY" - "$work/r.json" "$rc" <<'PY' || fail "report: the JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit_code"] == int(sys.argv[2]), (d["exit_code"], sys.argv[2])
assert d["complete"] and d["verdict"] in ("PASS", "WARN", "FAIL"), (d["verdict"], d["reasons"])
fig = [g["figures"].get("thr-valu gflops") for g in d["gpus"]]
ok = sorted(x for x in fig if x is not None)
med = ok[len(ok) // 2] if ok else 0
print("  per-rank thr-valu gflops against the median: %s" %
      " ".join("%d:%+.1f%%" % (g["world_rank"], 100 * (x / med - 1)) if x and med else "%d:-" % g["world_rank"]
               for g, x in zip(d["gpus"], fig)), file=sys.stderr)
bad = [g for g in d["gpus"] if g["verdict"] != "PASS"]
for g in bad:
    print("  rank %d %s: %s" % (g["world_rank"], g["verdict"], "; ".join(c["text"] for c in g["causes"])[:300]),
          file=sys.stderr)
peer = lambda g: any(c["rule"] in ("fleet-peer", "node-peer") and c["test"] == "thr-valu"
                     and c["metric"] == "gflops" for c in g["causes"])
print(",".join("%d%s" % (g["world_rank"], "+" if peer(g) else "") for g in bad))
PY
}

run "$work/throttled.h5" 1
got=$(flagged "$work/throttled.h5")
[ "$got" = "$VICTIM+" ] || fail "throttled rank $VICTIM: the report flagged '$got' (RANK+: on thr-valu gflops)"

run "$work/free.h5" 0
got=$(flagged "$work/free.h5")
[ -z "$got" ] || fail "no throttle: the report flagged '$got'"
echo "throttled rank ok"
