#!/bin/bash
# mcfleet selftest (the MFMA register-layout self-test) through the host
# backend, the real binary without MPI: one ok line per instruction of
# kernels/hip/mfma_list.h on each CDNA generation, exit 0; an injected fault
# (MCFLEET_INJECT_LAYOUT) gives the mismatch line naming that instruction,
# lane and register, exit 1; bad options and a bad variable exit 2 naming
# what was wrong. Nothing here depends on timing.
. "$srcdir/tests/lib.sh"
list="$srcdir/kernels/hip/mfma_list.h"

# the list's mnemonics per generation: the quoted ASM2 / ASM3 columns ("" where absent)
sed -n 's/^ *"\([^"]*\)", "\([^"]*\)", MCF_.*/\1|\2/p' "$list" >"$work/names"
# the sparse rows (MCF_SMFMAC_LIST) name CDNA3's mnemonic only
sed -n 's/^ *"\(v_smfmac_[^"]*\)", MCF_.*/|\1/p' "$list" >>"$work/names"
n_rows=$(grep -c '^ *X(' "$list")
[ "$(wc -l <"$work/names")" = "$n_rows" ] || fail "cannot read the mnemonics of $list ($n_rows rows)"
cut -d'|' -f1 "$work/names" | grep . >"$work/cdna2"
cut -d'|' -f2 "$work/names" | grep . >"$work/cdna3"

# 1. every instruction ok, on both generations
rc=0
"$MCFLEET" selftest --backend host >"$work/out" 2>"$work/err" || rc=$?
expect_rc 0
expect_in "$work/out" "backend: host"
expect_in "$work/out" "gfx90a (CDNA2), emulated by the host backend:"
expect_in "$work/out" "gfx942 (CDNA3), emulated by the host backend:"
for gen in cdna2 cdna3; do
    case $gen in cdna2) from="gfx90a"; to="gfx942" ;; cdna3) from="gfx942"; to="" ;; esac
    sed -n "/^$from /,/absent on this generation/p" "$work/out" >"$work/$gen.out"
    while read -r m; do
        grep -qE "^$m +ok\$" "$work/$gen.out" || { cat "$work/$gen.out"; fail "$gen: no ok line for $m"; }
    done <"$work/$gen"
    want=$(wc -l <"$work/$gen")
    got=$(grep -cE '^v_(mfma|smfmac)_\S+ +ok$' "$work/$gen.out")
    [ "$got" = "$want" ] || { cat "$work/$gen.out"; fail "$gen: $got ok lines, the list has $want instructions"; }
    expect_in "$work/$gen.out" "$want ok, 0 mismatched, $((n_rows - want)) absent on this generation"
done
echo "ok: $(wc -l <"$work/cdna2") CDNA2 and $(wc -l <"$work/cdna3") CDNA3 instructions"

# --arch: one generation
rc=0
"$MCFLEET" selftest --backend host --arch gfx90a >"$work/out" 2>"$work/err" || rc=$?
expect_rc 0
grep -q "gfx942 (CDNA3)" "$work/out" && fail "--arch gfx90a ran CDNA3 too"
[ "$(grep -cE '^v_(mfma|smfmac)_\S+ +ok$' "$work/out")" = "$(wc -l <"$work/cdna2")" ] || fail "--arch gfx90a: wrong ok count"
[ "$(wc -l <"$work/cdna3")" -gt 30 ] && grep -q '^v_smfmac_f32_16x16x32_f16$' "$work/cdna3" || fail "the sparse rows were not read"

# 2. an injected fault: that instruction, lane and register, exit 1
rc=0
MCFLEET_INJECT_LAYOUT='v_mfma_f32_32x32x2f32:5:3' "$MCFLEET" selftest --backend host >"$work/out" 2>"$work/err" || rc=$?
expect_rc 1
expect_in "$work/out" "injected: MCFLEET_INJECT_LAYOUT=v_mfma_f32_32x32x2f32:5:3"
# the pattern names the instruction (under either generation's mnemonic), so
# CDNA3's v_mfma_f32_32x32x2_f32 is corrupted too
[ "$(grep -c MISMATCH "$work/out")" = 2 ] || { cat "$work/out"; fail "two mismatches expected"; }
grep -qE '^v_mfma_f32_32x32x2_f32 +MISMATCH .*: lane 5, register a\[3\] holds ' "$work/out" ||
    { cat "$work/out"; fail "CDNA3's mismatch line does not name lane 5, register a[3]"; }
grep -qE '^v_mfma_f32_32x32x2f32 +MISMATCH D\[[0-9]+\]\[[0-9]+\] \(block 0\): lane 5, register a\[3\] holds -?[0-9]+, expected -?[0-9]+; ' "$work/out" ||
    { cat "$work/out"; fail "the mismatch line does not name lane 5, register a[3]"; }
expect_in "$work/out" "$(($(wc -l <"$work/cdna2") - 1)) ok, 1 mismatched"
# fp64: a register pair
rc=0
MCFLEET_INJECT_LAYOUT='v_mfma_f64_16x16x4_f64:63:2' "$MCFLEET" selftest --backend host --arch gfx942 >"$work/out" 2>&1 || rc=$?
expect_rc 1
grep -qE '^v_mfma_f64_16x16x4_f64 +MISMATCH .*: lane 63, register a\[4:5\] holds ' "$work/out" ||
    { cat "$work/out"; fail "the fp64 mismatch line does not name lane 63, register a[4:5]"; }

# 3. usage errors: exit 2, naming what was wrong
bad() {   # bad TEXT ARGS...: exit 2 with TEXT on stderr
    local text=$1; shift
    rc=0
    "$MCFLEET" selftest "$@" >"$work/out" 2>"$work/err" || rc=$?
    expect_rc 2
    expect_in "$work/err" "$text"
}
bad "unknown option '--bogus'" --backend host --bogus
expect_in "$work/err" "Try 'mcfleet selftest --help'."
bad "--device: expected a device number" --backend host --device x
bad "--device 7: the host backend sees 1 device" --backend host --device 7
bad "--arch: 'gfx1100' is not a CDNA target" --backend host --arch gfx1100
bad "--backend needs a value" --backend
bad "unknown backend 'nosuch'" --backend nosuch
rc=0
MCFLEET_INJECT_LAYOUT='x:64:0' "$MCFLEET" selftest --backend host >"$work/out" 2>"$work/err" || rc=$?
expect_rc 2
expect_in "$work/err" "MCFLEET_INJECT_LAYOUT='x:64:0': LANE must be a whole number from 0 to 63"
# an injection that changes nothing (no such instruction; a register past the
# matched one's) is an error, not a pass
for spec in 'nomatch*:5:3' 'v_mfma_f32_32x32x2*:63:31'; do
    rc=0
    MCFLEET_INJECT_LAYOUT="$spec" "$MCFLEET" selftest --backend host >"$work/out" 2>"$work/err" || rc=$?
    expect_rc 2
    expect_in "$work/err" "MCFLEET_INJECT_LAYOUT=$spec injected nothing"
done

# help: the subcommand's, and mcfleet --help lists it
rc=0
"$MCFLEET" selftest --help >"$work/out" 2>&1 || rc=$?
expect_rc 0
expect_in "$work/out" "Exit status: 0 every instruction the device has is ok; 1 a mismatch"
rc=0
"$MCFLEET" --help >"$work/out" 2>&1 || rc=$?
expect_rc 0
expect_in "$work/out" "mcfleet selftest [OPTIONS]"
echo "selftest ok"
