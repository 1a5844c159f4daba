#include "agree.h"

#include <stdio.h>
#include <string.h>

int mcf_agree(MPI_Comm comm, struct mcf_err *e)
{
    int rank, size, mine = (int)e->rc, worst = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return mcf_err_set(e, MCF_ERUNTIME, __FILE__, __LINE__, "MPI_Allreduce failed");
    if (worst == MCF_OK) return MCF_OK;
    int who = mine == worst ? rank : size, first = size;
    MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, comm);
    char msg[MCF_ERRMSG_LEN];
    memcpy(msg, e->msg, sizeof msg);
    MPI_Bcast(msg, sizeof msg, MPI_CHAR, first, comm);
    e->agreed = 1;
    if (first != rank && size > 1) {
        char *at = e->msg;
        e->rc = (enum mcf_rc)worst;
        /* input errors are the same on every rank; others say where they arose */
        if (worst == MCF_EINPUT)
            memcpy(at, msg, sizeof msg);
        else
            snprintf(at, MCF_ERRMSG_LEN, "rank %d: %.*s", first, MCF_ERRMSG_LEN - 16, msg);
    } else {
        e->rc = (enum mcf_rc)worst;
    }
    return e->rc;
}
