#!/bin/bash
# 2026-11-23 follow-up: where does SIGUSR1 to mpirun get lost on the GPU machine?
# sigprobe.sh OUTDIR
set -u
OUTD=$1; D=$(cd "$(dirname "$0")" && pwd); BIN=$D/mcfleet
W=/tmp/sigprobe; rm -rf $W; mkdir -p $W $OUTD
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s.%N)
el() { awk -v a="$(date +%s.%N)" -v b="$1" 'BEGIN{printf "%.3f", a-b}'; }
log() { echo "[$(date -u +%H:%M:%S.%3N) +$(el $T0)s] $*" | tee -a $W/probe.log; }
pack() { tar czf $OUTD/probe.tgz -C $W .; }
trap pack EXIT
sigs() {  # PID LABEL: the signal masks of a process and of each of its threads (SIGUSR1 = bit 10 = 0x200)
    log "$2 pid $1: $(grep -E '^Sig(Blk|Ign|Cgt)' /proc/$1/status 2>/dev/null | tr '\n' ' ')"
    for t in /proc/$1/task/*; do echo "   thread ${t##*/} $(cat $t/comm 2>/dev/null): $(grep -E '^SigBlk' $t/status 2>/dev/null)"; done >>$W/probe.log
}
kids() { local p pp r; for p in /proc/[0-9]*; do read -r _ _ _ pp r 2>/dev/null <$p/stat || continue; [ "$pp" = "$1" ] && echo ${p#/proc/}; done; }
waitline() { local i=0; until grep -q -- "$2" $1 2>/dev/null; do sleep 0.1; i=$((i+1)); [ $i -ge 600 ] && return 1; done; return 0; }
# E1: does this mpirun forward SIGUSR1 to its ranks at all?
mpirun -np 2 bash -c 'trap "echo rank $OMPI_COMM_WORLD_RANK got SIGUSR1; exit 0" USR1; while :; do sleep 0.1; done' >$W/e1.log 2>&1 &
M=$!; sleep 3; log "E1: SIGUSR1 to mpirun $M (ranks: bash with a trap)"; sigs $M mpirun
kill -USR1 $M; ( sleep 8; kill -KILL $M 2>/dev/null ) & G=$!; wait $M; log "E1: mpirun exit $?"; kill $G 2>/dev/null; cat $W/e1.log | tee -a $W/probe.log
# run TAG BACKEND DECK WHO: WHO = mpirun | ranks | single
run() {
    local tag=$1 b=$2 deck=$3 who=$4
    if [ $who = single ]; then $BIN --backend $b -v --deck $deck -o $W/$tag.h5 >$W/$tag.log 2>&1 &
    else mpirun --bind-to none -np 2 $BIN --backend $b -v --deck $deck -o $W/$tag.h5 >$W/$tag.log 2>&1 & fi
    M=$!; ( sleep 75; kill -KILL $M 2>/dev/null && echo "KILLED BY THE 75 s GUARD" >>$W/$tag.log ) & G=$!
    waitline $W/$tag.log "] long-fp64" || log "$tag: long-fp64 never started"
    sleep 3
    local targets=$M; [ $who = ranks ] && targets=$(kids $M)
    [ $who != single ] && sigs $M "$tag mpirun"
    for p in $(kids $M); do sigs $p "$tag rank"; done; [ $who = single ] && sigs $M "$tag single"
    log "$tag: SIGUSR1 to $who ($targets)"; local ts=$(date +%s.%N); kill -USR1 $targets
    wait $M; local rc=$?; kill $G 2>/dev/null
    log "$tag: exit $rc, $(el $ts) s after the signal; $(ls $W | grep "^$tag.h5" | tr '\n' ' ')"
    grep -E "long-fp64|stopped|signal|KILLED|after-|\] " $W/$tag.log | head -8 | tee -a $W/probe.log
    [ -e $W/$tag.h5 ] && python3 $D/h5sum.py $W/$tag.h5 2>&1 | grep -E "complete|not_run|^test" | tee -a $W/probe.log
}
run e2-single cuda $D/stop24.yaml single
run e3-ranks cuda $D/stop24.yaml ranks
run e4-host host $D/stophost.yaml mpirun
run e5-mpirun cuda $D/stop24.yaml mpirun
log done
