/*
 * IEEE binary16 on the host, for the operator tests' and vkdml-bench's CPU references
 * (test/reference/meson.build).
 */
#ifndef VKDML_REFERENCE_FP16_H
#define VKDML_REFERENCE_FP16_H

#include <stdint.h>

/* Round to nearest even; overflow gives infinity, NaN stays a (quiet) NaN. */
uint16_t ref_float_to_half(float value);
float ref_half_to_float(uint16_t half);
/* `value` as a FLOAT16 tensor holds it. */
float ref_round_to_half(float value);

#endif /* VKDML_REFERENCE_FP16_H */
