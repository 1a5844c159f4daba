#!/bin/bash
# Call 2 of 2: wait for run 2; on a SKU without a sustained run yet (run 3 of
# 2026-11-25 was on H100s), run 3 when time is left; stop the sampler; bring back.
T0=$(date +%s)
. devbin/common.sh
while [ ! -e "$R/run2.done" ] && [ $(( $(date +%s) - T0 )) -lt 560 ]; do sleep 5; done
cat "$R/run2.done" 2>/dev/null || echo "run 2 not done after $(( $(date +%s) - T0 )) s"
tail -3 "$R/run2-disturbed.log"; head -40 "$R/run2-disturbed-report.txt"; tail -2 "$R/torch.log"
if [ -e "$R/run2.done" ] && [ $(( $(date +%s) - T0 )) -lt 380 ] && ! nvidia-smi -L | grep -q H100; then
  sleep 5; run_deck run3-sustained devbin/sustained16.yaml 170
fi
pkill -f 'nvidia-smi --query-gpu=timestamp' ; sleep 1
snapshot call2
