#!/bin/sh
# The page and the plots of a run of 2 GPUs (fewer than FEW_GPUS = 5 in
# analysis/mcfleet_plot.py): no median and spread of two. The distributions
# draw each GPU's own median (the points are exactly the GPUs' values, each
# row labelled by rank), the heatmap each GPU's % from the best one, the
# sustained plot each GPU's own trace (no "fleet median" line), and a deck without an intensity sweep (as an acceptance deck)
# still gets its roofline: the roof of its bandwidth and compute tests, each
# ceiling the best GPU's own figure. The same data spread over 6 GPUs goes
# back to the median, the spread and the fleet median. Then the page of that
# run says which rule it drew by, and why there is no sweep; without a
# bandwidth test the roofline section says why there is none.
. "$srcdir/tests/lib.sh"
need_mpirun
need_matplotlib
cat >"$work/deck.yaml" <<YAML
defaults:
  repetitions: 3
  warmup: 1
tests:
  - {name: peak, kernel: valu, dtype: fp64, iterations: 20000}
  - {name: triad, kernel: memory, op: triad, bytes: 4MiB}
  - {name: sus, kernel: valu, dtype: fp32, iterations: 20000, duration: 2s, time_limit: 30}
YAML
mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/r.h5"
expect_rc 0

"$PYTHON_H5" - "$srcdir/analysis" "$work/r.h5" <<'PY' || fail "the plots of 2 GPUs"
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import mcfleet_plot as plot
f = sys.argv[2]
assert plot.FEW_GPUS == 5

def widen(a, n=6):   # the same GPUs' values spread over n GPUs
    a = np.asarray(a, float)
    return np.concatenate([a * (1 + 0.001 * i) for i in range((n + len(a) - 1) // len(a))])[:n]

# distributions: each GPU's own value, labelled by rank
data = plot.read_judged(f)
fig = plot.draw_distributions(data, data["rules"])
checked = 0
for ax, fg in zip(fig.axes, data["figs"]):
    assert "each its own" in ax.get_title(), ax.get_title()
    xs = sorted(float(l.get_xdata()[0]) for l in ax.get_lines() if l.get_marker() == "o")
    want = sorted(float(v) for v in fg["med"] if np.isfinite(v))
    assert len(want) == 2 and np.allclose(xs, want, rtol=1e-12), (fg["test"], xs, want)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["rank 0 (node 0, GPU 0)", "rank 1 (node 0, GPU 1)"]
    checked += 1
assert checked >= 3, checked
six = dict(data, nranks=6, node=np.zeros(6, int), local=np.arange(6), sku=[data["sku"][0]] * 6,
           figs=[dict(fg, med=widen(fg["med"])) for fg in data["figs"]])
fig = plot.draw_distributions(six, data["rules"])
assert all("each its own" not in ax.get_title() and "(6 GPUs)" in ax.get_title() for ax in fig.axes[:len(six["figs"])])

# the heatmap: % from the best GPU (0 there), not from the median of two
fg = data["figs"][0]
ax = plot.draw_heatmap(data, fg, data["rules"]).axes[0]
assert "from the best GPU of its SKU" in ax.get_title(), ax.get_title()
cells = np.asarray(ax.images[0].get_array()).ravel()
want = 100 * fg["better"] * (fg["med"] / (fg["med"].max() if fg["better"] > 0 else fg["med"].min()) - 1)
assert np.allclose(sorted(cells), sorted(want)) and max(cells) == 0, (cells, want)
assert "its SKU's median" in plot.draw_heatmap(six, six["figs"][0], data["rules"]).axes[0].get_title()

# sustained: each GPU's own trace, the flagged one named; from 6 GPUs the fleet median
tr = plot.read_traces(f)
assert tr["nranks"] == 2 and tr["tests"] and tr["tests"][0]["test"] == "sus", tr["tests"]
fig = plot.draw_traces(tr, [1])
ax = fig.axes[0]
lines = {l.get_label(): l for l in ax.get_lines()}
assert sorted(lines) == ["rank 0", "rank 1 (flagged)"], sorted(lines)
rate = tr["tests"][0]["cols"]["rate"]
for k, lab in enumerate(("rank 0", "rank 1 (flagged)")):
    assert np.allclose(lines[lab].get_ydata(), rate[k], equal_nan=True), lab
tr6 = dict(tr, nranks=6, tests=[dict(t, cols={c: np.vstack([v] * 3) for c, v in t["cols"].items()})
                                for t in tr["tests"]])
labels = [l.get_label() for l in plot.draw_traces(tr6, [1]).axes[0].get_lines()]
assert "fleet median" in labels and "rank 0" not in labels, labels

# the roof of a file without a sweep: the best GPU's figures, named; from 6 GPUs the median
points, roofs, methods, flops, per_gpu = plot.read_roofline(f)
assert not points and "hbm" in roofs and flops, (points, roofs, flops)
levels, compute = plot.roof_ceilings(per_gpu, 2)
triad = next(m for n, lv, m in per_gpu if n == "triad")
assert levels["hbm"][0] == "triad" and levels["hbm"][1] == triad.max(), levels
assert levels["hbm"][2] == "rank %d" % int(np.argmax(triad)), levels
peak = next(m for n, lv, m in per_gpu if n == "peak")
assert ("peak", peak.max(), "rank %d" % int(np.argmax(peak))) in compute, compute
levels, compute = plot.roof_ceilings([(n, lv, widen(m, 7)) for n, lv, m in per_gpu], 7)
assert levels["hbm"][2] == "fleet median" and levels["hbm"][1] == np.median(widen(triad, 7)), levels
print("plots of 2 GPUs ok")
PY

rc=0; "$MCFLEET" report "$work/r.h5" --html "$work/r.html" >"$work/o" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$work/o"; fail "report --html: exit $rc"; }
expect_in "$work/r.html" "Fewer than 5 GPUs have these figures"
expect_in "$work/r.html" "Each GPU&#x27;s own trace, one colour per rank"
expect_in "$work/r.html" "<h2>Empirical roofline</h2><p>This file has no intensity sweep"
expect_in "$work/r.html" "The roof is drawn from the ceilings it measured: HBM bandwidth and 2 compute ceilings"
expect_in "$work/r.html" '<img alt="roofline of the measured ceilings" src="data:image/png;base64,'
! grep -q "The fleet&#x27;s median and 5-95\|against its SKU&#x27;s median\|against its SKU's median" "$work/r.html" \
    || fail "a fleet median or a spread around the SKU's median on the page of 2 GPUs"

# no bandwidth test: the page says why there is no roofline
"$PYTHON_H5" - "$srcdir/analysis" "$work/r.h5" <<'PY' || fail "the roofline section without a bandwidth test"
import sys
sys.path.insert(0, sys.argv[1])
import mcfleet_html, mcfleet_plot as plot
points, roofs, methods, flops, per_gpu = plot.read_roofline(sys.argv[2])
compute_only = [c for c in per_gpu if c[1] is None]
text = mcfleet_html.roofline_section(sys.argv[2], {"nranks": 2, "roofline": ([], {}, {}, flops, compute_only)})
assert "No roofline: this file has no intensity sweep" in text, text
assert "the roof needs a memory bandwidth test (<code>kernel: memory</code>) with figures" in text, text
assert "<img" not in text, text
PY
echo "page of 2 GPUs ok"
