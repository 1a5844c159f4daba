#!/bin/bash
# Issue 31 on one NVIDIA GPU, with this commit's binary (devbin/mcfleet, built
# on the lead's machine; devbin/commit.txt): part "bench" runs bench/cuda.sh
# (64 tests of bench/cuda-bench.yaml, the references beside them); part
# "decks" runs every shipped deck with --quick (input/*.yaml and the GPU's
# acceptance deck). Full logs and results come back as $OUT/PART.tgz.
part=${1:?usage: run.sh bench|decks}
O=${OUT:-/tmp/out}; R=/tmp/$part; rm -rf "$R"; mkdir -p "$R" /tmp/miss   # a warm machine keeps /tmp: never -o onto an old file
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0
{ date -u; cat devbin/commit.txt; devbin/mcfleet --version
  nvidia-smi --query-gpu=index,name,uuid,serial,pci.bus_id,driver_version,clocks.max.sm,power.limit --format=csv; } >"$R/version.txt" 2>&1
case $part in
bench)
    timeout -s USR1 480 bash bench/cuda.sh devbin/mcfleet "$R/bench" >"$R/cuda-sh.out" 2>&1; echo "cuda.sh exit $?" >>"$R/cuda-sh.out"
    grep -E "tests:|WRONG|FAILED|exit" "$R/cuda-sh.out" "$R/bench/mcfleet.log" | tail -12 ;;
decks)
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
    for d in input/*.yaml input/acceptance/sm_$arch.yaml; do
        n=$(basename "$d" .yaml)
        timeout -s USR1 150 mpirun -np 1 devbin/mcfleet --quick --deck "$d" -o "$R/$n.h5" >"$R/$n.log" 2>&1
        echo "exit $?" >>"$R/$n.log"
        devbin/mcfleet report "$R/$n.h5" >"$R/$n-report.txt" 2>&1; echo "report exit $?" >>"$R/$n-report.txt"
        printf '%-16s %s | WRONG lines: %s | %s\n' "$n" "$(grep -E '^.*tests:' "$R/$n.log" | tail -1)" \
            "$(grep -c WRONG "$R/$n.log")" "$(tail -1 "$R/$n.log")"
    done ;;
esac
cat "$R/version.txt"
tar czf "$O/$part.tgz" -C /tmp "$part"
