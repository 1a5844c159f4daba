# sourced by fleet16a/b.sh on the device: MPI, libs, env, identity
set -u
O=${OUT:-/tmp/out}; R=$O/r; mkdir -p "$R"
bash .devdeps/install-mpi-debs.sh .devdeps >"$R/install.log" 2>&1
mkdir -p /tmp/miss
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do ln -sf "$PWD/devbin/lib/$l" /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
NG=$(nvidia-smi -L | grep -c '^GPU')
MPI="mpirun -np $NG --map-by slot:PE=$(( $(nproc) / NG )) --bind-to core --report-bindings"
ident() {
  { date -u; cat devbin/commit.txt; devbin/mcfleet --version; nvidia-smi --query-gpu=index,name,uuid,serial,pci.bus_id,driver_version,clocks.max.sm,power.limit,enforced.power.limit,temperature.gpu --format=csv; } >"$R/version-$1.txt" 2>&1
}
smi_start() { nvidia-smi --query-gpu=timestamp,index,power.draw.instant,clocks.sm,temperature.gpu,utilization.gpu,clocks_event_reasons.active --format=csv,noheader,nounits -lms 100 >"$R/smi-$1.csv" 2>&1 & SMI=$!; }
smi_stop() { kill $SMI 2>/dev/null; }
run_deck() {   # name deck timeout
  local S=$(date +%s)
  timeout "$3" $MPI devbin/mcfleet --deck "$2" -o "$R/$1.h5" >"$R/$1.log" 2>&1
  echo "mpirun exit $? after $(( $(date +%s) - S )) s" >>"$R/$1.log"
  devbin/mcfleet report "$R/$1.h5" >"$R/$1-report.txt" 2>&1; echo "report exit $?" >>"$R/$1-report.txt"
  devbin/mcfleet report --format json "$R/$1.h5" >"$R/$1-report.json" 2>/dev/null
  tail -1 "$R/$1.log"; head -30 "$R/$1-report.txt"
}
pack() { cd "$O" && tar czf "$1.tgz" r && rm -rf r; }
