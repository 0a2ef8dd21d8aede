/* The benchmarks' shared code (bench_utils.h). */
#include "bench_utils.h"

#include <math.h>
#include <time.h>

double bench_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

float *bench_random_values(DML_TENSOR_DATA_TYPE type, size_t count, uint32_t seed, void **bytes)
{
    float *values = malloc(count * sizeof(*values));
    uint32_t random = seed;
    size_t i;

    *bytes = malloc(count * dml_test_element_size(type));
    assert_true(values && *bytes);
    for (i = 0; i < count; ++i)
    {
        values[i] = ref_random_float(&random, -1.0f, 1.0f);
        if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
        {
            ((uint16_t *)*bytes)[i] = ref_float_to_half(values[i]);
            values[i] = ref_half_to_float(((uint16_t *)*bytes)[i]);
        }
        else
        {
            ((float *)*bytes)[i] = values[i];
        }
    }
    return values;
}

double bench_time_dispatches(struct dml_test_context *context, IDMLCompiledOperator *compiled,
        IDMLBindingTable *table, unsigned int count)
{
    ID3D12DescriptorHeap *heaps[] = {context->heap};
    unsigned int i;
    double start;

    ID3D12GraphicsCommandList_SetDescriptorHeaps(context->d3d.list, 1, heaps);
    for (i = 0; i < count; ++i)
    {
        IDMLCommandRecorder_RecordDispatch(context->recorder, (ID3D12CommandList *)context->d3d.list,
                (IDMLDispatchable *)compiled, table);
        uav_barrier(context->d3d.list, NULL);
    }
    check_hr(ID3D12GraphicsCommandList_Close(context->d3d.list), S_OK);
    start = bench_now();
    execute_list(context->d3d.queue, context->d3d.list);
    wait_queue_idle(&context->d3d);
    start = bench_now() - start;
    check_hr(ID3D12CommandAllocator_Reset(context->d3d.allocator), S_OK);
    check_hr(ID3D12GraphicsCommandList_Reset(context->d3d.list, context->d3d.allocator, NULL), S_OK);
    return start;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

double bench_time_per_dispatch(struct dml_test_context *context, IDMLCompiledOperator *compiled,
        IDMLBindingTable *table)
{
    double one, per[3];
    unsigned int repeats, i;

    bench_time_dispatches(context, compiled, table, 2);
    one = bench_time_dispatches(context, compiled, table, 1);
    repeats = (unsigned int)fmin(fmax(0.025 / one, 4.0), 4000.0);
    for (i = 0; i < 3; ++i)
    {
        double single = bench_time_dispatches(context, compiled, table, repeats);
        double twice = bench_time_dispatches(context, compiled, table, 2 * repeats);

        per[i] = (twice - single) / repeats;
    }
    qsort(per, 3, sizeof(*per), compare_doubles);
    return per[1];
}

IDMLBindingTable *bench_bind_two_inputs(struct dml_test_context *context, IDMLCompiledOperator *compiled,
        ID3D12Resource *const buffers[3], ID3D12Resource **temporary)
{
    IDMLBindingTable *table = dml_test_create_table(context, compiled);
    DML_BUFFER_BINDING bindings[3];
    DML_BINDING_DESC descs[4];
    unsigned int i;

    for (i = 0; i < 3; ++i)
        bindings[i] = (DML_BUFFER_BINDING){buffers[i], 0, ID3D12Resource_GetDesc(buffers[i]).Width};
    descs[0] = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &bindings[0]};
    descs[1] = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &bindings[1]};
    descs[2] = (DML_BINDING_DESC){DML_BINDING_TYPE_NONE, NULL};
    descs[3] = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &bindings[2]};
    IDMLBindingTable_BindInputs(table, 3, descs);
    IDMLBindingTable_BindOutputs(table, 1, &descs[3]);
    *temporary = dml_test_bind_temporary(context, table, compiled);
    return table;
}
