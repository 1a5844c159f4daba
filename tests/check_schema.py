#!/usr/bin/env python3
"""Checks an mcfleet results file against docs/results-format.md.

usage: check_schema.py FILE NRANKS [--failed TEST RANK] [--nnodes N] [--incomplete] [--hung N]
NRANKS is the rows (the ranks that answered); --hung N expects N hung ranks
(world_size = NRANKS + N, /hung). Exits non-zero naming the first violation."""
import math
import sys

import h5py

META_STR = ["mcfleet_version", "start_time", "end_time", "command_line", "backend",
            "deck_path", "mpi_library", "hdf5_version", "hdf5_write_mode", "build", "clock", "injected", "injected_slow",
            "deck_arch", "dev_root", "slurm_job_id", "slurm_step_id", "slurm_job_nodelist", "slurm_cluster_name"]
# large text: an attribute in older files, a 1-D string dataset in newer ones
META_TEXT = {"deck": ["deck_text", "deck"], "tests_not_run": ["tests_not_run_list", "tests_not_run"]}
HUNG_STR = ["hostname", "device_uuid", "pci_bus_id", "device_name", "test"]
META_INT = ["nranks", "nnodes", "complete", "quick", "acceptance"]
# the verdict's default rules of the writing version (docs/acceptance.md)
META_VERDICT = {"verdict_warn_rel": 0.035, "verdict_fail_rel": 0.07, "verdict_alpha": 0.01, "verdict_k_min": 3.5,
                "verdict_small_n": 2.5, "verdict_clock_rel": 0.02, "verdict_power_rel": 0.05}
# docs/results-format.md: /results attribute status_codes
STATUS_CODES = "1=verified,0=wrong,-1=unsupported,-2=error,-3=not run,-4=hung,-5=cut"
DTYPE_BYTES = {"fp64": 8, "fp32": 4, "fp16": 2, "bf16": 2}
RANK_FIELDS = ["hostname", "node", "local_rank", "device", "device_name", "device_uuid",
               "pci_bus_id", "cpu_affinity", "driver", "device_arch", "compute_units",
               "device_clock_mhz", "clock_offset_s", "clock_sync_rtt_s", "slurm_localid", "slurm_nodeid",
               "slurm_procid", "slurm_nodename", "device_partition", "device_package", "cuda_visible_devices", "rocr_visible_devices", "hip_visible_devices",
               "gpu_local_cpus", "gpu_numa_node", "cores_local_to_gpu", "locality_note", "device_serial"]
# /health: [nranks, 2] before/after counters (docs/results-format.md), and the link at work
HEALTH_COUNTERS = ["ecc_corrected_volatile", "ecc_uncorrected_volatile", "ecc_corrected_aggregate",
                   "ecc_uncorrected_aggregate", "remapped_rows_corrected", "remapped_rows_uncorrected",
                   "remap_pending", "remap_failed", "retired_pages", "retired_pages_pending", "pcie_gen",
                   "pcie_gen_max", "pcie_width", "pcie_width_max", "nvlink_links", "nvlink_active",
                   "nvlink_replay_errors", "nvlink_recovery_errors", "nvlink_crc_flit_errors",
                   "nvlink_crc_data_errors", "xgmi_error_status"]
PER_RANK = ["verified", "status", "message", "start_skew_us", "warmup_runs"]


def die(msg):
    print("schema: " + msg, file=sys.stderr)
    sys.exit(1)


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def meta_text(f, name):
    """/meta's large text: the attribute, or the dataset's strings joined by commas"""
    meta = f["meta"]
    if name in meta.attrs:
        return text(meta.attrs[name])
    for ds in META_TEXT[name]:
        if ds in meta:
            d = meta[ds]
            if not isinstance(d, h5py.Dataset) or d.dtype.kind not in "SO" or len(d.shape) != 1:
                die("/meta/%s is not a 1-D string dataset" % ds)
            return ",".join(text(x) for x in d[:]) if name == "tests_not_run" else "".join(text(x) for x in d[:])
    die("/meta lacks %s (an attribute, or a dataset %s)" % (name, " or ".join(META_TEXT[name])))


def check_hung(f, nranks, hung):
    """world_size, hung_ranks, /ranks/world_rank and /hung: optional, consistent when present"""
    meta = f["meta"].attrs
    world = int(meta["world_size"]) if "world_size" in meta else nranks
    if world != nranks + hung:
        die("/meta world_size %d, expected %d answered + %d hung" % (world, nranks, hung))
    rows = list(range(nranks))
    if "world_rank" in f["ranks"]:
        d = f["ranks/world_rank"]
        if d.shape != (nranks,) or d.dtype.kind != "i":
            die("/ranks/world_rank has shape %s, type %s" % (d.shape, d.dtype))
        rows = [int(x) for x in d[:]]
    elif hung:
        die("/ranks lacks world_rank, but %d ranks hung" % hung)
    lost = []
    if "hung" in f:
        g = f["hung"]
        if not isinstance(g, h5py.Group):
            die("/hung is not a group")
        for k in ["world_rank"] + HUNG_STR:
            if k not in g:
                die("/hung lacks " + k)
            if g[k].shape != (hung,):
                die("/hung/%s has shape %s, expected (%d,)" % (k, g[k].shape, hung))
        lost = [int(x) for x in g["world_rank"][:]]
        if hung and any(not text(h) for h in g["hostname"][:]):
            die("/hung: a hung rank without a hostname")
    elif hung:
        die("no /hung group, but %d ranks hung" % hung)
    if sorted(rows + lost) != list(range(world)):
        die("world ranks %s answered and %s hung do not make 0..%d" % (rows, lost, world - 1))
    # the first hung ranks, then ",..." where the list would be long
    listed = [x for x in text(meta["hung_ranks"]).split(",") if x] if "hung_ranks" in meta else []
    cut = listed[-1:] == ["..."]
    listed = [int(x) for x in listed[:-1 if cut else None]]
    if (sorted(listed) != sorted(lost)) if not cut else not set(listed) <= set(lost):
        die("/meta hung_ranks %s, /hung/world_rank %s" % (text(meta["hung_ranks"]), lost))
    if "nhung" in meta and int(meta["nhung"]) != hung:
        die("/meta nhung %s, expected %d" % (meta["nhung"], hung))


def main():
    path, nranks = sys.argv[1], int(sys.argv[2])
    failed = set()
    nnodes = None
    hung = 0
    complete = 1
    args = sys.argv[3:]
    while args:
        if args[0] == "--failed":
            failed.add((args[1], int(args[2])))
            args = args[3:]
        elif args[0] == "--incomplete":     # a run stopped early: complete = 0
            complete = 0
            args = args[1:]
        elif args[0] == "--nnodes":
            nnodes = int(args[1])
            args = args[2:]
        elif args[0] == "--hung":           # ranks that did not answer: /hung
            hung = int(args[1])
            args = args[2:]
        else:
            die("unknown argument " + args[0])
    f = h5py.File(path, "r")
    meta = f["meta"].attrs
    for k in META_STR:
        if k not in meta:
            die("/meta lacks " + k)
    for k in META_INT:
        if k not in meta:
            die("/meta lacks " + k)
    for k, want in META_VERDICT.items():
        if k not in meta or float(meta[k]) != want:
            die("/meta %s is %s, expected the verdict's default %s" % (k, meta.get(k), want))
    if int(meta["nranks"]) != nranks:
        die("/meta nranks %s != %d" % (meta["nranks"], nranks))
    if int(meta["complete"]) != complete:
        die("/meta complete is %s, expected %d" % (meta["complete"], complete))
    if nnodes is not None and int(meta["nnodes"]) != nnodes:
        die("/meta nnodes %s != %d" % (meta["nnodes"], nnodes))
    if "tests:" not in meta_text(f, "deck"):
        die("/meta deck does not hold the deck text")
    not_run = meta_text(f, "tests_not_run")
    if complete and not_run:
        die("a complete run lists tests not run: %s" % not_run)
    check_hung(f, nranks, hung)
    for k in RANK_FIELDS:
        if k not in f["ranks"]:
            die("/ranks lacks " + k)
        if f["ranks"][k].shape != (nranks,):
            die("/ranks/%s has shape %s" % (k, f["ranks"][k].shape))
    if int(meta["acceptance"]) not in (0, 1):
        die("/meta acceptance is %s" % meta["acceptance"])
    if "health" not in f:
        die("no /health group")
    for k in HEALTH_COUNTERS:
        if k not in f["health"] or f["health"][k].shape != (nranks, 2):
            die("/health/%s missing or not [nranks, 2]" % k)
    for k in ["pcie_gen_busy", "pcie_width_busy", "source"]:
        if k not in f["health"] or f["health"][k].shape != (nranks,):
            die("/health/%s missing or not [nranks]" % k)
    hosts = [text(h) for h in f["ranks/hostname"][:]]
    if any(not h for h in hosts):
        die("empty hostname")
    # row r is rank r: on one node the local rank (from MPI) equals the row
    if int(meta["nnodes"]) == 1:
        local = [int(x) for x in f["ranks/local_rank"][:]]
        if local != list(range(nranks)):
            die("/ranks rows are not in rank order: local_rank %s" % local)
    if float(f["ranks/clock_offset_s"][0]) != 0.0:
        die("rank 0's clock offset to itself is not 0")
    nodes = set(int(n) for n in f["ranks/node"][:])
    if nodes != set(range(int(meta["nnodes"]))):
        die("node indices %s do not cover 0..nnodes-1" % sorted(nodes))
    results = f["results"]
    if text(results.attrs.get("status_codes", "")) != STATUS_CODES:
        die("/results status_codes is %r, expected %r" % (results.attrs.get("status_codes"), STATUS_CODES))
    if len(results) == 0:
        die("no tests in /results")
    nmetrics = 0
    for name, g in results.items():
        for k in PER_RANK:
            if k not in g:
                die("%s lacks %s" % (name, k))
            if g[k].shape != (nranks,):
                die("%s/%s has shape %s" % (name, k, g[k].shape))
        for k in ["kernel", "label", "repetitions", "warmup", "metrics", "summary_metrics", "test",
                  "flop_per_unit", "bytes_per_unit"]:
            if k not in g.attrs:
                die("%s lacks attribute %s" % (name, k))
        measured = text(g.attrs["measured"]) if "measured" in g.attrs else die("%s lacks attribute measured" % name)
        if not measured.startswith("kernel=%s " % text(g.attrs["kernel"])):
            die("%s: measured %r does not start with its kernel" % (name, measured))
        for word in measured.split()[1:]:
            key, _, value = word.partition("=")
            if key in ("seed", "iterations", "sweeps") or key not in g.attrs or str(text(g.attrs[key])) != value:
                die("%s: measured word %r is not the attribute %s" % (name, word, key))
        flop, nbytes = float(g.attrs["flop_per_unit"]), float(g.attrs["bytes_per_unit"])
        if not (math.isfinite(flop) and flop >= 0 and math.isfinite(nbytes) and nbytes >= 0):
            die("%s: flop_per_unit %s, bytes_per_unit %s" % (name, flop, nbytes))
        if text(g.attrs["kernel"]) == "memory" and text(g.attrs["op"]) in ("fma", "triad"):
            es = DTYPE_BYTES[text(g.attrs["dtype"])]
            want = (2.0 * int(g.attrs["intensity"]), 2 * es) if text(g.attrs["op"]) == "fma" else (2.0, 3 * es)
            if (flop, nbytes) != want:
                die("%s: %s FLOP per %s bytes, expected %s" % (name, flop, nbytes, want))
        reps = int(g.attrs["repetitions"])
        status = [int(s) for s in g["status"][:]]
        verified = [int(v) for v in g["verified"][:]]
        for r in range(nranks):
            if verified[r] != (status[r] == 1):
                die("%s rank %d: verified %d but status %d" % (name, r, verified[r], status[r]))
            want_failed = (name, r) in failed
            if want_failed and status[r] != 0:
                die("%s rank %d should have failed verification, status %d" % (name, r, status[r]))
            if not want_failed and status[r] == 0:
                die("%s rank %d failed verification: %s" % (name, r, text(g["message"][r])))
            if status[r] == -2:
                die("%s rank %d had an error: %s" % (name, r, text(g["message"][r])))
            if status[r] == 1 and int(g["warmup_runs"][r]) != int(g.attrs["warmup"]):
                die("%s rank %d ran %s warm-ups, deck says %s" % (name, r, g["warmup_runs"][r], g.attrs["warmup"]))
            if not math.isfinite(float(g["start_skew_us"][r])):
                die("%s rank %d start skew not finite" % (name, r))
        metrics = [m for m in text(g.attrs["metrics"]).split(",") if m]
        if any(s == 1 for s in status) and not metrics:
            die("%s ran but lists no metrics" % name)
        for m in metrics + (["rep_start_s", "rep_end_s"] if metrics else []):
            if m not in g:
                die("%s lacks metric dataset %s" % (name, m))
            d = g[m]
            if d.shape != (nranks, reps):
                die("%s/%s has shape %s, expected %s" % (name, m, d.shape, (nranks, reps)))
            if "unit" not in d.attrs:
                die("%s/%s has no unit" % (name, m))
            if m in metrics and text(d.attrs.get("better", b"")) not in ("higher", "lower", "none"):
                die("%s/%s has no attribute better (higher, lower, none)" % (name, m))
            for r in range(nranks):
                row = d[r, :]
                finite = [math.isfinite(float(v)) for v in row]
                if not complete and any(finite):
                    # a stopped run: the repetitions never reached are NaN, after the measured ones
                    finite = finite[:finite.index(False)] if False in finite else finite
                    if any(math.isfinite(float(v)) for v in row[len(finite):]):
                        die("%s/%s rank %d: measured values after unmeasured ones" % (name, m, r))
                ok = all(finite) or int(d.attrs.get("optional", 0)) == 1   # a slot the rank has no link for
                if status[r] == 1 and not ok:
                    die("%s/%s rank %d has non-finite values %s" % (name, m, r, list(row)))
                if status[r] != 1 and any(math.isfinite(float(v)) for v in row) and m not in ("rep_start_s", "rep_end_s"):
                    die("%s/%s rank %d did not verify but reports a figure" % (name, m, r))
            nmetrics += 1
        if metrics:
            starts, ends = g["rep_start_s"][:], g["rep_end_s"][:]
            for r in range(nranks):
                if status[r] == 1 and any(float(e) <= float(s) for s, e in zip(starts[r], ends[r])):
                    die("%s rank %d: a repetition ends before it starts" % (name, r))
    if nmetrics == 0 and complete:   # a run stopped before any repetition was timed has none
        die("no metric datasets at all")
    print("schema ok: %s, %d ranks, %d tests, %d metric datasets" % (path, nranks, len(results), nmetrics))


main()
