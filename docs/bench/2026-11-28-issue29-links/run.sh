#!/bin/bash
# Issue 29, the links in the report, on a lent 4-GPU machine (nvidia-h100-x4),
# devbin/mcfleet built on the lead's machine (devbin/commit.txt), in one call
# of about 2 minutes. Everything goes to $OUT/issue29-links.tgz:
#   1. ok:   host link in/out and the peer matrix (copy engines, SM loads)
#            and peer latency on 4 GPUs: the report's text shows one 4x4
#            matrix per peer test (rows labelled by PCI bus, the worst cell
#            '*'), the JSON's "links" and --format links-csv the same numbers,
#            the page (report --html) one heatmap per test
#   2. slow: the same with GPU 1's transfers 8 times per repetition
#            (MCFLEET_INJECT_SLOW='*@1', the work of one counted): GPU 1's
#            host-link causes name "host link (PCIe) of GPU <its bus>", its
#            peer causes "NVLink/peer link <bus> -> <bus>", next steps
#            checking the link
# Check by hand: summary.txt (exit codes, verdicts), the matrices against
# nvidia-smi topo -m (NV18 everywhere: the cells should be alike), and that
# only GPU 1 is flagged in 2.
O=${OUT:-/tmp/out}; R=/tmp/issue29-links; rm -rf "$R"; mkdir -p "$R" /tmp/miss
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ date -u; cat devbin/commit.txt; devbin/mcfleet --version; nvidia-smi -L; nvidia-smi topo -m;
  nvidia-smi --query-gpu=index,name,pci.bus_id,pcie.link.gen.max,pcie.link.width.max --format=csv; } >"$R/env.txt" 2>&1
cat >"$R/links.yaml" <<'DECK'
name: issue29-links
defaults:
  repetitions: 10
  warmup: 2
  time_limit: 60
tests:
  - {name: h2d, kernel: transfer, link: host, direction: in, bytes: 256MiB}
  - {name: d2h, kernel: transfer, link: host, direction: out, bytes: 256MiB}
  - {name: peer-ce, kernel: transfer, link: peer, engine: copy, bytes: 256MiB}
  - {name: peer-sm, kernel: transfer, link: peer, engine: sm, bytes: 256MiB}
  - {name: peer-lat, kernel: transfer, link: peer, mode: latency, engine: sm, bytes: 4MiB, iterations: 2}
  - {name: allreduce, kernel: transfer, link: collective, bytes: 256MiB}
DECK
M="--mca pml ob1 --mca btl self,vader --bind-to none"
pack() { tar czf "$O/issue29-links.tgz" -C /tmp issue29-links; }
run() {   # run NAME [ENV=VALUE ...] --: 4 ranks of the deck, then every form of its report
    local name=$1; shift; local envs=(); while [ "$1" != -- ]; do envs+=(-x "$1"); shift; done; shift
    local t0=$(date +%s)
    timeout -s KILL 150 mpirun -np 4 $M "${envs[@]}" devbin/mcfleet --deck "$R/links.yaml" -o "$R/$name.h5" \
        >"$R/$name.log" 2>&1
    local rc=$? t1=$(date +%s)
    devbin/mcfleet report "$R/$name.h5" >"$R/$name.report.txt" 2>&1; local rr=$?
    devbin/mcfleet report "$R/$name.h5" --format json >"$R/$name.report.json" 2>/dev/null
    devbin/mcfleet report "$R/$name.h5" --format links-csv >"$R/$name.links.csv" 2>/dev/null
    devbin/mcfleet report "$R/$name.h5" --html "$R/$name.html" >>"$R/$name.log" 2>&1
    printf '%-5s run exit %d, report exit %d, %d s | %s\n' "$name" $rc $rr $((t1 - t0)) \
        "$(grep -m1 '^VERDICT' "$R/$name.report.txt")" | tee -a "$R/summary.txt"
    sed -n '/^Links between/,/^$/p' "$R/$name.report.txt" | tee -a "$R/summary.txt"
    grep -E "the link: |next: check" "$R/$name.report.txt" | head -8 | tee -a "$R/summary.txt"
    grep -E "unsupported" "$R/$name.report.txt" | head -4 | tee -a "$R/summary.txt"
    echo "links-csv rows: $(($(wc -l <"$R/$name.links.csv") - 1)) (4x3 per peer test: 36)" | tee -a "$R/summary.txt"
    pack
}
run ok --
export MCFLEET_INJECT_SLOW='*@1' MCFLEET_INJECT_SLOW_FACTOR=8
run slow MCFLEET_INJECT_SLOW MCFLEET_INJECT_SLOW_FACTOR --
cat "$R/summary.txt"
