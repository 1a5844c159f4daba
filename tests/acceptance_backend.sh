#!/bin/sh
# An acceptance run where GPUs are allocated must not end up on the host
# backend (issue 10, item 6): it stops before any test with exit 3, naming
# what it saw and why no GPU backend ran. A run that is not an acceptance run
# keeps falling back to the host. Device nodes come from MCFLEET_DEV_ROOT (a
# testing hook) so that this runs on any machine, through the host backend.
. "$srcdir/tests/lib.sh"
need_mpirun
# Why no GPU backend ran, as the refusal words it: this binary has none, or
# (CI builds with nvcc when it finds one) a GPU backend found no GPU here. A
# machine with a real GPU would run the acceptance deck on it: nothing to test.
if "$MCFLEET" --version | grep -q "^backends: host$"; then
    why="this mcfleet has no GPU backend"
elif ls /dev/nvidia[0-9]* /dev/kfd >/dev/null 2>&1; then
    echo "SKIP: this machine has a GPU: an acceptance run uses it"; exit $SKIP
else
    why="no .* GPU is usable here"
fi
for v in CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES SLURM_JOB_GPUS SLURM_STEP_GPUS \
         $(env | sed -n 's/^\(SLURM_GPUS[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
mkdir "$work/dev" "$work/none"
export MCFLEET_DEV_ROOT="$work/none"
host="$srcdir/input/acceptance/host.yaml"

refused() {   # refused SEEN: the last run stopped before any test, naming SEEN
    expect_rc 3
    expect_in "$work/err" "acceptance run refused: it would measure CPUs (the host backend), but"
    expect_in "$work/err" "$1"
    [ "$(grep -c "acceptance run refused" "$work/err")" = 1 ] || fail "the refusal was printed more than once"
    ! grep -q "^matrix-fp64" "$work/out" || fail "a test ran before the refusal"
    [ ! -e "$work/r.h5" ] && [ ! -e "$work/r.h5.partial" ] || fail "a refused run left a file"
}

# device nodes: an NVIDIA GPU, an AMD one (kfd); auto found no GPU backend in this binary
touch "$work/dev/nvidia0" "$work/dev/nvidiactl"
MCFLEET_DEV_ROOT="$work/dev" mpi 2 --acceptance -o "$work/r.h5"
refused "has GPUs allocated ($work/dev/nvidia0); no GPU backend ran: "
grep -q "no GPU backend ran: .*$why" "$work/err" || { cat "$work/err"; fail "the refusal does not say why ($why)"; }
grep -q "nvidiactl" "$work/err" && fail "nvidiactl is not a GPU"
rm "$work/dev/nvidia0"
touch "$work/dev/kfd"
MCFLEET_DEV_ROOT="$work/dev" mpi 2 --deck "$host" -o "$work/r.h5"
refused "($work/dev/kfd)"
rm "$work/dev/kfd"
# the variables a launcher sets for an allocation with GPUs
CUDA_VISIBLE_DEVICES=0 mpi 2 --acceptance -o "$work/r.h5"
refused "(CUDA_VISIBLE_DEVICES=0)"
ROCR_VISIBLE_DEVICES=0,1 HIP_VISIBLE_DEVICES=1 mpi 1 --acceptance -o "$work/r.h5"
refused "(ROCR_VISIBLE_DEVICES=0,1, HIP_VISIBLE_DEVICES=1)"
SLURM_GPUS_ON_NODE=4 mpi 1 --acceptance -o "$work/r.h5"
refused "(SLURM_GPUS_ON_NODE=4)"
SLURM_JOB_GPUS=2 mpi 1 --acceptance -o "$work/r.h5"
refused "(SLURM_JOB_GPUS=2)"
# asking for the host backend is no way around it, and says so
SLURM_STEP_GPUS=0 mpi 1 --acceptance --backend host -o "$work/r.h5"
refused "no GPU backend ran: --backend host was asked for"

# values that allocate no GPU: the run goes on, on the host
for a in CUDA_VISIBLE_DEVICES= CUDA_VISIBLE_DEVICES=NoDevFiles CUDA_VISIBLE_DEVICES=-1 SLURM_GPUS_ON_NODE=0; do
    env "$a" "$MPIRUN" -np 1 --oversubscribe --mca btl self,vader,tcp --bind-to none \
        "$MCFLEET" --acceptance --quick -o "$work/ok.h5" --force >"$work/out" 2>"$work/err" && rc=0 || rc=$?
    expect_rc 0
done

# not an acceptance run: today's fallback to the host, and the hook is recorded
touch "$work/dev/nvidia3"
MCFLEET_DEV_ROOT="$work/dev" CUDA_VISIBLE_DEVICES=3 mpi 2 --quick -o "$work/plain.h5"
expect_rc 0
expect_in "$work/out" "backend host"
expect_in "$work/out" "warning: GPUs are allocated here (CUDA_VISIBLE_DEVICES=3, $work/dev/nvidia3), but this run measures CPUs (the host backend): "
grep -q "but this run measures CPUs (the host backend): .*$why" "$work/out" || { cat "$work/out"; fail "the warning does not say why ($why)"; }
need_h5py
"${PYTHON_H5:-/usr/bin/python3}" -c '
import sys, h5py
m = h5py.File(sys.argv[1], "r")["meta"].attrs
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
assert s(m["dev_root"]) == sys.argv[2], m["dev_root"]
assert s(m["backend"]) == "host" and int(m["acceptance"]) == 0
' "$work/plain.h5" "$work/dev" || fail "the plain run's /meta"
echo "acceptance backend ok"
