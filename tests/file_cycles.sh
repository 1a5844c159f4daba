#!/bin/sh
# No include or call circle between the files of src/ (tools/file-cycles.py:
# the #include graph of src/, and the call graph of libmcfleet.a's objects by
# their nm symbols), beyond the two known ones below, each one module in
# several files that issue 40 leaves to be made one door: the family rows and
# their family_*.c (a row names the file's functions, which look rows up),
# and the report's files around struct fleet. A new circle, or a known one
# that grew, fails; a known one gone says to take it off the list.
. "$srcdir/tests/lib.sh"
command -v nm >/dev/null 2>&1 || { echo "SKIP: no nm"; exit $SKIP; }
ls "$builddir"/src/libmcfleet_a-*.o >/dev/null 2>&1 || { echo "SKIP: no objects in $builddir/src"; exit $SKIP; }
rc=0; "$PYTHON_H5" "$srcdir/tools/file-cycles.py" "$srcdir" "$builddir" >"$work/out" 2>&1 || rc=$?
[ $rc -le 1 ] || { cat "$work/out"; fail "tools/file-cycles.py: exit $rc"; }
cat >"$work/known" <<'KNOWN'
call circle: family.c <-> family_hopper.c <-> family_keys.c <-> family_ladder.c <-> family_sparse.c <-> family_transfer.c <-> kernel.c
call circle: report.c <-> report_json.c <-> report_judge.c <-> report_links.c <-> report_links_health.c <-> report_out.c <-> report_peers.c <-> report_sparse.c <-> report_test.c
KNOWN
grep circle "$work/out" | sort >"$work/found"
sort "$work/known" >"$work/known.sorted"
new=$(comm -23 "$work/found" "$work/known.sorted")
gone=$(comm -13 "$work/found" "$work/known.sorted")
[ -z "$new" ] || { echo "$new"; fail "a new include or call circle between files of src/ (above)"; }
[ -z "$gone" ] || { echo "$gone"; fail "a known circle is gone (above): take it off tests/file_cycles.sh's list"; }
echo "file circles: only the $(wc -l <"$work/known") known ones"
