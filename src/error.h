/* Error reporting: every failure carries the call that failed, file:line and
 * the library's own error string. Library code has one exit path (goto fail). */
#ifndef MCF_ERROR_H
#define MCF_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes of library functions; map onto exit codes in mcf_exit_code(). */
enum mcf_rc {
    MCF_OK = 0,
    MCF_EUNSUPPORTED = 1, /* the backend cannot run this kernel (recorded, not fatal) */
    MCF_EVERIFY = 2, /* a kernel produced a wrong result */
    MCF_EINPUT = 3, /* bad option / deck / file */
    MCF_ERUNTIME = 4, /* device, MPI, I/O, memory */
    MCF_ECUT = 5 /* a repetition was cut short: a stop signal or the time limit */
};

#define MCF_ERRMSG_LEN 1024

struct mcf_err {
    enum mcf_rc rc;
    int agreed; /* every rank holds this error (set by mcf_agree) */
    char msg[MCF_ERRMSG_LEN];
};

/* Records the first error only: the root cause is kept, callers above add nothing. */
int mcf_err_set(struct mcf_err *e, enum mcf_rc rc, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void mcf_err_clear(struct mcf_err *e);
/* Puts "context: " before the recorded message (e.g. which file or dataset). */
void mcf_err_context(struct mcf_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int mcf_exit_code(enum mcf_rc rc);
/* The exit code where two apply: 2 (input), then 3 (runtime, incomplete),
 * then 1 (a wrong result, a FAIL), then 0 (docs/exit-codes.md). */
int mcf_exit_worse(int a, int b);

#define MCF_FAIL(e, rc, ...)                                                                       \
    do {                                                                                           \
        mcf_err_set((e), (rc), __FILE__, __LINE__, __VA_ARGS__);                                   \
        goto fail;                                                                                 \
    } while (0)

/* Propagate an enum mcf_rc from a callee that already filled *e. */
#define MCF_TRY(call)                                                                              \
    do {                                                                                           \
        if ((call) != MCF_OK) goto fail;                                                           \
    } while (0)

/* Allocation that fails into the error path. */
#define MCF_ALLOC(e, ptr, count)                                                                   \
    do {                                                                                           \
        (ptr) =                                                                                    \
            (__typeof__(ptr))calloc((size_t)(count) > 0 ? (size_t)(count) : 1, sizeof(*(ptr)));    \
        if (!(ptr))                                                                                \
            MCF_FAIL((e), MCF_ERUNTIME, "calloc(%zu x %zu) failed: out of memory",                 \
                     (size_t)(count), sizeof(*(ptr)));                                             \
    } while (0)

/* MPI: the call text and MPI_Error_string. */
#define MCF_MPI(e, call)                                                                           \
    do {                                                                                           \
        int mcf_mpi_rc_ = (call);                                                                  \
        if (mcf_mpi_rc_ != MPI_SUCCESS) {                                                          \
            mcf_err_mpi((e), mcf_mpi_rc_, #call, __FILE__, __LINE__);                              \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)
int mcf_err_mpi(struct mcf_err *e, int mpi_rc, const char *call, const char *file, int line);

/* HDF5: a negative return is an error; the message is the innermost HDF5 error. */
#define MCF_H5(e, call)                                                                            \
    do {                                                                                           \
        if ((long long)(call) < 0) {                                                               \
            mcf_err_h5((e), #call, __FILE__, __LINE__);                                            \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)
/* Same, keeping the returned id. */
#define MCF_H5ID(e, var, call)                                                                     \
    do {                                                                                           \
        (var) = (call);                                                                            \
        if ((var) < 0) {                                                                           \
            mcf_err_h5((e), #call, __FILE__, __LINE__);                                            \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)
int mcf_err_h5(struct mcf_err *e, const char *call, const char *file, int line);

/* pthreads and other errno-style calls returning an error number. */
#define MCF_ERRNO(e, call)                                                                         \
    do {                                                                                           \
        int mcf_en_ = (call);                                                                      \
        if (mcf_en_ != 0) {                                                                        \
            mcf_err_errno((e), mcf_en_, #call, __FILE__, __LINE__);                                \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)
int mcf_err_errno(struct mcf_err *e, int errnum, const char *call, const char *file, int line);

#ifdef __cplusplus
}
#endif

#endif
