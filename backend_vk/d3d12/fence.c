/*
 * ID3D12Fence on a timeline VkSemaphore, and the per-device event waiter.
 *
 * A D3D12 fence value may be set to anything, also backwards; a timeline semaphore only grows.
 * v1 therefore accepts monotonic values only: re-signalling the current value is a no-op (the
 * observable fence value is the same), a lower value is E_INVALIDARG.
 *
 * SetEventOnCompletion(value, NULL) blocks in vkWaitSemaphores. With an event, a waiter thread
 * (one per device, started by the first SetEventOnCompletion that has to wait) sleeps in
 * vkWaitSemaphores(WAIT_ANY) on every pending (semaphore, value) pair plus an internal "kick"
 * timeline that the CPU signals whenever a wait is registered, cancelled or the waiter must stop.
 * The waiter holds no fence references: as in D3D12, an event stays registered only while its
 * fence lives, and a fence's destruction first takes its entries out and waits until the thread
 * no longer sleeps on its semaphore.
 *
 * A CPU Signal may satisfy a queue Wait held back on the CPU (queue.c): it submits the work that
 * was waiting, under the queue mutex it already holds to order itself against queue Signals. The
 * waiter thread never takes that mutex, so the two cannot deadlock.
 *
 * Events: on Linux a HANDLE is an eventfd cast to HANDLE (WSL convention), signalled by writing
 * a uint64_t 1; on Windows a Win32 event (SetEvent). The platform split stays in this file.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
# include <sys/stat.h>
# include <unistd.h>
#endif

#include "d3d12_private.h"

/* ---- Platform layer: thread, condition variable, event ---- */

#ifdef _WIN32
typedef HANDLE waiter_thread;
typedef CONDITION_VARIABLE waiter_cond;

static void waiter_cond_init(waiter_cond *cond) { InitializeConditionVariable(cond); }
static void waiter_cond_destroy(waiter_cond *cond) { (void)cond; }
static void waiter_cond_wait(waiter_cond *cond, struct vkdml_mutex *mutex)
{
    SleepConditionVariableSRW(cond, &mutex->lock, INFINITE, 0);
}
static void waiter_cond_broadcast(waiter_cond *cond) { WakeAllConditionVariable(cond); }
#else
typedef pthread_t waiter_thread;
typedef pthread_cond_t waiter_cond;

static void waiter_cond_init(waiter_cond *cond) { pthread_cond_init(cond, NULL); }
static void waiter_cond_destroy(waiter_cond *cond) { pthread_cond_destroy(cond); }
static void waiter_cond_wait(waiter_cond *cond, struct vkdml_mutex *mutex) { pthread_cond_wait(cond, &mutex->lock); }
static void waiter_cond_broadcast(waiter_cond *cond) { pthread_cond_broadcast(cond); }
#endif

/* Whether hEvent can be an event. On Linux an eventfd is an anonymous inode: fstat reports no file
 * type, unlike regular files, pipes, sockets and devices, which writing 8 bytes to would corrupt. */
static bool event_is_valid(HANDLE event)
{
#ifdef _WIN32
    return event != INVALID_HANDLE_VALUE;
#else
    intptr_t fd = (intptr_t)event;
    struct stat st;

    return fd >= 0 && fd <= INT32_MAX && !fstat((int)fd, &st) && !(st.st_mode & S_IFMT);
#endif
}

/* Sets a D3D12 event HANDLE; logs (as `caller`) when that fails. */
static void signal_event(HANDLE event, const char *caller)
{
#ifdef _WIN32
    if (!SetEvent(event))
        ERR("%s: SetEvent(%p) failed, error %lu.", caller, event, GetLastError());
#else
    int fd = (int)(intptr_t)event;
    uint64_t one = 1;
    ssize_t written;

    do
        written = write(fd, &one, sizeof(one));
    while (written < 0 && errno == EINTR);
    /* EAGAIN: the eventfd counter is saturated, so the event is signalled already. */
    if (written != (ssize_t)sizeof(one) && !(written < 0 && errno == EAGAIN))
        ERR("%s: hEvent %p is not an eventfd (writing to fd %d failed: %s).", caller, event, fd,
                written < 0 ? strerror(errno) : "short write");
#endif
}

/* ---- The waiter ---- */

struct d3d12_fence_waiter_entry
{
    struct d3d12_fence *fence;      /* identity only (no reference; see the file comment) */
    VkSemaphore semaphore;
    uint64_t value;
    HANDLE event;
};

struct d3d12_fence_waiter
{
    struct d3d12_device *device;    /* no reference: the device stops the waiter before it dies */
    struct vkdml_mutex mutex;
    waiter_cond cond;               /* broadcast when the thread leaves a wait */
    waiter_thread thread;

    /* Everything below is protected by mutex. */
    VkSemaphore kick;
    uint64_t kick_value;            /* the last value signalled on kick */
    bool stop;
    bool lost;                      /* the device is lost: every event is signalled at once */
    struct d3d12_fence_waiter_entry *entries;
    size_t entry_count, entry_capacity;
    bool waiting;                   /* the thread sleeps on a snapshot of the entries */
    uint64_t wait_serial;           /* incremented on every snapshot */

    /* The thread's own snapshot, only touched by the thread. */
    VkSemaphore *wait_semaphores;
    uint64_t *wait_values;
    size_t wait_capacity;
};

/* Guards the lazy creation of device->waiter for every device. */
static struct vkdml_mutex waiter_creation_mutex = VKDML_MUTEX_INIT;

/* Wakes the thread. Caller holds waiter->mutex. */
static void waiter_kick(struct d3d12_fence_waiter *waiter)
{
    const struct vkdml_vk_device_procs *vk_procs = &waiter->device->vk->procs;
    VkSemaphoreSignalInfo info = {VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
    VkResult vr;

    info.semaphore = waiter->kick;
    info.value = waiter->kick_value + 1;
    if ((vr = VK_CHECK(VK_CALL(vkSignalSemaphore(waiter->device->vk->vk_device, &info)))) >= 0)
        ++waiter->kick_value;
    else
        d3d12_device_check_vk_result(waiter->device, vr);
}

/* Signals and drops entries whose value is reached (all of them once the device is lost).
 * Caller holds waiter->mutex. */
static void waiter_complete_entries(struct d3d12_fence_waiter *waiter)
{
    const struct vkdml_vk_device_procs *vk_procs = &waiter->device->vk->procs;
    size_t i = 0;

    while (i < waiter->entry_count)
    {
        struct d3d12_fence_waiter_entry *entry = &waiter->entries[i];
        uint64_t completed = 0;
        VkResult vr;

        if (!waiter->lost)
        {
            vr = VK_CALL(vkGetSemaphoreCounterValue(waiter->device->vk->vk_device, entry->semaphore, &completed));
            if (vr < 0)
            {
                d3d12_device_check_vk_result(waiter->device, vr);
                waiter->lost = true;
            }
        }
        if (waiter->lost || completed >= entry->value)
        {
            signal_event(entry->event, "SetEventOnCompletion");
            waiter->entries[i] = waiter->entries[--waiter->entry_count];
            continue;
        }
        ++i;
    }
}

/* Copies the pending pairs plus the kick into the thread's arrays. Caller holds waiter->mutex. */
static uint32_t waiter_snapshot(struct d3d12_fence_waiter *waiter)
{
    size_t needed = waiter->entry_count + 1, count, i;

    if (needed > waiter->wait_capacity)
    {
        size_t capacity = VKDML_MAX(needed, 2 * waiter->wait_capacity);
        VkSemaphore *semaphores = realloc(waiter->wait_semaphores, capacity * sizeof(*semaphores));
        uint64_t *values;

        if (semaphores)
            waiter->wait_semaphores = semaphores;
        if (semaphores && (values = realloc(waiter->wait_values, capacity * sizeof(*values))))
        {
            waiter->wait_values = values;
            waiter->wait_capacity = capacity;
        }
        else
        {
            /* The entries left out stay pending and are picked up on a later snapshot. */
            ERR("SetEventOnCompletion: out of memory; waiting on %" PRIu64 " of %" PRIu64 " fences.",
                    (uint64_t)(waiter->wait_capacity ? waiter->wait_capacity - 1 : 0), (uint64_t)waiter->entry_count);
        }
    }
    if (!waiter->wait_capacity)
        return 0;
    count = VKDML_MIN(waiter->entry_count, waiter->wait_capacity - 1);
    for (i = 0; i < count; ++i)
    {
        waiter->wait_semaphores[i] = waiter->entries[i].semaphore;
        waiter->wait_values[i] = waiter->entries[i].value;
    }
    waiter->wait_semaphores[count] = waiter->kick;
    waiter->wait_values[count] = waiter->kick_value + 1;
    return (uint32_t)count + 1;
}

void d3d12_fence_waiter_device_lost(struct d3d12_device *device)
{
    struct d3d12_fence_waiter *waiter;

    /* The waiter thread never takes the queue mutex, which callers may hold. */
    vkdml_mutex_lock(&waiter_creation_mutex);
    waiter = device->waiter;
    vkdml_mutex_unlock(&waiter_creation_mutex);
    if (!waiter)
        return;
    vkdml_mutex_lock(&waiter->mutex);
    waiter->lost = true;
    waiter_complete_entries(waiter);
    waiter_kick(waiter);
    waiter_cond_broadcast(&waiter->cond);
    vkdml_mutex_unlock(&waiter->mutex);
}

static void waiter_main(struct d3d12_fence_waiter *waiter)
{
    const struct vkdml_vk_device_procs *vk_procs = &waiter->device->vk->procs;
    VkSemaphoreWaitInfo info = {VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    VkResult vr;

    info.flags = VK_SEMAPHORE_WAIT_ANY_BIT;
    vkdml_mutex_lock(&waiter->mutex);
    while (!waiter->stop)
    {
        /* Idle (or lost, or out of memory): sleep on the condition variable until a registration
         * or the stop request. Waiting on the kick semaphore alone would work too, but the
         * validation layer of Vulkan SDK 1.3.239 can then time out (UNASSIGNED-VkSemaphore-state-
         * timeout) when the kick is host-signalled from another thread; with WAIT_ANY on two or
         * more semaphores it does not track the wait. */
        if (waiter->lost || !waiter->entry_count || (info.semaphoreCount = waiter_snapshot(waiter)) < 2)
        {
            waiter_cond_wait(&waiter->cond, &waiter->mutex);
            continue;
        }
        info.pSemaphores = waiter->wait_semaphores;
        info.pValues = waiter->wait_values;
        waiter->waiting = true;
        ++waiter->wait_serial;
        vkdml_mutex_unlock(&waiter->mutex);

        vr = VK_CALL(vkWaitSemaphores(waiter->device->vk->vk_device, &info, UINT64_MAX));

        vkdml_mutex_lock(&waiter->mutex);
        waiter->waiting = false;
        if (vr < 0)
        {
            ERR("SetEventOnCompletion: vkWaitSemaphores failed: %s; signalling every pending event.",
                    vkdml_vk_result_string(vr));
            d3d12_device_check_vk_result(waiter->device, vr);
            waiter->lost = true;
        }
        waiter_complete_entries(waiter);
        waiter_cond_broadcast(&waiter->cond);
    }
    vkdml_mutex_unlock(&waiter->mutex);
}

#ifdef _WIN32
static DWORD WINAPI waiter_thread_main(void *context)
{
    waiter_main(context);
    return 0;
}
#else
static void *waiter_thread_main(void *context)
{
    waiter_main(context);
    return NULL;
}
#endif

static bool waiter_thread_start(struct d3d12_fence_waiter *waiter)
{
#ifdef _WIN32
    return !!(waiter->thread = CreateThread(NULL, 0, waiter_thread_main, waiter, 0, NULL));
#else
    return !pthread_create(&waiter->thread, NULL, waiter_thread_main, waiter);
#endif
}

static void waiter_thread_join(struct d3d12_fence_waiter *waiter)
{
#ifdef _WIN32
    WaitForSingleObject(waiter->thread, INFINITE);
    CloseHandle(waiter->thread);
#else
    pthread_join(waiter->thread, NULL);
#endif
}

static HRESULT waiter_create(struct d3d12_device *device, struct d3d12_fence_waiter **out)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    struct d3d12_fence_waiter *waiter;
    VkResult vr;
    HRESULT hr;

    if (!(waiter = calloc(1, sizeof(*waiter))))
        return E_OUTOFMEMORY;
    waiter->device = device;
    waiter->mutex = (struct vkdml_mutex)VKDML_MUTEX_INIT;
    waiter_cond_init(&waiter->cond);
    if ((vr = d3d12_device_create_timeline(device, 0, &waiter->kick)) < 0)
    {
        hr = d3d12_device_check_vk_result(device, vr);
        goto fail_cond;
    }
    d3d12_device_set_vk_object_name(device, VK_OBJECT_TYPE_SEMAPHORE, (uint64_t)waiter->kick, "fence waiter kick");
    if (!waiter_thread_start(waiter))
    {
        ERR("SetEventOnCompletion: cannot start the fence event thread.");
        hr = E_OUTOFMEMORY;
        goto fail_semaphore;
    }
    *out = waiter;
    return S_OK;

fail_semaphore:
    VK_CALL(vkDestroySemaphore(device->vk->vk_device, waiter->kick, NULL));
fail_cond:
    waiter_cond_destroy(&waiter->cond);
    free(waiter);
    return hr;
}

static HRESULT device_get_waiter(struct d3d12_device *device, struct d3d12_fence_waiter **waiter)
{
    HRESULT hr = S_OK;

    vkdml_mutex_lock(&waiter_creation_mutex);
    if (!device->waiter)
        hr = waiter_create(device, &device->waiter);
    *waiter = device->waiter;
    vkdml_mutex_unlock(&waiter_creation_mutex);
    return hr;
}

static HRESULT waiter_add(struct d3d12_fence_waiter *waiter, struct d3d12_fence *fence, uint64_t value, HANDLE event)
{
    struct d3d12_fence_waiter_entry *entry;

    vkdml_mutex_lock(&waiter->mutex);
    if (waiter->lost)
    {
        vkdml_mutex_unlock(&waiter->mutex);
        signal_event(event, "SetEventOnCompletion");
        return S_OK;
    }
    if (waiter->entry_count == waiter->entry_capacity)
    {
        size_t capacity = VKDML_MAX(8, 2 * waiter->entry_capacity);
        struct d3d12_fence_waiter_entry *entries = realloc(waiter->entries, capacity * sizeof(*entries));

        if (!entries)
        {
            vkdml_mutex_unlock(&waiter->mutex);
            ERR("SetEventOnCompletion: out of memory registering the event.");
            return E_OUTOFMEMORY;
        }
        waiter->entries = entries;
        waiter->entry_capacity = capacity;
    }
    entry = &waiter->entries[waiter->entry_count++];
    entry->fence = fence;
    entry->semaphore = fence->timeline;
    entry->value = value;
    entry->event = event;
    /* A sleeping thread wakes on the condition variable, a waiting one on the kick. */
    if (waiter->waiting)
        waiter_kick(waiter);
    waiter_cond_broadcast(&waiter->cond);
    vkdml_mutex_unlock(&waiter->mutex);
    return S_OK;
}

/* Drops the events registered on a dying fence and returns once the thread no longer waits on
 * its semaphore, so the semaphore can be destroyed. */
static void waiter_cancel_fence(struct d3d12_fence_waiter *waiter, struct d3d12_fence *fence)
{
    size_t i = 0, removed = 0;
    uint64_t serial;

    vkdml_mutex_lock(&waiter->mutex);
    while (i < waiter->entry_count)
    {
        if (waiter->entries[i].fence == fence)
        {
            waiter->entries[i] = waiter->entries[--waiter->entry_count];
            ++removed;
            continue;
        }
        ++i;
    }
    if (removed && waiter->waiting)
    {
        serial = waiter->wait_serial;
        waiter_kick(waiter);
        while (waiter->waiting && waiter->wait_serial == serial && !waiter->lost)
            waiter_cond_wait(&waiter->cond, &waiter->mutex);
    }
    vkdml_mutex_unlock(&waiter->mutex);
    if (removed)
        TRACE("Dropped %" PRIu64 " pending events of fence %p.", (uint64_t)removed, (void *)fence);
}

void d3d12_device_stop_fence_waiter(struct d3d12_device *device)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    struct d3d12_fence_waiter *waiter;

    vkdml_mutex_lock(&waiter_creation_mutex);
    waiter = device->waiter;
    device->waiter = NULL;
    vkdml_mutex_unlock(&waiter_creation_mutex);
    if (!waiter)
        return;

    vkdml_mutex_lock(&waiter->mutex);
    waiter->stop = true;
    if (waiter->waiting)
        waiter_kick(waiter);
    waiter_cond_broadcast(&waiter->cond);
    vkdml_mutex_unlock(&waiter->mutex);
    waiter_thread_join(waiter);

    /* Every fence holds a device reference, so none is left with a registered event. */
    if (waiter->entry_count)
        WARN("Dropping %" PRIu64 " pending fence events.", (uint64_t)waiter->entry_count);
    VK_CALL(vkDestroySemaphore(device->vk->vk_device, waiter->kick, NULL));
    waiter_cond_destroy(&waiter->cond);
    free(waiter->entries);
    free(waiter->wait_semaphores);
    free(waiter->wait_values);
    free(waiter);
}

/* ---- ID3D12Fence ---- */

static inline struct d3d12_fence *impl_from_ID3D12Fence(ID3D12Fence *iface)
{
    return CONTAINING_RECORD(iface, struct d3d12_fence, ID3D12Fence_iface);
}

/* The fence's current value; UINT64_MAX once the device is lost, as D3D12 reports it. */
static uint64_t fence_completed_value(struct d3d12_fence *fence)
{
    const struct vkdml_vk_device_procs *vk_procs = &fence->device->vk->procs;
    uint64_t value = 0;
    VkResult vr;

    if (atomic_load(&fence->device->removed_reason) != S_OK)
        return UINT64_MAX;
    if ((vr = VK_CALL(vkGetSemaphoreCounterValue(fence->device->vk->vk_device, fence->timeline, &value))) < 0)
    {
        d3d12_device_check_vk_result(fence->device, vr);
        return UINT64_MAX;
    }
    return value;
}

/* Blocks until the fence reaches value (SetEventOnCompletion with a NULL event). */
static HRESULT fence_wait(struct d3d12_fence *fence, uint64_t value)
{
    const struct vkdml_vk_device_procs *vk_procs = &fence->device->vk->procs;
    VkSemaphoreWaitInfo info = {VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    HRESULT hr;
    VkResult vr;

    if ((hr = atomic_load(&fence->device->removed_reason)) != S_OK)
        return hr;
    info.semaphoreCount = 1;
    info.pSemaphores = &fence->timeline;
    info.pValues = &value;
    if ((vr = VK_CALL(vkWaitSemaphores(fence->device->vk->vk_device, &info, UINT64_MAX))) < 0)
    {
        ERR("SetEventOnCompletion: waiting for value %" PRIu64 " failed: %s.", value, vkdml_vk_result_string(vr));
        return d3d12_device_check_vk_result(fence->device, vr);
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE d3d12_fence_QueryInterface(ID3D12Fence *iface, REFIID riid, void **object)
{
    static const IID *const iids[] =
    {
        &IID_ID3D12Fence, &IID_ID3D12Pageable, &IID_ID3D12DeviceChild, &IID_ID3D12Object,
        &IID_IUnknown
    };

    TRACE("iface %p, riid %s, object %p.", (void *)iface, debugstr_guid(riid), (void *)object);
    return vkdml_query_interface((IUnknown *)iface, iids, ARRAY_SIZE(iids), riid, object);
}

static ULONG STDMETHODCALLTYPE d3d12_fence_AddRef(ID3D12Fence *iface)
{
    struct d3d12_fence *fence = impl_from_ID3D12Fence(iface);
    ULONG refcount = vkdml_refcount_increment(&fence->refcount);

    TRACE("%p increasing refcount to %u.", (void *)fence, (unsigned int)refcount);
    return refcount;
}

static void d3d12_fence_destroy(struct d3d12_fence *fence)
{
    struct d3d12_device *device = fence->device;
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    struct d3d12_fence_waiter *waiter;

    vkdml_mutex_lock(&waiter_creation_mutex);
    waiter = device->waiter;
    vkdml_mutex_unlock(&waiter_creation_mutex);
    if (waiter)
        waiter_cancel_fence(waiter, fence);
    /* Releasing a fence right after a queue Signal or Wait is fine in D3D12, but destroying a
     * semaphore that a pending batch still signals or waits on is invalid in Vulkan. */
    d3d12_fence_wait_submissions(fence);
    VK_CALL(vkDestroySemaphore(device->vk->vk_device, fence->timeline, NULL));
    vkdml_private_store_destroy(&fence->private_store);
    free(fence);
    d3d12_device_release(device);
}

void d3d12_fence_internal_add_ref(struct d3d12_fence *fence)
{
    vkdml_refcount_increment(&fence->internal_refcount);
}

void d3d12_fence_internal_release(struct d3d12_fence *fence)
{
    if (!vkdml_refcount_decrement(&fence->internal_refcount))
        d3d12_fence_destroy(fence);
}

static ULONG STDMETHODCALLTYPE d3d12_fence_Release(ID3D12Fence *iface)
{
    struct d3d12_fence *fence = impl_from_ID3D12Fence(iface);
    ULONG refcount = vkdml_refcount_decrement(&fence->refcount);

    TRACE("%p decreasing refcount to %u.", (void *)fence, (unsigned int)refcount);
    if (!refcount)
        d3d12_fence_internal_release(fence);
    return refcount;
}

VKDML_IMPLEMENT_PRIVATE_DATA(d3d12_fence, ID3D12Fence, impl_from_ID3D12Fence, const IUnknown *)

static HRESULT STDMETHODCALLTYPE d3d12_fence_SetName(ID3D12Fence *iface, const WCHAR *name)
{
    struct d3d12_fence *fence = impl_from_ID3D12Fence(iface);

    TRACE("iface %p, name %p.", iface, (const void *)name);
    return d3d12_object_set_name(fence->device, &fence->private_store, VK_OBJECT_TYPE_SEMAPHORE,
            (uint64_t)fence->timeline, name);
}

D3D12_IMPLEMENT_GET_DEVICE(d3d12_fence, ID3D12Fence, impl_from_ID3D12Fence)

static UINT64 STDMETHODCALLTYPE d3d12_fence_GetCompletedValue(ID3D12Fence *iface)
{
    struct d3d12_fence *fence = impl_from_ID3D12Fence(iface);

    TRACE("iface %p.", (void *)iface);
    return fence_completed_value(fence);
}

static HRESULT STDMETHODCALLTYPE d3d12_fence_SetEventOnCompletion(ID3D12Fence *iface, UINT64 value, HANDLE event)
{
    struct d3d12_fence *fence = impl_from_ID3D12Fence(iface);
    struct d3d12_fence_waiter *waiter;
    HRESULT hr;

    TRACE("iface %p, value %" PRIu64 ", event %p.", (void *)iface, (uint64_t)value, event);

    if (!event)
        return fence_wait(fence, value);
    if (!event_is_valid(event))
    {
        ERR("SetEventOnCompletion: hEvent %p is not an event (on Linux: an eventfd cast to HANDLE).", event);
        return E_INVALIDARG;
    }
    if (fence_completed_value(fence) >= value)
    {
        signal_event(event, "SetEventOnCompletion");
        return S_OK;
    }
    if (FAILED(hr = device_get_waiter(fence->device, &waiter)))
        return hr;
    /* A value reached meanwhile is caught by the thread: the registration kicks it and it then
     * checks every entry. */
    return waiter_add(waiter, fence, value, event);
}

static HRESULT STDMETHODCALLTYPE d3d12_fence_Signal(ID3D12Fence *iface, UINT64 value)
{
    struct d3d12_fence *fence = impl_from_ID3D12Fence(iface);
    struct d3d12_device *device = fence->device;
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    VkSemaphoreSignalInfo info = {VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
    struct d3d12_queue_op *unblocked = NULL;
    uint64_t completed, pending;
    HRESULT hr = S_OK;
    VkResult vr;

    TRACE("iface %p, value %" PRIu64 ".", (void *)iface, (uint64_t)value);

    if ((hr = atomic_load(&device->removed_reason)) != S_OK)
        return hr;
    /* Under the queue mutex, so no queue Signal of this fence is submitted in between. */
    vkdml_mutex_lock(&device->vk->queue_mutex);
    completed = fence_completed_value(fence);
    pending = atomic_load(&fence->pending_value);
    if (value < completed)
    {
        ERR("Signal: value %" PRIu64 " is lower than the fence's current value %" PRIu64
                "; fence values must increase (timeline semaphore).", (uint64_t)value, completed);
        hr = E_INVALIDARG;
    }
    else if (value == completed)
    {
        /* The fence already has this value: nothing observable changes. */
    }
    else if (pending > completed && value >= pending)
    {
        ERR("Signal: value %" PRIu64 " is not lower than the value %" PRIu64 " a queue Signal will set later"
                "; fence values must increase (timeline semaphore).", (uint64_t)value, pending);
        hr = E_INVALIDARG;
    }
    else
    {
        info.semaphore = fence->timeline;
        info.value = value;
        vr = VK_CHECK(VK_CALL(vkSignalSemaphore(device->vk->vk_device, &info)));
        /* The new value may satisfy Waits that blocked queues hold back. */
        if (SUCCEEDED(hr = d3d12_device_check_vk_result(device, vr)))
            unblocked = d3d12_device_unblock_queues_locked(device);
    }
    vkdml_mutex_unlock(&device->vk->queue_mutex);
    /* Dropping their references may destroy objects, which waits for the GPU: not under the mutex. */
    d3d12_queue_ops_free(unblocked);
    return hr;
}

static const struct ID3D12FenceVtbl d3d12_fence_vtbl =
{
    /* IUnknown */
    d3d12_fence_QueryInterface,
    d3d12_fence_AddRef,
    d3d12_fence_Release,
    /* ID3D12Object */
    d3d12_fence_GetPrivateData,
    d3d12_fence_SetPrivateData,
    d3d12_fence_SetPrivateDataInterface,
    d3d12_fence_SetName,
    /* ID3D12DeviceChild */
    d3d12_fence_GetDevice,
    /* ID3D12Fence */
    d3d12_fence_GetCompletedValue,
    d3d12_fence_SetEventOnCompletion,
    d3d12_fence_Signal,
};

struct d3d12_fence *unsafe_impl_from_ID3D12Fence(ID3D12Fence *iface)
{
    if (!iface || iface->lpVtbl != &d3d12_fence_vtbl)
        return NULL;
    return impl_from_ID3D12Fence(iface);
}

HRESULT d3d12_fence_create(struct d3d12_device *device, UINT64 initial_value, D3D12_FENCE_FLAGS flags,
        struct d3d12_fence **out)
{
    struct d3d12_fence *fence;
    VkResult vr;
    HRESULT hr;

    *out = NULL;
    if (flags != D3D12_FENCE_FLAG_NONE)
    {
        ERR("CreateFence: Flags %#x: only D3D12_FENCE_FLAG_NONE is supported "
                "(shared and non-monitored fences are not).", (unsigned int)flags);
        return E_INVALIDARG;
    }
    if (!(fence = calloc(1, sizeof(*fence))))
        return E_OUTOFMEMORY;
    fence->ID3D12Fence_iface.lpVtbl = &d3d12_fence_vtbl;
    atomic_init(&fence->refcount, 1);
    atomic_init(&fence->internal_refcount, 1);
    fence->flags = flags;
    atomic_init(&fence->pending_value, initial_value);
    if ((vr = d3d12_device_create_timeline(device, initial_value, &fence->timeline)) < 0)
    {
        hr = d3d12_device_check_vk_result(device, vr);
        free(fence);
        return hr;
    }
    vkdml_private_store_init(&fence->private_store);
    fence->device = device;
    d3d12_device_add_ref(device);

    TRACE("Created fence %p, initial value %" PRIu64 ".", (void *)fence, (uint64_t)initial_value);
    *out = fence;
    return S_OK;
}
