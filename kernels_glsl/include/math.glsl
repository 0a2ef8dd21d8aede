/*
 * fp32 math functions with device-independent accuracy, for the element-wise operators.
 *
 * Vulkan's precision rules for the GLSL built-ins are loose (exp: 3 + 2|x| ulp; sin, cos: 2^-11
 * absolute; asin, acos, atan: inherited from atan2, 4096 ulp; pow: exp2(y * log2(x))), and
 * drivers differ. These functions use only +, -, *, / (2.5 ulp in Vulkan, exact on CPUs; and
 * vkdml_div() for divisors beyond 2^126), sqrt, floor and bit operations (the NaN and infinity
 * tests too: activation.glsl's vkdml_isnan), so they give the same results to within an ulp or
 * two everywhere. They are Cephes' single-precision algorithms (Stephen L. Moshier, public domain): argument
 * reduction plus a minimax polynomial. Largest errors against double libm measured through the
 * element-wise operators (test/ops/test_elementwise_unary.c, EWT_VERBOSE=1) on lavapipe and on an
 * NVIDIA H200 (driver 580): exp, log, pow, acos, atan, cosh, sinh 1 ulp; sin, cos, tan 2 ulp for
 * |x| <= 8192 (the 3-part pi/4 reduction runs out of bits beyond, where the device's built-ins
 * take over); asin, acosh, asinh, atan2 2 ulp; atanh 3 ulp; fmod exact. pow keeps log(x) in
 * two floats, so that large y * log(x) lose nothing.
 *
 * Special values follow C99 Annex F (IEEE 754): NaN in gives NaN out, infinities go to their
 * limits, signed zeros keep their sign where the function is odd. Denormal inputs and results may
 * be flushed to zero by the device (Vulkan allows it without shaderDenormPreserveFloat32).
 */
#ifndef VKDML_MATH_GLSL
#define VKDML_MATH_GLSL

#ifndef VKDML_ACTIVATION_GLSL
# error "Include activation.glsl first (vkdml_isnan, vkdml_isinf, vkdml_erf, vkdml_tanh)."
#endif

#define VKDML_PI 3.14159265358979323846
#define VKDML_PI_2 1.57079632679489661923
#define VKDML_PI_4 0.78539816339744830962

float vkdml_inf()
{
    return uintBitsToFloat(0x7f800000u);
}

float vkdml_nan()
{
    return uintBitsToFloat(0x7fc00000u);
}

/* |x| with the sign of s (copysign), bit-exact for zeros, infinities and NaN. */
float vkdml_copysign(float x, float s)
{
    return uintBitsToFloat((floatBitsToUint(x) & 0x7fffffffu) | (floatBitsToUint(s) & 0x80000000u));
}

bool vkdml_signbit(float x)
{
    return (floatBitsToUint(x) & 0x80000000u) != 0u;
}

/* 2^n for -126 <= n <= 127. */
float vkdml_exp2i(int n)
{
    return uintBitsToFloat(uint(n + 127) << 23);
}

/* x * 2^n for |n| <= 252, rounding once (GLSL's ldexp may flush or overflow early). */
float vkdml_ldexp(float x, int n)
{
    int half_n = n / 2;

    return x * vkdml_exp2i(half_n) * vkdml_exp2i(n - half_n);
}

/* a / b, also for |b| > 2^126: GPUs divide by multiplying with 1 / b, a denormal there, which
 * they flush to 0 (Vulkan's division precision holds for |b| in [2^-126, 2^126] only). */
float vkdml_div(float a, float b)
{
    if (abs(b) > 8.50705917e37)
        return (a * 0.0625) / (b * 0.0625);
    return a / b;
}

/* e^(hi + lo), |lo| tiny beside hi: hi = n ln2 + r (Cody-Waite, ln2 in two parts),
 * |r| <= ln2 / 2, then lo joins r (so that it is not rounded away) and a degree-7 polynomial.
 * The scaling by 2^n overflows to inf and underflows to 0 (or a denormal) on its own. */
float vkdml_exp_parts(float hi, float lo)
{
    precise float r;
    float n, z, p;

    if (vkdml_isnan(hi))
        return hi;
    if (hi > 89.0)
        return vkdml_inf();
    if (hi < -104.0)
        return 0.0;
    n = floor(hi * 1.44269504088896341 + 0.5);
    r = hi - n * 0.693359375;
    r = r - n * -2.12194440e-4;
    r = r + lo;
    z = r * r;
    p = 1.9875691500e-4;
    p = p * r + 1.3981999507e-3;
    p = p * r + 8.3334519073e-3;
    p = p * r + 4.1665795894e-2;
    p = p * r + 1.6666665459e-1;
    p = p * r + 5.0000001201e-1;
    p = p * z + r + 1.0;
    return vkdml_ldexp(p, int(n));
}

float vkdml_exp(float x)
{
    return vkdml_exp_parts(x, 0.0);
}

/* log(x) = e ln2 + log(1 + f) as two floats, hi + lo, the error of the sum far below an ulp of
 * hi: x = m 2^e, sqrt(1/2) <= m < sqrt(2), f = m - 1, log(1 + f) = f - f^2/2 + f^3 P(f). The caller
 * handles x <= 0, infinities and NaN. */
vec2 vkdml_log_parts(float x)
{
    precise float s, lo, y, fe, c;
    uint bits;
    float f, z;
    int e = 0;

    if (x < 1.17549435e-38)
    {
        x *= 16777216.0;                    /* a denormal: scale by 2^24 first */
        e = -24;
    }
    bits = floatBitsToUint(x);
    e += int(bits >> 23) - 126;
    f = uintBitsToFloat((bits & 0x007fffffu) | 0x3f000000u);   /* [0.5, 1) */
    if (f < 0.70710678118654752)
    {
        e -= 1;
        f = f + f - 1.0;
    }
    else
    {
        f = f - 1.0;
    }
    z = f * f;
    y = 7.0376836292e-2;
    y = y * f - 1.1514610310e-1;
    y = y * f + 1.1676998740e-1;
    y = y * f - 1.2420140846e-1;
    y = y * f + 1.4249322787e-1;
    y = y * f - 1.6668057665e-1;
    y = y * f + 2.0000714765e-1;
    y = y * f - 2.4999993993e-1;
    y = y * f + 3.3333331174e-1;
    y = y * f * z;
    fe = float(e);
    y = y + fe * -2.12194440e-4 - 0.5 * z;
    /* fe * 0.693359375 is exact; add f to it with the rounding error kept (TwoSum). */
    c = fe * 0.693359375;
    s = c + f;
    lo = (c - (s - (s - c))) + (f - (s - c));
    return vec2(s, lo + y);
}

float vkdml_log(float x)
{
    vec2 parts;

    if (vkdml_isnan(x) || x < 0.0)
        return vkdml_nan();
    if (x == 0.0)
        return -vkdml_inf();
    if (vkdml_isinf(x))
        return x;
    parts = vkdml_log_parts(x);
    return parts.x + parts.y;
}

/* log(1 + x), accurate near 0: log(u) * x / (u - 1) with u = 1 + x rounded corrects the rounding
 * of u (Goldberg's trick). */
float vkdml_log1p(float x)
{
    /* precise: the compiler must not fold (1 + x) - 1 into x. */
    precise float u = 1.0 + x, d = u - 1.0;

    if (u == 1.0)
        return x;
    if (vkdml_isinf(u))
        return u;
    return vkdml_log(u) * (x / d);
}

/* sin and cos share the reduction: j = round to the octant of |x|, z = |x| - j pi/4 with pi/4
 * in three parts (exact products for |x| < 8192). */
float vkdml_sin_poly(float z)
{
    float zz = z * z;

    return ((-1.9515295891e-4 * zz + 8.3321608736e-3) * zz - 1.6666654611e-1) * zz * z + z;
}

float vkdml_cos_poly(float z)
{
    float zz = z * z;

    return ((2.443315711809948e-5 * zz - 1.388731625493765e-3) * zz + 4.166664568298827e-2) * zz * zz
            - 0.5 * zz + 1.0;
}

/* The octant (0..7, after rounding up odd ones) and the reduced argument of |x|. */
float vkdml_reduce_pi4(float a, out uint octant)
{
    precise float z;
    float y = floor(a * 1.27323954473516268);      /* 4 / pi */
    int j = int(y);                                 /* < 2^14: the callers take |x| <= 8192 */

    /* Odd octants round up: z then lies in [-pi/4, pi/4]. */
    if ((j & 1) != 0)
    {
        ++j;
        y += 1.0;
    }
    octant = uint(j & 7);
    z = a - y * 0.78515625;
    z = z - y * 2.4187564849853515625e-4;
    z = z - y * 3.77489497744594108e-8;
    return z;
}

float vkdml_sin(float x)
{
    uint octant;
    float z, r;

    if (vkdml_isinf(x) || vkdml_isnan(x))
        return vkdml_nan();
    if (abs(x) > 8192.0)
        return sin(x);
    z = vkdml_reduce_pi4(abs(x), octant);
    r = (octant & 2u) != 0u ? vkdml_cos_poly(z) : vkdml_sin_poly(z);
    if (octant >= 4u)
        r = -r;
    return x < 0.0 ? -r : (x == 0.0 ? x : r);
}

float vkdml_cos(float x)
{
    uint octant;
    float z, r;

    if (vkdml_isinf(x) || vkdml_isnan(x))
        return vkdml_nan();
    if (abs(x) > 8192.0)
        return cos(x);
    z = vkdml_reduce_pi4(abs(x), octant);
    r = (octant & 2u) != 0u ? vkdml_sin_poly(z) : vkdml_cos_poly(z);
    /* cos changes sign in octants 2..5 (after the odd ones were rounded up: 2, 4). */
    if (octant == 2u || octant == 4u)
        r = -r;
    return r;
}

float vkdml_tan(float x)
{
    uint octant;
    float z, zz, y;

    if (vkdml_isinf(x) || vkdml_isnan(x))
        return vkdml_nan();
    if (abs(x) > 8192.0)
        return tan(x);
    z = vkdml_reduce_pi4(abs(x), octant);
    zz = z * z;
    y = z;
    if (abs(z) > 1e-4)
    {
        y = 9.38540185543e-3;
        y = y * zz + 3.11992232697e-3;
        y = y * zz + 2.44301354525e-2;
        y = y * zz + 5.34112807005e-2;
        y = y * zz + 1.33387994085e-1;
        y = y * zz + 3.33331568548e-1;
        y = y * zz * z + z;
    }
    if ((octant & 2u) != 0u)
        y = -1.0 / y;
    return x < 0.0 ? -y : (x == 0.0 ? x : y);
}

/* atan(|x|) reduced to [0, tan(pi/8)] by atan(x) = pi/2 - atan(1/x) and pi/4 + atan((x-1)/(x+1)). */
float vkdml_atan(float x)
{
    float a = abs(x), base = 0.0, z, y;

    if (vkdml_isnan(x))
        return x;
    if (a > 2.414213562373095)
    {
        base = VKDML_PI_2;
        a = -1.0 / a;
    }
    else if (a > 0.4142135623730950)
    {
        base = VKDML_PI_4;
        a = (a - 1.0) / (a + 1.0);
    }
    z = a * a;
    y = (((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) * z * a + a;
    return vkdml_copysign(base + y, x);
}

/* atan2(y, x) with C99's special cases (signed zeros and infinities pick the quadrant). */
float vkdml_atan2(float y, float x)
{
    float r;

    if (vkdml_isnan(x) || vkdml_isnan(y))
        return x + y;
    if (vkdml_isinf(x))
    {
        if (vkdml_isinf(y))
            r = x > 0.0 ? VKDML_PI_4 : 3.0 * VKDML_PI_4;
        else
            r = x > 0.0 ? 0.0 : VKDML_PI;
        return vkdml_copysign(r, y);
    }
    if (vkdml_isinf(y))
        return vkdml_copysign(VKDML_PI_2, y);
    if (x == 0.0)
        return vkdml_copysign(y == 0.0 ? (vkdml_signbit(x) ? VKDML_PI : 0.0) : VKDML_PI_2, y);
    precise float r2;

    r = vkdml_atan(vkdml_div(abs(y), abs(x)));
    /* pi in two parts (precise: the parts must not be folded back into one float). */
    r2 = (3.14159274 - r) - 8.74227766e-8;
    if (x < 0.0)
        r = r2;
    return vkdml_copysign(r, y);
}

/* asin on [0, 0.5] by polynomial; above, asin(a) = pi/2 - 2 asin(sqrt((1 - a) / 2)). */
float vkdml_asin(float x)
{
    float a = abs(x), z, r;
    bool upper = a > 0.5;

    if (vkdml_isnan(x) || a > 1.0)
        return vkdml_nan();
    if (a < 1e-4)
        return x;
    if (upper)
    {
        z = 0.5 * (1.0 - a);
        a = sqrt(z);
    }
    else
    {
        z = a * a;
    }
    r = ((((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z + 7.4953002686e-2) * z
            + 1.6666752422e-1) * z * a + a;
    if (upper)
        r = VKDML_PI_2 - (r + r);
    return vkdml_copysign(r, x);
}

float vkdml_acos(float x)
{
    if (vkdml_isnan(x) || abs(x) > 1.0)
        return vkdml_nan();
    precise float r;

    if (x < -0.5)
    {
        r = (3.14159274 - 2.0 * vkdml_asin(sqrt(0.5 * (1.0 + x)))) - 8.74227766e-8;
        return r;
    }
    if (x > 0.5)
        return 2.0 * vkdml_asin(sqrt(0.5 * (1.0 - x)));
    return VKDML_PI_2 - vkdml_asin(x);
}

/* e^|x| / 2 without overflowing before the result does. */
float vkdml_half_exp(float a)
{
    float t;

    if (a < 80.0)
        return 0.5 * vkdml_exp(a);
    t = vkdml_exp(0.5 * a);
    return (0.5 * t) * t;
}

float vkdml_sinh(float x)
{
    float a = abs(x), r;

    if (vkdml_isnan(x))
        return x;
    if (a <= 1.0)
    {
        float z = x * x;
        return ((2.03721912945e-4 * z + 8.33028376239e-3) * z + 1.66667160211e-1) * z * x + x;
    }
    r = a < 20.0 ? 0.5 * (vkdml_exp(a) - 1.0 / vkdml_exp(a)) : vkdml_half_exp(a);
    return vkdml_copysign(r, x);
}

float vkdml_cosh(float x)
{
    float a = abs(x), e;

    if (vkdml_isnan(x))
        return x;
    if (a >= 20.0)
        return vkdml_half_exp(a);
    e = vkdml_exp(a);
    return 0.5 * (e + 1.0 / e);
}

float vkdml_asinh(float x)
{
    float a = abs(x), r;

    if (vkdml_isnan(x) || vkdml_isinf(x))
        return x;
    if (a > 4096.0)
        r = vkdml_log(a) + 0.693147180559945309;
    else
        r = vkdml_log1p(a + a * a / (1.0 + sqrt(1.0 + a * a)));
    return vkdml_copysign(r, x);
}

float vkdml_acosh(float x)
{
    float t;

    if (vkdml_isnan(x) || x < 1.0)
        return vkdml_nan();
    if (vkdml_isinf(x))
        return x;
    if (x > 4096.0)
        return vkdml_log(x) + 0.693147180559945309;
    t = x - 1.0;
    return vkdml_log1p(t + sqrt(t * (t + 2.0)));
}

float vkdml_atanh(float x)
{
    float a = abs(x);

    if (vkdml_isnan(x) || a > 1.0)
        return vkdml_nan();
    if (a == 1.0)
        return vkdml_copysign(vkdml_inf(), x);
    if (a < 1e-4)
        return x;
    return vkdml_copysign(0.5 * vkdml_log1p((a + a) / (1.0 - a)), x);
}

/* x y as hi + lo, exact (Dekker's product: 12-bit halves, no fused multiply-add needed). */
vec2 vkdml_two_product(float x, float y)
{
    precise float xh, xl, yh, yl, p, e, c;

    c = 4097.0 * x;
    xh = c - (c - x);
    xl = x - xh;
    c = 4097.0 * y;
    yh = c - (c - y);
    yl = y - yh;
    p = x * y;
    e = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl;
    return vec2(p, e);
}

/* |x|^y for finite x != 0 and finite y: exp(y log|x|) with log|x| in two parts and y log|x| as
 * an exact product, so that large y log|x| keep their low bits. */
float vkdml_pow_finite(float a, float y)
{
    vec2 l = vkdml_log_parts(a);
    vec2 w = vkdml_two_product(y, l.x);
    precise float hi, lo;

    if (a == 1.0)
        return 1.0;
    /* Splitting y makes the 12-bit halves overflow for |y| > 2^115; those results are 0 or inf. */
    if (abs(y) > 1e30)
        return (a > 1.0) == (y > 0.0) ? vkdml_inf() : 0.0;
    lo = w.y + y * l.y;
    hi = w.x + lo;
    lo = lo - (hi - w.x);
    return vkdml_exp_parts(hi, lo);
}

/* Whether y is an odd integer (every float of magnitude >= 2^24 is even). */
bool vkdml_is_odd_integer(float y)
{
    return abs(y) < 16777216.0 && floor(y) == y && (int(y) & 1) != 0;
}

/* pow(x, y) with C99 Annex F's special cases: pow(x, +-0) = 1 and pow(1, y) = 1 even for NaN;
 * negative x only for integral y (else NaN); zeros and infinities by the sign and parity of y. */
float vkdml_pow(float x, float y)
{
    bool odd = vkdml_is_odd_integer(y);
    float a = abs(x), r;

    if (y == 0.0 || x == 1.0)
        return 1.0;
    if (vkdml_isnan(x) || vkdml_isnan(y))
        return vkdml_nan();
    if (vkdml_isinf(y))
    {
        if (a == 1.0)
            return 1.0;
        return (a > 1.0) == (y > 0.0) ? vkdml_inf() : 0.0;
    }
    if (a == 0.0 || vkdml_isinf(x))
    {
        r = (a == 0.0) == (y < 0.0) ? vkdml_inf() : 0.0;
        return odd ? vkdml_copysign(r, x) : r;
    }
    if (x < 0.0 && floor(y) != y)
        return vkdml_nan();
    r = vkdml_pow_finite(a, y);
    return x < 0.0 && odd ? -r : r;
}

/* The exponent of |x| (x finite and non-zero): x = m 2^e, 1 <= m < 2, denormals included. */
int vkdml_ilogb(float x)
{
    uint bits = floatBitsToUint(x) & 0x7fffffffu;

    return bits >= 0x00800000u ? int(bits >> 23) - 127 : findMSB(bits) - 149;
}

/* x * 2^n for any n that keeps the result finite or overflowing (steps of at most 2^126, each
 * exact until the last). */
float vkdml_scale(float x, int n)
{
    while (n > 126)
    {
        x *= vkdml_exp2i(126);
        n -= 126;
    }
    while (n < -126)
    {
        x *= vkdml_exp2i(-126);
        n += 126;
    }
    return x * vkdml_exp2i(n);
}

/* fmod(a, b): C's remainder of truncated division, exact for every finite a and b (as IEEE
 * requires): |a| is reduced by the largest |b| 2^k not above it until it is below |b|, each
 * subtraction exact (Sterbenz). At most one step per bit of a / b, 277 in the worst case, one
 * or two for typical operands. NaN for b = 0 or infinite a; a for infinite b; the sign of a. */
float vkdml_fmod(float a, float b)
{
    precise float r = abs(a);
    float d = abs(b), t;
    int k;

    if (vkdml_isnan(a) || vkdml_isnan(b) || vkdml_isinf(a) || b == 0.0)
        return vkdml_nan();
    if (r < d)
        return a;
    for (int i = 0; i < 300 && r >= d; ++i)
    {
        k = vkdml_ilogb(r) - vkdml_ilogb(d);
        t = vkdml_scale(d, k);
        if (t > r)
            t = vkdml_scale(d, k - 1);
        r -= t;
    }
    return vkdml_copysign(r, a);
}

#endif /* VKDML_MATH_GLSL */
