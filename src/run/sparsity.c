#include "sparsity.h"

#include "reference.h" /* mcf_rng */

void mcf_prune_24(double *a, int m, int k, uint64_t *rng, double *ac, uint8_t *idx)
{
    static const uint8_t pairs[6] = { 0 | 1 << 2, 0 | 2 << 2, 0 | 3 << 2,
                                      1 | 2 << 2, 1 | 3 << 2, 2 | 3 << 2 };
    for (int i = 0; i < m; i++)
        for (int c = 0; c < k / 4; c++) {
            uint8_t p = pairs[mcf_rng(rng) % 6];
            double *chunk = a + (size_t)i * k + 4 * c;
            idx[i * (k / 4) + c] = p;
            ac[(size_t)i * (k / 2) + 2 * c] = chunk[mcf_sparse_i0(p)];
            ac[(size_t)i * (k / 2) + 2 * c + 1] = chunk[mcf_sparse_i1(p)];
            for (int q = 0; q < 4; q++)
                if (q != mcf_sparse_i0(p) && q != mcf_sparse_i1(p)) chunk[q] = 0.0;
        }
}
