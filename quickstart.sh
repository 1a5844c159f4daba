#!/bin/bash
# mcfleet quick start, on a fresh Debian 12 or Ubuntu 24.04 machine.
#
#   ./quickstart.sh          install what building and running needs, build,
#                            run the default deck on this machine and print
#                            the report
#   ./quickstart.sh check    the same, plus what only the tests use (Slurm,
#                            cmocka, clang, hipcc ...), then the test suite
#
# It says what it installs and skips what is present (apt-get; sudo when not
# root); where another apt or dpkg holds the package lock it waits, saying for
# whom (MCFLEET_APT_WAIT seconds, default 900). The build goes to ./build;
# results to ./build/quickstart.h5.
# Exit: 0 done; 1 a test failed (check) or a kernel gave a wrong result (run);
# 2 unknown mode, or the run's own usage error; 3 installing, building or
# running failed (docs/exit-codes.md).
set -euo pipefail
cd "$(dirname "$0")"
top=$(pwd)
mode=${1:-run}
case "$mode" in
    run|check) ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "quickstart.sh: unknown mode '$mode' (run or check)" >&2; exit 2 ;;
esac

say() { printf '\033[1m== %s\033[0m\n' "$*"; }
# any step that fails (apt-get, autogen, configure, make) ends the script with 3
step_failed() { local rc=$1; say "failed (exit $rc): $2" >&2; exit 3; }
trap 'step_failed $? "$BASH_COMMAND"' ERR

# ---------------------------------------------------------------- packages
# What a minimal Debian 12 (debootstrap --variant=minbase: the required
# packages, which give bash, coreutils' timeout/nproc/mktemp/head/sort, sed,
# grep, mawk's awk, util-linux's setpriv, libc-bin's getconf/ldd, tar, dpkg)
# lacks. Run mode installs what building and running mcfleet needs; check
# mode adds what only the tests call (tests whose tools are still missing
# skip, 77, and say which). tests/fresh_debian.sh checks both lists.
packages=(build-essential                     # gcc, make
          autoconf automake libtool pkg-config  # autogen.sh, configure
          libopenmpi-dev openmpi-bin          # mpicc, mpirun
          libhdf5-openmpi-dev                 # parallel HDF5
          libyaml-dev libhwloc-dev            # decks; the cores nearest each GPU
          libopenblas0-pthread                # CBLAS for the gemm family on the host (dlopen)
          python3-h5py python3-matplotlib     # mcfleet compare, baseline, report --html
          python3-prometheus-client)          # Prometheus' parser: mcfleet export --prom checked against it
if [ "$mode" = check ]; then
    packages+=(libcmocka-dev                  # the C unit tests
               hdf5-tools                     # h5dump
               procps                         # pkill: tests/killed_run.sh
               slurm-wlm munge                # srun, sbatch, slurmd, munged: tests/slurm_launch.sh
               debootstrap                    # tests/fresh_debian.sh, the CI step after the suite (.ci/run)
               clang libclang-rt-dev          # the deck fuzzer (libFuzzer, ASan, UBSan): make fuzz, .ci/run
               clang-format)                  # tests/format.sh: src/ and kernels/ as .clang-format lays them out
fi

sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
# Another apt or dpkg (unattended-upgrades, a second install) holds apt's
# locks: wait for it, saying for whom and how long, rather than fail with
# "Could not get lock". apt-get install waits by itself (DPkg::Lock::Timeout);
# apt-get update does not, hence the wait here before each call and a retry
# when the lock was taken in between. MCFLEET_APT_WAIT: seconds (default 900).
apt_wait_s=${MCFLEET_APT_WAIT:-900}
case "$apt_wait_s" in ''|*[!0-9]*) echo "quickstart.sh: MCFLEET_APT_WAIT='$apt_wait_s' is not a number of seconds" >&2; exit 2 ;; esac
apt_wait() { bash tools/apt-wait.sh "$apt_wait_s" || { say "MCFLEET_APT_WAIT sets the wait" >&2; return 1; }; }
apt_get() {   # apt_get ARGS: apt-get as root, once apt's locks are free
    local try rc
    for try in 1 2 3; do
        apt_wait || return 1
        rc=0
        DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout="$apt_wait_s" "$@" || rc=$?
        [ $rc = 0 ] && return 0
        [ -n "$(bash tools/apt-wait.sh --holder)" ] || return $rc   # failed, and not for a lock taken meanwhile
    done
    return $rc
}

if command -v dpkg-query >/dev/null 2>&1; then
    missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing: ${missing[*]}"
        if [ -n "$sudo" ] && ! command -v sudo >/dev/null 2>&1; then
            say "not root and no sudo: run quickstart.sh as root, or install these packages first" >&2
            exit 3
        fi
        apt_get update -q
        apt_get install -y -q --no-install-recommends "${missing[@]}"
    else
        say "all packages present: ${packages[*]}"
    fi
else
    say "not a Debian/Ubuntu system: install MPI, parallel HDF5 and libyaml yourself (see README.md)"
fi

# ---- check mode only: optional tools of single tests, each skipped where missing
if [ "$mode" = check ] && command -v dpkg-query >/dev/null 2>&1; then
    [ -z "$sudo" ] || command -v sudo >/dev/null 2>&1 || sudo=false   # fails below, and says so
    # The HIP compiler (Debian 12's hipcc 5.2 compiles gfx90a and gfx940 MFMA
    # code without an AMD GPU): the MFMA ISA checks and the HIP build's test.
    if ! command -v hipcc >/dev/null 2>&1; then
        hip_packages=(hipcc libamdhip64-dev)
        say "installing (optional, for the HIP checks): ${hip_packages[*]}"
        # (package lists may be stale where everything else was already present)
        apt_get install -y -q --no-install-recommends "${hip_packages[@]}" \
            || { apt_get update -q && apt_get install -y -q --no-install-recommends "${hip_packages[@]}"; } \
            || say "hipcc could not be installed: the HIP checks will be skipped"
    fi
    # A browser for the HTML report's check in a real browser
    # (tests/html_browser.sh): Debian's chromium (on Ubuntu a snap: that test skips).
    if ! command -v chromium >/dev/null 2>&1; then
        say "installing (optional, for the HTML report's browser check): chromium"
        apt_get install -y -q --no-install-recommends chromium \
            || say "chromium could not be installed: tests/html_browser.sh will be skipped"
    fi
fi
# The SASS checks (check mode) need a disassembler; CUDA toolkits without one
# get Debian's (an 84 MB download, tools/fetch-nvdisasm.sh).
if [ "$mode" = check ] && { command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; }; then
    command -v cuobjdump >/dev/null 2>&1 || bash tools/fetch-nvdisasm.sh build/tools || true
fi

# ---------------------------------------------------------------- build
jobs=$(nproc 2>/dev/null || echo 2)
say "autogen.sh"
./autogen.sh >/dev/null
mkdir -p build
cd build
if [ ! -f Makefile ] || [ ../configure -nt Makefile ]; then
    say "configure"
    ../configure
fi
say "make -j$jobs"
make -j"$jobs"

# Open MPI refuses root unless told; a small machine needs oversubscription.
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1

if [ "$mode" = check ]; then
    say "make check"
    status=0
    log=test-suite.log
    rm -f "$log"
    rm -f tests/*.time tests/*/*.time
    start=$(date +%s)
    make -j"$jobs" check || status=$?
    if [ -f "$log" ]; then
        say "test durations (slowest first; make check took $(( $(date +%s) - start )) s)"
        bash ../tests/durations.sh . || true
        # the failing tests' logs, so CI output says why
        for f in $(grep -l -E '^(FAIL|ERROR)' tests/*.log 2>/dev/null); do
            echo "---- $f"; tail -n 40 "$f"
        done
        pass=$(sed -n 's/^# PASS: *//p' "$log"); fail=$(sed -n 's/^# FAIL: *//p' "$log")
        skip=$(sed -n 's/^# SKIP: *//p' "$log"); err=$(sed -n 's/^# ERROR: *//p' "$log")
        echo "${pass:-0} passed, $(( ${fail:-0} + ${err:-0} )) failed, ${skip:-0} skipped"
    fi
    [ "$status" = 0 ] && exit 0
    # tests that ran and failed: 1; make check failing before any test ran: 3
    [ -f "$log" ] && [ $(( ${fail:-0} + ${err:-0} )) -gt 0 ] && exit 1
    say "make check failed (exit $status) before reporting a failed test" >&2
    exit 3
fi

# ---------------------------------------------------------------- run
# One rank per GPU where a GPU backend is built and a GPU is seen, else 2 host ranks.
np=2
backends=$(./mcfleet --version | sed -n 's/^backends: //p')
if [[ " $backends " == *" cuda "* ]] && command -v nvidia-smi >/dev/null 2>&1; then
    n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true); [ "$n" -gt 0 ] && np=$n
elif [[ " $backends " == *" hip "* ]] && command -v rocm-smi >/dev/null 2>&1; then
    n=$(rocm-smi --showid 2>/dev/null | grep -c 'GPU\[' || true); [ "$n" -gt 0 ] && np=$n
fi
# --force: each quick start replaces the previous one's file (mcfleet never overwrites unasked)
say "mpirun -np $np ./mcfleet -o quickstart.h5 --force   (backends built: $backends)"
rc=0
mpirun -np "$np" --bind-to none ./mcfleet -o quickstart.h5 --force || rc=$?
case $rc in
    0) ;;
    1|2|3) say "mcfleet exit $rc (docs/exit-codes.md)" >&2; exit $rc ;;
    *) say "mpirun failed (exit $rc)" >&2; exit 3 ;;
esac
say "results: $top/build/quickstart.h5  (print again with: build/mcfleet report build/quickstart.h5)"
