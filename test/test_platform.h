/*
 * What differs between the Linux build of the tests and the Windows one (mingw-w64, run under
 * wine), in one place, so the tests themselves stay one code:
 *  - the COM and D3D12 headers: DirectX-Headers' WSL adapter on Linux, <windows.h> and
 *    <d3d12.h> on Windows (DirectX-Headers' too, README.md "Windows");
 *  - the shim's device: D3D12CreateDevice is exported on Linux only (on Windows that name stays
 *    d3d12.dll's), vkdml_create_d3d12_device works on both;
 *  - the event HANDLE of ID3D12Fence::SetEventOnCompletion: an eventfd cast to HANDLE on Linux
 *    (the WSL convention the shim follows), a Win32 auto-reset event on Windows;
 *  - struct-returning methods: by value on Linux and with MSVC, an explicit RetVal pointer with
 *    mingw-w64 (docs/design.md, ABI): BY_VALUE() in C++, and by-value C spellings on Windows.
 * C11 and C++17.
 */
#ifndef VKDML_TEST_PLATFORM_H
#define VKDML_TEST_PLATFORM_H

#ifdef _WIN32
# include <windows.h>
# include <d3d12.h>
#else
# include <wsl/winadapter.h>
# include <directx/d3d12.h>
# include <errno.h>
# include <poll.h>
# include <sys/eventfd.h>
# include <unistd.h>
#endif
#include <stdint.h>

#include "vkdml.h"

#ifdef __cplusplus
# define VKDML_TEST_IID_PTR(riid) (&(riid))
#else
# define VKDML_TEST_IID_PTR(riid) (riid)
#endif

/* A D3D12 device of the shim on the default adapter (VKDML_DEVICE selects another). */
static inline HRESULT test_create_d3d12_device(REFIID riid, void **device)
{
#ifdef _WIN32
    return vkdml_create_d3d12_device(NULL, VKDML_TEST_IID_PTR(riid), device);
#else
    return D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, riid, device);
#endif
}

/* A new, unsignalled event; NULL on failure. */
static inline HANDLE test_event_create(void)
{
#ifdef _WIN32
    return CreateEventW(NULL, FALSE, FALSE, NULL);
#else
    int fd = eventfd(0, EFD_CLOEXEC);

    return fd < 0 ? NULL : (HANDLE)(intptr_t)fd;
#endif
}

/* 1 when the event was signalled within `timeout_ms` (the signal is consumed), 0 when not, -1 on
 * an error. */
static inline int test_event_wait(HANDLE event, int timeout_ms)
{
#ifdef _WIN32
    DWORD ret = WaitForSingleObject(event, (DWORD)timeout_ms);

    return ret == WAIT_OBJECT_0 ? 1 : ret == WAIT_TIMEOUT ? 0 : -1;
#else
    int fd = (int)(intptr_t)event;
    struct pollfd pfd = {fd, POLLIN, 0};
    uint64_t value = 0;
    int ret;

    while ((ret = poll(&pfd, 1, timeout_ms)) < 0 && errno == EINTR)
        ;
    if (ret < 0)
        return -1;
    if (!ret)
        return 0;
    return read(fd, &value, sizeof(value)) == (ssize_t)sizeof(value) && value >= 1 ? 1 : -1;
#endif
}

static inline void test_event_destroy(HANDLE event)
{
#ifdef _WIN32
    CloseHandle(event);
#else
    close((int)(intptr_t)event);
#endif
}

#if defined(__cplusplus)
/* BY_VALUE(object, method, args...): a struct-returning method's result, by value on every
 * platform. mingw-w64's C++ view takes the result pointer first (MSVC's hidden-pointer ABI made
 * explicit, as d3dx12.h calls it). */
# if defined(_MSC_VER) || !defined(_WIN32)
#  define BY_VALUE(object, method, ...) ((object)->method(__VA_ARGS__))
# else
#  include <type_traits>
#  define BY_VALUE(object, method, ...) \
    ([&] { \
        std::remove_pointer_t<decltype((object)->method(nullptr __VA_OPT__(,) __VA_ARGS__))> value_; \
        return *(object)->method(&value_ __VA_OPT__(,) __VA_ARGS__); \
    }())
# endif
#elif defined(_WIN32) && defined(COBJMACROS)
/* The C view on Windows takes an explicit RetVal for these methods; the tests call them by value,
 * as on Linux, through these wrappers (which go through the RetVal vtable entries). */
# define VKDML_TEST_BY_VALUE(type, iface, method) \
    static inline type vkdml_test_##iface##_##method(iface *object) \
    { \
        type value; \
        return *iface##_##method(object, &value); \
    }
VKDML_TEST_BY_VALUE(D3D12_CPU_DESCRIPTOR_HANDLE, ID3D12DescriptorHeap, GetCPUDescriptorHandleForHeapStart)
VKDML_TEST_BY_VALUE(D3D12_GPU_DESCRIPTOR_HANDLE, ID3D12DescriptorHeap, GetGPUDescriptorHandleForHeapStart)
VKDML_TEST_BY_VALUE(D3D12_DESCRIPTOR_HEAP_DESC, ID3D12DescriptorHeap, GetDesc)
VKDML_TEST_BY_VALUE(D3D12_COMMAND_QUEUE_DESC, ID3D12CommandQueue, GetDesc)
VKDML_TEST_BY_VALUE(D3D12_HEAP_DESC, ID3D12Heap, GetDesc)
VKDML_TEST_BY_VALUE(D3D12_RESOURCE_DESC, ID3D12Resource, GetDesc)
VKDML_TEST_BY_VALUE(LUID, ID3D12Device, GetAdapterLuid)
# undef VKDML_TEST_BY_VALUE
static inline D3D12_RESOURCE_ALLOCATION_INFO vkdml_test_ID3D12Device_GetResourceAllocationInfo(ID3D12Device *device,
        UINT visible_mask, UINT count, const D3D12_RESOURCE_DESC *descs)
{
    D3D12_RESOURCE_ALLOCATION_INFO info;

    return *ID3D12Device_GetResourceAllocationInfo(device, &info, visible_mask, count, descs);
}
static inline D3D12_HEAP_PROPERTIES vkdml_test_ID3D12Device_GetCustomHeapProperties(ID3D12Device *device,
        UINT node_mask, D3D12_HEAP_TYPE type)
{
    D3D12_HEAP_PROPERTIES properties;

    return *ID3D12Device_GetCustomHeapProperties(device, &properties, node_mask, type);
}
# undef ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart
# define ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart \
        vkdml_test_ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart
# undef ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart
# define ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart \
        vkdml_test_ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart
# undef ID3D12DescriptorHeap_GetDesc
# define ID3D12DescriptorHeap_GetDesc vkdml_test_ID3D12DescriptorHeap_GetDesc
# undef ID3D12CommandQueue_GetDesc
# define ID3D12CommandQueue_GetDesc vkdml_test_ID3D12CommandQueue_GetDesc
# undef ID3D12Heap_GetDesc
# define ID3D12Heap_GetDesc vkdml_test_ID3D12Heap_GetDesc
# undef ID3D12Resource_GetDesc
# define ID3D12Resource_GetDesc vkdml_test_ID3D12Resource_GetDesc
# undef ID3D12Device_GetAdapterLuid
# define ID3D12Device_GetAdapterLuid vkdml_test_ID3D12Device_GetAdapterLuid
# undef ID3D12Device_GetResourceAllocationInfo
# define ID3D12Device_GetResourceAllocationInfo vkdml_test_ID3D12Device_GetResourceAllocationInfo
# undef ID3D12Device_GetCustomHeapProperties
# define ID3D12Device_GetCustomHeapProperties vkdml_test_ID3D12Device_GetCustomHeapProperties
#endif

#endif /* VKDML_TEST_PLATFORM_H */
