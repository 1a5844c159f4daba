#!/bin/sh
# Bad option values and environment variables: a message naming the option or
# variable, exit 2, before any test runs and without a results file (issue 9).
. "$srcdir/tests/lib.sh"
need_mpirun
deck="$srcdir/tests/decks/tiny.yaml"

# worker threads for the host backend: -5, abc and 1e9 were silently replaced
for v in -5 abc 1e9 0 010 4097 ' 4'; do
    MCFLEET_HOST_THREADS="$v" mpi 2 --backend host --quick --deck "$deck" -o "$work/t.h5"
    expect_rc 2
    expect_in "$work/err" "MCFLEET_HOST_THREADS='$v': expected a number of worker threads from 1 to 4096"
    [ "$(grep -c MCFLEET_HOST_THREADS "$work/err")" = 1 ] || fail "MCFLEET_HOST_THREADS=$v: not printed once"
    [ ! -e "$work/t.h5" ] && [ ! -e "$work/t.h5.partial" ] || fail "MCFLEET_HOST_THREADS=$v left a file"
done

# paths longer than the run's buffers were cut: -o wrote to a truncated name
long="$work"
while [ ${#long} -lt 1060 ]; do long="$long/$(printf '%0200d' 0)"; done
mkdir -p "$long" || { echo "SKIP: cannot make a directory path of ${#long} characters"; exit $SKIP; }
out="$long/run.h5"
mpi 2 --backend host --quick --deck "$deck" -o "$out"
expect_rc 2
expect_in "$work/err" "--output: the path is ${#out} characters long; at most 1023 are supported"
[ -z "$(find "$work" -name '*.h5*')" ] || fail "a run with a too long -o path wrote $(find "$work" -name '*.h5*')"
cp "$deck" "$long/deck.yaml"
mpi 2 --deck "$long/deck.yaml" --list
expect_rc 2
expect_in "$work/err" "--deck: the path is $((${#long} + 10)) characters long; at most 1023 are supported"
# a fault-injection spec that does not parse stops the run before any test
MCFLEET_INJECT_FAULT='*@abc' mpi 2 --backend host --quick --deck "$deck" -o "$work/i.h5"
expect_rc 2
expect_in "$work/err" "MCFLEET_INJECT_FAULT='*@abc': the rank after '@' must be a whole number"
[ ! -e "$work/i.h5" ] || fail "a bad MCFLEET_INJECT_FAULT still ran"
echo "bad input ok"
