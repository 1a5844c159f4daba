#!/bin/bash
# Issue 29's link evidence on a lent GPU machine (any kind; the 4-GPU ones
# have NV18 between every pair), devbin/mcfleet built on the lead's machine
# (carried as devbin/mcfleet, its libraries in devbin/lib, as issue 26's
# run.sh). One short run on every GPU, then the new /health counters beside
# what nvidia-smi says of the same links. Everything goes to
# $OUT/linkhealth.tgz; summary.txt is what to read. About a minute.
#
# Check in summary.txt:
#   - nvlink_links / nvlink_active (columns before, after) equal the links
#     `nvidia-smi nvlink -s` lists for that GPU and those of them with a speed
#     (not <inactive>): on an HGX H100/H200, 18 and 18;
#   - the replay / recovery / CRC sums after the run are those of
#     `nvidia-smi nvlink -e` summed over the GPU's links (read right after the
#     run; they may have grown by a few if the driver counted meanwhile);
#   - the report has no NVLink cause on a healthy machine (grep "NVLink" in
#     report.txt is empty), and /health/notes says why any counter is -1.
O=${OUT:-/tmp/out}; R=/tmp/linkhealth; rm -rf "$R"; mkdir -p "$R" /tmp/miss
[ -f .devdeps/install-mpi-debs.sh ] && bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/ 2>/dev/null; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
pack() { tar czf "$O/linkhealth.tgz" -C /tmp linkhealth; }
N=$(nvidia-smi -L | grep -c '^GPU')
{ date -u; cat devbin/commit.txt 2>/dev/null; devbin/mcfleet --version; nvidia-smi -L; nvidia-smi topo -m; } >"$R/env.txt" 2>&1
cat >"$R/deck.yaml" <<YAML
defaults:
  repetitions: 3
  warmup: 1
tests:
  - {name: triad, kernel: memory, op: triad, bytes: 1GiB}
  - {name: mm, kernel: matrix, dtype: fp64, shape: [8, 8, 4], iterations: 20000}
YAML
timeout -s KILL 150 mpirun -np "$N" --mca pml ob1 --mca btl self,vader --bind-to none \
    devbin/mcfleet --deck "$R/deck.yaml" -o "$R/run.h5" >"$R/run.log" 2>&1
echo "mcfleet exit $? on $N GPUs" | tee "$R/summary.txt"
nvidia-smi nvlink -s >"$R/nvlink-s.txt" 2>&1
nvidia-smi nvlink -e >"$R/nvlink-e.txt" 2>&1
devbin/mcfleet report "$R/run.h5" >"$R/report.txt" 2>&1
devbin/mcfleet report "$R/run.h5" --format json >"$R/report.json" 2>/dev/null
python3 - "$R/run.h5" "$R/nvlink-s.txt" "$R/nvlink-e.txt" >>"$R/summary.txt" 2>&1 <<'PY'
import re, sys
try:
    import h5py
except ImportError:
    print("no h5py here: read run.h5 on the lead's machine"); sys.exit(0)
f = h5py.File(sys.argv[1], "r"); h = f["health"]
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
bus = [s(x) for x in f["ranks/pci_bus_id"][:]]
# nvidia-smi's own view, per GPU in its order (bus ids in the "GPU i: name (UUID: ...)" blocks are not
# printed, so match by UUID)
uuid = [s(x) for x in f["ranks/device_uuid"][:]]
def blocks(path):
    out, cur = {}, None
    for line in open(path):
        m = re.match(r"GPU \d+: .*\(UUID: (\S+)\)", line)
        if m: cur = m.group(1); out[cur] = []; continue
        if cur: out[cur].append(line.rstrip())
    return out
st, er = blocks(sys.argv[2]), blocks(sys.argv[3])
for r in range(len(bus)):
    links = [l for l in st.get(uuid[r], []) if re.match(r"\s+Link \d+:", l)]
    up = [l for l in links if "inactive" not in l.lower()]
    sums = {}
    for l in er.get(uuid[r], []):
        m = re.match(r"\s+(Replay|Recovery|CRC Flit|CRC Data)\w* Errors?:\s*(\d+)", l, re.I) or \
            re.match(r"\s+(Replay|Recovery|CRC Flit|CRC Data)[^:]*:\s*(\d+)", l, re.I)
        if m: sums[m.group(1).lower()] = sums.get(m.group(1).lower(), 0) + int(m.group(2))
    print("rank %d %s %s" % (r, bus[r], uuid[r]))
    for k in ["nvlink_links", "nvlink_active", "nvlink_replay_errors", "nvlink_recovery_errors",
              "nvlink_crc_flit_errors", "nvlink_crc_data_errors", "xgmi_error_status"]:
        print("  %-24s before %6d  after %6d" % (k, h[k][r, 0], h[k][r, 1]))
    print("  nvidia-smi: %d links, %d up; error sums %s" % (len(links), len(up), sums))
    print("  notes: %s" % s(h["notes"][r]))
PY
grep -E "^VERDICT|health counters|NVLink|xGMI" "$R/report.txt" | tee -a "$R/summary.txt"
pack
