#!/bin/sh
# The ladder family (C = A*B at three memory levels, shared/seeds/002_*)
# through the host backend: the shipped deck (input/ladder.yaml, --quick)
# verifies all three rungs with figures, each rung's intensity is the formula
# of its loops (src/family_ladder.h) and they rise naive < shared < register;
# the roofline plot places the three rungs and the library gemm; edge tiles
# (a size no tile divides) and the sampled check (a size over 512) verify; a
# corrupted output element fails with the element named; deck mistakes are
# exit 2 naming the test and the key.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py

# 1. the shipped deck, --quick, one host rank
mpi 1 --backend host --quick --deck "$srcdir/input/ladder.yaml" -o "$work/a.h5"
if grep -q "no CBLAS library" "$work/out" "$work/err"; then
    expect_rc 0
    expect_in "$work/out" "9 tests: 8 verified on every rank, 1 unsupported"
else
    expect_rc 0
    expect_in "$work/out" "9 tests: 9 verified on every rank"
fi
schema "$work/a.h5" 1
"$PYTHON_H5" - "$work/a.h5" <<'PY' || fail "the ladder's figures and intensities in the file"
import math, sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
got = {}
for rung, reuse in (("naive", 1), ("shared", 16), ("register", 64)):
    g = f["results/ladder-" + rung]
    assert text(g.attrs["kernel"]) == "ladder" and text(g.attrs["rung"]) == rung, dict(g.attrs)
    assert g["verified"][:].tolist() == [1], g["verified"][:]
    n, es = int(g.attrs["size"]), 8
    assert n == 576, n
    flop = 2.0 * n ** 3
    nbytes = (2 * math.ceil(n / reuse) + 1) * n * n * es       # docs/decks.md, "ladder"
    assert g.attrs["flop_per_unit"] == flop, g.attrs["flop_per_unit"]
    assert g.attrs["bytes_per_unit"] == nbytes, (rung, g.attrs["bytes_per_unit"], nbytes)
    gf, ai, bw = g["gflops"][:], g["intensity"][:], g["bandwidth_gbs"][:]
    assert np.all(np.isfinite(gf)) and np.all(gf > 0), gf
    assert np.allclose(ai, flop / nbytes, rtol=1e-12), (ai, flop / nbytes)
    assert np.allclose(bw, gf / ai, rtol=1e-9), (bw, gf / ai)
    got[rung] = ai.flat[0]
assert got["naive"] < got["shared"] < got["register"], got
assert abs(got["naive"] - 2 * 576 / (2 * 576 + 1) / 8) < 1e-12, got
print("intensities (FLOP/byte): %s" % got)
PY

# 2. the roofline: the three rungs at their intensity, the library gemm, the roofs and peaks
if "$PYTHON_H5" -c 'import matplotlib' 2>/dev/null; then
    "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" roofline "$work/a.h5" -o "$work/roof.png" >"$work/plot" 2>&1 ||
        { cat "$work/plot"; fail "the roofline plot of the ladder deck"; }
    expect_in "$work/plot" "placed ladder-naive: ladder rung naive, intensity 0.1249 FLOP/byte, "
    expect_in "$work/plot" "placed ladder-shared: ladder rung shared, intensity 1.973 FLOP/byte, "
    expect_in "$work/plot" "placed ladder-register: ladder rung register, intensity 7.579 FLOP/byte, "
    grep -q "no CBLAS library" "$work/out" || expect_in "$work/plot" "placed gemm-fp64: library gemm, "
    expect_in "$work/plot" "compute ceiling "
    expect_in "$work/plot" "(matrix-fp64)"
    expect_in "$work/plot" "hbm ceiling "
    expect_in "$work/plot" "3 ladder rungs"
    [ -s "$work/roof.png" ] || fail "no roofline image"
else
    echo "note: no matplotlib: the roofline plot not drawn"
fi

# 3. edge tiles (100: no tile divides it, every element checked), the sampled
#    check (600 > 512), fp32: all verify; then one corrupted element fails
cat >"$work/deck.yaml" <<'DECK'
defaults: {repetitions: 1, warmup: 0}
tests:
  - {name: e-naive, kernel: ladder, rung: naive, size: 100}
  - {name: e-shared, kernel: ladder, rung: shared, size: 100}
  - {name: e-register, kernel: ladder, rung: register, size: 100, dtype: fp32}
  - {name: s-register, kernel: ladder, rung: register, size: 600}
  - {name: s-shared, kernel: ladder, rung: shared, size: 600, dtype: fp32, inputs: exact}
DECK
mpi 1 --backend host --deck "$work/deck.yaml" -o "$work/b.h5"
expect_rc 0
expect_in "$work/out" "5 tests: 5 verified on every rank"
MCFLEET_INJECT_FAULT='*-register' mpi 1 --backend host --deck "$work/deck.yaml" -o "$work/c.h5"
expect_rc 1
expect_in "$work/out" "e-register: FAILED VERIFICATION on 1 of 1 ranks (rank 0: ladder register fp32 100^3: C["
expect_in "$work/out" "s-register: FAILED VERIFICATION on 1 of 1 ranks (rank 0: ladder register fp64 600^3: C["
expect_in "$work/out" "3 verified on every rank, 0 unsupported, 2 failed verification"

# 4. deck mistakes: exit 2, the test and the key named
bad() {   # bad TEST-LINE MESSAGE
    printf 'tests:\n  - %s\n' "$1" >"$work/bad.yaml"
    rc=0
    "$MCFLEET" --deck "$work/bad.yaml" --list >"$work/out" 2>&1 || rc=$?
    expect_rc 2
    expect_in "$work/out" "$2"
}
bad '{name: x, kernel: ladder, rung: tiled}' \
    "'rung' in test 'x' must be one of naive, shared, register, got 'tiled'"
bad '{name: x, kernel: ladder, rung: naive, dtype: fp16}' "test 'x' (ladder) 'dtype' must be fp64 or fp32"
bad '{name: x, kernel: ladder, rung: naive, size: 8}' "'size' in test 'x' must be between 16 and 65536, got 8"
bad '{name: x, kernel: ladder, rung: shared, size: 70000}' "'size' in test 'x' must be between 16 and 65536"
bad '{name: x, kernel: ladder, size: 256}' "test 'x' (ladder) needs 'rung'"
bad '{name: x, kernel: ladder, rung: [naive, shared]}' "'rung' in test 'x' cannot be a list"
# log axes label their ticks in plain text: with maths parsing off (names
# from a file are never maths), matplotlib's own labels showed raw
# "$\mathdefault{10^{5}}$" on every roofline
"$PYTHON_H5" - "$srcdir/analysis" <<'PY' || fail "log-axis tick labels"
import sys
sys.path.insert(0, sys.argv[1])
import matplotlib
matplotlib.use("Agg")
import mcfleet_plotlib  # noqa: E402  (turns maths parsing off)
import matplotlib.pyplot as plt  # noqa: E402
fig, ax = plt.subplots()
ax.plot([0.1, 10, 1000], [1e3, 1e4, 1e5])
mcfleet_plotlib.log_axes(ax)
fig.canvas.draw()
labels = [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text()]
assert labels and not any("$" in t or "mathdefault" in t for t in labels), labels
assert "10\u2074" in labels, labels
PY
echo "ladder ok"
