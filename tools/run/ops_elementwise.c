/*
 * vkdml-run's element-wise family (ops.h): arithmetic with numpy broadcasting (strides of 0 on the
 * broadcast dimensions), math functions, comparisons and logic, activations, Cast.
 *
 * - Binary and variadic ops (Add Sub Mul Div Pow Mod Max Min Sum Mean, Equal Greater Less
 *   GreaterOrEqual LessOrEqual, And Or Xor, BitShift, BitwiseAnd/Or/Xor): one ELEMENT_WISE operator
 *   per pair of inputs, a chain for three or more; Mean scales the sum with IDENTITY's ScaleBias.
 *   Mod is MODULUS_FLOOR, or MODULUS_TRUNCATE with fmod=1. Pow with a float exponent on an integer
 *   base computes in float32 (CASTs around POW); an integer exponent on a float base is cast to it.
 *   Before opset 7, `broadcast` with `axis` aligns B at that axis of A.
 * - Unary ops: the ELEMENT_WISE and ACTIVATION operator of the same name (Round: ROUND halves to
 *   even; IsInf: IS_INFINITY's mode from detect_positive/negative); Gelu with approximate="tanh"
 *   and Mish are composed of several operators.
 * - Where is ELEMENT_WISE_IF; PRelu is PARAMETERIZED_RELU with the slope broadcast; Clip is CLIP1
 *   with constant bounds (attributes before opset 11, inputs after) or MAX and MIN with tensors.
 * - Cast and CastLike are CAST; a cast to bool is NOT(EQUALS(x, 0)), since ONNX's bool is "nonzero"
 *   and CAST truncates. Dropout in inference is its input (an alias); its mask is all ones.
 * Every op folds on the host when its inputs are constants (shape arithmetic of exported graphs);
 * small outputs of inputs known on the host (this run's model inputs) are computed on the host as
 * well as on the device, for a later node whose shape they decide. Abs and Relu of unsigned types
 * are aliases.
 * Unsupported: the types DirectML's operator lacks (README.md, "Operator support": FLOAT64 everywhere
 * but CAST, IF and the bitwise ops, 64-bit integers in POW), strings and bfloat16 (no DirectML
 * type), Dropout in training mode with a nonzero ratio (random numbers the expected outputs cannot
 * match).
 */
#include "ops.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- Data types: bit masks of DML_TENSOR_DATA_TYPE (README.md, "Operator support") ---- */

#define TYPE(t) (1u << DML_TENSOR_DATA_TYPE_##t)
#define TYPES_FLOAT (TYPE(FLOAT32) | TYPE(FLOAT16))
#define TYPES_INT_8_32 (TYPE(INT8) | TYPE(INT16) | TYPE(INT32))
#define TYPES_UINT_8_32 (TYPE(UINT8) | TYPE(UINT16) | TYPE(UINT32))
#define TYPES_8_32 (TYPES_INT_8_32 | TYPES_UINT_8_32)
#define TYPES_INTEGER (TYPES_8_32 | TYPE(INT64) | TYPE(UINT64))
#define TYPES_NUMERIC (TYPES_FLOAT | TYPES_INTEGER)
#define TYPES_SIGNED (TYPES_FLOAT | TYPES_INT_8_32 | TYPE(INT64))
#define TYPES_ALL (TYPES_NUMERIC | TYPE(FLOAT64))
#define TYPES_LOGICAL (TYPE(UINT8) | TYPE(UINT32))
#define TYPES_SHIFT (TYPE(UINT8) | TYPE(UINT16) | TYPE(UINT32) | TYPE(UINT64))

static bool is_float_type(int type)
{
    return type == ONNX_FLOAT || type == ONNX_FLOAT16 || type == ONNX_DOUBLE || type == ONNX_BFLOAT16;
}

/* Abs and Relu leave these unchanged (ABS and RELU have no unsigned types). */
static bool is_unsigned_type(int type)
{
    return type == ONNX_UINT8 || type == ONNX_UINT16 || type == ONNX_UINT32 || type == ONNX_UINT64;
}

/* Whether vkdml's operator `dml_name` takes `v`'s type (`types`: a mask of DML types). */
static bool check_type(struct run_node *n, const struct run_value *v, unsigned int types, const char *dml_name)
{
    DML_TENSOR_DATA_TYPE type = run_dml_type(n->lower, v->type);

    if (type == DML_TENSOR_DATA_TYPE_UNKNOWN)
        return run_unsupported(n, "'%s' is %s, which DirectML has no data type for", v->name,
                onnx_type_name(v->type));
    if (!(types & (1u << type)))
        return run_unsupported(n, "DML_OPERATOR_%s takes no %s ('%s'; DirectML's type table)", dml_name,
                onnx_type_name(v->type), v->name);
    return true;
}

/* ---- Values and descs ---- */

/* A rank-0 constant of `type` holding `value`, for an operator that needs a tensor. */
static struct run_value *constant_scalar(struct run_node *n, int type, double value)
{
    struct run_shape scalar = {0};
    struct run_value *v = run_temp(n, type, &scalar);
    struct run_tensor *t;

    if (!v)
        return NULL;
    if (!(t = run_alloc(n, sizeof(*t))) || !run_tensor_alloc(t, type, &scalar))
    {
        run_fail(n, "out of memory");
        return NULL;
    }
    run_tensor_set_double(t, 0, value);
    v->host = t;
    v->host_owned = true;
    v->constant = true;
    return v;
}

/* `v`, whose elements have the shape `own` (v's, or one of the same count), read at `rank`
 * dimensions of `to` under numpy broadcasting. */
static DML_TENSOR_DESC *desc_read_as(struct run_node *n, const struct run_value *v, const struct run_shape *own,
        const struct run_shape *to)
{
    unsigned int rank = to->rank ? to->rank : 1, i;
    uint32_t sizes[RUN_MAX_RANK], strides[RUN_MAX_RANK], stride = 1;

    if (own->rank > to->rank || rank > RUN_MAX_RANK)
    {
        run_unsupported(n, "'%s' (rank %u) read with %u dimensions", v->name, own->rank, rank);
        return NULL;
    }
    for (i = rank; i-- > 0;)
    {
        int64_t own_size = i + own->rank >= rank ? own->dims[i + own->rank - rank] : 1;
        int64_t size = to->rank ? to->dims[i] : 1;

        sizes[i] = (uint32_t)size;
        strides[i] = own_size == 1 && size != 1 ? 0 : stride;
        stride *= (uint32_t)own_size;
    }
    return run_desc_view(n, v, rank, sizes, strides, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

/* The desc of an operator's output `v`, at least one dimension. */
static DML_TENSOR_DESC *desc_out(struct run_node *n, const struct run_value *v)
{
    return run_desc(n, v, 0);
}

/* The shape `b` has under the broadcasting of opsets before 7: with `broadcast` and `axis`, B's
 * dimensions line up with A's from `axis` on (trailing 1s added); numpy's rule otherwise. */
static bool legacy_shape(struct run_node *n, const struct run_value *a, const struct run_value *b,
        struct run_shape *shape)
{
    unsigned int axis, i;

    *shape = b->shape;
    if (n->opset >= 7 || !onnx_attr_int(n->onnx, "broadcast", 0) || !onnx_attr_has(n->onnx, "axis"))
        return true;
    if (!run_axis(n, onnx_attr_int(n->onnx, "axis", 0), a->shape.rank, &axis))
        return false;
    if (axis + b->shape.rank > a->shape.rank)
        return run_fail(n, "B (rank %u) does not fit in A (rank %u) from axis %u", b->shape.rank, a->shape.rank, axis);
    for (i = b->shape.rank; i < a->shape.rank - axis; ++i)
        shape->dims[shape->rank++] = 1;
    return true;
}

/* ---- Generic emits ---- */

/* Every binary ELEMENT_WISE desc starts with A, B, Output; POW's and ADD1's optional pointer after
 * them stays NULL. */
union binary_desc
{
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC plain;
    DML_ELEMENT_WISE_POW_OPERATOR_DESC pow;
    DML_ELEMENT_WISE_ADD1_OPERATOR_DESC add1;
};

/* `type` of a (elements shaped `a_shape`) and b (`b_shape`) into out, both read at out's shape. */
static bool emit_binary_shaped(struct run_node *n, DML_OPERATOR_TYPE type, struct run_value *a,
        const struct run_shape *a_shape, struct run_value *b, const struct run_shape *b_shape, struct run_value *out)
{
    struct run_value *inputs[2] = {a, b};
    union binary_desc desc;

    memset(&desc, 0, sizeof(desc));
    desc.plain.ATensor = desc_read_as(n, a, a_shape, &out->shape);
    desc.plain.BTensor = desc_read_as(n, b, b_shape, &out->shape);
    desc.plain.OutputTensor = desc_out(n, out);
    return desc.plain.ATensor && desc.plain.BTensor && desc.plain.OutputTensor
            && run_emit(n, type, &desc, inputs, 2, &out, 1);
}

static bool emit_binary_to(struct run_node *n, DML_OPERATOR_TYPE type, struct run_value *a, struct run_value *b,
        struct run_value *out)
{
    return emit_binary_shaped(n, type, a, &a->shape, b, &b->shape, out);
}

/* Every unary desc starts with Input, Output; what follows is an optional ScaleBias (NULL), a mode
 * (0: ROUND's halves to even), or one or two FLOAT parameters. */
union unary_desc
{
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC plain;
    DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC params;
    DML_ELEMENT_WISE_ROUND_OPERATOR_DESC round;
    DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC is_infinity;
};

/* `type` of `in` into `out` (same shape), the desc's fields after the tensors from `tail`. */
static bool emit_unary_to(struct run_node *n, DML_OPERATOR_TYPE type, const union unary_desc *tail,
        struct run_value *in, struct run_value *out)
{
    union unary_desc desc = *tail;

    desc.plain.InputTensor = run_desc(n, in, 0);
    desc.plain.OutputTensor = desc_out(n, out);
    return desc.plain.InputTensor && desc.plain.OutputTensor && run_emit(n, type, &desc, &in, 1, &out, 1);
}

static bool emit_plain_unary_to(struct run_node *n, DML_OPERATOR_TYPE type, struct run_value *in,
        struct run_value *out)
{
    union unary_desc desc;

    memset(&desc, 0, sizeof(desc));
    return emit_unary_to(n, type, &desc, in, out);
}

/* IDENTITY with a ScaleBias (floats): out = in * scale + bias. */
static bool emit_scale_bias_to(struct run_node *n, struct run_value *in, struct run_value *out, float scale,
        float bias)
{
    DML_SCALE_BIAS *scale_bias = run_alloc(n, sizeof(*scale_bias));
    union unary_desc desc;

    if (!scale_bias)
        return run_fail(n, "out of memory");
    scale_bias->Scale = scale;
    scale_bias->Bias = bias;
    memset(&desc, 0, sizeof(desc));
    desc.plain.ScaleBias = scale_bias;
    return emit_unary_to(n, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc, in, out);
}

/* ---- Host evaluation ---- */

/* Output i's host tensor, for a type the host can write (run_tensor_set_* has no bfloat16). */
static struct run_tensor *fold_out(struct run_node *n, unsigned int i)
{
    const struct run_value *v = i < n->out_count ? n->out[i] : NULL;

    if (v && v->type == ONNX_BFLOAT16)
    {
        run_unsupported(n, "no host evaluation into bfloat16");
        return NULL;
    }
    return run_out_host(n, i);
}

typedef double (*host_binary_float)(double a, double b);
typedef int64_t (*host_binary_int)(int64_t a, int64_t b);

/* Output 0 from every input under numpy broadcasting, left to right: out = f(...f(in0, in1)..., ink).
 * Floats when any input is a float, 64-bit integers otherwise. */
static bool fold_chain(struct run_node *n, host_binary_float float_op, host_binary_int int_op, double divisor)
{
    struct run_shape shapes[RUN_MAX_NODE_TENSORS];
    struct run_tensor *out = fold_out(n, 0);
    bool floats = false;
    int64_t count, i;
    unsigned int k;

    if (!out)
        return false;
    for (k = 0; k < n->in_count; ++k)
    {
        floats |= n->in[k] && is_float_type(n->in[k]->type);
        if (!n->in[k])
            continue;
        shapes[k] = n->in[k]->shape;
        if (k && !legacy_shape(n, n->in[0], n->in[k], &shapes[k]))
            return false;
    }
    if ((floats && !float_op) || (!floats && !int_op))
        return run_unsupported(n, "no host evaluation for these types");
    count = run_shape_elements(&out->shape);
    for (i = 0; i < count; ++i)
    {
        const struct run_tensor *first = n->in[0]->host;
        int64_t source = run_broadcast_source(&shapes[0], &out->shape, i);
        double value = run_tensor_get_double(first, source);
        int64_t integer = run_tensor_get_int(first, source);

        for (k = 1; k < n->in_count; ++k)
        {
            const struct run_tensor *t;

            if (!n->in[k])
                continue;
            t = n->in[k]->host;
            source = run_broadcast_source(&shapes[k], &out->shape, i);
            if (floats)
                value = float_op(value, run_tensor_get_double(t, source));
            else
                integer = int_op(integer, run_tensor_get_int(t, source));
        }
        if (floats)
            run_tensor_set_double(out, i, value / divisor);
        else
            run_tensor_set_int(out, i, integer);
    }
    return true;
}

static double host_add(double a, double b) { return a + b; }
static double host_sub(double a, double b) { return a - b; }
static double host_mul(double a, double b) { return a * b; }
static double host_div(double a, double b) { return a / b; }
static double host_max(double a, double b) { return isnan(a) || isnan(b) ? NAN : a > b ? a : b; }
static double host_min(double a, double b) { return isnan(a) || isnan(b) ? NAN : a < b ? a : b; }
static double host_equal(double a, double b) { return a == b; }
static double host_greater(double a, double b) { return a > b; }
static double host_less(double a, double b) { return a < b; }
static double host_greater_equal(double a, double b) { return a >= b; }
static double host_less_equal(double a, double b) { return a <= b; }

static double host_mod_floor(double a, double b)
{
    double r = fmod(a, b);

    return r != 0.0 && (r < 0.0) != (b < 0.0) ? r + b : r;
}

/* Integers wrap as the device's do (unsigned arithmetic: no undefined overflow). */
static int64_t host_add_int(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t host_sub_int(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t host_mul_int(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static int64_t host_max_int(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t host_min_int(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t host_equal_int(int64_t a, int64_t b) { return a == b; }
static int64_t host_greater_int(int64_t a, int64_t b) { return a > b; }
static int64_t host_less_int(int64_t a, int64_t b) { return a < b; }
static int64_t host_greater_equal_int(int64_t a, int64_t b) { return a >= b; }
static int64_t host_less_equal_int(int64_t a, int64_t b) { return a <= b; }
static int64_t host_and_int(int64_t a, int64_t b) { return a && b; }
static int64_t host_or_int(int64_t a, int64_t b) { return a || b; }
static int64_t host_xor_int(int64_t a, int64_t b) { return !a != !b; }
static int64_t host_bit_and_int(int64_t a, int64_t b) { return a & b; }
static int64_t host_bit_or_int(int64_t a, int64_t b) { return a | b; }
static int64_t host_bit_xor_int(int64_t a, int64_t b) { return a ^ b; }

/* Division and remainder by zero give all ones, as vkdml's DIVIDE does (README.md). */
static int64_t host_div_int(int64_t a, int64_t b)
{
    if (!b)
        return -1;
    return b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b;
}

static int64_t host_mod_truncate_int(int64_t a, int64_t b)
{
    return !b ? -1 : b == -1 ? 0 : a % b;
}

static int64_t host_mod_floor_int(int64_t a, int64_t b)
{
    int64_t r = host_mod_truncate_int(a, b);

    return b && r && (r < 0) != (b < 0) ? r + b : r;
}

static int64_t host_shift_left_int(int64_t a, int64_t b)
{
    return (uint64_t)b >= 64 ? 0 : (int64_t)((uint64_t)a << b);
}

static int64_t host_shift_right_int(int64_t a, int64_t b)
{
    return (uint64_t)b >= 64 ? 0 : (int64_t)((uint64_t)a >> b);
}

static int64_t host_pow_int(int64_t a, int64_t b)
{
    uint64_t result = 1, base = (uint64_t)a;

    if (b < 0)
        return a == 1 ? 1 : a == -1 ? (b % 2 ? -1 : 1) : 0;
    for (; b; b >>= 1, base *= base)
        if (b & 1)
            result *= base;
    return (int64_t)result;
}

/* Small values known on the host but not constant (a model input this run was given, and what is
 * computed from it) may decide a later node's shape before the run (a window's size → Range's
 * limit): such outputs are computed on the host too, beside the operators that compute them on
 * the device. */
#define SHADOW_MAX_ELEMENTS 16

static bool shadow_fold(struct run_node *n, bool (*fold)(struct run_node *n))
{
    unsigned int i;

    for (i = 0; i < n->in_count; ++i)
        if (n->in[i] && !n->in[i]->host)
            return true;
    for (i = 0; i < n->out_count; ++i)
        if (n->out[i] && (run_shape_elements(&n->out[i]->shape) > SHADOW_MAX_ELEMENTS
                || n->out[i]->type == ONNX_BFLOAT16))
            return true;
    if (!fold(n))
        return false;
    for (i = 0; i < n->out_count; ++i)
        if (n->out[i])
            n->out[i]->constant = false;    /* still computed, and read, on the device */
    return true;
}

/* ---- Binary and variadic ops ---- */

struct binary_op
{
    const char *key;                    /* the op type, or "Op/variant" for an attribute's choice */
    DML_OPERATOR_TYPE dml;
    const char *dml_name;
    unsigned int types;
    bool bool_output;
    host_binary_float host_float;
    host_binary_int host_int;
};

static const struct binary_op binary_ops[] =
{
    {"Add", DML_OPERATOR_ELEMENT_WISE_ADD, "ELEMENT_WISE_ADD", TYPES_NUMERIC, false, host_add, host_add_int},
    {"Sub", DML_OPERATOR_ELEMENT_WISE_SUBTRACT, "ELEMENT_WISE_SUBTRACT", TYPES_NUMERIC, false, host_sub, host_sub_int},
    {"Mul", DML_OPERATOR_ELEMENT_WISE_MULTIPLY, "ELEMENT_WISE_MULTIPLY", TYPES_NUMERIC, false, host_mul, host_mul_int},
    {"Div", DML_OPERATOR_ELEMENT_WISE_DIVIDE, "ELEMENT_WISE_DIVIDE", TYPES_NUMERIC, false, host_div, host_div_int},
    {"Pow", DML_OPERATOR_ELEMENT_WISE_POW, "ELEMENT_WISE_POW", TYPES_FLOAT | TYPES_8_32, false, pow, host_pow_int},
    {"Mod", DML_OPERATOR_ELEMENT_WISE_MODULUS_FLOOR, "ELEMENT_WISE_MODULUS_FLOOR", TYPES_NUMERIC, false,
            host_mod_floor, host_mod_floor_int},
    {"Mod/fmod", DML_OPERATOR_ELEMENT_WISE_MODULUS_TRUNCATE, "ELEMENT_WISE_MODULUS_TRUNCATE", TYPES_NUMERIC, false,
            fmod, host_mod_truncate_int},
    {"Max", DML_OPERATOR_ELEMENT_WISE_MAX, "ELEMENT_WISE_MAX", TYPES_NUMERIC, false, host_max, host_max_int},
    {"Min", DML_OPERATOR_ELEMENT_WISE_MIN, "ELEMENT_WISE_MIN", TYPES_NUMERIC, false, host_min, host_min_int},
    {"Sum", DML_OPERATOR_ELEMENT_WISE_ADD, "ELEMENT_WISE_ADD", TYPES_NUMERIC, false, host_add, host_add_int},
    {"Mean", DML_OPERATOR_ELEMENT_WISE_ADD, "ELEMENT_WISE_ADD", TYPES_FLOAT, false, host_add, NULL},
    {"Equal", DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS, "ELEMENT_WISE_LOGICAL_EQUALS", TYPES_NUMERIC, true,
            host_equal, host_equal_int},
    {"Greater", DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN, "ELEMENT_WISE_LOGICAL_GREATER_THAN", TYPES_NUMERIC,
            true, host_greater, host_greater_int},
    {"Less", DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN, "ELEMENT_WISE_LOGICAL_LESS_THAN", TYPES_NUMERIC, true,
            host_less, host_less_int},
    {"GreaterOrEqual", DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL,
            "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", TYPES_NUMERIC, true, host_greater_equal,
            host_greater_equal_int},
    {"LessOrEqual", DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL, "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL",
            TYPES_NUMERIC, true, host_less_equal, host_less_equal_int},
    {"And", DML_OPERATOR_ELEMENT_WISE_LOGICAL_AND, "ELEMENT_WISE_LOGICAL_AND", TYPES_LOGICAL, true, NULL,
            host_and_int},
    {"Or", DML_OPERATOR_ELEMENT_WISE_LOGICAL_OR, "ELEMENT_WISE_LOGICAL_OR", TYPES_LOGICAL, true, NULL, host_or_int},
    {"Xor", DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR, "ELEMENT_WISE_LOGICAL_XOR", TYPES_LOGICAL, true, NULL,
            host_xor_int},
    {"BitShift/LEFT", DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT, "ELEMENT_WISE_BIT_SHIFT_LEFT", TYPES_SHIFT, false,
            NULL, host_shift_left_int},
    {"BitShift/RIGHT", DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_RIGHT, "ELEMENT_WISE_BIT_SHIFT_RIGHT", TYPES_SHIFT, false,
            NULL, host_shift_right_int},
    {"BitwiseAnd", DML_OPERATOR_ELEMENT_WISE_BIT_AND, "ELEMENT_WISE_BIT_AND", TYPES_ALL, false, NULL,
            host_bit_and_int},
    {"BitwiseOr", DML_OPERATOR_ELEMENT_WISE_BIT_OR, "ELEMENT_WISE_BIT_OR", TYPES_ALL, false, NULL, host_bit_or_int},
    {"BitwiseXor", DML_OPERATOR_ELEMENT_WISE_BIT_XOR, "ELEMENT_WISE_BIT_XOR", TYPES_ALL, false, NULL,
            host_bit_xor_int},
};

/* The table entry for the node: Mod by `fmod`, BitShift by `direction`. */
static const struct binary_op *binary_op_of(struct run_node *n)
{
    const char *op_type = n->onnx->op_type;
    char key[64], direction[16];
    unsigned int i;

    if (!strcmp(op_type, "Mod"))
        op_type = onnx_attr_int(n->onnx, "fmod", 0) ? "Mod/fmod" : "Mod";
    if (!strcmp(op_type, "BitShift"))
    {
        snprintf(key, sizeof(key), "BitShift/%s", onnx_attr_string(n->onnx, "direction", "", direction,
                sizeof(direction)));
        op_type = key;
    }
    for (i = 0; i < sizeof(binary_ops) / sizeof(binary_ops[0]); ++i)
        if (!strcmp(binary_ops[i].key, op_type))
            return &binary_ops[i];
    run_fail(n, "attribute values not in ONNX's spec ('%s')", op_type);
    return NULL;
}

/* Max, Min, Sum and Mean take one input or more; the others two. */
static bool is_variadic(const struct binary_op *op)
{
    return !strcmp(op->key, "Max") || !strcmp(op->key, "Min") || !strcmp(op->key, "Sum") || !strcmp(op->key, "Mean");
}

static unsigned int present_inputs(const struct run_node *n)
{
    unsigned int i, count = 0;

    for (i = 0; i < n->in_count; ++i)
        count += n->in[i] != NULL;
    return count;
}

/* Inputs broadcast together; the output has the first input's type, or bool for comparisons. */
static bool infer_binary(struct run_node *n)
{
    const struct binary_op *op = binary_op_of(n);
    struct run_shape shape, legacy, both;
    unsigned int i;

    if (!op)
        return false;
    if (!n->in_count || !n->in[0] || (!is_variadic(op) && present_inputs(n) != 2))
        return run_fail(n, "%s takes two inputs", n->onnx->op_type);
    shape = n->in[0]->shape;
    for (i = 1; i < n->in_count; ++i)
    {
        if (!n->in[i])
            continue;
        if (!legacy_shape(n, n->in[0], n->in[i], &legacy) || !run_broadcast(n, &shape, &legacy, &both))
            return false;
        shape = both;
    }
    run_set_out(n, 0, op->bool_output ? ONNX_BOOL : n->in[0]->type, &shape);
    return true;
}

static bool fold_binary(struct run_node *n)
{
    const struct binary_op *op = binary_op_of(n);

    if (!op)
        return false;
    return fold_chain(n, op->host_float, op->host_int, strcmp(op->key, "Mean") ? 1.0 : present_inputs(n));
}

/* Pow's exponent in a type POW takes with the base: a float base takes its exponent cast to its
 * type; an integer base with a float exponent is computed in float32 (ONNX: pow, then the base's
 * type). */
static bool emit_pow(struct run_node *n, const struct binary_op *op)
{
    struct run_value *base = n->in[0], *exponent = n->in[1], *out = n->out[0], *result = out;
    DML_CAST_OPERATOR_DESC cast;

    if (!check_type(n, base, op->types, op->dml_name) || !check_type(n, exponent, TYPES_ALL, "CAST"))
        return false;
    if (run_dml_type(n->lower, base->type) == run_dml_type(n->lower, exponent->type))
        return emit_binary_to(n, op->dml, base, exponent, out);
    if (is_float_type(exponent->type) && !is_float_type(base->type))
    {
        struct run_value *float_base;

        if (!(float_base = run_temp(n, ONNX_FLOAT, &base->shape))
                || !(result = run_temp(n, ONNX_FLOAT, &out->shape)))
            return false;
        cast.InputTensor = run_desc(n, base, 0);
        cast.OutputTensor = run_desc(n, float_base, 0);
        if (!cast.InputTensor || !cast.OutputTensor
                || !run_emit(n, DML_OPERATOR_CAST, &cast, &base, 1, &float_base, 1))
            return false;
        base = float_base;
    }
    {
        struct run_value *cast_exponent = run_temp(n, base->type, &exponent->shape);

        if (!cast_exponent)
            return false;
        cast.InputTensor = run_desc(n, exponent, 0);
        cast.OutputTensor = run_desc(n, cast_exponent, 0);
        if (!cast.InputTensor || !cast.OutputTensor
                || !run_emit(n, DML_OPERATOR_CAST, &cast, &exponent, 1, &cast_exponent, 1)
                || !emit_binary_to(n, op->dml, base, cast_exponent, result))
            return false;
    }
    if (result == out)
        return true;
    cast.InputTensor = run_desc(n, result, 0);
    cast.OutputTensor = run_desc(n, out, 0);
    return cast.InputTensor && cast.OutputTensor && run_emit(n, DML_OPERATOR_CAST, &cast, &result, 1, &out, 1);
}

/* One operator per further input: acc = op(acc, in[k]), at the shape the inputs so far broadcast to;
 * Mean scales the sum at the end. */
/* ---- GELU written out in Erf ---- */

/* The sole reader of the value named `name` that is op `op_type` reading it beside, when
 * `other_scalar` is not NAN, a constant scalar equal to it (else, when `other_name`, that value). */
static const struct onnx_node *chain_step(struct run_node *n, const char *name, const char *op_type,
        double other_scalar, const char *other_name)
{
    struct run_value value = {.name = name};
    const struct onnx_node *next = run_sole_consumer(n, &value);
    const char *other;
    double constant;

    if (!next || strcmp(next->op_type, op_type) || (next->domain[0] && strcmp(next->domain, "ai.onnx"))
            || !next->output_count || next->input_count != (other_name || !isnan(other_scalar) ? 2u : 1u))
        return NULL;
    if (next->input_count == 1)
        return next;
    other = strcmp(next->inputs[0], name) ? next->inputs[0] : next->inputs[1];
    if (other_name)
        return !strcmp(other, other_name) ? next : NULL;
    return run_constant_scalar(n, other, &constant) && fabs(constant - other_scalar) <= 1e-3 * fabs(other_scalar)
            && run_find(n, other)->shape.rank <= n->in[0]->shape.rank ? next : NULL;
}

/* GELU as exporters write it before opset 20: Div(x, sqrt(2)) -> Erf -> Add(1) -> Mul(x) -> Mul(0.5),
 * each step read only by the next: one ACTIVATION_GELU (docs/onnx.md, "Lowering"). 1: emitted,
 * 0: no such chain here, -1: failed. */
static int emit_erf_gelu(struct run_node *n)
{
    const struct onnx_node *steps[4];
    DML_ACTIVATION_GELU_OPERATOR_DESC desc;
    struct run_value *x = n->in[0], *out = NULL;
    double sqrt2;
    unsigned int i;

    if (n->in_count != 2 || !x || !n->out[0] || (x->type != ONNX_FLOAT && x->type != ONNX_FLOAT16)
            || !run_constant_scalar(n, n->onnx->inputs[1], &sqrt2) || fabs(sqrt2 - M_SQRT2) > 1e-3
            || n->in[1]->shape.rank > x->shape.rank
            || !(steps[0] = chain_step(n, n->out[0]->name, "Erf", NAN, NULL))
            || !(steps[1] = chain_step(n, steps[0]->outputs[0], "Add", 1.0, NULL))
            || !(steps[2] = chain_step(n, steps[1]->outputs[0], "Mul", NAN, x->name))
            || !(steps[3] = chain_step(n, steps[2]->outputs[0], "Mul", 0.5, NULL)))
        return 0;
    for (i = 0; i < 4; ++i)
        if (!(out = run_absorb(n, steps[i], x)))
            return -1;
    memset(&desc, 0, sizeof(desc));
    desc.InputTensor = run_desc(n, x, 0);
    desc.OutputTensor = run_desc(n, out, 0);
    return desc.InputTensor && desc.OutputTensor && run_emit(n, DML_OPERATOR_ACTIVATION_GELU, &desc, &x, 1, &out, 1)
            ? 1 : -1;
}

static bool emit_binary(struct run_node *n)
{
    const struct binary_op *op = binary_op_of(n);
    struct run_value *acc, *out = n->out[0];
    struct run_shape acc_shape, b_shape;
    unsigned int i, left;
    bool mean;
    int gelu;

    if (!op || !shadow_fold(n, fold_binary))
        return false;
    if (!strcmp(op->key, "Div") && (gelu = emit_erf_gelu(n)))
        return gelu > 0;
    if (!strcmp(op->key, "Pow"))
        return emit_pow(n, op);
    mean = !strcmp(op->key, "Mean");
    for (i = 0; i < n->in_count; ++i)
        if (n->in[i] && !check_type(n, n->in[i], op->types, op->dml_name))
            return false;
    if ((left = present_inputs(n)) == 1)
        return run_alias(n, 0, n->in[0]);
    acc = n->in[0];
    acc_shape = acc->shape;
    for (i = 1; i < n->in_count; ++i)
    {
        struct run_value *b = n->in[i], *result = out;
        struct run_shape shape;

        if (!b)
            continue;
        if (!legacy_shape(n, n->in[0], b, &b_shape) || !run_broadcast(n, &acc_shape, &b_shape, &shape))
            return false;
        if ((--left > 1 || mean) && !(result = run_temp(n, out->type, &shape)))
            return false;
        if (!emit_binary_shaped(n, op->dml, acc, &acc_shape, b, &b_shape, result))
            return false;
        acc = result;
        acc_shape = shape;
    }
    return !mean || emit_scale_bias_to(n, acc, out, 1.0f / (float)present_inputs(n), 0.0f);
}

/* ---- Unary ops ---- */

typedef double (*host_unary_float)(double x, const float *params);
typedef int64_t (*host_unary_int)(int64_t x);

struct unary_op
{
    const char *op_type;
    DML_OPERATOR_TYPE dml;
    const char *dml_name;
    unsigned int types;
    unsigned int param_count;           /* FLOATs after the tensors in the desc */
    const char *attrs[2];               /* the ONNX attributes that give them; NULL: a fixed value */
    float fallbacks[2];
    bool bool_output;
    host_unary_float host_float;
    host_unary_int host_int;
};

static double host_abs(double x, const float *p) { return fabs(x); }
static double host_neg(double x, const float *p) { return -x; }
static double host_ceil(double x, const float *p) { return ceil(x); }
static double host_floor(double x, const float *p) { return floor(x); }
static double host_round(double x, const float *p) { return nearbyint(x); }
static double host_sqrt(double x, const float *p) { return sqrt(x); }
static double host_recip(double x, const float *p) { return 1.0 / x; }
static double host_exp(double x, const float *p) { return exp(x); }
static double host_log(double x, const float *p) { return log(x); }
static double host_sin(double x, const float *p) { return sin(x); }
static double host_cos(double x, const float *p) { return cos(x); }
static double host_tan(double x, const float *p) { return tan(x); }
static double host_asin(double x, const float *p) { return asin(x); }
static double host_acos(double x, const float *p) { return acos(x); }
static double host_atan(double x, const float *p) { return atan(x); }
static double host_sinh(double x, const float *p) { return sinh(x); }
static double host_cosh(double x, const float *p) { return cosh(x); }
static double host_tanh(double x, const float *p) { return tanh(x); }
static double host_asinh(double x, const float *p) { return asinh(x); }
static double host_acosh(double x, const float *p) { return acosh(x); }
static double host_atanh(double x, const float *p) { return atanh(x); }
static double host_erf(double x, const float *p) { return erf(x); }
static double host_sign(double x, const float *p) { return isnan(x) ? x : (x > 0) - (x < 0); }
static double host_is_nan(double x, const float *p) { return isnan(x); }
static double host_relu(double x, const float *p) { return x > 0.0 ? x : 0.0; }
static double host_sigmoid(double x, const float *p) { return 1.0 / (1.0 + exp(-x)); }
static double host_softplus(double x, const float *p) { return log1p(exp(x)); }
static double host_softsign(double x, const float *p) { return x / (1.0 + fabs(x)); }
static double host_gelu(double x, const float *p) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }
static double host_mish(double x, const float *p) { return x * tanh(log1p(exp(x))); }
static double host_leaky_relu(double x, const float *p) { return x < 0.0 ? p[0] * x : x; }
static double host_elu(double x, const float *p) { return x < 0.0 ? p[0] * expm1(x) : x; }
static double host_celu(double x, const float *p) { return x < 0.0 ? p[0] * expm1(x / p[0]) : x; }
static double host_selu(double x, const float *p) { return p[1] * (x <= 0.0 ? p[0] * expm1(x) : x); }
static double host_thresholded_relu(double x, const float *p) { return x > p[0] ? x : 0.0; }

static double host_hard_sigmoid(double x, const float *p)
{
    return fmax(0.0, fmin(1.0, p[0] * x + p[1]));
}

static double host_hard_swish(double x, const float *p)
{
    return x * host_hard_sigmoid(x, p);
}

static double host_shrink(double x, const float *p)
{
    return x < -p[1] ? x + p[0] : x > p[1] ? x - p[0] : 0.0;
}

static int64_t host_abs_int(int64_t x) { return x < 0 ? (int64_t)(0 - (uint64_t)x) : x; }
static int64_t host_neg_int(int64_t x) { return (int64_t)(0 - (uint64_t)x); }
static int64_t host_sign_int(int64_t x) { return (x > 0) - (x < 0); }
static int64_t host_relu_int(int64_t x) { return x > 0 ? x : 0; }
static int64_t host_not_int(int64_t x) { return !x; }
static int64_t host_bit_not_int(int64_t x) { return ~x; }

#define UNARY(name, dml, types, host, host_int) \
        {name, DML_OPERATOR_##dml, #dml, types, 0, {NULL, NULL}, {0.0f, 0.0f}, false, host, host_int}
#define ACTIVATION(name, dml, count, attr0, value0, attr1, value1, host) \
        {name, DML_OPERATOR_##dml, #dml, TYPES_FLOAT, count, {attr0, attr1}, {value0, value1}, false, host, NULL}

static const struct unary_op unary_ops[] =
{
    UNARY("Abs", ELEMENT_WISE_ABS, TYPES_SIGNED, host_abs, host_abs_int),
    UNARY("Neg", ELEMENT_WISE_NEGATE, TYPES_SIGNED, host_neg, host_neg_int),
    UNARY("Ceil", ELEMENT_WISE_CEIL, TYPES_FLOAT, host_ceil, NULL),
    UNARY("Floor", ELEMENT_WISE_FLOOR, TYPES_FLOAT, host_floor, NULL),
    UNARY("Round", ELEMENT_WISE_ROUND, TYPES_FLOAT, host_round, NULL),
    UNARY("Sqrt", ELEMENT_WISE_SQRT, TYPES_FLOAT, host_sqrt, NULL),
    UNARY("Reciprocal", ELEMENT_WISE_RECIP, TYPES_FLOAT, host_recip, NULL),
    UNARY("Exp", ELEMENT_WISE_EXP, TYPES_FLOAT, host_exp, NULL),
    UNARY("Log", ELEMENT_WISE_LOG, TYPES_FLOAT, host_log, NULL),
    UNARY("Sin", ELEMENT_WISE_SIN, TYPES_FLOAT, host_sin, NULL),
    UNARY("Cos", ELEMENT_WISE_COS, TYPES_FLOAT, host_cos, NULL),
    UNARY("Tan", ELEMENT_WISE_TAN, TYPES_FLOAT, host_tan, NULL),
    UNARY("Asin", ELEMENT_WISE_ASIN, TYPES_FLOAT, host_asin, NULL),
    UNARY("Acos", ELEMENT_WISE_ACOS, TYPES_FLOAT, host_acos, NULL),
    UNARY("Atan", ELEMENT_WISE_ATAN, TYPES_FLOAT, host_atan, NULL),
    UNARY("Sinh", ELEMENT_WISE_SINH, TYPES_FLOAT, host_sinh, NULL),
    UNARY("Cosh", ELEMENT_WISE_COSH, TYPES_FLOAT, host_cosh, NULL),
    UNARY("Tanh", ELEMENT_WISE_TANH, TYPES_FLOAT, host_tanh, NULL),
    UNARY("Asinh", ELEMENT_WISE_ASINH, TYPES_FLOAT, host_asinh, NULL),
    UNARY("Acosh", ELEMENT_WISE_ACOSH, TYPES_FLOAT, host_acosh, NULL),
    UNARY("Atanh", ELEMENT_WISE_ATANH, TYPES_FLOAT, host_atanh, NULL),
    UNARY("Erf", ELEMENT_WISE_ERF, TYPES_FLOAT, host_erf, NULL),
    UNARY("Sign", ELEMENT_WISE_SIGN, TYPES_NUMERIC, host_sign, host_sign_int),
    {"IsNaN", DML_OPERATOR_ELEMENT_WISE_IS_NAN, "ELEMENT_WISE_IS_NAN", TYPES_FLOAT, 0, {NULL, NULL}, {0.0f, 0.0f},
            true, host_is_nan, NULL},
    {"Not", DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT, "ELEMENT_WISE_LOGICAL_NOT", TYPES_LOGICAL, 0, {NULL, NULL},
            {0.0f, 0.0f}, true, NULL, host_not_int},
    UNARY("BitwiseNot", ELEMENT_WISE_BIT_NOT, TYPES_ALL, NULL, host_bit_not_int),
    {"Relu", DML_OPERATOR_ACTIVATION_RELU, "ACTIVATION_RELU", TYPES_FLOAT | TYPES_INT_8_32, 0, {NULL, NULL},
            {0.0f, 0.0f}, false, host_relu, host_relu_int},
    ACTIVATION("Sigmoid", ACTIVATION_SIGMOID, 0, NULL, 0.0f, NULL, 0.0f, host_sigmoid),
    ACTIVATION("Softsign", ACTIVATION_SOFTSIGN, 0, NULL, 0.0f, NULL, 0.0f, host_softsign),
    ACTIVATION("LeakyRelu", ACTIVATION_LEAKY_RELU, 1, "alpha", 0.01f, NULL, 0.0f, host_leaky_relu),
    ACTIVATION("Elu", ACTIVATION_ELU, 1, "alpha", 1.0f, NULL, 0.0f, host_elu),
    ACTIVATION("Celu", ACTIVATION_CELU, 1, "alpha", 1.0f, NULL, 0.0f, host_celu),
    ACTIVATION("Selu", ACTIVATION_SCALED_ELU, 2, "alpha", 1.67326319217681884765625f, "gamma",
            1.05070102214813232421875f, host_selu),
    ACTIVATION("ThresholdedRelu", ACTIVATION_THRESHOLDED_RELU, 1, "alpha", 1.0f, NULL, 0.0f, host_thresholded_relu),
    ACTIVATION("HardSigmoid", ACTIVATION_HARD_SIGMOID, 2, "alpha", 0.2f, "beta", 0.5f, host_hard_sigmoid),
    ACTIVATION("HardSwish", ACTIVATION_HARD_SWISH, 2, NULL, 1.0f / 6.0f, NULL, 0.5f, host_hard_swish),
    ACTIVATION("Softplus", ACTIVATION_SOFTPLUS, 1, NULL, 1.0f, NULL, 0.0f, host_softplus),
    {"Shrink", DML_OPERATOR_ACTIVATION_SHRINK, "ACTIVATION_SHRINK", TYPES_FLOAT | TYPES_8_32, 2, {"bias", "lambd"},
            {0.0f, 0.5f}, false, host_shrink, NULL},
    ACTIVATION("Gelu", ACTIVATION_GELU, 0, NULL, 0.0f, NULL, 0.0f, host_gelu),
    ACTIVATION("Mish", ACTIVATION_SOFTPLUS, 0, NULL, 0.0f, NULL, 0.0f, host_mish),
};

static const struct unary_op *unary_op_of(const struct run_node *n)
{
    unsigned int i;

    for (i = 0; i < sizeof(unary_ops) / sizeof(unary_ops[0]); ++i)
        if (!strcmp(unary_ops[i].op_type, n->onnx->op_type))
            return &unary_ops[i];
    return NULL;
}

static void unary_params(const struct run_node *n, const struct unary_op *op, float *params)
{
    unsigned int i;

    for (i = 0; i < 2; ++i)
        params[i] = op->attrs[i] ? onnx_attr_float(n->onnx, op->attrs[i], op->fallbacks[i]) : op->fallbacks[i];
}

static bool infer_unary(struct run_node *n)
{
    const struct unary_op *op = unary_op_of(n);

    if (!n->in_count || !n->in[0])
        return run_fail(n, "input 0 is missing");
    run_set_out(n, 0, op && op->bool_output ? ONNX_BOOL : n->in[0]->type, &n->in[0]->shape);
    return true;
}

static bool fold_unary(struct run_node *n)
{
    const struct unary_op *op = unary_op_of(n);
    const struct run_tensor *in = n->in[0]->host;
    struct run_tensor *out = fold_out(n, 0);
    bool floats = is_float_type(in->type) || !op->host_int;
    int64_t count = run_shape_elements(&in->shape), i;
    float params[2];

    if (!out)
        return false;
    if (floats && !op->host_float)
        return run_unsupported(n, "no host evaluation of %s on %s", op->op_type, onnx_type_name(in->type));
    unary_params(n, op, params);
    for (i = 0; i < count; ++i)
    {
        if (floats)
            run_tensor_set_double(out, i, op->host_float(run_tensor_get_double(in, i), params));
        else
            run_tensor_set_int(out, i, op->host_int(run_tensor_get_int(in, i)));
    }
    return true;
}

/* Mish: x * tanh(softplus(x)). */
static bool emit_mish(struct run_node *n)
{
    struct run_value *in = n->in[0], *out = n->out[0], *softplus, *tanh_value;
    union unary_desc desc;

    memset(&desc, 0, sizeof(desc));
    desc.params.Alpha = 1.0f;           /* SOFTPLUS's Steepness */
    return (softplus = run_temp(n, in->type, &in->shape)) && (tanh_value = run_temp(n, in->type, &in->shape))
            && emit_unary_to(n, DML_OPERATOR_ACTIVATION_SOFTPLUS, &desc, in, softplus)
            && emit_plain_unary_to(n, DML_OPERATOR_ELEMENT_WISE_TANH, softplus, tanh_value)
            && emit_binary_to(n, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, in, tanh_value, out);
}

/* Gelu with approximate="tanh": 0.5 x (1 + tanh(u)) with u = sqrt(2 / pi) (x + 0.044715 x^3), computed
 * as x sigmoid(2u) (the same value, without 1 + tanh's cancellation for negative x). A ScaleBias
 * applies to an operator's input: IDENTITY's makes k x, CONSTANT_POW's (cbrt(0.044715 k) x)^3. */
static bool emit_gelu_tanh(struct run_node *n)
{
    const float k = 2.0f * 0.7978845608028654f;     /* 2 sqrt(2 / pi) */
    struct run_value *x = n->in[0], *out = n->out[0], *linear, *cube, *sum, *gate;
    DML_SCALE_BIAS *cube_scale = run_alloc(n, sizeof(*cube_scale));
    DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC pow_desc;

    if (!cube_scale)
        return run_fail(n, "out of memory");
    cube_scale->Scale = cbrtf(0.044715f * k);
    if (!(linear = run_temp(n, x->type, &x->shape)) || !(cube = run_temp(n, x->type, &x->shape))
            || !(sum = run_temp(n, x->type, &x->shape)) || !(gate = run_temp(n, x->type, &x->shape)))
        return false;
    pow_desc.InputTensor = run_desc(n, x, 0);
    pow_desc.OutputTensor = run_desc(n, cube, 0);
    pow_desc.ScaleBias = cube_scale;
    pow_desc.Exponent = 3.0f;
    return pow_desc.InputTensor && pow_desc.OutputTensor
            && run_emit(n, DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW, &pow_desc, &x, 1, &cube, 1)
            && emit_scale_bias_to(n, x, linear, k, 0.0f)
            && emit_binary_to(n, DML_OPERATOR_ELEMENT_WISE_ADD, linear, cube, sum)
            && emit_plain_unary_to(n, DML_OPERATOR_ACTIVATION_SIGMOID, sum, gate)
            && emit_binary_to(n, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, x, gate, out);
}

static bool emit_unary(struct run_node *n)
{
    const struct unary_op *op = unary_op_of(n);
    union unary_desc desc;
    float params[2];
    char approximate[16];

    if (!shadow_fold(n, fold_unary))
        return false;
    if (is_unsigned_type(n->in[0]->type) && (!strcmp(op->op_type, "Abs") || !strcmp(op->op_type, "Relu")))
        return run_alias(n, 0, n->in[0]);
    if (!check_type(n, n->in[0], op->types, op->dml_name))
        return false;
    if (!strcmp(op->op_type, "Mish"))
        return emit_mish(n);
    if (!strcmp(op->op_type, "Gelu")
            && strcmp(onnx_attr_string(n->onnx, "approximate", "none", approximate, sizeof(approximate)), "none"))
    {
        if (strcmp(approximate, "tanh"))
            return run_fail(n, "approximate '%s' is not in ONNX's spec", approximate);
        return emit_gelu_tanh(n);
    }
    memset(&desc, 0, sizeof(desc));
    unary_params(n, op, params);
    if (op->param_count > 0)
        desc.params.Alpha = params[0];
    if (op->param_count > 1)
        desc.params.Beta = params[1];
    if (op->dml == DML_OPERATOR_ELEMENT_WISE_ROUND)
        desc.round.RoundingMode = DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN;
    return emit_unary_to(n, op->dml, &desc, n->in[0], n->out[0]);
}

/* ---- IsInf ---- */

static bool infer_is_inf(struct run_node *n)
{
    run_set_out(n, 0, ONNX_BOOL, &n->in[0]->shape);
    return true;
}

static bool emit_is_inf(struct run_node *n)
{
    bool positive = onnx_attr_int(n->onnx, "detect_positive", 1), negative = onnx_attr_int(n->onnx,
            "detect_negative", 1);
    union unary_desc desc;

    if (!check_type(n, n->in[0], TYPES_FLOAT, "ELEMENT_WISE_IS_INFINITY"))
        return false;
    if (!positive && !negative)
        return run_out_host(n, 0) != NULL;      /* all false */
    memset(&desc, 0, sizeof(desc));
    desc.is_infinity.InfinityMode = positive && negative ? DML_IS_INFINITY_MODE_EITHER
            : positive ? DML_IS_INFINITY_MODE_POSITIVE : DML_IS_INFINITY_MODE_NEGATIVE;
    return emit_unary_to(n, DML_OPERATOR_ELEMENT_WISE_IS_INFINITY, &desc, n->in[0], n->out[0]);
}

static bool fold_is_inf(struct run_node *n)
{
    bool positive = onnx_attr_int(n->onnx, "detect_positive", 1), negative = onnx_attr_int(n->onnx,
            "detect_negative", 1);
    const struct run_tensor *in = n->in[0]->host;
    struct run_tensor *out = fold_out(n, 0);
    int64_t count = run_shape_elements(&in->shape), i;

    if (!out)
        return false;
    for (i = 0; i < count; ++i)
    {
        double x = run_tensor_get_double(in, i);

        run_tensor_set_int(out, i, isinf(x) && (x > 0 ? positive : negative));
    }
    return true;
}

/* ---- Where ---- */

static bool infer_where(struct run_node *n)
{
    struct run_shape pair, shape;

    if (n->in_count != 3 || !n->in[0] || !n->in[1] || !n->in[2])
        return run_fail(n, "Where takes three inputs");
    if (!run_broadcast(n, &n->in[0]->shape, &n->in[1]->shape, &pair)
            || !run_broadcast(n, &pair, &n->in[2]->shape, &shape))
        return false;
    run_set_out(n, 0, n->in[1]->type, &shape);
    return true;
}

static bool fold_where(struct run_node *n)
{
    const struct run_tensor *condition = n->in[0]->host, *x = n->in[1]->host, *y = n->in[2]->host;
    struct run_tensor *out = fold_out(n, 0);
    size_t size = onnx_type_size(x->type);
    int64_t count, i;

    if (!out)
        return false;
    count = run_shape_elements(&out->shape);
    for (i = 0; i < count; ++i)
    {
        const struct run_tensor *from = run_tensor_get_int(condition,
                run_broadcast_source(&condition->shape, &out->shape, i)) ? x : y;
        int64_t source = run_broadcast_source(&from->shape, &out->shape, i);

        memcpy((char *)out->data + i * size, (const char *)from->data + source * size, size);
    }
    return true;
}

static bool emit_where(struct run_node *n)
{
    struct run_value *out = n->out[0];
    DML_ELEMENT_WISE_IF_OPERATOR_DESC desc;

    if (!shadow_fold(n, fold_where) || !check_type(n, n->in[1], TYPES_ALL, "ELEMENT_WISE_IF"))
        return false;
    desc.ConditionTensor = desc_read_as(n, n->in[0], &n->in[0]->shape, &out->shape);
    desc.ATensor = desc_read_as(n, n->in[1], &n->in[1]->shape, &out->shape);
    desc.BTensor = desc_read_as(n, n->in[2], &n->in[2]->shape, &out->shape);
    desc.OutputTensor = desc_out(n, out);
    return desc.ConditionTensor && desc.ATensor && desc.BTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_ELEMENT_WISE_IF, &desc, n->in, 3, &n->out[0], 1);
}

/* ---- PRelu ---- */

/* The slope's shape: before opset 7 a 1-D slope of the channel count lines up with dimension 1. */
static bool prelu_slope_shape(struct run_node *n, struct run_shape *shape)
{
    const struct run_value *x = n->in[0], *slope = n->in[1];
    unsigned int i;

    *shape = slope->shape;
    if (n->opset >= 7 || slope->shape.rank != 1 || slope->shape.dims[0] == 1 || x->shape.rank < 2)
        return true;
    for (i = 1; i < x->shape.rank - 1; ++i)
        shape->dims[shape->rank++] = 1;
    return true;
}

static bool infer_prelu(struct run_node *n)
{
    struct run_shape slope, shape;

    if (n->in_count != 2 || !n->in[0] || !n->in[1])
        return run_fail(n, "PRelu takes two inputs");
    if (!prelu_slope_shape(n, &slope) || !run_broadcast(n, &n->in[0]->shape, &slope, &shape))
        return false;
    if (!run_shape_equal(&shape, &n->in[0]->shape))
        return run_fail(n, "the slope does not broadcast to X's shape");
    run_set_out(n, 0, n->in[0]->type, &shape);
    return true;
}

static bool emit_prelu(struct run_node *n)
{
    struct run_value *out = n->out[0];
    DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC desc;
    struct run_shape slope;

    if (!check_type(n, n->in[0], TYPES_FLOAT | TYPES_INT_8_32, "ACTIVATION_PARAMETERIZED_RELU")
            || !prelu_slope_shape(n, &slope))
        return false;
    desc.InputTensor = desc_out(n, n->in[0]);
    desc.SlopeTensor = desc_read_as(n, n->in[1], &slope, &out->shape);
    desc.OutputTensor = desc_out(n, out);
    return desc.InputTensor && desc.SlopeTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU, &desc, n->in, 2, &n->out[0], 1);
}

static bool fold_prelu(struct run_node *n)
{
    const struct run_tensor *x = n->in[0]->host, *slope = n->in[1]->host;
    struct run_tensor *out = fold_out(n, 0);
    struct run_shape slope_shape;
    int64_t count = run_shape_elements(&x->shape), i;

    if (!out || !prelu_slope_shape(n, &slope_shape))
        return false;
    for (i = 0; i < count; ++i)
    {
        double value = run_tensor_get_double(x, i);
        double a = run_tensor_get_double(slope, run_broadcast_source(&slope_shape, &x->shape, i));

        run_tensor_set_double(out, i, value < 0.0 ? a * value : value);
    }
    return true;
}

/* ---- Clip ---- */

/* The largest (`upper`) or smallest value of an integer DML type. */
static double integer_limit(DML_TENSOR_DATA_TYPE type, bool upper)
{
    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_INT32: return upper ? INT32_MAX : INT32_MIN;
        case DML_TENSOR_DATA_TYPE_UINT32: return upper ? UINT32_MAX : 0;
        case DML_TENSOR_DATA_TYPE_INT16: return upper ? INT16_MAX : INT16_MIN;
        case DML_TENSOR_DATA_TYPE_UINT16: return upper ? UINT16_MAX : 0;
        case DML_TENSOR_DATA_TYPE_INT8: return upper ? INT8_MAX : INT8_MIN;
        case DML_TENSOR_DATA_TYPE_UINT8: return upper ? UINT8_MAX : 0;
        default: return upper ? INFINITY : -INFINITY;
    }
}

/* A bound in the input's DML type: the tensor's value, else `fallback`; an infinite one is the
 * type's limit. */
static DML_SCALAR_UNION clip_bound(DML_TENSOR_DATA_TYPE type, const struct run_tensor *t, double fallback, bool upper)
{
    double value = t ? run_tensor_get_double(t, 0) : fallback;
    DML_SCALAR_UNION s;

    memset(&s, 0, sizeof(s));
    if (type == DML_TENSOR_DATA_TYPE_INT64)
        s.Int64 = t ? run_tensor_get_int(t, 0) : isinf(value) ? (upper ? INT64_MAX : INT64_MIN) : (INT64)value;
    else if (type == DML_TENSOR_DATA_TYPE_UINT64)
        s.UInt64 = t ? (UINT64)run_tensor_get_int(t, 0) : isinf(value) ? (upper ? UINT64_MAX : 0) : (UINT64)value;
    else if (type == DML_TENSOR_DATA_TYPE_FLOAT32 || type == DML_TENSOR_DATA_TYPE_FLOAT16)
        s = run_scalar(type, value);
    else
        s = run_scalar(type, isinf(value) ? integer_limit(type, upper) : value);
    return s;
}

static bool infer_clip(struct run_node *n)
{
    if (!n->in_count || !n->in[0])
        return run_fail(n, "input 0 is missing");
    run_set_out(n, 0, n->in[0]->type, &n->in[0]->shape);
    return true;
}

/* Bounds that are tensors known only at run time: MIN(MAX(x, min), max). */
static bool emit_clip_tensors(struct run_node *n)
{
    struct run_value *x = n->in[0], *lower = run_in(n, 1), *upper = run_in(n, 2), *out = n->out[0];
    struct run_value *clipped = out;

    if (lower && upper && !(clipped = run_temp(n, x->type, &x->shape)))
        return false;
    if (lower && !emit_binary_to(n, DML_OPERATOR_ELEMENT_WISE_MAX, x, lower, clipped))
        return false;
    return !upper || emit_binary_to(n, DML_OPERATOR_ELEMENT_WISE_MIN, lower ? clipped : x, upper, out);
}

/* A bound absent, constant, or a model input: known before the run. A value computed by earlier
 * operators is read from the device, even when the host knows it too (shadow_fold): its operators
 * need a reader. */
static bool bound_is_given(const struct run_value *bound)
{
    return !bound || (bound->host && (bound->constant || bound->graph_input));
}

/* Clip(x, min, max) = min(max(x, min), max): with min > max every element is max, where CLIP1
 * gives Min (README.md, "Operator support"), so such a min is lowered to max. */
static bool emit_clip(struct run_node *n)
{
    struct run_value *x = n->in[0], *lower = run_in(n, 1), *upper = run_in(n, 2);
    DML_TENSOR_DATA_TYPE type = run_dml_type(n->lower, x->type);
    double low = -INFINITY, high = INFINITY;
    const struct run_tensor *low_tensor = NULL, *high_tensor = NULL;
    DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC desc;

    if (!check_type(n, x, TYPES_NUMERIC, "ELEMENT_WISE_CLIP1"))
        return false;
    if (n->opset < 11)
    {
        low = onnx_attr_float(n->onnx, "min", -INFINITY);
        high = onnx_attr_float(n->onnx, "max", INFINITY);
    }
    else if (!bound_is_given(lower) || !bound_is_given(upper))
    {
        return emit_clip_tensors(n);
    }
    else
    {
        low_tensor = lower ? lower->host : NULL;
        high_tensor = upper ? upper->host : NULL;
        low = low_tensor ? run_tensor_get_double(low_tensor, 0) : low;
        high = high_tensor ? run_tensor_get_double(high_tensor, 0) : high;
    }
    if (low > high)
    {
        low = high;
        low_tensor = high_tensor;
    }
    memset(&desc, 0, sizeof(desc));
    desc.MinMaxDataType = type;
    desc.Min = clip_bound(type, low_tensor, low, false);
    desc.Max = clip_bound(type, high_tensor, high, true);
    desc.InputTensor = run_desc(n, x, 0);
    desc.OutputTensor = desc_out(n, n->out[0]);
    return desc.InputTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_ELEMENT_WISE_CLIP1, &desc, &n->in[0], 1, &n->out[0], 1);
}

static double clip_value(double x, double low, double high)
{
    return x < low ? low : x > high ? high : x;
}

static bool fold_clip(struct run_node *n)
{
    const struct run_tensor *in = n->in[0]->host;
    const struct run_value *lower = run_in(n, 1), *upper = run_in(n, 2);
    struct run_tensor *out = fold_out(n, 0);
    int64_t count = run_shape_elements(&in->shape), i;
    double low = -INFINITY, high = INFINITY;

    if (!out)
        return false;
    if (n->opset < 11)
    {
        low = onnx_attr_float(n->onnx, "min", -INFINITY);
        high = onnx_attr_float(n->onnx, "max", INFINITY);
    }
    if (lower)
        low = run_tensor_get_double(lower->host, 0);
    if (upper)
        high = run_tensor_get_double(upper->host, 0);
    for (i = 0; i < count; ++i)
    {
        double x = run_tensor_get_double(in, i);

        if (isnan(x))
            run_tensor_set_double(out, i, x);
        else if (low > high)
            run_tensor_set_double(out, i, high);
        else if (is_float_type(in->type))
            run_tensor_set_double(out, i, clip_value(x, low, high));
        else
            run_tensor_set_int(out, i, (int64_t)clip_value(x, low, high));
    }
    return true;
}

/* ---- Cast, CastLike ---- */

static int cast_target(const struct run_node *n)
{
    if (!strcmp(n->onnx->op_type, "CastLike"))
        return n->in_count > 1 && n->in[1] ? n->in[1]->type : ONNX_UNDEFINED;
    return (int)onnx_attr_int(n->onnx, "to", ONNX_UNDEFINED);
}

static bool infer_cast(struct run_node *n)
{
    int to = cast_target(n);

    if (!n->in_count || !n->in[0])
        return run_fail(n, "input 0 is missing");
    if (to == ONNX_UNDEFINED)
        return run_fail(n, "no target type");
    if (!onnx_type_size(to))
        return run_unsupported(n, "vkdml-run holds no %s tensors", onnx_type_name(to));
    run_set_out(n, 0, to, &n->in[0]->shape);
    return true;
}

static bool fold_cast(struct run_node *n)
{
    const struct run_tensor *in = n->in[0]->host;
    struct run_tensor *out = fold_out(n, 0);
    int64_t count = run_shape_elements(&in->shape), i;

    if (!out)
        return false;
    for (i = 0; i < count; ++i)
    {
        if (is_float_type(in->type) || is_float_type(out->type))
            run_tensor_set_double(out, i, run_tensor_get_double(in, i));
        else
            run_tensor_set_int(out, i, run_tensor_get_int(in, i));
    }
    return true;
}

/* ONNX's cast to bool is x != 0: NOT(EQUALS(x, 0)). */
static bool emit_nonzero(struct run_node *n, struct run_value *in, struct run_value *out)
{
    struct run_value *zero, *equal;

    if (!check_type(n, in, TYPES_NUMERIC, "ELEMENT_WISE_LOGICAL_EQUALS"))
        return false;
    return (zero = constant_scalar(n, in->type, 0.0)) && (equal = run_temp(n, ONNX_BOOL, &in->shape))
            && emit_binary_to(n, DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS, in, zero, equal)
            && emit_plain_unary_to(n, DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT, equal, out);
}

static bool emit_cast(struct run_node *n)
{
    struct run_value *in = n->in[0], *out = n->out[0];
    DML_CAST_OPERATOR_DESC desc;

    if (!check_type(n, in, TYPES_ALL, "CAST") || !check_type(n, out, TYPES_ALL, "CAST")
            || !shadow_fold(n, fold_cast))
        return false;
    if (in->type == out->type)
        return run_alias(n, 0, in);
    if (out->type == ONNX_BOOL)
        return emit_nonzero(n, in, out);
    desc.InputTensor = run_desc(n, in, 0);
    desc.OutputTensor = desc_out(n, out);
    return desc.InputTensor && desc.OutputTensor && run_emit(n, DML_OPERATOR_CAST, &desc, &in, 1, &n->out[0], 1);
}

/* ---- Dropout (inference) ---- */

/* Whether the node drops nothing: not in training mode (opset 12's input, constant or given), or a
 * ratio of 0. */
static bool dropout_is_identity(struct run_node *n, bool *identity)
{
    const struct run_tensor *ratio, *training;

    *identity = true;
    if (n->opset < 12 || !run_in(n, 2))
        return true;
    if (!(training = run_in_host(n, 2)))
        return false;
    if (!run_tensor_get_int(training, 0))
        return true;
    if (!run_in(n, 1))
    {
        *identity = false;
        return true;
    }
    if (!(ratio = run_in_host(n, 1)))
        return false;
    *identity = run_tensor_get_double(ratio, 0) == 0.0;
    return true;
}

static bool infer_dropout(struct run_node *n)
{
    if (!n->in_count || !n->in[0])
        return run_fail(n, "input 0 is missing");
    run_set_out(n, 0, n->in[0]->type, &n->in[0]->shape);
    run_set_out(n, 1, n->opset >= 10 ? ONNX_BOOL : n->in[0]->type, &n->in[0]->shape);
    return true;
}

static bool emit_dropout(struct run_node *n)
{
    struct run_tensor *mask;
    bool identity;
    int64_t i, count;

    if (!dropout_is_identity(n, &identity))
        return false;
    if (!identity)
        return run_unsupported(n, "training mode with a nonzero ratio drops random elements");
    if (n->out_count > 1 && n->out[1])
    {
        if (!(mask = run_out_host(n, 1)))
            return false;
        count = run_shape_elements(&mask->shape);
        for (i = 0; i < count; ++i)
            run_tensor_set_int(mask, i, 1);
    }
    return run_alias(n, 0, n->in[0]);
}

/* ---- The table ---- */

#define BINARY(name) {name, infer_binary, fold_binary, emit_binary}
#define UNARY_OP(name) {name, infer_unary, fold_unary, emit_unary}

const struct run_op run_ops_elementwise[] =
{
    BINARY("Add"), BINARY("Sub"), BINARY("Mul"), BINARY("Div"), BINARY("Pow"), BINARY("Mod"),
    BINARY("Max"), BINARY("Min"), BINARY("Sum"), BINARY("Mean"),
    BINARY("Equal"), BINARY("Greater"), BINARY("Less"), BINARY("GreaterOrEqual"), BINARY("LessOrEqual"),
    BINARY("And"), BINARY("Or"), BINARY("Xor"),
    BINARY("BitShift"), BINARY("BitwiseAnd"), BINARY("BitwiseOr"), BINARY("BitwiseXor"),
    UNARY_OP("Abs"), UNARY_OP("Neg"), UNARY_OP("Ceil"), UNARY_OP("Floor"), UNARY_OP("Round"), UNARY_OP("Sqrt"),
    UNARY_OP("Reciprocal"), UNARY_OP("Exp"), UNARY_OP("Log"), UNARY_OP("Sin"), UNARY_OP("Cos"), UNARY_OP("Tan"),
    UNARY_OP("Asin"), UNARY_OP("Acos"), UNARY_OP("Atan"), UNARY_OP("Sinh"), UNARY_OP("Cosh"), UNARY_OP("Tanh"),
    UNARY_OP("Asinh"), UNARY_OP("Acosh"), UNARY_OP("Atanh"), UNARY_OP("Erf"), UNARY_OP("Sign"), UNARY_OP("IsNaN"),
    UNARY_OP("Not"), UNARY_OP("BitwiseNot"),
    UNARY_OP("Relu"), UNARY_OP("Sigmoid"), UNARY_OP("Softsign"), UNARY_OP("LeakyRelu"), UNARY_OP("Elu"),
    UNARY_OP("Celu"), UNARY_OP("Selu"), UNARY_OP("ThresholdedRelu"), UNARY_OP("HardSigmoid"),
    UNARY_OP("HardSwish"), UNARY_OP("Softplus"), UNARY_OP("Shrink"), UNARY_OP("Gelu"), UNARY_OP("Mish"),
    {"IsInf", infer_is_inf, fold_is_inf, emit_is_inf},
    {"Where", infer_where, fold_where, emit_where},
    {"PRelu", infer_prelu, fold_prelu, emit_prelu},
    {"Clip", infer_clip, fold_clip, emit_clip},
    {"Cast", infer_cast, fold_cast, emit_cast},
    {"CastLike", infer_cast, fold_cast, emit_cast},
    {"Dropout", infer_dropout, NULL, emit_dropout},
    {NULL},
};
