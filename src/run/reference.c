#include "reference.h"

uint64_t mcf_rng(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double mcf_rng_unit(uint64_t *state)
{
    return (double)(mcf_rng(state) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

int mcf_rng_eighths(uint64_t *state)
{
    return (int)(mcf_rng(state) % 17) - 8;
}

void mcf_chase_order(uint64_t *order, uint64_t n, uint64_t seed)
{
    uint64_t rng = seed;
    for (uint64_t i = 0; i < n; i++)
        order[i] = i;
    for (uint64_t i = n - 1; i > 0; i--) {
        uint64_t j = mcf_rng(&rng) % i;     /* j < i: Sattolo, not Fisher-Yates */
        uint64_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}
