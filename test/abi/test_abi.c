/*
 * ABI test for api/DirectML.h.
 *
 * 1. Facts: every enum value, constant, type size/alignment, field offset, IID
 *    and vtable slot is compared with the expectations generated from
 *    tools/directml-schema.json (abi_expected.h). DirectML.h itself states no
 *    offsets or sizes; the compiler derives them from the declarations.
 * 2. Calls: C++ objects written against the C++ view (test_abi_impl.cpp) are
 *    called through the C view with COBJMACROS; each call must reach the C++
 *    method of the same name with the same `this`, arguments and return value,
 *    GetBindingProperties' struct return included.
 */

/* This translation unit defines the IID_* constants (DirectML's and, through
 * the same DEFINE_GUID, D3D12's), as the library's INITGUID unit will. */
#define INITGUID
#define COBJMACROS
#include <DirectML.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "abi_expected.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A few facts checked at compile time as well: the ones a C caller would
 * silently get wrong. */
_Static_assert(sizeof(DML_BINDING_PROPERTIES) == 24, "DML_BINDING_PROPERTIES size");
_Static_assert(offsetof(IDMLDispatchableVtbl, GetBindingProperties) == 8 * sizeof(void *),
               "GetBindingProperties is slot 8");
_Static_assert(sizeof(DML_OPERATOR_TYPE) == 4, "DML_OPERATOR_TYPE is an int-sized enum");

/* --- 1. facts -------------------------------------------------------------- */

struct abi_fact {
    const char *name;
    long long expected;
    long long actual;
};

#define ENUM_FACT(name, value) { #name, value, (long long)(name) },
#define CONST_FACT(name, value) { #name, value, (long long)(name) },
#define SIZE_FACT(type, size) { "sizeof(" #type ")", size, (long long)sizeof(type) },
#define ALIGN_FACT(type, align) { "_Alignof(" #type ")", align, (long long)_Alignof(type) },
#define OFFSET_FACT(type, field, off) { #type "." #field, off, (long long)offsetof(type, field) },
#define SLOT_FACT(iface, method, slot) \
    { #iface "::" #method, slot, (long long)(offsetof(iface##Vtbl, method) / sizeof(void *)) },
#define VTBL_FACT(iface, slots) \
    { #iface "Vtbl slots", slots, (long long)(sizeof(iface##Vtbl) / sizeof(void *)) },

static const struct abi_fact enum_facts[] = { ABI_ENUM_VALUES(ENUM_FACT) };
static const struct abi_fact const_facts[] = { ABI_CONSTANTS(CONST_FACT) };
static const struct abi_fact size_facts[] = { ABI_TYPE_SIZES(SIZE_FACT) };
static const struct abi_fact align_facts[] = { ABI_TYPE_ALIGNS(ALIGN_FACT) };
static const struct abi_fact offset_facts[] = { ABI_FIELD_OFFSETS(OFFSET_FACT) };
static const struct abi_fact slot_facts[] = { ABI_VTBL_SLOTS(SLOT_FACT) };
static const struct abi_fact vtbl_facts[] = { ABI_VTBL_SIZES(VTBL_FACT) };

static void check_facts(const struct abi_fact *facts, size_t count, const char *what)
{
    size_t bad = 0;

    for (size_t i = 0; i < count; i++) {
        if (facts[i].expected != facts[i].actual) {
            print_error("%s %s: expected %lld, got %lld\n", what, facts[i].name,
                        facts[i].expected, facts[i].actual);
            bad++;
        }
    }
    print_message("%u %s checked\n", (unsigned)count, what);
    assert_int_equal(bad, 0);
}

#define FACT_TEST(name, what) \
    static void test_##name(void **state) \
    { \
        (void)state; \
        check_facts(name, ARRAY_SIZE(name), what); \
    }

FACT_TEST(enum_facts, "enum values")
FACT_TEST(const_facts, "constants")
FACT_TEST(size_facts, "type sizes")
FACT_TEST(align_facts, "type alignments")
FACT_TEST(offset_facts, "field offsets")
FACT_TEST(slot_facts, "vtable slots")
FACT_TEST(vtbl_facts, "vtable sizes")

struct abi_iid {
    const char *name;
    const GUID *actual;
    GUID expected;
};

#define IID_FACT(iface, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8) \
    { #iface, &IID_##iface, { l, w1, w2, { b1, b2, b3, b4, b5, b6, b7, b8 } } },

static const struct abi_iid iid_facts[] = { ABI_IIDS(IID_FACT) };

static void test_iids(void **state)
{
    size_t bad = 0;

    (void)state;
    for (size_t i = 0; i < ARRAY_SIZE(iid_facts); i++) {
        if (memcmp(iid_facts[i].actual, &iid_facts[i].expected, sizeof(GUID)) != 0) {
            print_error("IID_%s differs from the expected bytes\n", iid_facts[i].name);
            bad++;
        }
    }
    print_message("%u IIDs checked\n", (unsigned)ARRAY_SIZE(iid_facts));
    assert_int_equal(bad, 0);
}

/* --- 2. calls through the C view into C++ objects ---------------------------- */

/* Implemented in test_abi_impl.cpp. */
void *abi_impl_object(const char *iface);
const char *abi_last_method(void);
const void *abi_last_this(void);
unsigned abi_last_argc(void);
uint64_t abi_last_arg(unsigned i);
uint64_t abi_last_ret(void);
void abi_reset(void);
DML_BINDING_PROPERTIES abi_impl_binding_properties(void);
int abi_cxx_layout_mismatches(void);
int abi_cxx_uuid_mismatches(void);

static void test_cxx_layout(void **state)
{
    (void)state;
    assert_int_equal(abi_cxx_layout_mismatches(), 0);
}

static void test_cxx_uuidof(void **state)
{
    (void)state;
    assert_int_equal(abi_cxx_uuid_mismatches(), 0);
}

static unsigned calls_checked;

static void expect_call(const void *obj, const char *method, const uint64_t *args,
                        unsigned argc, int line)
{
    const char *ran = abi_last_method();

    if (ran == NULL || strcmp(ran, method) != 0)
        fail_msg("line %d: called %s through the C vtable, C++ ran %s", line, method,
                 ran ? ran : "nothing");
    if (abi_last_this() != obj)
        fail_msg("line %d: %s: C++ saw this=%p, C passed %p", line, method,
                 abi_last_this(), obj);
    if (abi_last_argc() != argc)
        fail_msg("line %d: %s: C++ saw %u arguments, C passed %u", line, method,
                 abi_last_argc(), argc);
    for (unsigned i = 0; i < argc; i++) {
        if (abi_last_arg(i) != args[i])
            fail_msg("line %d: %s: argument %u differs (C++ 0x%llx, C 0x%llx)", line, method, i,
                     (unsigned long long)abi_last_arg(i), (unsigned long long)args[i]);
    }
    calls_checked++;
}

#define U(x) ((uint64_t)(uintptr_t)(x))
#define EXPECT0(o, method) expect_call((o), (method), NULL, 0, __LINE__)
#define EXPECT(o, method, ...) \
    do { \
        const uint64_t args_[] = { __VA_ARGS__ }; \
        expect_call((o), (method), args_, ARRAY_SIZE(args_), __LINE__); \
    } while (0)
/* Return values travel back unchanged (HRESULT/ULONG: 32 bits). */
#define EXPECT_RET(v) assert_int_equal((uint32_t)(v), (uint32_t)abi_last_ret())

/* Pointers that are passed along but never dereferenced. */
static char dummy[8];
#define FAKE(type, i) ((type *)(void *)&dummy[i])

static const GUID test_guid = { 0x01234567, 0x89AB, 0xCDEF, { 1, 2, 3, 4, 5, 6, 7, 8 } };

/* One macro per method, usable with any interface that has it (I = interface
 * type, o = object); the family macros below chain them in slot order. */

#define CHECK_QueryInterface(I, o) do { \
        void *out_ = NULL; \
        abi_reset(); \
        HRESULT hr_ = I##_QueryInterface(o, &IID_IDMLObject, &out_); \
        EXPECT(o, "QueryInterface", U(&IID_IDMLObject), U(&out_)); \
        EXPECT_RET(hr_); \
        assert_ptr_equal(out_, &out_); \
    } while (0)

#define CHECK_AddRef(I, o) do { \
        abi_reset(); \
        ULONG n_ = I##_AddRef(o); \
        EXPECT0(o, "AddRef"); \
        EXPECT_RET(n_); \
    } while (0)

#define CHECK_Release(I, o) do { \
        abi_reset(); \
        ULONG n_ = I##_Release(o); \
        EXPECT0(o, "Release"); \
        EXPECT_RET(n_); \
    } while (0)

#define CHECK_GetPrivateData(I, o) do { \
        UINT size_ = 4; \
        unsigned char data_[8]; \
        abi_reset(); \
        HRESULT hr_ = I##_GetPrivateData(o, &test_guid, &size_, data_); \
        EXPECT(o, "GetPrivateData", U(&test_guid), U(&size_), U(data_)); \
        EXPECT_RET(hr_); \
        assert_int_equal(size_, 5); \
    } while (0)

#define CHECK_SetPrivateData(I, o) do { \
        static const unsigned char data_[3] = { 1, 2, 3 }; \
        abi_reset(); \
        HRESULT hr_ = I##_SetPrivateData(o, &test_guid, sizeof(data_), data_); \
        EXPECT(o, "SetPrivateData", U(&test_guid), sizeof(data_), U(data_)); \
        EXPECT_RET(hr_); \
    } while (0)

#define CHECK_SetPrivateDataInterface(I, o) do { \
        abi_reset(); \
        HRESULT hr_ = I##_SetPrivateDataInterface(o, &test_guid, (IUnknown *)(o)); \
        EXPECT(o, "SetPrivateDataInterface", U(&test_guid), U(o)); \
        EXPECT_RET(hr_); \
    } while (0)

#define CHECK_SetName(I, o) do { \
        static const WCHAR name_[] = L"abi"; \
        abi_reset(); \
        HRESULT hr_ = I##_SetName(o, name_); \
        EXPECT(o, "SetName", U(name_)); \
        EXPECT_RET(hr_); \
    } while (0)

#define CHECK_CheckFeatureSupport(I, o) do { \
        DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query_ = { DML_TENSOR_DATA_TYPE_FLOAT16 }; \
        DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT data_ = { 0 }; \
        abi_reset(); \
        HRESULT hr_ = I##_CheckFeatureSupport(o, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, \
                                              sizeof(query_), &query_, sizeof(data_), &data_); \
        EXPECT(o, "CheckFeatureSupport", DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query_), \
               U(&query_), sizeof(data_), U(&data_)); \
        EXPECT_RET(hr_); \
    } while (0)

#define CHECK_CreateOperator(I, o) do { \
        DML_OPERATOR_DESC desc_ = { DML_OPERATOR_ELEMENT_WISE_IDENTITY, NULL }; \
        void *out_ = NULL; \
        abi_reset(); \
        HRESULT hr_ = I##_CreateOperator(o, &desc_, &IID_IDMLOperator, &out_); \
        EXPECT(o, "CreateOperator", U(&desc_), U(&IID_IDMLOperator), U(&out_)); \
        EXPECT_RET(hr_); \
        assert_ptr_equal(out_, &out_); \
    } while (0)

#define CHECK_CompileOperator(I, o) do { \
        void *out_ = NULL; \
        abi_reset(); \
        HRESULT hr_ = I##_CompileOperator(o, FAKE(IDMLOperator, 0), \
                                          DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE, \
                                          &IID_IDMLCompiledOperator, &out_); \
        EXPECT(o, "CompileOperator", U(FAKE(IDMLOperator, 0)), \
               DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE, U(&IID_IDMLCompiledOperator), U(&out_)); \
        EXPECT_RET(hr_); \
        assert_ptr_equal(out_, &out_); \
    } while (0)

#define CHECK_CreateOperatorInitializer(I, o) do { \
        IDMLCompiledOperator *ops_[2] = { FAKE(IDMLCompiledOperator, 1), \
                                          FAKE(IDMLCompiledOperator, 2) }; \
        void *out_ = NULL; \
        abi_reset(); \
        HRESULT hr_ = I##_CreateOperatorInitializer(o, 2, ops_, &IID_IDMLOperatorInitializer, \
                                                    &out_); \
        EXPECT(o, "CreateOperatorInitializer", 2, U(ops_), U(&IID_IDMLOperatorInitializer), \
               U(&out_)); \
        EXPECT_RET(hr_); \
        assert_ptr_equal(out_, &out_); \
    } while (0)

#define CHECK_CreateCommandRecorder(I, o) do { \
        void *out_ = NULL; \
        abi_reset(); \
        HRESULT hr_ = I##_CreateCommandRecorder(o, &IID_IDMLCommandRecorder, &out_); \
        EXPECT(o, "CreateCommandRecorder", U(&IID_IDMLCommandRecorder), U(&out_)); \
        EXPECT_RET(hr_); \
        assert_ptr_equal(out_, &out_); \
    } while (0)

#define CHECK_CreateBindingTable(I, o) do { \
        DML_BINDING_TABLE_DESC desc_ = { FAKE(IDMLDispatchable, 3), { 1 }, { 2 }, 3 }; \
        void *out_ = NULL; \
        abi_reset(); \
        HRESULT hr_ = I##_CreateBindingTable(o, &desc_, &IID_IDMLBindingTable, &out_); \
        EXPECT(o, "CreateBindingTable", U(&desc_), U(&IID_IDMLBindingTable), U(&out_)); \
        EXPECT_RET(hr_); \
        assert_ptr_equal(out_, &out_); \
    } while (0)

#define CHECK_Evict(I, o) do { \
        IDMLPageable *objs_[1] = { FAKE(IDMLPageable, 4) }; \
        abi_reset(); \
        HRESULT hr_ = I##_Evict(o, 1, objs_); \
        EXPECT(o, "Evict", 1, U(objs_)); \
        EXPECT_RET(hr_); \
    } while (0)

#define CHECK_MakeResident(I, o) do { \
        IDMLPageable *objs_[1] = { FAKE(IDMLPageable, 5) }; \
        abi_reset(); \
        HRESULT hr_ = I##_MakeResident(o, 1, objs_); \
        EXPECT(o, "MakeResident", 1, U(objs_)); \
        EXPECT_RET(hr_); \
    } while (0)

#define CHECK_GetDeviceRemovedReason(I, o) do { \
        abi_reset(); \
        HRESULT hr_ = I##_GetDeviceRemovedReason(o); \
        EXPECT0(o, "GetDeviceRemovedReason"); \
        EXPECT_RET(hr_); \
    } while (0)

#define CHECK_GetParentDevice(I, o) do { \
        void *out_ = NULL; \
        abi_reset(); \
        HRESULT hr_ = I##_GetParentDevice(o, &IID_ID3D12Device, &out_); \
        EXPECT(o, "GetParentDevice", U(&IID_ID3D12Device), U(&out_)); \
        EXPECT_RET(hr_); \
        assert_ptr_equal(out_, &out_); \
    } while (0)

#define CHECK_CompileGraph(I, o) do { \
        DML_GRAPH_DESC desc_; \
        void *out_ = NULL; \
        memset(&desc_, 0, sizeof(desc_)); \
        abi_reset(); \
        HRESULT hr_ = I##_CompileGraph(o, &desc_, DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION, \
                                       &IID_IDMLCompiledOperator, &out_); \
        EXPECT(o, "CompileGraph", U(&desc_), DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION, \
               U(&IID_IDMLCompiledOperator), U(&out_)); \
        EXPECT_RET(hr_); \
        assert_ptr_equal(out_, &out_); \
    } while (0)

#define CHECK_GetDevice(I, o) do { \
        void *out_ = NULL; \
        abi_reset(); \
        HRESULT hr_ = I##_GetDevice(o, &IID_IDMLDevice, &out_); \
        EXPECT(o, "GetDevice", U(&IID_IDMLDevice), U(&out_)); \
        EXPECT_RET(hr_); \
        assert_ptr_equal(out_, &out_); \
    } while (0)

/* The platform's COBJMACROS form: by value on SysV, RetVal pointer on _WIN32. */
#if defined(_WIN32)
#define CALL_GetBindingProperties(I, o) \
    (*I##_GetBindingProperties(o, &(DML_BINDING_PROPERTIES){ 0 }))
#else
#define CALL_GetBindingProperties(I, o) I##_GetBindingProperties(o)
#endif

static void check_binding_properties(DML_BINDING_PROPERTIES got)
{
    DML_BINDING_PROPERTIES want = abi_impl_binding_properties();

    assert_int_equal(got.RequiredDescriptorCount, want.RequiredDescriptorCount);
    assert_true(got.TemporaryResourceSize == want.TemporaryResourceSize);
    assert_true(got.PersistentResourceSize == want.PersistentResourceSize);
}

#define CHECK_GetBindingProperties(I, o) do { \
        abi_reset(); \
        DML_BINDING_PROPERTIES props_ = CALL_GetBindingProperties(I, o); \
        EXPECT0(o, "GetBindingProperties"); \
        check_binding_properties(props_); \
    } while (0)

#define CHECK_InitializerReset(I, o) do { \
        IDMLCompiledOperator *ops_[1] = { FAKE(IDMLCompiledOperator, 6) }; \
        abi_reset(); \
        HRESULT hr_ = I##_Reset(o, 1, ops_); \
        EXPECT(o, "Reset", 1, U(ops_)); \
        EXPECT_RET(hr_); \
    } while (0)

#define CHECK_BindInputs(I, o) do { \
        DML_BINDING_DESC b_[2] = { { DML_BINDING_TYPE_NONE, NULL }, { DML_BINDING_TYPE_NONE, NULL } }; \
        abi_reset(); \
        I##_BindInputs(o, 2, b_); \
        EXPECT(o, "BindInputs", 2, U(b_)); \
    } while (0)

#define CHECK_BindOutputs(I, o) do { \
        DML_BINDING_DESC b_[3] = { { DML_BINDING_TYPE_NONE, NULL }, { DML_BINDING_TYPE_NONE, NULL }, \
                                   { DML_BINDING_TYPE_NONE, NULL } }; \
        abi_reset(); \
        I##_BindOutputs(o, 3, b_); \
        EXPECT(o, "BindOutputs", 3, U(b_)); \
    } while (0)

#define CHECK_BindTemporaryResource(I, o) do { \
        DML_BINDING_DESC b_ = { DML_BINDING_TYPE_NONE, NULL }; \
        abi_reset(); \
        I##_BindTemporaryResource(o, &b_); \
        EXPECT(o, "BindTemporaryResource", U(&b_)); \
    } while (0)

#define CHECK_BindPersistentResource(I, o) do { \
        DML_BINDING_DESC b_ = { DML_BINDING_TYPE_NONE, NULL }; \
        abi_reset(); \
        I##_BindPersistentResource(o, &b_); \
        EXPECT(o, "BindPersistentResource", U(&b_)); \
    } while (0)

#define CHECK_TableReset(I, o) do { \
        DML_BINDING_TABLE_DESC desc_ = { FAKE(IDMLDispatchable, 7), { 4 }, { 5 }, 6 }; \
        abi_reset(); \
        HRESULT hr_ = I##_Reset(o, &desc_); \
        EXPECT(o, "Reset", U(&desc_)); \
        EXPECT_RET(hr_); \
    } while (0)

#define CHECK_RecordDispatch(I, o) do { \
        abi_reset(); \
        I##_RecordDispatch(o, FAKE(ID3D12CommandList, 0), FAKE(IDMLDispatchable, 1), \
                           FAKE(IDMLBindingTable, 2)); \
        EXPECT(o, "RecordDispatch", U(FAKE(ID3D12CommandList, 0)), U(FAKE(IDMLDispatchable, 1)), \
               U(FAKE(IDMLBindingTable, 2))); \
    } while (0)

#define CHECK_SetMuteDebugOutput(I, o) do { \
        abi_reset(); \
        I##_SetMuteDebugOutput(o, TRUE); \
        EXPECT(o, "SetMuteDebugOutput", TRUE); \
    } while (0)

/* Every method of an interface, inherited ones first, in slot order. */
#define CHECK_IUnknown(I, o) \
    CHECK_QueryInterface(I, o); CHECK_AddRef(I, o); CHECK_Release(I, o)
#define CHECK_IDMLObject(I, o) \
    CHECK_IUnknown(I, o); CHECK_GetPrivateData(I, o); CHECK_SetPrivateData(I, o); \
    CHECK_SetPrivateDataInterface(I, o); CHECK_SetName(I, o)
#define CHECK_IDMLDevice(I, o) \
    CHECK_IDMLObject(I, o); CHECK_CheckFeatureSupport(I, o); CHECK_CreateOperator(I, o); \
    CHECK_CompileOperator(I, o); CHECK_CreateOperatorInitializer(I, o); \
    CHECK_CreateCommandRecorder(I, o); CHECK_CreateBindingTable(I, o); CHECK_Evict(I, o); \
    CHECK_MakeResident(I, o); CHECK_GetDeviceRemovedReason(I, o); CHECK_GetParentDevice(I, o)
#define CHECK_IDMLDevice1(I, o) CHECK_IDMLDevice(I, o); CHECK_CompileGraph(I, o)
#define CHECK_IDMLDeviceChild(I, o) CHECK_IDMLObject(I, o); CHECK_GetDevice(I, o)
#define CHECK_IDMLPageable(I, o) CHECK_IDMLDeviceChild(I, o)
#define CHECK_IDMLOperator(I, o) CHECK_IDMLDeviceChild(I, o)
#define CHECK_IDMLDispatchable(I, o) CHECK_IDMLPageable(I, o); CHECK_GetBindingProperties(I, o)
#define CHECK_IDMLCompiledOperator(I, o) CHECK_IDMLDispatchable(I, o)
#define CHECK_IDMLOperatorInitializer(I, o) \
    CHECK_IDMLDispatchable(I, o); CHECK_InitializerReset(I, o)
#define CHECK_IDMLBindingTable(I, o) \
    CHECK_IDMLDeviceChild(I, o); CHECK_BindInputs(I, o); CHECK_BindOutputs(I, o); \
    CHECK_BindTemporaryResource(I, o); CHECK_BindPersistentResource(I, o); CHECK_TableReset(I, o)
#define CHECK_IDMLCommandRecorder(I, o) CHECK_IDMLDeviceChild(I, o); CHECK_RecordDispatch(I, o)
#define CHECK_IDMLDebugDevice(I, o) CHECK_IUnknown(I, o); CHECK_SetMuteDebugOutput(I, o)

/* One test per interface; it must have exercised every slot of the vtable. */
#define CALL_TEST(I) \
    static void test_calls_##I(void **state) \
    { \
        I *o = abi_impl_object(#I); \
        (void)state; \
        assert_non_null(o); \
        calls_checked = 0; \
        CHECK_##I(I, o); \
        assert_int_equal(calls_checked, sizeof(I##Vtbl) / sizeof(void *)); \
    }

CALL_TEST(IDMLObject)
CALL_TEST(IDMLDevice)
CALL_TEST(IDMLDeviceChild)
CALL_TEST(IDMLPageable)
CALL_TEST(IDMLOperator)
CALL_TEST(IDMLDispatchable)
CALL_TEST(IDMLCompiledOperator)
CALL_TEST(IDMLOperatorInitializer)
CALL_TEST(IDMLBindingTable)
CALL_TEST(IDMLCommandRecorder)
CALL_TEST(IDMLDebugDevice)
#if DML_TARGET_VERSION >= 0x2100
CALL_TEST(IDMLDevice1)
#endif

/* The by-value wrappers give one spelling on every platform. */
static void test_by_value_wrappers(void **state)
{
    IDMLDispatchable *d = abi_impl_object("IDMLDispatchable");
    IDMLCompiledOperator *c = abi_impl_object("IDMLCompiledOperator");
    IDMLOperatorInitializer *i = abi_impl_object("IDMLOperatorInitializer");

    (void)state;
    abi_reset();
    check_binding_properties(IDMLDispatchable_GetBindingPropertiesByValue(d));
    EXPECT0(d, "GetBindingProperties");
    abi_reset();
    check_binding_properties(IDMLCompiledOperator_GetBindingPropertiesByValue(c));
    EXPECT0(c, "GetBindingProperties");
    abi_reset();
    check_binding_properties(IDMLOperatorInitializer_GetBindingPropertiesByValue(i));
    EXPECT0(i, "GetBindingProperties");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_enum_facts),
        cmocka_unit_test(test_const_facts),
        cmocka_unit_test(test_size_facts),
        cmocka_unit_test(test_align_facts),
        cmocka_unit_test(test_offset_facts),
        cmocka_unit_test(test_slot_facts),
        cmocka_unit_test(test_vtbl_facts),
        cmocka_unit_test(test_iids),
        cmocka_unit_test(test_cxx_layout),
        cmocka_unit_test(test_cxx_uuidof),
        cmocka_unit_test(test_calls_IDMLObject),
        cmocka_unit_test(test_calls_IDMLDevice),
        cmocka_unit_test(test_calls_IDMLDeviceChild),
        cmocka_unit_test(test_calls_IDMLPageable),
        cmocka_unit_test(test_calls_IDMLOperator),
        cmocka_unit_test(test_calls_IDMLDispatchable),
        cmocka_unit_test(test_calls_IDMLCompiledOperator),
        cmocka_unit_test(test_calls_IDMLOperatorInitializer),
        cmocka_unit_test(test_calls_IDMLBindingTable),
        cmocka_unit_test(test_calls_IDMLCommandRecorder),
        cmocka_unit_test(test_calls_IDMLDebugDevice),
#if DML_TARGET_VERSION >= 0x2100
        cmocka_unit_test(test_calls_IDMLDevice1),
#endif
        cmocka_unit_test(test_by_value_wrappers),
    };

    print_message("DML_TARGET_VERSION 0x%X\n", (unsigned)DML_TARGET_VERSION);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
