#!/bin/sh
# The Python tools where the first python3 on PATH lacks h5py, numpy and
# matplotlib (a pyenv, conda or venv beside Debian's /usr/bin/python3): a
# fake python3 that has the standard library only (PYTHON_H5 -I -S) first on
# PATH. analysis/mcfleet_plot.py run by hand (its shebang finds the fake)
# runs again under a python3 that has them and draws; with MCFLEET_PYTHON
# naming the fake (the only one tried then), the script and mcfleet's Python
# subcommands (src/pytool.c) exit 3 naming the missing modules and the Debian
# packages, without a traceback and without writing anything; with
# MCFLEET_PYTHON unset, mcfleet passes over the fake.
. "$srcdir/tests/lib.sh"
need_mpirun
need_matplotlib
mkdir "$work/bin"
printf '#!/bin/sh\nexec "%s" -I -S "$@"\n' "$PYTHON_H5" >"$work/bin/python3"
chmod +x "$work/bin/python3"
fake="$work/bin/python3"
! "$fake" -c 'import numpy' 2>/dev/null || { echo "SKIP: $PYTHON_H5 -I -S still imports numpy"; exit $SKIP; }
PATH="$work/bin:$PATH" python3 -c 'import sys; assert sys.flags.no_site' || fail "the fake python3 is not first on PATH"

cat >"$work/deck.yaml" <<YAML
defaults:
  repetitions: 2
  warmup: 1
tests:
  - {name: peak, kernel: valu, dtype: fp64, iterations: 2000}
YAML
mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/r.h5"
expect_rc 0

# by hand, the fake first on PATH: run again under a python3 that has the modules
# (/usr/bin/python3, /usr/local/bin/python3 or a python3 later on PATH)
case $PYTHON_H5 in */python3) later=$(dirname "$PYTHON_H5") ;; *) later=/usr/bin ;; esac
rc=0; PATH="$work/bin:$later:$PATH" "$srcdir/analysis/mcfleet_plot.py" variation "$work/r.h5" -o "$work/v.png" \
    >"$work/o" 2>&1 || rc=$?
[ $rc = 0 ] && [ -s "$work/v.png" ] && expect_in "$work/o" "wrote $work/v.png" \
    || { cat "$work/o"; fail "mcfleet_plot.py with a python3 without numpy first on PATH: exit $rc"; }

# MCFLEET_PYTHON names the fake: exit 3, the modules and packages named
rc=0; PATH="$work/bin:$PATH" MCFLEET_PYTHON="$fake" "$srcdir/analysis/mcfleet_plot.py" variation "$work/r.h5" \
    -o "$work/x.png" >"$work/o" 2>"$work/e" || rc=$?
[ $rc = 3 ] || { cat "$work/o" "$work/e"; fail "mcfleet_plot.py, MCFLEET_PYTHON without numpy: exit $rc, expected 3"; }
expect_in "$work/e" "mcfleet_plot: no module named 'h5py', 'numpy', 'matplotlib'"
expect_in "$work/e" "apt-get install python3-h5py python3-numpy python3-matplotlib"
expect_in "$work/e" "$fake: no h5py, numpy, matplotlib"
[ "$(wc -l <"$work/e")" = 1 ] && ! grep -q Traceback "$work/e" || { cat "$work/e"; fail "not one line"; }
[ ! -e "$work/x.png" ] || fail "a figure written without numpy"

rc=0; MCFLEET_PYTHON="$fake" "$MCFLEET" report "$work/r.h5" --html "$work/x.html" >"$work/o" 2>"$work/e" || rc=$?
[ $rc = 3 ] || { cat "$work/o" "$work/e"; fail "report --html, MCFLEET_PYTHON without numpy: exit $rc, expected 3"; }
expect_in "$work/e" "mcfleet report --html needs the Python modules h5py numpy matplotlib"
expect_in "$work/e" "MCFLEET_PYTHON=$fake: cannot import h5py numpy matplotlib"
expect_in "$work/e" "apt-get install python3-h5py python3-numpy python3-matplotlib"
! grep -q Traceback "$work/e" && [ ! -e "$work/x.html" ] || { cat "$work/e"; fail "report --html: a traceback or a page"; }
rc=0; MCFLEET_PYTHON="$work/none/python3" "$MCFLEET" compare "$work/r.h5" "$work/r.h5" >"$work/o" 2>"$work/e" || rc=$?
[ $rc = 3 ] || { cat "$work/o" "$work/e"; fail "compare, MCFLEET_PYTHON missing: exit $rc, expected 3"; }
expect_in "$work/e" "MCFLEET_PYTHON=$work/none/python3: cannot be run"
expect_in "$work/e" "apt-get install python3-h5py python3-numpy (Debian"

# MCFLEET_PYTHON unset, the fake first on PATH: mcfleet passes over it
rc=0; PATH="$work/bin:$PATH" "$MCFLEET" report "$work/r.h5" --html "$work/r.html" >"$work/o" 2>&1 || rc=$?
# (PASS or WARN: two host ranks beside a loaded CPU may differ by a warning's worth; exit 0 either way)
grep -qE "VERDICT: (PASS|WARN)" "$work/r.html" && [ $rc = 0 ] || { cat "$work/o"; fail "report --html past the fake: exit $rc"; }
echo "python pick ok"
