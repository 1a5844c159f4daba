#!/bin/bash
# The job scripts: each parses, and their time-limit path works. With a
# stand-in srun on PATH (it runs the same command under mpirun), the batch
# shell receives SIGUSR1 as `#SBATCH --signal=B:USR1@120` delivers it; the trap
# in jobscripts/common.sh must pass it on, and the run must end with a valid
# results file marked incomplete and its report.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
for f in "$srcdir"/jobscripts/*.sbatch "$srcdir"/jobscripts/common.sh; do
    bash -n "$f" || fail "$f does not parse"
    grep -q -- "--signal=B:USR1@" "$f" || [ "$(basename "$f")" = common.sh ] || fail "$f has no --signal"
done
mkdir -p "$work/bin"
cat >"$work/bin/srun" <<SH
#!/bin/bash
# stand-in for srun: drop srun's options, run the command on 2 ranks
while [ \$# -gt 0 ] && [ "\${1#-}" != "\$1" ]; do shift; done
exec "$MPIRUN" -np 2 --oversubscribe --mca btl self,vader,tcp --bind-to none "\$@"
SH
chmod +x "$work/bin/srun"
cd "$work"
cat >job.sh <<SH
#!/bin/bash
. "$srcdir/jobscripts/common.sh"
export SLURM_JOB_ID=4242 MCFLEET="$MCFLEET"
mcfleet_srun --cpu-bind=cores -- --backend host --deck "$srcdir/tests/decks/slow.yaml"
SH
PATH="$work/bin:$PATH" bash job.sh >job.out 2>&1 &
job=$!
i=0
while ! grep -q "slow-chase" job.out 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 300 ] || { cat job.out; kill -9 $job; fail "the job never started"; }
    sleep 0.1
done
sleep 1
kill -USR1 $job
wait $job
rc=$?
expect_in job.out "time limit near: asking the ranks to stop"
expect_in job.out "stopped by signal 10"
[ -f mcfleet-4242.h5 ] || { cat job.out; fail "no results file"; }
expect_in mcfleet-4242.report.txt "INCOMPLETE RUN"
"$PYTHON_H5" -c "
import h5py, sys
m = h5py.File('mcfleet-4242.h5', 'r')['meta'].attrs
sys.exit(0 if int(m['complete']) == 0 and m['slurm_job_id'] in (b'4242', '4242') else 1)" || fail "results not marked incomplete, or the job id not recorded"
echo "jobscripts ok (job exit $rc)"
