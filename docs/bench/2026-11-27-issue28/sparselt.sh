#!/bin/bash
# Issue 28, library 2:4 sparsity: cuSPARSELt beside cuBLASLt on one GPU,
# devbin/mcfleet built on the lead's machine. Everything goes to
# $OUT/sparselt.tgz; the lines to check are in $OUT/sparselt-summary.txt.
#   0. where is libcusparseLt? (ldconfig, /usr/local/cuda/lib64, a search of
#      /, the python packages' nvidia/*): cuSPARSELt is a separate download,
#      not part of the CUDA toolkit, so it may well be absent. A copy found
#      off the loader's path is passed through MCFLEET_CUSPARSELT_LIB.
#   1. gemm dense (cuBLASLt) and gemm 2:4 (cuSPARSELt) for fp16, bf16, int8,
#      fp8-e4m3 at 4096 and 8192 (the family's size is m = n = k: no
#      rectangular shape is possible yet, so the paper's 512x2048x1024 case
#      is not run), then the ratio of their times per call, without and with
#      one encoding (prune + compress) per call, and encode_s itself.
#   2. the same 2:4 test with MCFLEET_CUSPARSELT_LIB=/nonexistent: it must be
#      "unsupported" with "cuSPARSELt not found: ..." (the library-missing
#      path on a real GPU). If the library is absent, run 1's 2:4 tests are
#      unsupported the same way, and the summary says so.
# Check: every dense and 2:4 test verified (or 2:4 unsupported with the
# reason when absent); the message of each verified 2:4 test names the
# library and its version; run 2 unsupported with the dlerror text.
# About 1.5 minutes of device time.
O=${OUT:-/tmp/out}; R=/tmp/sparselt; rm -rf "$R"; mkdir -p "$R" /tmp/miss "$O"
S="$R/summary.txt"
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/ 2>/dev/null; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
pack() { cp "$S" "$O/sparselt-summary.txt"; tar czf "$O/sparselt.tgz" -C /tmp sparselt; }
{ date -u; cat devbin/commit.txt 2>/dev/null; devbin/mcfleet --version; nvidia-smi -L; } >"$R/env.txt" 2>&1

# 0. the library
{
    echo "== ldconfig -p | grep -i cusparselt"; ldconfig -p | grep -i cusparselt
    echo "== /usr/local/cuda/lib64"; ls -l /usr/local/cuda/lib64/ 2>/dev/null | grep -i cusparselt
    echo "== find / -name 'libcusparseLt*'"; timeout 60 find / -xdev -name 'libcusparseLt*' 2>/dev/null | head
    echo "== python packages"; ls -d /usr/lib/python3/dist-packages/nvidia/* /usr/local/lib/python3*/dist-packages/nvidia/* 2>/dev/null | head -40
} >"$R/library.txt" 2>&1
found=$(grep -m1 -E '/libcusparseLt\.so(\.0)?$' <(timeout 60 find / -xdev -name 'libcusparseLt.so*' 2>/dev/null))
if ldconfig -p | grep -q 'libcusparseLt.so.0'; then
    echo "cuSPARSELt: on the loader's path ($(ldconfig -p | grep -m1 'libcusparseLt.so.0'))" | tee -a "$S"
elif [ -n "$found" ]; then
    export MCFLEET_CUSPARSELT_LIB="$found"
    echo "cuSPARSELt: found off the loader's path, used through MCFLEET_CUSPARSELT_LIB=$found" | tee -a "$S"
else
    echo "cuSPARSELt: ABSENT on this machine (no libcusparseLt anywhere): every 2:4 test must be unsupported" \
         "with 'cuSPARSELt not found: ...'" | tee -a "$S"
fi

# 1. dense beside 2:4
{
    echo "defaults: {repetitions: 5, warmup: 2, time_limit: 60}"
    echo "tests:"
    for t in fp16 bf16 int8 fp8-e4m3; do for n in 4096 8192; do
        it=$([ $n = 8192 ] && echo 10 || echo 40)
        echo "  - {name: d-$t-$n, kernel: gemm, dtype: $t, size: $n, iterations: $it}"
        echo "  - {name: s-$t-$n, kernel: gemm, dtype: $t, size: $n, iterations: $it, sparsity: \"2:4\"}"
    done; done
} >"$R/deck.yaml"
t0=$(date +%s)
timeout -s KILL 170 mpirun -np 1 --bind-to none devbin/mcfleet --deck "$R/deck.yaml" -o "$R/pair.h5" >"$R/pair.log" 2>&1
echo "run 1: exit $?, $(( $(date +%s) - t0 )) s" | tee -a "$S"
devbin/mcfleet report "$R/pair.h5" >"$R/pair.report.txt" 2>&1
grep -E "^[0-9]+ tests:|VERDICT|verdict:" "$R/pair.log" | tee -a "$S"
grep -E "unsupported|FAILED|error" "$R/pair.log" | grep -v "^[0-9]* tests:" | head -20 | tee -a "$S"
# the per-rank medians of the summary table: name metric unit ranks median ...
awk '
  $2 == "gflops" { g[$1] = $5 } $2 == "encode_s" { enc[$1] = $5 } $2 == "gflops_executed" { ex[$1] = $5 }
  END {
    printf "%-16s %11s %11s %11s %9s %9s %10s %9s\n", "type-size", "dense GF/s", "2:4 GF/s", "2:4 exec", "t dense", "t 2:4", "encode", "ratio (w/ enc)"
    for (k in g) if (k ~ /^s-/) {
      d = "d-" substr(k, 3); split(k, p, "-"); n = p[length(p)] + 0; f = 2 * n * n * n
      if (!(d in g) || g[d] <= 0 || g[k] <= 0) continue
      td = f / (g[d] * 1e9); ts = f / (g[k] * 1e9)
      printf "%-16s %11.0f %11.0f %11.0f %7.3fms %7.3fms %8.1fus %6.2fx (%.2fx)\n", substr(k, 3), g[d], g[k], ex[k], td * 1e3, ts * 1e3, enc[k] * 1e6, td / ts, td / (ts + enc[k])
    }
  }' "$R/pair.log" | sort | tee -a "$S"
# the verified 2:4 tests' message (the file's results/<test>/message; the text report leaves it out)
echo "library recorded: $(grep -a -o 'cuSPARSELt [0-9][0-9.]* ([^)]*)' "$R/pair.h5" | sort -u | head -2 | tr '\n' ' ')" | tee -a "$S"
pack

# 2. the library missing, on a real GPU
printf 'tests:\n  - {name: s-fp16-missing, kernel: gemm, dtype: fp16, size: 4096, iterations: 4, sparsity: "2:4"}\n' >"$R/missing.yaml"
MCFLEET_CUSPARSELT_LIB=/nonexistent/libcusparseLt.so.0 timeout -s KILL 60 mpirun -np 1 --bind-to none \
    -x MCFLEET_CUSPARSELT_LIB devbin/mcfleet --deck "$R/missing.yaml" -o "$R/missing.h5" >"$R/missing.log" 2>&1
echo "run 2 (library missing): exit $?" | tee -a "$S"
grep -E "^[0-9]+ tests:|cuSPARSELt not found" "$R/missing.log" | head -3 | tee -a "$S"
pack
