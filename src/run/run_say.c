/* What the run says on stdout: rank 0 prints (and flushes), the other ranks
 * say nothing (run_int.h). A file of its own, so that the set-up and the
 * tests print without calling back into the runner. */
#include <stdarg.h>
#include <stdio.h>

#include "run_int.h"

void say(const struct run *r, const char *fmt, ...)
{
    if (r->topo.rank != 0) return;
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}
