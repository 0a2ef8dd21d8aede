/*
 * Test of dml_op_schema.[ch], the operator-desc, tensor-support and enum tables
 * generated at build time from tools/directml-schema.json.
 *
 * The tables are checked against abi_expected.h (enum values by feature-level
 * guard, desc sizes, field names and offsets: the fact-sheet data, not the
 * compiler's offsetof), against DirectML's lists of fused-activation hosts and
 * fusible operators (fused_hosts, fusible_ops below), and for internal
 * consistency: array length fields, binding roles, enum ids, and the tensor
 * support (data types, ranks, same-type groups) against the implemented
 * families' rules.
 */

#include "dml_op_schema.h"

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "abi_expected.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define OP_PREFIX "DML_OPERATOR_"

/* --- expected data from abi_expected.h -------------------------------------- */

struct enum_row {
    const char *name;
    long long value;
    uint32_t guard; /* DML_TARGET_VERSION guard of the list it is in */
};

#define ENUM_ROW_1000(name, value) { #name, value, 0x1000 },
#define ENUM_ROW_2000(name, value) { #name, value, 0x2000 },
#define ENUM_ROW_2100(name, value) { #name, value, 0x2100 },
#define ENUM_ROW_3000(name, value) { #name, value, 0x3000 },
#define ENUM_ROW_3100(name, value) { #name, value, 0x3100 },
#define ENUM_ROW_4000(name, value) { #name, value, 0x4000 },
#define ENUM_ROW_4100(name, value) { #name, value, 0x4100 },
#define ENUM_ROW_5000(name, value) { #name, value, 0x5000 },
#define ENUM_ROW_5100(name, value) { #name, value, 0x5100 },
#define ENUM_ROW_6100(name, value) { #name, value, 0x6100 },
#define ENUM_ROW_6200(name, value) { #name, value, 0x6200 },
#define ENUM_ROW_6300(name, value) { #name, value, 0x6300 },
#define ENUM_ROW_6400(name, value) { #name, value, 0x6400 },

static const struct enum_row enum_rows[] = {
    ABI_ENUM_VALUES_1000(ENUM_ROW_1000)
    ABI_ENUM_VALUES_2000(ENUM_ROW_2000)
    ABI_ENUM_VALUES_2100(ENUM_ROW_2100)
    ABI_ENUM_VALUES_3000(ENUM_ROW_3000)
    ABI_ENUM_VALUES_3100(ENUM_ROW_3100)
    ABI_ENUM_VALUES_4000(ENUM_ROW_4000)
    ABI_ENUM_VALUES_4100(ENUM_ROW_4100)
    ABI_ENUM_VALUES_5000(ENUM_ROW_5000)
    ABI_ENUM_VALUES_5100(ENUM_ROW_5100)
    ABI_ENUM_VALUES_6100(ENUM_ROW_6100)
    ABI_ENUM_VALUES_6200(ENUM_ROW_6200)
    ABI_ENUM_VALUES_6300(ENUM_ROW_6300)
    ABI_ENUM_VALUES_6400(ENUM_ROW_6400)
};

/* The one alias among the enumerators: named by its primary name. */
#define SCATTER_ALIAS "DML_OPERATOR_SCATTER"

struct size_row {
    const char *type;
    long long size;
};

#define SIZE_ROW(type, size) { #type, size },
static const struct size_row size_rows[] = { ABI_TYPE_SIZES(SIZE_ROW) };

struct offset_row {
    const char *type;
    const char *field;
    long long offset;
};

#define OFFSET_ROW(type, field, offset) { #type, #field, offset },
static const struct offset_row offset_rows[] = { ABI_FIELD_OFFSETS(OFFSET_ROW) };

static const struct size_row *find_size(const char *type)
{
    for (size_t i = 0; i < ARRAY_SIZE(size_rows); i++)
        if (!strcmp(size_rows[i].type, type))
            return &size_rows[i];
    return NULL;
}

static const struct enum_row *find_enum_row(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(enum_rows); i++)
        if (!strcmp(enum_rows[i].name, name))
            return &enum_rows[i];
    return NULL;
}

/* --- fact sheet 8.2 ---------------------------------------------------------- */

static const char *const fused_hosts[] = {
    "CONVOLUTION", "GEMM", "BATCH_NORMALIZATION", "MEAN_VARIANCE_NORMALIZATION",
    "ELEMENT_WISE_ADD1", "MEAN_VARIANCE_NORMALIZATION1", "BATCH_NORMALIZATION_TRAINING",
    "MEAN_VARIANCE_NORMALIZATION2",
};

static const char *const fusible_ops[] = {
    "ACTIVATION_LINEAR", "ACTIVATION_SIGMOID", "ACTIVATION_HARD_SIGMOID", "ACTIVATION_TANH",
    "ACTIVATION_SCALED_TANH", "ACTIVATION_RELU", "ACTIVATION_LEAKY_RELU",
    "ACTIVATION_THRESHOLDED_RELU", "ACTIVATION_ELU", "ACTIVATION_CELU", "ACTIVATION_SCALED_ELU",
    "ACTIVATION_SOFTPLUS", "ACTIVATION_PARAMETRIC_SOFTPLUS", "ACTIVATION_SOFTSIGN",
    "ACTIVATION_IDENTITY", "ACTIVATION_SHRINK", "ACTIVATION_GELU", "ELEMENT_WISE_CLIP",
};

static int in_list(const char *const *list, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (!strcmp(list[i], name))
            return 1;
    return 0;
}

/* --- helpers ------------------------------------------------------------------ */

static const struct vkdml_op_schema *get(DML_OPERATOR_TYPE type)
{
    const struct vkdml_op_schema *op = vkdml_op_schema_get(type);
    assert_non_null(op);
    assert_int_equal(op->type, type);
    return op;
}

static int field_index(const struct vkdml_op_schema *op, const char *name)
{
    for (int i = 0; i < op->field_count; i++)
        if (!strcmp(op->fields[i].name, name))
            return i;
    fail_msg("%s has no field %s", op->name, name);
    return -1;
}

static const struct vkdml_field_schema *field(const struct vkdml_op_schema *op, const char *name)
{
    return &op->fields[field_index(op, name)];
}

static unsigned int count_role(const struct vkdml_op_schema *op, enum vkdml_field_role role)
{
    unsigned int n = 0;
    for (unsigned int i = 0; i < op->field_count; i++)
        n += op->fields[i].role == role;
    return n;
}

static int is_array_kind(unsigned int kind)
{
    return kind == VKDML_FIELD_TENSOR_ARRAY || kind == VKDML_FIELD_OPERATOR_DESC_ARRAY ||
           kind == VKDML_FIELD_UINT_ARRAY || kind == VKDML_FIELD_INT_ARRAY ||
           kind == VKDML_FIELD_FLOAT_ARRAY;
}

static int is_pointer_kind(unsigned int kind)
{
    return is_array_kind(kind) || kind == VKDML_FIELD_TENSOR ||
           kind == VKDML_FIELD_OPERATOR_DESC || kind == VKDML_FIELD_SCALE_BIAS;
}

/* --- tests ---------------------------------------------------------------------- */

/* Every DML_OPERATOR_* enumerator of abi_expected.h: name, value and feature
 * level (the guard of the list it is in); desc size, field names and offsets
 * from the expected size and offset lists. */
static void test_ops_match_facts(void **state)
{
    (void)state;
    unsigned char seen[VKDML_OPERATOR_TYPE_COUNT] = {0};
    assert_int_equal(VKDML_OPERATOR_TYPE_COUNT, 178);

    for (size_t i = 0; i < ARRAY_SIZE(enum_rows); i++) {
        const struct enum_row *row = &enum_rows[i];
        if (strncmp(row->name, OP_PREFIX, strlen(OP_PREFIX)))
            continue;
        if (!strcmp(row->name, "DML_OPERATOR_INVALID")) {
            assert_int_equal(row->value, 0);
            assert_null(vkdml_op_schema_get(DML_OPERATOR_INVALID));
            continue;
        }
        assert_in_range(row->value, 1, VKDML_OPERATOR_TYPE_COUNT - 1);
        const struct vkdml_op_schema *op = get((DML_OPERATOR_TYPE)row->value);
        if (!strcmp(row->name, SCATTER_ALIAS)) {
            assert_string_equal(op->name, "SCATTER_ELEMENTS");
            continue;
        }
        assert_int_equal(seen[row->value], 0);
        seen[row->value] = 1;
        assert_string_equal(op->name, row->name + strlen(OP_PREFIX));
        assert_int_equal(op->feature_level, row->guard);

        const struct size_row *size = find_size(op->desc_name);
        if (!size)
            fail_msg("%s: desc %s has no expected size", op->name, op->desc_name);
        assert_int_equal(op->desc_size, size->size);

        unsigned int n = 0;
        for (size_t j = 0; j < ARRAY_SIZE(offset_rows); j++) {
            if (strcmp(offset_rows[j].type, op->desc_name))
                continue;
            assert_true(n < op->field_count);
            assert_string_equal(op->fields[n].name, offset_rows[j].field);
            assert_int_equal(op->fields[n].offset, offset_rows[j].offset);
            n++;
        }
        assert_int_equal(n, op->field_count);
    }
    for (unsigned int t = 1; t < VKDML_OPERATOR_TYPE_COUNT; t++)
        if (!seen[t])
            fail_msg("DML_OPERATOR_TYPE %u is not in abi_expected.h", t);

    /* The desc names follow DirectML's pattern, SCATTER_ELEMENTS' aside. */
    assert_string_equal(get(DML_OPERATOR_ELEMENT_WISE_ADD)->desc_name,
                        "DML_ELEMENT_WISE_ADD_OPERATOR_DESC");
    assert_string_equal(get(DML_OPERATOR_SCATTER_ELEMENTS)->desc_name, "DML_SCATTER_OPERATOR_DESC");
    assert_int_equal(get(DML_OPERATOR_UNFOLD)->feature_level, DML_FEATURE_LEVEL_6_4);
}

/* Invariants of every field of every desc. */
static void test_field_invariants(void **state)
{
    (void)state;
    for (unsigned int t = 1; t < VKDML_OPERATOR_TYPE_COUNT; t++) {
        const struct vkdml_op_schema *op = get((DML_OPERATOR_TYPE)t);
        assert_non_null(op->fields);
        assert_true(op->field_count > 0);
        assert_true(count_role(op, VKDML_ROLE_OUTPUT) > 0);
        for (int i = 0; i < op->field_count; i++) {
            const struct vkdml_field_schema *f = &op->fields[i];
            assert_true(f->kind <= VKDML_FIELD_SCALAR_UNION);
            assert_true(f->role <= VKDML_ROLE_OUTPUT);
            assert_true(f->optional <= 1);
            assert_true(f->offset < op->desc_size);
            if (i > 0)
                assert_true(f->offset > op->fields[i - 1].offset);
            for (int j = 0; j < i; j++)
                assert_string_not_equal(f->name, op->fields[j].name);

            /* Tensors and only tensors are bound. */
            int tensor = f->kind == VKDML_FIELD_TENSOR || f->kind == VKDML_FIELD_TENSOR_ARRAY;
            if (tensor != (f->role != VKDML_ROLE_ATTRIBUTE))
                fail_msg("%s.%s: kind %u with role %u", op->name, f->name, f->kind, f->role);

            /* Arrays take their length from an earlier UINT attribute. */
            if (is_array_kind(f->kind)) {
                if (f->count_field < 0 || f->count_field >= i)
                    fail_msg("%s.%s: count_field %d", op->name, f->name, f->count_field);
                const struct vkdml_field_schema *count = &op->fields[f->count_field];
                assert_int_equal(count->kind, VKDML_FIELD_UINT);
                assert_int_equal(count->role, VKDML_ROLE_ATTRIBUTE);
            } else {
                assert_int_equal(f->count_field, -1);
            }

            if (f->kind == VKDML_FIELD_ENUM) {
                assert_true(f->enum_id > VKDML_ENUM_NONE && f->enum_id < VKDML_ENUM_COUNT);
                assert_non_null(vkdml_enum_name((enum vkdml_enum_id)f->enum_id));
            } else {
                assert_int_equal(f->enum_id, VKDML_ENUM_NONE);
            }

            if (f->optional && !is_pointer_kind(f->kind))
                fail_msg("%s.%s: optional, but not a pointer", op->name, f->name);
        }
    }
}

static void expect_io(DML_OPERATOR_TYPE type, unsigned int inputs, unsigned int outputs)
{
    const struct vkdml_op_schema *op = get(type);
    assert_int_equal(count_role(op, VKDML_ROLE_INPUT), inputs);
    assert_int_equal(count_role(op, VKDML_ROLE_OUTPUT), outputs);
}

static void expect_array(DML_OPERATOR_TYPE type, const char *name, enum vkdml_field_kind kind,
                         const char *count_name)
{
    const struct vkdml_op_schema *op = get(type);
    const struct vkdml_field_schema *f = field(op, name);
    assert_int_equal(f->kind, kind);
    assert_int_equal(f->count_field, field_index(op, count_name));
}

static void expect_enum(DML_OPERATOR_TYPE type, const char *name, enum vkdml_enum_id id)
{
    const struct vkdml_field_schema *f = field(get(type), name);
    assert_int_equal(f->kind, VKDML_FIELD_ENUM);
    assert_int_equal(f->enum_id, id);
}

static void expect_kind(DML_OPERATOR_TYPE type, const char *name, enum vkdml_field_kind kind)
{
    assert_int_equal(field(get(type), name)->kind, kind);
}

/* A few operators whose shape is well known. */
static void test_known_ops(void **state)
{
    (void)state;
    const struct vkdml_op_schema *gemm = get(DML_OPERATOR_GEMM);
    expect_io(DML_OPERATOR_GEMM, 3, 1);
    assert_int_equal(field(gemm, "ATensor")->role, VKDML_ROLE_INPUT);
    assert_int_equal(field(gemm, "ATensor")->optional, 0);
    assert_int_equal(field(gemm, "CTensor")->role, VKDML_ROLE_INPUT);
    assert_int_equal(field(gemm, "CTensor")->optional, 1);
    assert_int_equal(field(gemm, "OutputTensor")->role, VKDML_ROLE_OUTPUT);
    expect_enum(DML_OPERATOR_GEMM, "TransA", VKDML_ENUM_DML_MATRIX_TRANSFORM);
    expect_kind(DML_OPERATOR_GEMM, "Alpha", VKDML_FIELD_FLOAT);

    expect_io(DML_OPERATOR_JOIN, 1, 1);
    assert_int_equal(field(get(DML_OPERATOR_JOIN), "InputTensors")->role, VKDML_ROLE_INPUT);
    expect_array(DML_OPERATOR_JOIN, "InputTensors", VKDML_FIELD_TENSOR_ARRAY, "InputCount");
    expect_io(DML_OPERATOR_SPLIT, 1, 1);
    assert_int_equal(field(get(DML_OPERATOR_SPLIT), "OutputTensors")->role, VKDML_ROLE_OUTPUT);
    expect_array(DML_OPERATOR_SPLIT, "OutputTensors", VKDML_FIELD_TENSOR_ARRAY, "OutputCount");
    expect_array(DML_OPERATOR_QUANTIZE, "QuantizationTensors", VKDML_FIELD_TENSOR_ARRAY,
                 "QuantizationTensorCount");
    expect_array(DML_OPERATOR_DEQUANTIZE, "QuantizationTensors", VKDML_FIELD_TENSOR_ARRAY,
                 "QuantizationTensorCount");

    expect_io(DML_OPERATOR_LSTM, 8, 3);
    expect_array(DML_OPERATOR_LSTM, "ActivationDescs", VKDML_FIELD_OPERATOR_DESC_ARRAY,
                 "ActivationDescCount");
    expect_kind(DML_OPERATOR_LSTM, "ClipThreshold", VKDML_FIELD_FLOAT);
    expect_kind(DML_OPERATOR_LSTM, "UseClipThreshold", VKDML_FIELD_BOOL);
    expect_enum(DML_OPERATOR_LSTM, "Direction", VKDML_ENUM_DML_RECURRENT_NETWORK_DIRECTION);
    expect_io(DML_OPERATOR_RNN, 6, 2);
    expect_io(DML_OPERATOR_GRU, 6, 2);
    expect_io(DML_OPERATOR_MULTIHEAD_ATTENTION1, 12, 3);
    expect_io(DML_OPERATOR_ELEMENT_WISE_ADD, 2, 1);

    expect_array(DML_OPERATOR_CONVOLUTION, "Strides", VKDML_FIELD_UINT_ARRAY, "DimensionCount");
    expect_array(DML_OPERATOR_SLICE1, "InputWindowStrides", VKDML_FIELD_INT_ARRAY,
                 "DimensionCount");
    expect_array(DML_OPERATOR_RESAMPLE, "Scales", VKDML_FIELD_FLOAT_ARRAY, "ScaleCount");
    expect_enum(DML_OPERATOR_PADDING, "PaddingMode", VKDML_ENUM_DML_PADDING_MODE);
    expect_enum(DML_OPERATOR_FILL_VALUE_CONSTANT, "ValueDataType",
                VKDML_ENUM_DML_TENSOR_DATA_TYPE);
    expect_kind(DML_OPERATOR_FILL_VALUE_CONSTANT, "Value", VKDML_FIELD_SCALAR_UNION);
    expect_kind(DML_OPERATOR_ROI_POOLING, "PooledSize", VKDML_FIELD_SIZE_2D);
    expect_kind(DML_OPERATOR_DIAGONAL_MATRIX, "Offset", VKDML_FIELD_INT);
    expect_kind(DML_OPERATOR_ELEMENT_WISE_IDENTITY, "ScaleBias", VKDML_FIELD_SCALE_BIAS);
    assert_int_equal(field(get(DML_OPERATOR_ELEMENT_WISE_IDENTITY), "ScaleBias")->optional, 1);
}

#define TYPE_BIT(t) (1u << DML_TENSOR_DATA_TYPE_##t)

static void check_groups(const struct vkdml_op_schema *op, const struct vkdml_tensor_group *groups, unsigned int count)
{
    unsigned int g, i, j;

    assert_true(count == 0 || groups != NULL);
    for (g = 0; g < count; ++g)
    {
        assert_in_range(groups[g].count, 2, ARRAY_SIZE(groups[g].fields));
        for (i = 0; i < groups[g].count; ++i)
        {
            assert_in_range(groups[g].fields[i], 0, op->field_count - 1);
            assert_int_not_equal(op->fields[groups[g].fields[i]].role, VKDML_ROLE_ATTRIBUTE);
            for (j = 0; j < i; ++j)
                assert_int_not_equal(groups[g].fields[i], groups[g].fields[j]);
        }
    }
}

/* Tensor support: every tensor field has a rank range within 1..8 and known data types, attributes
 * have none; groups name distinct tensor fields; operators without tensor_support have nothing. */
static void test_tensor_support_invariants(void **state)
{
    const uint32_t known = (TYPE_BIT(INT4) << 1) - 1 - TYPE_BIT(UNKNOWN);
    unsigned int t, i, recorded = 0;

    (void)state;
    for (t = 1; t < VKDML_OPERATOR_TYPE_COUNT; ++t)
    {
        const struct vkdml_op_schema *op = get((DML_OPERATOR_TYPE)t);

        recorded += op->tensor_support;
        for (i = 0; i < op->field_count; ++i)
        {
            const struct vkdml_field_schema *f = &op->fields[i];

            if (f->role == VKDML_ROLE_ATTRIBUTE)
            {
                assert_int_equal(f->data_types, 0);
                assert_int_equal(f->min_rank, 0);
                assert_int_equal(f->max_rank, 0);
                continue;
            }
            assert_int_equal(f->data_types & ~known, 0);
            assert_true(1 <= f->min_rank && f->min_rank <= f->max_rank && f->max_rank <= 8);
            if (!op->tensor_support)
            {
                assert_int_equal(f->data_types, 0);
                assert_int_equal(f->min_rank, 1);
                assert_int_equal(f->max_rank, 8);
            }
        }
        if (!op->tensor_support)
        {
            assert_int_equal(op->same_type_count + op->same_rank_count, 0);
            continue;
        }
        check_groups(op, op->same_type, op->same_type_count);
        check_groups(op, op->same_rank, op->same_rank_count);
    }
    assert_true(recorded >= 84);
}

/* The implemented families' rules (README's "Operator support"). */
static void test_tensor_support_known(void **state)
{
    const uint32_t f32_f16 = TYPE_BIT(FLOAT32) | TYPE_BIT(FLOAT16);
    const struct vkdml_op_schema *gemm = get(DML_OPERATOR_GEMM), *conv = get(DML_OPERATOR_CONVOLUTION);
    const struct vkdml_op_schema *if_op = get(DML_OPERATOR_ELEMENT_WISE_IF);

    (void)state;
    assert_int_equal(gemm->tensor_support, 1);
    assert_int_equal(field(gemm, "ATensor")->data_types, f32_f16);
    assert_int_equal(field(gemm, "CTensor")->data_types, f32_f16);
    assert_int_equal(field(gemm, "ATensor")->min_rank, 2);
    assert_int_equal(field(gemm, "OutputTensor")->max_rank, 4);
    assert_int_equal(gemm->same_type_count, 1);
    assert_int_equal(gemm->same_type[0].count, 4);
    assert_string_equal(gemm->fields[gemm->same_type[0].fields[0]].name, "ATensor");
    assert_int_equal(gemm->same_rank_count, 1);

    assert_int_equal(field(conv, "FilterTensor")->data_types, f32_f16);
    assert_int_equal(field(conv, "BiasTensor")->min_rank, 3);
    assert_int_equal(field(conv, "InputTensor")->max_rank, 5);
    assert_string_equal(conv->fields[conv->same_type[0].fields[0]].name, "InputTensor");

    assert_int_equal(field(if_op, "ConditionTensor")->data_types, TYPE_BIT(UINT8));
    assert_int_equal(field(if_op, "ATensor")->data_types, (TYPE_BIT(INT64) << 1) - 1 - TYPE_BIT(UNKNOWN));
    assert_string_equal(if_op->fields[if_op->same_type[0].fields[0]].name, "OutputTensor");
    assert_int_equal(field(get(DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS), "OutputTensor")->data_types,
            TYPE_BIT(UINT32) | TYPE_BIT(UINT8));
    assert_int_equal(field(get(DML_OPERATOR_ELEMENT_WISE_IS_INFINITY), "OutputTensor")->data_types, TYPE_BIT(UINT8));
    assert_int_equal(field(get(DML_OPERATOR_ACTIVATION_RELU), "InputTensor")->data_types,
            f32_f16 | TYPE_BIT(INT32) | TYPE_BIT(INT16) | TYPE_BIT(INT8));
    /* DirectML's FOLD page lists no data types. */
    assert_int_equal(get(DML_OPERATOR_FOLD)->tensor_support, 1);
    assert_int_equal(field(get(DML_OPERATOR_FOLD), "InputTensor")->data_types, 0);
}

/* Fused activations: hosts and fusible operators are exactly DirectML's. */
static void test_fusion(void **state)
{
    (void)state;
    unsigned int hosts = 0, fusible = 0;
    for (unsigned int t = 1; t < VKDML_OPERATOR_TYPE_COUNT; t++) {
        const struct vkdml_op_schema *op = get((DML_OPERATOR_TYPE)t);
        int host = in_list(fused_hosts, ARRAY_SIZE(fused_hosts), op->name);
        if (op->fused_activation_host != host)
            fail_msg("%s: fused_activation_host %u", op->name, op->fused_activation_host);
        if (op->fusible != in_list(fusible_ops, ARRAY_SIZE(fusible_ops), op->name))
            fail_msg("%s: fusible %u", op->name, op->fusible);
        int has_field = 0;
        for (unsigned int i = 0; i < op->field_count; i++)
            has_field |= !strcmp(op->fields[i].name, "FusedActivation");
        assert_int_equal(has_field, host);
        if (host) {
            const struct vkdml_field_schema *f = field(op, "FusedActivation");
            assert_int_equal(f->kind, VKDML_FIELD_OPERATOR_DESC);
            assert_int_equal(f->role, VKDML_ROLE_ATTRIBUTE);
            assert_int_equal(f->optional, 1);
        }
        if (op->fusible) {
            /* A fused activation's tensors are NULL: it has InputTensor and
             * OutputTensor, and no other tensor. */
            assert_int_equal(field(op, "InputTensor")->role, VKDML_ROLE_INPUT);
            assert_int_equal(field(op, "OutputTensor")->role, VKDML_ROLE_OUTPUT);
            assert_int_equal(count_role(op, VKDML_ROLE_INPUT), 1);
            assert_int_equal(count_role(op, VKDML_ROLE_OUTPUT), 1);
        }
        hosts += op->fused_activation_host;
        fusible += op->fusible;
    }
    assert_int_equal(hosts, ARRAY_SIZE(fused_hosts));
    assert_int_equal(fusible, ARRAY_SIZE(fusible_ops));
}

/* Every enumerator of abi_expected.h is named by some enum's table, and every
 * name the tables give is an expected enumerator with that value. */
static void test_enum_names(void **state)
{
    (void)state;
    size_t expected = 0;
    for (size_t i = 0; i < ARRAY_SIZE(enum_rows); i++) {
        const struct enum_row *row = &enum_rows[i];
        if (!strcmp(row->name, SCATTER_ALIAS))
            continue;
        expected++;
        int found = 0;
        for (int id = VKDML_ENUM_NONE + 1; id < VKDML_ENUM_COUNT; id++) {
            const char *name = vkdml_enum_value_name((enum vkdml_enum_id)id, (int)row->value);
            found += name && !strcmp(name, row->name);
        }
        if (found != 1)
            fail_msg("%s = %lld is named by %d enums", row->name, row->value, found);
    }

    /* Every value in the tables lies in [0, 0x6400]; look further to be sure. */
    static const int probes[] = { INT_MIN, -2, -1, 0x6401, 0x10000, INT_MAX };
    size_t named = 0;
    for (int id = VKDML_ENUM_NONE + 1; id < VKDML_ENUM_COUNT; id++) {
        const char *enum_name = vkdml_enum_name((enum vkdml_enum_id)id);
        assert_non_null(enum_name);
        const struct size_row *size = find_size(enum_name);
        if (!size)
            fail_msg("%s is not an expected type", enum_name);
        assert_int_equal(size->size, 4);
        for (int other = VKDML_ENUM_NONE + 1; other < id; other++)
            assert_string_not_equal(enum_name, vkdml_enum_name((enum vkdml_enum_id)other));

        for (int value = 0; value <= 0x6400; value++) {
            const char *name = vkdml_enum_value_name((enum vkdml_enum_id)id, value);
            if (!name)
                continue;
            named++;
            const struct enum_row *row = find_enum_row(name);
            if (!row || row->value != value)
                fail_msg("%s: %d is named %s", enum_name, value, name);
        }
        for (size_t p = 0; p < ARRAY_SIZE(probes); p++)
            assert_null(vkdml_enum_value_name((enum vkdml_enum_id)id, probes[p]));
    }
    assert_int_equal(named, expected);

    assert_string_equal(vkdml_enum_name(VKDML_ENUM_DML_PADDING_MODE), "DML_PADDING_MODE");
    assert_string_equal(vkdml_enum_value_name(VKDML_ENUM_DML_PADDING_MODE, DML_PADDING_MODE_REFLECTION),
                        "DML_PADDING_MODE_REFLECTION");
    assert_string_equal(vkdml_enum_value_name(VKDML_ENUM_DML_OPERATOR_TYPE, DML_OPERATOR_SCATTER),
                        "DML_OPERATOR_SCATTER_ELEMENTS");
    assert_string_equal(vkdml_enum_value_name(VKDML_ENUM_DML_FEATURE_LEVEL, DML_FEATURE_LEVEL_5_2),
                        "DML_FEATURE_LEVEL_5_2");
    assert_string_equal(vkdml_enum_value_name(VKDML_ENUM_DML_EXECUTION_FLAGS,
                                              DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE),
                        "DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE");
    assert_string_equal(vkdml_enum_value_name(VKDML_ENUM_DML_TENSOR_FLAGS, DML_TENSOR_FLAG_NONE),
                        "DML_TENSOR_FLAG_NONE");
}

static void test_data_type_names(void **state)
{
    (void)state;
    static const char prefix[] = "DML_TENSOR_DATA_TYPE_";
    unsigned int named = 0;
    for (size_t i = 0; i < ARRAY_SIZE(enum_rows); i++) {
        const struct enum_row *row = &enum_rows[i];
        if (strncmp(row->name, prefix, strlen(prefix)) || row->value == DML_TENSOR_DATA_TYPE_UNKNOWN)
            continue;
        const char *name = vkdml_data_type_name((uint32_t)row->value);
        assert_non_null(name);
        assert_string_equal(name, row->name + strlen(prefix));
        named++;
    }
    assert_int_equal(named, 13);
    assert_string_equal(vkdml_data_type_name(DML_TENSOR_DATA_TYPE_FLOAT32), "FLOAT32");
    assert_string_equal(vkdml_data_type_name(DML_TENSOR_DATA_TYPE_INT4), "INT4");
    assert_null(vkdml_data_type_name(DML_TENSOR_DATA_TYPE_UNKNOWN));
    assert_null(vkdml_data_type_name(DML_TENSOR_DATA_TYPE_INT4 + 1));
    assert_null(vkdml_data_type_name(0x80000000u));
    assert_null(vkdml_data_type_name(UINT32_MAX));
}

static void test_invalid(void **state)
{
    (void)state;
    assert_null(vkdml_op_schema_get(DML_OPERATOR_INVALID));
    assert_null(vkdml_op_schema_get((DML_OPERATOR_TYPE)VKDML_OPERATOR_TYPE_COUNT));
    assert_null(vkdml_op_schema_get((DML_OPERATOR_TYPE)1000));
    assert_null(vkdml_op_schema_get((DML_OPERATOR_TYPE)-1));
    assert_non_null(vkdml_op_schema_get((DML_OPERATOR_TYPE)(VKDML_OPERATOR_TYPE_COUNT - 1)));

    assert_null(vkdml_enum_name(VKDML_ENUM_NONE));
    assert_null(vkdml_enum_name(VKDML_ENUM_COUNT));
    assert_null(vkdml_enum_name((enum vkdml_enum_id)-1));
    assert_null(vkdml_enum_value_name(VKDML_ENUM_NONE, 0));
    assert_null(vkdml_enum_value_name(VKDML_ENUM_COUNT, 0));
    assert_null(vkdml_enum_value_name((enum vkdml_enum_id)-1, 0));
    assert_null(vkdml_enum_value_name(VKDML_ENUM_DML_PADDING_MODE, 99));
    assert_null(vkdml_enum_value_name(VKDML_ENUM_DML_PADDING_MODE, -1));
    assert_null(vkdml_enum_value_name(VKDML_ENUM_DML_OPERATOR_TYPE, VKDML_OPERATOR_TYPE_COUNT));
    assert_null(vkdml_enum_value_name(VKDML_ENUM_DML_FEATURE_LEVEL, 0));
    assert_null(vkdml_enum_value_name(VKDML_ENUM_DML_FEATURE_LEVEL, 0x6500));
    /* Flag enums name single values, not combinations. */
    assert_null(vkdml_enum_value_name(VKDML_ENUM_DML_EXECUTION_FLAGS, 3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_match_facts),
        cmocka_unit_test(test_field_invariants),
        cmocka_unit_test(test_known_ops),
        cmocka_unit_test(test_tensor_support_invariants),
        cmocka_unit_test(test_tensor_support_known),
        cmocka_unit_test(test_fusion),
        cmocka_unit_test(test_enum_names),
        cmocka_unit_test(test_data_type_names),
        cmocka_unit_test(test_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
