/*
 * ONNX TensorProtos to host tensors and back (docs/onnx.md, "Tensors and files"): the data is in
 * raw_data (little-endian, packed), in the typed repeated fields (float_data; int32_data for the
 * types of 32 bits or fewer, float16 as its bits; int64_data; double_data; uint64_data for uint32
 * and uint64), or in an external file named by external_data's "location" with an optional
 * "offset" and "length".
 */
#include "proto.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"

static bool set_shape(const Onnx__TensorProto *p, struct run_tensor *t, char *error, size_t error_size)
{
    size_t i;

    if (p->n_dims > RUN_MAX_RANK)
    {
        snprintf(error, error_size, "%zu dimensions (at most %d)", p->n_dims, RUN_MAX_RANK);
        return false;
    }
    t->shape.rank = (unsigned int)p->n_dims;
    for (i = 0; i < p->n_dims; ++i)
    {
        if (p->dims[i] < 0 || p->dims[i] > (INT64_C(1) << 40))
        {
            snprintf(error, error_size, "bad dimension %" PRId64, p->dims[i]);
            return false;
        }
        t->shape.dims[i] = p->dims[i];
    }
    return true;
}

/* The number of values a typed field holds, and whether it is the field of this type. */
static size_t typed_count(const Onnx__TensorProto *p, int type)
{
    switch (type)
    {
        case ONNX_FLOAT: return p->n_float_data;
        case ONNX_INT64: return p->n_int64_data;
        case ONNX_DOUBLE: return p->n_double_data;
        case ONNX_UINT32: case ONNX_UINT64: return p->n_uint64_data;
        default: return p->n_int32_data;
    }
}

static void copy_typed(const Onnx__TensorProto *p, struct run_tensor *t, int64_t count)
{
    int64_t i;

    for (i = 0; i < count; ++i)
    {
        switch (t->type)
        {
            case ONNX_FLOAT: ((float *)t->data)[i] = p->float_data[i]; break;
            case ONNX_DOUBLE: ((double *)t->data)[i] = p->double_data[i]; break;
            case ONNX_INT64: ((int64_t *)t->data)[i] = p->int64_data[i]; break;
            case ONNX_UINT32: case ONNX_UINT64: run_tensor_set_int(t, i, (int64_t)p->uint64_data[i]); break;
            case ONNX_FLOAT16: case ONNX_BFLOAT16: ((uint16_t *)t->data)[i] = (uint16_t)p->int32_data[i]; break;
            default: run_tensor_set_int(t, i, p->int32_data[i]); break;
        }
    }
}

static bool read_external(const Onnx__TensorProto *p, const char *folder, struct run_tensor *t, char *error,
        size_t error_size)
{
    const char *location = NULL;
    uint64_t offset = 0, length = run_tensor_bytes(t);
    char path[4096];
    FILE *f;
    size_t i;
    bool ok;

    for (i = 0; i < p->n_external_data; ++i)
    {
        const Onnx__StringStringEntryProto *entry = p->external_data[i];

        if (!entry->key || !entry->value)
            continue;
        if (!strcmp(entry->key, "location"))
            location = entry->value;
        else if (!strcmp(entry->key, "offset"))
            offset = strtoull(entry->value, NULL, 10);
        else if (!strcmp(entry->key, "length"))
            length = strtoull(entry->value, NULL, 10);
    }
    if (!location || strstr(location, "..") || location[0] == '/')
    {
        snprintf(error, error_size, "external data without a location inside the model's folder");
        return false;
    }
    if (length != run_tensor_bytes(t))
    {
        snprintf(error, error_size, "external data of %" PRIu64 " bytes for %" PRIu64, length, run_tensor_bytes(t));
        return false;
    }
    snprintf(path, sizeof(path), "%s%s%s", folder ? folder : "", folder ? "/" : "", location);
    if (!(f = fopen(path, "rb")))
    {
        snprintf(error, error_size, "cannot open external data file %s", path);
        return false;
    }
    ok = !fseek(f, (long)offset, SEEK_SET) && fread(t->data, 1, length, f) == length;
    fclose(f);
    if (!ok)
        snprintf(error, error_size, "external data file %s is shorter than offset %" PRIu64 " + %" PRIu64, path,
                offset, length);
    return ok;
}

bool proto_tensor_convert(const void *proto, const char *folder, struct run_tensor *t, char *error,
        size_t error_size)
{
    const Onnx__TensorProto *p = proto;
    struct run_shape shape;
    int64_t count;

    memset(t, 0, sizeof(*t));
    if (p->name)
        snprintf(t->name, sizeof(t->name), "%s", p->name);
    t->type = p->has_data_type ? p->data_type : ONNX_UNDEFINED;
    if (!onnx_type_size(t->type))
    {
        snprintf(error, error_size, "tensor '%s': unsupported: type %s (DirectML has no such tensors)", t->name,
                onnx_type_name(t->type));
        return false;
    }
    if (p->segment)
    {
        snprintf(error, error_size, "tensor '%s' is segmented", t->name);
        return false;
    }
    if (!set_shape(p, t, error, error_size))
        return false;
    shape = t->shape;
    if (!run_tensor_alloc(t, t->type, &shape))
    {
        snprintf(error, error_size, "out of memory for tensor '%s'", p->name ? p->name : "");
        return false;
    }
    /* run_tensor_alloc starts from a cleared tensor: the name again, which initializers are found by. */
    if (p->name)
        snprintf(t->name, sizeof(t->name), "%s", p->name);
    count = run_shape_elements(&t->shape);
    if (p->has_data_location && p->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    {
        if (read_external(p, folder, t, error, error_size))
            return true;
    }
    else if (p->has_raw_data)
    {
        if (p->raw_data.len == run_tensor_bytes(t))
        {
            memcpy(t->data, p->raw_data.data, p->raw_data.len);
            return true;
        }
        snprintf(error, error_size, "tensor '%s': raw_data has %zu bytes for %" PRIu64, t->name, p->raw_data.len,
                run_tensor_bytes(t));
    }
    else if ((int64_t)typed_count(p, t->type) == count)
    {
        copy_typed(p, t, count);
        return true;
    }
    else
    {
        snprintf(error, error_size, "tensor '%s' holds %zu values for %" PRId64 " elements", t->name,
                typed_count(p, t->type), count);
    }
    run_tensor_free(t);
    return false;
}

bool proto_tensor_load(const unsigned char *bytes, size_t size, struct run_tensor *t, char *error, size_t error_size)
{
    Onnx__TensorProto *p = onnx__tensor_proto__unpack(NULL, size, bytes);
    bool ok;

    memset(t, 0, sizeof(*t));
    if (!p)
    {
        snprintf(error, error_size, "not a TensorProto (truncated or not protobuf)");
        return false;
    }
    ok = proto_tensor_convert(p, NULL, t, error, error_size);
    onnx__tensor_proto__free_unpacked(p, NULL);
    return ok;
}

bool proto_tensor_save(FILE *f, const struct run_tensor *t)
{
    Onnx__TensorProto p = ONNX__TENSOR_PROTO__INIT;
    int64_t dims[RUN_MAX_RANK];
    uint8_t *bytes;
    size_t size;
    bool ok;

    memcpy(dims, t->shape.dims, sizeof(dims));
    p.n_dims = t->shape.rank;
    p.dims = dims;
    p.has_data_type = 1;
    p.data_type = t->type;
    p.name = (char *)t->name;
    p.has_raw_data = 1;
    p.raw_data.len = run_tensor_bytes(t);
    p.raw_data.data = t->data;
    size = onnx__tensor_proto__get_packed_size(&p);
    if (!(bytes = malloc(size ? size : 1)))
        return false;
    onnx__tensor_proto__pack(&p, bytes);
    ok = fwrite(bytes, 1, size, f) == size;
    free(bytes);
    return ok;
}
