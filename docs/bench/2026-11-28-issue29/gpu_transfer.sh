#!/bin/bash
# Issue 29 on a lent 4 x H100 machine, in one call (about 2 minutes): the GPU
# backend's host and peer links (transfer.yaml, one rank per GPU, every GPU
# visible to every rank) beside nvbandwidth's matching tests on the same
# GPUs, 64 MiB buffers on both sides. Needs devbin/mcfleet built with CUDA
# (devbin/commit.txt) and devbin/ref/nvbandwidth.xz. Everything under
# $OUT/issue29 (and $OUT/issue29.tgz):
#   1. transfer.h5/.log/.report.txt  the deck on 4 ranks
#   2. nvbandwidth.json              nvbandwidth -b 64 -j, the tests of compare.py's table
#   3. compare.txt                   compare.py: each figure beside nvbandwidth's
#                                    (run it here on the fetched files where the
#                                    device has no python3 with h5py)
#   4. fault.*                       MCFLEET_INJECT_FAULT='*@1': rank 1's rows
#                                    WRONG, naming the link, the direction and
#                                    the first bad offset; the others verified
#   5. hidden.*                      each rank seeing its own GPU alone
#                                    (CUDA_VISIBLE_DEVICES per rank): the peer
#                                    tests unsupported, naming CUDA_VISIBLE_DEVICES
# Which nvbandwidth test each mcfleet test meets (compare.py's docstring says
# how each pair is compared; row i of a matrix is GPU i, which runs the copy):
#   host-in-copy   host_to_device_memcpy_ce        host-in-sm   host_to_device_memcpy_sm
#   host-out-copy  device_to_host_memcpy_ce        host-out-sm  device_to_host_memcpy_sm
#   host-both-copy {host_to,device_to}_{device,host}_bidirectional_memcpy_ce (the lower)
#   host-both-sm   host_to_device_bidirectional_memcpy_sm (split warps: half the total)
#   peer-in-copy   device_to_device_memcpy_read_ce   (GPU i's engines pull j's memory)
#   peer-out-copy  device_to_device_memcpy_write_ce  (GPU i's engines push into j's)
#   peer-in-sm / peer-out-sm   device_to_device_memcpy_read_sm / _write_sm
#   peer-both-*    device_to_device_bidirectional_memcpy_{read,write}_{ce,sm}, total / 2
#                  (nvbandwidth runs one direction from each GPU; mcfleet both from GPU i)
#   peer-latency   device_to_device_latency_sm (ns; 64 MiB chains, beyond the L2)
#   (device_local_copy: this GPU's own memory, for scale)
# What to check: every test of 1 verified on every rank (host-*-remote
# unsupported only on a one-NUMA-node machine); compare.txt's lowest ratios
# >= 0.95; 4 and 5 as said.
B=docs/bench/2026-11-28-issue29
O=${OUT:-/tmp/out}/issue29; rm -rf "$O"; mkdir -p "$O" /tmp/miss
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/ 2>/dev/null; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ date -u; cat devbin/commit.txt; devbin/mcfleet --version; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,pcie.link.gen.max,pcie.link.width.max \
    --format=csv; nvidia-smi topo -m; ls /sys/devices/system/node/ | grep node;
  for d in /sys/bus/pci/devices/*; do [ "$(cat $d/vendor 2>/dev/null)" = 0x10de ] &&
    echo "$(basename $d) numa_node $(cat $d/numa_node)"; done; } >"$O/env.txt" 2>&1
grep -E "^GPU|numa_node" "$O/env.txt"
M="--mca pml ob1 --mca btl self,vader --bind-to none"
pack() { tar czf "${OUT:-/tmp/out}/issue29.tgz" -C "$(dirname "$O")" issue29; }
run() {   # run NAME NP [mpirun args] -- mcfleet args
    local name=$1 np=$2; shift 2; local pre=(); while [ "$1" != -- ]; do pre+=("$1"); shift; done; shift
    local t0=$(date +%s)
    timeout -s KILL 150 mpirun -np $np $M "${pre[@]}" devbin/mcfleet "$@" -o "$O/$name.h5" >"$O/$name.log" 2>&1
    local rc=$?
    devbin/mcfleet report "$O/$name.h5" >"$O/$name.report.txt" 2>&1
    echo "$name: exit $rc, $(( $(date +%s) - t0 )) s | $(grep -E '^[0-9]+ tests:' "$O/$name.report.txt")"
    pack
}

# 1. the deck, one rank per GPU
NG=${NG:-$(nvidia-smi -L | wc -l)}
run transfer $NG -- --deck $B/transfer.yaml
sed -n '/^test metric/,/^$/p' "$O/transfer.report.txt"
sed -n '/^Not verified/,/^$/p' "$O/transfer.report.txt"

# 2. nvbandwidth on the same GPUs: -b 64 as the deck's bytes
xz -dc devbin/ref/nvbandwidth.xz >/tmp/nvbandwidth && chmod +x /tmp/nvbandwidth
T="host_to_device_memcpy_ce device_to_host_memcpy_ce host_to_device_bidirectional_memcpy_ce
   device_to_host_bidirectional_memcpy_ce host_to_device_memcpy_sm device_to_host_memcpy_sm
   host_to_device_bidirectional_memcpy_sm device_to_host_bidirectional_memcpy_sm
   device_to_device_memcpy_read_ce device_to_device_memcpy_write_ce
   device_to_device_bidirectional_memcpy_read_ce device_to_device_bidirectional_memcpy_write_ce
   device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm
   device_to_device_bidirectional_memcpy_read_sm device_to_device_bidirectional_memcpy_write_sm
   device_to_device_latency_sm device_local_copy"
t0=$(date +%s)
timeout -s KILL 120 /tmp/nvbandwidth -b 64 -j -t $T >"$O/nvbandwidth.json" 2>"$O/nvbandwidth.err"
echo "nvbandwidth -j: exit $?, $(( $(date +%s) - t0 )) s"
pack

# 3. side by side
if python3 -c 'import h5py' 2>/dev/null; then
    python3 $B/compare.py "$O" >"$O/compare.txt" 2>&1; cat "$O/compare.txt"
else
    echo "no python3 with h5py here: run python3 $B/compare.py on the fetched $O"
fi

# 4. a wrong result is caught and named, on rank 1 only
cat >/tmp/fault.yaml <<'EOF'
name: issue29-fault
defaults: { repetitions: 2, warmup: 1 }
tests:
  - { name: host-out-sm, kernel: transfer, link: host, direction: out, engine: sm, bytes: 64MiB, iterations: 4 }
  - { name: peer-in-copy, kernel: transfer, link: peer, direction: in, engine: copy, bytes: 64MiB, iterations: 4 }
  - { name: peer-both-sm, kernel: transfer, link: peer, direction: both, engine: sm, bytes: 64MiB, iterations: 4 }
  - { name: peer-latency, kernel: transfer, link: peer, mode: latency, direction: in, engine: sm, bytes: 8MiB,
      iterations: 2 }
EOF
run fault $NG -x MCFLEET_INJECT_FAULT='*@1' -- --deck /tmp/fault.yaml
grep -E "WRONG|wrong|offset|chase stands" "$O/fault.report.txt" | head -12

# 5. every rank seeing its own GPU alone: peer links unsupported, saying why
cat >/tmp/own_gpu.sh <<'EOF'
#!/bin/bash
export CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK
exec "$@"
EOF
chmod +x /tmp/own_gpu.sh
timeout -s KILL 90 mpirun -np 2 $M /tmp/own_gpu.sh devbin/mcfleet --deck /tmp/fault.yaml -o "$O/hidden.h5" \
    >"$O/hidden.log" 2>&1
echo "hidden: exit $?"
devbin/mcfleet report "$O/hidden.h5" >"$O/hidden.report.txt" 2>&1
grep -E "unsupported|CUDA_VISIBLE_DEVICES" "$O/hidden.report.txt" | head -6
pack
