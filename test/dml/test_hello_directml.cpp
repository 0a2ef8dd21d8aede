// HelloDirectML in C++, written the way a Windows DirectML programmer writes it: d3dx12.h helpers,
// IID_PPV_ARGS, Microsoft::WRL::ComPtr (DirectX-Headers' WSL adapter: <wrl/client.h> is its stub
// for <wsl/wrladapter.h>), member calls, GetBindingProperties returning a struct by value,
// UpdateSubresources for the upload. The flow is Microsoft's Samples/HelloDirectML; the only
// changes are the adapter (no DXGI: D3D12CreateDevice(nullptr, ...) takes the default one; on
// Windows vkdml_create_d3d12_device, test_platform.h) and the fence event (a Win32 event on
// Windows; on Linux an eventfd stands in for it, the WSL convention).
//
// D3D12 device → DML device → ELEMENT_WISE_IDENTITY on a 1×2×3×4 FLOAT32 tensor → compile →
// initialize → bind → record → execute → read back → print. Exits 0 when the output equals the
// input, 1 otherwise, 77 without a Vulkan device.

#include <DirectML.h>
#include <directx/d3dx12.h>
#include <wrl/client.h>
// DirectX-Headers on Linux and with mingw-w64: __uuidof/IID_PPV_ARGS support for the D3D12 interfaces.
#include <dxguids/dxguids.h>

#include "test_platform.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>

extern "C" {
#include "test_utils.h"
}

using Microsoft::WRL::ComPtr;

namespace {

void ThrowIfFailed(HRESULT hr, const char *what)
{
    if (FAILED(hr))
    {
        char message[256];
        std::snprintf(message, sizeof(message), "%s failed, hr %#x", what, static_cast<unsigned int>(hr));
        throw std::runtime_error(message);
    }
}
#define THROW_IF_FAILED(expr) ThrowIfFailed((expr), #expr)

void InitializeDirect3D12(ComPtr<ID3D12Device> &d3D12Device, ComPtr<ID3D12CommandQueue> &commandQueue,
        ComPtr<ID3D12CommandAllocator> &commandAllocator, ComPtr<ID3D12GraphicsCommandList> &commandList)
{
    // No DXGI adapters: the default Vulkan adapter (VKDML_DEVICE selects another).
    THROW_IF_FAILED(test_create_d3d12_device(IID_PPV_ARGS(&d3D12Device)));

    D3D12_COMMAND_QUEUE_DESC commandQueueDesc{};
    commandQueueDesc.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
    commandQueueDesc.Flags = D3D12_COMMAND_QUEUE_FLAG_NONE;
    THROW_IF_FAILED(d3D12Device->CreateCommandQueue(&commandQueueDesc, IID_PPV_ARGS(&commandQueue)));
    THROW_IF_FAILED(d3D12Device->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT,
            IID_PPV_ARGS(&commandAllocator)));
    THROW_IF_FAILED(d3D12Device->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, commandAllocator.Get(),
            nullptr, IID_PPV_ARGS(&commandList)));
}

void CloseExecuteResetWait(ComPtr<ID3D12Device> d3D12Device, ComPtr<ID3D12CommandQueue> commandQueue,
        ComPtr<ID3D12CommandAllocator> commandAllocator, ComPtr<ID3D12GraphicsCommandList> commandList)
{
    THROW_IF_FAILED(commandList->Close());

    ID3D12CommandList *commandLists[] = {commandList.Get()};
    commandQueue->ExecuteCommandLists(static_cast<UINT>(std::size(commandLists)), commandLists);

    ComPtr<ID3D12Fence> d3D12Fence;
    THROW_IF_FAILED(d3D12Device->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&d3D12Fence)));

    HANDLE fenceEventHandle = test_event_create();
    if (!fenceEventHandle)
        throw std::runtime_error("creating the fence event failed");
    THROW_IF_FAILED(d3D12Fence->SetEventOnCompletion(1, fenceEventHandle));
    THROW_IF_FAILED(commandQueue->Signal(d3D12Fence.Get(), 1));

    // WaitForSingleObjectEx(fenceEventHandle, INFINITE, FALSE), with a 30 s safety net.
    const int signalled = test_event_wait(fenceEventHandle, 30000);
    test_event_destroy(fenceEventHandle);
    if (signalled != 1)
        throw std::runtime_error("the fence event never fired");

    THROW_IF_FAILED(commandAllocator->Reset());
    THROW_IF_FAILED(commandList->Reset(commandAllocator.Get(), nullptr));
}

// What DirectMLX's DMLCalcBufferTensorSize computes (vkdml.h exports the same helper).
UINT64 DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType, UINT dimensionCount, const UINT *sizes,
        const UINT *strides)
{
    return vkdml_calc_buffer_tensor_size(dataType, dimensionCount, sizes, strides);
}

int Run()
{
    ComPtr<ID3D12Device> d3D12Device;
    ComPtr<ID3D12CommandQueue> commandQueue;
    ComPtr<ID3D12CommandAllocator> commandAllocator;
    ComPtr<ID3D12GraphicsCommandList> commandList;

    // Set up Direct3D 12.
    InitializeDirect3D12(d3D12Device, commandQueue, commandAllocator, commandList);

    // Create the DirectML device (the sample's debug build asks for the debug layer).
    DML_CREATE_DEVICE_FLAGS dmlCreateDeviceFlags = DML_CREATE_DEVICE_FLAG_DEBUG;
    ComPtr<IDMLDevice> dmlDevice;
    THROW_IF_FAILED(DMLCreateDevice(d3D12Device.Get(), dmlCreateDeviceFlags, IID_PPV_ARGS(&dmlDevice)));

    constexpr UINT tensorSizes[4] = {1, 2, 3, 4};
    constexpr UINT tensorElementCount = tensorSizes[0] * tensorSizes[1] * tensorSizes[2] * tensorSizes[3];

    DML_BUFFER_TENSOR_DESC dmlBufferTensorDesc = {};
    dmlBufferTensorDesc.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    dmlBufferTensorDesc.Flags = DML_TENSOR_FLAG_NONE;
    dmlBufferTensorDesc.DimensionCount = static_cast<UINT>(std::size(tensorSizes));
    dmlBufferTensorDesc.Sizes = tensorSizes;
    dmlBufferTensorDesc.Strides = nullptr;
    dmlBufferTensorDesc.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(dmlBufferTensorDesc.DataType,
            dmlBufferTensorDesc.DimensionCount, dmlBufferTensorDesc.Sizes, dmlBufferTensorDesc.Strides);

    ComPtr<IDMLOperator> dmlOperator;
    {
        // Create DirectML operator(s). Operators represent abstract functions such as "multiply",
        // "reduce", "convolution", or even compound operations such as recurrent neural nets. This
        // example creates an instance of the Identity operator, which applies the function
        // f(x) = x for all elements in a tensor.
        DML_TENSOR_DESC dmlTensorDesc{};
        dmlTensorDesc.Type = DML_TENSOR_TYPE_BUFFER;
        dmlTensorDesc.Desc = &dmlBufferTensorDesc;

        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC dmlIdentityOperatorDesc{};
        dmlIdentityOperatorDesc.InputTensor = &dmlTensorDesc;
        dmlIdentityOperatorDesc.OutputTensor = &dmlTensorDesc; // Input and output tensors have same size/type.

        // Like Direct3D 12, these DESC structs don't need to be long-lived. This means, for example,
        // that it's safe to place the DML_OPERATOR_DESC (and all the subobjects it points to) on
        // the stack, since they're no longer needed after CreateOperator returns.
        DML_OPERATOR_DESC dmlOperatorDesc{};
        dmlOperatorDesc.Type = DML_OPERATOR_ELEMENT_WISE_IDENTITY;
        dmlOperatorDesc.Desc = &dmlIdentityOperatorDesc;

        THROW_IF_FAILED(dmlDevice->CreateOperator(&dmlOperatorDesc, IID_PPV_ARGS(&dmlOperator)));
    }

    // Compile the operator into an object that can be dispatched to the GPU. In this step,
    // DirectML performs operator fusion and just-in-time (JIT) compilation of shader bytecode,
    // then compiles it into a Direct3D 12 pipeline state object (PSO). The resulting compiled
    // operator is a baked, optimized form of an operator suitable for execution on the GPU.
    ComPtr<IDMLCompiledOperator> dmlCompiledOperator;
    THROW_IF_FAILED(dmlDevice->CompileOperator(dmlOperator.Get(), DML_EXECUTION_FLAG_NONE,
            IID_PPV_ARGS(&dmlCompiledOperator)));

    ComPtr<IDMLOperatorInitializer> dmlOperatorInitializer;
    IDMLCompiledOperator *dmlCompiledOperators[] = {dmlCompiledOperator.Get()};
    THROW_IF_FAILED(dmlDevice->CreateOperatorInitializer(static_cast<UINT>(std::size(dmlCompiledOperators)),
            dmlCompiledOperators, IID_PPV_ARGS(&dmlOperatorInitializer)));

    // Query the operator for the required size (in descriptors) of its binding table.
    // You need to initialize an operator exactly once before it can be executed, and
    // the two stages require different numbers of descriptors for binding. For simplicity,
    // we create a single descriptor heap that's large enough to satisfy them both.
    DML_BINDING_PROPERTIES initializeBindingProperties = BY_VALUE(dmlOperatorInitializer, GetBindingProperties);
    DML_BINDING_PROPERTIES executeBindingProperties = BY_VALUE(dmlCompiledOperator, GetBindingProperties);
    UINT descriptorCount = std::max(initializeBindingProperties.RequiredDescriptorCount,
            executeBindingProperties.RequiredDescriptorCount);

    // Create descriptor heaps.
    ComPtr<ID3D12DescriptorHeap> descriptorHeap;
    D3D12_DESCRIPTOR_HEAP_DESC descriptorHeapDesc{};
    descriptorHeapDesc.Type = D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV;
    descriptorHeapDesc.NumDescriptors = std::max(descriptorCount, 1u);
    descriptorHeapDesc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE;
    THROW_IF_FAILED(d3D12Device->CreateDescriptorHeap(&descriptorHeapDesc, IID_PPV_ARGS(&descriptorHeap)));

    // Set the descriptor heap(s).
    ID3D12DescriptorHeap *d3D12DescriptorHeaps[] = {descriptorHeap.Get()};
    commandList->SetDescriptorHeaps(static_cast<UINT>(std::size(d3D12DescriptorHeaps)), d3D12DescriptorHeaps);

    // Create a binding table over the descriptor heap we just created.
    DML_BINDING_TABLE_DESC dmlBindingTableDesc{};
    dmlBindingTableDesc.Dispatchable = dmlOperatorInitializer.Get();
    dmlBindingTableDesc.CPUDescriptorHandle = BY_VALUE(descriptorHeap, GetCPUDescriptorHandleForHeapStart);
    dmlBindingTableDesc.GPUDescriptorHandle = BY_VALUE(descriptorHeap, GetGPUDescriptorHandleForHeapStart);
    dmlBindingTableDesc.SizeInDescriptors = std::max(descriptorCount, 1u);

    ComPtr<IDMLBindingTable> dmlBindingTable;
    THROW_IF_FAILED(dmlDevice->CreateBindingTable(&dmlBindingTableDesc, IID_PPV_ARGS(&dmlBindingTable)));

    // Create the temporary and persistent resources that are necessary for executing an operator.

    // The temporary resource is scratch memory (used internally by DirectML), whose contents you
    // don't need to define. The persistent resource is long-lived, and you need to initialize it
    // using the IDMLOperatorInitializer.
    UINT64 temporaryResourceSize = std::max(initializeBindingProperties.TemporaryResourceSize,
            executeBindingProperties.TemporaryResourceSize);
    UINT64 persistentResourceSize = executeBindingProperties.PersistentResourceSize;

    // Bind and initialize the operator on the GPU.
    ComPtr<ID3D12Resource> temporaryBuffer;
    if (temporaryResourceSize != 0)
    {
        CD3DX12_HEAP_PROPERTIES defaultHeap(D3D12_HEAP_TYPE_DEFAULT);
        CD3DX12_RESOURCE_DESC temporaryBufferDesc = CD3DX12_RESOURCE_DESC::Buffer(temporaryResourceSize,
                D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
        THROW_IF_FAILED(d3D12Device->CreateCommittedResource(&defaultHeap, D3D12_HEAP_FLAG_NONE,
                &temporaryBufferDesc, D3D12_RESOURCE_STATE_COMMON, nullptr, IID_PPV_ARGS(&temporaryBuffer)));

        if (initializeBindingProperties.TemporaryResourceSize != 0)
        {
            DML_BUFFER_BINDING bufferBinding{temporaryBuffer.Get(), 0, temporaryResourceSize};
            DML_BINDING_DESC bindingDesc{DML_BINDING_TYPE_BUFFER, &bufferBinding};
            dmlBindingTable->BindTemporaryResource(&bindingDesc);
        }
    }

    ComPtr<ID3D12Resource> persistentBuffer;
    if (persistentResourceSize != 0)
    {
        CD3DX12_HEAP_PROPERTIES defaultHeap(D3D12_HEAP_TYPE_DEFAULT);
        CD3DX12_RESOURCE_DESC persistentBufferDesc = CD3DX12_RESOURCE_DESC::Buffer(persistentResourceSize,
                D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
        THROW_IF_FAILED(d3D12Device->CreateCommittedResource(&defaultHeap, D3D12_HEAP_FLAG_NONE,
                &persistentBufferDesc, D3D12_RESOURCE_STATE_COMMON, nullptr, IID_PPV_ARGS(&persistentBuffer)));

        // The persistent resource should be bound as the output to the IDMLOperatorInitializer.
        DML_BUFFER_BINDING bufferBinding{persistentBuffer.Get(), 0, persistentResourceSize};
        DML_BINDING_DESC bindingDesc{DML_BINDING_TYPE_BUFFER, &bufferBinding};
        dmlBindingTable->BindOutputs(1, &bindingDesc);
    }

    // The command recorder is a stateless object that records Dispatches into an existing Direct3D 12 command list.
    ComPtr<IDMLCommandRecorder> dmlCommandRecorder;
    THROW_IF_FAILED(dmlDevice->CreateCommandRecorder(IID_PPV_ARGS(&dmlCommandRecorder)));

    // Record execution of the operator initializer.
    dmlCommandRecorder->RecordDispatch(commandList.Get(), dmlOperatorInitializer.Get(), dmlBindingTable.Get());

    // Execute it, and wait for execution to complete.
    CloseExecuteResetWait(d3D12Device, commandQueue, commandAllocator, commandList);

    // The command list is back to its initial state: set the descriptor heap(s) again.
    commandList->SetDescriptorHeaps(static_cast<UINT>(std::size(d3D12DescriptorHeaps)), d3D12DescriptorHeaps);

    // Reset the binding table to bind for the operator we want to execute (it was previously used
    // to bind for the initializer).
    dmlBindingTableDesc.Dispatchable = dmlCompiledOperator.Get();
    THROW_IF_FAILED(dmlBindingTable->Reset(&dmlBindingTableDesc));

    if (temporaryResourceSize != 0 && executeBindingProperties.TemporaryResourceSize != 0)
    {
        DML_BUFFER_BINDING bufferBinding{temporaryBuffer.Get(), 0, temporaryResourceSize};
        DML_BINDING_DESC bindingDesc{DML_BINDING_TYPE_BUFFER, &bufferBinding};
        dmlBindingTable->BindTemporaryResource(&bindingDesc);
    }

    if (persistentResourceSize != 0)
    {
        DML_BUFFER_BINDING bufferBinding{persistentBuffer.Get(), 0, persistentResourceSize};
        DML_BINDING_DESC bindingDesc{DML_BINDING_TYPE_BUFFER, &bufferBinding};
        dmlBindingTable->BindPersistentResource(&bindingDesc);
    }

    // Create tensor buffers for upload/input/output/readback of the tensor elements.

    // 24 elements * 4 == 96 bytes.
    UINT64 tensorBufferSize{dmlBufferTensorDesc.TotalTensorSizeInBytes};

    ComPtr<ID3D12Resource> uploadBuffer;
    {
        CD3DX12_HEAP_PROPERTIES uploadHeap(D3D12_HEAP_TYPE_UPLOAD);
        CD3DX12_RESOURCE_DESC uploadBufferDesc = CD3DX12_RESOURCE_DESC::Buffer(tensorBufferSize);
        THROW_IF_FAILED(d3D12Device->CreateCommittedResource(&uploadHeap, D3D12_HEAP_FLAG_NONE, &uploadBufferDesc,
                D3D12_RESOURCE_STATE_GENERIC_READ, nullptr, IID_PPV_ARGS(&uploadBuffer)));
    }

    ComPtr<ID3D12Resource> inputBuffer;
    {
        CD3DX12_HEAP_PROPERTIES defaultHeap(D3D12_HEAP_TYPE_DEFAULT);
        CD3DX12_RESOURCE_DESC inputBufferDesc = CD3DX12_RESOURCE_DESC::Buffer(tensorBufferSize,
                D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
        THROW_IF_FAILED(d3D12Device->CreateCommittedResource(&defaultHeap, D3D12_HEAP_FLAG_NONE, &inputBufferDesc,
                D3D12_RESOURCE_STATE_COPY_DEST, nullptr, IID_PPV_ARGS(&inputBuffer)));
    }

    std::array<float, tensorElementCount> inputTensorElementArray;
    {
        for (UINT i = 0; i < tensorElementCount; ++i)
            inputTensorElementArray[i] = 1.618f * static_cast<float>(i + 1);

        D3D12_SUBRESOURCE_DATA tensorSubresourceData{};
        tensorSubresourceData.pData = inputTensorElementArray.data();
        tensorSubresourceData.RowPitch = static_cast<LONG_PTR>(tensorBufferSize);
        tensorSubresourceData.SlicePitch = tensorSubresourceData.RowPitch;

        // Upload the input tensor to the GPU.
        ::UpdateSubresources(commandList.Get(), inputBuffer.Get(), uploadBuffer.Get(), 0, 0, 1,
                &tensorSubresourceData);

        CD3DX12_RESOURCE_BARRIER toUnorderedAccess = CD3DX12_RESOURCE_BARRIER::Transition(inputBuffer.Get(),
                D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
        commandList->ResourceBarrier(1, &toUnorderedAccess);
    }

    DML_BUFFER_BINDING inputBufferBinding{inputBuffer.Get(), 0, tensorBufferSize};
    DML_BINDING_DESC inputBindingDesc{DML_BINDING_TYPE_BUFFER, &inputBufferBinding};
    dmlBindingTable->BindInputs(1, &inputBindingDesc);

    ComPtr<ID3D12Resource> outputBuffer;
    {
        CD3DX12_HEAP_PROPERTIES defaultHeap(D3D12_HEAP_TYPE_DEFAULT);
        CD3DX12_RESOURCE_DESC outputBufferDesc = CD3DX12_RESOURCE_DESC::Buffer(tensorBufferSize,
                D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
        THROW_IF_FAILED(d3D12Device->CreateCommittedResource(&defaultHeap, D3D12_HEAP_FLAG_NONE, &outputBufferDesc,
                D3D12_RESOURCE_STATE_UNORDERED_ACCESS, nullptr, IID_PPV_ARGS(&outputBuffer)));
    }

    DML_BUFFER_BINDING outputBufferBinding{outputBuffer.Get(), 0, tensorBufferSize};
    DML_BINDING_DESC outputBindingDesc{DML_BINDING_TYPE_BUFFER, &outputBufferBinding};
    dmlBindingTable->BindOutputs(1, &outputBindingDesc);

    // Record execution of the compiled operator.
    dmlCommandRecorder->RecordDispatch(commandList.Get(), dmlCompiledOperator.Get(), dmlBindingTable.Get());

    CloseExecuteResetWait(d3D12Device, commandQueue, commandAllocator, commandList);

    // The output buffer now contains the result of the identity operator,
    // so read it back if you want the CPU to access it.
    ComPtr<ID3D12Resource> readbackBuffer;
    {
        CD3DX12_HEAP_PROPERTIES readbackHeap(D3D12_HEAP_TYPE_READBACK);
        CD3DX12_RESOURCE_DESC readbackBufferDesc = CD3DX12_RESOURCE_DESC::Buffer(tensorBufferSize);
        THROW_IF_FAILED(d3D12Device->CreateCommittedResource(&readbackHeap, D3D12_HEAP_FLAG_NONE,
                &readbackBufferDesc, D3D12_RESOURCE_STATE_COPY_DEST, nullptr, IID_PPV_ARGS(&readbackBuffer)));
    }

    CD3DX12_RESOURCE_BARRIER toCopySource = CD3DX12_RESOURCE_BARRIER::Transition(outputBuffer.Get(),
            D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
    commandList->ResourceBarrier(1, &toCopySource);

    commandList->CopyResource(readbackBuffer.Get(), outputBuffer.Get());

    CloseExecuteResetWait(d3D12Device, commandQueue, commandAllocator, commandList);

    D3D12_RANGE tensorBufferRange{0, static_cast<SIZE_T>(tensorBufferSize)};
    float *outputBufferData{};
    THROW_IF_FAILED(readbackBuffer->Map(0, &tensorBufferRange, reinterpret_cast<void **>(&outputBufferData)));

    bool ok = true;
    std::string outputString = "output tensor: ";
    for (size_t tensorElementIndex{0}; tensorElementIndex < tensorElementCount; ++tensorElementIndex,
            ++outputBufferData)
    {
        char element[32];
        std::snprintf(element, sizeof(element), "%.4f ", *outputBufferData);
        outputString += element;
        if (*outputBufferData != inputTensorElementArray[tensorElementIndex])
            ok = false;
    }
    std::cout << outputString << std::endl;

    D3D12_RANGE emptyRange{0, 0};
    readbackBuffer->Unmap(0, &emptyRange);

    if (dmlDevice->GetDeviceRemovedReason() != S_OK)
    {
        std::cerr << "the DML device was removed" << std::endl;
        ok = false;
    }

    // Every ComPtr released in reverse order; the devices must be the last references.
    readbackBuffer.Reset();
    outputBuffer.Reset();
    inputBuffer.Reset();
    uploadBuffer.Reset();
    dmlCommandRecorder.Reset();
    persistentBuffer.Reset();
    temporaryBuffer.Reset();
    dmlBindingTable.Reset();
    descriptorHeap.Reset();
    dmlOperatorInitializer.Reset();
    dmlCompiledOperator.Reset();
    dmlOperator.Reset();
    if (ULONG refs = dmlDevice.Detach()->Release())
    {
        std::cerr << "the DML device's final Release returned " << refs << std::endl;
        ok = false;
    }
    commandList.Reset();
    commandAllocator.Reset();
    commandQueue.Reset();
    if (ULONG refs = d3D12Device.Detach()->Release())
    {
        std::cerr << "the D3D12 device's final Release returned " << refs << std::endl;
        ok = false;
    }
    return ok ? 0 : 1;
}

} // namespace

int main()
{
    vkdml_test_init_logging();
    vkdml_test_require_device();

    int result;
    try
    {
        result = Run();
    }
    catch (const std::exception &e)
    {
        std::cerr << e.what() << std::endl;
        result = 1;
    }

    const struct vkdml_test_log_counts *log = vkdml_test_log_counts();
    if (log->errors || log->validation)
    {
        std::cerr << log->errors << " error(s), " << log->validation << " validation message(s) logged; last: "
                << log->last_error << std::endl;
        result = 1;
    }
    std::cout << (result ? "MISMATCH" : "OK") << std::endl;
    return result;
}
