O=$OUT; mkdir -p /tmp/miss
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/ 2>/dev/null; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
M="--mca pml ob1 --mca btl self,vader --bind-to none"
cat devbin/commit.txt; nvidia-smi -L
timeout 200 mpirun -np 1 $M devbin/mcfleet --deck input/hopper.yaml --quick -o $O/hopper.h5 > $O/hopper.log 2>&1; echo "hopper exit $?"
grep -E "tests:|^verdict" $O/hopper.log
timeout 200 mpirun -np 1 $M devbin/mcfleet --deck docs/bench/2026-11-28-issue29/links.yaml --quick -o $O/links.h5 > $O/links.log 2>&1; echo "links exit $?"
grep -E "bandwidth_gbs|busbw|tests:|^verdict|unsupported on" $O/links.log | head -20
