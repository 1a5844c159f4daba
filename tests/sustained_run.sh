#!/bin/sh
# Sustained tests (`duration:`) end to end on 2 host ranks, the power read
# from a simulated Cray node (tests/pmc_node.py, 300 W): a 4 s test beside a
# normal one. The file must hold a trace of 4 windows per rank (rate, work,
# power, ... one column per second), the per-repetition datasets one column
# per window, the real repetition count, the figures at the limit consistent
# with the trace they come from, and the report must print them with their
# fleet spread. Then a SIGTERM in the middle of a 30 s test: the windows
# measured before it are kept, the test is cut (or verified up to the stop,
# where the signal came between two repetitions), the file not complete.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
cat >"$work/deck.yaml" <<YAML
power:
  period_ms: 10
  sources: [craypm]
tests:
  - {name: sus-valu, kernel: valu, dtype: fp64, iterations: 20000, duration: 4s, time_limit: 60}
  - {name: plain, kernel: matrix, dtype: fp64, shape: [8, 8, 4], iterations: 20000, repetitions: 3}
YAML
"$PYTHON_H5" "$srcdir/tests/pmc_node.py" "$work/pmc" 600 300 &   # killed when the script ends
node=$!
pid=""
trap 'kill $node 2>/dev/null; [ -n "$pid" ] && kill -9 $pid 2>/dev/null; rm -rf "$work"' EXIT
sleep 0.5
export MCFLEET_CRAYPM_ROOT="$work/pmc" MCFLEET_CRAYPM_ACCEL=0
mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/s.h5"
expect_rc 0
schema "$work/s.h5" 2
"$PYTHON_H5" - "$work/s.h5" <<'PY' || { cat "$work/out"; fail "the sustained test's datasets"; }
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
g = f["results/sus-valu"]
a = g.attrs
assert int(a["duration"]) == 4 and int(a["repetitions"]) == 4 and int(a["warmup"]) == 0, dict(a)
assert list(g["status"][:]) == [1, 1], [s(m) for m in g["message"][:]]
assert all(s(m).startswith("sustained: ") and "over 4 of 4 s" in s(m) for m in g["message"][:]), g["message"][:]
t = g["trace"]
assert s(t.attrs["rate_metric"]) == "gflops" and float(t.attrs["window_s"]) == 1.0
for k in ["rate", "work", "power_w", "sm_mhz", "temp_c_max", "throttle_reasons", "span_s"]:
    assert t[k].shape == (2, 4), (k, t[k].shape)
    assert "unit" in t[k].attrs, k
assert "clock_mhz" not in t   # the host backend measures no in-kernel clock
assert s(t["rate"].attrs["unit"]) == "GFLOP/s" and s(t["work"].attrs["unit"]) == "GFLOP"
rate, work, span, power = t["rate"][:], t["work"][:], t["span_s"][:], t["power_w"][:]
# one repetition per window in the per-repetition datasets: the trace's rate is them
assert np.array_equal(rate, g["gflops"][:]), (rate, g["gflops"][:])
assert np.all(rate > 0) and np.all(work > 0)
# each window's work took device time within the second it had (the rest is the host's)
busy = work / rate
assert np.all(busy <= span * 1.001) and np.all(span <= 1.0 + 1e-9) and np.all(span > 0.9), (busy, span)
t0 = float(t.attrs["t0_s"])
st, en = g["rep_start_s"][:], g["rep_end_s"][:]
for r in range(2):   # the windows are the same seconds on both ranks, on rank 0's time base
    assert np.allclose(st[r, 1:], t0 + np.arange(1, 4), atol=1e-9) and np.allclose(en[r], t0 + np.arange(1, 5), atol=1e-9), (st[r], en[r], t0)
    assert t0 <= st[r, 0] < t0 + 0.1, (st[r, 0], t0)
reps = g["repetitions_run"][:]
assert np.all(reps >= 4), reps   # many repetitions of 0.1-0.3 ms each, back to back
# power: the node's 300 W through the counter, every window (1 %: whole joules over 1 s)
assert np.all(np.abs(power - 300) < 9), power
assert np.all(np.isnan(t["sm_mhz"][:])) and np.all(np.isnan(t["throttle_reasons"][:]))   # pm_counters has neither
# the figures at the limit, recomputed from the trace they come from
listed = s(a["sustained_summary"]).split(",")
assert listed == ["sustained_gflops", "sustained_sm_mhz", "sustained_power_w", "sustained_j_per_gflop",
                  "time_to_limit_s", "throttled_fraction", "steady_start_s", "steady_state"], listed
for k in listed:
    assert g[k].shape == (2, 1) and "better" in g[k].attrs, k
assert s(g["sustained_gflops"].attrs["better"]) == "higher" and s(g["sustained_j_per_gflop"].attrs["better"]) == "lower"
assert s(g["sustained_power_w"].attrs["better"]) == "none" and s(g["time_to_limit_s"].attrs["better"]) == "none"
for r in range(2):
    steady = g["steady_state"][r, 0]
    assert steady in (0.0, 1.0), steady
    lo = int(g["steady_start_s"][r, 0]) if steady == 1 else 2   # never steady: the last half
    assert steady == 1 or np.isnan(g["steady_start_s"][r, 0])
    w = slice(lo, 4)
    want = work[r, w].sum() / busy[r, w].sum()
    assert abs(g["sustained_gflops"][r, 0] - want) < 1e-9 * want, (g["sustained_gflops"][r, 0], want)
    watts = (power[r, w] * span[r, w]).sum() / span[r, w].sum()
    assert abs(g["sustained_power_w"][r, 0] - watts) < 1e-9 * watts
    jpu = (power[r, w] * span[r, w]).sum() / work[r, w].sum()
    assert abs(g["sustained_j_per_gflop"][r, 0] - jpu) < 1e-9 * jpu
    # the node drew 300 W before the test began: the limit was there at its first reading
    ttl = g["time_to_limit_s"][r, 0]
    assert (steady == 1) == np.isfinite(ttl) and (steady == 0 or 0 <= ttl < 1.0), (steady, ttl)
    assert np.isnan(g["throttled_fraction"][r, 0])   # no reasons read
# the normal test beside it: no trace, no sustained figures
p = f["results/plain"]
assert "trace" not in p and "sustained_summary" not in p.attrs and int(p.attrs["duration"]) == 0
assert p["gflops"].shape == (2, 3)
PY
"$MCFLEET" report "$work/s.h5" >"$work/report" || { cat "$work/report"; fail "report of the sustained run"; }
expect_in "$work/report" "Sustained at the limit"
expect_in "$work/report" "sus-valu sustained_gflops"
expect_in "$work/report" "sus-valu sustained_power_w"
expect_in "$work/report" "sus-valu time_to_limit_s"
"$MCFLEET" report --format json "$work/s.h5" >"$work/report.json" || fail "JSON report of the sustained run"
"$PYTHON_H5" - "$work/report.json" "$work/s.h5" <<'PY' || fail "the JSON report's sustained spread"
import sys, json, h5py, numpy as np
d = json.load(open(sys.argv[1]))
f = h5py.File(sys.argv[2], "r")
x = f["results/sus-valu/sustained_gflops"][:, 0]
got = {(e["test"], e["metric"]): e for e in d["sustained"]}
e = got[("sus-valu", "sustained_gflops")]
assert abs(e["median"] - np.median(x)) < 1e-9 * e["median"] and e["min"] == x.min() and e["max"] == x.max(), (e, x)
assert abs(e["spread"] - (x.max() - x.min()) / np.median(x)) < 1e-12, e
assert ("sus-valu", "sustained_j_per_gflop") in got   # judged, lower is better
PY

# A SIGTERM 2.5 s into a 30 s sustained test.
cat >"$work/long.yaml" <<YAML
power:
  period_ms: 10
  sources: [craypm]
tests:
  - {name: sus-long, kernel: valu, dtype: fp64, iterations: 20000, duration: 30s}
  - {name: after, kernel: valu, dtype: fp64, iterations: 20000}
YAML
# To the ranks themselves, as Slurm signals its tasks: mpirun passes a SIGTERM
# on only after its odls_base_sigkill_timeout, by then the test may be over.
launch 2 "sus-long" --backend host --deck "$work/long.yaml" -o "$work/k.h5"
sleep 2.5
ranks=$(pgrep -P $pid)
[ -n "$ranks" ] || { kill -9 $pid; fail "the ranks' processes not found under mpirun"; }
kill -TERM $ranks
await "SIGTERM in a sustained test"
[ -e "$work/k.h5" ] || { cat "$work/out"; fail "SIGTERM: no results file"; }
expect_in "$work/out" "stopped by signal 15"
"$PYTHON_H5" - "$work/k.h5" <<'PY' || { cat "$work/out"; fail "SIGTERM in a sustained test: the partial file"; }
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
assert int(f["meta"].attrs["complete"]) == 0
assert [s(x) for x in f["meta/tests_not_run_list"][:]] == ["after"]
g = f["results/sus-long"]
st = list(g["status"][:])
t = g["trace"]
rate, power = t["rate"][:], t["power_w"][:]
assert rate.shape == (2, 30), rate.shape
for r, x in enumerate(st):
    msg = s(g["message"][r])
    # cut in a repetition (-5: its output cannot be checked) or between two (1: verified up to the stop)
    assert x in (-5, 1), (r, x, msg)
    n = int(np.isfinite(rate[r]).sum())
    # the windows before the stop are kept, from the first on, and none after: it came well before 30 s
    assert 1 <= n < 20 and np.all(np.isfinite(rate[r, :n])), (r, rate[r])
    assert np.all(np.abs(power[r, :n] - 300) < 15) and np.all(np.isnan(power[r, n:])), (r, power[r])
    fig = g["sustained_gflops"][r, 0] if "sustained_gflops" in g else np.nan
    if x == -5:
        assert "cut short by signal 15" in msg, msg
        assert np.all(np.isnan(g["gflops"][r])) and np.isnan(fig)   # an unverified kernel: no figure
    else:
        assert "stopped by a stop signal" in msg, msg
        assert np.array_equal(g["gflops"][r, :n], rate[r, :n]) and np.isfinite(fig)
    print("SIGTERM: rank %d status %d, %d windows measured" % (r, x, n))
PY
"$MCFLEET" report "$work/k.h5" >"$work/report" || true
expect_in "$work/report" "INCOMPLETE RUN"
# the traces as a plot: the whole run, and the stopped one (its windows after
# the stop are NaN); rank 1 drawn apart; a rank the file lacks is refused
if "$PYTHON_H5" -c 'import matplotlib' 2>/dev/null; then
    for f in s k; do
        "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" sustained "$work/$f.h5" --ranks 1 -o "$work/$f.png" >"$work/p" 2>&1 \
            || { cat "$work/p"; fail "sustained plot of $f.h5"; }
        expect_in "$work/p" "(1 sustained tests)"
        [ -s "$work/$f.png" ] || fail "no $f.png"
    done
    ! grep -q Warning "$work/p" || { cat "$work/p"; fail "warnings from the plot of a stopped run"; }
    # the page: its power and sustained sections, drawn by the same code
    "$MCFLEET" report "$work/s.h5" --html "$work/s.html" >"$work/p" 2>&1 || { cat "$work/p"; fail "report --html"; }
    expect_in "$work/s.html" "Sustained at the limit, second by second"
    expect_in "$work/s.html" "Power against throughput, per GPU"
    rc=0; "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" sustained "$work/s.h5" --ranks 2 -o "$work/x.png" 2>"$work/e" || rc=$?
    [ $rc = 2 ] && grep -q "ranks 0..1" "$work/e" || { cat "$work/e"; fail "--ranks 2 of 2 ranks: exit $rc, expected 2"; }
fi
echo "sustained run ok"
