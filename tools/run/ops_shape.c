/*
 * vkdml-run's shape family (ops.h): the operators that compute or change only shapes, folded on
 * the host or lowered to aliases (no DirectML operator, no data moves).
 * - Constant (every attribute form but strings: DirectML has no string type), Identity.
 * - Shape (start/end from opset 15), Size: read only the input's shape, so they always fold.
 * - Reshape (the shape attribute before opset 5, then the input; 0 copies, -1 infers, allowzero
 *   from 14), Flatten, Squeeze and Unsqueeze (axes attribute before 13, input after): the data is
 *   the input's, so the output aliases it (or is copied on the host when the input is constant).
 * - ConstantOfShape, Range, EyeLike, HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix:
 *   generators whose values depend only on shapes and on inputs known on the host, always folded;
 *   their inputs that decide the output's shape must be known before the run (run_in_host).
 * docs/onnx.md, "Operators".
 */
#include "ops.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Constant ---- */

/* The 'value' tensor attribute (Constant, ConstantOfShape); a type vkdml-run cannot hold (strings)
 * is unsupported rather than an error of the model. */
static bool value_attr(struct run_node *n, struct run_tensor *value)
{
    char error[256];

    if (onnx_attr_tensor(n->onnx, "value", value, error, sizeof(error)))
        return true;
    if (strstr(error, "unsupported"))
        return run_unsupported(n, "%s", error);
    return run_fail(n, "%s", error);
}

/* The forms of Constant's value besides the 'value' tensor (opset 12). */
static bool constant_attr_form(struct run_node *n, int *type, struct run_shape *shape)
{
    static const char *const strings[] = {"value_string", "value_strings", "sparse_value"};
    unsigned int i;
    int count;

    for (i = 0; i < sizeof(strings) / sizeof(*strings); ++i)
        if (onnx_attr_has(n->onnx, strings[i]))
            return run_unsupported(n, "'%s' (DirectML has no string type, vkdml-run no sparse tensors)", strings[i]);
    memset(shape, 0, sizeof(*shape));
    if (onnx_attr_has(n->onnx, "value_float") || onnx_attr_has(n->onnx, "value_int"))
    {
        *type = onnx_attr_has(n->onnx, "value_float") ? ONNX_FLOAT : ONNX_INT64;
        return true;
    }
    if ((count = onnx_attr_ints(n->onnx, "value_ints", NULL, 0)) >= 0)
        *type = ONNX_INT64;
    else if ((count = onnx_attr_floats(n->onnx, "value_floats", NULL, 0)) >= 0)
        *type = ONNX_FLOAT;
    else
        return run_fail(n, "no value attribute");
    shape->rank = 1;
    shape->dims[0] = count;
    return true;
}

static bool infer_constant(struct run_node *n)
{
    struct run_tensor value;
    struct run_shape shape;
    int type = ONNX_UNDEFINED;

    if (!run_need_io(n, 0, 1))
        return false;

    if (!onnx_attr_has(n->onnx, "value"))
    {
        if (!constant_attr_form(n, &type, &shape))
            return false;
        run_set_out(n, 0, type, &shape);
        return true;
    }
    if (!value_attr(n, &value))
        return false;
    run_set_out(n, 0, value.type, &value.shape);
    run_tensor_free(&value);
    return true;
}

static bool fold_constant_list(struct run_node *n, struct run_tensor *out)
{
    int64_t count = run_shape_elements(&out->shape);

    if (onnx_attr_has(n->onnx, "value_float"))
        run_tensor_set_double(out, 0, onnx_attr_float(n->onnx, "value_float", 0.0f));
    else if (onnx_attr_has(n->onnx, "value_int"))
        run_tensor_set_int(out, 0, onnx_attr_int(n->onnx, "value_int", 0));
    else if (out->type == ONNX_INT64)
        onnx_attr_ints(n->onnx, "value_ints", out->data, (int)count);
    else
        onnx_attr_floats(n->onnx, "value_floats", out->data, (int)count);
    return true;
}

static bool fold_constant(struct run_node *n)
{
    struct run_tensor value, *out;

    if (!(out = run_out_host(n, 0)))
        return false;
    if (!onnx_attr_has(n->onnx, "value"))
        return fold_constant_list(n, out);
    if (!value_attr(n, &value))
        return false;
    memcpy(out->data, value.data, run_tensor_bytes(&value));
    run_tensor_free(&value);
    return true;
}

/* ---- Identity and the reshaping ops: the output is the input's data ---- */

static bool infer_identity(struct run_node *n)
{
    if (!run_need_io(n, 1, 1))
        return false;

    run_set_out(n, 0, n->in[0]->type, &n->in[0]->shape);
    return true;
}

/* A constant input: the output is a copy on the host, with the shape infer gave it. */
static bool fold_copy(struct run_node *n)
{
    struct run_tensor *out = run_out_host(n, 0);

    if (!out)
        return false;
    memcpy(out->data, n->in[0]->host->data, run_tensor_bytes(out));
    return true;
}

static bool emit_identity(struct run_node *n)
{
    return run_alias(n, 0, n->in[0]);
}

/* ---- Shape, Size ---- */

/* Shape's [start, end) of the input's dimensions (opset 15; before it, all of them). */
static void shape_range(struct run_node *n, int64_t *start, int64_t *end)
{
    int64_t rank = n->in[0]->shape.rank;

    *start = n->opset >= 15 ? onnx_attr_int(n->onnx, "start", 0) : 0;
    *end = n->opset >= 15 ? onnx_attr_int(n->onnx, "end", rank) : rank;
    if (*start < 0)
        *start += rank;
    if (*end < 0)
        *end += rank;
    *start = *start < 0 ? 0 : *start > rank ? rank : *start;
    *end = *end < *start ? *start : *end > rank ? rank : *end;
}

static bool infer_shape(struct run_node *n)
{
    struct run_shape shape = {1, {0}};
    int64_t start, end;

    if (!run_need_io(n, 1, 1))
        return false;

    shape_range(n, &start, &end);
    shape.dims[0] = end - start;
    run_set_out(n, 0, ONNX_INT64, &shape);
    return true;
}

static bool fold_shape(struct run_node *n)
{
    struct run_tensor *out = run_out_host(n, 0);
    int64_t start, end, i;

    if (!out)
        return false;
    shape_range(n, &start, &end);
    for (i = start; i < end; ++i)
        run_tensor_set_int(out, i - start, n->in[0]->shape.dims[i]);
    return true;
}

static bool infer_size(struct run_node *n)
{
    struct run_shape scalar = {0};

    if (!run_need_io(n, 1, 1))
        return false;

    run_set_out(n, 0, ONNX_INT64, &scalar);
    return true;
}

static bool fold_size(struct run_node *n)
{
    struct run_tensor *out = run_out_host(n, 0);

    if (out)
        run_tensor_set_int(out, 0, run_shape_elements(&n->in[0]->shape));
    return out != NULL;
}

/* ---- Reshape ---- */

/* The requested shape: the attribute before opset 5, else input 1. */
static int reshape_request(struct run_node *n, int64_t *dims)
{
    int count;

    if (n->opset >= 5)
        return run_in_ints(n, 1, dims, RUN_MAX_RANK);
    if ((count = onnx_attr_ints(n->onnx, "shape", dims, RUN_MAX_RANK)) < 0)
        run_fail(n, "no 'shape' attribute");
    else if (count > RUN_MAX_RANK)
        run_unsupported(n, "a shape of %d dimensions", count);
    return count > RUN_MAX_RANK ? -1 : count;
}

static bool infer_reshape(struct run_node *n)
{
    const struct run_shape *in;
    bool allow_zero = n->opset >= 14 && onnx_attr_int(n->onnx, "allowzero", 0);
    struct run_shape shape;
    int64_t known = 1, total;
    int count, i, infer_at = -1;

    if (!run_need_io(n, 1, 1))
        return false;
    in = &n->in[0]->shape;
    total = run_shape_elements(in);

    if ((count = reshape_request(n, shape.dims)) < 0)
        return false;
    shape.rank = (unsigned int)count;
    for (i = 0; i < count; ++i)
    {
        if (shape.dims[i] == 0 && !allow_zero)
        {
            if ((unsigned int)i >= in->rank)
                return run_fail(n, "shape[%d] is 0 (copy) beyond the input's %u dimensions", i, in->rank);
            shape.dims[i] = in->dims[i];
        }
        if (shape.dims[i] == -1 && infer_at < 0)
            infer_at = i;
        else if (shape.dims[i] < 0)
            return run_fail(n, "shape[%d] is %" PRId64, i, shape.dims[i]);
        else
            known *= shape.dims[i];
    }
    if (infer_at >= 0)
    {
        if (!known || total % known)
            return run_fail(n, "cannot infer the -1 dimension: %" PRId64 " elements into parts of %" PRId64,
                    total, known);
        shape.dims[infer_at] = total / known;
        known = total;
    }
    if (known != total)
        return run_fail(n, "the shape holds %" PRId64 " elements, the input %" PRId64, known, total);
    run_set_out(n, 0, n->in[0]->type, &shape);
    return true;
}

/* ---- Flatten ---- */

static bool infer_flatten(struct run_node *n)
{
    const struct run_shape *in;
    int64_t axis = onnx_attr_int(n->onnx, "axis", 1);
    struct run_shape shape = {2, {1, 1}};
    unsigned int i;

    if (!run_need_io(n, 1, 1))
        return false;
    in = &n->in[0]->shape;

    if (axis < 0)
        axis += in->rank;
    if (axis < 0 || axis > (int64_t)in->rank)
        return run_fail(n, "axis %" PRId64 " is outside [-%u, %u]", onnx_attr_int(n->onnx, "axis", 1), in->rank,
                in->rank);
    for (i = 0; i < in->rank; ++i)
        shape.dims[(int64_t)i < axis ? 0 : 1] *= in->dims[i];
    run_set_out(n, 0, n->in[0]->type, &shape);
    return true;
}

/* ---- Squeeze, Unsqueeze ---- */

/* The axes: the attribute before opset 13, then the optional input 1. Returns the count, 0 when
 * absent (Squeeze: every dimension of size 1), -1 on failure. */
static int axes_operand(struct run_node *n, int64_t *axes)
{
    int count;

    if (n->opset >= 13)
        return run_in(n, 1) ? run_in_ints(n, 1, axes, RUN_MAX_RANK) : 0;
    if ((count = onnx_attr_ints(n->onnx, "axes", axes, RUN_MAX_RANK)) > RUN_MAX_RANK)
    {
        run_unsupported(n, "%d axes", count);
        return -1;
    }
    return count < 0 ? 0 : count;
}

static bool infer_squeeze(struct run_node *n)
{
    const struct run_shape *in;
    bool squeezed[RUN_MAX_RANK] = {false};
    int64_t axes[RUN_MAX_RANK];
    struct run_shape shape = {0};
    unsigned int i, axis;
    int count, j;

    if (!run_need_io(n, 1, 1))
        return false;
    in = &n->in[0]->shape;

    if ((count = axes_operand(n, axes)) < 0)
        return false;
    for (j = 0; j < count; ++j)
    {
        if (!run_axis(n, axes[j], in->rank, &axis))
            return false;
        if (in->dims[axis] != 1)
            return run_fail(n, "axis %" PRId64 " has size %" PRId64 ", not 1", axes[j], in->dims[axis]);
        squeezed[axis] = true;
    }
    for (i = 0; i < in->rank; ++i)
        if (count ? !squeezed[i] : in->dims[i] != 1)
            shape.dims[shape.rank++] = in->dims[i];
    run_set_out(n, 0, n->in[0]->type, &shape);
    return true;
}

static bool infer_unsqueeze(struct run_node *n)
{
    const struct run_shape *in;
    bool inserted[RUN_MAX_RANK] = {false};
    int64_t axes[RUN_MAX_RANK];
    struct run_shape shape = {0};
    unsigned int i, axis, next = 0;
    int count, j;

    if (!run_need_io(n, 1, 1))
        return false;
    in = &n->in[0]->shape;

    if ((count = axes_operand(n, axes)) < 0)
        return false;
    if (!count)
        return run_fail(n, "no axes");
    if (in->rank + (unsigned int)count > RUN_MAX_RANK)
        return run_unsupported(n, "an output of %u dimensions", in->rank + count);
    shape.rank = in->rank + (unsigned int)count;
    for (j = 0; j < count; ++j)
    {
        if (!run_axis(n, axes[j], shape.rank, &axis))
            return false;
        if (inserted[axis])
            return run_fail(n, "axis %" PRId64 " is given twice", axes[j]);
        inserted[axis] = true;
    }
    for (i = 0; i < shape.rank; ++i)
        shape.dims[i] = inserted[i] ? 1 : in->dims[next++];
    run_set_out(n, 0, n->in[0]->type, &shape);
    return true;
}

/* ---- ConstantOfShape ---- */

static bool infer_constant_of_shape(struct run_node *n)
{
    struct run_shape shape = {0};
    struct run_tensor value;
    int count, type = ONNX_FLOAT, i;

    if (!run_need_io(n, 1, 1))
        return false;

    if ((count = run_in_ints(n, 0, shape.dims, RUN_MAX_RANK)) < 0)
        return false;
    shape.rank = (unsigned int)count;
    for (i = 0; i < count; ++i)
        if (shape.dims[i] < 0)
            return run_fail(n, "dimension %d is %" PRId64, i, shape.dims[i]);
    if (onnx_attr_has(n->onnx, "value"))
    {
        if (!value_attr(n, &value))
            return false;
        type = value.type;
        count = (int)run_shape_elements(&value.shape);
        run_tensor_free(&value);
        if (count != 1)
            return run_fail(n, "'value' has %d elements, not 1", count);
    }
    run_set_out(n, 0, type, &shape);
    return true;
}

static bool fold_constant_of_shape(struct run_node *n)
{
    struct run_tensor *out = run_out_host(n, 0), value;
    size_t size = onnx_type_size(out ? out->type : 0);
    int64_t count, i;

    if (!out)
        return false;
    if (!onnx_attr_has(n->onnx, "value"))
        return true;    /* float zeros: the tensor comes zeroed */
    if (!value_attr(n, &value))
        return false;
    count = run_shape_elements(&out->shape);
    for (i = 0; i < count; ++i)
        memcpy((char *)out->data + i * size, value.data, size);
    run_tensor_free(&value);
    return true;
}

/* ---- Range ---- */

static bool range_is_integer(int type)
{
    return type == ONNX_INT16 || type == ONNX_INT32 || type == ONNX_INT64;
}

/* ceil((limit - start) / delta), exactly for every int64: unsigned differences cannot overflow. */
static uint64_t range_count(int64_t start, int64_t limit, int64_t delta)
{
    uint64_t span, step;

    if (delta > 0 ? limit <= start : limit >= start)
        return 0;
    span = delta > 0 ? (uint64_t)limit - (uint64_t)start : (uint64_t)start - (uint64_t)limit;
    step = delta > 0 ? (uint64_t)delta : (uint64_t)-(delta + 1) + 1;
    return span / step + (span % step != 0);
}

static bool infer_range(struct run_node *n)
{
    const struct run_tensor *start, *limit, *delta;
    struct run_shape shape = {1, {0}};
    int type;

    if (!run_need_io(n, 3, 1))
        return false;
    type = n->in[0]->type;

    if (!(start = run_in_host(n, 0)) || !(limit = run_in_host(n, 1)) || !(delta = run_in_host(n, 2)))
        return false;
    if (range_is_integer(type))
    {
        int64_t s = run_tensor_get_int(start, 0), l = run_tensor_get_int(limit, 0), d = run_tensor_get_int(delta, 0);
        uint64_t count;

        if (!d)
            return run_fail(n, "delta is 0");
        if ((count = range_count(s, l, d)) > INT32_MAX)
            return run_unsupported(n, "%" PRIu64 " elements", count);
        shape.dims[0] = (int64_t)count;
    }
    else if (type == ONNX_FLOAT || type == ONNX_DOUBLE)
    {
        double s = run_tensor_get_double(start, 0), l = run_tensor_get_double(limit, 0);
        double d = run_tensor_get_double(delta, 0);

        if (d == 0.0 || isnan(s) || isnan(l) || isnan(d) || isinf(s) || isinf(l))
            return run_fail(n, "start %g, limit %g, delta %g give no finite count", s, l, d);
        if (!(fabs(ceil((l - s) / d)) < (double)INT32_MAX))
            return run_unsupported(n, "start %g, limit %g, delta %g give too many elements", s, l, d);
        shape.dims[0] = (int64_t)ceil((l - s) / d);
    }
    else
    {
        return run_unsupported(n, "type %s (ONNX Range takes float, double, int16, int32, int64)",
                onnx_type_name(type));
    }
    if (shape.dims[0] < 0)
        shape.dims[0] = 0;
    run_set_out(n, 0, type, &shape);
    return true;
}

static bool fold_range(struct run_node *n)
{
    struct run_tensor *out = run_out_host(n, 0);
    int64_t count, i;

    if (!out)
        return false;
    count = out->shape.dims[0];
    for (i = 0; i < count; ++i)
    {
        if (range_is_integer(out->type))
            run_tensor_set_int(out, i, (int64_t)((uint64_t)run_tensor_get_int(n->in[0]->host, 0)
                    + (uint64_t)i * (uint64_t)run_tensor_get_int(n->in[2]->host, 0)));
        else
            run_tensor_set_double(out, i, run_tensor_get_double(n->in[0]->host, 0)
                    + (double)i * run_tensor_get_double(n->in[2]->host, 0));
    }
    return true;
}

/* ---- HannWindow, HammingWindow, BlackmanWindow ---- */

/* The window's length: input 0, a scalar known before the run (it decides the output's shape). */
static bool window_size(struct run_node *n, int64_t *size)
{
    int64_t values[1];

    if (!n->in[0] || run_in_ints(n, 0, values, 1) != 1)
        return n->in[0] ? false : run_fail(n, "no size input");
    if (values[0] < 0 || values[0] > RUN_MAX_ELEMENTS)
        return run_fail(n, "window size %" PRId64, values[0]);
    *size = values[0];
    return true;
}

static bool infer_window(struct run_node *n)
{
    struct run_shape shape = {1, {0}};
    int type = (int)onnx_attr_int(n->onnx, "output_datatype", ONNX_FLOAT);

    if (!window_size(n, &shape.dims[0]))
        return false;
    if (!onnx_type_size(type) || type == ONNX_BFLOAT16)
        return run_unsupported(n, "output_datatype %s", onnx_type_name(type));
    run_set_out(n, 0, type, &shape);
    return true;
}

/* ONNX's generalized cosine windows: a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N the size when
 * periodic, else the size - 1. */
static bool fold_window(struct run_node *n)
{
    const char *op = n->onnx->op_type;
    double a0 = 0.5, a1 = 0.5, a2 = 0.0, period;
    struct run_tensor *out;
    int64_t size, i;

    if (!window_size(n, &size) || !(out = run_out_host(n, 0)))
        return false;
    if (!strcmp(op, "HammingWindow"))
    {
        a0 = 25.0 / 46.0;
        a1 = 1.0 - a0;
    }
    else if (!strcmp(op, "BlackmanWindow"))
    {
        a0 = 0.42;
        a2 = 0.08;
    }
    period = (double)(onnx_attr_int(n->onnx, "periodic", 1) ? size : size - 1);
    for (i = 0; i < size; ++i)
    {
        double x = period > 0.0 ? 2.0 * M_PI * (double)i / period : 0.0;

        run_tensor_set_double(out, i, a0 - a1 * cos(x) + a2 * cos(2.0 * x));
    }
    return true;
}

/* ---- MelWeightMatrix ---- */

/* Input i, a scalar known before the run, as a double. */
static bool scalar_input(struct run_node *n, unsigned int i, double *value)
{
    const struct run_tensor *t = run_in_host(n, i);

    if (!t)
        return false;
    if (run_shape_elements(&t->shape) != 1)
        return run_fail(n, "input %u is no scalar", i);
    *value = run_tensor_get_double(t, 0);
    return true;
}

static bool mel_inputs(struct run_node *n, double *values)
{
    unsigned int i;

    for (i = 0; i < 5; ++i)
        if (!scalar_input(n, i, &values[i]))
            return false;
    if (values[0] < 1 || values[1] < 1 || values[2] <= 0 || values[0] > 65536 || values[1] > RUN_MAX_ELEMENTS / 65536)
        return run_fail(n, "num_mel_bins %g, dft_length %g, sample_rate %g", values[0], values[1], values[2]);
    return true;
}

static bool infer_mel_weight_matrix(struct run_node *n)
{
    int type = (int)onnx_attr_int(n->onnx, "output_datatype", ONNX_FLOAT);
    struct run_shape shape = {2, {0}};
    double values[5];

    if (!mel_inputs(n, values))
        return false;
    if (!onnx_type_size(type) || type == ONNX_BFLOAT16)
        return run_unsupported(n, "output_datatype %s", onnx_type_name(type));
    shape.dims[0] = (int64_t)values[1] / 2 + 1;
    shape.dims[1] = (int64_t)values[0];
    run_set_out(n, 0, type, &shape);
    return true;
}

/* ONNX's definition: num_mel_bins + 2 points evenly spaced in mel between the edges, in DFT bins;
 * triangles rising from each point to the next and falling to the one after. */
static bool fold_mel_weight_matrix(struct run_node *n)
{
    int64_t bins, *points, spectrogram, i, j;
    double values[5], low, high, step;
    struct run_tensor *out;

    if (!mel_inputs(n, values) || !(out = run_out_host(n, 0)))
        return false;
    bins = (int64_t)values[0];
    if (!(points = run_alloc(n, (size_t)(bins + 2) * sizeof(*points))))
        return run_fail(n, "out of memory");
    spectrogram = out->shape.dims[0];
    low = 2595.0 * log10(1.0 + values[3] / 700.0);
    high = 2595.0 * log10(1.0 + values[4] / 700.0);
    step = (high - low) / (double)(bins + 2);
    for (i = 0; i < bins + 2; ++i)
    {
        double hertz = 700.0 * (pow(10.0, ((double)i * step + low) / 2595.0) - 1.0);
        double bin = floor((values[1] + 1.0) * hertz / values[2]);

        points[i] = bin < 0.0 ? 0 : bin >= (double)spectrogram ? spectrogram - 1 : (int64_t)bin;
    }
    for (i = 0; i < bins; ++i)
    {
        int64_t left = points[i], center = points[i + 1], right = points[i + 2];

        if (center == left)
            run_tensor_set_double(out, center * bins + i, 1.0);
        for (j = left; center != left && j <= center; ++j)
            run_tensor_set_double(out, j * bins + i, (double)(j - left) / (double)(center - left));
        for (j = center; j < right; ++j)
            run_tensor_set_double(out, j * bins + i, (double)(right - j) / (double)(right - center));
    }
    return true;
}

/* ---- EyeLike ---- */

static bool infer_eye_like(struct run_node *n)
{
    int type;

    if (!run_need_io(n, 1, 1))
        return false;
    type = (int)onnx_attr_int(n->onnx, "dtype", n->in[0]->type);

    if (n->in[0]->shape.rank != 2)
        return run_fail(n, "the input has %u dimensions, not 2", n->in[0]->shape.rank);
    if (!onnx_type_size(type) || type == ONNX_STRING)
        return run_unsupported(n, "dtype %s", onnx_type_name(type));
    run_set_out(n, 0, type, &n->in[0]->shape);
    return true;
}

/* Ones on the k-th diagonal: only the input's shape counts, so it folds whatever the input is. */
static bool fold_eye_like(struct run_node *n)
{
    struct run_tensor *out = run_out_host(n, 0);
    int64_t k = onnx_attr_int(n->onnx, "k", 0), rows, columns, i;

    if (!out)
        return false;
    rows = out->shape.dims[0];
    columns = out->shape.dims[1];
    for (i = 0; i < rows; ++i)
        if (i + k >= 0 && i + k < columns)
            run_tensor_set_int(out, i * columns + i + k, 1);
    return true;
}

const struct run_op run_ops_shape[] =
{
    {"Constant", infer_constant, fold_constant, NULL, true},
    {"ConstantOfShape", infer_constant_of_shape, fold_constant_of_shape, NULL, true},
    {"BlackmanWindow", infer_window, fold_window, NULL, true},
    {"EyeLike", infer_eye_like, fold_eye_like, NULL, true},
    {"HammingWindow", infer_window, fold_window, NULL, true},
    {"HannWindow", infer_window, fold_window, NULL, true},
    {"MelWeightMatrix", infer_mel_weight_matrix, fold_mel_weight_matrix, NULL, true},
    {"Flatten", infer_flatten, fold_copy, emit_identity},
    {"Identity", infer_identity, fold_copy, emit_identity},
    {"Range", infer_range, fold_range, NULL, true},
    {"Reshape", infer_reshape, fold_copy, emit_identity},
    {"Shape", infer_shape, fold_shape, NULL, true},
    {"Size", infer_size, fold_size, NULL, true},
    {"Squeeze", infer_squeeze, fold_copy, emit_identity},
    {"Unsqueeze", infer_unsqueeze, fold_copy, emit_identity},
    {NULL},
};
