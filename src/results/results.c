#include "results.h"

#include <stdlib.h>

#include "sustained.h"

#define CODE(c, name) #c "=" name
const char mcf_status_codes[] =
    CODE(1, "verified") "," CODE(0, "wrong") "," CODE(-1, "unsupported") "," CODE(
        -2, "error") "," CODE(-3, "not run") "," CODE(-4, "hung") "," CODE(-5, "cut");
#undef CODE
_Static_assert(MCF_STATUS_VERIFIED == 1 && MCF_STATUS_WRONG == 0 && MCF_STATUS_UNSUPPORTED == -1 &&
                   MCF_STATUS_ERROR == -2 && MCF_STATUS_NOT_RUN == -3 && MCF_STATUS_HUNG == -4 &&
                   MCF_STATUS_CUT == -5,
               "mcf_status_codes spells the enum's values");

void mcf_results_free(struct mcf_result *r, int n)
{
    if (!r) return;
    for (int i = 0; i < n; i++) {
        free(r[i].values);
        free(r[i].rep_start);
        free(r[i].rep_end);
        mcf_sustained_free(r[i].sustained);
        free(r[i].sustained);
    }
    free(r);
}
