# MCF_GPU_BACKEND(NAME, COMPILER, WITH-VALUE)
# Looks for COMPILER in WITH-VALUE/bin (or PATH). The backend's kernels arrive
# with their own issue; until then a found compiler is reported but the backend
# is not built, and an explicit --with-NAME is an error rather than a silent no.
AC_DEFUN([MCF_GPU_BACKEND], [
  mcf_$1_summary=no
  mcf_$1_build=no
  AS_CASE([$3],
    [no], [mcf_$1_summary="disabled (--without-$1)"],
    [check|yes], [AC_PATH_PROG([MCF_$2], [$2], [], [$PATH:/usr/local/cuda/bin:/opt/rocm/bin])],
    [AC_PATH_PROG([MCF_$2], [$2], [], [$3/bin])])
  AS_IF([test "x$3" != xno], [
    AS_IF([test -n "$MCF_$2"],
      [AS_IF([test -f "$srcdir/kernels/$1/matrix.cu" || test -f "$srcdir/kernels/$1/matrix.hip"],
         [mcf_$1_build=yes; mcf_$1_summary="yes ($MCF_$2)"],
         [mcf_$1_summary="not built: $2 found ($MCF_$2) but this source tree has no $1 kernels yet"
          AS_IF([test "x$3" != xcheck], [AC_MSG_ERROR([--with-$1 was given but this source tree has no kernels/$1 backend yet])])])],
      [mcf_$1_summary="no ($2 not found)"
       AS_IF([test "x$3" != xcheck], [AC_MSG_ERROR([--with-$1 was given but $2 was not found])])])
  ])
  AS_IF([test "x$mcf_$1_build" = xyes], [AC_DEFINE([MCF_HAVE_]m4_toupper($1), [1], [Build the $1 backend])
    mcf_$1_bindir=`AS_DIRNAME(["$MCF_$2"])`
    mcf_$1_prefix=`AS_DIRNAME(["$mcf_$1_bindir"])`])
  AM_CONDITIONAL([MCF_BUILD_]m4_toupper($1), [test "x$mcf_$1_build" = xyes])
])
