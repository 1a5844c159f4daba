# MCF_GPU_BACKEND(NAME, COMPILER, WITH-VALUE, [RUNTIME-CHECK])
# Looks for COMPILER in WITH-VALUE/bin (or PATH). A found compiler is not enough:
# RUNTIME-CHECK (shell code, run with mcf_NAME_prefix set) must also find the
# runtime library the backend links against; it sets mcf_NAME_missing to a
# reason when it cannot. A missing part is an error when --with-NAME was given
# explicitly and a quiet "no" (with the reason in the summary) under 'check'.
AC_DEFUN([MCF_GPU_BACKEND], [
  mcf_$1_summary=no
  mcf_$1_build=no
  mcf_$1_missing=
  AS_CASE([$3],
    [no], [mcf_$1_summary="disabled (--without-$1)"],
    [check|yes], [AC_PATH_PROG([MCF_$2], [$2], [], [$PATH:/usr/local/cuda/bin:/opt/rocm/bin])],
    [AC_PATH_PROG([MCF_$2], [$2], [], [$3/bin])])
  AS_IF([test "x$3" != xno], [
    AS_IF([test -n "$MCF_$2"], [
      mcf_$1_bindir=`AS_DIRNAME(["$MCF_$2"])`
      mcf_$1_prefix=`AS_DIRNAME(["$mcf_$1_bindir"])`
      AS_IF([test -f "$srcdir/kernels/$1/matrix.cu" || test -f "$srcdir/kernels/$1/matrix.hip"],
        [$4],
        [mcf_$1_missing="this source tree has no kernels/$1 backend yet"])
      AS_IF([test -z "$mcf_$1_missing"],
        [mcf_$1_build=yes; mcf_$1_summary="yes ($MCF_$2)"],
        [mcf_$1_summary="not built: $2 found ($MCF_$2) but $mcf_$1_missing"
         AS_IF([test "x$3" != xcheck], [AC_MSG_ERROR([--with-$1 was given but $mcf_$1_missing])])])],
      [mcf_$1_summary="no ($2 not found)"
       AS_IF([test "x$3" != xcheck], [AC_MSG_ERROR([--with-$1 was given but $2 was not found])])])
  ])
  AS_IF([test "x$mcf_$1_build" = xyes], [AC_DEFINE([MCF_HAVE_]m4_toupper($1), [1], [Build the $1 backend])])
  AM_CONDITIONAL([MCF_BUILD_]m4_toupper($1), [test "x$mcf_$1_build" = xyes])
])

# MCF_FIND_LINKABLE(VAR, FUNCTION, LIBS, DIRS...)
# Sets VAR to "-LDIR LIBS" for the first DIR in which a C program calling
# FUNCTION links against LIBS; leaves VAR empty when none does.
AC_DEFUN([MCF_FIND_LINKABLE], [
  $1=
  mcf_save_LIBS=$LIBS
  for mcf_dir in $4; do
    test -d "$mcf_dir" || continue
    LIBS="-L$mcf_dir $3 $mcf_save_LIBS"
    AC_LINK_IFELSE([AC_LANG_CALL([], [$2])], [$1="-L$mcf_dir $3"; break])
  done
  LIBS=$mcf_save_LIBS
])
