#!/bin/bash
# Issue 26 on the lent 2-GPU machine, devbin/mcfleet built on the lead's
# machine (devbin/commit.txt). Every run's log, file and report go to
# $OUT/issue26.tgz:
#   1. def:  the default deck (what ./quickstart.sh runs on a GPU machine) on
#            both GPUs: its report must not fail a healthy GPU on a profile
#            made for the acceptance deck's tests of the same names
#   2. acc:  the sm_90 acceptance deck, 12 repetitions (acc12.yaml: the same
#            tests, the same 'measured'), both GPUs: the run's exit code is
#            its report's
#   3. slow: the same with GPU 1's matrix tests at half speed
#            (MCFLEET_INJECT_SLOW='matrix-*@1'): exit 1, GPU 1 FAILs, GPU 0 not
#   4. env:  the same while another mcfleet (another job) runs on GPU 1:
#            GPU 1's causes are the environment's
O=${OUT:-/tmp/out}; R=/tmp/issue26; rm -rf "$R"; mkdir -p "$R" /tmp/miss
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ date -u; cat devbin/commit.txt; devbin/mcfleet --version; nvidia-smi -L; nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,power.limit --format=csv; } >"$R/env.txt" 2>&1
sed 's/^  repetitions: 40/  repetitions: 12/; s/^  warmup: 3/  warmup: 2/; s/duration: 60s/duration: 15s/' \
    input/acceptance/sm_90.yaml >"$R/acc12.yaml"
M="--mca pml ob1 --mca btl self,vader --bind-to none"
pack() { tar czf "$O/issue26.tgz" -C /tmp issue26; }
run() {   # run NAME [ENV=VALUE ...] -- MCFLEET ARGS: 2 ranks; exit code, report and its exit code
    local name=$1; shift; local envs=(); while [ "$1" != -- ]; do envs+=(-x "$1"); shift; done; shift
    local t0=$(date +%s.%N)
    timeout -s KILL 280 mpirun -np 2 $M "${envs[@]}" devbin/mcfleet "$@" -o "$R/$name.h5" >"$R/$name.log" 2>&1
    local rc=$? t1=$(date +%s.%N)
    devbin/mcfleet report "$R/$name.h5" >"$R/$name.report.txt" 2>&1; local rr=$?
    devbin/mcfleet report "$R/$name.h5" --format json >"$R/$name.report.json" 2>/dev/null
    printf '%-5s run exit %d, report exit %d, %.0f s | %s\n' "$name" $rc $rr "$(awk "BEGIN{print $t1 - $t0}")" \
        "$(grep -m1 '^VERDICT' "$R/$name.report.txt")" | tee -a "$R/summary.txt"
    pack
}
run def -- 
grep -E "not judged|FAIL profile" "$R/def.report.txt" | head -12 | tee -a "$R/summary.txt"
run acc -- --deck "$R/acc12.yaml"
export MCFLEET_INJECT_SLOW='matrix-*@1'
run slow MCFLEET_INJECT_SLOW -- --deck "$R/acc12.yaml"
unset MCFLEET_INJECT_SLOW
# another job on GPU 1: a one-rank mcfleet of the same deck there, started first
CUDA_VISIBLE_DEVICES=1 timeout -s KILL 280 mpirun -np 1 $M devbin/mcfleet --deck "$R/acc12.yaml" \
    -o "$R/other.h5" >"$R/other.log" 2>&1 &
sleep 8
run env -- --deck "$R/acc12.yaml"
wait
grep -E "environment|ANOTHER JOB|next:" "$R/env.report.txt" | head -8 | tee -a "$R/summary.txt"
pack
