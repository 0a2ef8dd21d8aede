/*
 * C++ side of the DirectML ABI test: one C++ object per IDML* interface, written
 * against the C++ view of api/DirectML.h (pure virtual overrides). Every method
 * records which method ran, its `this` and its arguments. test_abi.c calls
 * these objects through the C view (COBJMACROS), so a slot, parameter or
 * struct-return disagreement between the two views shows up as the wrong
 * method, `this` or argument being recorded.
 */

#include <DirectML.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "abi_expected.h"

namespace {

struct call_record {
    const char *method;
    const void *self;
    unsigned argc;
    uint64_t args[8];
    uint64_t ret;
};

call_record last;
uint64_t next_ret = 0x1000;

uint64_t a(const volatile void *p)
{
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
}

uint64_t a(uint64_t v)
{
    return v;
}

/* Returns a fresh value for the method to return, so the caller can check it
 * arrived unchanged. Kept below 2^31 to stay a success HRESULT. */
uint64_t record(const void *self, const char *method, std::initializer_list<uint64_t> args)
{
    last = call_record();
    last.method = method;
    last.self = self;
    for (uint64_t v : args)
        last.args[last.argc++] = v;
    last.ret = ++next_ret;
    return last.ret;
}

DML_BINDING_PROPERTIES binding_properties()
{
    DML_BINDING_PROPERTIES p;
    p.RequiredDescriptorCount = 0xD1;
    p.TemporaryResourceSize = UINT64_C(0x1122334455667788);
    p.PersistentResourceSize = UINT64_C(0x99AABBCCDDEEFF00);
    return p;
}

/* Out-pointers receive their own address: the C side can tell the write
 * landed where it asked. */
void fill_out(void **ppv)
{
    if (ppv)
        *ppv = ppv;
}

template <class I>
struct unknown_impl : I {
    const I *iface() const { return this; }

    HRESULT STDMETHODCALLTYPE QueryInterface(REFIID riid, void **ppv) override
    {
        fill_out(ppv);
        return static_cast<HRESULT>(record(iface(), "QueryInterface", {a(&riid), a(ppv)}));
    }

    ULONG STDMETHODCALLTYPE AddRef() override
    {
        return static_cast<ULONG>(record(iface(), "AddRef", {}));
    }

    ULONG STDMETHODCALLTYPE Release() override
    {
        return static_cast<ULONG>(record(iface(), "Release", {}));
    }
};

template <class I>
struct object_impl : unknown_impl<I> {
    using unknown_impl<I>::iface;

    HRESULT STDMETHODCALLTYPE GetPrivateData(REFGUID guid, UINT *dataSize, void *data) override
    {
        if (dataSize)
            *dataSize += 1;
        return static_cast<HRESULT>(record(iface(), "GetPrivateData",
                                           {a(&guid), a(dataSize), a(data)}));
    }

    HRESULT STDMETHODCALLTYPE SetPrivateData(REFGUID guid, UINT dataSize, const void *data) override
    {
        return static_cast<HRESULT>(record(iface(), "SetPrivateData",
                                           {a(&guid), a(dataSize), a(data)}));
    }

    HRESULT STDMETHODCALLTYPE SetPrivateDataInterface(REFGUID guid, IUnknown *data) override
    {
        return static_cast<HRESULT>(record(iface(), "SetPrivateDataInterface",
                                           {a(&guid), a(data)}));
    }

    HRESULT STDMETHODCALLTYPE SetName(PCWSTR name) override
    {
        return static_cast<HRESULT>(record(iface(), "SetName", {a(name)}));
    }
};

template <class I>
struct device_child_impl : object_impl<I> {
    using unknown_impl<I>::iface;

    HRESULT STDMETHODCALLTYPE GetDevice(REFIID riid, void **ppv) override
    {
        fill_out(ppv);
        return static_cast<HRESULT>(record(iface(), "GetDevice", {a(&riid), a(ppv)}));
    }
};

template <class I>
struct dispatchable_impl : device_child_impl<I> {
    using unknown_impl<I>::iface;

    /* The DirectX-Headers rule, mirrored from DirectML.h's C++ view. */
#if defined(_MSC_VER) || !defined(_WIN32)
    DML_BINDING_PROPERTIES STDMETHODCALLTYPE GetBindingProperties() override
    {
        record(iface(), "GetBindingProperties", {});
        return binding_properties();
    }
#else
    DML_BINDING_PROPERTIES *STDMETHODCALLTYPE GetBindingProperties(DML_BINDING_PROPERTIES *ret) override
    {
        record(iface(), "GetBindingProperties", {});
        *ret = binding_properties();
        return ret;
    }
#endif
};

template <class I>
struct device_impl : object_impl<I> {
    using unknown_impl<I>::iface;

    HRESULT STDMETHODCALLTYPE CheckFeatureSupport(DML_FEATURE feature, UINT featureQueryDataSize,
            const void *featureQueryData, UINT featureSupportDataSize,
            void *featureSupportData) override
    {
        return static_cast<HRESULT>(record(iface(), "CheckFeatureSupport",
                {a(feature), a(featureQueryDataSize), a(featureQueryData),
                 a(featureSupportDataSize), a(featureSupportData)}));
    }

    HRESULT STDMETHODCALLTYPE CreateOperator(const DML_OPERATOR_DESC *desc, REFIID riid,
            void **ppv) override
    {
        fill_out(ppv);
        return static_cast<HRESULT>(record(iface(), "CreateOperator", {a(desc), a(&riid), a(ppv)}));
    }

    HRESULT STDMETHODCALLTYPE CompileOperator(IDMLOperator *op, DML_EXECUTION_FLAGS flags,
            REFIID riid, void **ppv) override
    {
        fill_out(ppv);
        return static_cast<HRESULT>(record(iface(), "CompileOperator",
                                           {a(op), a(flags), a(&riid), a(ppv)}));
    }

    HRESULT STDMETHODCALLTYPE CreateOperatorInitializer(UINT operatorCount,
            IDMLCompiledOperator *const *operators, REFIID riid, void **ppv) override
    {
        fill_out(ppv);
        return static_cast<HRESULT>(record(iface(), "CreateOperatorInitializer",
                                           {a(operatorCount), a(operators), a(&riid), a(ppv)}));
    }

    HRESULT STDMETHODCALLTYPE CreateCommandRecorder(REFIID riid, void **ppv) override
    {
        fill_out(ppv);
        return static_cast<HRESULT>(record(iface(), "CreateCommandRecorder", {a(&riid), a(ppv)}));
    }

    HRESULT STDMETHODCALLTYPE CreateBindingTable(const DML_BINDING_TABLE_DESC *desc, REFIID riid,
            void **ppv) override
    {
        fill_out(ppv);
        return static_cast<HRESULT>(record(iface(), "CreateBindingTable",
                                           {a(desc), a(&riid), a(ppv)}));
    }

    HRESULT STDMETHODCALLTYPE Evict(UINT count, IDMLPageable *const *ppObjects) override
    {
        return static_cast<HRESULT>(record(iface(), "Evict", {a(count), a(ppObjects)}));
    }

    HRESULT STDMETHODCALLTYPE MakeResident(UINT count, IDMLPageable *const *ppObjects) override
    {
        return static_cast<HRESULT>(record(iface(), "MakeResident", {a(count), a(ppObjects)}));
    }

    HRESULT STDMETHODCALLTYPE GetDeviceRemovedReason() override
    {
        return static_cast<HRESULT>(record(iface(), "GetDeviceRemovedReason", {}));
    }

    HRESULT STDMETHODCALLTYPE GetParentDevice(REFIID riid, void **ppv) override
    {
        fill_out(ppv);
        return static_cast<HRESULT>(record(iface(), "GetParentDevice", {a(&riid), a(ppv)}));
    }
};

#if DML_TARGET_VERSION >= 0x2100
struct device1_impl final : device_impl<IDMLDevice1> {
    HRESULT STDMETHODCALLTYPE CompileGraph(const DML_GRAPH_DESC *desc, DML_EXECUTION_FLAGS flags,
            REFIID riid, void **ppv) override
    {
        fill_out(ppv);
        return static_cast<HRESULT>(record(iface(), "CompileGraph",
                                           {a(desc), a(flags), a(&riid), a(ppv)}));
    }
};
#endif

struct operator_initializer_impl final : dispatchable_impl<IDMLOperatorInitializer> {
    HRESULT STDMETHODCALLTYPE Reset(UINT operatorCount,
            IDMLCompiledOperator *const *operators) override
    {
        return static_cast<HRESULT>(record(iface(), "Reset", {a(operatorCount), a(operators)}));
    }
};

struct binding_table_impl final : device_child_impl<IDMLBindingTable> {
    void STDMETHODCALLTYPE BindInputs(UINT bindingCount, const DML_BINDING_DESC *bindings) override
    {
        record(iface(), "BindInputs", {a(bindingCount), a(bindings)});
    }

    void STDMETHODCALLTYPE BindOutputs(UINT bindingCount, const DML_BINDING_DESC *bindings) override
    {
        record(iface(), "BindOutputs", {a(bindingCount), a(bindings)});
    }

    void STDMETHODCALLTYPE BindTemporaryResource(const DML_BINDING_DESC *binding) override
    {
        record(iface(), "BindTemporaryResource", {a(binding)});
    }

    void STDMETHODCALLTYPE BindPersistentResource(const DML_BINDING_DESC *binding) override
    {
        record(iface(), "BindPersistentResource", {a(binding)});
    }

    HRESULT STDMETHODCALLTYPE Reset(const DML_BINDING_TABLE_DESC *desc) override
    {
        return static_cast<HRESULT>(record(iface(), "Reset", {a(desc)}));
    }
};

struct command_recorder_impl final : device_child_impl<IDMLCommandRecorder> {
    void STDMETHODCALLTYPE RecordDispatch(ID3D12CommandList *commandList,
            IDMLDispatchable *dispatchable, IDMLBindingTable *bindings) override
    {
        record(iface(), "RecordDispatch", {a(commandList), a(dispatchable), a(bindings)});
    }
};

struct debug_device_impl final : unknown_impl<IDMLDebugDevice> {
    void STDMETHODCALLTYPE SetMuteDebugOutput(BOOL mute) override
    {
        record(iface(), "SetMuteDebugOutput", {a(mute)});
    }
};

object_impl<IDMLObject> g_object;
device_impl<IDMLDevice> g_device;
device_child_impl<IDMLDeviceChild> g_device_child;
device_child_impl<IDMLPageable> g_pageable;
device_child_impl<IDMLOperator> g_operator;
dispatchable_impl<IDMLDispatchable> g_dispatchable;
dispatchable_impl<IDMLCompiledOperator> g_compiled_operator;
operator_initializer_impl g_operator_initializer;
binding_table_impl g_binding_table;
command_recorder_impl g_command_recorder;
debug_device_impl g_debug_device;
#if DML_TARGET_VERSION >= 0x2100
device1_impl g_device1;
#endif

bool guid_equal(const GUID &x, const GUID &y)
{
    return std::memcmp(&x, &y, sizeof(GUID)) == 0;
}

} // namespace

extern "C" {

void *abi_impl_object(const char *iface)
{
    struct entry {
        const char *name;
        void *object;
    };
    static const entry objects[] = {
        {"IDMLObject", static_cast<IDMLObject *>(&g_object)},
        {"IDMLDevice", static_cast<IDMLDevice *>(&g_device)},
        {"IDMLDeviceChild", static_cast<IDMLDeviceChild *>(&g_device_child)},
        {"IDMLPageable", static_cast<IDMLPageable *>(&g_pageable)},
        {"IDMLOperator", static_cast<IDMLOperator *>(&g_operator)},
        {"IDMLDispatchable", static_cast<IDMLDispatchable *>(&g_dispatchable)},
        {"IDMLCompiledOperator", static_cast<IDMLCompiledOperator *>(&g_compiled_operator)},
        {"IDMLOperatorInitializer", static_cast<IDMLOperatorInitializer *>(&g_operator_initializer)},
        {"IDMLBindingTable", static_cast<IDMLBindingTable *>(&g_binding_table)},
        {"IDMLCommandRecorder", static_cast<IDMLCommandRecorder *>(&g_command_recorder)},
        {"IDMLDebugDevice", static_cast<IDMLDebugDevice *>(&g_debug_device)},
#if DML_TARGET_VERSION >= 0x2100
        {"IDMLDevice1", static_cast<IDMLDevice1 *>(&g_device1)},
#endif
    };
    for (const entry &e : objects) {
        if (std::strcmp(e.name, iface) == 0)
            return e.object;
    }
    return nullptr;
}

const char *abi_last_method(void)
{
    return last.method;
}

const void *abi_last_this(void)
{
    return last.self;
}

unsigned abi_last_argc(void)
{
    return last.argc;
}

uint64_t abi_last_arg(unsigned i)
{
    return i < last.argc ? last.args[i] : 0;
}

uint64_t abi_last_ret(void)
{
    return last.ret;
}

void abi_reset(void)
{
    last = call_record();
}

DML_BINDING_PROPERTIES abi_impl_binding_properties(void)
{
    return binding_properties();
}

/* The C++ compiler's view of every size, offset and enum value must match the
 * same expectations test_abi.c checks for C. */
int abi_cxx_layout_mismatches(void)
{
    int bad = 0;
#define CXX_CHECK(what, expected, actual) \
    if (static_cast<long long>(expected) != static_cast<long long>(actual)) { \
        std::fprintf(stderr, "C++: %s: expected %lld, got %lld\n", what, \
                     static_cast<long long>(expected), static_cast<long long>(actual)); \
        bad++; \
    }
#define CXX_ENUM(name, value) CXX_CHECK(#name, value, name)
#define CXX_CONST(name, value) CXX_CHECK(#name, value, name)
#define CXX_SIZE(type, size) CXX_CHECK("sizeof(" #type ")", size, sizeof(type))
#define CXX_ALIGN(type, align) CXX_CHECK("alignof(" #type ")", align, alignof(type))
#define CXX_OFFSET(type, field, off) CXX_CHECK(#type "." #field, off, offsetof(type, field))
    ABI_ENUM_VALUES(CXX_ENUM)
    ABI_CONSTANTS(CXX_CONST)
    ABI_TYPE_SIZES(CXX_SIZE)
    ABI_TYPE_ALIGNS(CXX_ALIGN)
    ABI_FIELD_OFFSETS(CXX_OFFSET)
#undef CXX_OFFSET
#undef CXX_ALIGN
#undef CXX_SIZE
#undef CXX_CONST
#undef CXX_ENUM
#undef CXX_CHECK
    return bad;
}

/* __uuidof (DirectX-Headers' emulation through __CRT_UUID_DECL, or MSVC's
 * own) must give every interface's IID, and IID_PPV_ARGS must compile and
 * pass that IID. */
int abi_cxx_uuid_mismatches(void)
{
    int bad = 0;
#define CXX_UUID(iface, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8) \
    { \
        const GUID expected = {l, w1, w2, {b1, b2, b3, b4, b5, b6, b7, b8}}; \
        if (!guid_equal(__uuidof(iface), expected)) { \
            std::fprintf(stderr, "C++: __uuidof(%s) is wrong\n", #iface); \
            bad++; \
        } \
    }
    ABI_IIDS(CXX_UUID)
#undef CXX_UUID

    IDMLDevice *device = nullptr;
    IDMLObject *object = &g_device;
    HRESULT hr = object->QueryInterface(IID_PPV_ARGS(&device));
    if (std::strcmp(last.method, "QueryInterface") != 0 || hr != static_cast<HRESULT>(last.ret)
            || !guid_equal(*reinterpret_cast<const GUID *>(static_cast<uintptr_t>(last.args[0])),
                           __uuidof(IDMLDevice))
            || last.args[1] != a(&device)) {
        std::fprintf(stderr, "C++: QueryInterface(IID_PPV_ARGS(&device)) passed the wrong arguments\n");
        bad++;
    }

    /* A C++ call through a base-class pointer reaches the same override. */
    IDMLDispatchable *dispatchable = &g_compiled_operator;
#if defined(_MSC_VER) || !defined(_WIN32)
    DML_BINDING_PROPERTIES props = dispatchable->GetBindingProperties();
#else
    DML_BINDING_PROPERTIES props;
    dispatchable->GetBindingProperties(&props);
#endif
    DML_BINDING_PROPERTIES want = binding_properties();
    if (props.RequiredDescriptorCount != want.RequiredDescriptorCount
            || props.TemporaryResourceSize != want.TemporaryResourceSize
            || props.PersistentResourceSize != want.PersistentResourceSize
            || last.self != static_cast<const IDMLCompiledOperator *>(&g_compiled_operator)) {
        std::fprintf(stderr, "C++: GetBindingProperties through IDMLDispatchable is wrong\n");
        bad++;
    }
    return bad;
}

} // extern "C"
