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

/* "{xxxxxxxx-xxxx-...}" in a thread-local ring buffer, for log lines. */
const char *debugstr_guid(const GUID *guid);

/* UTF-8 copy of a NUL-terminated wide string (UTF-32 wchar_t on Linux, UTF-16 on Windows);
 * malloc'd, NULL for a NULL input or on allocation failure. */
char *vkdml_utf8_from_wide(const WCHAR *wide);

/* The tail of every Create*: QueryInterface `object` for `riid` into `*out`, then drop the
 * construction reference. On failure *out is NULL and the object is released. */
HRESULT vkdml_return_interface(IUnknown *object, REFIID riid, void **out);

#endif /* VKDML_COM_H */
