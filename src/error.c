#include "error.h"

#include <hdf5.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mcfleet.h"

int mcf_err_set(struct mcf_err *e, enum mcf_rc rc, const char *file, int line, const char *fmt, ...)
{
    if (e->rc != MCF_OK) return e->rc;
    e->rc = rc;
    char text[MCF_ERRMSG_LEN - 64]; /* room for the " [file:line]" suffix */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* Input errors are for users (they name the file, line or option already);
     * other errors also say where in mcfleet they arose, for bug reports. */
    if (rc == MCF_EINPUT || rc == MCF_EUNSUPPORTED || rc == MCF_EVERIFY)
        snprintf(e->msg, sizeof e->msg, "%s", text);
    else
        snprintf(e->msg, sizeof e->msg, "%s [%s:%d]", text, file, line);
    return rc;
}

void mcf_err_clear(struct mcf_err *e)
{
    e->rc = MCF_OK;
    e->agreed = 0;
    e->msg[0] = '\0';
}

void mcf_err_context(struct mcf_err *e, const char *fmt, ...)
{
    char ctx[256], old[MCF_ERRMSG_LEN];
    va_list ap;
    if (e->rc == MCF_OK) return;
    va_start(ap, fmt);
    vsnprintf(ctx, sizeof ctx, fmt, ap);
    va_end(ap);
    memcpy(old, e->msg, sizeof old);
    snprintf(e->msg, sizeof e->msg, "%s: %.*s", ctx, (int)(sizeof e->msg - sizeof ctx - 4), old);
}

int mcf_exit_code(enum mcf_rc rc)
{
    switch (rc) {
    case MCF_OK: return MCF_EXIT_OK;
    case MCF_EVERIFY: return MCF_EXIT_VERIFY;
    case MCF_EINPUT: return MCF_EXIT_USAGE;
    case MCF_EUNSUPPORTED:
    case MCF_ECUT:
    case MCF_ERUNTIME: return MCF_EXIT_RUNTIME;
    }
    return MCF_EXIT_RUNTIME;
}

int mcf_exit_worse(int a, int b)
{
    static const int rank[4] = { 0, 1, 3, 2 }; /* severity of exit codes 0..3 */
    int ra = a >= 0 && a < 4 ? rank[a] : 3, rb = b >= 0 && b < 4 ? rank[b] : 3;
    return ra >= rb ? a : b;
}

int mcf_err_mpi(struct mcf_err *e, int mpi_rc, const char *call, const char *file, int line)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mpi_rc, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "MPI error %d", mpi_rc);
    return mcf_err_set(e, MCF_ERUNTIME, file, line, "%s failed: %s", call, s);
}

struct h5_walk {
    char msg[256];
};

static herr_t innermost(unsigned n, const H5E_error2_t *err, void *data)
{
    struct h5_walk *w = data;
    if (n == 0) /* the innermost frame names the real cause */
        snprintf(w->msg, sizeof w->msg, "%s (in %s)", err->desc ? err->desc : "?",
                 err->func_name ? err->func_name : "?");
    return 0;
}

int mcf_err_h5(struct mcf_err *e, const char *call, const char *file, int line)
{
    struct h5_walk w = { "unknown HDF5 error" };
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, innermost, &w);
    H5Eclear2(H5E_DEFAULT);
    return mcf_err_set(e, MCF_ERUNTIME, file, line, "%s failed: %s", call, w.msg);
}

int mcf_err_errno(struct mcf_err *e, int errnum, const char *call, const char *file, int line)
{
    return mcf_err_set(e, MCF_ERUNTIME, file, line, "%s failed: %s", call, strerror(errnum));
}
