"""fleetsim's writer: a SIMULATED results file laid out as mcfleet writes one
(the /meta, /ranks, /results and /health objects; docs/results-format.md).
tools/fleetsim.py draws the figures and calls _write."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from mcfleet_results import OLD_STATUS_CODES  # noqa: E402

ST = {name: code for code, name in OLD_STATUS_CODES.items()}   # "verified" -> 1, ...
VERSION = "1"
HGX_BUS = ["18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"]
RATE_METRICS = ("gflops", "bandwidth_gbs", "peak_fraction")
COST_METRICS = ("latency_ns", "time_s", "serial_s", "wall_s", "energy_j")
HEALTH_BASELINE = {   # a healthy H100/H200 SXM board, read before and after (names: src/power/health.c)
    "ecc_corrected_volatile": 0, "ecc_uncorrected_volatile": 0,
    "ecc_corrected_aggregate": 0, "ecc_uncorrected_aggregate": 0,
    "remapped_rows_corrected": 0, "remapped_rows_uncorrected": 0, "remap_pending": 0, "remap_failed": 0,
    "retired_pages": 0, "retired_pages_pending": 0,
    "pcie_gen": 5, "pcie_gen_max": 5, "pcie_width": 16, "pcie_width_max": 16,
}
HEALTH_BUSY = {"pcie_gen_busy": 5, "pcie_width_busy": 16}   # [nranks]: the link while tests ran


def direction(metric):
    """+1 rate, -1 cost, 0 neither (resampled only)"""
    m = metric[5:] if metric.startswith("test_") else metric
    if m in RATE_METRICS or m.endswith("_per_w"):
        return 1
    if m in COST_METRICS or (m.startswith("stream") and m.endswith("_time_s")):
        return -1
    return 0


def str_type(width):
    import h5py
    t = h5py.h5t.C_S1.copy()
    t.set_size(max(1, width))
    t.set_strpad(h5py.h5t.STR_NULLTERM)
    return t


def put_attr(obj, name, value, kind=None):
    """an attribute as the runner writes it: scalar int64, float64 or a fixed-length NUL-terminated string"""
    import h5py
    import numpy as np
    if kind is None:
        kind = "s" if isinstance(value, str) else "i" if isinstance(value, (int, np.integer)) else "f"
    if name in obj.attrs:
        del obj.attrs[name]
    if kind == "s":
        raw = str(value).encode()
        t = str_type(len(raw) + 1)
        a = h5py.h5a.create(obj.id, name.encode(), t, h5py.h5s.create(h5py.h5s.SCALAR))
        a.write(np.array(raw, dtype="S%d" % (len(raw) + 1)))
    elif kind == "i":
        obj.attrs.create(name, np.int64(value))
    else:
        obj.attrs.create(name, np.float64(value))


def put_strings(group, name, values):
    import h5py
    import numpy as np
    raw = [str(v).encode() for v in values]
    width = max([len(r) for r in raw] + [0]) + 1
    arr = np.array(raw, dtype="S%d" % width)
    space = h5py.h5s.create_simple((len(raw),))
    d = h5py.h5d.create(group.id, name.encode(), str_type(width), space)
    if len(raw):
        d.write(h5py.h5s.ALL, h5py.h5s.ALL, arr)
    return group[name]


def put(group, name, data, kind, attrs=None):
    import numpy as np
    if kind == "s":
        d = put_strings(group, name, data)
    elif kind == "i":
        d = group.create_dataset(name, data=np.asarray(data, dtype=np.int64))
    else:
        d = group.create_dataset(name, data=np.asarray(data, dtype=np.float64))
    for k, a in (attrs or {}).items():
        put_attr(d, k, a["v"], a["k"])
    return d


def copy_attrs(obj, attrs, skip=()):
    for k, a in attrs.items():
        if k in skip:
            continue
        if isinstance(a["v"], list):   # an array attribute: rare, keep as is
            obj.attrs[k] = a["v"]
        else:
            put_attr(obj, k, a["v"], a["k"])


def make_uuid(rng):
    h = "".join("%02x" % b for b in rng.integers(0, 256, size=16))
    return "GPU-%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def bus_id(local):
    if local < len(HGX_BUS):
        return "00000000:%s:00.0" % HGX_BUS[local]
    return "00000000:%02X:00.0" % (0x10 + 0x10 * local % 0xE0)


def _write(f, t, a, tests, N, G, nnodes, node, local, rng, perf, clock_out, status_inj, msg_inj,
           unsupported, hung, hung_test, not_run, health, injected, factor, degr, argv):
    import numpy as np
    answering = np.array([r for r in range(N) if r not in set(hung)], dtype=np.int64)
    n_rows = len(answering)
    T = len(tests)

    # ---- /meta
    meta = f.create_group("meta")
    mt = t["meta"]
    skip = {"nranks", "nnodes", "world_size", "nhung", "hung_ranks", "complete", "injected", "tests_not_run",
            "command_line", "slurm_job_id", "slurm_job_nodelist", "start_time", "end_time", "oversubscribed_nodes",
            "acceptance", "deck_arch"}
    copy_attrs(meta, mt, skip)
    put_attr(meta, "nranks", n_rows)
    put_attr(meta, "world_size", N)
    put_attr(meta, "nnodes", nnodes)
    put_attr(meta, "complete", 0 if (not_run or hung) else int(mt.get("complete", {"v": 1})["v"]))
    put_attr(meta, "oversubscribed_nodes", 0)
    put_attr(meta, "nhung", len(hung))
    hl = ",".join(str(r) for r in hung)
    if len(hl) > 1000:
        hl = ",".join(str(r) for r in hung[:100]) + ",..."
    put_attr(meta, "hung_ranks", hl)
    put_attr(meta, "command_line", "tools/fleetsim.py " + " ".join(argv))
    put_attr(meta, "slurm_job_id", "")
    put_attr(meta, "slurm_job_nodelist", "nid[%06d-%06d]" % (a.first_node, a.first_node + nnodes - 1))
    # the template's times, so that the same seed and options give the same file
    put_attr(meta, "start_time", mt.get("start_time", {"v": ""})["v"])
    put_attr(meta, "end_time", mt.get("end_time", {"v": ""})["v"])
    put_attr(meta, "injected", "SIMULATED by tools/fleetsim.py (seed %d, template %s; not a measurement): %s" %
             (a.seed, t["source"]["file"], "; ".join(injected) if injected else "no injection"))
    if a.acceptance:
        put_attr(meta, "acceptance", 1)
        put_attr(meta, "deck_arch", a.acceptance)
        injected.append("acceptance deck for %s" % a.acceptance)
    nr_names = [tests[i]["name"] for i in sorted(not_run)]
    put_attr(meta, "tests_not_run", ",".join(nr_names))
    for k, d in t.get("meta_dsets", {}).items():
        if k == "tests_not_run_list":
            continue
        put(meta, k, d["data"], d["k"], d["attrs"])
    put_strings(meta, "tests_not_run_list", nr_names)

    # ---- /ranks
    ranks = f.create_group("ranks")
    row0 = {k: (d["data"][0] if isinstance(d["data"], list) and d["data"] else d["data"]) for k, d in t["ranks"].items()}
    ids = {}
    uuids = [make_uuid(rng) for _ in range(N)]
    serials = ["%013d" % v for v in rng.integers(1320000000000, 1329999999999, size=N)]
    hosts = [a.host_format % (a.first_node + i) for i in range(nnodes)]
    hostname = [hosts[node[r]] for r in range(N)]
    dev_name = a.device_name if a.device_name is not None else row0.get("device_name", "")
    dev_arch = a.device_arch if a.device_arch is not None else row0.get("device_arch", "")
    ids.update({
        "hostname": hostname, "node": node, "local_rank": local, "device": local,
        "device_name": [dev_name] * N, "device_arch": [dev_arch] * N, "device_uuid": uuids,
        "pci_bus_id": [bus_id(int(l)) for l in local], "device_serial": serials,
        "slurm_localid": local, "slurm_nodeid": node, "slurm_procid": np.arange(N),
        "slurm_nodename": hostname, "world_rank": np.arange(N),
        "clock_offset_s": np.concatenate([[0.0], rng.normal(0, 2e-6, N - 1)]), "cpu_affinity": ["%d-%d" % (16 * l, 16 * l + 15) for l in local],
        "cuda_visible_devices": ["(unset)"] * N,
    })
    kinds = {k: d["k"] for k, d in t["ranks"].items()}
    kinds.update({"device_serial": "s", "world_rank": "i"})
    names = list(t["ranks"].keys()) + [k for k in ("device_serial", "world_rank") if k not in t["ranks"]]
    for k in names:
        if k in ids:
            col = ids[k]
        else:
            col = [row0.get(k)] * N
        col = [col[r] for r in answering]
        attrs = t["ranks"][k]["attrs"] if k in t["ranks"] else {}
        put(ranks, k, col, kinds[k], attrs)

    # ---- /results
    res = f.create_group("results", track_order=True)
    copy_attrs(res, t["results_attrs"], {"ntests"})
    put_attr(res, "ntests", T)
    for i, test in enumerate(tests):
        _write_test(res, test, i, a, rng, perf, clock_out, status_inj, msg_inj, unsupported, answering,
                    i in not_run, hung, hung_test)

    # ---- /power
    if t.get("power"):
        p = f.create_group("power", track_order=True)
        copy_attrs(p, t["power"]["attrs"])
        for s, src in t["power"]["sources"].items():
            g = p.create_group(s)
            copy_attrs(g, src["attrs"], {"series_kept"})
            put_attr(g, "series_kept", 0)   # the per-sample series are empty; count says how many were taken
            for k, d in src["per_rank"].items():
                v = d["data"][0] if isinstance(d["data"], list) and d["data"] else d["data"]
                put(g, k, [v] * n_rows, d["k"], d["attrs"])
            for k, attrs in src["series"].items():
                put(g, k, np.zeros(0), "f", attrs)

    # ---- /health
    if health:
        hg = f.create_group("health")
        for k, v in health.items():
            d = hg.create_dataset(k, data=v[answering])
            if v.ndim == 2:
                put_attr(d, "columns", "before,after")
        put_strings(hg, "source", ["nvml (simulated by fleetsim)"] * n_rows)

    # ---- /hung
    if hung:
        hg = f.create_group("hung")
        hg.create_dataset("world_rank", data=np.asarray(hung, dtype=np.int64))
        put_strings(hg, "hostname", [hostname[r] for r in hung])
        put_strings(hg, "device_uuid", [uuids[r] for r in hung])
        put_strings(hg, "pci_bus_id", [bus_id(int(local[r])) for r in hung])
        put_strings(hg, "device_name", [dev_name for r in hung])
        put_strings(hg, "test", [tests[hung_test]["name"] for r in hung])

    # ---- /sim: the ground truth
    sim = f.create_group("sim")
    put_attr(sim, "note", "SIMULATED by tools/fleetsim.py: every figure in this file is made up from the "
                          "template's real repetitions; this group is the ground truth, not a measurement")
    put_attr(sim, "fleetsim_version", VERSION)
    put_attr(sim, "seed", a.seed)
    put_attr(sim, "spread_pct", a.spread)
    put_attr(sim, "spread_corr", a.spread_corr)
    put_attr(sim, "gpus_per_node", G)
    put_attr(sim, "template", t["source"]["file"])
    put_attr(sim, "template_sha256", t["source"].get("sha256", ""))
    put_attr(sim, "command_line", "tools/fleetsim.py " + " ".join(argv))
    put_strings(sim, "injections", injected)
    put_strings(sim, "tests", [x["name"] for x in tests])
    sim.create_dataset("factor", data=factor)            # [world ranks, tests] between-GPU factor
    sim.create_dataset("degradation", data=degr)         # [world ranks, tests] fraction slower
    sim.create_dataset("degraded", data=(degr > 0).any(axis=1).astype(np.int64))
    sim.create_dataset("clock_outlier_mhz", data=clock_out)
    sim.create_dataset("wrong_result", data=(status_inj == 100).any(axis=1).astype(np.int64))
    sim.create_dataset("unsupported", data=unsupported.any(axis=1).astype(np.int64))
    sim.create_dataset("hung", data=np.isin(np.arange(N), hung).astype(np.int64))
    hbad = np.zeros(N, dtype=np.int64)
    for k, v in health.items():
        base = HEALTH_BASELINE.get(k, HEALTH_BUSY.get(k, 0))
        hbad |= ((v != base).reshape(N, -1).any(axis=1)).astype(np.int64)
    sim.create_dataset("health", data=hbad)
    sim.create_dataset("row_world_rank", data=answering)


def _write_test(res, test, i, a, rng, perf, clock_out, status_inj, msg_inj, unsupported, answering, not_run,
                hung, hung_test):
    import numpy as np
    g = res.create_group(test["name"])
    copy_attrs(g, test["attrs"])
    ds = test["dsets"]
    Nw = perf.shape[0]
    rows = answering
    n = len(rows)
    tstat = np.asarray(ds["status"]["data"], dtype=np.int64) if "status" in ds else np.ones(1, dtype=np.int64)
    good = np.nonzero(tstat == ST["verified"])[0]
    metric_attr = test["attrs"].get("metrics", {"v": ""})["v"]
    metric_names = [m for m in metric_attr.split(",") if m]

    # statuses of the simulated ranks
    if len(good):
        status = np.full(Nw, ST["verified"], dtype=np.int64)
        msg = [""] * Nw
    else:   # no template rank verified (e.g. fp16 on the host backend): as the template's rank 0
        status = np.full(Nw, int(tstat[0]), dtype=np.int64)
        msg = [ds["message"]["data"][0] if "message" in ds else ""] * Nw
    for r in np.nonzero(unsupported[:, i])[0]:
        status[r] = ST["unsupported"]
        msg[r] = "kernel not supported [simulated by fleetsim]"
    for r in np.nonzero(status_inj[:, i] == 100)[0]:
        if status[r] == ST["verified"]:
            status[r] = ST["wrong"]
            msg[r] = msg_inj[(r, i)]
    if not_run:
        status[:] = ST["not run"]
        why = "not run: %d rank%s hung (see /hung)" % (len(hung), "" if len(hung) == 1 else "s") if hung and \
            i > hung_test else "not run: stopped by signal 15"
        msg = [why] * Nw
    status = status[rows]
    msg = [msg[r] for r in rows]
    verified = (status == ST["verified"]).astype(np.int64)
    any_verified = bool(verified.any())
    ok = status == ST["verified"]

    # the pool of real repetitions: (template row, repetition) with a figure in every metric
    twod = {k: np.asarray(d["data"], dtype=np.float64) for k, d in ds.items() if d["ndim"] == 2}
    pool_r, pool_k = [], []
    if len(good) and twod:
        first = next((twod[m] for m in metric_names if m in twod), None)
        if first is not None:
            for r in good:
                for k in range(first.shape[1]):
                    if np.isfinite(first[r, k]):
                        pool_r.append(r)
                        pool_k.append(k)
    R = next(iter(twod.values())).shape[1] if twod else 0
    pick = None
    jitter = 1.0
    if pool_r:
        pool_r, pool_k = np.asarray(pool_r), np.asarray(pool_k)
        if a.resample == "iid":
            pick = rng.integers(0, len(pool_r), size=(n, R))
        else:   # series: a template rank's whole series, repetition k from repetition k, with a jitter
            rowpick = rng.choice(good, size=n)
            tr_series = np.repeat(rowpick[:, None], R, axis=1)
            tk_series = np.tile(np.arange(R), (n, 1))
            sw = []
            for r in good:
                v = first[r][np.isfinite(first[r])]
                if len(v) >= 3 and (v > 0).all():
                    dl = np.diff(np.log(v))
                    sw.append(1.4826 * np.median(np.abs(dl - np.median(dl))) / math.sqrt(2))
            jit = float(np.median(sw)) if sw else 0.0
            jitter = np.exp(jit * rng.standard_normal((n, R)))
    f_gpu = perf[rows, i][:, None]

    if not any_verified:   # as the runner: no metric datasets, no rates per watt, the lists emptied
        put_attr(g, "metrics", "")
        put_attr(g, "summary_metrics", "")
        if "power_summary" in test["attrs"]:
            put_attr(g, "power_summary", ",".join(x for x in test["attrs"]["power_summary"]["v"].split(",")
                                                  if x and not x.endswith("_per_w")))
    for k, d in ds.items():
        if k in ("status", "verified", "message"):
            continue
        if not any_verified and k.endswith("_per_w"):
            continue
        if not any_verified and (k in metric_names or k in ("rep_start_s", "rep_end_s")):
            continue
        attrs = dict(d["attrs"])
        if d["ndim"] == 2:
            src = twod[k]
            if not_run and k in ("power_samples", "power_under_sampled"):
                data = np.full((n, src.shape[1]), 0.0 if k == "power_samples" else 1.0)
            elif not len(pool_r) or not_run:
                data = np.full((n, src.shape[1]), np.nan)
            elif k in ("rep_start_s", "rep_end_s"):
                data = np.tile(src[good[0]], (n, 1))
            else:
                with np.errstate(invalid="ignore", divide="ignore"):
                    med = np.nanmedian(np.where(np.isfinite(src[good]), src[good], np.nan), axis=1)
                ref = float(np.nanmedian(med)) if np.isfinite(med).any() else np.nan
                if pick is not None:
                    tr, tk = pool_r[pick], pool_k[pick]
                else:
                    tr, tk = tr_series, tk_series
                dirn = direction(k)
                if k == "clock_mhz":
                    data = src[tr, tk]
                    if a.clock is not None:
                        data = np.full_like(data, a.clock)
                    co = clock_out[rows]
                    data = np.where(np.isfinite(co)[:, None], co[:, None], data)
                elif dirn == 0 or not np.isfinite(ref) or ref == 0:
                    data = src[tr, tk]
                else:
                    medrow = np.full(src.shape[0], np.nan)
                    medrow[good] = med
                    rowmed = medrow[tr]
                    data = ref * (src[tr, tk] / rowmed) * (f_gpu * jitter) ** dirn
                data = np.where(ok[:, None], data, np.nan)
            # 'better' is the runner's (the verdict's one table, src/report/verdict.c):
            # copied from the template where it has it, never made up here
            if not a.write_better:
                attrs.pop("better", None)
            put(g, k, data, "f", attrs)
        else:
            src = d["data"]
            if d["k"] == "s":
                put(g, k, [src[0] if src else ""] * n, "s", attrs)
            elif d["k"] == "i":
                put(g, k, [0 if not_run else int(src[good[0]] if len(good) else src[0])] * n, "i", attrs)
            else:
                arr = np.asarray(src, dtype=np.float64)
                vals = arr[good] if len(good) else arr
                vals = vals[np.isfinite(vals)]
                if not_run and k == "start_skew_us":
                    data = np.zeros(n)
                elif not_run or not len(vals):
                    data = np.full(n, np.nan)
                elif k == "start_skew_us":
                    data = rng.choice(vals, size=n)
                else:
                    data = float(np.median(vals)) * perf[rows, i] ** direction(k)
                    data = np.where(ok, data, np.nan)
                put(g, k, data, "f", attrs)
    put(g, "verified", verified, "i", ds.get("verified", {}).get("attrs"))
    put(g, "status", status, "i", ds.get("status", {}).get("attrs"))
    put(g, "message", msg, "s", ds.get("message", {}).get("attrs"))
