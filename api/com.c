/* COM plumbing: private data, IID strings, wide strings, the QueryInterface hand-off. */

#include <stdlib.h>
#include <string.h>

#include "vkdml_com.h"

struct vkdml_private_entry
{
    struct vkdml_private_entry *next;
    GUID guid;
    IUnknown *object;               /* set by SetPrivateDataInterface, else NULL */
    UINT size;
    unsigned char data[];
};

void vkdml_private_store_init(struct vkdml_private_store *store)
{
    store->mutex = (struct vkdml_mutex)VKDML_MUTEX_INIT;
    store->entries = NULL;
}

static void free_entry(struct vkdml_private_entry *entry)
{
    if (entry->object)
        IUnknown_Release(entry->object);
    free(entry);
}

void vkdml_private_store_destroy(struct vkdml_private_store *store)
{
    struct vkdml_private_entry *entry, *next;

    for (entry = store->entries; entry; entry = next)
    {
        next = entry->next;
        free_entry(entry);
    }
    store->entries = NULL;
}

/* Caller holds the mutex. Returns the link that points at the entry for guid (or the end). */
static struct vkdml_private_entry **find_entry(struct vkdml_private_store *store, REFGUID guid)
{
    struct vkdml_private_entry **link;

    for (link = &store->entries; *link; link = &(*link)->next)
    {
        if (!memcmp(&(*link)->guid, guid, sizeof(GUID)))
            break;
    }
    return link;
}

HRESULT vkdml_private_store_get(struct vkdml_private_store *store, REFGUID guid, UINT *size, void *data)
{
    struct vkdml_private_entry *entry;
    HRESULT hr = S_OK;

    if (!guid || !size)
    {
        ERR("guid %p, size %p: both are required.", (const void *)guid, (void *)size);
        return E_INVALIDARG;
    }
    vkdml_mutex_lock(&store->mutex);
    if (!(entry = *find_entry(store, guid)))
    {
        *size = 0;
        hr = DXGI_ERROR_NOT_FOUND;
    }
    else if (!data)
    {
        *size = entry->size;
    }
    else if (*size < entry->size)
    {
        /* D3D12 reports the size needed and copies nothing. */
        *size = entry->size;
        hr = DXGI_ERROR_MORE_DATA;
    }
    else
    {
        *size = entry->size;
        memcpy(data, entry->object ? (const void *)&entry->object : (const void *)entry->data, entry->size);
        if (entry->object)
            IUnknown_AddRef(entry->object);
    }
    vkdml_mutex_unlock(&store->mutex);
    return hr;
}

static HRESULT store_entry(struct vkdml_private_store *store, REFGUID guid, UINT size, const void *data,
        IUnknown *object)
{
    struct vkdml_private_entry **link, *entry = NULL;

    if (!guid)
    {
        ERR("guid is NULL.");
        return E_INVALIDARG;
    }
    if (data || object)
    {
        if (!(entry = malloc(sizeof(*entry) + (object ? 0 : size))))
            return E_OUTOFMEMORY;
        entry->guid = *guid;
        entry->object = object;
        entry->size = object ? sizeof(object) : size;
        if (object)
            IUnknown_AddRef(object);
        else
            memcpy(entry->data, data, size);
    }

    vkdml_mutex_lock(&store->mutex);
    link = find_entry(store, guid);
    if (*link)
    {
        struct vkdml_private_entry *old = *link;

        *link = old->next;
        free_entry(old);
    }
    if (entry)
    {
        entry->next = store->entries;
        store->entries = entry;
    }
    vkdml_mutex_unlock(&store->mutex);
    return S_OK;
}

HRESULT vkdml_private_store_set(struct vkdml_private_store *store, REFGUID guid, UINT size, const void *data)
{
    if (!data && size)
    {
        /* "data == NULL needs dataSize == 0 and deletes the data." */
        ERR("data is NULL but size is %u; NULL data (deletion) needs size 0.", size);
        return E_INVALIDARG;
    }
    return store_entry(store, guid, size, data, NULL);
}

HRESULT vkdml_private_store_set_interface(struct vkdml_private_store *store, REFGUID guid, IUnknown *object)
{
    return store_entry(store, guid, 0, NULL, object);
}

const char *debugstr_guid(const GUID *guid)
{
    if (!guid)
        return "(null)";
    return vkdml_debug_sprintf("{%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x}",
            (unsigned int)guid->Data1, guid->Data2, guid->Data3, guid->Data4[0], guid->Data4[1], guid->Data4[2],
            guid->Data4[3], guid->Data4[4], guid->Data4[5], guid->Data4[6], guid->Data4[7]);
}

/* Appends code point c as UTF-8; returns the bytes written. */
static size_t put_utf8(char *out, uint32_t c)
{
    if (c < 0x80) { out[0] = c; return 1; }
    if (c < 0x800) { out[0] = 0xc0 | (c >> 6); out[1] = 0x80 | (c & 0x3f); return 2; }
    if (c < 0x10000) { out[0] = 0xe0 | (c >> 12); out[1] = 0x80 | ((c >> 6) & 0x3f); out[2] = 0x80 | (c & 0x3f); return 3; }
    out[0] = 0xf0 | (c >> 18); out[1] = 0x80 | ((c >> 12) & 0x3f);
    out[2] = 0x80 | ((c >> 6) & 0x3f); out[3] = 0x80 | (c & 0x3f);
    return 4;
}

char *vkdml_utf8_from_wide(const WCHAR *wide)
{
    size_t length = 0, i, o = 0;
    char *utf8;

    if (!wide)
        return NULL;
    while (wide[length])
        ++length;
    if (!(utf8 = malloc(length * 4 + 1)))
        return NULL;
    for (i = 0; i < length; ++i)
    {
        uint32_t c = (uint32_t)wide[i];

        /* UTF-16 surrogate pairs (Windows); unpaired halves become U+FFFD. */
        if (sizeof(WCHAR) == 2 && c >= 0xd800 && c < 0xdc00 && i + 1 < length
                && (uint32_t)wide[i + 1] >= 0xdc00 && (uint32_t)wide[i + 1] < 0xe000)
        {
            c = 0x10000 + ((c - 0xd800) << 10) + ((uint32_t)wide[i + 1] - 0xdc00);
            ++i;
        }
        else if ((c >= 0xd800 && c < 0xe000) || c > 0x10ffff)
        {
            c = 0xfffd;
        }
        o += put_utf8(utf8 + o, c);
    }
    utf8[o] = '\0';
    return utf8;
}

HRESULT vkdml_query_interface(IUnknown *iface, const IID *const *iids, size_t iid_count, REFIID riid, void **object)
{
    size_t i;

    if (!object)
    {
        ERR("QueryInterface: object is NULL.");
        return E_POINTER;
    }
    if (!riid)
    {
        ERR("QueryInterface: riid is NULL.");
        *object = NULL;
        return E_INVALIDARG;
    }
    for (i = 0; i < iid_count; ++i)
    {
        if (vkdml_guid_equal(riid, iids[i]))
        {
            IUnknown_AddRef(iface);
            *object = iface;
            return S_OK;
        }
    }
    WARN("%s is not implemented, returning E_NOINTERFACE.", debugstr_guid(riid));
    *object = NULL;
    return E_NOINTERFACE;
}

HRESULT vkdml_return_interface(IUnknown *object, REFIID riid, void **out)
{
    HRESULT hr;

    if (!out)
    {
        IUnknown_Release(object);
        return S_FALSE;
    }
    hr = IUnknown_QueryInterface(object, riid, out);
    IUnknown_Release(object);
    if (FAILED(hr))
    {
        *out = NULL;
        WARN("The object does not implement the requested interface %s.", debugstr_guid(riid));
    }
    return hr;
}
