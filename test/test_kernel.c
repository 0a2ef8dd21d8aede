/* The kernel path end to end on the default device (lavapipe in CI), validation on:
 * embedded SPIR-V -> pipeline with specialization -> dispatch through BDA -> read back. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_utils.h"
#include "vk_private.h"
#include "fill_interface.h"

struct fixture
{
    struct vkdml_vk_instance *instance;
    struct vkdml_vk_device *device;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
};

static int setup(void **state)
{
    struct vkdml_vk_instance_options options = {.validation = true, .application_name = "test_kernel"};
    struct fixture *f = calloc(1, sizeof(*f));
    const struct vkdml_vk_device_procs *vk_procs;
    int index;

    if (!f || vkdml_vk_instance_create(&options, &f->instance) < 0)
        return -1;
    if ((index = vkdml_vk_select_adapter(f->instance, NULL)) < 0
            || vkdml_vk_device_create(f->instance, index, &f->device) < 0)
        return -1;
    vk_procs = &f->device->procs;

    VkCommandPoolCreateInfo pool_info = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
            VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, f->device->queue_family};
    VkCommandBufferAllocateInfo cmd_info = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL,
            VK_NULL_HANDLE, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    VkFenceCreateInfo fence_info = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};

    if (VK_CALL(vkCreateCommandPool(f->device->vk_device, &pool_info, NULL, &f->pool)) < 0)
        return -1;
    cmd_info.commandPool = f->pool;
    if (VK_CALL(vkAllocateCommandBuffers(f->device->vk_device, &cmd_info, &f->cmd)) < 0
            || VK_CALL(vkCreateFence(f->device->vk_device, &fence_info, NULL, &f->fence)) < 0)
        return -1;
    *state = f;
    return vkdml_test_log_teardown(state);
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    const struct vkdml_vk_device_procs *vk_procs = &f->device->procs;

    VK_CALL(vkDestroyFence(f->device->vk_device, f->fence, NULL));
    VK_CALL(vkDestroyCommandPool(f->device->vk_device, f->pool, NULL));
    vkdml_vk_device_destroy(f->device);
    vkdml_vk_instance_destroy(f->instance);
    free(f);
    return vkdml_test_log_teardown(state);
}

static void submit_and_wait(struct fixture *f)
{
    const struct vkdml_vk_device_procs *vk_procs = &f->device->procs;
    VkSubmitInfo submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO};

    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &f->cmd;
    assert_int_equal(VK_CALL(vkQueueSubmit(f->device->queue, 1, &submit, f->fence)), VK_SUCCESS);
    assert_int_equal(VK_CALL(vkWaitForFences(f->device->vk_device, 1, &f->fence, VK_TRUE, UINT64_MAX)), VK_SUCCESS);
    assert_int_equal(VK_CALL(vkResetFences(f->device->vk_device, 1, &f->fence)), VK_SUCCESS);
}

/* The kernel's pipeline through the device's pipeline cache, with a layout of one push range. */
static void create_fill_pipeline(struct fixture *f, uint32_t local_size, VkPipelineLayout *layout,
        VkPipeline *pipeline)
{
    const struct vkdml_vk_device_procs *vk_procs = &f->device->procs;
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(struct vkdml_fill_push)};
    VkPipelineLayoutCreateInfo info = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};

    info.pushConstantRangeCount = 1;
    info.pPushConstantRanges = &range;
    assert_int_equal(VK_CALL(vkCreatePipelineLayout(f->device->vk_device, &info, NULL, layout)), VK_SUCCESS);
    assert_int_equal(vkdml_vk_compute_pipeline_create(f->device, *layout, VKDML_KERNEL_FILL, &local_size, 1,
            pipeline), VK_SUCCESS);
}

/* Fills a device-local buffer with the kernel, copies it to a readback buffer. */
static void run_fill(struct fixture *f, uint32_t local_size, uint32_t count, uint32_t value, uint32_t step,
        uint32_t *result)
{
    const struct vkdml_vk_device_procs *vk_procs = &f->device->procs;
    struct vkdml_vk_buffer target, readback;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkDeviceSize size = (VkDeviceSize)count * 4 + 64;
    struct vkdml_fill_push push;

    assert_int_equal(vkdml_vk_buffer_create(f->device, size, VKDML_VK_MEMORY_DEVICE, &target), VK_SUCCESS);
    assert_int_equal(vkdml_vk_buffer_create(f->device, size, VKDML_VK_MEMORY_READBACK, &readback), VK_SUCCESS);
    create_fill_pipeline(f, local_size, &layout, &pipeline);

    VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
            VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VkMemoryBarrier2 barrier =
    {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
        .srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT,
        .dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
        .dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT,
    };
    VkDependencyInfo dependency = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1,
            .pMemoryBarriers = &barrier};
    VkBufferCopy copy = {0, 0, size};

    /* A sentinel after the last element shows the kernel stops at count. */
    push = (struct vkdml_fill_push){target.address, count, value, step, 0};
    assert_int_equal(VK_CALL(vkBeginCommandBuffer(f->cmd, &begin)), VK_SUCCESS);
    VK_CALL(vkCmdFillBuffer(f->cmd, target.vk_buffer, 0, VK_WHOLE_SIZE, 0xdeadbeef));
    VK_CALL(vkCmdPipelineBarrier2(f->cmd, &dependency));
    VK_CALL(vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline));
    VK_CALL(vkCmdPushConstants(f->cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push));
    VK_CALL(vkCmdDispatch(f->cmd, (count + local_size - 1) / local_size, 1, 1));
    VK_CALL(vkCmdPipelineBarrier2(f->cmd, &dependency));
    VK_CALL(vkCmdCopyBuffer(f->cmd, target.vk_buffer, readback.vk_buffer, 1, &copy));
    VK_CALL(vkCmdPipelineBarrier2(f->cmd, &dependency));
    assert_int_equal(VK_CALL(vkEndCommandBuffer(f->cmd)), VK_SUCCESS);
    submit_and_wait(f);

    memcpy(result, readback.mapped, (size_t)count * 4 + 4);
    VK_CALL(vkDestroyPipeline(f->device->vk_device, pipeline, NULL));
    VK_CALL(vkDestroyPipelineLayout(f->device->vk_device, layout, NULL));
    vkdml_vk_buffer_destroy(f->device, &readback);
    vkdml_vk_buffer_destroy(f->device, &target);
}

static void check_fill(struct fixture *f, uint32_t local_size, uint32_t count, uint32_t value, uint32_t step)
{
    uint32_t *result = malloc(((size_t)count + 1) * 4), i;

    assert_non_null(result);
    run_fill(f, local_size, count, value, step, result);
    for (i = 0; i < count; ++i)
    {
        if (result[i] != value + i * step)
            fail_msg("count %u, local size %u: element %u is 0x%08x, expected 0x%08x", count, local_size, i,
                    result[i], value + i * step);
    }
    assert_int_equal(result[count], 0xdeadbeef);
    free(result);
    assert_no_log_errors();
}

static void test_fill_kernel(void **state)
{
    struct fixture *f = *state;

    check_fill(f, 64, 1, 7, 0);
    check_fill(f, 64, 1000, 3, 5);          /* not a multiple of the workgroup */
    check_fill(f, 1, 17, 0xffffff00, 1);     /* specialization changes the workgroup, wraps */
    check_fill(f, 256, 65536 + 3, 0, 1);
}

static void test_registry(void **state)
{
    unsigned int i;

    for (i = 0; i < VKDML_KERNEL_COUNT; ++i)
    {
        const struct vkdml_kernel *kernel = vkdml_kernel_get(i);

        assert_non_null(kernel->name);
        assert_true(kernel->size >= 20 && kernel->size % 4 == 0);
        assert_int_equal(kernel->code[0], 0x07230203);   /* SPIR-V magic */
    }
    assert_string_equal(vkdml_kernel_get(VKDML_KERNEL_FILL)->name, "fill");
}

/* The harness really sees validation messages: a deliberately invalid call must be reported. */
static void test_validation_is_caught(void **state)
{
    struct fixture *f = *state;
    const struct vkdml_vk_device_procs *vk_procs = &f->device->procs;
    VkBufferCreateInfo info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    VkBuffer buffer = VK_NULL_HANDLE;

    /* Under wine the layer is not listed, but enabled on the host through VK_INSTANCE_LAYERS: the
     * messenger is what carries its messages. */
    if (!f->instance->validation && !f->instance->messenger)
    {
        fprintf(stderr, "The validation layer is not installed; nothing to check.\n");
        skip();
    }
    info.size = 0;   /* VUID-VkBufferCreateInfo-size-00912 */
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    VK_CALL(vkCreateBuffer(f->device->vk_device, &info, NULL, &buffer));
    if (buffer)
        VK_CALL(vkDestroyBuffer(f->device->vk_device, buffer, NULL));
    assert_true(vkdml_test_log_counts()->validation > 0);
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_fill_kernel),
        cmocka_unit_test(test_validation_is_caught),
    };

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, setup, teardown);
}
