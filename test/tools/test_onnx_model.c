/*
 * vkdml-run's ONNX parser and tensor files on the host (docs/onnx.md, "The model", "Tensors and
 * files"): models built here with protobuf-c, packed, then parsed by onnx_model_parse. Every
 * attribute kind, initializers in raw_data, in the typed fields and in external files, .pb and
 * .npy round trips, the --check comparison, and bad input (empty, truncated, random, wrong field
 * types, cycles, missing inputs) that must fail with a message and neither crash nor leak.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_utils.h"

#include "model.h"
#include "onnx_test_model.h"

static const int64_t dims_2[] = {2}, dims_4[] = {4};
static const char *const x_name[] = {"x"}, *const y_name[] = {"y"};

static char error[1024];

/* Packs and parses `t` with external data from `folder`. */
static bool parse(const struct test_model *t, const char *folder, struct onnx_model *m)
{
    size_t size;
    uint8_t *bytes = test_model_pack(t, &size);
    bool ok;

    assert_non_null(bytes);
    error[0] = 0;
    ok = onnx_model_parse(bytes, size, folder, m, error, sizeof(error));
    free(bytes);
    return ok;
}

static void assert_parse_fails(const struct test_model *t, const char *folder, const char *message)
{
    struct onnx_model m;

    assert_false(parse(t, folder, &m));
    if (!strstr(error, message))
        fail_msg("error '%s' does not say '%s'", error, message);
}

/* A model whose only content is initializer `p` (and an Identity that reads it). */
static void model_with_initializer(struct test_model *t, Onnx__TensorProto *p)
{
    static const char *const w_name[] = {"w"};

    test_model_init(t, 13);
    test_model_add_initializer(t, p);
    test_model_add_output(t, "y", p->data_type, 0, NULL);
    test_model_add_node(t, "Identity", 1, w_name, 1, y_name);
}

static void test_minimal_model(void **state)
{
    struct test_model t;
    struct onnx_model m;

    test_model_relu(&t);
    assert_true(parse(&t, NULL, &m));
    assert_int_equal(m.opset, 13);
    assert_int_equal(m.ir_version, 8);
    assert_string_equal(m.producer, "vkdml test");
    assert_int_equal(m.input_count, 1);
    assert_string_equal(m.inputs[0].name, "x");
    assert_int_equal(m.inputs[0].type, ONNX_FLOAT);
    assert_true(m.inputs[0].has_shape);
    assert_int_equal(m.inputs[0].shape.rank, 2);
    assert_int_equal(m.inputs[0].shape.dims[1], 3);
    assert_int_equal(m.output_count, 1);
    assert_int_equal(m.node_count, 1);
    assert_string_equal(m.nodes[0].op_type, "Relu");
    assert_string_equal(m.nodes[0].name, "#0");
    assert_string_equal(m.nodes[0].domain, "");
    assert_int_equal(m.nodes[0].input_count, 1);
    assert_string_equal(m.nodes[0].inputs[0], "x");
    onnx_model_free(&m);
}

static void test_inputs_and_opsets(void **state)
{
    static const int64_t free_dims[] = {-1, -2, 5}, w_dims[] = {3};
    static const float w_values[] = {1.0f, 2.0f, 3.0f};
    static const char *const add_inputs[] = {"x", "w"};
    Onnx__OperatorSetIdProto other = ONNX__OPERATOR_SET_ID_PROTO__INIT;
    struct test_model t;
    struct onnx_model m;
    Onnx__TensorProto w;

    test_model_init(&t, 7);
    t.opsets[0].domain = (char *)"ai.onnx";
    other.domain = (char *)"com.example";
    other.has_version = 1;
    other.version = 99;
    t.opset_list[1] = &other;
    t.model.n_opset_import = 2;
    test_tensor_init(&w, "w", ONNX_FLOAT, 1, w_dims);
    w.n_float_data = 3;
    w.float_data = (float *)w_values;
    test_model_add_initializer(&t, &w);
    test_model_add_input(&t, "x", ONNX_FLOAT, 3, free_dims);
    /* An initializer listed among the graph inputs (IR < 4) is no model input. */
    test_model_add_input(&t, "w", ONNX_FLOAT, 1, w_dims);
    test_model_add_output(&t, "y", ONNX_FLOAT, 0, NULL);
    test_model_add_node(&t, "Add", 2, add_inputs, 1, y_name);
    assert_true(parse(&t, NULL, &m));
    assert_int_equal(m.opset, 7);
    assert_int_equal(m.input_count, 1);
    assert_int_equal(m.inputs[0].shape.dims[0], -1);
    assert_string_equal(m.inputs[0].dim_names[0], "N");
    assert_int_equal(m.inputs[0].shape.dims[1], -1);
    assert_null(m.inputs[0].dim_names[1]);
    assert_int_equal(m.inputs[0].shape.dims[2], 5);
    assert_false(m.outputs[0].has_shape);
    assert_int_equal(m.initializer_count, 1);
    assert_string_equal(m.initializers[0].name, "w");
    assert_true(run_tensor_get_double(&m.initializers[0], 2) == 3.0);
    onnx_model_free(&m);
}

static void test_io_not_a_tensor(void **state)
{
    Onnx__TypeProto__Sequence sequence = ONNX__TYPE_PROTO__SEQUENCE__INIT;
    struct test_model t;
    struct onnx_model m;

    test_model_relu(&t);
    t.inputs[0].type.value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
    t.inputs[0].type.sequence_type = &sequence;
    assert_true(parse(&t, NULL, &m));
    assert_int_equal(m.inputs[0].type, ONNX_UNDEFINED);
    assert_false(m.inputs[0].has_shape);
    onnx_model_free(&m);
}

static void test_io_too_many_dimensions(void **state)
{
    static const int64_t dims[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    struct test_model t;

    test_model_init(&t, 13);
    test_model_add_input(&t, "x", ONNX_FLOAT, 9, dims);
    test_model_add_output(&t, "y", ONNX_FLOAT, 0, NULL);
    test_model_add_node(&t, "Relu", 1, x_name, 1, y_name);
    assert_parse_fails(&t, NULL, "'x' has 9 dimensions");
}

/* ---- Attributes ---- */

static Onnx__AttributeProto attribute(const char *name, Onnx__AttributeProto__AttributeType type)
{
    Onnx__AttributeProto a = ONNX__ATTRIBUTE_PROTO__INIT;

    a.name = (char *)name;
    a.has_type = 1;
    a.type = type;
    return a;
}

static void test_attributes(void **state)
{
    static const int64_t ints[] = {1, -2, 3};
    static const float floats[] = {0.25f, -0.5f};
    static const float tensor_values[] = {1.5f, -2.5f};
    Onnx__AttributeProto a[7], *list[7];
    Onnx__TensorProto tensor;
    struct run_tensor host;
    char buffer[64];
    struct test_model t;
    struct onnx_model m;
    int64_t int_values[8];
    float float_values[8];
    unsigned int i;

    a[0] = attribute("i", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a[0].has_i = 1;
    a[0].i = -7;
    a[1] = attribute("f", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a[1].has_f = 1;
    a[1].f = 0.75f;
    a[2] = attribute("s", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    a[2].has_s = 1;
    a[2].s.len = 5;
    a[2].s.data = (uint8_t *)"hello, not terminated";
    a[3] = attribute("ints", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    a[3].n_ints = 3;
    a[3].ints = (int64_t *)ints;
    a[4] = attribute("floats", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
    a[4].n_floats = 2;
    a[4].floats = (float *)floats;
    a[5] = attribute("t", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
    test_tensor_init(&tensor, "value", ONNX_FLOAT, 1, dims_2);
    tensor.n_float_data = 2;
    tensor.float_data = (float *)tensor_values;
    a[5].t = &tensor;
    /* Older files leave the type out: the field that is set says it. */
    a[6] = attribute("untyped", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED);
    a[6].has_type = 0;
    a[6].has_i = 1;
    a[6].i = 42;
    for (i = 0; i < 7; ++i)
        list[i] = &a[i];
    test_model_relu(&t);
    t.nodes[0].n_attribute = 7;
    t.nodes[0].attribute = list;
    assert_true(parse(&t, NULL, &m));

    assert_true(onnx_attr_has(&m.nodes[0], "i"));
    assert_false(onnx_attr_has(&m.nodes[0], "absent"));
    assert_int_equal(onnx_attr_int(&m.nodes[0], "i", 0), -7);
    assert_int_equal(onnx_attr_int(&m.nodes[0], "untyped", 0), 42);
    assert_int_equal(onnx_attr_int(&m.nodes[0], "absent", 11), 11);
    /* The wrong kind answers the default; an int read as a float converts. */
    assert_int_equal(onnx_attr_int(&m.nodes[0], "f", 5), 5);
    assert_true(onnx_attr_float(&m.nodes[0], "f", 0.0f) == 0.75f);
    assert_true(onnx_attr_float(&m.nodes[0], "i", 0.0f) == -7.0f);
    assert_true(onnx_attr_float(&m.nodes[0], "s", 2.0f) == 2.0f);
    assert_string_equal(onnx_attr_string(&m.nodes[0], "s", "none", buffer, sizeof(buffer)), "hello");
    assert_string_equal(onnx_attr_string(&m.nodes[0], "i", "none", buffer, sizeof(buffer)), "none");
    assert_string_equal(onnx_attr_string(&m.nodes[0], "s", "none", buffer, 3), "he");

    assert_int_equal(onnx_attr_ints(&m.nodes[0], "ints", int_values, 8), 3);
    assert_int_equal(int_values[1], -2);
    assert_int_equal(onnx_attr_ints(&m.nodes[0], "ints", int_values, 1), 3);
    assert_int_equal(onnx_attr_ints(&m.nodes[0], "absent", int_values, 8), -1);
    assert_int_equal(onnx_attr_ints(&m.nodes[0], "floats", int_values, 8), -1);
    assert_int_equal(onnx_attr_floats(&m.nodes[0], "floats", float_values, 8), 2);
    assert_true(float_values[1] == -0.5f);
    assert_int_equal(onnx_attr_floats(&m.nodes[0], "i", float_values, 8), -1);

    assert_true(onnx_attr_tensor(&m.nodes[0], "t", &host, error, sizeof(error)));
    assert_int_equal(host.type, ONNX_FLOAT);
    assert_int_equal(host.shape.rank, 1);
    assert_true(run_tensor_get_double(&host, 1) == -2.5);
    run_tensor_free(&host);
    assert_false(onnx_attr_tensor(&m.nodes[0], "i", &host, error, sizeof(error)));
    assert_non_null(strstr(error, "'i'"));
    assert_null(onnx_attr_unsupported(&m.nodes[0]));
    onnx_model_free(&m);
}

static void test_attributes_unsupported(void **state)
{
    static const struct
    {
        Onnx__AttributeProto__AttributeType type;
        const char *reason;
    }
    kinds[] =
    {
        {ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH, "subgraph"},
        {ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS, "subgraph"},
        {ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR, "sparse tensor"},
        {ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS, "sparse tensor"},
    };
    Onnx__GraphProto body = ONNX__GRAPH_PROTO__INIT, *bodies[1] = {&body};
    Onnx__AttributeProto a, *list[1] = {&a};
    struct test_model t;
    struct onnx_model m;
    unsigned int i;

    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i)
    {
        a = attribute("body", kinds[i].type);
        if (kinds[i].type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH)
            a.g = &body;
        if (kinds[i].type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS)
        {
            a.n_graphs = 1;
            a.graphs = bodies;
        }
        test_model_relu(&t);
        t.nodes[0].n_attribute = 1;
        t.nodes[0].attribute = list;
        assert_true(parse(&t, NULL, &m));
        assert_non_null(onnx_attr_unsupported(&m.nodes[0]));
        assert_non_null(strstr(onnx_attr_unsupported(&m.nodes[0]), kinds[i].reason));
        onnx_model_free(&m);
    }

    /* A reference to a function's attribute. */
    a = attribute("alpha", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a.ref_attr_name = (char *)"alpha";
    assert_true(parse(&t, NULL, &m));
    assert_non_null(strstr(onnx_attr_unsupported(&m.nodes[0]), "reference"));
    onnx_model_free(&m);
}

/* ---- Initializers ---- */

static void test_initializer_raw_data(void **state)
{
    static const float floats[] = {1.0f, -2.0f, 3.5f, 0.0f};
    static const int64_t int64s[] = {-5, 1LL << 40};
    static const uint8_t bools[] = {1, 0, 1, 1};
    static const int64_t empty_dims[] = {3, 0};
    struct test_model t;
    struct onnx_model m;
    Onnx__TensorProto p;

    test_tensor_init(&p, "w", ONNX_FLOAT, 1, dims_4);
    p.has_raw_data = 1;
    p.raw_data.len = sizeof(floats);
    p.raw_data.data = (uint8_t *)floats;
    model_with_initializer(&t, &p);
    assert_true(parse(&t, NULL, &m));
    assert_int_equal(m.initializers[0].type, ONNX_FLOAT);
    assert_memory_equal(m.initializers[0].data, floats, sizeof(floats));
    onnx_model_free(&m);

    test_tensor_init(&p, "w", ONNX_INT64, 1, dims_2);
    p.has_raw_data = 1;
    p.raw_data.len = sizeof(int64s);
    p.raw_data.data = (uint8_t *)int64s;
    model_with_initializer(&t, &p);
    assert_true(parse(&t, NULL, &m));
    assert_int_equal(run_tensor_get_int(&m.initializers[0], 1), 1LL << 40);
    onnx_model_free(&m);

    test_tensor_init(&p, "w", ONNX_BOOL, 1, dims_4);
    p.has_raw_data = 1;
    p.raw_data.len = sizeof(bools);
    p.raw_data.data = (uint8_t *)bools;
    model_with_initializer(&t, &p);
    assert_true(parse(&t, NULL, &m));
    assert_int_equal(run_tensor_get_int(&m.initializers[0], 2), 1);
    assert_int_equal(run_tensor_get_int(&m.initializers[0], 1), 0);
    onnx_model_free(&m);

    /* A scalar: no dims, one value. */
    test_tensor_init(&p, "w", ONNX_FLOAT, 0, NULL);
    p.has_raw_data = 1;
    p.raw_data.len = 4;
    p.raw_data.data = (uint8_t *)&floats[2];
    model_with_initializer(&t, &p);
    assert_true(parse(&t, NULL, &m));
    assert_int_equal(m.initializers[0].shape.rank, 0);
    assert_true(run_tensor_get_double(&m.initializers[0], 0) == 3.5);
    onnx_model_free(&m);

    /* No elements: empty raw_data (its data pointer NULL once unpacked), and no typed values. */
    test_tensor_init(&p, "w", ONNX_FLOAT, 2, empty_dims);
    p.has_raw_data = 1;
    model_with_initializer(&t, &p);
    assert_true(parse(&t, NULL, &m));
    assert_int_equal(m.initializers[0].shape.dims[1], 0);
    assert_int_equal(run_tensor_bytes(&m.initializers[0]), 0);
    onnx_model_free(&m);
    test_tensor_init(&p, "w", ONNX_INT64, 2, empty_dims);
    model_with_initializer(&t, &p);
    assert_true(parse(&t, NULL, &m));
    assert_int_equal(run_shape_elements(&m.initializers[0].shape), 0);
    onnx_model_free(&m);
}

static void test_initializer_typed_fields(void **state)
{
    static const float floats[] = {0.5f, -1.25f};
    static const int64_t int64s[] = {INT64_MIN, 7};
    static const int32_t int8s[] = {-128, 127}, uint8s[] = {0, 255}, bools[] = {0, 1}, int16s[] = {-32768, 5};
    static const int32_t uint16s[] = {65535, 1}, int32s[] = {INT32_MIN, INT32_MAX};
    static const int32_t halves[] = {0x3c00, 0xc000};      /* float16 1.0 and -2.0, as their bits */
    static const double doubles[] = {1e300, -0.125};
    static const uint64_t uint64s[] = {UINT64_MAX, 3}, uint32s[] = {4000000000u, 0};
    static const struct
    {
        int type;
        const void *values;
        double expected[2];
    }
    cases[] =
    {
        {ONNX_FLOAT, floats, {0.5, -1.25}},
        {ONNX_INT64, int64s, {-9223372036854775808.0, 7}},
        {ONNX_INT8, int8s, {-128, 127}},
        {ONNX_UINT8, uint8s, {0, 255}},
        {ONNX_BOOL, bools, {0, 1}},
        {ONNX_INT16, int16s, {-32768, 5}},
        {ONNX_UINT16, uint16s, {65535, 1}},
        {ONNX_INT32, int32s, {INT32_MIN, INT32_MAX}},
        {ONNX_FLOAT16, halves, {1.0, -2.0}},
        {ONNX_DOUBLE, doubles, {1e300, -0.125}},
        {ONNX_UINT64, uint64s, {18446744073709551615.0, 3}},
        {ONNX_UINT32, uint32s, {4000000000.0, 0}},
    };
    struct test_model t;
    struct onnx_model m;
    Onnx__TensorProto p;
    unsigned int i, j;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
    {
        test_tensor_init(&p, "w", cases[i].type, 1, dims_2);
        switch (cases[i].type)
        {
            case ONNX_FLOAT: p.n_float_data = 2; p.float_data = (float *)cases[i].values; break;
            case ONNX_INT64: p.n_int64_data = 2; p.int64_data = (int64_t *)cases[i].values; break;
            case ONNX_DOUBLE: p.n_double_data = 2; p.double_data = (double *)cases[i].values; break;
            case ONNX_UINT64: case ONNX_UINT32:
                p.n_uint64_data = 2;
                p.uint64_data = (uint64_t *)cases[i].values;
                break;
            default: p.n_int32_data = 2; p.int32_data = (int32_t *)cases[i].values; break;
        }
        model_with_initializer(&t, &p);
        if (!parse(&t, NULL, &m))
            fail_msg("%s: %s", onnx_type_name(cases[i].type), error);
        assert_int_equal(m.initializers[0].type, cases[i].type);
        for (j = 0; j < 2; ++j)
        {
            double value = run_tensor_get_double(&m.initializers[0], j);

            if (value != cases[i].expected[j])
                fail_msg("%s value %u: %.17g, expected %.17g", onnx_type_name(cases[i].type), j, value,
                        cases[i].expected[j]);
        }
        if (cases[i].type == ONNX_UINT64)
            assert_true(((uint64_t *)m.initializers[0].data)[0] == UINT64_MAX);
        onnx_model_free(&m);
    }
}

static void test_initializer_errors(void **state)
{
    static const int64_t nine_dims[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, negative[] = {-3};
    static const float floats[] = {1.0f, 2.0f, 3.0f};
    ProtobufCBinaryData text = {5, (uint8_t *)"hello"};
    Onnx__TensorProto__Segment segment = ONNX__TENSOR_PROTO__SEGMENT__INIT;
    struct test_model t;
    Onnx__TensorProto p;

    test_tensor_init(&p, "w", ONNX_FLOAT, 1, dims_4);
    p.has_raw_data = 1;
    p.raw_data.len = 12;
    p.raw_data.data = (uint8_t *)floats;
    model_with_initializer(&t, &p);
    assert_parse_fails(&t, NULL, "raw_data has 12 bytes for 16");

    test_tensor_init(&p, "w", ONNX_FLOAT, 1, dims_4);
    p.n_float_data = 3;
    p.float_data = (float *)floats;
    model_with_initializer(&t, &p);
    assert_parse_fails(&t, NULL, "holds 3 values for 4 elements");

    test_tensor_init(&p, "w", ONNX_STRING, 1, dims_2);
    p.n_string_data = 1;
    p.string_data = &text;
    model_with_initializer(&t, &p);
    assert_parse_fails(&t, NULL, "type string");

    test_tensor_init(&p, "w", ONNX_COMPLEX64, 1, dims_2);
    model_with_initializer(&t, &p);
    assert_parse_fails(&t, NULL, "complex64");

    test_tensor_init(&p, "w", ONNX_FLOAT, 9, nine_dims);
    model_with_initializer(&t, &p);
    assert_parse_fails(&t, NULL, "9 dimensions");

    test_tensor_init(&p, "w", ONNX_FLOAT, 1, negative);
    model_with_initializer(&t, &p);
    assert_parse_fails(&t, NULL, "bad dimension -3");

    test_tensor_init(&p, "w", ONNX_FLOAT, 1, dims_2);
    p.segment = &segment;
    model_with_initializer(&t, &p);
    assert_parse_fails(&t, NULL, "segmented");
}

/* ---- External data ---- */

static Onnx__StringStringEntryProto entry(const char *key, const char *value)
{
    Onnx__StringStringEntryProto e = ONNX__STRING_STRING_ENTRY_PROTO__INIT;

    e.key = (char *)key;
    e.value = (char *)value;
    return e;
}

/* Parses a model whose float[2] initializer lives in `location` at `offset` with `length`
 * (NULL: the entry is left out). */
static bool parse_external(const char *folder, const char *location, const char *offset, const char *length,
        struct onnx_model *m)
{
    Onnx__StringStringEntryProto entries[3], *list[3];
    struct test_model t;
    Onnx__TensorProto p;
    unsigned int count = 0;

    test_tensor_init(&p, "w", ONNX_FLOAT, 1, dims_2);
    p.has_data_location = 1;
    p.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    if (location)
        entries[count++] = entry("location", location);
    if (offset)
        entries[count++] = entry("offset", offset);
    if (length)
        entries[count++] = entry("length", length);
    for (p.n_external_data = 0; p.n_external_data < count; ++p.n_external_data)
        list[p.n_external_data] = &entries[p.n_external_data];
    p.external_data = list;
    model_with_initializer(&t, &p);
    return parse(&t, folder, m);
}

static void assert_external_fails(const char *folder, const char *location, const char *offset,
        const char *length, const char *message)
{
    struct onnx_model m;

    assert_false(parse_external(folder, location, offset, length, &m));
    if (!strstr(error, message))
        fail_msg("error '%s' does not say '%s'", error, message);
}

static void test_external_data(void **state)
{
    static const float values[] = {9.0f, 9.0f, 1.5f, -4.0f};
    char folder[] = "/tmp/vkdml-onnx-test-XXXXXX", path[4096];
    struct onnx_model m;

    assert_non_null(mkdtemp(folder));
    assert_true(test_write_file(folder, "weights.bin", values, sizeof(values)));

    assert_true(parse_external(folder, "weights.bin", "8", "8", &m));
    assert_true(run_tensor_get_double(&m.initializers[0], 0) == 1.5);
    assert_true(run_tensor_get_double(&m.initializers[0], 1) == -4.0);
    onnx_model_free(&m);
    /* No offset: from the start; no length: the tensor's size. */
    assert_true(parse_external(folder, "weights.bin", NULL, NULL, &m));
    assert_true(run_tensor_get_double(&m.initializers[0], 0) == 9.0);
    onnx_model_free(&m);

    assert_external_fails(folder, "missing.bin", NULL, NULL, "cannot open external data file");
    assert_external_fails(folder, "weights.bin", "12", NULL, "shorter than offset 12 + 8");
    assert_external_fails(folder, "weights.bin", "1000", NULL, "shorter than offset 1000");
    assert_external_fails(folder, "weights.bin", NULL, "4", "external data of 4 bytes for 8");
    assert_external_fails(folder, "../weights.bin", NULL, NULL, "inside the model's folder");
    assert_external_fails(folder, "sub/../../weights.bin", NULL, NULL, "inside the model's folder");
    assert_external_fails(folder, "/etc/passwd", NULL, NULL, "inside the model's folder");
    assert_external_fails(folder, NULL, NULL, NULL, "without a location");

    snprintf(path, sizeof(path), "%s/weights.bin", folder);
    unlink(path);
    rmdir(folder);
}

/* ---- Node order ---- */

static void test_node_order(void **state)
{
    static const char *const a_name[] = {"a"}, *const b_name[] = {"b"}, *const ab_name[] = {"a", "b"};
    struct test_model t;
    struct onnx_model m;

    /* y = Add(a, b), b = Relu(a), a = Relu(x), listed backwards. */
    test_model_relu(&t);
    t.graph.n_node = 0;
    test_model_add_node(&t, "Add", 2, ab_name, 1, y_name)->name = (char *)"add";
    test_model_add_node(&t, "Relu", 1, a_name, 1, b_name)->name = (char *)"second";
    test_model_add_node(&t, "Relu", 1, x_name, 1, a_name)->name = (char *)"first";
    assert_true(parse(&t, NULL, &m));
    assert_int_equal(m.node_count, 3);
    assert_string_equal(m.nodes[0].name, "first");
    assert_string_equal(m.nodes[1].name, "second");
    assert_string_equal(m.nodes[2].name, "add");
    assert_int_equal(m.nodes[2].index, 0);
    onnx_model_free(&m);
}

static void test_node_cycle(void **state)
{
    static const char *const xb_name[] = {"x", "b"}, *const a_name[] = {"a"}, *const b_name[] = {"b"};
    struct test_model t;

    /* a = Add(x, b), b = Relu(a): neither can run first. */
    test_model_relu(&t);
    t.graph.n_node = 0;
    test_model_add_node(&t, "Add", 2, xb_name, 1, a_name)->name = (char *)"add";
    test_model_add_node(&t, "Relu", 1, a_name, 1, b_name);
    test_model_add_node(&t, "Relu", 1, b_name, 1, y_name);
    assert_parse_fails(&t, NULL, "node 'add' (Add): input 'b'");
    assert_non_null(strstr(error, "a cycle, or a missing input"));
}

static void test_node_missing_input(void **state)
{
    static const char *const nowhere[] = {"nowhere"};
    struct test_model t;

    test_model_relu(&t);
    t.nodes[0].input = (char **)nowhere;
    assert_parse_fails(&t, NULL, "node '#0' (Relu): input 'nowhere'");
}

static void test_node_without_op_type(void **state)
{
    struct test_model t;

    test_model_relu(&t);
    t.nodes[0].op_type = NULL;
    assert_parse_fails(&t, NULL, "has no op_type");
}

/* ---- Bad files ---- */

static void assert_rejected_or_valid(const uint8_t *bytes, size_t size)
{
    struct onnx_model m;

    error[0] = 0;
    if (onnx_model_parse(bytes, size, NULL, &m, error, sizeof(error)))
        onnx_model_free(&m);
    else
        assert_true(error[0] != 0);
}

static void test_bad_bytes(void **state)
{
    /* Field 7 (graph) as a varint, where a message belongs; then a length past the end. */
    static const uint8_t wrong_wire_type[] = {0x38, 0x01}, overlong[] = {0x3a, 0x7f, 0x0a};
    static const float floats[] = {1.0f, 2.0f, 3.0f, 4.0f};
    struct test_model t;
    struct onnx_model m;
    Onnx__TensorProto p;
    uint32_t seed = 12345;
    uint8_t *bytes, random[256];
    size_t size, i, j;

    assert_false(onnx_model_parse("", 0, NULL, &m, error, sizeof(error)));
    assert_non_null(strstr(error, "no graph"));
    assert_false(onnx_model_parse(wrong_wire_type, sizeof(wrong_wire_type), NULL, &m, error, sizeof(error)));
    assert_non_null(strstr(error, "not an ONNX model"));
    assert_false(onnx_model_parse(overlong, sizeof(overlong), NULL, &m, error, sizeof(error)));
    assert_non_null(strstr(error, "not an ONNX model"));

    /* Every truncation of a model with an initializer: an error, or a shorter valid model. */
    test_tensor_init(&p, "w", ONNX_FLOAT, 1, dims_4);
    p.has_raw_data = 1;
    p.raw_data.len = sizeof(floats);
    p.raw_data.data = (uint8_t *)floats;
    test_model_relu(&t);
    test_model_add_initializer(&t, &p);
    bytes = test_model_pack(&t, &size);
    assert_non_null(bytes);
    for (i = 1; i < size; ++i)
        assert_rejected_or_valid(bytes, i);
    /* Each byte flipped. */
    for (i = 0; i < size; ++i)
    {
        bytes[i] ^= 0xff;
        assert_rejected_or_valid(bytes, size);
        bytes[i] ^= 0xff;
    }
    free(bytes);

    for (i = 0; i < 500; ++i)
    {
        for (j = 0; j < sizeof(random); ++j)
        {
            seed = seed * 1664525u + 1013904223u;
            random[j] = (uint8_t)(seed >> 24);
        }
        assert_rejected_or_valid(random, 1 + i % sizeof(random));
    }
}

static void test_no_graph(void **state)
{
    struct test_model t;

    test_model_relu(&t);
    t.model.graph = NULL;
    assert_parse_fails(&t, NULL, "no graph");
}

static void test_load_files(void **state)
{
    char folder[] = "/tmp/vkdml-onnx-test-XXXXXX", path[4096];
    struct test_model t;
    struct onnx_model m;
    uint8_t *bytes;
    size_t size;

    assert_non_null(mkdtemp(folder));
    snprintf(path, sizeof(path), "%s/missing.onnx", folder);
    assert_false(onnx_model_load(path, &m, error, sizeof(error)));
    assert_non_null(strstr(error, "cannot read"));

    assert_true(test_write_file(folder, "empty.onnx", "", 0));
    snprintf(path, sizeof(path), "%s/empty.onnx", folder);
    assert_false(onnx_model_load(path, &m, error, sizeof(error)));
    assert_non_null(strstr(error, "empty.onnx: the model has no graph"));
    unlink(path);

    test_model_relu(&t);
    bytes = test_model_pack(&t, &size);
    assert_true(test_write_file(folder, "relu.onnx", bytes, size));
    free(bytes);
    snprintf(path, sizeof(path), "%s/relu.onnx", folder);
    assert_true(onnx_model_load(path, &m, error, sizeof(error)));
    assert_int_equal(m.node_count, 1);
    onnx_model_free(&m);
    unlink(path);
    rmdir(folder);
}

/* ---- Tensor files ---- */

static void fill(struct run_tensor *t)
{
    int64_t i;

    for (i = 0; i < run_shape_elements(&t->shape); ++i)
    {
        if (t->type == ONNX_BOOL)
            run_tensor_set_int(t, i, i % 3 == 0);
        else if (t->type == ONNX_FLOAT || t->type == ONNX_DOUBLE || t->type == ONNX_FLOAT16)
            run_tensor_set_double(t, i, 0.5 * (double)i - 1.0);
        else
            run_tensor_set_int(t, i, (i * 37) % 100 + (t->type == ONNX_INT64 ? (1LL << 40) : 0));
    }
}

static void round_trip(const char *folder, const char *name, int type, const char *shape_text)
{
    struct run_tensor t, loaded;
    struct run_shape shape;
    char path[4096];

    assert_true(run_shape_parse(shape_text, &shape));
    assert_true(run_tensor_alloc(&t, type, &shape));
    fill(&t);
    snprintf(t.name, sizeof(t.name), "saved");
    snprintf(path, sizeof(path), "%s/%s", folder, name);
    if (!run_tensor_save(path, &t, error, sizeof(error)))
        fail_msg("%s: %s", name, error);
    if (!run_tensor_load(path, &loaded, error, sizeof(error)))
        fail_msg("%s: %s", name, error);
    assert_int_equal(loaded.type, type);
    assert_true(run_shape_equal(&loaded.shape, &t.shape));
    assert_memory_equal(loaded.data, t.data, run_tensor_bytes(&t));
    if (strstr(name, ".pb"))
        assert_string_equal(loaded.name, "saved");
    run_tensor_free(&t);
    run_tensor_free(&loaded);
    unlink(path);
}

static void test_tensor_round_trips(void **state)
{
    static const int types[] = {ONNX_FLOAT, ONNX_UINT8, ONNX_INT8, ONNX_UINT16, ONNX_INT16, ONNX_INT32,
            ONNX_INT64, ONNX_BOOL, ONNX_FLOAT16, ONNX_DOUBLE, ONNX_UINT32, ONNX_UINT64};
    static const char *const shapes[] = {"scalar", "5", "2x3", "1x2x1x3x1x2x1x2"};
    char folder[] = "/tmp/vkdml-onnx-test-XXXXXX", name[64];
    unsigned int i, j;

    assert_non_null(mkdtemp(folder));
    for (i = 0; i < sizeof(types) / sizeof(types[0]); ++i)
    {
        for (j = 0; j < sizeof(shapes) / sizeof(shapes[0]); ++j)
        {
            snprintf(name, sizeof(name), "%s_%u.pb", onnx_type_name(types[i]), j);
            round_trip(folder, name, types[i], shapes[j]);
            snprintf(name, sizeof(name), "%s_%u.npy", onnx_type_name(types[i]), j);
            round_trip(folder, name, types[i], shapes[j]);
        }
    }
    rmdir(folder);
}

static void assert_load_fails(const char *folder, const char *name, const void *data, size_t size,
        const char *message)
{
    struct run_tensor t;
    char path[4096];

    assert_true(test_write_file(folder, name, data, size));
    snprintf(path, sizeof(path), "%s/%s", folder, name);
    if (run_tensor_load(path, &t, error, sizeof(error)))
    {
        run_tensor_free(&t);
        fail_msg("%s loaded", name);
    }
    if (!strstr(error, message) || !strstr(error, name))
        fail_msg("error '%s' does not say '%s' of %s", error, message, name);
    unlink(path);
}

/* A version 1 .npy file with `header` and `data_size` bytes of data. */
static size_t npy_file(uint8_t *file, const char *header, size_t data_size)
{
    size_t length = strlen(header);

    memcpy(file, "\x93NUMPY\x01\x00", 8);
    file[8] = (uint8_t)length;
    file[9] = 0;
    memcpy(file + 10, header, length);
    memset(file + 10 + length, 0, data_size);
    return 10 + length + data_size;
}

static void test_tensor_bad_files(void **state)
{
    static const uint8_t garbage[] = {0xff, 0xff, 0xff, 0xff, 0xff};
    char folder[] = "/tmp/vkdml-onnx-test-XXXXXX", path[4096];
    struct run_tensor t;
    struct run_shape shape = {1, {2}};
    uint8_t file[256];

    assert_non_null(mkdtemp(folder));
    snprintf(path, sizeof(path), "%s/missing.pb", folder);
    assert_false(run_tensor_load(path, &t, error, sizeof(error)));
    assert_non_null(strstr(error, "cannot read"));
    assert_load_fails(folder, "garbage.pb", garbage, sizeof(garbage), "not a TensorProto");
    assert_load_fails(folder, "short.npy", "\x93NUM", 4, "not a NumPy file");
    assert_load_fails(folder, "text.npy", "just some text", 14, "not a NumPy file");
    assert_load_fails(folder, "data.npy", file,
            npy_file(file, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n", 20),
            "truncated: 20 data bytes for 24");
    assert_load_fails(folder, "fortran.npy", file,
            npy_file(file, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n", 24), "Fortran order");
    assert_load_fails(folder, "complex.npy", file,
            npy_file(file, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }\n", 16), "type <c8");
    assert_load_fails(folder, "header.npy", file, npy_file(file, "{'shape': (2,), }\n", 8), "not a NumPy header");
    assert_load_fails(folder, "colon.npy", file, npy_file(file, "{'descr': '<f4', 'fortran_order' 'shape' (2,)}\n", 8),
            "not a NumPy header");
    assert_load_fails(folder, "huge.npy", file,
            npy_file(file, "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 2), }\n", 8),
            "more than 2^40 elements");
    assert_load_fails(folder, "negative.npy", file,
            npy_file(file, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }\n", 8), "bad NumPy shape");
    /* The header's length past the end of the file. */
    memcpy(file, "\x93NUMPY\x01\x00\xff\x00{'descr'", 17);
    assert_load_fails(folder, "long.npy", file, 17, "truncated NumPy header");

    /* NumPy has no string type; a folder that does not exist cannot take a file. */
    assert_true(run_tensor_alloc(&t, ONNX_BFLOAT16, &shape));
    snprintf(path, sizeof(path), "%s/bf16.npy", folder);
    assert_false(run_tensor_save(path, &t, error, sizeof(error)));
    assert_non_null(strstr(error, "NumPy has no bfloat16 type"));
    snprintf(path, sizeof(path), "%s/no/such/folder.pb", folder);
    assert_false(run_tensor_save(path, &t, error, sizeof(error)));
    assert_non_null(strstr(error, "cannot create"));
    run_tensor_free(&t);
    rmdir(folder);
}

/* ---- The --check comparison ---- */

static void make_floats(struct run_tensor *t, int type, const double *values, unsigned int count)
{
    struct run_shape shape = {1, {count}};
    unsigned int i;

    assert_true(run_tensor_alloc(t, type, &shape));
    for (i = 0; i < count; ++i)
        run_tensor_set_double(t, i, values[i]);
}

static struct run_compare compare(const double *actual, const double *expected, unsigned int count, int type)
{
    struct run_tensor a, e;
    struct run_compare c;

    make_floats(&a, type, actual, count);
    make_floats(&e, type, expected, count);
    assert_true(run_tensor_compare(&a, &e, RUN_CHECK_RTOL, RUN_CHECK_ATOL, &c, error, sizeof(error)));
    run_tensor_free(&a);
    run_tensor_free(&e);
    return c;
}

static void test_compare(void **state)
{
    static const double expected[] = {1000.0, 0.0, -2.0, 1.0};
    static const double within[] = {1000.999, 5e-8, -2.0019, 1.0};       /* atol + rtol * |e| */
    static const double beyond[] = {1001.002, 2e-7, -2.0, 1.0};
    static const double nan_expected[] = {NAN, INFINITY, -INFINITY}, nan_same[] = {NAN, INFINITY, -INFINITY};
    static const double nan_wrong[] = {1.0, -INFINITY, NAN};
    static const double ints[] = {3, -4}, ints_off[] = {3, -5};
    struct run_tensor a, e;
    struct run_compare c;

    c = compare(within, expected, 4, ONNX_FLOAT);
    assert_int_equal(c.mismatches, 0);
    assert_int_equal(c.checked, 4);
    assert_int_equal(c.first_mismatch, -1);

    c = compare(beyond, expected, 4, ONNX_DOUBLE);
    assert_int_equal(c.mismatches, 2);
    assert_int_equal(c.first_mismatch, 0);
    assert_true(c.actual == 1001.002 && c.expected == 1000.0);
    assert_true(fabs(c.max_abs_error - 1.002) < 1e-9);

    c = compare(nan_same, nan_expected, 3, ONNX_FLOAT);
    assert_int_equal(c.mismatches, 0);
    c = compare(nan_wrong, nan_expected, 3, ONNX_FLOAT);
    assert_int_equal(c.mismatches, 3);

    /* Integers compare exactly. */
    c = compare(ints, ints, 2, ONNX_INT32);
    assert_int_equal(c.mismatches, 0);
    c = compare(ints_off, ints, 2, ONNX_INT64);
    assert_int_equal(c.mismatches, 1);
    assert_int_equal(c.first_mismatch, 1);

    /* Another type or shape is no comparison at all. */
    make_floats(&a, ONNX_FLOAT, expected, 4);
    make_floats(&e, ONNX_DOUBLE, expected, 4);
    assert_false(run_tensor_compare(&a, &e, RUN_CHECK_RTOL, RUN_CHECK_ATOL, &c, error, sizeof(error)));
    assert_string_equal(error, "got float 4, expected double 4");
    run_tensor_free(&e);
    make_floats(&e, ONNX_FLOAT, expected, 3);
    assert_false(run_tensor_compare(&a, &e, RUN_CHECK_RTOL, RUN_CHECK_ATOL, &c, error, sizeof(error)));
    assert_string_equal(error, "got float 4, expected float 3");
    run_tensor_free(&e);
    run_tensor_free(&a);
}

static void test_shape_text(void **state)
{
    struct run_shape shape;
    char text[64];

    assert_true(run_shape_parse("1x3x224x224", &shape));
    assert_int_equal(shape.rank, 4);
    assert_int_equal(run_shape_elements(&shape), 3 * 224 * 224);
    run_shape_format(&shape, text, sizeof(text));
    assert_string_equal(text, "1x3x224x224");
    assert_true(run_shape_parse("2,5", &shape));
    assert_int_equal(shape.dims[1], 5);
    assert_true(run_shape_parse("scalar", &shape));
    assert_int_equal(shape.rank, 0);
    run_shape_format(&shape, text, sizeof(text));
    assert_string_equal(text, "scalar");
    assert_false(run_shape_parse("", &shape));
    assert_false(run_shape_parse("2x", &shape));
    assert_false(run_shape_parse("2x-1", &shape));
    assert_false(run_shape_parse("2y3", &shape));
    assert_false(run_shape_parse("1x1x1x1x1x1x1x1x1", &shape));
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test(test_minimal_model),
        cmocka_unit_test(test_inputs_and_opsets),
        cmocka_unit_test(test_io_not_a_tensor),
        cmocka_unit_test(test_io_too_many_dimensions),
        cmocka_unit_test(test_attributes),
        cmocka_unit_test(test_attributes_unsupported),
        cmocka_unit_test(test_initializer_raw_data),
        cmocka_unit_test(test_initializer_typed_fields),
        cmocka_unit_test(test_initializer_errors),
        cmocka_unit_test(test_external_data),
        cmocka_unit_test(test_node_order),
        cmocka_unit_test(test_node_cycle),
        cmocka_unit_test(test_node_missing_input),
        cmocka_unit_test(test_node_without_op_type),
        cmocka_unit_test(test_bad_bytes),
        cmocka_unit_test(test_no_graph),
        cmocka_unit_test(test_load_files),
        cmocka_unit_test(test_tensor_round_trips),
        cmocka_unit_test(test_tensor_bad_files),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_shape_text),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
