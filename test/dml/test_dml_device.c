/*
 * IDMLDevice and the object rules of DirectML, black-box: DMLCreateDevice(1) (foreign D3D12
 * devices, feature levels, the debug flag), CheckFeatureSupport, QueryInterface and COM identity,
 * GetParentDevice/GetDevice, IDMLObject private data and names, Evict/MakeResident, reference
 * counts, E_NOTIMPL for unimplemented operators, CompileGraph of one node, the generic data-type
 * and rank checks of DirectML's tensor support, the bad-input table of
 * HRESULT methods, and device removal after a void method's misuse.
 * Every test ends with the DML device and the D3D12 device released to zero.
 */
#include "dml/dml_rules_utils.h"

#include <wchar.h>

static const DML_FEATURE_LEVEL all_feature_levels[] =
{
    DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
    DML_FEATURE_LEVEL_3_1, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0,
    DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_5_2, DML_FEATURE_LEVEL_6_0, DML_FEATURE_LEVEL_6_1,
    DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_3, DML_FEATURE_LEVEL_6_4,
};

static bool same_object(void *a, void *b)
{
    IUnknown *ua = NULL, *ub = NULL;
    bool same;

    check_hr(IUnknown_QueryInterface((IUnknown *)a, &IID_IUnknown, (void **)&ua), S_OK);
    check_hr(IUnknown_QueryInterface((IUnknown *)b, &IID_IUnknown, (void **)&ub), S_OK);
    same = ua == ub;
    IUnknown_Release(ua);
    IUnknown_Release(ub);
    return same;
}

/* QueryInterface(iid) on `object` gives E_NOINTERFACE and a NULL pointer. */
#define check_no_interface(object, iid) do { \
        void *out_ = (void *)(uintptr_t)0xdeadbeef; \
        check_hr(IUnknown_QueryInterface((IUnknown *)(object), (iid), &out_), E_NOINTERFACE); \
        assert_null(out_); \
    } while (0)

/* QueryInterface(iid) on `object` succeeds, with the same COM identity. */
#define check_interface(object, iid) do { \
        void *out_ = NULL; \
        check_hr(IUnknown_QueryInterface((IUnknown *)(object), (iid), &out_), S_OK); \
        assert_non_null(out_); \
        assert_true(same_object(out_, (object))); \
        IUnknown_Release((IUnknown *)out_); \
    } while (0)

static HRESULT query_levels(IDMLDevice *device, const DML_FEATURE_LEVEL *levels, UINT count, DML_FEATURE_LEVEL *max)
{
    DML_FEATURE_QUERY_FEATURE_LEVELS query;
    DML_FEATURE_DATA_FEATURE_LEVELS data;
    HRESULT hr;

    query.RequestedFeatureLevelCount = count;
    query.RequestedFeatureLevels = levels;
    data.MaxSupportedFeatureLevel = (DML_FEATURE_LEVEL)0xdead;
    hr = IDMLDevice_CheckFeatureSupport(device, DML_FEATURE_FEATURE_LEVELS, sizeof(query), &query,
            sizeof(data), &data);
    *max = data.MaxSupportedFeatureLevel;
    return hr;
}

static DML_FEATURE_LEVEL max_feature_level(IDMLDevice *device)
{
    DML_FEATURE_LEVEL max;

    check_hr(query_levels(device, all_feature_levels, ARRAY_SIZE(all_feature_levels), &max), S_OK);
    assert_true(max >= DML_FEATURE_LEVEL_1_0 && max <= DML_FEATURE_LEVEL_6_4);
    return max;
}

/* ---- DMLCreateDevice ---- */

static void test_create_device(void **state)
{
    struct dml_context *context = *state;
    ID3D12Device *d3d = context->d3d.device;
    IDMLDevice *device = NULL, *device2 = NULL;
    IDMLDevice1 *device1 = NULL;
    ULONG d3d_refs = refcount_of(d3d), d3d_refs_two;
    void *out;

    /* The DML device holds (at least) a strong reference to its D3D12 device; it is not a
     * singleton. How many references it holds is its own business: only "more while alive,
     * the same again after the last Release" is checked. */
    check_hr(DMLCreateDevice(d3d, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, (void **)&device), S_OK);
    assert_non_null(device);
    assert_true(refcount_of(d3d) > d3d_refs);
    check_hr(DMLCreateDevice(d3d, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice1, (void **)&device1), S_OK);
    assert_non_null(device1);
    assert_ptr_not_equal((void *)device1, (void *)device);
    assert_false(same_object(device, device1));
    d3d_refs_two = refcount_of(d3d);
    assert_int_equal(refcount_of(device), 1);

    /* Interfaces of a device: IUnknown, IDMLObject, IDMLDevice, IDMLDevice1; nothing else. */
    check_interface(device, &IID_IUnknown);
    check_interface(device, &IID_IDMLObject);
    check_interface(device, &IID_IDMLDevice);
    check_interface(device, &IID_IDMLDevice1);
    check_no_interface(device, &IID_IDMLDeviceChild);
    check_no_interface(device, &IID_IDMLOperator);
    check_no_interface(device, &IID_IDMLDebugDevice);     /* created without DML_CREATE_DEVICE_FLAG_DEBUG */
    check_no_interface(device, &IID_ID3D12Device);
    assert_int_equal(refcount_of(device), 1);

    /* Asking DMLCreateDevice for an interface a DML device lacks. */
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(DMLCreateDevice(d3d, DML_CREATE_DEVICE_FLAG_NONE, &IID_ID3D12Device, &out), E_NOINTERFACE);
    assert_null(out);
    assert_int_equal(refcount_of(d3d), d3d_refs_two);
    vkdml_test_log_reset();     /* a failed QueryInterface hand-off may or may not log */

    /* No D3D12 device. */
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(DMLCreateDevice(NULL, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, &out), E_INVALIDARG);
    assert_null(out);
    dml_check_errors_logged();

    /* Unknown flag bits. */
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(DMLCreateDevice(d3d, (DML_CREATE_DEVICE_FLAGS)0x80, &IID_IDMLDevice, &out), E_INVALIDARG);
    assert_null(out);
    dml_check_errors_logged();
    assert_int_equal(refcount_of(d3d), d3d_refs_two);

    /* DMLCreateDevice1 at FL 1_0 is DMLCreateDevice. */
    check_hr(DMLCreateDevice1(d3d, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_1_0, &IID_IDMLDevice,
            (void **)&device2), S_OK);
    assert_true(refcount_of(d3d) > d3d_refs_two);

    release_last(device2);
    release_last(device1);
    release_last(device);
    assert_int_equal(refcount_of(d3d), d3d_refs);
    assert_no_log_errors();
}

/* A D3D12 device of another implementation (Microsoft's, vkd3d's...): refused, nothing kept. */
static void test_create_device_foreign(void **state)
{
    struct fake_com_object fake;
    void *out;

    (void)state;
    fake_com_object_init(&fake, &IID_ID3D12Device);
    fake_com_other_calls = 0;

    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(DMLCreateDevice((ID3D12Device *)&fake, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, &out),
            E_INVALIDARG);
    assert_null(out);
    dml_check_errors_logged();
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(DMLCreateDevice1((ID3D12Device *)&fake, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_1_0,
            &IID_IDMLDevice, &out), E_INVALIDARG);
    assert_null(out);
    dml_check_errors_logged();
    /* No reference kept, no D3D12 method beyond IUnknown called on it. */
    assert_int_equal(fake.refcount, 1);
    assert_int_equal(fake_com_other_calls, 0);
}

static void test_create_device1_feature_levels(void **state)
{
    struct dml_context *context = *state;
    ID3D12Device *d3d = context->d3d.device;
    DML_FEATURE_LEVEL max = max_feature_level(context->dml), got;
    ULONG d3d_refs = refcount_of(d3d);
    IDMLDevice *device = NULL;
    void *out;
    size_t i;

    /* 1_0 is always accepted. */
    check_hr(DMLCreateDevice1(d3d, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_1_0, &IID_IDMLDevice,
            (void **)&device), S_OK);
    release_last(device);

    /* Every level up to the maximum is accepted, and the device reports the same maximum. */
    for (i = 0; i < ARRAY_SIZE(all_feature_levels) && all_feature_levels[i] <= max; ++i)
    {
        check_hr(DMLCreateDevice1(d3d, DML_CREATE_DEVICE_FLAG_NONE, all_feature_levels[i], &IID_IDMLDevice,
                (void **)&device), S_OK);
        check_hr(query_levels(device, all_feature_levels, ARRAY_SIZE(all_feature_levels), &got), S_OK);
        assert_int_equal(got, max);
        release_last(device);
    }
    /* Every level above it: DXGI_ERROR_UNSUPPORTED, nothing created, no reference kept. */
    for (; i < ARRAY_SIZE(all_feature_levels); ++i)
    {
        out = (void *)(uintptr_t)0xdeadbeef;
        check_hr(DMLCreateDevice1(d3d, DML_CREATE_DEVICE_FLAG_NONE, all_feature_levels[i], &IID_IDMLDevice, &out),
                DXGI_ERROR_UNSUPPORTED);
        assert_null(out);
    }
    /* A level that does not exist (above 6_4). */
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(DMLCreateDevice1(d3d, DML_CREATE_DEVICE_FLAG_NONE, (DML_FEATURE_LEVEL)0x7000, &IID_IDMLDevice, &out),
            DXGI_ERROR_UNSUPPORTED);
    assert_null(out);
    assert_int_equal(refcount_of(d3d), d3d_refs);
    if (vkdml_test_log_counts()->validation)
        fail_msg("validation messages: %s", vkdml_test_log_counts()->last_error);
    vkdml_test_log_reset();     /* "unsupported" may be logged as an error */
}

static void test_check_feature_support(void **state)
{
    struct dml_context *context = *state;
    IDMLDevice *device = context->dml;
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT type_query;
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT type_data;
    DML_FEATURE_QUERY_FEATURE_LEVELS level_query;
    DML_FEATURE_DATA_FEATURE_LEVELS level_data;
    DML_FEATURE_LEVEL max, got, levels[3];
    size_t i;

    /* FLOAT32 tensors are supported everywhere. */
    type_query.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    type_data.IsSupported = FALSE;
    check_hr(IDMLDevice_CheckFeatureSupport(device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(type_query),
            &type_query, sizeof(type_data), &type_data), S_OK);
    assert_int_equal(type_data.IsSupported, TRUE);
    /* Wrong sizes and missing pointers: E_INVALIDARG. */
    check_hr(IDMLDevice_CheckFeatureSupport(device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(type_query) - 1,
            &type_query, sizeof(type_data), &type_data), E_INVALIDARG);
    dml_check_errors_logged();
    check_hr(IDMLDevice_CheckFeatureSupport(device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(type_query),
            &type_query, sizeof(type_data) + 1, &type_data), E_INVALIDARG);
    dml_check_errors_logged();
    check_hr(IDMLDevice_CheckFeatureSupport(device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(type_query),
            NULL, sizeof(type_data), &type_data), E_INVALIDARG);
    dml_check_errors_logged();
    check_hr(IDMLDevice_CheckFeatureSupport(device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(type_query),
            &type_query, sizeof(type_data), NULL), E_INVALIDARG);
    dml_check_errors_logged();

    /* A feature this DirectML does not know. */
    check_hr(IDMLDevice_CheckFeatureSupport(device, (DML_FEATURE)0x1234, sizeof(type_query), &type_query,
            sizeof(type_data), &type_data), DXGI_ERROR_UNSUPPORTED);
    vkdml_test_log_reset();

    /* FEATURE_LEVELS: the highest requested level that is supported, whatever the order; 1_0
     * is supported (DMLCreateDevice1 accepts it). */
    max = max_feature_level(device);
    levels[0] = DML_FEATURE_LEVEL_1_0;
    check_hr(query_levels(device, levels, 1, &got), S_OK);
    assert_int_equal(got, DML_FEATURE_LEVEL_1_0);
    levels[0] = max;
    levels[1] = DML_FEATURE_LEVEL_1_0;
    check_hr(query_levels(device, levels, 2, &got), S_OK);
    assert_int_equal(got, max);
    levels[0] = DML_FEATURE_LEVEL_1_0;
    levels[1] = max;
    check_hr(query_levels(device, levels, 2, &got), S_OK);
    assert_int_equal(got, max);
    for (i = ARRAY_SIZE(all_feature_levels); i-- > 0;)
    {
        if (all_feature_levels[i] <= max)
            break;
        /* Above the maximum: not chosen when a supported one is also requested... */
        levels[0] = all_feature_levels[i];
        levels[1] = DML_FEATURE_LEVEL_1_0;
        check_hr(query_levels(device, levels, 2, &got), S_OK);
        assert_int_equal(got, DML_FEATURE_LEVEL_1_0);
        /* ...and DXGI_ERROR_UNSUPPORTED when none is. */
        check_hr(query_levels(device, levels, 1, &got), DXGI_ERROR_UNSUPPORTED);
        vkdml_test_log_reset();
    }
    /* Wrong sizes, missing arrays. */
    level_query.RequestedFeatureLevelCount = 1;
    level_query.RequestedFeatureLevels = levels;
    check_hr(IDMLDevice_CheckFeatureSupport(device, DML_FEATURE_FEATURE_LEVELS, sizeof(level_query) + 4,
            &level_query, sizeof(level_data), &level_data), E_INVALIDARG);
    dml_check_errors_logged();
    check_hr(IDMLDevice_CheckFeatureSupport(device, DML_FEATURE_FEATURE_LEVELS, sizeof(level_query),
            &level_query, sizeof(level_data) - 1, &level_data), E_INVALIDARG);
    dml_check_errors_logged();
    level_query.RequestedFeatureLevels = NULL;
    check_hr(IDMLDevice_CheckFeatureSupport(device, DML_FEATURE_FEATURE_LEVELS, sizeof(level_query),
            &level_query, sizeof(level_data), &level_data), E_INVALIDARG);
    dml_check_errors_logged();

    dml_check_not_removed(device);
    assert_no_log_errors();
}

/* DML_CREATE_DEVICE_FLAG_DEBUG: created (vkdml's debug layer is built in), IDMLDebugDevice. */
static void test_debug_device(void **state)
{
    struct dml_context *context = *state;
    IDMLDebugDevice *debug = NULL, *debug2 = NULL;
    struct dml_tensor input, output;
    static const UINT sizes[] = {2, 3};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc;
    DML_OPERATOR_DESC op_desc;
    void *out;

    assert_int_equal(context->flags, DML_CREATE_DEVICE_FLAG_DEBUG);
    check_hr(IDMLDevice_QueryInterface(context->dml, &IID_IDMLDebugDevice, (void **)&debug), S_OK);
    assert_non_null(debug);
    assert_true(same_object(debug, context->dml));
    check_interface(debug, &IID_IDMLDevice);
    check_hr(IDMLDebugDevice_QueryInterface(debug, &IID_IDMLDebugDevice, (void **)&debug2), S_OK);
    assert_ptr_equal(debug2, debug);
    IDMLDebugDevice_Release(debug2);

    /* Muting changes messages, never results: a bad desc is E_INVALIDARG either way. */
    dml_tensor_init(&input, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, DML_TENSOR_FLAG_NONE);
    dml_tensor_init(&output, DML_TENSOR_DATA_TYPE_FLOAT16, 2, sizes, DML_TENSOR_FLAG_NONE);
    desc.InputTensor = &input.desc;
    desc.OutputTensor = &output.desc;
    desc.ScaleBias = NULL;
    op_desc.Type = DML_OPERATOR_ELEMENT_WISE_IDENTITY;
    op_desc.Desc = &desc;
    IDMLDebugDevice_SetMuteDebugOutput(debug, TRUE);
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(IDMLDevice_CreateOperator(context->dml, &op_desc, &IID_IDMLOperator, &out), E_INVALIDARG);
    assert_null(out);
    vkdml_test_log_reset();
    IDMLDebugDevice_SetMuteDebugOutput(debug, FALSE);
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(IDMLDevice_CreateOperator(context->dml, &op_desc, &IID_IDMLOperator, &out), E_INVALIDARG);
    assert_null(out);
    dml_check_errors_logged();
    dml_check_not_removed(context->dml);

    IDMLDebugDevice_Release(debug);
    assert_no_log_errors();
}

/* ---- Unimplemented entry points ---- */

struct captured_log
{
    unsigned int errors, validation, fixmes;
    char fixme[1024];
};
static struct captured_log captured;

static void capture_sink(void *user_data, enum vkdml_log_level level, enum vkdml_log_source source,
        const char *function, const char *message)
{
    (void)user_data;
    fprintf(stderr, "  [captured %d/%d] %s: %s\n", (int)source, (int)level, function, message);
    if (source == VKDML_LOG_SOURCE_VALIDATION)
        ++captured.validation;
    else if (level == VKDML_LOG_ERR)
        ++captured.errors;
    else if (level == VKDML_LOG_FIXME)
    {
        ++captured.fixmes;
        snprintf(captured.fixme + strlen(captured.fixme), sizeof(captured.fixme) - strlen(captured.fixme),
                "%s: %s\n", function, message);
    }
}

static void test_unimplemented(void **state)
{
    struct dml_context *context = *state;
    static const UINT input_sizes[] = {1, 1, 5, 5}, output_sizes[] = {1, 1, 3, 3};
    static const UINT ones[] = {1, 1}, zeros[] = {0, 0}, window[] = {3, 3};
    struct dml_tensor input, gradient, output, hello_in, hello_out;
    DML_OPERATOR_GRAPH_NODE_DESC node;
    DML_INPUT_GRAPH_EDGE_DESC input_edge;
    DML_OUTPUT_GRAPH_EDGE_DESC output_edge;
    DML_GRAPH_NODE_DESC node_desc;
    DML_GRAPH_EDGE_DESC input_edge_desc, output_edge_desc;
    DML_MAX_POOLING_GRAD_OPERATOR_DESC pool;
    enum vkdml_log_level old_level;
    IDMLDevice1 *device1 = NULL;
    DML_OPERATOR_DESC op_desc;
    DML_GRAPH_DESC graph;
    IDMLOperator *op;
    HRESULT hr;
    void *out;

    /* A valid MAX_POOLING_GRAD desc. If MAX_POOLING_GRAD gets implemented, pick another unimplemented
     * operator. */
    dml_tensor_init(&input, DML_TENSOR_DATA_TYPE_FLOAT32, 4, input_sizes, DML_TENSOR_FLAG_NONE);
    dml_tensor_init(&gradient, DML_TENSOR_DATA_TYPE_FLOAT32, 4, output_sizes, DML_TENSOR_FLAG_NONE);
    dml_tensor_init(&output, DML_TENSOR_DATA_TYPE_FLOAT32, 4, input_sizes, DML_TENSOR_FLAG_NONE);
    memset(&pool, 0, sizeof(pool));
    pool.InputTensor = &input.desc;
    pool.InputGradientTensor = &gradient.desc;
    pool.OutputGradientTensor = &output.desc;
    pool.DimensionCount = 2;
    pool.Strides = ones;
    pool.WindowSize = window;
    pool.StartPadding = zeros;
    pool.EndPadding = zeros;
    pool.Dilations = ones;
    op_desc.Type = DML_OPERATOR_MAX_POOLING_GRAD;
    op_desc.Desc = &pool;

    memset(&captured, 0, sizeof(captured));
    old_level = vkdml_get_log_level();
    vkdml_set_log_level(VKDML_LOG_FIXME);
    vkdml_set_log_callback(capture_sink, NULL);
    out = (void *)(uintptr_t)0xdeadbeef;
    hr = IDMLDevice_CreateOperator(context->dml, &op_desc, &IID_IDMLOperator, &out);
    vkdml_test_init_logging();
    vkdml_set_log_level(old_level);
    check_hr(hr, E_NOTIMPL);
    assert_null(out);
    assert_int_equal(captured.validation, 0);
    assert_int_equal(captured.errors, 0);
    assert_true(captured.fixmes >= 1);
    if (!strstr(captured.fixme, "MAX_POOLING_GRAD"))
        fail_msg("the FIXME line does not name MAX_POOLING_GRAD: %s", captured.fixme);

    /* CompileGraph: one IDENTITY node between a graph input and a graph output. */
    dml_tensor_init_hello(&hello_in);
    dml_tensor_init_hello(&hello_out);
    op = dml_create_identity(context->dml, &hello_in, &hello_out);
    node.Operator = op;
    node.Name = "identity";
    node_desc.Type = DML_GRAPH_NODE_TYPE_OPERATOR;
    node_desc.Desc = &node;
    input_edge.GraphInputIndex = 0;
    input_edge.ToNodeIndex = 0;
    input_edge.ToNodeInputIndex = 0;
    input_edge.Name = NULL;
    input_edge_desc.Type = DML_GRAPH_EDGE_TYPE_INPUT;
    input_edge_desc.Desc = &input_edge;
    output_edge.FromNodeIndex = 0;
    output_edge.FromNodeOutputIndex = 0;
    output_edge.GraphOutputIndex = 0;
    output_edge.Name = NULL;
    output_edge_desc.Type = DML_GRAPH_EDGE_TYPE_OUTPUT;
    output_edge_desc.Desc = &output_edge;
    memset(&graph, 0, sizeof(graph));
    graph.InputCount = 1;
    graph.OutputCount = 1;
    graph.NodeCount = 1;
    graph.Nodes = &node_desc;
    graph.InputEdgeCount = 1;
    graph.InputEdges = &input_edge_desc;
    graph.OutputEdgeCount = 1;
    graph.OutputEdges = &output_edge_desc;
    check_hr(IDMLDevice_QueryInterface(context->dml, &IID_IDMLDevice1, (void **)&device1), S_OK);
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(IDMLDevice1_CompileGraph(device1, &graph, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator, &out),
            S_OK);
    assert_non_null(out);
    release_last(out);
    IDMLDevice1_Release(device1);
    release_last(op);
    if (vkdml_test_log_counts()->validation || vkdml_test_log_counts()->errors)
        fail_msg("unexpected log: %s", vkdml_test_log_counts()->last_error);
    vkdml_test_log_reset();
    dml_check_not_removed(context->dml);
}

/* ---- Children ---- */

static void test_parent_and_children(void **state)
{
    struct dml_context *context = *state;
    IDMLCompiledOperator *compiled;
    IDMLOperatorInitializer *initializer = NULL;
    IDMLBindingTable *table;
    struct dml_tensor tensor;
    ID3D12Device *parent = NULL;
    IDMLDevice *device = NULL;
    IDMLDevice1 *device1 = NULL;
    IDMLOperator *op;
    void *children[5];
    void *out;
    size_t i;

    /* GetParentDevice: the very ID3D12Device the device was created on, with a reference. */
    check_hr(IDMLDevice_GetParentDevice(context->dml, &IID_ID3D12Device, (void **)&parent), S_OK);
    assert_ptr_equal(parent, context->d3d.device);
    assert_true(same_object(parent, context->d3d.device));
    ID3D12Device_Release(parent);
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(IDMLDevice_GetParentDevice(context->dml, &IID_IDMLDevice, &out), E_NOINTERFACE);
    assert_null(out);
    vkdml_test_log_reset();

    dml_tensor_init_hello(&tensor);
    op = dml_create_identity(context->dml, &tensor, &tensor);
    IDMLOperator_AddRef(op);
    compiled = dml_compile(context->dml, op, DML_EXECUTION_FLAG_NONE);
    check_hr(IDMLDevice_CreateOperatorInitializer(context->dml, 1, &compiled, &IID_IDMLOperatorInitializer,
            (void **)&initializer), S_OK);
    table = dml_create_table(context, compiled, 0, 0);
    children[0] = op;
    children[1] = compiled;
    children[2] = initializer;
    children[3] = table;
    children[4] = context->recorder;

    /* GetDevice on every child: the same DML device, as IDMLDevice or IDMLDevice1. */
    for (i = 0; i < ARRAY_SIZE(children); ++i)
    {
        IDMLDeviceChild *child = children[i];

        check_hr(IDMLDeviceChild_GetDevice(child, &IID_IDMLDevice, (void **)&device), S_OK);
        assert_true(same_object(device, context->dml));
        IDMLDevice_Release(device);
        check_hr(IDMLDeviceChild_GetDevice(child, &IID_IDMLDevice1, (void **)&device1), S_OK);
        assert_true(same_object(device1, context->dml));
        IDMLDevice1_Release(device1);
        out = (void *)(uintptr_t)0xdeadbeef;
        check_hr(IDMLDeviceChild_GetDevice(child, &IID_ID3D12Device, &out), E_NOINTERFACE);
        assert_null(out);
        vkdml_test_log_reset();

        check_interface(child, &IID_IUnknown);
        check_interface(child, &IID_IDMLObject);
        check_interface(child, &IID_IDMLDeviceChild);
        check_no_interface(child, &IID_IDMLDevice);
    }
    /* The interface set of each kind. */
    check_interface(op, &IID_IDMLOperator);
    check_no_interface(op, &IID_IDMLPageable);
    check_no_interface(op, &IID_IDMLCompiledOperator);
    check_interface(compiled, &IID_IDMLPageable);
    check_interface(compiled, &IID_IDMLDispatchable);
    check_interface(compiled, &IID_IDMLCompiledOperator);
    check_no_interface(compiled, &IID_IDMLOperator);
    check_no_interface(compiled, &IID_IDMLOperatorInitializer);
    check_interface(initializer, &IID_IDMLPageable);
    check_interface(initializer, &IID_IDMLDispatchable);
    check_interface(initializer, &IID_IDMLOperatorInitializer);
    check_no_interface(initializer, &IID_IDMLCompiledOperator);
    check_interface(table, &IID_IDMLBindingTable);
    check_no_interface(table, &IID_IDMLPageable);
    check_no_interface(table, &IID_IDMLDispatchable);
    check_interface(context->recorder, &IID_IDMLCommandRecorder);
    check_no_interface(context->recorder, &IID_IDMLPageable);

    release_last(table);
    release_last(initializer);
    release_last(compiled);
    release_last(op);
    assert_no_log_errors();
}

/* Children hold the device, compiled operators their operator, tables their dispatchable; the
 * application may release in any order. */
static void test_refcounts(void **state)
{
    struct dml_context *context = *state;
    IDMLCompiledOperator *compiled;
    IDMLOperatorInitializer *initializer = NULL;
    ID3D12Device *d3d = context->d3d.device;
    IDMLDevice *device = NULL;
    struct dml_tensor tensor;
    IDMLBindingTable *table;
    IDMLOperator *op;
    ULONG d3d_refs = refcount_of(d3d), d3d_refs_alive;

    check_hr(DMLCreateDevice(d3d, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, (void **)&device), S_OK);
    d3d_refs_alive = refcount_of(d3d);
    dml_tensor_init_hello(&tensor);

    op = dml_create_identity(device, &tensor, &tensor);
    assert_int_equal(refcount_of(device), 2);
    IDMLOperator_AddRef(op);
    compiled = dml_compile(device, op, DML_EXECUTION_FLAG_NONE);
    assert_int_equal(refcount_of(op), 2);
    assert_int_equal(refcount_of(device), 3);
    check_hr(IDMLDevice_CreateOperatorInitializer(device, 1, &compiled, &IID_IDMLOperatorInitializer,
            (void **)&initializer), S_OK);
    assert_int_equal(refcount_of(device), 4);
    {
        DML_BINDING_TABLE_DESC desc = dml_table_desc(context, compiled, 0, 0);
        ULONG compiled_refs = refcount_of(compiled);

        check_hr(IDMLDevice_CreateBindingTable(device, &desc, &IID_IDMLBindingTable, (void **)&table), S_OK);
        assert_int_equal(refcount_of(compiled), compiled_refs + 1);
        assert_int_equal(refcount_of(device), 5);
    }

    /* Release the device and the operator first: the children keep them alive. */
    assert_int_equal(IDMLDevice_Release(device), 4);
    assert_int_equal(IDMLOperator_Release(op), 1);
    assert_int_equal(refcount_of(d3d), d3d_refs_alive);
    {
        ULONG compiled_refs = refcount_of(compiled);

        /* The table holds its dispatchable (whether an initializer holds its targets is not
         * documented: not checked). */
        assert_int_equal(IDMLBindingTable_Release(table), 0);
        assert_int_equal(refcount_of(compiled), compiled_refs - 1);
    }
    IDMLCompiledOperator_Release(compiled);
    assert_int_equal(IDMLOperatorInitializer_Release(initializer), 0);
    /* The last child gone, the device went with it and dropped its D3D12 device reference. */
    assert_int_equal(refcount_of(d3d), d3d_refs);
    assert_no_log_errors();
}

static void test_private_data_and_names(void **state)
{
    static const GUID guid = {0x12345678, 0x1234, 0x5678, {0x9a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78}};
    static const GUID guid2 = {0x87654321, 0x4321, 0x8765, {0x9a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78}};
    struct dml_context *context = *state;
    struct dml_tensor tensor;
    IDMLCompiledOperator *compiled;
    IDMLObject *objects[3];
    uint32_t value = 0xcafe1234, got;
    UINT size;
    size_t i;

    dml_tensor_init_hello(&tensor);
    compiled = dml_compile(context->dml, dml_create_identity(context->dml, &tensor, &tensor),
            DML_EXECUTION_FLAG_NONE);
    objects[0] = (IDMLObject *)context->dml;
    objects[1] = (IDMLObject *)compiled;
    objects[2] = (IDMLObject *)context->recorder;

    for (i = 0; i < ARRAY_SIZE(objects); ++i)
    {
        IDMLObject *object = objects[i];
        ULONG recorder_refs;
        IUnknown *unknown;

        size = 4;
        check_hr(IDMLObject_GetPrivateData(object, &guid, &size, &got), DXGI_ERROR_NOT_FOUND);
        assert_int_equal(size, 0);
        vkdml_test_log_reset();
        check_hr(IDMLObject_SetPrivateData(object, &guid, sizeof(value), &value), S_OK);
        size = 0;
        check_hr(IDMLObject_GetPrivateData(object, &guid, &size, NULL), S_OK);
        assert_int_equal(size, sizeof(value));
        size = 2;
        check_hr(IDMLObject_GetPrivateData(object, &guid, &size, &got), DXGI_ERROR_MORE_DATA);
        vkdml_test_log_reset();
        got = 0;
        size = sizeof(got);
        check_hr(IDMLObject_GetPrivateData(object, &guid, &size, &got), S_OK);
        assert_int_equal(size, sizeof(value));
        assert_int_equal(got, value);
        /* data NULL with size 0 deletes. */
        check_hr(IDMLObject_SetPrivateData(object, &guid, 0, NULL), S_OK);
        size = sizeof(got);
        check_hr(IDMLObject_GetPrivateData(object, &guid, &size, &got), DXGI_ERROR_NOT_FOUND);
        vkdml_test_log_reset();

        /* An interface: held until replaced or until the object dies. */
        unknown = (IUnknown *)context->heap;
        recorder_refs = refcount_of(unknown);
        check_hr(IDMLObject_SetPrivateDataInterface(object, &guid2, unknown), S_OK);
        assert_int_equal(refcount_of(unknown), recorder_refs + 1);
        size = sizeof(IUnknown *);
        {
            IUnknown *stored = NULL;

            check_hr(IDMLObject_GetPrivateData(object, &guid2, &size, &stored), S_OK);
            assert_ptr_equal(stored, unknown);
            IUnknown_Release(stored);
        }
        check_hr(IDMLObject_SetPrivateDataInterface(object, &guid2, NULL), S_OK);
        assert_int_equal(refcount_of(unknown), recorder_refs);
        check_hr(IDMLObject_SetPrivateDataInterface(object, &guid2, unknown), S_OK);
        assert_int_equal(refcount_of(unknown), recorder_refs + 1);

        check_hr(IDMLObject_SetName(object, L"vkdml test object"), S_OK);
        check_hr(IDMLObject_SetName(object, L""), S_OK);
    }
    {
        ULONG heap_refs = refcount_of(context->heap);

        /* Destroying the compiled operator releases what it stored. */
        release_last(compiled);
        assert_int_equal(refcount_of(context->heap), heap_refs - 1);
    }
    /* The device and the recorder drop theirs when they die (teardown checks they reach 0). */
    check_hr(IDMLObject_SetPrivateDataInterface(objects[0], &guid2, NULL), S_OK);
    check_hr(IDMLObject_SetPrivateDataInterface(objects[2], &guid2, NULL), S_OK);
    assert_no_log_errors();
}

static void test_residency(void **state)
{
    struct dml_context *context = *state;
    IDMLOperatorInitializer *initializer = NULL;
    IDMLCompiledOperator *compiled;
    struct dml_tensor tensor;
    IDMLPageable *pageables[2];
    ID3D12Resource *persistent = NULL;
    float data[24], result[24];
    ID3D12Resource *input, *output;
    DML_BUFFER_BINDING in_binding, out_binding;
    DML_BINDING_DESC in_desc, out_desc;

    dml_tensor_init_hello(&tensor);
    compiled = dml_compile(context->dml, dml_create_identity(context->dml, &tensor, &tensor),
            DML_EXECUTION_FLAG_NONE);
    check_hr(IDMLDevice_CreateOperatorInitializer(context->dml, 1, &compiled, &IID_IDMLOperatorInitializer,
            (void **)&initializer), S_OK);
    check_hr(IDMLCompiledOperator_QueryInterface(compiled, &IID_IDMLPageable, (void **)&pageables[0]), S_OK);
    check_hr(IDMLOperatorInitializer_QueryInterface(initializer, &IID_IDMLPageable, (void **)&pageables[1]), S_OK);

    check_hr(IDMLDevice_Evict(context->dml, 2, pageables), S_OK);
    check_hr(IDMLDevice_MakeResident(context->dml, 2, pageables), S_OK);
    check_hr(IDMLDevice_Evict(context->dml, 1, pageables), S_OK);
    check_hr(IDMLDevice_MakeResident(context->dml, 1, pageables), S_OK);
    IDMLPageable_Release(pageables[0]);
    IDMLPageable_Release(pageables[1]);
    release_last(initializer);

    /* Still executes correctly after the round trip. */
    dml_initialize(context, &compiled, 1, &persistent, NULL);
    dml_fill_floats(data, 24, 1, 10.0f);
    input = dml_create_buffer(context, sizeof(data), 0, data, sizeof(data));
    output = dml_create_buffer(context, sizeof(data), 0, NULL, 0);
    in_binding = dml_buffer_binding(input, 0, sizeof(data));
    out_binding = dml_buffer_binding(output, 0, sizeof(data));
    in_desc = dml_binding(&in_binding);
    out_desc = dml_binding(&out_binding);
    dml_execute(context, compiled, &in_desc, 1, &out_desc, 1, persistent);
    dml_read_buffer(context, output, 0, result, sizeof(result));
    assert_int_equal(dml_compare_floats(result, data, 24, 0.0f, 0.0f), -1);

    release_last(input);
    release_last(output);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    assert_no_log_errors();
}

/* ---- The bad-input table: HRESULT methods return the documented code, log, and leave the
 * device usable (no removal). ---- */

enum bad_input_case
{
    BAD_DESC_NULL,
    BAD_DESC_TYPE_INVALID,
    BAD_DESC_TYPE_UNKNOWN,
    BAD_DESC_NULL_DESC,
    BAD_DATA_TYPE_MISMATCH,
    BAD_SIZE_MISMATCH,
    BAD_TOTAL_SIZE_TOO_SMALL,
    BAD_RANK_ZERO,
    BAD_RANK_NINE,
    BAD_SIZES_NULL,
    BAD_SIZE_ZERO,
    BAD_TENSOR_TYPE_INVALID,
    BAD_TENSOR_DESC_NULL,
    BAD_ALIGNMENT_NOT_POW2,
    BAD_ALIGNMENT_BELOW_ELEMENT,
    BAD_DATA_TYPE_UNKNOWN,
    BAD_CASE_COUNT,
};

static const char *const bad_input_names[BAD_CASE_COUNT] =
{
    "desc NULL", "Type INVALID", "Type 9999", "Desc NULL", "data type mismatch", "size mismatch",
    "TotalTensorSizeInBytes too small", "DimensionCount 0", "DimensionCount 9", "Sizes NULL", "a size of 0",
    "tensor Type INVALID", "InputTensor NULL", "GuaranteedBaseOffsetAlignment 24",
    "GuaranteedBaseOffsetAlignment 2 for FLOAT32", "data type UNKNOWN",
};

static HRESULT create_bad_operator(IDMLDevice *device, enum bad_input_case which, void **out)
{
    static const UINT sizes[] = {2, 3, 4}, other_sizes[] = {2, 3, 5}, zero_sizes[] = {2, 0, 4};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc;
    struct dml_tensor input, output;
    DML_OPERATOR_DESC op_desc;

    dml_tensor_init(&input, DML_TENSOR_DATA_TYPE_FLOAT32, 3, sizes, DML_TENSOR_FLAG_NONE);
    dml_tensor_init(&output, DML_TENSOR_DATA_TYPE_FLOAT32, 3, sizes, DML_TENSOR_FLAG_NONE);
    desc.InputTensor = &input.desc;
    desc.OutputTensor = &output.desc;
    desc.ScaleBias = NULL;
    op_desc.Type = DML_OPERATOR_ELEMENT_WISE_IDENTITY;
    op_desc.Desc = &desc;
    switch (which)
    {
        case BAD_DESC_NULL:
            return IDMLDevice_CreateOperator(device, NULL, &IID_IDMLOperator, out);
        case BAD_DESC_TYPE_INVALID: op_desc.Type = DML_OPERATOR_INVALID; break;
        case BAD_DESC_TYPE_UNKNOWN: op_desc.Type = (DML_OPERATOR_TYPE)9999; break;
        case BAD_DESC_NULL_DESC: op_desc.Desc = NULL; break;
        case BAD_DATA_TYPE_MISMATCH: output.buffer.DataType = DML_TENSOR_DATA_TYPE_INT32; break;
        case BAD_SIZE_MISMATCH:
            output.buffer.Sizes = other_sizes;
            output.buffer.TotalTensorSizeInBytes = 2 * 3 * 5 * 4;
            break;
        case BAD_TOTAL_SIZE_TOO_SMALL: input.buffer.TotalTensorSizeInBytes -= 4; break;
        case BAD_RANK_ZERO: input.buffer.DimensionCount = 0; break;
        case BAD_RANK_NINE: input.buffer.DimensionCount = 9; break;
        case BAD_SIZES_NULL: input.buffer.Sizes = NULL; break;
        case BAD_SIZE_ZERO: input.buffer.Sizes = zero_sizes; break;
        case BAD_TENSOR_TYPE_INVALID: input.desc.Type = DML_TENSOR_TYPE_INVALID; break;
        case BAD_TENSOR_DESC_NULL: desc.InputTensor = NULL; break;
        case BAD_ALIGNMENT_NOT_POW2: input.buffer.GuaranteedBaseOffsetAlignment = 24; break;
        case BAD_ALIGNMENT_BELOW_ELEMENT: input.buffer.GuaranteedBaseOffsetAlignment = 2; break;
        case BAD_DATA_TYPE_UNKNOWN:
            input.buffer.DataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
            output.buffer.DataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
            break;
        default:
            break;
    }
    return IDMLDevice_CreateOperator(device, &op_desc, &IID_IDMLOperator, out);
}

static void test_bad_inputs(void **state)
{
    struct dml_context *context = *state;
    struct dml_tensor tensor;
    struct fake_com_object fake;
    IDMLCompiledOperator *compiled, *null_ops[1] = {NULL};
    IDMLDevice *other = NULL;
    IDMLOperator *op, *other_op;
    DML_BINDING_TABLE_DESC table_desc;
    unsigned int i;
    void *out;

    /* CreateOperator: every malformed desc is E_INVALIDARG with one error line. */
    for (i = 0; i < BAD_CASE_COUNT; ++i)
    {
        HRESULT hr;

        vkdml_test_log_reset();
        out = (void *)(uintptr_t)0xdeadbeef;
        hr = create_bad_operator(context->dml, i, &out);
        if (hr != E_INVALIDARG || out)
            fail_msg("CreateOperator(%s): hr %#x, *ppv %p; expected E_INVALIDARG, NULL", bad_input_names[i],
                    (unsigned int)hr, out);
        if (!vkdml_test_log_counts()->errors)
            fail_msg("CreateOperator(%s): nothing logged", bad_input_names[i]);
        dml_check_errors_logged();
    }

    dml_tensor_init_hello(&tensor);
    op = dml_create_identity(context->dml, &tensor, &tensor);

    /* An interface a DML object lacks. */
    {
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc = {&tensor.desc, &tensor.desc, NULL};
        DML_OPERATOR_DESC op_desc = {DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc};

        out = (void *)(uintptr_t)0xdeadbeef;
        check_hr(IDMLDevice_CreateOperator(context->dml, &op_desc, &IID_IDMLCompiledOperator, &out), E_NOINTERFACE);
        assert_null(out);
        vkdml_test_log_reset();
        /* _COM_Outptr_opt_: a NULL ppv validates only, S_FALSE (D3D12's convention). */
        check_hr(IDMLDevice_CreateOperator(context->dml, &op_desc, &IID_IDMLOperator, NULL), S_FALSE);
        check_hr(IDMLDevice_CompileOperator(context->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
                NULL), S_FALSE);
    }

    /* CompileOperator: no operator, a foreign one, unknown flags. */
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(IDMLDevice_CompileOperator(context->dml, NULL, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            &out), E_INVALIDARG);
    assert_null(out);
    dml_check_errors_logged();
    fake_com_object_init(&fake, &IID_IDMLOperator);
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(IDMLDevice_CompileOperator(context->dml, (IDMLOperator *)&fake, DML_EXECUTION_FLAG_NONE,
            &IID_IDMLCompiledOperator, &out), E_INVALIDARG);
    assert_null(out);
    assert_int_equal(fake.refcount, 1);
    dml_check_errors_logged();
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(IDMLDevice_CompileOperator(context->dml, op, (DML_EXECUTION_FLAGS)0x100, &IID_IDMLCompiledOperator,
            &out), E_INVALIDARG);
    assert_null(out);
    dml_check_errors_logged();

    /* Objects of another DML device (on the same D3D12 device) must not be mixed. */
    check_hr(DMLCreateDevice(context->d3d.device, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, (void **)&other),
            S_OK);
    other_op = dml_create_identity(other, &tensor, &tensor);
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(IDMLDevice_CompileOperator(context->dml, other_op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            &out), E_INVALIDARG);
    assert_null(out);
    dml_check_errors_logged();

    compiled = dml_compile(context->dml, op, DML_EXECUTION_FLAG_NONE);

    /* CreateOperatorInitializer: a count without an array, a NULL entry, a foreign entry, an
     * operator of another device. */
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(IDMLDevice_CreateOperatorInitializer(context->dml, 1, NULL, &IID_IDMLOperatorInitializer, &out),
            E_INVALIDARG);
    assert_null(out);
    dml_check_errors_logged();
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(IDMLDevice_CreateOperatorInitializer(context->dml, 1, null_ops, &IID_IDMLOperatorInitializer, &out),
            E_INVALIDARG);
    assert_null(out);
    dml_check_errors_logged();
    fake_com_object_init(&fake, &IID_IDMLCompiledOperator);
    {
        IDMLCompiledOperator *fake_ops[] = {(IDMLCompiledOperator *)&fake};

        out = (void *)(uintptr_t)0xdeadbeef;
        check_hr(IDMLDevice_CreateOperatorInitializer(context->dml, 1, fake_ops, &IID_IDMLOperatorInitializer,
                &out), E_INVALIDARG);
        assert_null(out);
        dml_check_errors_logged();
        assert_int_equal(fake.refcount, 1);
    }
    {
        IDMLCompiledOperator *other_compiled = dml_compile(other, other_op, DML_EXECUTION_FLAG_NONE);

        other_op = NULL;
        out = (void *)(uintptr_t)0xdeadbeef;
        check_hr(IDMLDevice_CreateOperatorInitializer(context->dml, 1, &other_compiled,
                &IID_IDMLOperatorInitializer, &out), E_INVALIDARG);
        assert_null(out);
        dml_check_errors_logged();

        /* CreateBindingTable for a dispatchable of another device. */
        table_desc = dml_table_desc(context, other_compiled, 0, 0);
        out = (void *)(uintptr_t)0xdeadbeef;
        check_hr(IDMLDevice_CreateBindingTable(context->dml, &table_desc, &IID_IDMLBindingTable, &out),
                E_INVALIDARG);
        assert_null(out);
        dml_check_errors_logged();
        release_last(other_compiled);
    }
    release_last(other);

    /* CreateBindingTable: too few descriptors, a foreign dispatchable, a range outside any heap. */
    if (dml_properties(compiled).RequiredDescriptorCount > 1)
    {
        table_desc = dml_table_desc(context, compiled, 0, dml_properties(compiled).RequiredDescriptorCount - 1);
        out = (void *)(uintptr_t)0xdeadbeef;
        check_hr(IDMLDevice_CreateBindingTable(context->dml, &table_desc, &IID_IDMLBindingTable, &out),
                E_INVALIDARG);
        assert_null(out);
        dml_check_errors_logged();
    }
    fake_com_object_init(&fake, &IID_IDMLDispatchable);
    table_desc = dml_table_desc(context, compiled, 0, 0);
    table_desc.Dispatchable = (IDMLDispatchable *)&fake;
    out = (void *)(uintptr_t)0xdeadbeef;
    check_hr(IDMLDevice_CreateBindingTable(context->dml, &table_desc, &IID_IDMLBindingTable, &out), E_INVALIDARG);
    assert_null(out);
    dml_check_errors_logged();
    assert_int_equal(fake.refcount, 1);
    table_desc = dml_table_desc(context, compiled, DML_CONTEXT_DESCRIPTORS - 1, 1);
    table_desc.SizeInDescriptors = dml_properties(compiled).RequiredDescriptorCount + 1;
    if (table_desc.SizeInDescriptors > 1)
    {
        /* Runs past the end of the heap. */
        out = (void *)(uintptr_t)0xdeadbeef;
        check_hr(IDMLDevice_CreateBindingTable(context->dml, &table_desc, &IID_IDMLBindingTable, &out),
                E_INVALIDARG);
        assert_null(out);
        dml_check_errors_logged();
    }
    /* A NULL desc is allowed: an empty table, to be Reset later. */
    {
        IDMLBindingTable *table = NULL;

        check_hr(IDMLDevice_CreateBindingTable(context->dml, NULL, &IID_IDMLBindingTable, (void **)&table), S_OK);
        table_desc = dml_table_desc(context, compiled, 0, 0);
        check_hr(IDMLBindingTable_Reset(table, &table_desc), S_OK);
        table_desc.SizeInDescriptors = 0;
        check_hr(IDMLBindingTable_Reset(table, &table_desc), E_INVALIDARG);
        dml_check_errors_logged();
        release_last(table);
    }

    /* None of that removed the device. */
    dml_check_not_removed(context->dml);
    release_last(compiled);
    assert_no_log_errors();
}

/* ---- Device removal ---- */

/* A void method's misuse removes the DML device (not the D3D12 device, not other DML devices):
 * HRESULT methods then answer DXGI_ERROR_DEVICE_REMOVED, void methods do nothing. */
static void test_removal(void **state)
{
    struct dml_context *context = *state;
    DML_BUFFER_BINDING in_binding, out_binding;
    DML_BINDING_DESC bindings[2];
    IDMLCompiledOperator *compiled;
    IDMLOperatorInitializer *initializer = NULL;
    IDMLBindingTable *table;
    IDMLDevice *other = NULL;
    struct dml_tensor tensor;
    ID3D12Resource *input, *output, *persistent = NULL;
    DML_BINDING_TABLE_DESC table_desc;
    float data[24], result[24], zeros[24];
    IDMLOperator *op;
    HRESULT reason;
    void *out;

    check_hr(DMLCreateDevice(context->d3d.device, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, (void **)&other),
            S_OK);
    dml_tensor_init_hello(&tensor);
    op = dml_create_identity(context->dml, &tensor, &tensor);
    IDMLOperator_AddRef(op);
    compiled = dml_compile(context->dml, op, DML_EXECUTION_FLAG_NONE);
    dml_initialize(context, &compiled, 1, &persistent, NULL);
    check_hr(IDMLDevice_CreateOperatorInitializer(context->dml, 0, NULL, &IID_IDMLOperatorInitializer,
            (void **)&initializer), S_OK);

    dml_fill_floats(data, 24, 7, 5.0f);
    memset(zeros, 0, sizeof(zeros));
    input = dml_create_buffer(context, sizeof(data), 0, data, sizeof(data));
    output = dml_create_buffer(context, sizeof(data), 0, NULL, 0);
    in_binding = dml_buffer_binding(input, 0, sizeof(data));
    out_binding = dml_buffer_binding(output, 0, sizeof(data));
    bindings[0] = dml_binding(&in_binding);
    bindings[1] = dml_binding(&in_binding);
    table = dml_create_table(context, compiled, 0, 0);
    dml_check_not_removed(context->dml);

    /* IDENTITY has one input: two bindings. */
    IDMLBindingTable_BindInputs(table, 2, bindings);
    dml_check_errors_logged();
    reason = dml_check_removed(context->dml);
    assert_true(reason == DXGI_ERROR_DEVICE_REMOVED || reason == E_INVALIDARG);
    vkdml_test_log_reset();

    /* Every HRESULT method of the device and its children: DXGI_ERROR_DEVICE_REMOVED. */
    {
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc = {&tensor.desc, &tensor.desc, NULL};
        DML_OPERATOR_DESC op_desc = {DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc};
        DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query = {DML_TENSOR_DATA_TYPE_FLOAT32};
        DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT data_support;

        out = (void *)(uintptr_t)0xdeadbeef;
        check_hr(IDMLDevice_CreateOperator(context->dml, &op_desc, &IID_IDMLOperator, &out),
                DXGI_ERROR_DEVICE_REMOVED);
        assert_null(out);
        out = (void *)(uintptr_t)0xdeadbeef;
        check_hr(IDMLDevice_CompileOperator(context->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
                &out), DXGI_ERROR_DEVICE_REMOVED);
        assert_null(out);
        out = (void *)(uintptr_t)0xdeadbeef;
        check_hr(IDMLDevice_CreateOperatorInitializer(context->dml, 1, &compiled, &IID_IDMLOperatorInitializer,
                &out), DXGI_ERROR_DEVICE_REMOVED);
        assert_null(out);
        table_desc = dml_table_desc(context, compiled, 0, 0);
        out = (void *)(uintptr_t)0xdeadbeef;
        check_hr(IDMLDevice_CreateBindingTable(context->dml, &table_desc, &IID_IDMLBindingTable, &out),
                DXGI_ERROR_DEVICE_REMOVED);
        assert_null(out);
        check_hr(IDMLDevice_CheckFeatureSupport(context->dml, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query),
                &query, sizeof(data_support), &data_support), DXGI_ERROR_DEVICE_REMOVED);
        check_hr(IDMLBindingTable_Reset(table, &table_desc), DXGI_ERROR_DEVICE_REMOVED);
        check_hr(IDMLOperatorInitializer_Reset(initializer, 1, &compiled), DXGI_ERROR_DEVICE_REMOVED);
        /* The reason stays. */
        check_hr(IDMLDevice_GetDeviceRemovedReason(context->dml), reason);
    }
    vkdml_test_log_reset();

    /* Void methods are no-ops now: a dispatch recorded with complete bindings writes nothing. */
    IDMLBindingTable_BindInputs(table, 1, bindings);
    bindings[1] = dml_binding(&out_binding);
    IDMLBindingTable_BindOutputs(table, 1, &bindings[1]);
    dml_record(context, compiled, table);
    dml_execute_and_wait(context);
    dml_read_buffer(context, output, 0, result, sizeof(result));
    assert_memory_equal(result, zeros, sizeof(zeros));
    vkdml_test_log_reset();

    /* The D3D12 device is not removed, nor is the other DML device. */
    check_hr(ID3D12Device_GetDeviceRemovedReason(context->d3d.device), S_OK);
    check_hr(IDMLDevice_GetDeviceRemovedReason(other), S_OK);
    {
        DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query = {DML_TENSOR_DATA_TYPE_FLOAT32};
        DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT data_support = {FALSE};

        check_hr(IDMLDevice_CheckFeatureSupport(other, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query), &query,
                sizeof(data_support), &data_support), S_OK);
        assert_true(data_support.IsSupported);
    }

    /* Objects of a removed device still release to zero (the removed device via teardown). */
    release_last(table);
    release_last(initializer);
    release_last(compiled);
    release_last(op);
    if (persistent)
        release_last(persistent);

    /* Recovery: a new DML device on the same D3D12 device works. */
    release_last(other);
    dml_context_recreate_device(context);
    {
        DML_BINDING_DESC in_desc = dml_binding(&in_binding), out_desc = dml_binding(&out_binding);

        compiled = dml_compile(context->dml, dml_create_identity(context->dml, &tensor, &tensor),
                DML_EXECUTION_FLAG_NONE);
        dml_initialize(context, &compiled, 1, &persistent, NULL);
        dml_execute(context, compiled, &in_desc, 1, &out_desc, 1, persistent);
        dml_read_buffer(context, output, 0, result, sizeof(result));
        assert_int_equal(dml_compare_floats(result, data, 24, 0.0f, 0.0f), -1);
        release_last(compiled);
        if (persistent)
            release_last(persistent);
    }
    release_last(input);
    release_last(output);
    assert_no_log_errors();
}

/* CreateOperator must fail with E_INVALIDARG and log `message`. */
static void expect_invalid_operator(struct dml_context *context, DML_OPERATOR_TYPE type, const void *desc,
        const char *message)
{
    DML_OPERATOR_DESC op_desc = {type, desc};
    void *out = (void *)(uintptr_t)0xdeadbeef;

    check_hr(IDMLDevice_CreateOperator(context->dml, &op_desc, &IID_IDMLOperator, &out), E_INVALIDARG);
    assert_null(out);
    assert_logged_error(message);
}

static void gemm_tensors_init(struct dml_tensor tensors[3], DML_TENSOR_DATA_TYPE type, UINT rank)
{
    static const UINT a[] = {1, 1, 1, 2, 3}, b[] = {1, 1, 1, 3, 4}, out[] = {1, 1, 1, 2, 4};

    dml_tensor_init(&tensors[0], type, rank, a + 5 - rank, DML_TENSOR_FLAG_NONE);
    dml_tensor_init(&tensors[1], type, rank, b + 5 - rank, DML_TENSOR_FLAG_NONE);
    dml_tensor_init(&tensors[2], type, rank, out + 5 - rank, DML_TENSOR_FLAG_NONE);
}

static void conv_tensors_init(struct dml_tensor tensors[3], DML_TENSOR_DATA_TYPE type, UINT rank)
{
    static const UINT input[] = {1, 1, 1, 1, 5, 5}, filter[] = {1, 1, 1, 1, 3, 3}, out[] = {1, 1, 1, 1, 3, 3};

    dml_tensor_init(&tensors[0], type, rank, input + 6 - rank, DML_TENSOR_FLAG_NONE);
    dml_tensor_init(&tensors[1], type, rank, filter + 6 - rank, DML_TENSOR_FLAG_NONE);
    dml_tensor_init(&tensors[2], type, rank, out + 6 - rank, DML_TENSOR_FLAG_NONE);
}

/* The generic check of DirectML's tensor support (tools/directml-schema.json): each tensor's data
 * type and rank, and the tensors that must share them, for every operator the schema covers. */
static void test_tensor_support(void **state)
{
    static const UINT ones[] = {1, 1}, zeros[] = {0, 0}, sizes4[] = {1, 2, 3, 4}, sizes3[] = {2, 3, 4};
    struct vkdml_operator_support support[DML_OPERATOR_UNFOLD + 1];
    const uint32_t f32_f16 = 1u << DML_TENSOR_DATA_TYPE_FLOAT32 | 1u << DML_TENSOR_DATA_TYPE_FLOAT16;
    struct dml_context *context = *state;
    DML_ELEMENT_WISE_SQRT_OPERATOR_DESC sqrt_desc;
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC add;
    DML_CONVOLUTION_OPERATOR_DESC conv;
    struct dml_tensor tensors[3];
    DML_GEMM_OPERATOR_DESC gemm;

    memset(&gemm, 0, sizeof(gemm));
    gemm.ATensor = &tensors[0].desc;
    gemm.BTensor = &tensors[1].desc;
    gemm.OutputTensor = &tensors[2].desc;
    gemm_tensors_init(tensors, DML_TENSOR_DATA_TYPE_INT8, 4);
    expect_invalid_operator(context, DML_OPERATOR_GEMM, &gemm,
            "CreateOperator(GEMM): ATensor.DataType=INT8 must be FLOAT32 or FLOAT16.");
    gemm_tensors_init(tensors, DML_TENSOR_DATA_TYPE_FLOAT32, 5);
    expect_invalid_operator(context, DML_OPERATOR_GEMM, &gemm,
            "CreateOperator(GEMM): ATensor.DimensionCount=5 must be 2 to 4.");
    gemm_tensors_init(tensors, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
    tensors[2].buffer.DataType = DML_TENSOR_DATA_TYPE_FLOAT16;
    expect_invalid_operator(context, DML_OPERATOR_GEMM, &gemm,
            "CreateOperator(GEMM): OutputTensor.DataType=FLOAT16 must equal ATensor.DataType=FLOAT32.");

    memset(&conv, 0, sizeof(conv));
    conv.InputTensor = &tensors[0].desc;
    conv.FilterTensor = &tensors[1].desc;
    conv.OutputTensor = &tensors[2].desc;
    conv.Mode = DML_CONVOLUTION_MODE_CROSS_CORRELATION;
    conv.Direction = DML_CONVOLUTION_DIRECTION_FORWARD;
    conv.DimensionCount = 2;
    conv.Strides = conv.Dilations = ones;
    conv.StartPadding = conv.EndPadding = conv.OutputPadding = zeros;
    conv.GroupCount = 1;
    conv_tensors_init(tensors, DML_TENSOR_DATA_TYPE_UINT32, 4);
    expect_invalid_operator(context, DML_OPERATOR_CONVOLUTION, &conv,
            "CreateOperator(CONVOLUTION): InputTensor.DataType=UINT32 must be FLOAT32 or FLOAT16.");
    conv_tensors_init(tensors, DML_TENSOR_DATA_TYPE_FLOAT32, 6);
    expect_invalid_operator(context, DML_OPERATOR_CONVOLUTION, &conv,
            "CreateOperator(CONVOLUTION): InputTensor.DimensionCount=6 must be 3 to 5.");
    conv_tensors_init(tensors, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
    tensors[1].buffer.DimensionCount = 3;
    tensors[1].buffer.Sizes = &tensors[1].sizes[1];
    expect_invalid_operator(context, DML_OPERATOR_CONVOLUTION, &conv,
            "CreateOperator(CONVOLUTION): FilterTensor.DimensionCount=3 must equal InputTensor.DimensionCount=4.");

    dml_tensor_init(&tensors[0], DML_TENSOR_DATA_TYPE_INT32, 4, sizes4, DML_TENSOR_FLAG_NONE);
    sqrt_desc = (DML_ELEMENT_WISE_SQRT_OPERATOR_DESC){&tensors[0].desc, &tensors[0].desc, NULL};
    expect_invalid_operator(context, DML_OPERATOR_ELEMENT_WISE_SQRT, &sqrt_desc,
            "CreateOperator(ELEMENT_WISE_SQRT): OutputTensor.DataType=INT32 must be FLOAT32 or FLOAT16.");
    dml_tensor_init(&tensors[0], DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes4, DML_TENSOR_FLAG_NONE);
    dml_tensor_init(&tensors[1], DML_TENSOR_DATA_TYPE_FLOAT32, 3, sizes3, DML_TENSOR_FLAG_NONE);
    add = (DML_ELEMENT_WISE_ADD_OPERATOR_DESC){&tensors[0].desc, &tensors[1].desc, &tensors[0].desc};
    expect_invalid_operator(context, DML_OPERATOR_ELEMENT_WISE_ADD, &add,
            "CreateOperator(ELEMENT_WISE_ADD): BTensor.DimensionCount=3 must equal OutputTensor.DimensionCount=4.");

    /* The support matrix reports the schema's types for every implemented operator. */
    assert_int_equal(vkdml_get_operator_support(vkdml_select_adapter(NULL), ARRAY_SIZE(support), support,
            sizeof(support[0])), 0);
    assert_int_equal(support[DML_OPERATOR_GEMM].data_types, f32_f16);
    assert_int_equal(support[DML_OPERATOR_CONVOLUTION].data_types, f32_f16);
    assert_int_equal(support[DML_OPERATOR_FOLD].data_types, f32_f16 | 1u << DML_TENSOR_DATA_TYPE_INT32
            | 1u << DML_TENSOR_DATA_TYPE_UINT32);
    assert_int_equal(support[DML_OPERATOR_GEMM].device_data_types & ~f32_f16, 0);
    assert_true(support[DML_OPERATOR_GEMM].device_data_types & 1u << DML_TENSOR_DATA_TYPE_FLOAT32);
    assert_no_log_errors();
}

int main(void)
{
#define TEST(name) cmocka_unit_test_setup_teardown(name, dml_context_setup, dml_context_teardown)
#define DEBUG_TEST(name) cmocka_unit_test_setup_teardown(name, dml_debug_context_setup, dml_context_teardown)
    const struct CMUnitTest tests[] =
    {
        TEST(test_create_device),
        cmocka_unit_test_setup_teardown(test_create_device_foreign, vkdml_test_log_setup, vkdml_test_log_teardown),
        TEST(test_create_device1_feature_levels),
        TEST(test_check_feature_support),
        DEBUG_TEST(test_debug_device),
        TEST(test_unimplemented),
        TEST(test_tensor_support),
        TEST(test_parent_and_children),
        TEST(test_refcounts),
        TEST(test_private_data_and_names),
        TEST(test_residency),
        TEST(test_bad_inputs),
        TEST(test_removal),
    };
#undef TEST
#undef DEBUG_TEST

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
