#!/bin/sh
# Inside a Slurm step, the MPI world must be the step's tasks. `srun` without
# the MPI's PMI plugin starts each task as an MPI job of one rank, each of
# which would measure as if it were the whole fleet: every rank stops before
# any work with exit 2, naming both counts and `srun --mpi=pmix`.
# The step is simulated: SLURM_STEP_ID and SLURM_NTASKS in the environment.
. "$srcdir/tests/lib.sh"
need_mpirun

# 1. Two ranks told by "Slurm" that the step has four. OMPI_COMM_WORLD_SIZE
#    (mpirun's own count, which srun does not set) is removed, so the ranks
#    look as srun-started ones do.
rc=0
"$MPIRUN" -np 2 --oversubscribe --mca btl self,vader,tcp --bind-to none \
    env -u OMPI_COMM_WORLD_SIZE SLURM_STEP_ID=0 SLURM_NTASKS=4 \
    "$MCFLEET" --backend host --quick -o "$work/x.h5" >"$work/out" 2>"$work/err" || rc=$?
expect_rc 2
expect_in "$work/err" "Slurm's step has 4 tasks (SLURM_NTASKS=4) but the MPI world has 2 ranks"
expect_in "$work/err" "srun --mpi=pmix"
[ "$(grep -c "Slurm's step has" "$work/err")" = 1 ] || fail "the message was printed more than once"
[ ! -e "$work/x.h5" ] && [ ! -e "$work/x.h5.partial" ] || fail "a launch error left a file"
grep -q "\[ 1/" "$work/out" && fail "tests ran before the launch was checked"

# 2. The careless srun itself: two singletons (no launcher), each told the
#    step has two tasks, each errors alone.
for i in 0 1; do
    ( cd "$work" && SLURM_STEP_ID=0 SLURM_NTASKS=2 SLURM_PROCID=$i \
        "$MCFLEET" --backend host --quick -o "$work/s$i.h5" >"$work/s$i.out" 2>&1; echo $? >"$work/s$i.rc" ) &
done
wait
for i in 0 1; do
    [ "$(cat "$work/s$i.rc")" = 2 ] || { cat "$work/s$i.out"; fail "singleton $i: exit $(cat "$work/s$i.rc"), expected 2"; }
    expect_in "$work/s$i.out" "Slurm's step has 2 tasks (SLURM_NTASKS=2) but the MPI world has 1 rank:"
    [ ! -e "$work/s$i.h5" ] && [ ! -e "$work/s$i.h5.partial" ] || fail "singleton $i left a file"
done

# 3. SLURM_NPROCS where SLURM_NTASKS is absent
rc=0
"$MPIRUN" -np 2 --oversubscribe --mca btl self,vader,tcp --bind-to none \
    env -u OMPI_COMM_WORLD_SIZE SLURM_STEP_ID=0 SLURM_NPROCS=3 \
    "$MCFLEET" --list >"$work/out" 2>"$work/err" || rc=$?
expect_rc 2
expect_in "$work/err" "(SLURM_NPROCS=3) but the MPI world has 2 ranks"

# 4. What must still run: the counts agree; or mpirun started the ranks
#    inside an allocation (its own count in the environment), whatever the
#    step holds; or no step at all
rc=0
"$MPIRUN" -np 2 --oversubscribe --mca btl self,vader,tcp --bind-to none \
    env -u OMPI_COMM_WORLD_SIZE SLURM_STEP_ID=0 SLURM_NTASKS=2 \
    "$MCFLEET" --list >"$work/out" 2>"$work/err" || rc=$?
expect_rc 0
SLURM_STEP_ID=0 SLURM_NTASKS=4 mpi 2 --list
expect_rc 0
SLURM_NTASKS=4 mpi 2 --list
expect_rc 0
echo "launch size ok"
