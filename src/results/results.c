#include "results.h"

#include <stdlib.h>

#include "sustained.h"

void mcf_results_free(struct mcf_result *r, int n)
{
    if (!r)
        return;
    for (int i = 0; i < n; i++) {
        free(r[i].values);
        free(r[i].rep_start);
        free(r[i].rep_end);
        mcf_sustained_free(r[i].sustained);
        free(r[i].sustained);
    }
    free(r);
}
