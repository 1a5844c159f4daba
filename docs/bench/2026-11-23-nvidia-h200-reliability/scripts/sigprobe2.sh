#!/bin/bash
# 2026-11-23 follow-up 2: Open MPI's configuration and SIGUSR1 forwarding on the GPU machine
OUTD=$1; D=$(cd "$(dirname "$0")" && pwd); W=/tmp/sp2; rm -rf $W; mkdir -p $W
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec > >(tee $OUTD/probe2.log) 2>&1
readlink -f $(which mpirun); dpkg -S $(readlink -f $(which mpirun)) 2>&1 | head -2
env | grep -i "^OMPI_MCA\|^PMIX_MCA" ; grep -v "^#" /etc/openmpi/openmpi-mca-params.conf 2>/dev/null | grep . ; ls /etc/openmpi 2>&1
ompi_info --param ess all --level 9 2>&1 | grep -i -A1 "forward"
ompi_info --param odls all --level 9 2>&1 | grep -i "sigkill\|timeout" | head -4
trapcmd='trap "echo rank $OMPI_COMM_WORLD_RANK got SIGUSR1; exit 0" USR1; while :; do sleep 0.1; done'
e1() {  # LABEL MPIRUN_ARGS...
    local l=$1; shift
    mpirun "$@" -np 2 bash -c "$trapcmd" >$W/$l.log 2>&1 & local M=$!
    sleep 3; kill -USR1 $M; ( sleep 6; kill -KILL $M 2>/dev/null && echo "KILLED BY 6 s GUARD" >>$W/$l.log ) & local G=$!
    wait $M; echo "== $l: mpirun exit $?"; kill $G 2>/dev/null; grep -v "^ *$" $W/$l.log | grep -v "^\[.*\] mca\|^ *$" | head -12
}
e1 default
e1 param-usr1 --mca ess_base_forward_signals SIGUSR1
e1 verbose --mca ess_base_verbose 10 --mca odls_base_verbose 10
grep -i "signal" $W/verbose.log | head -20
# the same three with a foreground-launched mpirun under setsid (own session)
setsid mpirun -np 2 bash -c "$trapcmd" >$W/setsid.log 2>&1 & M=$!; sleep 3
MP=$M; echo "setsid mpirun pid $MP"; kill -USR1 $MP; sleep 3; cat $W/setsid.log; kill -KILL $MP 2>/dev/null; echo "setsid mpirun still there: $?"
