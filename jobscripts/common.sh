# Sourced by the job scripts: runs mcfleet under srun so that a job reaching
# its time limit still leaves its results. With `#SBATCH --signal=B:USR1@120`
# Slurm sends SIGUSR1 to this batch shell 120 s before the limit; the trap
# passes it to srun, which forwards it to every task; each mcfleet rank
# finishes its repetition, all stop at the next test boundary, and what was
# measured is written with /meta/complete = 0 (exit 3). Without the trap, the
# limit's SIGTERM does the same, with Slurm's KillWait (often 30 s) to do it in.
#   mcfleet_srun SRUN_OPTIONS... -- MCFLEET_OPTIONS...
#
# The binary: $MCFLEET, else ./mcfleet in the job's working directory (a
# build directory: `cd build && sbatch ../jobscripts/X.sbatch`), else mcfleet
# on PATH. Decks: `mcfleet_deck NAME` is $DECK, else input/NAME under the
# working directory, else input/NAME beside this directory (the source tree).
# mcf_deck_args (an array, for scripts whose GPUs may be of several kinds):
# --deck $DECK, else --acceptance (mcfleet picks input/acceptance/<arch>.yaml
# by rank 0's GPU, and refuses to measure CPUs where GPUs are allocated).
#
# srun's --mpi type follows the MPI the binary was linked with (mcfleet_mpi_type):
# Open MPI finds its peers through PMIx (pmix), HPE Cray MPICH through
# cray_shasta; for any other MPI Slurm's MpiDefault stays. SLURM_MPI_TYPE, when
# set, wins. A wrong type starts each task as an MPI job of its own: mcfleet
# then stops with exit 2, naming the counts.
mcf_jobscripts_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

mcfleet_binary() {
    if [ -n "${MCFLEET:-}" ]; then echo "$MCFLEET"
    elif [ -x ./mcfleet ] && [ ! -d ./mcfleet ]; then echo "$PWD/mcfleet"
    else echo mcfleet
    fi
}

if [ -n "${DECK:-}" ]; then mcf_deck_args=(--deck "$DECK"); else mcf_deck_args=(--acceptance); fi

mcfleet_deck() {
    if [ -n "${DECK:-}" ]; then echo "$DECK"
    elif [ -f "input/$1" ]; then echo "input/$1"
    elif [ -f "$mcf_jobscripts_dir/../input/$1" ]; then echo "$mcf_jobscripts_dir/../input/$1"
    else echo "input/$1"     # mcfleet says it is missing (exit 2)
    fi
}

# mcfleet_mpi_type BINARY: prints pmix, cray_shasta, or nothing, from the
# MPI library that ldd resolves for BINARY (its name, and the version string
# the library carries for MPI_Get_library_version).
mcfleet_mpi_type() {
    local bin lib
    bin=$(command -v "$1" 2>/dev/null) || return 0
    lib=$(ldd "$bin" 2>/dev/null | awk '$1 ~ /^libmpi(\.so|_(cray|gnu|amd|aocc|intel|nvidia))/ && $3 ~ /^\// { print $3; exit }')
    [ -n "$lib" ] || return 0            # static, not found, or not an MPI we know
    case "$lib" in
        */libmpi_cray*|*/libmpi_gnu*|*/libmpi_amd*|*/libmpi_aocc*|*/libmpi_intel*|*/libmpi_nvidia*)
            echo cray_shasta; return 0 ;;
    esac
    if grep -aq "CRAY MPICH" "$lib" 2>/dev/null; then echo cray_shasta
    elif grep -aq "Open MPI v" "$lib" 2>/dev/null; then echo pmix
    fi
}

mcfleet_srun() {
    local srun_args=() mcf_args=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do srun_args+=("$1"); shift; done
    shift
    mcf_args=("$@")
    local bin mpi_type
    bin=$(mcfleet_binary)
    if [ -z "${SLURM_MPI_TYPE:-}" ]; then
        mpi_type=$(mcfleet_mpi_type "$bin")
        [ -n "$mpi_type" ] && export SLURM_MPI_TYPE="$mpi_type"
    fi
    echo "mcfleet: $bin, srun --mpi=${SLURM_MPI_TYPE:-default}"
    local out="${MCFLEET_OUTPUT:-mcfleet-${SLURM_JOB_ID}.h5}"
    trap 'echo "mcfleet: time limit near: asking the ranks to stop"; kill -USR1 "$srun_pid" 2>/dev/null' USR1
    srun "${srun_args[@]}" "$bin" -o "$out" "${mcf_args[@]}" &
    srun_pid=$!
    # `wait` returns early when the trap fires; wait again for srun to finish
    wait "$srun_pid"; status=$?
    while kill -0 "$srun_pid" 2>/dev/null; do wait "$srun_pid"; status=$?; done
    echo "mcfleet exit $status; results: $out"
    [ -f "$out" ] && "$bin" report "$out" > "${out%.h5}.report.txt"
    return "$status"
}
