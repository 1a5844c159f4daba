#!/bin/sh
# mcfleet study on hostile input (tests/study_hostile.py): study tables that
# are empty, BOM/CRLF, quoted over lines, not UTF-8, with bad cells, twice
# named or unnamed columns, a node at two places, degenerate designs (one
# GPU, one row, zero variance), control characters and HTML in names, 100,000
# rows in a few seconds; --location patterns that have no group or backtrack,
# bad --location-map files; option bounds and outputs. Every bad input exit
# 2 naming its file:line or option, an output that cannot be written exit 3,
# never a traceback; strict JSON, one text line per item, an escaped page.
# Then through the binary: the same exit codes, and --html without matplotlib.
. "$srcdir/tests/lib.sh"
need_h5py
"$PYTHON_H5" "$srcdir/tests/study_hostile.py" "$srcdir/analysis" "$srcdir/tests" "$work" || fail "study on hostile input"

printf 'gpu,test,value\nA,t,1\nB\377,t,2\n' > "$work/latin1.csv"
rc=0; "$MCFLEET" study "$work/latin1.csv" >"$work/out" 2>"$work/err" || rc=$?
expect_rc 2
expect_in "$work/err" "latin1.csv:3: not UTF-8 text"
! grep -q Traceback "$work/err" || fail "a traceback"
printf 'gpu,test,value\nA,t,1\nB,t,2\n' > "$work/ok.csv"
rc=0; "$MCFLEET" study "$work/ok.csv" --boot 20 --html "$work/no-dir/p.html" >"$work/out" 2>"$work/err" || rc=$?
expect_rc 3
expect_in "$work/err" "--html $work/no-dir/p.html: cannot write: no folder"
# matplotlib missing (hidden): --html is exit 3, said before the study; the text needs none
rc=0; "$PYTHON_H5" -c 'import sys; sys.modules["matplotlib"] = None; sys.path.insert(0, sys.argv[1])
import mcfleet_study; sys.exit(mcfleet_study.main(sys.argv[2:]))' "$srcdir/analysis" "$work/ok.csv" --boot 20 \
    --html "$work/p.html" >"$work/out" 2>"$work/err" || rc=$?
expect_rc 3
expect_in "$work/err" "mcfleet study --html: no module named 'matplotlib'"
[ ! -e "$work/p.html" ] && [ ! -s "$work/out" ] || fail "a page or text written without matplotlib"
echo "PASS: study on hostile input"
