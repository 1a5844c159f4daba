#!/bin/bash
# An acceptance run ends with its verdict (issue 26, item 1): 0 PASS or WARN,
# 1 FAIL, 3 incomplete, and jobscripts/acceptance.sbatch passes it on, so
# Slurm shows FAILED where a GPU failed. Through the host backend, a real
# slow rank: MCFLEET_INJECT_SLOW runs rank 1's kernels 8 times per
# repetition, the work of one counted (an eighth of the speed, measured).
# Host ranks' peer causes are never more than WARN (they share the machine:
# 2 healthy ranks on this loaded 2-core VM differ by up to 49 % on a test,
# a chase 2x), so the FAIL comes from a profile made here from the healthy
# run, with floors at a quarter of its medians (ceilings at 4x for a
# latency): the slow rank's eighth fails them, noise would have to be 4x.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
# two ranks must have a CPU each: ranks that share cores are judged as the
# environment's (a FAIL shown as WARN), which case 3b below checks by itself
[ "$(nproc)" -ge 2 ] || { echo "SKIP: fewer than 2 CPUs"; exit $SKIP; }
for v in CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES SLURM_JOB_GPUS SLURM_STEP_GPUS \
         $(env | sed -n 's/^\(SLURM_GPUS[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export MCFLEET_DEV_ROOT="$work/none" MCFLEET_INJECT_SLOW_FACTOR=8
mkdir "$work/none" "$work/bin"
cd "$work"
report_rc() {   # report_rc FILE: the report's own exit code for FILE
    "$MCFLEET" report "$1" >"$1.txt" 2>&1
}

# 1. healthy ranks: whatever the verdict on this machine's load, the run's
#    exit code is the report's
mpi 2 --backend host --acceptance --power off -o healthy.h5
run=$rc
report_rc healthy.h5 && rep=0 || rep=$?
[ "$run" = "$rep" ] || { cat out healthy.h5.txt; fail "healthy run: exit $run, its report exit $rep"; }
[ "$run" = 0 ] || { cat out err; fail "healthy run: exit $run, expected 0 (PASS or WARN)"; }

# the profile of this machine's ranks, from the healthy run
mkdir prof
"$PYTHON_H5" - healthy.h5 prof/host.yaml <<'PY' || fail "making the profile"
import sys, h5py, numpy as np
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
f = h5py.File(sys.argv[1], "r")
lines = ["sku: this machine's host ranks", "match: {arch: [%s], device_name: [\"%s\"]}"
         % (s(f["ranks/device_arch"][0]).split(":")[0], s(f["ranks/device_name"][0])),
         "sources: {healthy: \"the healthy run of tests/acceptance_exit.sh\"}", "tests:"]
for t, g in f["results"].items():
    for m in ("gflops", "bandwidth_gbs", "latency_ns"):
        if m in g:
            e = float(np.median(np.nanmedian(g[m][...], axis=1)))
            bound = "ceiling: %.6f" % (4 * e) if m == "latency_ns" else "floor: %.6f" % (e / 4)
            lines.append('  %s: {metric: %s, measured: "%s", expected: %.6f, %s, source: "measured: host, %s, '
                         'healthy.h5"}' % (t, m, s(g.attrs["measured"]), e, bound, s(f["meta"].attrs["start_time"])[:10]))
            break
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
PY

# 2. rank 1 slow, through the acceptance job script with a stand-in srun
cat >"$work/bin/srun" <<SH
#!/bin/bash
# stand-in for srun: drop srun's options, run the command on 2 ranks
while [ \$# -gt 0 ] && [ "\${1#-}" != "\$1" ]; do shift; done
exec "$MPIRUN" -np 2 --oversubscribe --mca btl self,vader,tcp --bind-to none "\$@"
SH
chmod +x "$work/bin/srun"
rc=0
env SLURM_JOB_ID=5151 MCFLEET_INJECT_SLOW='*@1' MCFLEET_PROFILES="$work/prof" PATH="$work/bin:$PATH" \
    bash "$srcdir/jobscripts/acceptance.sbatch" >job.out 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat job.out; fail "acceptance.sbatch with a slow rank: exit $rc, expected 1 (FAIL)"; }
expect_in job.out "mcfleet exit 1"
r=mcfleet-acceptance-5151.report.txt
expect_in "$r" "VERDICT: FAIL (exit 1)"
expect_in "$r" "SLOWDOWN INJECTED FOR TESTING: *@1, 8 times the kernel per repetition"
expect_in "$r" "FAIL rank 1 (world 1)"
expect_in "$r" "- FAIL profile: "
! grep -q "FAIL rank 0 " "$r" || { cat "$r"; fail "the healthy rank 0 failed too"; }
"$PYTHON_H5" -c "
import h5py, sys
m = h5py.File('mcfleet-acceptance-5151.h5', 'r')['meta'].attrs
sys.exit(0 if m['injected_slow'] in (b'*@1, 8 times the kernel per repetition',
                                     '*@1, 8 times the kernel per repetition') else 1)" \
    || fail "/meta/injected_slow does not record the injection"

# 3b. the same file without the profile, as if its 2 ranks had shared one
#     CPU (/meta/crowded_nodes): the peer causes are the environment's, WARN,
#     with the next step to run one rank per core; exit 0
cp mcfleet-acceptance-5151.h5 crowded.h5
"$PYTHON_H5" -c "import h5py, sys; h5py.File(sys.argv[1], 'r+')['meta'].attrs['crowded_nodes'] = 1" crowded.h5 ||
    fail "marking the file crowded"
report_rc crowded.h5 && rep=0 || rep=$?
[ "$rep" = 0 ] || { cat crowded.h5.txt; fail "crowded ranks: report exit $rep, expected 0 (WARN)"; }
expect_in crowded.h5.txt "[environment: ranks share CPU cores, a FAIL shown as WARN]"
expect_in crowded.h5.txt "next: run at most one rank per CPU core"

# 3. the same deck as a plain measurement (no acceptance: true): the run's
#    exit code stays the kernels' (0), its report with the profile FAILs rank 1
sed '/^acceptance: true/d' "$srcdir/input/acceptance/host.yaml" >plain.yaml
MCFLEET_INJECT_SLOW='*@1' MCFLEET_PROFILES="$work/prof" mpi 2 --backend host --deck plain.yaml --power off -o plain.h5
expect_rc 0
"$MCFLEET" report --profiles prof plain.h5 >plain.h5.txt 2>&1 && rep=0 || rep=$?
[ "$rep" = 1 ] || { cat plain.h5.txt; fail "plain run with a slow rank: report exit $rep, expected 1"; }

# 4. an acceptance run stopped by its time limit: incomplete, 3
{ cat "$srcdir/input/acceptance/host.yaml"
  echo "  - {name: long-chase, kernel: latency, working_set: 64MiB, repetitions: 100000}"; } >long.yaml
mpi 2 --backend host --deck long.yaml --power off --time-limit 5s -o long.h5
expect_rc 3
report_rc long.h5 && rep=0 || rep=$?
[ "$rep" = 3 ] || { cat long.h5.txt; fail "stopped acceptance run: report exit $rep, expected 3"; }

# 5. a bad injection is refused before any test, exit 2, naming the variable
MCFLEET_INJECT_SLOW_FACTOR=1 MCFLEET_INJECT_SLOW='*' mpi 2 --backend host --acceptance --power off -o bad.h5
expect_rc 2
expect_in err "MCFLEET_INJECT_SLOW_FACTOR='1': expected a whole number from 2 to 64"
MCFLEET_INJECT_SLOW='*@7' mpi 2 --backend host --acceptance --power off -o bad.h5
expect_rc 2
expect_in err "MCFLEET_INJECT_SLOW='*@7': rank 7 does not exist"
echo "ok: healthy exit $run (= its report's), slow rank 1 exit 1 through acceptance.sbatch, plain run 0, stopped 3"
