#!/bin/sh
# A run killed mid-way never leaves a file that looks complete.
. "$srcdir/tests/lib.sh"
need_mpirun
"$MPIRUN" -np 2 --oversubscribe --mca btl self,vader,tcp --bind-to none \
    "$MCFLEET" --backend host --deck "$srcdir/tests/decks/slow.yaml" -o "$work/k.h5" \
    >"$work/out" 2>&1 &
pid=$!
i=0
while ! grep -q "slow-chase" "$work/out" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 300 ] || { kill -9 $pid; fail "the run never started"; }
    sleep 0.1
done
kill -TERM $pid
wait $pid || true
[ ! -e "$work/k.h5" ] || fail "a killed run left $work/k.h5"
echo "killed run ok (left: $(ls "$work" | tr '\n' ' '))"
