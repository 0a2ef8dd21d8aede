/*
 * Embedding vkdml in an engine (vkdml_vulkan.h), with the engine of engine.h:
 *
 * - the example: the engine creates its instance and device, hands them to vkdml, wraps its own
 *   buffers, and records ELEMENT_WISE_ADD and GEMM into its own command buffer between its own
 *   work (vkCmdFillBuffer and its own shader through a descriptor set that stays bound), with a
 *   profiler, then submits with its own fence and checks everything;
 * - two independent vkdml devices on two engines' devices in one process;
 * - an engine device without shaderFloat16: FLOAT16 operators refused with a clear message;
 * - an engine device without bufferDeviceAddress: refused at creation;
 * - a wrapped buffer too small for a tensor: refused at binding;
 * - the shim's own queue and copies on the engine's device and wrapped buffers;
 * - the error paths of the embedding entry points, and the memory budget of adapter info;
 * - the engine's VkPipelineCache: used for every pipeline, never persisted or destroyed by vkdml.
 * The profiler on vkdml's own D3D12 device is in test_profiler.c.
 * Every engine ends with vkDestroyDevice under the validation layer, which reports any Vulkan
 * object vkdml left behind (or destroyed twice) on the engine's device.
 */
#include "embed_utils.h"

#include <dirent.h>
#include <unistd.h>

static const uint32_t float_two_bits = 0x40000000u;  /* 2.0f, for vkCmdFillBuffer */

/* ---- Watching vkdml's debug labels through the vkGetInstanceProcAddr the engine hands it ---- */

static PFN_vkCmdBeginDebugUtilsLabelEXT real_begin_label;
static PFN_vkCmdEndDebugUtilsLabelEXT real_end_label;
static char labels[8][64];
static unsigned int label_begins, label_ends;

static VKAPI_ATTR void VKAPI_CALL spy_begin_label(VkCommandBuffer command_buffer, const VkDebugUtilsLabelEXT *label)
{
    if (label_begins < sizeof(labels) / sizeof(labels[0]))
        snprintf(labels[label_begins], sizeof(labels[0]), "%s", label->pLabelName);
    ++label_begins;
    real_begin_label(command_buffer, label);
}

static VKAPI_ATTR void VKAPI_CALL spy_end_label(VkCommandBuffer command_buffer)
{
    ++label_ends;
    real_end_label(command_buffer);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL spy_get_instance_proc_addr(VkInstance instance, const char *name)
{
    if (!strcmp(name, "vkCmdBeginDebugUtilsLabelEXT"))
    {
        real_begin_label = (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetInstanceProcAddr(instance, name);
        return real_begin_label ? (PFN_vkVoidFunction)spy_begin_label : NULL;
    }
    if (!strcmp(name, "vkCmdEndDebugUtilsLabelEXT"))
    {
        real_end_label = (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetInstanceProcAddr(instance, name);
        return real_end_label ? (PFN_vkVoidFunction)spy_end_label : NULL;
    }
    return vkGetInstanceProcAddr(instance, name);
}

/* One balanced label per operator, named as the profiler names it; none at all without the extension. */
static void check_example_labels(const struct embed *e)
{
    if (!e->engine.instance_extension_count)
    {
        assert_int_equal(label_begins, 0);
        assert_int_equal(label_ends, 0);
        return;
    }
    assert_int_equal(label_begins, 2);
    assert_int_equal(label_ends, 2);
    assert_string_equal(labels[0], "ELEMENT_WISE_ADD");
    assert_string_equal(labels[1], "engine gemm");
}

/* ---- The example ---- */

#define M 16
#define K 32
#define N 8

/* One engine buffer holds every tensor, each at its own 256-aligned offset (wrapped one by one). */
enum { OFFSET_X = 0, OFFSET_Y = 2048, OFFSET_Z = 4096, OFFSET_G = 6144, OFFSET_W = 7168, ENGINE_BYTES = 7680 };

static void check_example_results(const uint8_t *memory, const float *y0, const float *g)
{
    const float *x = (const float *)(memory + OFFSET_X), *y = (const float *)(memory + OFFSET_Y);
    const float *z = (const float *)(memory + OFFSET_Z), *w = (const float *)(memory + OFFSET_W);
    unsigned int i, row, column;

    for (i = 0; i < M * K; ++i)
    {
        assert_true(x[i] == 2.0f);                          /* the engine's fill */
        assert_true(fabsf(z[i] - (2.0f + 3.0f * y0[i])) <= 1e-6f);   /* vkdml's ADD after the engine's x3 */
        assert_true(fabsf(y[i] - 1.5f * y0[i]) <= 1e-6f);  /* the engine's x0.5 after the ADD */
    }
    for (row = 0; row < M; ++row)
    {
        for (column = 0; column < N; ++column)
        {
            double sum = 0.0;

            for (i = 0; i < K; ++i)
                sum += (double)z[row * K + i] * g[i * N + column];
            assert_true(fabs(w[row * N + column] - sum) <= 1e-4 * (1.0 + fabs(sum)));
        }
    }
}

static void check_example_profile(struct vkdml_profiler *profiler)
{
    struct vkdml_profiler_entry entries[4];
    uint32_t count = 4;

    check_hr(vkdml_profiler_get_results(profiler, entries, sizeof(entries[0]), &count), S_OK);
    assert_int_equal(count, 2);
    assert_string_equal(entries[0].name, "ELEMENT_WISE_ADD");
    assert_string_equal(entries[1].name, "engine gemm");    /* SetName's name */
    assert_true(entries[0].start_ns < entries[0].end_ns);
    assert_true(entries[0].end_ns <= entries[1].start_ns);
    assert_true(entries[1].start_ns < entries[1].end_ns);
    assert_int_equal(entries[1].duration_ns, entries[1].end_ns - entries[1].start_ns);
}

static void test_engine_example(void **state)
{
    struct tensor t_mk, t_kn, t_mn;
    IDMLCompiledOperator *ops[2];
    IDMLOperatorInitializer *initializer;
    IDMLBindingTable *add_table, *gemm_table;
    ID3D12Resource *x, *y, *z, *g, *w, *temporaries[3];
    struct vkdml_profiler *profiler;
    struct engine_buffer memory;
    VkCommandBuffer cmd;
    VkDescriptorSet y_set;
    float y0[M * K], g0[K * N];
    struct embed e;

    label_begins = label_ends = 0;
    embed_create_with_loader(&e, NULL, spy_get_instance_proc_addr);
    tensor_init(&t_mk, DML_TENSOR_DATA_TYPE_FLOAT32, M, K);
    tensor_init(&t_kn, DML_TENSOR_DATA_TYPE_FLOAT32, K, N);
    tensor_init(&t_mn, DML_TENSOR_DATA_TYPE_FLOAT32, M, N);
    check_hr(create_add(&e, &t_mk, &t_mk, &t_mk, &ops[0]), S_OK);
    ops[1] = compile_gemm(&e, &t_mk, &t_kn, &t_mn);
    check_hr(IDMLCompiledOperator_SetName(ops[1], L"engine gemm"), S_OK);
    check_hr(vkdml_profiler_create(e.dml, 8, &profiler), S_OK);

    /* The engine's memory, its data, and vkdml's view of it. */
    engine_buffer_create(&e.engine, ENGINE_BYTES, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
            | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, &memory);
    fill_random(y0, M * K, 1);
    fill_random(g0, K * N, 2);
    memcpy((uint8_t *)memory.mapped + OFFSET_Y, y0, sizeof(y0));
    memcpy((uint8_t *)memory.mapped + OFFSET_G, g0, sizeof(g0));
    x = wrap(&e, &memory, OFFSET_X, t_mk.buffer.TotalTensorSizeInBytes);
    y = wrap(&e, &memory, OFFSET_Y, t_mk.buffer.TotalTensorSizeInBytes);
    z = wrap(&e, &memory, OFFSET_Z, t_mk.buffer.TotalTensorSizeInBytes);
    g = wrap(&e, &memory, OFFSET_G, t_kn.buffer.TotalTensorSizeInBytes);
    w = wrap(&e, &memory, OFFSET_W, t_mn.buffer.TotalTensorSizeInBytes);
    {
        ID3D12Resource *add_inputs[] = {x, y}, *gemm_inputs[] = {z, g, NULL};
        UINT64 add_sizes[] = {t_mk.buffer.TotalTensorSizeInBytes, t_mk.buffer.TotalTensorSizeInBytes};
        UINT64 gemm_sizes[] = {t_mk.buffer.TotalTensorSizeInBytes, t_kn.buffer.TotalTensorSizeInBytes, 0};

        add_table = bind_operator(&e, ops[0], add_inputs, add_sizes, 2, z, t_mk.buffer.TotalTensorSizeInBytes,
                &temporaries[0]);
        gemm_table = bind_operator(&e, ops[1], gemm_inputs, gemm_sizes, 3, w, t_mn.buffer.TotalTensorSizeInBytes,
                &temporaries[1]);
    }
    y_set = engine_scale_set(&e.engine, &memory, OFFSET_Y, sizeof(y0));

    /* One command buffer of the engine: its work and vkdml's, ordered by its own barriers. */
    cmd = engine_begin(&e.engine);
    initializer = record_initializer(&e, cmd, ops, 2, &temporaries[2]);
    vkCmdFillBuffer(cmd, memory.buffer, OFFSET_X, t_mk.buffer.TotalTensorSizeInBytes, float_two_bits);
    engine_record_scale(&e.engine, cmd, y_set, true, 3.0f, M * K);
    engine_barrier(&e.engine, cmd, VK_PIPELINE_STAGE_2_CLEAR_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
            VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT
            | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    check_hr(vkdml_record_dispatch_vk(e.recorder, cmd, ops[0], add_table, profiler), S_OK);
    compute_barrier(&e, cmd);
    /* vkdml changed the pipeline and push constants only: the engine's set is still bound. */
    engine_record_scale(&e.engine, cmd, y_set, false, 0.5f, M * K);
    compute_barrier(&e, cmd);
    check_hr(vkdml_record_dispatch_vk(e.recorder, cmd, ops[1], gemm_table, profiler), S_OK);
    engine_barrier(&e.engine, cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
            VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    engine_submit_and_wait(&e.engine, cmd);

    check_hr(IDMLDevice_GetDeviceRemovedReason(e.dml), S_OK);
    check_example_results(memory.mapped, y0, g0);
    check_example_profile(profiler);
    check_example_labels(&e);
    /* vkdml used the engine's queue (the profiler's pool reset) only inside its lock callbacks. */
    assert_true(e.engine.lock_count > 0);

    vkdml_profiler_destroy(profiler);
    release_if(initializer);
    release_if(add_table);
    release_if(gemm_table);
    release_if(ops[0]);
    release_if(ops[1]);
    release_if(x);
    release_if(y);
    release_if(z);
    release_if(g);
    release_if(w);
    release_if(temporaries[0]);
    release_if(temporaries[1]);
    release_if(temporaries[2]);
    engine_buffer_destroy(&e.engine, &memory);
    embed_destroy(&e);
}

/* ---- Independent devices ---- */

#define ADD_COUNT 1024

struct add_job
{
    struct tensor tensor;
    IDMLCompiledOperator *op;
    IDMLBindingTable *table;
    IDMLOperatorInitializer *initializer;
    ID3D12Resource *a, *b, *out, *temporaries[2];
    struct engine_buffer memory;
    float expected[ADD_COUNT];
};

/* out = a + b over the engine's buffer [a | b | out], 4 KiB each. */
static void add_job_prepare(struct embed *e, struct add_job *job, uint32_t seed)
{
    ID3D12Resource *inputs[2];
    UINT64 sizes[2];
    float *a, *b;
    unsigned int i;

    memset(job, 0, sizeof(*job));
    tensor_init(&job->tensor, DML_TENSOR_DATA_TYPE_FLOAT32, 1, ADD_COUNT);
    check_hr(create_add(e, &job->tensor, &job->tensor, &job->tensor, &job->op), S_OK);
    engine_buffer_create(&e->engine, 3 * sizeof(job->expected), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
            | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, &job->memory);
    a = job->memory.mapped;
    b = a + ADD_COUNT;
    fill_random(a, ADD_COUNT, seed);
    fill_random(b, ADD_COUNT, seed + 100);
    for (i = 0; i < ADD_COUNT; ++i)
        job->expected[i] = a[i] + b[i];
    job->a = inputs[0] = wrap(e, &job->memory, 0, sizeof(job->expected));
    job->b = inputs[1] = wrap(e, &job->memory, sizeof(job->expected), sizeof(job->expected));
    job->out = wrap(e, &job->memory, 2 * sizeof(job->expected), sizeof(job->expected));
    sizes[0] = sizes[1] = sizeof(job->expected);
    job->table = bind_operator(e, job->op, inputs, sizes, 2, job->out, sizeof(job->expected), &job->temporaries[0]);
}

static VkCommandBuffer add_job_record(struct embed *e, struct add_job *job)
{
    VkCommandBuffer cmd = engine_begin(&e->engine);

    job->initializer = record_initializer(e, cmd, &job->op, 1, &job->temporaries[1]);
    check_hr(vkdml_record_dispatch_vk(e->recorder, cmd, job->op, job->table, NULL), S_OK);
    engine_barrier(&e->engine, cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
            VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    return cmd;
}

static void add_job_release(struct embed *e, struct add_job *job)
{
    release_if(job->initializer);
    release_if(job->table);
    release_if(job->op);
    release_if(job->a);
    release_if(job->b);
    release_if(job->out);
    release_if(job->temporaries[0]);
    release_if(job->temporaries[1]);
    engine_buffer_destroy(&e->engine, &job->memory);
}

static void add_job_check_and_release(struct embed *e, struct add_job *job)
{
    const float *out = (const float *)job->memory.mapped + 2 * ADD_COUNT;
    unsigned int i;

    for (i = 0; i < ADD_COUNT; ++i)
        assert_true(out[i] == job->expected[i]);
    add_job_release(e, job);
}

static void test_two_devices(void **state)
{
    struct embed *first = malloc(sizeof(*first)), *second = malloc(sizeof(*second));
    struct add_job *jobs = malloc(3 * sizeof(*jobs));
    VkCommandBuffer cmd[2];

    assert_non_null(first);
    assert_non_null(second);
    assert_non_null(jobs);
    embed_create(first, NULL);
    embed_create(second, NULL);
    assert_ptr_not_equal(first->d3d12, second->d3d12);
    /* Interleaved: each device's objects, recording and queue are its own. */
    add_job_prepare(first, &jobs[0], 11);
    add_job_prepare(second, &jobs[1], 22);
    cmd[0] = add_job_record(first, &jobs[0]);
    cmd[1] = add_job_record(second, &jobs[1]);
    engine_submit_and_wait(&second->engine, cmd[1]);
    engine_submit_and_wait(&first->engine, cmd[0]);
    add_job_check_and_release(first, &jobs[0]);
    add_job_check_and_release(second, &jobs[1]);
    /* One goes (vkdml leaves its engine's device and instance to the engine); the other goes on. */
    embed_destroy(first);
    add_job_prepare(second, &jobs[2], 33);
    engine_submit_and_wait(&second->engine, add_job_record(second, &jobs[2]));
    add_job_check_and_release(second, &jobs[2]);
    embed_destroy(second);
    free(jobs);
    free(first);
    free(second);
}

/* ---- Features the engine did not enable ---- */

static char captured[1024];

static void capture_log(void *user_data, enum vkdml_log_level level, enum vkdml_log_source source,
        const char *function, const char *message)
{
    if (level <= VKDML_LOG_FIXME)
        snprintf(captured, sizeof(captured), "%s: %s", function, message);
}

static void test_no_float16(void **state)
{
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query = {DML_TENSOR_DATA_TYPE_FLOAT16};
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT support;
    const struct engine_options options = {.no_float16 = true};
    struct tensor half, single;
    IDMLCompiledOperator *compiled;
    struct embed e;

    embed_create(&e, &options);
    check_hr(IDMLDevice_CheckFeatureSupport(e.dml, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query), &query,
            sizeof(support), &support), S_OK);
    assert_false(support.IsSupported);

    tensor_init(&half, DML_TENSOR_DATA_TYPE_FLOAT16, 4, 4);
    captured[0] = 0;
    vkdml_set_log_callback(capture_log, NULL);
    check_hr(create_add(&e, &half, &half, &half, &compiled), E_NOTIMPL);
    vkdml_test_init_logging();
    assert_null(compiled);
    fprintf(stderr, "  refused as: %s\n", captured);
    assert_non_null(strstr(captured, "FLOAT16"));
    assert_non_null(strstr(captured, "shaderFloat16"));

    /* FLOAT32 is unaffected. */
    tensor_init(&single, DML_TENSOR_DATA_TYPE_FLOAT32, 4, 4);
    check_hr(create_add(&e, &single, &single, &single, &compiled), S_OK);
    release_if(compiled);
    embed_destroy(&e);
}

static void test_no_buffer_device_address(void **state)
{
    const struct engine_options options = {.no_buffer_device_address = true};
    struct vkdml_vulkan_device_desc desc;
    struct engine engine;
    IDMLDevice *dml = (IDMLDevice *)&desc;

    engine_create(&engine, &options);
    engine_device_desc(&engine, &desc);
    check_hr(vkdml_create_device_from_vulkan(&desc, 0, NULL, (void **)&dml, NULL, NULL), DXGI_ERROR_UNSUPPORTED);
    assert_null(dml);
    check_one_error("bufferDeviceAddress");
    engine_destroy(&engine);
}

/* ---- Binding a wrapped buffer too small for the tensor ---- */

static void test_wrapped_buffer_too_small(void **state)
{
    struct tensor tensor;
    struct engine_buffer memory;
    IDMLCompiledOperator *op;
    IDMLBindingTable *table;
    ID3D12Resource *small, *big;
    DML_BUFFER_BINDING storage[2];
    DML_BINDING_DESC bindings[2];
    struct embed e;

    embed_create(&e, NULL);
    tensor_init(&tensor, DML_TENSOR_DATA_TYPE_FLOAT32, 1, 64);     /* 256 bytes */
    check_hr(create_add(&e, &tensor, &tensor, &tensor, &op), S_OK);
    engine_buffer_create(&e.engine, 512, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
            | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, &memory);
    big = wrap(&e, &memory, 0, 256);
    small = wrap(&e, &memory, 256, 64);
    table = create_table(&e, op);
    bindings[0] = buffer_binding(&storage[0], big, 256);
    bindings[1] = buffer_binding(&storage[1], small, 256);
    IDMLBindingTable_BindInputs(table, 2, bindings);
    check_one_error("64-byte buffer");
    /* DirectML's rule for misuse in a void method: the DML device is removed. */
    check_hr(IDMLDevice_GetDeviceRemovedReason(e.dml), E_INVALIDARG);

    release_if(table);
    release_if(op);
    release_if(big);
    release_if(small);
    engine_buffer_destroy(&e.engine, &memory);
    embed_destroy(&e);
}

/* ---- Error paths ---- */

static void test_create_errors(void **state)
{
    struct vkdml_vulkan_device_desc desc, good;
    struct engine engine, other;
    ID3D12Device *d3d12 = (ID3D12Device *)&desc;
    IDMLDevice *dml = (IDMLDevice *)&desc;

    engine_create(&engine, NULL);
    engine_device_desc(&engine, &good);

    check_hr(vkdml_create_device_from_vulkan(NULL, 0, NULL, (void **)&dml, NULL, (void **)&d3d12), E_INVALIDARG);
    assert_null(dml);
    assert_null(d3d12);
    check_one_error("desc is NULL");

#define EXPECT_DESC_ERROR(change, hr, message) do { \
        desc = good; \
        change; \
        check_hr(vkdml_create_device_from_vulkan(&desc, 0, NULL, (void **)&dml, NULL, NULL), hr); \
        assert_null(dml); \
        check_one_error(message); \
    } while (0)
    EXPECT_DESC_ERROR(desc.struct_size = 8, E_INVALIDARG, "struct_size");
    EXPECT_DESC_ERROR(desc.next = &good, E_INVALIDARG, "next");
    EXPECT_DESC_ERROR(desc.get_instance_proc_addr = NULL, E_INVALIDARG, "get_instance_proc_addr is NULL");
    EXPECT_DESC_ERROR(desc.instance = VK_NULL_HANDLE, E_INVALIDARG, "instance is NULL");
    EXPECT_DESC_ERROR(desc.physical_device = VK_NULL_HANDLE, E_INVALIDARG, "physical_device is NULL");
    EXPECT_DESC_ERROR(desc.device = VK_NULL_HANDLE, E_INVALIDARG, "device is NULL");
    EXPECT_DESC_ERROR(desc.instance_api_version = VK_API_VERSION_1_1, DXGI_ERROR_UNSUPPORTED, "apiVersion 1.2");
    EXPECT_DESC_ERROR(desc.enabled_device_extensions = NULL; desc.enabled_device_extension_count = 1, E_INVALIDARG,
            "enabled_device_extensions is NULL");
    EXPECT_DESC_ERROR(desc.enabled_instance_extensions = NULL; desc.enabled_instance_extension_count = 1,
            E_INVALIDARG, "enabled_instance_extensions is NULL");
    EXPECT_DESC_ERROR(desc.unlock_queue = NULL, E_INVALIDARG, "both callbacks");
    EXPECT_DESC_ERROR(desc.flags = 0x100, E_INVALIDARG, "unknown bits");
    EXPECT_DESC_ERROR(desc.queue_family_index = 1000, E_INVALIDARG, "queue_family_index 1000");
    EXPECT_DESC_ERROR(desc.queue_index = engine.queue_count, E_INVALIDARG, "queue_index");

    /* A physical device of another instance. */
    engine_create(&other, NULL);
    EXPECT_DESC_ERROR(desc.physical_device = other.physical_device, E_INVALIDARG, "not one of desc->instance");
    engine_destroy(&other);
#undef EXPECT_DESC_ERROR

    /* With neither out-pointer: only a check (S_FALSE), nothing kept. */
    check_hr(vkdml_create_device_from_vulkan(&good, 0, NULL, NULL, NULL, NULL), S_FALSE);
    /* A bad DML flag: DMLCreateDevice's own error; the D3D12 device is not handed out either. */
    check_hr(vkdml_create_device_from_vulkan(&good, 0x80, NULL, (void **)&dml, &IID_ID3D12Device, (void **)&d3d12),
            E_INVALIDARG);
    assert_null(dml);
    assert_null(d3d12);
    check_one_error("flags");
    engine_destroy(&engine);
    assert_no_log_errors();
}

static void test_wrap_errors(void **state)
{
    struct vkdml_vulkan_buffer_desc desc, good;
    struct engine_buffer memory, plain;
    ID3D12Resource *resource = (ID3D12Resource *)&desc;
    ID3D12Device *own;
    struct embed e;

    embed_create(&e, NULL);
    engine_buffer_create(&e.engine, 1024, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
            | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, &memory);
    engine_buffer_create(&e.engine, 1024, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &plain);
    buffer_desc_init(&good, &memory, 256, 512);

    check_hr(vkdml_wrap_vk_buffer(e.d3d12, &good, NULL, NULL), E_POINTER);
    check_one_error("resource is NULL");
    check_hr(vkdml_wrap_vk_buffer(NULL, &good, NULL, (void **)&resource), E_INVALIDARG);
    assert_null(resource);
    check_one_error("not an ID3D12Device of vkdml");
    check_hr(vkdml_wrap_vk_buffer(e.dml, &good, NULL, (void **)&resource), E_INVALIDARG);
    check_one_error("not an ID3D12Device of vkdml");
    /* A device vkdml made itself: no engine buffer can belong to it. */
    check_hr(vkdml_create_d3d12_device(NULL, &IID_ID3D12Device, (void **)&own), S_OK);
    check_hr(vkdml_wrap_vk_buffer(own, &good, NULL, (void **)&resource), E_INVALIDARG);
    check_one_error("vkdml_create_device_from_vulkan");
    assert_int_equal(ID3D12Device_Release(own), 0);
    check_hr(vkdml_wrap_vk_buffer(e.d3d12, NULL, NULL, (void **)&resource), E_INVALIDARG);
    check_one_error("desc is NULL");

#define EXPECT_WRAP_ERROR(change, message) do { \
        desc = good; \
        change; \
        check_hr(vkdml_wrap_vk_buffer(e.d3d12, &desc, NULL, (void **)&resource), E_INVALIDARG); \
        assert_null(resource); \
        check_one_error(message); \
    } while (0)
    EXPECT_WRAP_ERROR(desc.struct_size = 4, "struct_size");
    EXPECT_WRAP_ERROR(desc.next = &good, "next");
    EXPECT_WRAP_ERROR(desc.buffer = VK_NULL_HANDLE, "VK_NULL_HANDLE");
    EXPECT_WRAP_ERROR(desc.usage = VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, "VK_BUFFER_USAGE_STORAGE_BUFFER_BIT");
    EXPECT_WRAP_ERROR(desc.buffer = plain.buffer; desc.usage = plain.usage, "SHADER_DEVICE_ADDRESS_BIT");
    EXPECT_WRAP_ERROR(desc.size = 0, "size is 0");
    EXPECT_WRAP_ERROR(desc.size = 1024, "runs past the 1024-byte buffer");
    EXPECT_WRAP_ERROR(desc.offset = 2048, "runs past the 1024-byte buffer");
    EXPECT_WRAP_ERROR(desc.address = memory.address + 256, "not the buffer's device address");
    EXPECT_WRAP_ERROR(desc.offset = 16, "multiple of 256");
#undef EXPECT_WRAP_ERROR

    /* Address 0: vkdml asks Vulkan itself; a riid the resource lacks. */
    desc = good;
    desc.address = 0;
    check_hr(vkdml_wrap_vk_buffer(e.d3d12, &desc, &IID_ID3D12Device, (void **)&resource), E_NOINTERFACE);
    assert_null(resource);
    check_hr(vkdml_wrap_vk_buffer(e.d3d12, &desc, NULL, (void **)&resource), S_OK);
    assert_int_equal(ID3D12Resource_GetGPUVirtualAddress(resource), memory.address + 256);
    release_if(resource);

    engine_buffer_destroy(&e.engine, &plain);
    engine_buffer_destroy(&e.engine, &memory);
    embed_destroy(&e);
}

/* The shim's own queue, list and fence on the engine's device, copying between wrapped ranges. */
static void test_shim_queue_on_engine_device(void **state)
{
    D3D12_COMMAND_QUEUE_DESC queue_desc = {D3D12_COMMAND_LIST_TYPE_DIRECT};
    ID3D12GraphicsCommandList *list;
    ID3D12CommandAllocator *allocator;
    ID3D12CommandList *lists[1];
    ID3D12CommandQueue *queue;
    ID3D12Resource *src, *dst;
    struct engine_buffer memory;
    unsigned int locks, i;
    ID3D12Fence *fence;
    uint32_t *words;
    struct embed e;

    embed_create(&e, NULL);
    engine_buffer_create(&e.engine, 1024, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT
            | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, &memory);
    words = memory.mapped;
    for (i = 0; i < 256; ++i)
        words[i] = i < 64 ? 0x1000 + i : 0;
    src = wrap(&e, &memory, 0, 256);
    dst = wrap(&e, &memory, 512, 512);
    check_hr(ID3D12Device_CreateCommandQueue(e.d3d12, &queue_desc, &IID_ID3D12CommandQueue, (void **)&queue), S_OK);
    check_hr(ID3D12Device_CreateCommandAllocator(e.d3d12, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator,
            (void **)&allocator), S_OK);
    check_hr(ID3D12Device_CreateCommandList(e.d3d12, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL,
            &IID_ID3D12GraphicsCommandList, (void **)&list), S_OK);
    check_hr(ID3D12Device_CreateFence(e.d3d12, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence), S_OK);
    /* Bytes 16..79 of src to bytes 32..95 of dst: offsets are the resources', not the VkBuffer's. */
    ID3D12GraphicsCommandList_CopyBufferRegion(list, dst, 32, src, 16, 64);
    check_hr(ID3D12GraphicsCommandList_Close(list), S_OK);
    lists[0] = (ID3D12CommandList *)list;
    locks = e.engine.lock_count;
    ID3D12CommandQueue_ExecuteCommandLists(queue, 1, lists);
    check_hr(ID3D12CommandQueue_Signal(queue, fence, 1), S_OK);
    check_hr(ID3D12Fence_SetEventOnCompletion(fence, 1, NULL), S_OK);
    /* Every submission to the engine's VkQueue took the engine's lock. */
    assert_true(e.engine.lock_count >= locks + 1);
    for (i = 0; i < 256; ++i)
    {
        uint32_t expected = i < 64 ? 0x1000 + i : 0;

        if (i >= 128 + 8 && i < 128 + 24)   /* dst starts at word 128; bytes 32..95 are words 8..23 */
            expected = 0x1000 + (i - 128 - 8) + 4;
        assert_int_equal(words[i], expected);
    }

    release_if(fence);
    release_if(list);
    release_if(allocator);
    release_if(queue);
    release_if(src);
    release_if(dst);
    engine_buffer_destroy(&e.engine, &memory);
    embed_destroy(&e);
}

static void test_record_errors(void **state)
{
    struct add_job job;
    struct vkdml_profiler *foreign;
    ID3D12Device *own;
    VkCommandBuffer cmd;
    struct embed e;

    embed_create(&e, NULL);
    add_job_prepare(&e, &job, 5);
    check_hr(vkdml_create_d3d12_device(NULL, &IID_ID3D12Device, (void **)&own), S_OK);
    check_hr(vkdml_profiler_create(own, 4, &foreign), S_OK);
    cmd = engine_begin(&e.engine);

    check_hr(vkdml_record_dispatch_vk(NULL, cmd, job.op, job.table, NULL), E_INVALIDARG);
    check_one_error("command_recorder");
    check_hr(vkdml_record_dispatch_vk(e.dml, cmd, job.op, job.table, NULL), E_INVALIDARG);
    check_one_error("not an IDMLCommandRecorder");
    check_hr(vkdml_record_dispatch_vk(e.recorder, VK_NULL_HANDLE, job.op, job.table, NULL), E_INVALIDARG);
    check_one_error("command_buffer is VK_NULL_HANDLE");
    check_hr(vkdml_record_dispatch_vk(e.recorder, cmd, job.op, job.table, foreign), E_INVALIDARG);
    check_one_error("another D3D12 device");
    {
        /* A DML device on vkdml's own VkDevice: no engine command buffer can be of it. */
        IDMLCommandRecorder *own_recorder;
        IDMLDevice *own_dml;

        check_hr(DMLCreateDevice(own, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, (void **)&own_dml), S_OK);
        check_hr(IDMLDevice_CreateCommandRecorder(own_dml, &IID_IDMLCommandRecorder, (void **)&own_recorder), S_OK);
        check_hr(vkdml_record_dispatch_vk(own_recorder, cmd, job.op, job.table, NULL), E_INVALIDARG);
        check_one_error("vkdml_create_device_from_vulkan");
        check_hr(IDMLDevice_GetDeviceRemovedReason(own_dml), S_OK);
        release_if(own_recorder);
        release_if(own_dml);
    }
    /* None of those touched the DML device. */
    check_hr(IDMLDevice_GetDeviceRemovedReason(e.dml), S_OK);

    /* RecordDispatch's own rules remove the device, as DirectML does. */
    check_hr(vkdml_record_dispatch_vk(e.recorder, cmd, job.table, job.table, NULL), DXGI_ERROR_DEVICE_REMOVED);
    check_one_error("not a compiled operator");
    check_hr(IDMLDevice_GetDeviceRemovedReason(e.dml), E_INVALIDARG);
    check_hr(vkdml_record_dispatch_vk(e.recorder, cmd, job.op, job.table, NULL), DXGI_ERROR_DEVICE_REMOVED);
    assert_no_log_errors();

    engine_submit_and_wait(&e.engine, cmd);     /* nothing was recorded */
    vkdml_profiler_destroy(foreign);
    assert_int_equal(ID3D12Device_Release(own), 0);
    add_job_release(&e, &job);
    embed_destroy(&e);
}

/* ---- The engine's pipeline cache (desc.pipeline_cache), watched through vkGetDeviceProcAddr ---- */

static PFN_vkGetDeviceProcAddr real_get_device_proc_addr;
static PFN_vkCreatePipelineCache real_create_pipeline_cache;
static PFN_vkCreateComputePipelines real_create_compute_pipelines;
static VkPipelineCache watched_engine_cache;
static unsigned int caches_created, pipelines_created, pipelines_through_engine_cache;

static VKAPI_ATTR VkResult VKAPI_CALL spy_create_pipeline_cache(VkDevice device, const VkPipelineCacheCreateInfo *info,
        const VkAllocationCallbacks *allocator, VkPipelineCache *cache)
{
    ++caches_created;
    return real_create_pipeline_cache(device, info, allocator, cache);
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_create_compute_pipelines(VkDevice device, VkPipelineCache cache,
        uint32_t count, const VkComputePipelineCreateInfo *infos, const VkAllocationCallbacks *allocator,
        VkPipeline *pipelines)
{
    pipelines_created += count;
    if (cache && cache == watched_engine_cache)
        pipelines_through_engine_cache += count;
    return real_create_compute_pipelines(device, cache, count, infos, allocator, pipelines);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL spy_get_device_proc_addr(VkDevice device, const char *name)
{
    if (!strcmp(name, "vkCreatePipelineCache"))
    {
        real_create_pipeline_cache = (PFN_vkCreatePipelineCache)real_get_device_proc_addr(device, name);
        return (PFN_vkVoidFunction)spy_create_pipeline_cache;
    }
    if (!strcmp(name, "vkCreateComputePipelines"))
    {
        real_create_compute_pipelines = (PFN_vkCreateComputePipelines)real_get_device_proc_addr(device, name);
        return (PFN_vkVoidFunction)spy_create_compute_pipelines;
    }
    return real_get_device_proc_addr(device, name);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL cache_spy_get_instance_proc_addr(VkInstance instance,
        const char *name)
{
    if (!strcmp(name, "vkGetDeviceProcAddr"))
    {
        real_get_device_proc_addr = (PFN_vkGetDeviceProcAddr)vkGetInstanceProcAddr(instance, name);
        return (PFN_vkVoidFunction)spy_get_device_proc_addr;
    }
    return vkGetInstanceProcAddr(instance, name);
}

/* Removes the directory and what is in it; returns how many files there were. */
static unsigned int remove_directory(const char *dir)
{
    unsigned int count = 0;
    struct dirent *entry;
    char path[512];
    DIR *d;

    assert_non_null(d = opendir(dir));
    while ((entry = readdir(d)))
    {
        if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
        assert_int_equal(remove(path), 0);
        ++count;
    }
    closedir(d);
    assert_int_equal(rmdir(dir), 0);
    return count;
}

/* ELEMENT_WISE_ADD compiled on an engine made with `options`, the pipeline calls watched, with
 * VKDML_PIPELINE_CACHE_DIR an empty directory; returns how many files vkdml wrote there. */
static unsigned int compile_watching_caches(const struct engine_options *options)
{
    char dir[] = "/tmp/vkdml-embed-cache-XXXXXX";
    IDMLCompiledOperator *compiled;
    struct tensor t;
    struct embed e;

    assert_non_null(mkdtemp(dir));
    setenv("VKDML_PIPELINE_CACHE_DIR", dir, 1);
    caches_created = pipelines_created = pipelines_through_engine_cache = 0;
    embed_create_with_loader(&e, options, cache_spy_get_instance_proc_addr);
    watched_engine_cache = e.engine.pipeline_cache;
    tensor_init(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 4, 4);
    check_hr(create_add(&e, &t, &t, &t, &compiled), S_OK);
    assert_int_equal(IDMLCompiledOperator_Release(compiled), 0);
    embed_destroy(&e);
    unsetenv("VKDML_PIPELINE_CACHE_DIR");
    assert_true(pipelines_created > 0);
    return remove_directory(dir);
}

static void test_engine_pipeline_cache(void **state)
{
    struct engine_options options = {.pipeline_cache = true};

    /* Every pipeline through the engine's cache; vkdml makes no cache of its own and persists nothing
     * (the engine destroys its cache last, which the validation layer checks is still alive). */
    assert_int_equal(compile_watching_caches(&options), 0);
    assert_int_equal(caches_created, 0);
    assert_int_equal(pipelines_through_engine_cache, pipelines_created);

    /* Without one, vkdml's own cache, persisted. */
    assert_int_equal(compile_watching_caches(NULL), 1);
    assert_int_equal(caches_created, 1);
    assert_int_equal(pipelines_through_engine_cache, 0);

    /* The first version of the desc ends before pipeline_cache: vkdml does not read past struct_size. */
    options.desc_version_1 = true;
    assert_int_equal(compile_watching_caches(&options), 1);
    assert_int_equal(caches_created, 1);
    assert_int_equal(pipelines_through_engine_cache, 0);
}

/* ---- Adapter memory budget ---- */

static void test_memory_budget(void **state)
{
    struct vkdml_adapter_info info;
    int i, count = vkdml_get_adapter_count();

    for (i = 0; i < count; ++i)
    {
        assert_int_equal(vkdml_get_adapter_info((uint32_t)i, &info, sizeof(info)), 0);
        if (!info.has_memory_budget)
        {
            assert_int_equal(info.memory_budget, 0);
            assert_int_equal(info.memory_usage, 0);
            continue;
        }
        /* The budget is what this process may use of the device-local heaps: within their size. */
        assert_true(info.memory_budget > 0);
        assert_true(info.memory_budget <= info.device_local_memory);
    }
    assert_no_log_errors();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_engine_example, vkdml_test_log_setup, vkdml_test_log_teardown),
        cmocka_unit_test_setup_teardown(test_two_devices, vkdml_test_log_setup, vkdml_test_log_teardown),
        cmocka_unit_test_setup_teardown(test_no_float16, vkdml_test_log_setup, vkdml_test_log_teardown),
        cmocka_unit_test_setup_teardown(test_no_buffer_device_address, vkdml_test_log_setup, vkdml_test_log_teardown),
        cmocka_unit_test_setup_teardown(test_wrapped_buffer_too_small, vkdml_test_log_setup, vkdml_test_log_teardown),
        cmocka_unit_test_setup_teardown(test_create_errors, vkdml_test_log_setup, vkdml_test_log_teardown),
        cmocka_unit_test_setup_teardown(test_wrap_errors, vkdml_test_log_setup, vkdml_test_log_teardown),
        cmocka_unit_test_setup_teardown(test_shim_queue_on_engine_device, vkdml_test_log_setup,
                vkdml_test_log_teardown),
        cmocka_unit_test_setup_teardown(test_record_errors, vkdml_test_log_setup, vkdml_test_log_teardown),
        cmocka_unit_test_setup_teardown(test_memory_budget, vkdml_test_log_setup, vkdml_test_log_teardown),
        cmocka_unit_test_setup_teardown(test_engine_pipeline_cache, vkdml_test_log_setup, vkdml_test_log_teardown),
    };

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
