#!/bin/bash
# Issue 39's measurements (docs/operations.md, "Prometheus" and "Node names"):
# the Prometheus textfiles of a SIMULATED 10,000-GPU fleet before (the
# export of a5a2186, the commit before the change) and after, and the
# issue's range files. No GPU: the export's own work, on this VM.
#   bash docs/bench/2026-12-08-issue39/run.sh BUILD_DIR OUT_DIR
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
B=$(cd "$1" && pwd)/mcfleet
out=$(mkdir -p "$2" && cd "$2" && pwd)
cd "$out"
git -C "$top" archive a5a2186 analysis | tar -x -C "$out" --transform 's,^analysis,old-analysis,'
export MCFLEET_BIN="$B"
py=/usr/bin/python3
measure() {   # measure NAME CMD...: wall seconds and the largest RSS of the command's processes
    local name=$1; shift
    /usr/bin/time -f "$name: %e s, %M KB max RSS" "$@" 2>>times.txt >/dev/null || true
}
: >times.txt
$py "$top/tools/fleetsim.py" --template "$top/docs/bench/2026-11-23-h200-acceptance/acc.h5" \
    -n 10000 -g 8 --seed 3 --degrade 17:10 --fail-verify 4242 -o fleet.h5 >fleetsim.txt
measure study "$B" study fleet.h5 --format json -o study.json --force
for rep in 1 2 3; do   # three of each, interleaved, with the load average beside
    echo "round $rep: load $(cut -d' ' -f1-3 /proc/loadavg)" >>times.txt
    rm -rf old.prom nodes && mkdir nodes
    measure "before: --prom FILE" $py old-analysis/mcfleet_export.py fleet.h5 --study study.json --prom old.prom
    measure "after: --prom DIR" "$B" export fleet.h5 --study study.json --prom nodes
    measure "after: --prom FILE --fleet" "$B" export fleet.h5 --study study.json --prom fleet.prom --fleet --force
done
{
    for f in old.prom fleet.prom; do
        echo "$f: $(grep -vc '^#' "$f") series, $(wc -c <"$f") bytes"
        grep -v '^#' "$f" | sed 's/{.*//' | sort | uniq -c | sort -rn | sed 's/^/    /'
    done
    echo "nodes/: $(ls nodes | wc -l) files, $(cat nodes/* | grep -vc '^#') series, $(cat nodes/* | wc -c) bytes"
    cat nodes/* | grep -v '^#' | sed 's/{.*//' | sort | uniq -c | sort -rn | sed 's/^/    /'
} >sizes.txt
# the issue's range files: refused at once, naming the line
printf 'NodeName=node[0-99999999]\n' >r1.conf
printf 'NodeName=node[0-1][0-99999][0-9999]\n' >r2.conf
for c in r1 r2; do
    measure "after: --slurm-conf $c.conf" "$B" export --study "$top/tests/data/study-fixture.json" \
        --slurm-conf $c.conf --slurm -
    "$B" export --study "$top/tests/data/study-fixture.json" --slurm-conf $c.conf --slurm - 2>>ranges.txt || true
done
rm -rf old-analysis fleet.h5 nodes old.prom fleet.prom study.json
cat times.txt sizes.txt ranges.txt
