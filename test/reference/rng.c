/* The tests' and the bench's random generator (rng.h). */

#include "rng.h"

uint32_t ref_random(uint32_t *state)
{
    uint32_t x = *state;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

float ref_random_float(uint32_t *state, float lo, float hi)
{
    return lo + (hi - lo) * (float)(ref_random(state) >> 8) * (1.0f / 16777216.0f);
}
