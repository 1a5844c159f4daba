#!/bin/sh
# The serial-HDF5 strategy (rank 0 gathers and writes) gives the same schema.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
mpi 3 --backend host --hdf5-mode gather --deck "$srcdir/tests/decks/tiny.yaml" -o "$work/g.h5"
expect_rc 0
schema "$work/g.h5" 3
"$PYTHON_H5" -c "
import h5py, sys
m = h5py.File('$work/g.h5', 'r')['meta'].attrs['hdf5_write_mode']
sys.exit(0 if (m.decode() if isinstance(m, bytes) else m) == 'gather' else 1)" || fail "hdf5_write_mode not recorded as gather"
echo "gather ok"
