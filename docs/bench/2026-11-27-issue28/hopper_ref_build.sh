#!/bin/bash
# Builds the TMA and DSM microbenchmarks of the 004 seed paper's artifact
# (HPMLL/NVIDIA-Hopper-Benchmark, "Dissecting the NVIDIA Hopper Architecture
# through Microbenchmarking") for sm_90a, as a reference beside mcfleet's own
# tma/dsm tests. Their sources are extracted from the fetched git mirror into
# devbin/hopper-ref/src (devbin/ is excluded from git: nothing of theirs is
# committed) and built there; binaries land in devbin/hopper-ref/.
#
# Their load size / box shape is a compile-time index: each variant is built
# from a copy of the file with that index changed (nothing else). The DSM
# throughput programs repeat 4096*16 times over 50160 blocks (~5 s per
# cluster size); the copies here repeat 4096*2 times so that the four
# patterns fit a short device call (the same steady state, 8x less of it).
#
# usage: hopper_ref_build.sh [OUTDIR]   (default: <worktree>/devbin/hopper-ref)
#   HOPPER_REF_GIT: the mirror's git dir (default /work/.mirror/HPMLL+NVIDIA-Hopper-Benchmark/repo)
set -euo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:-$here/devbin/hopper-ref}
git_dir=${HOPPER_REF_GIT:-/work/.mirror/HPMLL+NVIDIA-Hopper-Benchmark/repo}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
# CUDA 13 names the typedef by version (their util.h predates it)
arch=(-arch=sm_90a -DPFN_cuTensorMapEncodeTiled=PFN_cuTensorMapEncodeTiled_v12000 -Wno-deprecated-declarations)
[ -d "$git_dir" ] || { echo "no mirror at $git_dir (fetch github:HPMLL/NVIDIA-Hopper-Benchmark)" >&2; exit 2; }
rm -rf "$out"; mkdir -p "$out/src"
git --git-dir="$git_dir" archive HEAD NewFeatures/TMA NewFeatures/DSM Common | tar -x -C "$out/src"
git --git-dir="$git_dir" rev-parse HEAD > "$out/COMMIT"
src=$out/src/NewFeatures
jobs=()
build() {   # name, then nvcc arguments
    local name=$1; shift
    "$nvcc" "${arch[@]}" -O3 "$@" -o "$out/$name" > "$out/$name.buildlog" 2>&1 || { cat "$out/$name.buildlog" >&2; return 1; }
}
# TMA 1D (non-tensor cp.async.bulk): LOAD_SIZE_LIST[i], 1,2,4,8,12,16 KiB
for i in 0 1 2 3 4 5; do
    sed "s/LOAD_SIZE = LOAD_SIZE_LIST\[[0-9]\]/LOAD_SIZE = LOAD_SIZE_LIST[$i]/" \
        "$src/TMA/Throughput/tma_bw/tma_bw.cu" > "$src/TMA/Throughput/tma_bw/tma_bw_$i.cu"
    build tma_bw_1d_size$i -std=c++17 "$src/TMA/Throughput/tma_bw/tma_bw_$i.cu" &
    jobs+=($!)
    [ ${#jobs[@]} -ge 2 ] && { wait "${jobs[0]}"; jobs=("${jobs[@]:1}"); }
done
# TMA 2D tensor (a tensor map): box IDX 0..5: 16x16 .. 64x64 floats, 1..16 KiB
for i in 0 1 2 3 4 5; do
    sed "s/constexpr uint IDX = [0-9];/constexpr uint IDX = $i;/" \
        "$src/TMA/Throughput/tma_bw_2d/tma_bw_2d.cu" > "$src/TMA/Throughput/tma_bw_2d/tma_bw_2d_$i.cu"
    build tma_bw_2d_box$i -std=c++17 "$src/TMA/Throughput/tma_bw_2d/tma_bw_2d_$i.cu" &
    jobs+=($!)
    [ ${#jobs[@]} -ge 2 ] && { wait "${jobs[0]}"; jobs=("${jobs[@]:1}"); }
done
for j in "${jobs[@]}"; do wait "$j"; done
# TMA latency (uniform-stride chase through TMA loads, 16 bytes)
build tma_lat -std=c++17 "$src/TMA/Latency/tma_lat_uniform/tma_lat.cu"
# DSM latency, cluster sizes 2..16, every rank pair
d=$src/DSM/Latency/OneToAll
build dsm_latency -std=c++17 -I"$out/src/Common" "$d/dsm_latency.cu" "$d/main.cpp"
# DSM throughput, by pattern, cluster sizes 2, 4, 8, 16
for p in Ring Pair Broadcast Local; do
    d=$src/DSM/Throughput/$p
    sed -i 's/^uint repeat_times = 4096 \* 16;/uint repeat_times = 4096 * 2;/' "$d/main.cpp"
    build "dsm_thrpt_$(echo $p | tr A-Z a-z)" -std=c++20 -I"$out/src/Common" "$d/dsm_throughput.cu" "$d/main.cpp"
done
ls -l "$out" | grep -v buildlog
echo "built into $out (commit $(cat "$out/COMMIT"))"
