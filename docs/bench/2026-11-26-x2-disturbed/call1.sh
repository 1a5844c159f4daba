#!/bin/bash
# Issue 16 run 2 and issue 13's compare pair, call 1 of 2: run 1 (the sm_90
# acceptance deck, clean, one rank per GPU), then run 2 (the same deck with a
# torch matmul loop on GPU 1) started in its own session, finished in call 2.
T0=$(date +%s)
mkdir -p /tmp/miss
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
# copies, not links: the next call's working tree may replace devbin/
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/; done
. devbin/common.sh
cp devbin/mcfleet "$MCF"
ldd "$MCF" | grep "not found"
ident 1
{ nvidia-smi topo -m; echo; lscpu; echo; nvidia-smi -q; } >"$R/topo.txt" 2>&1
setsid -f nvidia-smi --query-gpu=timestamp,index,power.draw.instant,clocks.sm,temperature.gpu,utilization.gpu,clocks_event_reasons.active --format=csv,noheader,nounits -lms 100 >"$R/smi.csv" 2>&1 </dev/null
run_deck run1-clean input/acceptance/sm_90.yaml 420
sleep 5
setsid -f bash devbin/run2-bg.sh </dev/null >"$R/run2-bg.out" 2>&1
# hold the call (and so the machine) until just before its 600 s limit
while [ $(( $(date +%s) - T0 )) -lt 555 ] && [ ! -e "$R/run2.done" ]; do sleep 5; done
tail -3 "$R/run2-disturbed.log"
snapshot call1
