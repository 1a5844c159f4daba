#!/bin/bash
# mcfleet quick start, on a fresh Debian 12 or Ubuntu 24.04 machine.
#
#   ./quickstart.sh          install what is missing, build, run the default
#                            deck on this machine and print the report
#   ./quickstart.sh check    install what is missing, build, run the test suite
#
# It says what it installs and skips what is present (apt-get; sudo when not
# root). The build goes to ./build; results to ./build/quickstart.h5.
set -euo pipefail
cd "$(dirname "$0")"
top=$(pwd)
mode=${1:-run}
case "$mode" in
    run|check) ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "quickstart.sh: unknown mode '$mode' (run or check)" >&2; exit 2 ;;
esac

say() { printf '\033[1m== %s\033[0m\n' "$*"; }

# ---------------------------------------------------------------- packages
packages=(build-essential autoconf automake libtool pkg-config
          libopenmpi-dev openmpi-bin libhdf5-openmpi-dev hdf5-tools
          libyaml-dev libcmocka-dev libhwloc-dev python3-h5py python3-matplotlib
          slurm-wlm munge)   # slurm-wlm and munge: the test against a real, local Slurm
if command -v dpkg-query >/dev/null 2>&1; then
    missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing: ${missing[*]}"
        sudo=""
        [ "$(id -u)" = 0 ] || sudo="sudo"
        $sudo apt-get update -q
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
    else
        say "all packages present: ${packages[*]}"
    fi
else
    say "not a Debian/Ubuntu system: install MPI, parallel HDF5, libyaml and cmocka yourself (see README.md)"
fi

# The HIP compiler (Debian 12's hipcc 5.2 compiles gfx90a and gfx940 MFMA code
# without an AMD GPU): the MFMA ISA checks and the HIP build's test use it.
# Optional: where the distribution has no such package, those checks skip.
if command -v dpkg-query >/dev/null 2>&1 && ! command -v hipcc >/dev/null 2>&1; then
    hip_packages=(hipcc libamdhip64-dev)
    say "installing (optional, for the HIP checks): ${hip_packages[*]}"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    # (package lists may be stale where everything else was already present)
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${hip_packages[@]}" \
        || { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
                 --no-install-recommends "${hip_packages[@]}"; } \
        || say "hipcc could not be installed: the HIP checks will be skipped"
fi

# The SASS checks need a disassembler; CUDA toolkits without one get Debian's.
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
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
    make -j"$jobs" check || status=$?
    log=test-suite.log
    if [ -f "$log" ]; then
        # the failing tests' logs, so CI output says why
        for f in $(grep -l -E '^(FAIL|ERROR)' tests/*.log 2>/dev/null); do
            echo "---- $f"; tail -n 40 "$f"
        done
        pass=$(sed -n 's/^# PASS: *//p' "$log"); fail=$(sed -n 's/^# FAIL: *//p' "$log")
        skip=$(sed -n 's/^# SKIP: *//p' "$log"); err=$(sed -n 's/^# ERROR: *//p' "$log")
        echo "${pass:-0} passed, $(( ${fail:-0} + ${err:-0} )) failed, ${skip:-0} skipped"
    fi
    exit $status
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
say "mpirun -np $np ./mcfleet -o quickstart.h5   (backends built: $backends)"
mpirun -np "$np" --bind-to none ./mcfleet -o quickstart.h5
say "results: $top/build/quickstart.h5  (print again with: build/mcfleet report build/quickstart.h5)"
