#!/bin/bash
# Issue 16, call A: the machine's topology; run 1 (sm_90 acceptance, one rank
# per GPU); run 3 (sustained at the power limit, all GPUs at once)
. devbin/fleet16-common.sh
ident a
{ nvidia-smi topo -m; echo; lscpu; echo; cat /sys/bus/pci/devices/*/numa_node 2>/dev/null | sort | uniq -c; } >"$R/topo.txt" 2>&1
nvidia-smi -q >"$R/smi-q.txt" 2>&1
smi_start a
run_deck run1-acceptance input/acceptance/sm_90.yaml 330
sleep 5
run_deck run3-sustained devbin/sustained16.yaml 200
smi_stop
pack fleet16a
