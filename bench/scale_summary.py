"""One line per results file of a scale run (docs/scaling.md): the write mode
auto chose, the start skew's p50/p99 over every rank and test, and the gap
between tests (the boundary, the next test's setup and the synchronized
start): the median over the tests of min(next start) - max(this end).

usage: scale_summary.py FILE.h5 [LAUNCH_UNIX_S]
"""
import calendar
import sys
import time

import h5py
import numpy as np

path = sys.argv[1]
with h5py.File(path, "r") as f:
    meta = f["/meta"].attrs
    text = lambda k: meta[k].decode() if isinstance(meta[k], bytes) else str(meta[k])
    skews, gaps, prev_end = [], [], None
    for name in f["/results"]:
        g = f["/results"][name]
        skews.extend(np.asarray(g["start_skew_us"][()]).ravel())
        if "rep_start_s" in g:
            start, end = np.nanmin(g["rep_start_s"][()]), np.nanmax(g["rep_end_s"][()])
            if prev_end is not None:
                gaps.append(start - prev_end)
            prev_end = end
    skews = np.asarray(skews, dtype=float)
    line = (f"{path}: nranks {int(meta['nranks'])} mode {text('hdf5_write_mode')} complete {int(meta['complete'])} "
            f"skew p50 {np.nanpercentile(skews, 50):.1f} us p99 {np.nanpercentile(skews, 99):.1f} us "
            f"max {np.nanmax(skews):.1f} us; gap between tests median {1e3 * np.median(gaps):.1f} ms "
            f"max {1e3 * np.max(gaps):.1f} ms")
    if len(sys.argv) > 2:
        started = calendar.timegm(time.strptime(text("start_time"), "%Y-%m-%dT%H:%M:%SZ"))
        line += f"; launch to start {started - float(sys.argv[2]):.0f} s"
    print(line)
