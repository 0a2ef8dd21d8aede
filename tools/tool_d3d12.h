/*
 * D3D12 helpers shared by the tools (vkdml-bench, vkdml-demo): buffers, barriers and buffer
 * bindings as a DirectML application writes them. Header-only, so each tool stays one program.
 */
#ifndef VKDML_TOOL_D3D12_H
#define VKDML_TOOL_D3D12_H

#ifndef COBJMACROS
# define COBJMACROS
#endif
#include <string.h>

#include <d3d12.h>
#include <DirectML.h>

/* A committed buffer of `size` bytes in a heap of `type`, created in `state`; DEFAULT buffers
 * allow unordered access (DirectML binds them as UAVs). */
static inline HRESULT tool_create_buffer(ID3D12Device *device, D3D12_HEAP_TYPE type, UINT64 size,
        D3D12_RESOURCE_STATES state, ID3D12Resource **buffer)
{
    D3D12_HEAP_PROPERTIES properties;
    D3D12_RESOURCE_DESC desc;

    memset(&properties, 0, sizeof(properties));
    properties.Type = type;
    memset(&desc, 0, sizeof(desc));
    desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
    desc.Width = size;
    desc.Height = 1;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = 1;
    desc.Format = DXGI_FORMAT_UNKNOWN;
    desc.SampleDesc.Count = 1;
    desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
    desc.Flags = type == D3D12_HEAP_TYPE_DEFAULT ? D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS
            : D3D12_RESOURCE_FLAG_NONE;
    *buffer = NULL;
    return ID3D12Device_CreateCommittedResource(device, &properties, D3D12_HEAP_FLAG_NONE, &desc, state, NULL,
            &IID_ID3D12Resource, (void **)buffer);
}

static inline void tool_transition(ID3D12GraphicsCommandList *list, ID3D12Resource *resource,
        D3D12_RESOURCE_STATES before, D3D12_RESOURCE_STATES after)
{
    D3D12_RESOURCE_BARRIER barrier;

    memset(&barrier, 0, sizeof(barrier));
    barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
    barrier.Transition.pResource = resource;
    barrier.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
    barrier.Transition.StateBefore = before;
    barrier.Transition.StateAfter = after;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &barrier);
}

/* A UAV barrier on every resource: DirectML's dispatches need one between dependent ones. */
static inline void tool_uav_barrier(ID3D12GraphicsCommandList *list)
{
    D3D12_RESOURCE_BARRIER barrier;

    memset(&barrier, 0, sizeof(barrier));
    barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &barrier);
}

/* `buffer` bound whole (`size` bytes) through `storage`; NULL binds DML_BINDING_TYPE_NONE. */
static inline DML_BINDING_DESC tool_buffer_binding(DML_BUFFER_BINDING *storage, ID3D12Resource *buffer, UINT64 size)
{
    DML_BINDING_DESC desc;

    storage->Buffer = buffer;
    storage->Offset = 0;
    storage->SizeInBytes = size;
    desc.Type = buffer ? DML_BINDING_TYPE_BUFFER : DML_BINDING_TYPE_NONE;
    desc.Desc = buffer ? storage : NULL;
    return desc;
}

#endif /* VKDML_TOOL_D3D12_H */
