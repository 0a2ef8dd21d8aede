/*
 * The device-loss path, white-box: d3d12_device_lose_next_submission() makes the next queue
 * submission report VK_ERROR_DEVICE_LOST, as a real loss would. Then the D3D12 and the DML device
 * answer DXGI_ERROR_DEVICE_REMOVED, fences complete (events fire, waits return) and nothing hangs
 * (README "DirectML in vkdml: decisions": Vulkan device loss removes both).
 */
#ifndef COBJMACROS
# define COBJMACROS
#endif
#include <DirectML.h>

#include "d3d12/d3d12_test.h"

/* The hook (backend_vk/d3d12/d3d12_private.h), declared here: that header's D3D12 declarations are the
 * library's, not the test's. */
struct d3d12_device;
struct d3d12_device *unsafe_impl_from_ID3D12Device(ID3D12Device *iface);
void d3d12_device_lose_next_submission(struct d3d12_device *device);

static void test_device_lost(void **state)
{
    struct test_context *context = *state;
    IDMLCommandRecorder *recorder = NULL;
    IDMLDevice *dml, *dml2 = NULL;
    D3D12_RESOURCE_DESC desc = buffer_desc(256, D3D12_RESOURCE_FLAG_NONE);
    D3D12_HEAP_PROPERTIES heap = {D3D12_HEAP_TYPE_DEFAULT};
    ID3D12Resource *resource = NULL;
    HANDLE event;

    check_hr(DMLCreateDevice(context->device, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, (void **)&dml), S_OK);
    /* An event waiting for a value no one will signal: the loss must fire it. */
    assert_non_null(event = test_event_create());
    check_hr(ID3D12Fence_SetEventOnCompletion(context->fence, 100, event), S_OK);
    assert_int_equal(test_event_wait(event, 0), 0);

    d3d12_device_lose_next_submission(unsafe_impl_from_ID3D12Device(context->device));
    check_hr(ID3D12GraphicsCommandList_Close(context->list), S_OK);
    execute_list(context->queue, context->list);
    check_one_error("VK_ERROR_DEVICE_LOST");

    check_hr(ID3D12Device_GetDeviceRemovedReason(context->device), DXGI_ERROR_DEVICE_REMOVED);
    check_hr(ID3D12CommandQueue_Signal(context->queue, context->fence, 1), DXGI_ERROR_DEVICE_REMOVED);
    assert_true(ID3D12Fence_GetCompletedValue(context->fence) == UINT64_MAX);
    assert_int_equal(test_event_wait(event, 10000), 1);
    check_hr(ID3D12Fence_SetEventOnCompletion(context->fence, 200, event), S_OK);
    assert_int_equal(test_event_wait(event, 10000), 1);
    check_hr(ID3D12Fence_SetEventOnCompletion(context->fence, 300, NULL), DXGI_ERROR_DEVICE_REMOVED);
    test_event_destroy(event);
    vkdml_test_log_reset();

    check_hr(ID3D12Device_CreateCommittedResource(context->device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
            D3D12_RESOURCE_STATE_COMMON, NULL, &IID_ID3D12Resource, (void **)&resource), DXGI_ERROR_DEVICE_REMOVED);
    assert_null(resource);
    check_hr(IDMLDevice_GetDeviceRemovedReason(dml), DXGI_ERROR_DEVICE_REMOVED);
    check_hr(IDMLDevice_CreateCommandRecorder(dml, &IID_IDMLCommandRecorder, (void **)&recorder),
            DXGI_ERROR_DEVICE_REMOVED);
    assert_null(recorder);
    check_hr(DMLCreateDevice(context->device, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, (void **)&dml2),
            DXGI_ERROR_DEVICE_REMOVED);
    assert_null(dml2);
    vkdml_test_log_reset();
    release_last(dml);
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_device_lost, d3d12_context_setup, d3d12_context_teardown),
    };

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
