#!/bin/bash
# Issue 29, collectives (transfer family, link: collective) through NCCL, beside
# nccl-tests on the same 4 GPUs. For a 4 x H100 machine (NCCL 2.28.3 at
# /usr/lib/x86_64-linux-gnu/libnccl.so.2), devbin/mcfleet (CUDA build, with
# devbin/commit.txt) and devbin/ref/nccl-tests-bin.tar.xz (build/*_perf).
# About 2 minutes. Logs to $OUT/collective.tgz, what to check in
# $OUT/summary.txt:
#   1. the deck (collective.yaml: allreduce, allgather, reducescatter at node
#      and job scope, 8, 64, 256 MiB): exit 0, 18 tests verified on every
#      rank; the NCCL version line in the log (NCCL_DEBUG=VERSION) names 2.28.3;
#   2. MCFLEET_INJECT_FAULT on one test at rank 2: exit 1, its verification
#      fails naming the element, the value and the one expected;
#   3. MCFLEET_INJECT_SLOW on rank 1 (factor 2), for the record: rank 1
#      pauses after each allreduce for its time, so its figure and every
#      peer's (whose next call waits for it) come out near half the deck's
#      allreduce-node-64MiB busbw: in a collective a slow rank slows the
#      whole scope (the node's verdict, not rank 1's alone);
#   4. the table: mcfleet's busbw (median over ranks of each rank's median
#      repetition) beside nccl-tests' out-of-place busbw at 8, 64, 256 MiB.
#      Like for like: nccl-tests times `-n 20` collectives back to back on a
#      host clock from after a barrier to the stream's completion and divides
#      by 20 (the average over the iterations, then averaged over its
#      processes: one here); mcfleet enqueues 20 back to back between two
#      device events on each rank's stream (the average over the iterations),
#      5 repetitions after 2 warm-up ones. Both fp32 sum, out of place, the
#      same bus factors (allreduce 2(n-1)/n, the others (n-1)/n), the same
#      library. Expect the ratio near 1 (mcfleet's event time leaves out the
#      launch and the host's synchronize, so slightly above 1 at 8 MiB).
# NVLink multicast (NVLS) stays off for both: NCCL_NVLS_ENABLE=0.
O=${OUT:-/tmp/out}; R=/tmp/issue29; rm -rf "$R"; mkdir -p "$R" /tmp/miss "$O" /tmp/nt
D=docs/bench/2026-11-28-issue29
[ -f .devdeps/install-mpi-debs.sh ] && bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/ 2>/dev/null; done
NCCL_SO=/usr/lib/x86_64-linux-gnu/libnccl.so.2
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0 NCCL_DEBUG=VERSION
[ -f "$NCCL_SO" ] && export MCFLEET_NCCL_LIB=$NCCL_SO
tar xJf devbin/ref/nccl-tests-bin.tar.xz -C /tmp/nt
{ date -u; cat devbin/commit.txt; devbin/mcfleet --version; nvidia-smi -L; nvidia-smi topo -m
  ls -l /usr/lib/x86_64-linux-gnu/libnccl.so*; ldd /tmp/nt/build/all_reduce_perf | grep -i nccl; } >"$R/env.txt" 2>&1
pack() { tar czf "$O/collective.tgz" -C /tmp issue29; cp "$R/summary.txt" "$O/summary.txt"; }
M="--mca pml ob1 --mca btl self,vader --bind-to none -x NCCL_NVLS_ENABLE -x NCCL_DEBUG -x LD_LIBRARY_PATH"
[ -n "${MCFLEET_NCCL_LIB:-}" ] && M="$M -x MCFLEET_NCCL_LIB"
mcf() {   # NAME DECK [VAR=VALUE ...]: 4 ranks, one GPU each; prints the exit code
    local name=$1 deck=$2 envs=() v; shift 2
    for v in "$@"; do envs+=(-x "${v%%=*}"); done
    env "$@" timeout -s KILL 240 mpirun -np ${NG:-$(nvidia-smi -L | wc -l)} $M "${envs[@]}" devbin/mcfleet -v --deck "$deck" -o "$R/$name.h5" \
        >"$R/$name.log" 2>&1
    echo $?
}
rc=$(mcf deck $D/collective.yaml)
{ echo "CHECK 1: exit $rc (want 0); $(grep -m1 -E '^[0-9]+ tests:' "$R/deck.log")"
  echo "  $(grep -m1 -o 'NCCL version [^ ]*' "$R/deck.log") ($MCFLEET_NCCL_LIB)"
  grep -E "unsupported \(|FAILED|[Ee]rror:|gave up" "$R/deck.log" | head -5; } | tee "$R/summary.txt"
{ echo "tests:"; grep -E "name: allreduce-node-8MiB" $D/collective.yaml; } >"$R/one.yaml"
rc=$(mcf fault "$R/one.yaml" MCFLEET_INJECT_FAULT='allreduce-node-8MiB@1')
echo "CHECK 2: exit $rc (want 1); $(grep -m1 -E 'element [0-9]+ is' "$R/fault.log")" | tee -a "$R/summary.txt"
sed 's/8MiB/64MiB/g' "$R/one.yaml" >"$R/slow.yaml"
rc=$(mcf slow "$R/slow.yaml" MCFLEET_INJECT_SLOW='allreduce-node-64MiB@1' MCFLEET_INJECT_SLOW_FACTOR=2)
devbin/mcfleet report "$R/slow.h5" --format csv >"$R/slow.csv" 2>&1
{ echo "CHECK 3 (record): exit $rc; busbw per rank (rank 1 slowed):"
  grep -m1 -E "^allreduce-node-64MiB busbw" "$R/slow.log"; } | tee -a "$R/summary.txt"
for c in all_reduce all_gather reduce_scatter; do
    timeout -s KILL 90 /tmp/nt/build/${c}_perf -g ${NG:-$(nvidia-smi -L | wc -l)} -b 8M -e 256M -f 2 >"$R/nccl-tests-$c.log" 2>&1
    echo "nccl-tests $c: exit $?" | tee -a "$R/summary.txt"
done
pack
# the table: nccl-tests' out-of-place busbw (8th column of its data rows) at the matching sizes
{ echo "CHECK 4: busbw GB/s    size  nccl-tests(oop)  mcfleet-node  mcfleet-job  node/ref  job/ref"
  for c in allreduce:all_reduce allgather:all_gather reducescatter:reduce_scatter; do
      for s in 8MiB:8388608 64MiB:67108864 256MiB:268435456; do
          ref=$(awk -v b="${s#*:}" '$1 == b && $1 ~ /^[0-9]+$/ {print $8; exit}' "$R/nccl-tests-${c#*:}.log")
          node=$(awk -v t="${c%%:*}-node-${s%%:*}" '$1 == t && $2 == "busbw_gbs" {print $5; exit}' "$R/deck.log")
          job=$(awk -v t="${c%%:*}-job-${s%%:*}" '$1 == t && $2 == "busbw_gbs" {print $5; exit}' "$R/deck.log")
          awk -v c="${c%%:*}" -v s="${s%%:*}" -v r="${ref:-nan}" -v n="${node:-nan}" -v j="${job:-nan}" 'BEGIN {
              printf "  %-14s %6s  %15s  %12s  %11s  %8.3f  %7.3f\n", c, s, r, n, j, (r > 0 ? n / r : 0), (r > 0 ? j / r : 0) }'
      done
  done; } | tee -a "$R/summary.txt"
pack
