/* IEEE binary16 conversions (fp16.h). */

#include "fp16.h"

#include <math.h>
#include <string.h>

uint16_t ref_float_to_half(float value)
{
    uint32_t x, sign, mantissa, half, remainder, halfway, shift;
    int exponent;

    memcpy(&x, &value, sizeof(x));
    sign = (x >> 16) & 0x8000;
    exponent = (int)((x >> 23) & 0xff) - 127 + 15;
    mantissa = x & 0x7fffff;
    if (((x >> 23) & 0xff) == 0xff)
        return sign | 0x7c00 | (mantissa ? 0x200 : 0);
    if (exponent >= 31)
        return sign | 0x7c00;
    if (exponent <= 0)
    {
        /* Subnormal: the implicit bit joins the mantissa, which shifts further. */
        if (exponent < -10)
            return sign;
        mantissa |= 0x800000;
        shift = 14 - exponent;
        half = mantissa >> shift;
    }
    else
    {
        shift = 13;
        half = ((uint32_t)exponent << 10) | (mantissa >> shift);
    }
    /* Round to nearest even; a carry out of the mantissa correctly bumps the exponent. */
    remainder = mantissa & ((1u << shift) - 1);
    halfway = 1u << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (half & 1)))
        ++half;
    return sign | half;
}

float ref_half_to_float(uint16_t half)
{
    uint32_t exponent = (half >> 10) & 0x1f, mantissa = half & 0x3ff, x;
    float value;

    if (!exponent)
    {
        value = ldexpf((float)mantissa, -24);
        return (half & 0x8000) ? -value : value;
    }
    x = ((uint32_t)(half & 0x8000) << 16) | (exponent == 31 ? 0x7f800000 | (mantissa << 13)
            : ((exponent + 112) << 23) | (mantissa << 13));
    memcpy(&value, &x, sizeof(value));
    return value;
}

float ref_round_to_half(float value)
{
    return ref_half_to_float(ref_float_to_half(value));
}
