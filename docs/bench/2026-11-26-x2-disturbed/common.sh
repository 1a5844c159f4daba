# Sourced on the device by call1.sh, run2-bg.sh and call2.sh. The results live
# in /tmp/f16 (not $OUT, which is emptied before each call) so that run 2,
# started in its own session in call 1, survives into call 2.
set -u
F=/tmp/f16; R=$F/r; mkdir -p "$R" "$F/bin"
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
NG=$(nvidia-smi -L | grep -c '^GPU')
MPI="mpirun -np $NG --map-by slot:PE=$(( $(nproc) / NG )) --bind-to core --report-bindings"
MCF=$F/bin/mcfleet   # a copy: the next call's working tree may replace devbin/
ident() {
  { date -u; cat devbin/commit.txt; $MCF --version; nvidia-smi --query-gpu=index,name,uuid,serial,pci.bus_id,driver_version,clocks.max.sm,power.limit,enforced.power.limit,temperature.gpu --format=csv; } >"$R/version-$1.txt" 2>&1
}
# name deck seconds: SIGUSR1 at the limit lets the ranks write what they measured
run_deck() {
  local S=$(date +%s)
  timeout -s USR1 -k 90 "$3" $MPI $MCF --deck "$2" -o "$R/$1.h5" >"$R/$1.log" 2>&1
  echo "mpirun exit $? after $(( $(date +%s) - S )) s" >>"$R/$1.log"
  $MCF report "$R/$1.h5" >"$R/$1-report.txt" 2>&1; echo "report exit $?" >>"$R/$1-report.txt"
  $MCF report --format json "$R/$1.h5" >"$R/$1-report.json" 2>/dev/null
  tail -1 "$R/$1.log"; head -40 "$R/$1-report.txt"
}
snapshot() { tar czf "$OUT/$1.tgz" -C "$F" r; ls -la "$R"; }
