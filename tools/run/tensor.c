/*
 * vkdml-run's host tensors: element access in any type, shapes, .npy files, the --check comparison.
 * TensorProto (.pb) files are protobuf and live in proto.c.
 */
#include "tensor.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "reference/fp16.h"
#include "reference/rng.h"

size_t onnx_type_size(int type)
{
    switch (type)
    {
        case ONNX_BOOL: case ONNX_UINT8: case ONNX_INT8: return 1;
        case ONNX_UINT16: case ONNX_INT16: case ONNX_FLOAT16: case ONNX_BFLOAT16: return 2;
        case ONNX_FLOAT: case ONNX_INT32: case ONNX_UINT32: return 4;
        case ONNX_INT64: case ONNX_UINT64: case ONNX_DOUBLE: return 8;
        default: return 0;
    }
}

const char *onnx_type_name(int type)
{
    static const char *const names[] = {"undefined", "float", "uint8", "int8", "uint16", "int16", "int32",
            "int64", "string", "bool", "float16", "double", "uint32", "uint64", "complex64", "complex128",
            "bfloat16"};

    return type >= 0 && type < (int)(sizeof(names) / sizeof(names[0])) ? names[type] : "unknown";
}

int64_t run_shape_elements(const struct run_shape *shape)
{
    int64_t count = 1;
    unsigned int i;

    for (i = 0; i < shape->rank; ++i)
        count *= shape->dims[i];
    return count;
}

bool run_shape_check(const struct run_shape *shape, char *error, size_t error_size)
{
    int64_t count = 1;
    unsigned int i;

    for (i = 0; i < shape->rank; ++i)
    {
        if (shape->dims[i] < 0 || (shape->dims[i] && count > RUN_MAX_ELEMENTS / shape->dims[i]))
        {
            snprintf(error, error_size, "more than 2^40 elements");
            return false;
        }
        count *= shape->dims[i];
    }
    return true;
}

bool run_shape_equal(const struct run_shape *a, const struct run_shape *b)
{
    return a->rank == b->rank && !memcmp(a->dims, b->dims, a->rank * sizeof(a->dims[0]));
}

void run_shape_format(const struct run_shape *shape, char *text, size_t size)
{
    size_t used = 0;
    unsigned int i;

    if (!shape->rank)
    {
        snprintf(text, size, "scalar");
        return;
    }
    text[0] = 0;
    for (i = 0; i < shape->rank && used < size; ++i)
        used += snprintf(text + used, size - used, "%s%" PRId64, i ? "x" : "", shape->dims[i]);
}

bool run_shape_parse(const char *text, struct run_shape *shape)
{
    char *end;

    memset(shape, 0, sizeof(*shape));
    if (!strcmp(text, "scalar"))
        return true;
    for (;;)
    {
        long long dim = strtoll(text, &end, 10);

        if (end == text || dim < 0 || shape->rank == RUN_MAX_RANK)
            return false;
        shape->dims[shape->rank++] = dim;
        if (!*end)
            return true;
        if (*end != 'x' && *end != ',')
            return false;
        text = end + 1;
    }
}

uint64_t run_tensor_bytes(const struct run_tensor *t)
{
    return (uint64_t)run_shape_elements(&t->shape) * onnx_type_size(t->type);
}

void run_tensor_free(struct run_tensor *t)
{
    free(t->data);
    t->data = NULL;
}

bool run_tensor_alloc(struct run_tensor *t, int type, const struct run_shape *shape)
{
    size_t element = onnx_type_size(type);
    uint64_t bytes = (uint64_t)run_shape_elements(shape) * element;
    struct run_shape dims = *shape;     /* `shape` may be t's own (npy_load) */

    memset(t, 0, sizeof(*t));
    t->type = type;
    t->shape = dims;
    if (!element)
        return false;
    t->data = calloc(1, bytes ? bytes : 1);
    return t->data != NULL;
}

double run_tensor_get_double(const struct run_tensor *t, int64_t i)
{
    const void *d = t->data;

    switch (t->type)
    {
        case ONNX_FLOAT: return ((const float *)d)[i];
        case ONNX_DOUBLE: return ((const double *)d)[i];
        case ONNX_FLOAT16: return ref_half_to_float(((const uint16_t *)d)[i]);
        case ONNX_BFLOAT16:
        {
            uint32_t bits = (uint32_t)((const uint16_t *)d)[i] << 16;
            float value;

            memcpy(&value, &bits, sizeof(value));
            return value;
        }
        case ONNX_UINT64: return (double)((const uint64_t *)d)[i];
        default: return (double)run_tensor_get_int(t, i);
    }
}

int64_t run_tensor_get_int(const struct run_tensor *t, int64_t i)
{
    const void *d = t->data;

    switch (t->type)
    {
        case ONNX_BOOL: case ONNX_UINT8: return ((const uint8_t *)d)[i];
        case ONNX_INT8: return ((const int8_t *)d)[i];
        case ONNX_UINT16: return ((const uint16_t *)d)[i];
        case ONNX_INT16: return ((const int16_t *)d)[i];
        case ONNX_INT32: return ((const int32_t *)d)[i];
        case ONNX_UINT32: return ((const uint32_t *)d)[i];
        case ONNX_INT64: return ((const int64_t *)d)[i];
        case ONNX_UINT64: return (int64_t)((const uint64_t *)d)[i];
        default: return (int64_t)run_tensor_get_double(t, i);
    }
}

void run_tensor_set_double(struct run_tensor *t, int64_t i, double value)
{
    void *d = t->data;

    switch (t->type)
    {
        case ONNX_FLOAT: ((float *)d)[i] = (float)value; break;
        case ONNX_DOUBLE: ((double *)d)[i] = value; break;
        case ONNX_FLOAT16: ((uint16_t *)d)[i] = ref_float_to_half((float)value); break;
        case ONNX_BOOL: ((uint8_t *)d)[i] = value != 0.0; break;
        default:
            run_tensor_set_int(t, i, isnan(value) ? 0 : (int64_t)value);
            break;
    }
}

void run_tensor_set_int(struct run_tensor *t, int64_t i, int64_t value)
{
    void *d = t->data;

    switch (t->type)
    {
        case ONNX_BOOL: ((uint8_t *)d)[i] = value != 0; break;
        case ONNX_UINT8: ((uint8_t *)d)[i] = (uint8_t)value; break;
        case ONNX_INT8: ((int8_t *)d)[i] = (int8_t)value; break;
        case ONNX_UINT16: ((uint16_t *)d)[i] = (uint16_t)value; break;
        case ONNX_INT16: ((int16_t *)d)[i] = (int16_t)value; break;
        case ONNX_INT32: ((int32_t *)d)[i] = (int32_t)value; break;
        case ONNX_UINT32: ((uint32_t *)d)[i] = (uint32_t)value; break;
        case ONNX_INT64: ((int64_t *)d)[i] = value; break;
        case ONNX_UINT64: ((uint64_t *)d)[i] = (uint64_t)value; break;
        default: run_tensor_set_double(t, i, (double)value); break;
    }
}

static bool is_float_type(int type)
{
    return type == ONNX_FLOAT || type == ONNX_DOUBLE || type == ONNX_FLOAT16 || type == ONNX_BFLOAT16;
}

void run_tensor_fill_random(struct run_tensor *t, uint32_t seed)
{
    int64_t count = run_shape_elements(&t->shape), i;
    uint32_t state = seed ? seed : 1;

    for (i = 0; i < count; ++i)
    {
        float value = ref_random_float(&state, -1.0f, 1.0f);

        if (is_float_type(t->type))
            run_tensor_set_double(t, i, value);
        else
            run_tensor_set_int(t, i, t->type == ONNX_BOOL ? value > 0.0f : (int64_t)((value + 1.0f) * 5.0f));
    }
}

/* ---- .npy: a magic, a version, a Python dict header, the data (little-endian, C order) ---- */

static const char *npy_descr(int type)
{
    switch (type)
    {
        case ONNX_FLOAT: return "<f4";
        case ONNX_DOUBLE: return "<f8";
        case ONNX_FLOAT16: return "<f2";
        case ONNX_BOOL: return "|b1";
        case ONNX_UINT8: return "|u1";
        case ONNX_INT8: return "|i1";
        case ONNX_UINT16: return "<u2";
        case ONNX_INT16: return "<i2";
        case ONNX_INT32: return "<i4";
        case ONNX_UINT32: return "<u4";
        case ONNX_INT64: return "<i8";
        case ONNX_UINT64: return "<u8";
        default: return NULL;
    }
}

static int npy_type(const char *descr)
{
    static const int types[] = {ONNX_FLOAT, ONNX_DOUBLE, ONNX_FLOAT16, ONNX_BOOL, ONNX_UINT8, ONNX_INT8,
            ONNX_UINT16, ONNX_INT16, ONNX_INT32, ONNX_UINT32, ONNX_INT64, ONNX_UINT64};
    unsigned int i;

    for (i = 0; i < sizeof(types) / sizeof(types[0]); ++i)
        if (!strncmp(descr, npy_descr(types[i]), 3)
                || (descr[0] == '=' && !strncmp(descr + 1, npy_descr(types[i]) + 1, 2)))
            return types[i];
    return ONNX_UNDEFINED;
}

static bool npy_parse_header(const char *header, struct run_tensor *t, char *error, size_t error_size)
{
    const char *descr = strstr(header, "'descr'"), *order = strstr(header, "'fortran_order'"),
            *shape = strstr(header, "'shape'");
    char *end;

    if (!descr || !order || !shape || !(descr = strchr(descr + 7, '\'')) || !(shape = strchr(shape, '('))
            || !(order = strchr(order, ':')))
    {
        snprintf(error, error_size, "not a NumPy header");
        return false;
    }
    if (!strncmp(order + 1 + strspn(order + 1, " "), "True", 4))
    {
        snprintf(error, error_size, "Fortran order is not supported");
        return false;
    }
    if ((t->type = npy_type(descr + 1)) == ONNX_UNDEFINED)
    {
        snprintf(error, error_size, "NumPy type %.8s is not supported", descr + 1);
        return false;
    }
    t->shape.rank = 0;
    for (++shape; ; shape = end)
    {
        shape += strspn(shape, " ,");
        if (*shape == ')')
            return true;
        if (t->shape.rank == RUN_MAX_RANK)
        {
            snprintf(error, error_size, "more than %d dimensions", RUN_MAX_RANK);
            return false;
        }
        t->shape.dims[t->shape.rank] = strtoll(shape, &end, 10);
        if (end == shape || t->shape.dims[t->shape.rank] < 0 || t->shape.dims[t->shape.rank] > RUN_MAX_ELEMENTS)
        {
            snprintf(error, error_size, "bad NumPy shape");
            return false;
        }
        ++t->shape.rank;
    }
}

static bool npy_load(const unsigned char *bytes, size_t size, struct run_tensor *t, char *error, size_t error_size)
{
    size_t header_size, offset;
    char *header;
    bool ok;

    if (size < 10 || memcmp(bytes, "\x93NUMPY", 6))
    {
        snprintf(error, error_size, "not a NumPy file");
        return false;
    }
    header_size = bytes[6] == 1 ? (size_t)(bytes[8] | bytes[9] << 8) : size >= 12
            ? (size_t)(bytes[8] | bytes[9] << 8 | bytes[10] << 16 | (size_t)bytes[11] << 24) : size;
    offset = bytes[6] == 1 ? 10 : 12;
    if (offset + header_size > size || !(header = malloc(header_size + 1)))
    {
        snprintf(error, error_size, "truncated NumPy header");
        return false;
    }
    memcpy(header, bytes + offset, header_size);
    header[header_size] = 0;
    ok = npy_parse_header(header, t, error, error_size);
    free(header);
    if (!ok || !run_shape_check(&t->shape, error, error_size))
        return false;
    offset += header_size;
    if (!run_tensor_alloc(t, t->type, &t->shape))
    {
        snprintf(error, error_size, "out of memory");
        return false;
    }
    if (size - offset < run_tensor_bytes(t))
    {
        run_tensor_free(t);
        snprintf(error, error_size, "truncated: %zu data bytes for %" PRIu64, size - offset, run_tensor_bytes(t));
        return false;
    }
    memcpy(t->data, bytes + offset, run_tensor_bytes(t));
    return true;
}

static bool npy_save(FILE *f, const struct run_tensor *t)
{
    char header[256];
    size_t used;
    unsigned int i;

    used = (size_t)snprintf(header, sizeof(header), "{'descr': '%s', 'fortran_order': False, 'shape': (",
            npy_descr(t->type));
    for (i = 0; i < t->shape.rank; ++i)
        used += (size_t)snprintf(header + used, sizeof(header) - used, "%" PRId64 "%s", t->shape.dims[i],
                t->shape.rank == 1 || i + 1 < t->shape.rank ? ", " : "");
    used += (size_t)snprintf(header + used, sizeof(header) - used, "), }");
    /* Padded with spaces and a newline so the data starts at a multiple of 64 bytes. */
    while ((10 + used + 1) % 64)
        header[used++] = ' ';
    header[used++] = '\n';
    return fwrite("\x93NUMPY\x01\x00", 1, 8, f) == 8 && fputc((int)(used & 0xff), f) != EOF
            && fputc((int)(used >> 8), f) != EOF && fwrite(header, 1, used, f) == used
            && fwrite(t->data, 1, run_tensor_bytes(t), f) == run_tensor_bytes(t);
}

static bool has_extension(const char *path, const char *extension)
{
    size_t length = strlen(path), extension_length = strlen(extension);

    return length >= extension_length && !strcmp(path + length - extension_length, extension);
}

bool run_read_file(const char *path, unsigned char **bytes, size_t *size, char *error, size_t error_size)
{
    FILE *f = fopen(path, "rb");
    long length;

    *bytes = NULL;
    if (!f || fseek(f, 0, SEEK_END) || (length = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)
            || !(*bytes = malloc(length ? (size_t)length : 1)) || fread(*bytes, 1, (size_t)length, f) != (size_t)length)
    {
        snprintf(error, error_size, "%s: cannot read the file", path);
        free(*bytes);
        *bytes = NULL;
        if (f)
            fclose(f);
        return false;
    }
    fclose(f);
    *size = (size_t)length;
    return true;
}

bool run_tensor_load(const char *path, struct run_tensor *t, char *error, size_t error_size)
{
    char reason[160];
    unsigned char *bytes;
    size_t size;
    bool ok;

    memset(t, 0, sizeof(*t));
    if (!run_read_file(path, &bytes, &size, error, error_size))
        return false;
    ok = has_extension(path, ".npy") ? npy_load(bytes, size, t, reason, sizeof(reason))
            : proto_tensor_load(bytes, size, t, reason, sizeof(reason));
    free(bytes);
    if (!ok)
        snprintf(error, error_size, "%s: %s", path, reason);
    return ok;
}

bool run_tensor_save(const char *path, const struct run_tensor *t, char *error, size_t error_size)
{
    bool npy = has_extension(path, ".npy"), ok;
    FILE *f;

    if (npy && !npy_descr(t->type))
    {
        snprintf(error, error_size, "%s: NumPy has no %s type", path, onnx_type_name(t->type));
        return false;
    }
    if (!(f = fopen(path, "wb")))
    {
        snprintf(error, error_size, "%s: cannot create the file", path);
        return false;
    }
    ok = npy ? npy_save(f, t) : proto_tensor_save(f, t);
    if (fclose(f) || !ok)
    {
        snprintf(error, error_size, "%s: cannot write the file", path);
        return false;
    }
    return true;
}

/* ---- --check ---- */

static bool element_matches(const struct run_tensor *actual, const struct run_tensor *expected, int64_t i,
        double rtol, double atol, double *error)
{
    double a, e;

    if (!is_float_type(expected->type))
    {
        *error = fabs((double)(run_tensor_get_int(actual, i) - run_tensor_get_int(expected, i)));
        return run_tensor_get_int(actual, i) == run_tensor_get_int(expected, i);
    }
    a = run_tensor_get_double(actual, i);
    e = run_tensor_get_double(expected, i);
    *error = 0.0;
    if (isnan(e) || isnan(a))
        return isnan(e) && isnan(a);
    if (isinf(e) || isinf(a))
        return a == e;
    *error = fabs(a - e);
    return *error <= atol + rtol * fabs(e);
}

bool run_tensor_compare(const struct run_tensor *actual, const struct run_tensor *expected, double rtol,
        double atol, struct run_compare *result, char *error, size_t error_size)
{
    char a[96], e[96];
    int64_t count, i;
    double difference;

    memset(result, 0, sizeof(*result));
    result->first_mismatch = -1;
    if (actual->type != expected->type || !run_shape_equal(&actual->shape, &expected->shape))
    {
        run_shape_format(&actual->shape, a, sizeof(a));
        run_shape_format(&expected->shape, e, sizeof(e));
        snprintf(error, error_size, "got %s %s, expected %s %s", onnx_type_name(actual->type), a,
                onnx_type_name(expected->type), e);
        return false;
    }
    count = run_shape_elements(&expected->shape);
    for (i = 0; i < count; ++i)
    {
        bool match = element_matches(actual, expected, i, rtol, atol, &difference);

        if (difference > result->max_abs_error)
            result->max_abs_error = difference;
        if (!match && !result->mismatches++)
        {
            result->first_mismatch = i;
            result->actual = run_tensor_get_double(actual, i);
            result->expected = run_tensor_get_double(expected, i);
        }
    }
    result->checked = count;
    return true;
}
