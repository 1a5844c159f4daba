# Sourced by the job scripts: runs mcfleet under srun so that a job reaching
# its time limit still leaves its results. With `#SBATCH --signal=B:USR1@120`
# Slurm sends SIGUSR1 to this batch shell 120 s before the limit; the trap
# passes it to srun, which forwards it to every task; each mcfleet rank
# finishes its repetition, all stop at the next test boundary, and what was
# measured is written with /meta/complete = 0 (exit 3). Without the trap, the
# limit's SIGTERM does the same, with Slurm's KillWait (often 30 s) to do it in.
#   mcfleet_srun SRUN_OPTIONS... -- MCFLEET_OPTIONS...
# mcfleet is an Open MPI program: started by srun directly, it finds its peers
# through PMIx. Sites that set MpiDefault=pmix need nothing; elsewhere this
# default saves a failed MPI_Init (override with SLURM_MPI_TYPE).
export SLURM_MPI_TYPE="${SLURM_MPI_TYPE:-pmix}"
mcfleet_srun() {
    local srun_args=() mcf_args=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do srun_args+=("$1"); shift; done
    shift
    mcf_args=("$@")
    local out="${MCFLEET_OUTPUT:-mcfleet-${SLURM_JOB_ID}.h5}"
    trap 'echo "mcfleet: time limit near: asking the ranks to stop"; kill -USR1 "$srun_pid" 2>/dev/null' USR1
    srun "${srun_args[@]}" "${MCFLEET:-mcfleet}" -o "$out" "${mcf_args[@]}" &
    srun_pid=$!
    # `wait` returns early when the trap fires; wait again for srun to finish
    wait "$srun_pid"; status=$?
    while kill -0 "$srun_pid" 2>/dev/null; do wait "$srun_pid"; status=$?; done
    echo "mcfleet exit $status; results: $out"
    [ -f "$out" ] && "${MCFLEET:-mcfleet}" report "$out" > "${out%.h5}.report.txt"
    return "$status"
}
