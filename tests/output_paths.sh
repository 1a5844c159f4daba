#!/bin/sh
# The one rule for output paths (issue 27; docs/reliability.md, "Output
# files"), for each command that writes one: a run's -o, report --html,
# baseline -o and the plots. A regular file is created, or with --force
# replaced; never a FIFO, a device or a symlink (nor its target), not even
# with --force; an existing output without --force is refused. A refusal
# names the option and the path, exits 2 and writes nothing. Every command
# runs under timeout: one that opens a FIFO and waits fails here, it does not
# hang the suite.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
tiny="$srcdir/tests/decks/tiny.yaml"
mkfifo "$work/fifo" "$work/fifo.png" || fail "test setup: mkfifo"
echo keep >"$work/target"
ln -s "$work/target" "$work/link"
ln -s "$work/target" "$work/link.png"   # the plots: matplotlib would add .png to a name without it

# unchanged: the FIFO is still a FIFO, the symlink a symlink, its target as it was
intact() {
    [ -p "$work/fifo" ] && [ -p "$work/fifo.png" ] || fail "$1: a FIFO was replaced"
    [ -L "$work/link" ] && [ -L "$work/link.png" ] || fail "$1: a symlink was replaced"
    [ "$(cat "$work/target")" = keep ] || fail "$1: the symlink's target was written"
}
# refused OPTION PATH WHAT: exit 2, one line naming the option and the path
refused() {
    [ "$rc" = 2 ] || { cat "$work/e" >&2; fail "$1 $2: exit $rc, expected 2 (124: it hung)"; }
    expect_in "$work/e" "$1 '$2' $3"
    ! grep -q Traceback "$work/e" || fail "$1 $2: a traceback"
}
run() {   # run ARGS...: mcfleet on one rank, 60 s at most
    rc=0
    timeout -k 5 60 "$MPIRUN" -np 1 --oversubscribe --mca btl self,vader,tcp --bind-to none \
        "$MCFLEET" --backend host --quick --deck "$tiny" "$@" >"$work/out" 2>"$work/e" || rc=$?
}

# 1. a run's -o
run -o "$work/fifo" --force
refused -o "$work/fifo" "is a FIFO"
run -o "$work/link" --force
refused -o "$work/link" "is a symlink"
run -o "$work/link"
refused -o "$work/link" "is a symlink"
intact "-o"
[ ! -e "$work/fifo.partial" ] && [ ! -e "$work/link.partial" ] && [ ! -e "$work/fifo.journal" ] \
    || fail "-o: a .partial or .journal written before the refusal: $(ls "$work")"
run -o "$work/r.h5"
expect_rc 0
cp "$work/r.h5" "$work/r0.h5"
run -o "$work/r.h5"
refused -o "$work/r.h5" "exists: mcfleet does not overwrite results"
cmp -s "$work/r.h5" "$work/r0.h5" || fail "-o: an existing file changed without --force"
# a FIFO where the journal goes: not removed by --force (only a killed run's file is)
mkfifo "$work/j.h5.journal"
run -o "$work/j.h5" --force
[ "$rc" = 2 ] && [ -p "$work/j.h5.journal" ] && [ ! -e "$work/j.h5" ] || { cat "$work/e"; fail "-o: a FIFO journal: exit $rc"; }
expect_in "$work/e" "is a FIFO, not a killed run's journal"
# /dev/null as root: refused before any write (never run where a regression
# could replace it: as root, the run is made nobody's, who cannot write /dev)
as=""
[ "$(id -u)" != 0 ] || as="setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ -z "$as" ] || command -v setpriv >/dev/null; then
    nb=$(mktemp -d "${TMPDIR:-/tmp}/mcfleet-nobody.XXXXXX") && chmod 777 "$nb" || fail "test setup: a folder for nobody"
    trap 'rm -rf "$work" "$nb"' EXIT   # $work is its owner's alone
    # the binary and the deck copied where nobody may read them: the build may
    # lie in root's home (the fresh Debian root builds in /root, mode 700)
    cp "$MCFLEET" "$nb/mcfleet" && cp "$tiny" "$nb/tiny.yaml" && chmod 755 "$nb/mcfleet" && chmod 644 "$nb/tiny.yaml" ||
        fail "test setup: the binary for nobody"
    rc=0
    (cd "$nb" && HOME="$nb" TMPDIR="$nb" $as timeout -k 5 60 "$nb/mcfleet" --backend host \
        --quick --deck "$nb/tiny.yaml" -o /dev/null --force) >"$work/out" 2>"$work/e" </dev/null || rc=$?
    refused -o /dev/null "is a character device"
    [ -c /dev/null ] || fail "/dev/null is no longer a character device"
    [ ! -e /dev/null.partial ] || fail "/dev/null.partial written"
fi

# 2. the Python outputs: report --html, baseline -o, the plots
if "$PYTHON_H5" -c 'import matplotlib' 2>/dev/null; then
    for opt in "" --force; do
        rc=0; timeout 60 "$MCFLEET" report "$work/r.h5" --html "$work/fifo" $opt >"$work/out" 2>"$work/e" || rc=$?
        refused --html "$work/fifo" "is a FIFO"
        rc=0; timeout 60 "$MCFLEET" report "$work/r.h5" --html "$work/link" $opt >"$work/out" 2>"$work/e" || rc=$?
        refused --html "$work/link" "is a symlink"
        # the script run by hand checks alike
        rc=0; timeout 60 "$PYTHON_H5" "$srcdir/analysis/mcfleet_html.py" "$work/r.h5" --html "$work/fifo" $opt \
            >"$work/out" 2>"$work/e" || rc=$?
        refused --html "$work/fifo" "is a FIFO"
    done
    intact "--html"
    echo old >"$work/page.html"
    rc=0; timeout 60 "$MCFLEET" report "$work/r.h5" --html "$work/page.html" >"$work/out" 2>"$work/e" || rc=$?
    refused --html "$work/page.html" "exists: mcfleet does not overwrite results"
    [ "$(cat "$work/page.html")" = old ] || fail "--html: an existing page replaced without --force"
    rc=0; timeout 120 "$MCFLEET" report "$work/r.h5" --html "$work/page.html" --force >"$work/out" 2>"$work/e" || rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat "$work/e"; fail "--html --force over a page: exit $rc"; }
    expect_in "$work/page.html" "VERDICT"
    "$MCFLEET" report --help | grep -q -- "--force" || fail "report --help: no --force"

    for opt in "" --force; do
        rc=0; timeout 60 "$MCFLEET" baseline "$work/r.h5" --allow-quick -o "$work/fifo" $opt >"$work/out" 2>"$work/e" || rc=$?
        refused -o "$work/fifo" "is a FIFO"
        rc=0; timeout 60 "$MCFLEET" baseline "$work/r.h5" --allow-quick -o "$work/link" $opt >"$work/out" 2>"$work/e" || rc=$?
        refused -o "$work/link" "is a symlink"
        for f in fifo.png link.png; do
            rc=0; timeout 60 "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" variation "$work/r.h5" -o "$work/$f" $opt \
                >"$work/out" 2>"$work/e" || rc=$?
            refused -o "$work/$f" "is a"
        done
    done
    intact "baseline, plots"
    echo old >"$work/b.yaml"
    rc=0; timeout 60 "$MCFLEET" baseline "$work/r.h5" --allow-quick -o "$work/b.yaml" >"$work/out" 2>"$work/e" || rc=$?
    refused -o "$work/b.yaml" "exists: mcfleet does not overwrite results"
    echo old >"$work/v.png"
    rc=0; timeout 60 "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" variation "$work/r.h5" -o "$work/v.png" \
        >"$work/out" 2>"$work/e" || rc=$?
    refused -o "$work/v.png" "exists: mcfleet does not overwrite results"
    [ "$(cat "$work/v.png")" = old ] || fail "plot: an existing file replaced without --force"
    rc=0; timeout 60 "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" variation "$work/r.h5" -o "$work/v.png" --force \
        >"$work/out" 2>"$work/e" || rc=$?
    [ "$rc" = 0 ] && [ "$(head -c 4 "$work/v.png" | tail -c 3)" = PNG ] || { cat "$work/e"; fail "plot --force: exit $rc"; }
    [ -z "$(ls -A "$work" | grep '\.tmp$')" ] || fail "a temporary file left: $(ls -A "$work")"
    # a format matplotlib does not write: refused before the work, not a traceback at the end
    rc=0; timeout 60 "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" variation "$work/r.h5" -o "$work/v.weird" \
        >"$work/out" 2>"$work/e" || rc=$?
    refused -o "$work/v.weird" "is not a figure matplotlib writes (.weird;"
    # a 255-byte name (the most a file system takes): the temporary beside it must still fit
    long=$(printf 'x%.0s' $(seq 250)).html
    rc=0; timeout 120 "$MCFLEET" report "$work/r.h5" --html "$work/$long" >"$work/out" 2>"$work/e" || rc=$?
    [ "$rc" = 0 ] && [ -s "$work/$long" ] || { cat "$work/e"; fail "report --html to a 255-byte name: exit $rc"; }
    # a name from a shared folder with an escape, a newline and U+202E: the refusal on one line, shown
    esc=$(printf '%s/a\033[2J\nb\342\200\256.png' "$work")
    ln -s "$work/target" "$esc"
    rc=0; timeout 60 "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" variation "$work/r.h5" -o "$esc" --force \
        >"$work/out" 2>"$work/e" || rc=$?
    refused -o "$work/a?[2J?b?.png" "is a symlink"
    ! grep -q "$(printf '\033')" "$work/e" || fail "an escape sequence from a file name reached stderr"
else
    echo "report --html, baseline and plot cases skipped: no matplotlib"
fi
intact "the end"
# a FIFO where a killed run's journal would be: the report says so, it does not wait in open()
mkfifo "$work/k.h5.journal"
rc=0; timeout 30 "$MCFLEET" report "$work/k.h5" >"$work/out" 2>"$work/e" || rc=$?
[ "$rc" = 2 ] && grep -q "k.h5.journal' is not a regular file" "$work/e" ||
    { cat "$work/e"; fail "report with a FIFO as the journal: exit $rc (124: it hung), expected 2 naming it"; }
run -o "$work/esc$(printf '\033')[2J.h5" --deck "$work/no-such-deck"
[ "$rc" = 2 ] && ! grep -q "$(printf '\033')" "$work/e" || { cat -A "$work/e"; fail "a run's error message printed a raw escape"; }
echo "output paths ok"
