#!/bin/bash
# The HIP backend without an AMD GPU (CI has none):
# 1. ISA: the MFMA and shared kernels compiled to assembly for gfx90a and
#    gfx940 (and gfx942 where hipcc knows it) by `make hip-asm`; every matrix
#    kernel issues the v_mfma_* (2:4 sparse: v_smfmac_*, gfx94x only) it
#    claims, 2 x accumulators per loop iteration, and no kernel uses scratch
#    (tests/hip_isa.py).
# 2. A HIP-built mcfleet (configure --without-cuda --with-hip, in a scratch
#    build directory) links, and `--backend hip` on a machine without an AMD GPU
#    exits 3 with a message naming the runtime's answer, leaving no file.
# Skips (77) where hipcc is not installed.
[ -z "${MCFLEET_SANITIZER_BUILD:-}" ] || { echo "SKIP: sanitizer build: the ISA checks read hipcc output, which the sanitizers do not change, and hipcc objects are not instrumented"; exit 77; }
. "$srcdir/tests/lib.sh"
hipcc=$(sed -n 's/^HIPCC = //p' "$builddir/Makefile")
[ -n "$hipcc" ] || { echo "SKIP: no hipcc (quickstart.sh installs Debian's hipcc)"; exit 77; }
need_h5py

make -s -C "$builddir" hip-asm >"$work/asm.log" 2>&1 || { cat "$work/asm.log"; fail "make hip-asm"; }
archs=$(sed -n 's/^HIP_ISA_ARCHS = //p' "$builddir/Makefile")
dirs=""
for a in $archs; do dirs="$dirs $builddir/hip-asm/$a"; done
for need in gfx90a gfx940; do
    case " $archs " in *" $need "*) ;; *) fail "ISA targets '$archs' lack $need" ;; esac
done
"$PYTHON_H5" "$srcdir/tests/hip_isa.py" $dirs >"$work/isa.log" || { cat "$work/isa.log"; fail "ISA checks"; }
grep -v "per iteration" "$work/isa.log"
# CDNA3's 2:4 sparse instructions: all 14 issued on each gfx94x target, none on gfx90a
n_sparse=$(grep -c '^ *X(smfmac_' "$srcdir/kernels/hip/mfma_list.h")
[ "$n_sparse" = 14 ] || fail "mfma_list.h lists $n_sparse smfmac instructions, expected 14"
for a in $archs; do
    case $a in gfx90a) want=0 ;; *) want=$n_sparse ;; esac
    grep -q "^$a: .*($want 2:4 sparse v_smfmac issued)" "$work/isa.log" || { cat "$work/isa.log"; fail "$a: not $want v_smfmac"; }
done
grep -q "^gfx940 k_mfma<smfmac_f16_16x16x32, 4>: 8 x v_smfmac_f32_16x16x32_f16 per iteration" "$work/isa.log" ||
    fail "gfx940: the fp16 2:4 sparse kernel does not issue 8 x v_smfmac_f32_16x16x32_f16 per iteration"

# the HIP binary (the host backend's sources are shared; GPU sources by hipcc)
mkdir -p "$work/b" && cd "$work/b"
"$srcdir/configure" --without-cuda --with-hip --without-cmocka >conf.log 2>&1 || { tail -30 conf.log; fail "configure --with-hip"; }
grep -q "hip: *yes" conf.log || { grep -A12 configuration conf.log; fail "the HIP backend was not configured"; }
make -s -j2 mcfleet >make.log 2>&1 || { tail -30 make.log; fail "building the HIP mcfleet"; }
rc=0
./mcfleet --backend hip --quick -o hip.h5 >out 2>&1 || rc=$?
[ $rc = 3 ] || { cat out; fail "--backend hip without an AMD GPU: exit $rc, expected 3"; }
expect_in out "no AMD GPU is usable here: hipGetDeviceCount"
[ ! -e hip.h5 ] && [ ! -e hip.h5.partial ] || fail "a results file was left behind"
# the same binary still runs the host backend
./mcfleet --backend host --quick -o host.h5 >out 2>&1 || { cat out; fail "the HIP build's host backend"; }
schema host.h5 1
echo "hip ok: ISA ($archs) and the HIP build"
