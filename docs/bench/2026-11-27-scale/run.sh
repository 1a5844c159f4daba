#!/bin/bash
# Issue 25: the host backend at 64 to 4,096 ranks on the lent machine's CPUs
# (one node, oversubscribed above its core count), with devbin/mcfleet built on
# the lead's machine (devbin/commit.txt). Usage: run.sh PLAN, PLAN a list of
# RANKS:MODE[:TIMEOUT] (MODE gather, collective or auto), or gpu:LIMIT (the
# GPUs' acceptance deck under --time-limit LIMIT). Each run's full log, -v
# cost line, wall time and bench/scale_summary.py line go to $OUT/PART.tgz; a
# summary line per run to stdout. Open MPI is kept to ob1 over shared memory
# (MCA below): one node, and UCX's per-process start on a GPU node is not what
# is measured.
part=${PART:-scale}
O=${OUT:-/tmp/out}; R=/tmp/$part; rm -rf "$R"; mkdir -p "$R" /tmp/miss   # a warm machine keeps /tmp
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ulimit -n 1048576 2>/dev/null || ulimit -n 65536
ulimit -u unlimited 2>/dev/null
{ date -u; cat devbin/commit.txt; devbin/mcfleet --version; nproc; free -g; df -h /dev/shm /tmp; ulimit -a
  mpirun --version | head -1; cat /proc/sys/kernel/pid_max /proc/sys/kernel/threads-max; } >"$R/env.txt" 2>&1
for spec in "$@"; do
    IFS=: read -r n mode tmo <<<"$spec"
    if [ "$n" = gpu ]; then   # every GPU's acceptance deck, stopped by its time limit
        d=$R/gpu-$mode; mkdir -p "$d"; t0=$(date +%s.%N)
        nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version --format=csv >"$d/gpus.txt" 2>&1
        ngpu=$(nvidia-smi -L | wc -l)
        arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
        # the acceptance deck of the GPUs at hand (--acceptance looks in the installed prefix, absent here)
        timeout -s KILL 590 mpirun -np "$ngpu" --bind-to none devbin/mcfleet -v --deck input/acceptance/sm_$arch.yaml \
            --time-limit "$mode" \
            -o "$d/acc.h5" >"$d/log" 2>&1
        rc=$?; t1=$(date +%s.%N)
        printf "gpu acceptance on $ngpu GPUs"' --time-limit %s: rc %d wall %.1f s file %s\n' "$mode" $rc \
            "$(awk "BEGIN{print $t1 - $t0}")" "$(ls "$d"/acc.h5* 2>/dev/null | tr '\n' ' ')" | tee -a "$R/summary.txt"
        grep -E "time limit|stopped by|^cost:" "$d/log" | tee -a "$R/summary.txt"
        devbin/mcfleet report "$d/acc.h5" >"$d/report.txt" 2>&1; echo "report exit $?" >>"$d/report.txt"
        head -12 "$d/report.txt"
        tar czf "$O/$part.tgz" -C /tmp "$part"
        continue
    fi
    tmo=${tmo:-200}
    d=$R/$n-$mode; mkdir -p "$d"
    t0=$(date +%s.%N)
    # yield_when_idle: ranks that wait give their core away (more ranks than cores here)
    launch=$(date +%s)
    timeout -s KILL "$tmo" mpirun -np "$n" --oversubscribe --bind-to none \
        --mca mpi_yield_when_idle 1 --mca orte_abort_on_non_zero_status 0 --mca pml ob1 --mca btl self,vader \
        devbin/mcfleet -v --power off --backend host --hdf5-mode "$mode" --deck bench/scale.yaml \
        -o "$d/run.h5" >"$d/log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    pkill -9 -f devbin/mcfleet 2>/dev/null; sleep 1
    file=no; [ -f "$d/run.h5" ] && file=yes
    printf '%5d %-10s rc %3d wall %7.1f s file %s | %s\n' "$n" "$mode" "$rc" "$(awk "BEGIN{print $t1 - $t0}")" "$file" \
        "$(grep -E '^cost:' "$d/log" | head -1 | cut -c1-400)" | tee -a "$R/summary.txt"
    grep -iE "improper|error|abort|killed|signal|orte|not enough|refused" "$d/log" | head -5
    [ $file = yes ] && devbin/mcfleet report "$d/run.h5" >"$d/report.txt" 2>&1
    [ $file = yes ] && python3 bench/scale_summary.py "$d/run.h5" "$launch" 2>&1 | tee -a "$R/summary.txt"
    tar czf "$O/$part.tgz" -C /tmp "$part"   # after each run: a call cut at its limit still brings these back
done
tar czf "$O/$part.tgz" -C /tmp "$part"
