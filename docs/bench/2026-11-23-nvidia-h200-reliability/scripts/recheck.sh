#!/bin/bash
# 2026-11-23 GPU re-check of mcfleet: stop signals, a hung rank, the bench deck.
# recheck.sh OUTDIR [BACKEND] [BENCHDECK] [BUDGET_S]
# Everything is written under a work dir and tarred into OUTDIR/logs.tgz after each step.
set -u
OUTD=$1; B=${2:-cuda}; BENCH=${3:-bench/cuda-bench.yaml}; BUDGET=${4:-560}
D=$(cd "$(dirname "$0")" && pwd); BIN=$D/mcfleet
W=${WORKDIR:-/tmp/recheck}; rm -rf "$W"; mkdir -p "$W" "$OUTD"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN="mpirun --bind-to none ${MPI_EXTRA:-}"
T0=$(date +%s.%N)
PY=${PY:-python3}
$PY -c 'import h5py' 2>/dev/null || PY=/usr/bin/python3
el() { awk -v a="$(date +%s.%N)" -v b="$T0" 'BEGIN{printf "%.3f", a-b}'; }
log() { echo "[$(date -u +%H:%M:%S.%3N) +$(printf %.1f "$(el)")s] $*" | tee -a "$W/steps.log"; }
pack() { tar czf "$OUTD/logs.tgz.tmp" -C "$W" --exclude=bench.h5 . && mv "$OUTD/logs.tgz.tmp" "$OUTD/logs.tgz"; }
trap pack EXIT
log "start: backend $B, python $PY, $(uname -r)"
$BIN --version >"$W/version.txt" 2>&1
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,power.limit,memory.total,clocks.max.sm --format=csv >"$W/gpu.txt" 2>&1
cat "$W/gpu.txt" 2>/dev/null

# rank_pid OUTPUT RANK: pid of the mcfleet process of world rank RANK writing OUTPUT
rank_pid() {
    local p ppid rest cand=""
    for p in /proc/[0-9]*; do   # children of mpirun first (no fork per process)
        read -r _ _ _ ppid rest 2>/dev/null <"$p/stat" || continue
        [ "$ppid" = "$MPID" ] && cand="$cand ${p#/proc/}"
    done
    [ -n "$cand" ] || cand=$(ls /proc | grep -E '^[0-9]+$')
    for p in $cand; do
        grep -q -- "$1" "/proc/$p/cmdline" 2>/dev/null || continue
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2" && { echo "$p"; return; }
    done
}
# wait_for FILE PATTERN SECONDS
wait_for() { local i=0; while ! grep -q -- "$2" "$1" 2>/dev/null; do sleep 0.1; i=$((i+1)); [ $i -ge $(($3*10)) ] && return 1; done; return 0; }
# launch TAG DECK: mpirun -np 2 in the background, $MPID its pid, killed after 150 s at the latest
launch() {
    $MPIRUN -np 2 "$BIN" --backend "$B" -v --deck "$2" -o "$W/$1.h5" >"$W/$1.log" 2>&1 &
    MPID=$!
    ( sleep 150; kill -KILL $MPID 2>/dev/null && echo "KILLED BY THE 150 s GUARD" >>"$W/$1.log" ) & GUARD=$!
}
finish() {  # TAG T_SIGNAL
    wait $MPID; RC=$?
    local tend; tend=$(date +%s.%N)
    kill $GUARD 2>/dev/null; wait $GUARD 2>/dev/null
    log "$1: mpirun exit code $RC, $(awk -v a="$tend" -v b="$2" 'BEGIN{printf "%.3f", a-b}') s from the signal to mpirun's exit"
    ls -la --time-style=full-iso "$W" | grep -- "$1" | tee -a "$W/steps.log"
    for f in "$W/$1.h5" "$W/$1.h5.partial"; do
        [ -e "$f" ] || continue
        log "summary of $(basename "$f"):"
        $PY "$D/h5sum.py" "$f" >"$W/$1.h5sum.txt" 2>&1; cat "$W/$1.h5sum.txt" | tee -a "$W/steps.log"
        "$BIN" report "$f" >"$W/$1.report.txt" 2>&1; rrc=$?; log "mcfleet report $(basename "$f"): exit $rrc"
        grep -A4 -i "hung\|verdict" "$W/$1.report.txt" | head -20
    done
    pack
}

# ---- b. stop signals to mpirun during a long GPU test
STEPS=${STEPS:-stop hang bench}
for sig in USR1 TERM; do
    case " $STEPS " in *" stop "*) ;; *) break;; esac
    tag=stop-$(echo $sig | tr A-Z a-z)
    log "$tag: launching (2 ranks, one GPU, deck stop.yaml)"
    launch $tag "$D/stop.yaml"
    if wait_for "$W/$tag.log" "] long-fp64" 90; then
        sleep 3
        log "$tag: long-fp64 running; sending SIG$sig to mpirun $MPID"
        TS=$(date +%s.%N); kill -$sig $MPID
    else
        log "$tag: long-fp64 never started"; TS=$(date +%s.%N)
    fi
    finish $tag $TS
    tail -25 "$W/$tag.log"
done

# ---- c. a hung rank: rank 1 SIGSTOPped during hang-a (time_limit 5)
case " $STEPS " in *" hang "*) ;; *) exit 0;; esac
tag=hang
log "$tag: launching (2 ranks, one GPU, deck hang.yaml)"
launch $tag "$D/hang.yaml"
VICTIM=""
if wait_for "$W/$tag.log" "] hang-a" 90; then
    sleep 2
    VICTIM=$(rank_pid "$W/$tag.h5" 1)
    log "$tag: hang-a running; SIGSTOP to world rank 1, pid $VICTIM ($(tr '\0' ' ' </proc/$VICTIM/cmdline 2>/dev/null | cut -c1-120))"
    TS=$(date +%s.%N); kill -STOP $VICTIM; sleep 0.1
    log "$tag: rank 1 state after SIGSTOP: $(awk '{print $3}' /proc/$VICTIM/stat 2>/dev/null); rank 0's log so far: $(tail -1 "$W/$tag.log")"
else
    log "$tag: hang-a never started"; TS=$(date +%s.%N)
fi
finish $tag $TS
if [ -n "$VICTIM" ]; then
    st=$(awk '{print $3}' /proc/$VICTIM/stat 2>/dev/null)
    if [ -n "$st" ] && [ "$st" != Z ]; then log "$tag: the stopped rank $VICTIM is still there ($(awk '{print $3}' /proc/$VICTIM/stat)): SIGKILL"; kill -KILL $VICTIM; sleep 1
    else log "$tag: the stopped rank $VICTIM is gone or a zombie (state '$st'): ended by mpirun"; fi
fi
tail -30 "$W/$tag.log"
command -v nvidia-smi >/dev/null && nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv >"$W/gpu-apps-after-hang.txt" 2>&1 && cat "$W/gpu-apps-after-hang.txt"

case " $STEPS " in *" bench "*) ;; *) exit 0;; esac
# ---- a. the bench deck, 1 rank, with what time is left
left=$(awk -v a="$BUDGET" -v b="$(el)" 'BEGIN{printf "%d", a-b}')
log "bench: launching with timeout $left s"
timeout -s KILL $left $MPIRUN -np 1 "$BIN" --backend "$B" -v --deck "$BENCH" -o "$W/bench.h5" >"$W/bench.log" 2>&1
log "bench: exit code $?"
tail -15 "$W/bench.log"
if [ -e "$W/bench.h5" ]; then
    cp "$W/bench.h5" "$OUTD/bench.h5"
    "$BIN" report "$W/bench.h5" >"$W/bench-report.txt" 2>&1; log "bench report exit $?"
    $PY "$D/h5sum.py" --bench "$W/bench.h5" >"$W/bench-table.txt" 2>&1; log "bench table (python $PY): exit $?"
    tail -12 "$W/bench-table.txt"
fi
log "done"
