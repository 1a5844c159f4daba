/* Subcommands written in Python, run by exec (pytool.c). */
#ifndef MCF_PYTOOL_H
#define MCF_PYTOOL_H

/* Replaces the process with python SCRIPT ARGV[0..ARGC-1]; returns an exit
 * code (MCF_EXIT_RUNTIME) only where the script or the interpreter cannot be
 * run, with a message on stderr naming them. */
int mcf_pytool(const char *script, int argc, char **argv);

#endif
