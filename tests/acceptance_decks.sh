#!/bin/sh
# The acceptance decks (input/acceptance/): each parses and names only the
# tests of the contract with the SKU profiles; the keys they use (sweeps,
# acceptance, arch) are validated with file:line:col; a host acceptance run
# records /meta/acceptance and /meta/deck_arch and verifies every sweep; a
# deck run on a device it does not target warns, and still runs.
. "$srcdir/tests/lib.sh"
need_mpirun
# no GPU seen here, whatever the machine: acceptance_backend.sh tests that part
for v in CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES SLURM_JOB_GPUS SLURM_STEP_GPUS \
         $(env | sed -n 's/^\(SLURM_GPUS[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
mkdir "$work/dev"
export MCFLEET_DEV_ROOT="$work/dev"

contract="matrix-fp64 matrix-fp32 matrix-tf32 matrix-fp16 matrix-bf16 matrix-fp8 matrix-int8 valu-fp64 valu-fp32 hbm-triad hbm-read chase-hbm sustained-gemm-fp16"
# 2:4 sparse A, dense-equivalent figures (one test per type)
contract="$contract matrix-fp16-sparse matrix-bf16-sparse matrix-fp8-sparse matrix-int8-sparse"
# the links (issue 29)
contract="$contract link-host-in link-host-out link-host-both link-peer-out link-peer-in link-peer-both link-peer-latency"
contract="$contract link-allreduce-node link-allreduce-job link-network"
n=0
for d in "$srcdir"/input/acceptance/*.yaml; do
    n=$((n + 1))
    mpi 1 --list --deck "$d"
    expect_rc 0
    expect_in "$work/out" "deck $d:"
    grep -q "^acceptance: true$" "$d" || fail "$d is not marked 'acceptance: true'"
    for t in $(sed -n 's/^  - {name: \([^,]*\),.*/\1/p' "$d"); do
        echo " $contract " | grep -qF " $t " || fail "$d: test '$t' is not one of the contract's names"
    done
done
[ "$n" -ge 5 ] || fail "only $n acceptance decks"
# each architecture's fastest path, as the decks promise
grep -q "name: matrix-bf16, kernel: matrix, dtype: bf16, shape: \[64, 256, 16\], path: wgmma-ss" \
    "$srcdir/input/acceptance/sm_90.yaml" || fail "sm_90: bf16 is not on wgmma"
! grep -q "dtype: fp8\|dtype: tf32" "$srcdir/input/acceptance/gfx90a.yaml" || fail "gfx90a has no fp8 or tf32 MFMA"
! grep -q "dtype: tf32" "$srcdir/input/acceptance/gfx942.yaml" || fail "the HIP backend has no xf32 MFMA"
for t in fp16 bf16 fp8 int8; do   # CDNA3's smfmac, one per type; CDNA2 has none
    grep -q "name: matrix-$t-sparse, kernel: matrix, .*sparsity: \"2:4\", path: mfma" "$srcdir/input/acceptance/gfx942.yaml" ||
        fail "gfx942: no 2:4 sparse $t test"
done
! grep -q "sparsity" "$srcdir/input/acceptance/gfx90a.yaml" || fail "gfx90a has no sparse MFMA"
! grep -q "dtype: fp8" "$srcdir/input/acceptance/sm_80.yaml" || fail "sm_80 has no fp8"

# ---- validation of the new keys: file:line:col, exit 2
bad() {   # bad LINE:COL MESSAGE: the deck in $work/bad.yaml is refused with it
    mpi 1 --list --deck "$work/bad.yaml"
    expect_rc 2
    expect_in "$work/err" "$work/bad.yaml:$1: $2"
}
head='name: t
tests:'
printf '%s\n  - {name: m, kernel: memory, sweeps: 0}\n' "$head" >"$work/bad.yaml"
bad 3:39 "'sweeps' in test 'm' must be between 1 and 1000000, got 0"
printf '%s\n  - {name: m, kernel: memory, sweeps: 1000001}\n' "$head" >"$work/bad.yaml"
bad 3:39 "'sweeps' in test 'm' must be between 1 and 1000000, got 1000001"
printf '%s\n  - {name: m, kernel: memory, sweeps: -3}\n' "$head" >"$work/bad.yaml"
bad 3:39 "'sweeps' in test 'm' must be an integer, got '-3'"
printf '%s\n  - {name: m, kernel: memory, sweeps: 1e3}\n' "$head" >"$work/bad.yaml"
bad 3:39 "'sweeps' in test 'm' must be an integer, got '1e3'"
printf '%s\n  - {name: v, kernel: valu, dtype: fp64, sweeps: 2}\n' "$head" >"$work/bad.yaml"
bad 3:42 "key 'sweeps' does not apply to kernel 'valu' in test 'v'"
printf '%s\n  - {name: m, kernel: memory, sweeps: [2, 2]}\n' "$head" >"$work/bad.yaml"
bad 3:43 "'sweeps' in test 'm' lists 2 twice"
printf 'name: t\nacceptance: true\ntests:\n  - {name: v, kernel: valu, dtype: fp64}\n' >"$work/bad.yaml"
bad 2:13 "an acceptance deck names the architectures it is made for: add 'arch: [...]'"
printf 'name: t\nacceptance: yes\narch: sm_90\ntests:\n  - {name: v, kernel: valu, dtype: fp64}\n' >"$work/bad.yaml"
bad 2:13 "'acceptance' must be true or false"
printf 'name: t\nacceptance: true\narch: [sm_90, sm90]\ntests:\n  - {name: v, kernel: valu, dtype: fp64}\n' >"$work/bad.yaml"
bad 3:15 "'arch': 'sm90' is not an architecture: sm_NN (NVIDIA, e.g. sm_90), gfxNNN (AMD"
printf 'name: t\narch: [gfx90a, gfx90a]\ntests:\n  - {name: v, kernel: valu, dtype: fp64}\n' >"$work/bad.yaml"
bad 2:16 "'arch' lists 'gfx90a' twice"
printf 'name: t\narch: {sm_90: 1}\ntests:\n  - {name: v, kernel: valu, dtype: fp64}\n' >"$work/bad.yaml"
bad 2:7 "'arch' must be an architecture or a list of them"
printf 'name: t\narch: [sm_90a, sm_100, gfx942, x86_64]\ntests:\n  - {name: m, kernel: memory, sweeps: [1, 8]}\n' >"$work/ok.yaml"
mpi 1 --list --deck "$work/ok.yaml"
expect_rc 0
expect_in "$work/out" "m:sweeps=8"
# --acceptance picks the deck: not with --deck as well
mpi 1 --acceptance --deck "$work/ok.yaml"
expect_rc 2
expect_in "$work/err" "--acceptance chooses the deck by the GPU's architecture: give it or --deck, not both"
# the old single deck says where the acceptance decks went
mpi 1 --list --deck "$work/acceptance.yaml"
expect_rc 2
expect_in "$work/err" "input/acceptance/<arch>.yaml, or 'mcfleet --acceptance'"

# ---- a host acceptance run: --acceptance picks host.yaml; the file says it
need_h5py
mpi 2 --acceptance --backend auto -o "$work/acc.h5"
# an acceptance run exits with its verdict (tests/acceptance_exit.sh): two
# healthy host ranks on a loaded machine may differ beyond even the host's
# prior spread, so 0 or 1, whichever the report says
acc_rc=$rc
rep_rc=0; "$MCFLEET" report "$work/acc.h5" >"$work/acc.txt" 2>&1 || rep_rc=$?
case $acc_rc in 0|1) [ "$acc_rc" = "$rep_rc" ] || fail "acceptance run exit $acc_rc, its report's $rep_rc" ;;
                *) cat "$work/out" "$work/err"; fail "acceptance run exit $acc_rc" ;; esac
expect_in "$work/out" "deck $srcdir/input/acceptance/host.yaml: 10 tests"
! grep -q "WARNING" "$work/err" || { cat "$work/err"; fail "a warning on the deck's own architecture"; }
schema "$work/acc.h5" 2
"${PYTHON_H5:-/usr/bin/python3}" - "$work/acc.h5" "$srcdir/input/acceptance/host.yaml" <<'PY' || fail "the acceptance file"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
m = f["meta"].attrs
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
assert int(m["acceptance"]) == 1, m["acceptance"]
assert s(m["deck_arch"]) == "x86_64,aarch64,ppc64le,riscv64,s390x", s(m["deck_arch"])
assert s(m["deck_path"]) == sys.argv[2], s(m["deck_path"])
assert s(m["dev_root"]).endswith("/dev"), s(m["dev_root"])
arch = s(f["ranks/device_arch"][0])
assert arch in s(m["deck_arch"]).split(","), arch
r = f["results"]
assert sorted(r) == sorted(["matrix-fp64", "matrix-fp32", "valu-fp64", "valu-fp32", "hbm-triad", "hbm-read",
                            "chase-hbm", "link-host-in", "link-peer-out", "link-network"]), sorted(r)
for t in r:
    if t == "link-network":   # one node: no network to measure, said and not judged
        assert list(r[t]["status"][:]) == [-1, -1] and "one node" in s(r[t]["message"][0]), s(r[t]["message"][0])
        continue
    assert list(r[t]["verified"][:]) == [1, 1], (t, r[t]["verified"][:])
    assert int(r[t].attrs["repetitions"]) >= 32, t
for t in ("hbm-triad", "hbm-read"):
    a = r[t].attrs
    assert int(a["sweeps"]) == 4 and s(a["label"]).endswith(" x4 sweeps"), (t, a["sweeps"], a["label"])
PY
# the same deck named with --deck; and verification still bites with sweeps
MCFLEET_INJECT_FAULT='hbm-*' mpi 2 --deck "$srcdir/input/acceptance/host.yaml" --backend host -o "$work/inj.h5"
expect_rc 1
expect_in "$work/out" "hbm-read: FAILED VERIFICATION on 2 of 2 ranks (rank 0: memory read: sum"
# a run of a deck not marked acceptance: 0 and empty
mpi 1 --quick --backend host -o "$work/plain.h5"
expect_rc 0
"${PYTHON_H5:-/usr/bin/python3}" -c '
import sys, h5py
m = h5py.File(sys.argv[1], "r")["meta"].attrs
assert int(m["acceptance"]) == 0 and len(m["deck_arch"]) == 0, (m["acceptance"], m["deck_arch"])
' "$work/plain.h5" || fail "a plain run's acceptance attributes"

# ---- an acceptance deck on a device it does not target: a loud warning, and
# it runs; its verdict is FAIL, the deck's (the deck rule), and so its exit code
mpi 2 --deck "$srcdir/input/acceptance/sm_90.yaml" --backend host --quick -o "$work/other.h5"
expect_rc 1
expect_in "$work/out" "in an acceptance deck: the deck is wrong for this device"
expect_in "$work/out" "next: run the acceptance deck of its architecture (mcfleet --acceptance)"
expect_in "$work/err" "WARNING: the deck $srcdir/input/acceptance/sm_90.yaml is made for sm_90, but 2 of 2 ranks"
[ "$(grep -c "is made for" "$work/err")" = 1 ] || fail "the warning came from more than rank 0"
[ -f "$work/other.h5" ] || fail "the mismatched run wrote no file"
echo "acceptance decks ok"
