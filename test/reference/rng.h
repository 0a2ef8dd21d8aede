/*
 * The deterministic random generator of the operator tests' and vkdml-bench's input data: the
 * same seed gives the same values on every platform (test/reference/meson.build).
 */
#ifndef VKDML_REFERENCE_RNG_H
#define VKDML_REFERENCE_RNG_H

#include <stdint.h>

/* xorshift32; `state` must not be 0. */
uint32_t ref_random(uint32_t *state);
/* Uniform in [lo, hi), from the top 24 bits of ref_random(). */
float ref_random_float(uint32_t *state, float lo, float hi);

#endif /* VKDML_REFERENCE_RNG_H */
