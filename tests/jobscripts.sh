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

# ---- srun's --mpi type and what each script finds from a build directory.
# A second stand-in srun prints what it was given and runs nothing.
mkdir -p "$work/bin2" "$work/fakeldd" "$work/build" "$work/lib"
cat >"$work/bin2/srun" <<'SH'
#!/bin/bash
echo "srun: SLURM_MPI_TYPE=${SLURM_MPI_TYPE-unset} args: $*"
SH
chmod +x "$work/bin2/srun"
# the MPI type chosen for a binary, as a job script's shell sees it
mpi_type() {    # mpi_type [ENV...]: runs mcfleet_srun for $MCFLEET; prints srun's SLURM_MPI_TYPE
    env "$@" PATH="${TYPE_PATH:-$work/bin2:$PATH}" bash -c '. "$1/jobscripts/common.sh"; mcfleet_srun -- --list' \
        _ "$srcdir" | sed -n 's/^srun: SLURM_MPI_TYPE=\([^ ]*\) .*/\1/p'
}
unset SLURM_MPI_TYPE
t=$(mpi_type MCFLEET="$MCFLEET")
if ldd "$MCFLEET" | grep -q "libmpi.so.40"; then    # this build: Open MPI
    [ "$t" = pmix ] || fail "an Open MPI mcfleet got SLURM_MPI_TYPE=$t, expected pmix"
fi
t=$(mpi_type MCFLEET="$MCFLEET" SLURM_MPI_TYPE=pmi2)
[ "$t" = pmi2 ] || fail "SLURM_MPI_TYPE=pmi2 set by the user became $t"
# Cray MPICH and MPICH, through a stand-in ldd and stand-in libraries
printf 'junk\0MPI VERSION    : CRAY MPICH version 8.1.28.15 (ANL base 3.4a2)\0junk' >"$work/lib/libmpi_gnu_123.so.12"
printf 'junk\0MPICH Version:      4.0.2\0junk' >"$work/lib/libmpi.so.12"
printf 'junk\0Open MPI v%%d.%%d.%%d\0junk' >"$work/lib/libmpi.so.40"
cat >"$work/fakeldd/ldd" <<SH
#!/bin/sh
cat "$work/ldd.txt"
SH
chmod +x "$work/fakeldd/ldd"
check_type() {  # check_type LIBRARY EXPECTED: ldd resolves libmpi to LIBRARY
    printf '\tlinux-vdso.so.1 (0x00007ffd)\n\tlibhdf5.so.103 => /usr/lib/libhdf5.so.103 (0x1)\n\t%s => %s (0x2)\n' \
        "$(basename "$1")" "$1" >"$work/ldd.txt"
    t=$(TYPE_PATH="$work/fakeldd:$work/bin2:$PATH" mpi_type MCFLEET="$MCFLEET")
    [ "$t" = "$2" ] || fail "libmpi $1: SLURM_MPI_TYPE=$t, expected $2"
}
check_type "$work/lib/libmpi_gnu_123.so.12" cray_shasta
check_type "$work/lib/libmpi.so.12" unset        # MPICH: Slurm's MpiDefault
check_type "$work/lib/libmpi.so.40" pmix
cp "$work/lib/libmpi_gnu_123.so.12" "$work/lib/libmpi.so.12"
check_type "$work/lib/libmpi.so.12" cray_shasta  # Cray MPICH under the MPICH ABI name
printf '\tnot a dynamic executable\n' >"$work/ldd.txt"
t=$(TYPE_PATH="$work/fakeldd:$work/bin2:$PATH" mpi_type MCFLEET="$MCFLEET")
[ "$t" = unset ] || fail "a static binary got SLURM_MPI_TYPE=$t"

# every job script, submitted from a build directory (sbatch ../jobscripts/X):
# it runs that directory's ./mcfleet with the source tree's deck
ln -s "$MCFLEET" "$work/build/mcfleet"
for f in "$srcdir"/jobscripts/*.sbatch; do
    out=$(cd "$work/build" && env -u MCFLEET -u DECK SLURM_JOB_ID=77 PATH="$work/bin2:$PATH" bash "$f" 2>&1) \
        || { echo "$out"; fail "$(basename "$f") from a build directory"; }
    line=$(echo "$out" | grep "^srun: ") || { echo "$out"; fail "$(basename "$f") ran no srun"; }
    echo "$line" | grep -qF " $work/build/mcfleet -o " || { echo "$out"; fail "$(basename "$f"): not ./mcfleet"; }
    # each system's architecture gets its acceptance deck (the AMD ones the MFMA
    # decks); scripts for GPUs of several kinds let mcfleet --acceptance pick
    case $(basename "$f") in
        frontier.sbatch|lumi-g.sbatch) want=gfx90a.yaml ;;
        el-capitan.sbatch) want=gfx942.yaml ;;
        perlmutter.sbatch) want=sm_80.yaml ;;
        *) want=--acceptance ;;
    esac
    if [ "$want" = --acceptance ]; then
        echo "$line" | grep -q -- " --acceptance\( \|$\)" || { echo "$out"; fail "$(basename "$f"): not --acceptance"; }
    else
        deck=$(echo "$line" | sed -n 's/.* --deck \([^ ]*\).*/\1/p')
        [ -f "$deck" ] && [ "$deck" -ef "$srcdir/input/acceptance/$want" ] || \
            { echo "$out"; fail "$(basename "$f"): deck '$deck', expected input/acceptance/$want"; }
    fi
done
echo "jobscripts ok (job exit $rc)"
