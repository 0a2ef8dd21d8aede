/*
 * COM plumbing shared by the D3D12 shim and the DirectML objects: Windows types (DirectX-Headers'
 * WSL stubs on Linux), private data stores, IID formatting, wide-string conversion and the one
 * QueryInterface hand-off every Create* ends with. Backend-independent; not installed.
 */
#ifndef VKDML_COM_H
#define VKDML_COM_H

#ifndef COBJMACROS
# define COBJMACROS
#endif
/* Our vtables are static const. */
#ifndef CONST_VTABLE
# define CONST_VTABLE
#endif

#include <stdatomic.h>
#include <string.h>

#ifdef _WIN32
# include <windows.h>
# include <unknwn.h>
#else
# include <wsl/winadapter.h>
#endif

#include "vkdml_common.h"

#ifndef CONTAINING_RECORD
# define CONTAINING_RECORD(address, type, field) ((type *)((char *)(address) - offsetof(type, field)))
#endif

/* COM reference counts; each returns the new count. */
static inline ULONG vkdml_refcount_increment(atomic_uint *refcount) { return atomic_fetch_add(refcount, 1) + 1; }
static inline ULONG vkdml_refcount_decrement(atomic_uint *refcount) { return atomic_fetch_sub(refcount, 1) - 1; }

static inline bool vkdml_guid_equal(const GUID *a, const GUID *b)
{
    return !memcmp(a, b, sizeof(*a));
}

/* Arbitrary data and interfaces attached to an object by GUID (Get/SetPrivateData[Interface]).
 * Thread-safe, as D3D12 and DirectML document these methods. */
struct vkdml_private_entry;
struct vkdml_private_store
{
    struct vkdml_mutex mutex;
    struct vkdml_private_entry *entries;
};

void vkdml_private_store_init(struct vkdml_private_store *store);
void vkdml_private_store_destroy(struct vkdml_private_store *store);
HRESULT vkdml_private_store_get(struct vkdml_private_store *store, REFGUID guid, UINT *size, void *data);
HRESULT vkdml_private_store_set(struct vkdml_private_store *store, REFGUID guid, UINT size, const void *data);
HRESULT vkdml_private_store_set_interface(struct vkdml_private_store *store, REFGUID guid, IUnknown *object);

/* GetPrivateData, SetPrivateData and SetPrivateDataInterface of ID3D12Object and IDMLObject, the
 * same for every object: `prefix` names the functions (prefix_GetPrivateData...), `impl_from` maps
 * `iface_type *` to the object, which has a `private_store` member. `interface_data_type` is
 * SetPrivateDataInterface's parameter: `const IUnknown *` in D3D12, `IUnknown *` in DirectML.
 * The expanding file needs TRACE (vkdml_common.h). */
#define VKDML_IMPLEMENT_PRIVATE_DATA(prefix, iface_type, impl_from, interface_data_type) \
    static HRESULT STDMETHODCALLTYPE prefix##_GetPrivateData(iface_type *iface, REFGUID guid, UINT *size, void *data) \
    { \
        TRACE("iface %p, guid %s, size %p, data %p.", (void *)iface, debugstr_guid(guid), (void *)size, data); \
        return vkdml_private_store_get(&impl_from(iface)->private_store, guid, size, data); \
    } \
    static HRESULT STDMETHODCALLTYPE prefix##_SetPrivateData(iface_type *iface, REFGUID guid, UINT size, \
            const void *data) \
    { \
        TRACE("iface %p, guid %s, size %u, data %p.", (void *)iface, debugstr_guid(guid), size, data); \
        return vkdml_private_store_set(&impl_from(iface)->private_store, guid, size, data); \
    } \
    static HRESULT STDMETHODCALLTYPE prefix##_SetPrivateDataInterface(iface_type *iface, REFGUID guid, \
            interface_data_type object) \
    { \
        TRACE("iface %p, guid %s, object %p.", (void *)iface, debugstr_guid(guid), (const void *)object); \
        return vkdml_private_store_set_interface(&impl_from(iface)->private_store, guid, (IUnknown *)object); \
    }

/* "{xxxxxxxx-xxxx-...}" in a thread-local ring buffer, for log lines. */
const char *debugstr_guid(const GUID *guid);

/* UTF-8 copy of a NUL-terminated wide string (UTF-32 wchar_t on Linux, UTF-16 on Windows);
 * malloc'd, NULL for a NULL input or on allocation failure. */
char *vkdml_utf8_from_wide(const WCHAR *wide);

/* QueryInterface for an object with one vtable: `iids` lists its interfaces, most derived first,
 * IUnknown last. E_POINTER / E_INVALIDARG (logged) for NULL arguments, E_NOINTERFACE otherwise. */
HRESULT vkdml_query_interface(IUnknown *iface, const IID *const *iids, size_t iid_count, REFIID riid, void **object);

/* The tail of every Create*: QueryInterface `object` for `riid` into `*out`, then drop the
 * construction reference. On failure *out is NULL and the object is released. */
HRESULT vkdml_return_interface(IUnknown *object, REFIID riid, void **out);

#endif /* VKDML_COM_H */
