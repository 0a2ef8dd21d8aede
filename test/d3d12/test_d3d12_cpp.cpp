// The D3D12 shim used the way a D3D12 programmer writes it: DirectX-Headers' C++ view, d3dx12.h
// helpers, IID_PPV_ARGS, WRL ComPtr, member calls and struct-returning methods by value. The
// flow follows HelloDirectML: upload → a compute-ready (UNORDERED_ACCESS) buffer → readback,
// with a fence wait after each submission.

#include "test_platform.h"
#include <directx/d3dx12.h>
#include <wrl/client.h>
// DirectX-Headers on Linux and with mingw-w64: __uuidof/IID_PPV_ARGS support comes from dxguids.h.
#include <dxguids/dxguids.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <vector>

#include <unistd.h>

extern "C" {
#include "test_utils.h"
}

using Microsoft::WRL::ComPtr;

#define CHECK_HR(hr, expected) assert_int_equal(static_cast<uint32_t>(hr), static_cast<uint32_t>(expected))

namespace {

// What HelloDirectML's CloseExecuteResetWait does (an eventfd stands in for the Win32 event on Linux).
void CloseExecuteResetWait(ID3D12Device *device, ID3D12CommandQueue *commandQueue,
        ID3D12CommandAllocator *commandAllocator, ID3D12GraphicsCommandList *commandList)
{
    CHECK_HR(commandList->Close(), S_OK);

    ID3D12CommandList *commandLists[] = {commandList};
    commandQueue->ExecuteCommandLists(static_cast<UINT>(std::size(commandLists)), commandLists);

    // A new fence per wait, as HelloDirectML does.
    ComPtr<ID3D12Fence> d3D12Fence;
    CHECK_HR(device->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&d3D12Fence)), S_OK);

    HANDLE fenceEventHandle = test_event_create();
    assert_non_null(fenceEventHandle);
    CHECK_HR(d3D12Fence->SetEventOnCompletion(1, fenceEventHandle), S_OK);
    CHECK_HR(commandQueue->Signal(d3D12Fence.Get(), 1), S_OK);

    // WaitForSingleObjectEx(fenceEventHandle, INFINITE, FALSE), with a 30 s safety net.
    assert_int_equal(test_event_wait(fenceEventHandle, 30000), 1);
    test_event_destroy(fenceEventHandle);
    assert_int_equal(d3D12Fence->GetCompletedValue(), 1);

    CHECK_HR(commandAllocator->Reset(), S_OK);
    CHECK_HR(commandList->Reset(commandAllocator, nullptr), S_OK);
}

struct D3D12Context
{
    ID3D12Device *device = nullptr;
    ComPtr<ID3D12CommandQueue> commandQueue;
    ComPtr<ID3D12CommandAllocator> commandAllocator;
    ComPtr<ID3D12GraphicsCommandList> commandList;
};

int Setup(void **state)
{
    vkdml_test_log_reset();
    auto *context = new D3D12Context;
    *state = context;

    ID3D12Device *device;
    if (FAILED(test_create_d3d12_device(IID_PPV_ARGS(&device))))
        return -1;
    context->device = device;

    D3D12_COMMAND_QUEUE_DESC commandQueueDesc{};
    commandQueueDesc.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
    commandQueueDesc.Flags = D3D12_COMMAND_QUEUE_FLAG_NONE;
    if (FAILED(device->CreateCommandQueue(&commandQueueDesc, IID_PPV_ARGS(&context->commandQueue)))
            || FAILED(device->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT,
                    IID_PPV_ARGS(&context->commandAllocator)))
            || FAILED(device->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, context->commandAllocator.Get(),
                    nullptr, IID_PPV_ARGS(&context->commandList))))
        return -1;
    return vkdml_test_log_teardown(state);
}

// Every child goes first (each Release to 0), then the device's last Release must return 0.
int Teardown(void **state)
{
    auto *context = static_cast<D3D12Context *>(*state);
    int ret = 0;

    if (context->commandList && context->commandList.Reset() != 0)
        ret = -1;
    if (context->commandAllocator && context->commandAllocator.Reset() != 0)
        ret = -1;
    if (context->commandQueue && context->commandQueue.Reset() != 0)
        ret = -1;
    if (context->device)
    {
        ULONG count = context->device->Release();
        if (count)
        {
            fprintf(stderr, "The device's final Release returned %u.\n", static_cast<unsigned int>(count));
            ret = -1;
        }
    }
    delete context;
    *state = nullptr;
    if (vkdml_test_log_teardown(state))
        ret = -1;
    vkdml_test_log_reset();
    return ret;
}

// HelloDirectML's data flow with the DirectML dispatch replaced by what the shim itself can do on
// a compute-ready buffer: a UAV clear of part of it, UAV barriers, and copies.
void TestHelloDirectMLFlow(void **state)
{
    auto *context = static_cast<D3D12Context *>(*state);
    ID3D12Device *d3D12Device = context->device;
    auto *commandList = context->commandList.Get();

    constexpr UINT tensorElementCount = 1 * 2 * 3 * 4 * 1000 + 1;
    constexpr UINT64 tensorBufferSize = tensorElementCount * sizeof(float);
    constexpr UINT clearFirst = 100, clearCount = 1000;

    // Descriptor heap, as HelloDirectML creates it for the binding table.
    D3D12_DESCRIPTOR_HEAP_DESC descriptorHeapDesc{};
    descriptorHeapDesc.Type = D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV;
    descriptorHeapDesc.NumDescriptors = 8;
    descriptorHeapDesc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE;
    ComPtr<ID3D12DescriptorHeap> descriptorHeap;
    CHECK_HR(d3D12Device->CreateDescriptorHeap(&descriptorHeapDesc, IID_PPV_ARGS(&descriptorHeap)), S_OK);
    descriptorHeapDesc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_NONE;
    ComPtr<ID3D12DescriptorHeap> cpuDescriptorHeap;
    CHECK_HR(d3D12Device->CreateDescriptorHeap(&descriptorHeapDesc, IID_PPV_ARGS(&cpuDescriptorHeap)), S_OK);
    ID3D12DescriptorHeap *d3D12DescriptorHeaps[] = {descriptorHeap.Get()};
    commandList->SetDescriptorHeaps(static_cast<UINT>(std::size(d3D12DescriptorHeaps)), d3D12DescriptorHeaps);

    // Upload and input buffers.
    ComPtr<ID3D12Resource> uploadBuffer;
    const CD3DX12_HEAP_PROPERTIES uploadHeapProperties(D3D12_HEAP_TYPE_UPLOAD);
    const auto uploadBufferDesc = CD3DX12_RESOURCE_DESC::Buffer(tensorBufferSize);
    CHECK_HR(d3D12Device->CreateCommittedResource(&uploadHeapProperties, D3D12_HEAP_FLAG_NONE, &uploadBufferDesc,
            D3D12_RESOURCE_STATE_GENERIC_READ, nullptr, IID_PPV_ARGS(&uploadBuffer)), S_OK);

    ComPtr<ID3D12Resource> inputBuffer;
    const CD3DX12_HEAP_PROPERTIES defaultHeapProperties(D3D12_HEAP_TYPE_DEFAULT);
    const auto inputBufferDesc = CD3DX12_RESOURCE_DESC::Buffer(tensorBufferSize,
            D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
    CHECK_HR(d3D12Device->CreateCommittedResource(&defaultHeapProperties, D3D12_HEAP_FLAG_NONE, &inputBufferDesc,
            D3D12_RESOURCE_STATE_COPY_DEST, nullptr, IID_PPV_ARGS(&inputBuffer)), S_OK);

    std::vector<float> inputTensorElementArray(tensorElementCount);
    for (UINT i = 0; i < tensorElementCount; ++i)
        inputTensorElementArray[i] = 1.618f + static_cast<float>(i);

    D3D12_SUBRESOURCE_DATA tensorSubresourceData{};
    tensorSubresourceData.pData = inputTensorElementArray.data();
    tensorSubresourceData.RowPitch = static_cast<LONG_PTR>(tensorBufferSize);
    tensorSubresourceData.SlicePitch = tensorSubresourceData.RowPitch;

    // Upload the input tensor to the GPU (d3dx12 asks the device for the buffer's footprint).
    const UINT64 uploaded = ::UpdateSubresources<1>(commandList, inputBuffer.Get(), uploadBuffer.Get(), 0, 0, 1,
            &tensorSubresourceData);
    assert_int_equal(uploaded, tensorBufferSize);

    const auto toUav = CD3DX12_RESOURCE_BARRIER::Transition(inputBuffer.Get(), D3D12_RESOURCE_STATE_COPY_DEST,
            D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    commandList->ResourceBarrier(1, &toUav);

    // The output buffer, compute-ready from the start.
    ComPtr<ID3D12Resource> outputBuffer;
    CHECK_HR(d3D12Device->CreateCommittedResource(&defaultHeapProperties, D3D12_HEAP_FLAG_NONE, &inputBufferDesc,
            D3D12_RESOURCE_STATE_UNORDERED_ACCESS, nullptr, IID_PPV_ARGS(&outputBuffer)), S_OK);

    // "Dispatch": output = input, then a float clear of [clearFirst, clearFirst + clearCount).
    const auto uavBarrier = CD3DX12_RESOURCE_BARRIER::UAV(nullptr);
    commandList->ResourceBarrier(1, &uavBarrier);
    const D3D12_RESOURCE_BARRIER copyBarriers[] =
    {
        CD3DX12_RESOURCE_BARRIER::Transition(inputBuffer.Get(), D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                D3D12_RESOURCE_STATE_COPY_SOURCE),
        CD3DX12_RESOURCE_BARRIER::Transition(outputBuffer.Get(), D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                D3D12_RESOURCE_STATE_COPY_DEST),
    };
    commandList->ResourceBarrier(static_cast<UINT>(std::size(copyBarriers)), copyBarriers);
    commandList->CopyResource(outputBuffer.Get(), inputBuffer.Get());
    const auto backToUav = CD3DX12_RESOURCE_BARRIER::Transition(outputBuffer.Get(), D3D12_RESOURCE_STATE_COPY_DEST,
            D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    commandList->ResourceBarrier(1, &backToUav);

    const UINT increment = d3D12Device->GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    assert_true(increment > 0);
    D3D12_UNORDERED_ACCESS_VIEW_DESC uavDesc{};
    uavDesc.Format = DXGI_FORMAT_R32_FLOAT;
    uavDesc.ViewDimension = D3D12_UAV_DIMENSION_BUFFER;
    uavDesc.Buffer.FirstElement = clearFirst;
    uavDesc.Buffer.NumElements = clearCount;
    const CD3DX12_CPU_DESCRIPTOR_HANDLE cpuHandle(BY_VALUE(cpuDescriptorHeap, GetCPUDescriptorHandleForHeapStart), 5,
            increment);
    d3D12Device->CreateUnorderedAccessView(outputBuffer.Get(), nullptr, &uavDesc, cpuHandle);
    const CD3DX12_CPU_DESCRIPTOR_HANDLE shaderVisibleCpuHandle(
            BY_VALUE(descriptorHeap, GetCPUDescriptorHandleForHeapStart), 2, increment);
    d3D12Device->CopyDescriptorsSimple(1, shaderVisibleCpuHandle, cpuHandle, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    const CD3DX12_GPU_DESCRIPTOR_HANDLE gpuHandle(BY_VALUE(descriptorHeap, GetGPUDescriptorHandleForHeapStart), 2,
            increment);
    const FLOAT clearValue[4] = {-2.5f, 0.0f, 0.0f, 0.0f};
    commandList->ClearUnorderedAccessViewFloat(gpuHandle, cpuHandle, outputBuffer.Get(), clearValue, 0, nullptr);
    commandList->ResourceBarrier(1, &uavBarrier);

    CloseExecuteResetWait(d3D12Device, context->commandQueue.Get(), context->commandAllocator.Get(), commandList);

    // The output tensor now needs to be copied from the GPU to the CPU, through a readback heap.
    ComPtr<ID3D12Resource> readbackBuffer;
    const CD3DX12_HEAP_PROPERTIES readbackHeapProperties(D3D12_HEAP_TYPE_READBACK);
    const auto readbackBufferDesc = CD3DX12_RESOURCE_DESC::Buffer(tensorBufferSize);
    CHECK_HR(d3D12Device->CreateCommittedResource(&readbackHeapProperties, D3D12_HEAP_FLAG_NONE, &readbackBufferDesc,
            D3D12_RESOURCE_STATE_COPY_DEST, nullptr, IID_PPV_ARGS(&readbackBuffer)), S_OK);

    const auto toCopySource = CD3DX12_RESOURCE_BARRIER::Transition(outputBuffer.Get(),
            D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
    commandList->ResourceBarrier(1, &toCopySource);
    commandList->CopyResource(readbackBuffer.Get(), outputBuffer.Get());

    CloseExecuteResetWait(d3D12Device, context->commandQueue.Get(), context->commandAllocator.Get(), commandList);

    const D3D12_RANGE tensorBufferRange{0, static_cast<SIZE_T>(tensorBufferSize)};
    FLOAT *outputBufferData = nullptr;
    CHECK_HR(readbackBuffer->Map(0, &tensorBufferRange, reinterpret_cast<void **>(&outputBufferData)), S_OK);
    assert_non_null(outputBufferData);
    for (UINT i = 0; i < tensorElementCount; ++i)
    {
        const float expected = i >= clearFirst && i < clearFirst + clearCount ? clearValue[0]
                : inputTensorElementArray[i];
        if (std::memcmp(&outputBufferData[i], &expected, sizeof(float)))
            fail_msg("element %u: got %g, expected %g", i, outputBufferData[i], expected);
    }
    const D3D12_RANGE emptyRange{0, 0};
    readbackBuffer->Unmap(0, &emptyRange);
    assert_no_log_errors();

    // Every ComPtr's last reference.
    assert_int_equal(readbackBuffer.Reset(), 0);
    assert_int_equal(outputBuffer.Reset(), 0);
    assert_int_equal(inputBuffer.Reset(), 0);
    assert_int_equal(uploadBuffer.Reset(), 0);
    assert_int_equal(cpuDescriptorHeap.Reset(), 0);
    assert_int_equal(descriptorHeap.Reset(), 0);
}

// Struct-returning methods called as C++ members, by value (the SysV ABI of DirectX-Headers on Linux; with
// mingw-w64 BY_VALUE passes the RetVal pointer of the Windows COM ABI).
void TestStructReturns(void **state)
{
    auto *context = static_cast<D3D12Context *>(*state);
    ID3D12Device *device = context->device;

    const auto bufferDesc = CD3DX12_RESOURCE_DESC::Buffer(3000, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
    const CD3DX12_HEAP_PROPERTIES heapProperties(D3D12_HEAP_TYPE_DEFAULT);
    ComPtr<ID3D12Resource> buffer;
    CHECK_HR(device->CreateCommittedResource(&heapProperties, D3D12_HEAP_FLAG_NONE, &bufferDesc,
            D3D12_RESOURCE_STATE_COMMON, nullptr, IID_PPV_ARGS(&buffer)), S_OK);

    const D3D12_RESOURCE_DESC desc = BY_VALUE(buffer, GetDesc);
    assert_true(CD3DX12_RESOURCE_DESC(desc) == bufferDesc);
    assert_int_equal(desc.Width, 3000);

    CD3DX12_HEAP_PROPERTIES gotProperties;
    D3D12_HEAP_FLAGS heapFlags;
    CHECK_HR(buffer->GetHeapProperties(&gotProperties, &heapFlags), S_OK);
    assert_int_equal(gotProperties.Type, D3D12_HEAP_TYPE_DEFAULT);
    assert_false(gotProperties.IsCPUAccessible());

    const D3D12_GPU_VIRTUAL_ADDRESS address = buffer->GetGPUVirtualAddress();
    assert_true(address != 0);
    assert_int_equal(address % 16, 0);

    const D3D12_RESOURCE_ALLOCATION_INFO info = BY_VALUE(device, GetResourceAllocationInfo, 0, 1, &bufferDesc);
    assert_true(info.SizeInBytes >= 3000 && info.SizeInBytes != UINT64_MAX);
    assert_int_equal(info.Alignment, D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT);

    const D3D12_HEAP_PROPERTIES custom = BY_VALUE(device, GetCustomHeapProperties, 0, D3D12_HEAP_TYPE_READBACK);
    assert_int_equal(custom.Type, D3D12_HEAP_TYPE_CUSTOM);
    assert_int_equal(custom.CPUPageProperty, D3D12_CPU_PAGE_PROPERTY_WRITE_BACK);

    const LUID luid = BY_VALUE(device, GetAdapterLuid);
    const LUID luid2 = BY_VALUE(device, GetAdapterLuid);
    assert_int_equal(luid.LowPart, luid2.LowPart);
    assert_int_equal(luid.HighPart, luid2.HighPart);

    const D3D12_COMMAND_QUEUE_DESC queueDesc = BY_VALUE(context->commandQueue, GetDesc);
    assert_int_equal(queueDesc.Type, D3D12_COMMAND_LIST_TYPE_DIRECT);

    D3D12_DESCRIPTOR_HEAP_DESC heapDesc{D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 10,
            D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    ComPtr<ID3D12DescriptorHeap> descriptorHeap;
    CHECK_HR(device->CreateDescriptorHeap(&heapDesc, IID_PPV_ARGS(&descriptorHeap)), S_OK);
    const D3D12_DESCRIPTOR_HEAP_DESC gotHeapDesc = BY_VALUE(descriptorHeap, GetDesc);
    assert_int_equal(gotHeapDesc.Type, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    assert_int_equal(gotHeapDesc.NumDescriptors, 10);
    assert_int_equal(gotHeapDesc.Flags, D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE);
    const D3D12_CPU_DESCRIPTOR_HANDLE cpuStart = BY_VALUE(descriptorHeap, GetCPUDescriptorHandleForHeapStart);
    const D3D12_GPU_DESCRIPTOR_HANDLE gpuStart = BY_VALUE(descriptorHeap, GetGPUDescriptorHandleForHeapStart);
    assert_true(cpuStart.ptr != 0);
    assert_true(gpuStart.ptr != 0);
    const UINT increment = device->GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    const CD3DX12_CPU_DESCRIPTOR_HANDLE third(cpuStart, 3, increment);
    assert_true(third.ptr == cpuStart.ptr + 3 * increment);

    heapDesc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_NONE;
    ComPtr<ID3D12DescriptorHeap> cpuHeap;
    CHECK_HR(device->CreateDescriptorHeap(&heapDesc, IID_PPV_ARGS(&cpuHeap)), S_OK);
    assert_true(BY_VALUE(cpuHeap, GetGPUDescriptorHandleForHeapStart).ptr == 0);

    const CD3DX12_HEAP_DESC heapDescription(2 * D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT, D3D12_HEAP_TYPE_UPLOAD, 0,
            D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    ComPtr<ID3D12Heap> heap;
    CHECK_HR(device->CreateHeap(&heapDescription, IID_PPV_ARGS(&heap)), S_OK);
    const D3D12_HEAP_DESC gotDescription = BY_VALUE(heap, GetDesc);
    assert_int_equal(gotDescription.SizeInBytes, 2 * D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT);
    assert_int_equal(gotDescription.Properties.Type, D3D12_HEAP_TYPE_UPLOAD);
    assert_int_equal(gotDescription.Flags, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);

    // Placed resources, and ComPtr::As for the interfaces an ORT-style allocator asks for.
    ComPtr<ID3D12Resource> placed;
    const auto placedDesc = CD3DX12_RESOURCE_DESC::Buffer(4096);
    CHECK_HR(device->CreatePlacedResource(heap.Get(), D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT, &placedDesc,
            D3D12_RESOURCE_STATE_GENERIC_READ, nullptr, IID_PPV_ARGS(&placed)), S_OK);
    ComPtr<ID3D12Pageable> pageable;
    CHECK_HR(placed.As(&pageable), S_OK);
    assert_ptr_equal(static_cast<void *>(pageable.Get()), static_cast<void *>(placed.Get()));
    ComPtr<ID3D12Device> owner;
    CHECK_HR(placed->GetDevice(IID_PPV_ARGS(&owner)), S_OK);
    assert_ptr_equal(owner.Get(), device);
    ComPtr<IUnknown> unknown1, unknown2;
    CHECK_HR(owner.As(&unknown1), S_OK);
    CHECK_HR(device->QueryInterface(IID_PPV_ARGS(&unknown2)), S_OK);
    assert_ptr_equal(unknown1.Get(), unknown2.Get());

    CHECK_HR(buffer->SetName(L"TestStructReturns buffer"), S_OK);
    assert_no_log_errors();

    unknown2.Reset();
    unknown1.Reset();
    owner.Reset();
    pageable.Reset();
    assert_int_equal(placed.Reset(), 0);
    assert_int_equal(heap.Reset(), 0);
    assert_int_equal(cpuHeap.Reset(), 0);
    assert_int_equal(descriptorHeap.Reset(), 0);
    assert_int_equal(buffer.Reset(), 0);
}

// Fence waits: a long-lived fence with increasing values, NULL-event blocking, and GetCompletedValue.
void TestFenceWait(void **state)
{
    auto *context = static_cast<D3D12Context *>(*state);
    ComPtr<ID3D12Fence> fence;
    CHECK_HR(context->device->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)), S_OK);
    assert_int_equal(fence->GetCompletedValue(), 0);

    CHECK_HR(context->commandList->Close(), S_OK);
    for (UINT64 fenceValue = 1; fenceValue <= 5; ++fenceValue)
    {
        ID3D12CommandList *lists[] = {context->commandList.Get()};
        context->commandQueue->ExecuteCommandLists(1, lists);
        CHECK_HR(context->commandQueue->Signal(fence.Get(), fenceValue), S_OK);
        CHECK_HR(fence->SetEventOnCompletion(fenceValue, nullptr), S_OK);
        assert_true(fence->GetCompletedValue() >= fenceValue);
    }

    // The queue waits for a value the CPU signals later.
    ComPtr<ID3D12Fence> gate;
    CHECK_HR(context->device->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&gate)), S_OK);
    CHECK_HR(context->commandQueue->Wait(gate.Get(), 1), S_OK);
    CHECK_HR(context->commandQueue->Signal(fence.Get(), 6), S_OK);
    usleep(50 * 1000);
    assert_int_equal(fence->GetCompletedValue(), 5);
    CHECK_HR(gate->Signal(1), S_OK);
    CHECK_HR(fence->SetEventOnCompletion(6, nullptr), S_OK);
    assert_int_equal(fence->GetCompletedValue(), 6);

    CHECK_HR(context->commandAllocator->Reset(), S_OK);
    CHECK_HR(context->commandList->Reset(context->commandAllocator.Get(), nullptr), S_OK);
    assert_no_log_errors();
    assert_int_equal(gate.Reset(), 0);
    assert_int_equal(fence.Reset(), 0);
}

void TestFeatureSupport(void **state)
{
    auto *context = static_cast<D3D12Context *>(*state);

    D3D12_FEATURE_DATA_D3D12_OPTIONS options{};
    CHECK_HR(context->device->CheckFeatureSupport(D3D12_FEATURE_D3D12_OPTIONS, &options, sizeof(options)), S_OK);
    assert_int_equal(options.TiledResourcesTier, D3D12_TILED_RESOURCES_TIER_NOT_SUPPORTED);

    D3D12_FEATURE_DATA_ARCHITECTURE architecture{};
    CHECK_HR(context->device->CheckFeatureSupport(D3D12_FEATURE_ARCHITECTURE, &architecture, sizeof(architecture)),
            S_OK);

    const D3D_FEATURE_LEVEL levels[] = {D3D_FEATURE_LEVEL_11_0, D3D_FEATURE_LEVEL_12_0};
    D3D12_FEATURE_DATA_FEATURE_LEVELS featureLevels{static_cast<UINT>(std::size(levels)), levels, D3D_FEATURE_LEVEL_9_1};
    CHECK_HR(context->device->CheckFeatureSupport(D3D12_FEATURE_FEATURE_LEVELS, &featureLevels,
            sizeof(featureLevels)), S_OK);
    assert_true(featureLevels.MaxSupportedFeatureLevel == D3D_FEATURE_LEVEL_11_0
            || featureLevels.MaxSupportedFeatureLevel == D3D_FEATURE_LEVEL_12_0);

    D3D12_FEATURE_DATA_SHADER_MODEL shaderModel{D3D_SHADER_MODEL_6_0};
    CHECK_HR(context->device->CheckFeatureSupport(D3D12_FEATURE_SHADER_MODEL, &shaderModel, sizeof(shaderModel)),
            S_OK);
    assert_true(shaderModel.HighestShaderModel <= D3D_SHADER_MODEL_6_0);

    assert_int_equal(context->device->GetNodeCount(), 1);
    CHECK_HR(context->device->GetDeviceRemovedReason(), S_OK);
    assert_no_log_errors();
}

} // namespace

int main()
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(TestHelloDirectMLFlow, Setup, Teardown),
        cmocka_unit_test_setup_teardown(TestStructReturns, Setup, Teardown),
        cmocka_unit_test_setup_teardown(TestFenceWait, Setup, Teardown),
        cmocka_unit_test_setup_teardown(TestFeatureSupport, Setup, Teardown),
    };

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
