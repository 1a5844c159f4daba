#!/bin/bash
# Issue 12, first device call: the clock question, the memory levels with
# their ncu counters, and the Hopper paper's microbenchmarks beside them.
set -u
O=${OUT:-/tmp/out}; R=$O/r; mkdir -p "$R"
bash .devdeps/install-mpi-debs.sh .devdeps >"$R/install.log" 2>&1
mkdir -p /tmp/miss
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do ln -sf "$PWD/devbin/lib/$l" /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
date -u >"$R/date.txt"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE >"$R/gpu.txt" 2>&1
nvidia-smi --query-gpu=name,uuid,pci.bus_id,driver_version,clocks.max.sm,power.limit --format=csv >>"$R/gpu.txt" 2>&1
echo "== clock truth"; timeout 90 devbin/clock_truth 1.0 >"$R/clock_truth.txt" 2>&1; cat "$R/clock_truth.txt"
echo "== peers"
for p in l1_bw_128_l1_bw_128 shared_bw_shared_bw shared_bw_128_shared_bw l2_bw_128_l2_bw_128 MaxFlops_MaxFlops; do
  for i in 1 2 3; do echo "-- $p $i"; timeout 30 devbin/peers/$p; done
done >"$R/peers.txt" 2>&1
grep -E "^--|bandwidth|FLOP|GB/s" "$R/peers.txt"
echo "== mcfleet levels"
timeout 150 mpirun --bind-to none -np 1 devbin/mcfleet --deck devbin/levels.yaml -o "$R/levels.h5" >"$R/levels.log" 2>&1
echo "exit $?" >>"$R/levels.log"
grep -E "bandwidth_gbs|gflops|clock_mhz|verified|FAIL|exit" "$R/levels.log" | head -60
echo "== ncu"
timeout 200 ncu --clock-control none --target-processes all \
  -k regex:'k_read|k_lds_read|k_copy|k_write|k_triad|k_hbm' \
  --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sector_hit_rate.pct,lts__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_global_ld.sum \
  --csv --page raw mpirun --bind-to none -np 1 devbin/mcfleet --deck devbin/levels-ncu.yaml -o "$R/ncu.h5" >"$R/ncu.csv" 2>"$R/ncu.err"
echo "ncu exit $?"; tail -3 "$R/ncu.err"; wc -l "$R/ncu.csv"
echo "== clocks deck"
timeout 150 mpirun --bind-to none -np 1 devbin/mcfleet --deck devbin/clocks.yaml -o "$R/clocks.h5" >"$R/clocks.log" 2>&1
echo "exit $?" >>"$R/clocks.log"
grep -E "gflops|clock_mhz|sm_mhz|exit" "$R/clocks.log" | head -40
echo "== sass"
cuobjdump --dump-sass devbin/mcfleet 2>/dev/null | awk '/Function : .*(k_read|k_lds_read|k_valu|k_write|k_copy)/{p=1} /Function : /{if(!($0 ~ /(k_read|k_lds_read|k_valu|k_write|k_copy)/))p=0} p' >"$R/sass.txt"; wc -l "$R/sass.txt"
cd "$O" && tar czf levels.tgz r && rm -rf r
