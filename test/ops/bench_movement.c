/*
 * Bandwidth of the movement family (issue 19's presets: JOIN of 4 x 64 MiB, SPLIT back, SLICE of
 * columns 1024:5120 of 8192^2, PADDING by 1 and TILE 2x2 of a ResNet-sized tensor) through the
 * public API, against the copy bandwidth (a packed ELEMENT_WISE_IDENTITY) measured the same way
 * in the same run: wall clock per dispatch by bench_time_per_dispatch (bench_utils.h, the R/2R
 * method). Bytes moved = bytes read + bytes written, each tensor once (SLICE reads only the
 * elements it copies). Not a test: meson builds
 * it for GPU runs; `BENCH_SMALL=1` shrinks the shapes for a lavapipe smoke run.
 */
#include "bench_utils.h"

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define MAX_TENSORS 4

struct bench_op
{
    const char *name;
    DML_OPERATOR_TYPE type;
    const void *desc;
    UINT input_count, output_count;
    struct dml_test_tensor *inputs[MAX_TENSORS], *outputs[MAX_TENSORS];
    bool read_as_written;               /* the inputs' bytes read are the outputs' (SLICE) */
};

static double tensor_bytes(const struct dml_test_tensor *t)
{
    return (double)dml_test_element_count(t) * dml_test_element_size(t->buffer.DataType);
}

/* GB/s of bytes moved (each tensor once), or 0 when skipped. */
static double bench(struct dml_test_context *context, const struct bench_op *b)
{
    ID3D12Resource *buffers[2 * MAX_TENSORS] = {0}, *persistent;
    DML_BUFFER_BINDING bb[2 * MAX_TENSORS];
    DML_BINDING_DESC bd[2 * MAX_TENSORS];
    DML_BINDING_TABLE_DESC table_desc;
    IDMLCompiledOperator *compiled;
    IDMLBindingTable *table;
    double seconds, bytes = 0.0;
    UINT i, n = b->input_count + b->output_count;

    compiled = dml_test_compile(context, b->type, b->desc, DML_EXECUTION_FLAG_NONE);
    persistent = dml_test_initialize(context, compiled, NULL, 0);
    for (i = 0; i < n; ++i)
    {
        const struct dml_test_tensor *t = i < b->input_count ? b->inputs[i] : b->outputs[i - b->input_count];

        buffers[i] = dml_test_create_buffer(context, t->buffer.TotalTensorSizeInBytes, NULL);
        bb[i] = (DML_BUFFER_BINDING){buffers[i], 0, t->buffer.TotalTensorSizeInBytes};
        bd[i] = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &bb[i]};
        bytes += tensor_bytes(b->read_as_written && i < b->input_count ? b->outputs[0] : t);
    }
    table_desc = (DML_BINDING_TABLE_DESC){(IDMLDispatchable *)compiled,
            cpu_handle(context->heap, context->increment, 0), gpu_handle(context->heap, context->increment, 0), 16};
    check_hr(IDMLDevice_CreateBindingTable(context->dml, &table_desc, &IID_IDMLBindingTable, (void **)&table), S_OK);
    IDMLBindingTable_BindInputs(table, b->input_count, bd);
    IDMLBindingTable_BindOutputs(table, b->output_count, &bd[b->input_count]);
    seconds = bench_time_per_dispatch(context, compiled, table);
    printf("%-44s %9.1f MB moved: %8.3f ms, %7.1f GB/s\n", b->name, bytes / 1e6, seconds * 1e3,
            bytes / seconds / 1e9);
    fflush(stdout);
    release_last(table);
    for (i = 0; i < n; ++i)
        release_last(buffers[i]);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    return bytes / seconds / 1e9;
}

static void report(const char *name, double rate, double copy)
{
    printf("  %-42s %.2fx of the copy bandwidth\n", name, rate / copy);
}

static void run(void **state)
{
    struct dml_test_context *context = *state;
    bool small = getenv("BENCH_SMALL") != NULL;
    /* Sizes: JOIN parts [R, C], the slice source S x S, the ResNet tensor N x 64 x 112 x 112. */
    UINT rows = small ? 64 : 4096, columns = small ? 64 : 4096, side = small ? 256 : 8192;
    UINT batch = small ? 1 : 32, hw = small ? 16 : 112;
    UINT part_sizes[2] = {rows, columns}, joined_sizes[2] = {rows, 4 * columns}, flat[1] = {4 * rows * columns};
    UINT square[2] = {side, side}, sliced[2] = {side, side / 2};
    UINT slice_offsets[2] = {0, side / 8}, slice_strides[2] = {1, 1};
    UINT resnet[4] = {batch, 64, hw, hw}, padded[4] = {batch, 64, hw + 2, hw + 2};
    UINT tiled[4] = {batch, 64, 2 * hw, 2 * hw};
    UINT pads[4] = {0, 0, 1, 1}, repeats[4] = {1, 1, 2, 2};
    UINT d2s_in[4] = {batch, 256, hw / 2, hw / 2}, d2s_out[4] = {batch, 64, hw, hw};
    struct dml_test_tensor parts[4], joined, copy_in, copy_out, square_t, sliced_t, resnet_t, padded_t, tiled_t;
    struct dml_test_tensor resnet_copy, d2s_in_t, d2s_out_t;
    DML_TENSOR_DESC part_descs[4];
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity = {&copy_in.desc, &copy_out.desc, NULL};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity_resnet = {&resnet_t.desc, &resnet_copy.desc, NULL};
    DML_JOIN_OPERATOR_DESC join = {4, part_descs, &joined.desc, 1};
    DML_JOIN_OPERATOR_DESC join0;
    DML_SPLIT_OPERATOR_DESC split = {&joined.desc, 4, part_descs, 1};
    DML_SLICE_OPERATOR_DESC slice = {&square_t.desc, &sliced_t.desc, 2, slice_offsets, sliced, slice_strides};
    DML_PADDING_OPERATOR_DESC padding = {&resnet_t.desc, &padded_t.desc, DML_PADDING_MODE_CONSTANT, 0.0f, 4, pads,
            pads};
    DML_TILE_OPERATOR_DESC tile = {&resnet_t.desc, &tiled_t.desc, 4, repeats};
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC d2s = {&d2s_in_t.desc, &d2s_out_t.desc, 2,
            DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW};
    double copy, rate;
    UINT i;

    for (i = 0; i < 4; ++i)
    {
        dml_test_tensor_init(&parts[i], F32, 2, part_sizes, NULL);
        part_descs[i] = parts[i].desc;
    }
    dml_test_tensor_init(&joined, F32, 2, joined_sizes, NULL);
    dml_test_tensor_init(&copy_in, F32, 1, flat, NULL);
    dml_test_tensor_init(&copy_out, F32, 1, flat, NULL);
    dml_test_tensor_init(&square_t, F32, 2, square, NULL);
    dml_test_tensor_init(&sliced_t, F32, 2, sliced, NULL);
    dml_test_tensor_init(&resnet_t, F32, 4, resnet, NULL);
    dml_test_tensor_init(&resnet_copy, F32, 4, resnet, NULL);
    dml_test_tensor_init(&padded_t, F32, 4, padded, NULL);
    dml_test_tensor_init(&tiled_t, F32, 4, tiled, NULL);
    dml_test_tensor_init(&d2s_in_t, F32, 4, d2s_in, NULL);
    dml_test_tensor_init(&d2s_out_t, F32, 4, d2s_out, NULL);
    join0 = join;
    join0.Axis = 0;
    {
        struct bench_op copy_op = {"copy: IDENTITY fp32, 4 x 64 MiB", DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity,
                1, 1, {&copy_in}, {&copy_out}};
        struct bench_op copy_resnet = {"copy: IDENTITY fp32 32x64x112x112", DML_OPERATOR_ELEMENT_WISE_IDENTITY,
                &identity_resnet, 1, 1, {&resnet_t}, {&resnet_copy}};
        struct bench_op join_op = {"JOIN 4 x 64 MiB fp32, axis 1", DML_OPERATOR_JOIN, &join, 4, 1,
                {&parts[0], &parts[1], &parts[2], &parts[3]}, {&joined}};
        struct bench_op join0_op = {"JOIN 4 x 64 MiB fp32, axis 0 (as 4096x16384)", DML_OPERATOR_JOIN, &join0, 4, 1,
                {&parts[0], &parts[1], &parts[2], &parts[3]}, {&joined}};
        struct bench_op split_op = {"SPLIT back, axis 1", DML_OPERATOR_SPLIT, &split, 1, 4, {&joined},
                {&parts[0], &parts[1], &parts[2], &parts[3]}};
        struct bench_op slice_op = {"SLICE columns 1024:5120 of 8192^2 fp32", DML_OPERATOR_SLICE, &slice, 1, 1,
                {&square_t}, {&sliced_t}, true};
        struct bench_op padding_op = {"PADDING by 1 of 32x64x112x112 fp32", DML_OPERATOR_PADDING, &padding, 1, 1,
                {&resnet_t}, {&padded_t}};
        struct bench_op tile_op = {"TILE 2x2 of 32x64x112x112 fp32", DML_OPERATOR_TILE, &tile, 1, 1, {&resnet_t},
                {&tiled_t}};
        struct bench_op d2s_op = {"DEPTH_TO_SPACE1 b2 32x256x56x56 fp32", DML_OPERATOR_DEPTH_TO_SPACE1, &d2s, 1, 1,
                {&d2s_in_t}, {&d2s_out_t}};

        /* JOIN along axis 0 of [R, C] parts into [R, 4C] would not match: run it on [4R, C]. */
        joined_sizes[0] = 4 * rows, joined_sizes[1] = columns;
        dml_test_tensor_init(&joined, F32, 2, joined_sizes, NULL);
        join0.OutputTensor = &joined.desc;
        copy = bench(context, &copy_op);
        report("(reference)", copy, copy);
        rate = bench(context, &join0_op);
        report("JOIN axis 0", rate, copy);
        joined_sizes[0] = rows, joined_sizes[1] = 4 * columns;
        dml_test_tensor_init(&joined, F32, 2, joined_sizes, NULL);
        rate = bench(context, &join_op);
        report("JOIN axis 1", rate, copy);
        rate = bench(context, &split_op);
        report("SPLIT axis 1", rate, copy);
        rate = bench(context, &slice_op);
        report("SLICE", rate, copy);
        rate = bench(context, &copy_resnet);
        report("copy of the ResNet tensor", rate, copy);
        rate = bench(context, &padding_op);
        report("PADDING", rate, copy);
        rate = bench(context, &tile_op);
        report("TILE", rate, copy);
        rate = bench(context, &d2s_op);
        report("DEPTH_TO_SPACE1", rate, copy);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(run, dml_test_setup, dml_test_teardown),
    };

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
