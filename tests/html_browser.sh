#!/bin/sh
# The HTML report in a real browser: headless Chromium (quickstart.sh check
# installs Debian's, optional) opens the page of a host run with one GPU
# failing, offline; the text it renders holds the verdict and the flagged
# GPU, and a screenshot of the first screen is a PNG of that size. Skips (77)
# where no chromium is installed.
. "$srcdir/tests/lib.sh"
need_mpirun
need_matplotlib
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "SKIP: no chromium (quickstart.sh check installs Debian's where it can)"; exit $SKIP; }
timeout 60 "$browser" --headless --no-sandbox --version >/dev/null 2>&1 \
    || { echo "SKIP: $browser does not run here (a snap stub?)"; exit $SKIP; }
cat >"$work/deck.yaml" <<YAML
defaults:
  repetitions: 3
  warmup: 1
tests:
  - {name: peak, kernel: valu, dtype: fp64, iterations: 20000}
  - {name: triad, kernel: memory, op: triad, bytes: 4MiB}
YAML
export MCFLEET_INJECT_FAULT='triad@1'
mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/r.h5"
unset MCFLEET_INJECT_FAULT
"$MCFLEET" report "$work/r.h5" --html "$work/r.html" >"$work/out" 2>&1
uuid=$("$PYTHON_H5" -c 'import h5py, sys; print(h5py.File(sys.argv[1])["ranks/device_uuid"][1].decode())' "$work/r.h5")
# a profile of its own in the work directory: no user's state, no network
opts="--headless --no-sandbox --disable-gpu --no-first-run --user-data-dir=$work/profile --window-size=1280,900"
timeout 120 "$browser" $opts --dump-dom "file://$work/r.html" >"$work/dom" 2>"$work/berr" \
    || { tail -5 "$work/berr"; fail "chromium --dump-dom"; }
expect_in "$work/dom" "VERDICT: FAIL"
expect_in "$work/dom" "$uuid"
# rank 1 (the wrong result); rank 0 too where the loaded machine made the
# host pair differ by a warning's worth (host ranks: WARN at most)
grep -qE "Flagged GPUs \((1|2)\)" "$work/dom" || fail "not 1 or 2 GPUs flagged"
timeout 120 "$browser" $opts --screenshot="$work/shot.png" "file://$work/r.html" >/dev/null 2>>"$work/berr" \
    || { tail -5 "$work/berr"; fail "chromium --screenshot"; }
"$PYTHON_H5" - "$work/shot.png" <<'PY' || fail "the screenshot"
import struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", b[16:24])
assert (w, h) == (1280, 900), (w, h)
assert len(b) > 10000, "an empty page (%d bytes)" % len(b)
print("screenshot %dx%d, %d bytes" % (w, h, len(b)))
PY
echo "browser ok"
