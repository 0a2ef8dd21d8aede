/*
 * ID3D12CommandQueue on Vulkan: submission to the shared VkQueue and the deferred-wait scheduler.
 *
 * Queues: every D3D12 queue submits to the device's single VkQueue (lavapipe has one) under
 * device->vk->queue_mutex, and signals its own timeline semaphore once per operation (numbered
 * by submission_count), so allocators and lists can tell whether their command buffers are still
 * in flight.
 *
 * Waits are resolved on the CPU, as vkd3d-proton does. D3D12 lets one queue Wait for a value
 * that another queue signals only later; submitted as such, the wait would block the shared
 * VkQueue and the later signal would never run. A queue Wait is therefore submitted only when its
 * value is reached or signalled by a batch already in the VkQueue (fence->pending_value; a CPU
 * Signal sets the semaphore at once). Otherwise the queue is blocked: that Wait and every later
 * ExecuteCommandLists, Signal and Wait of the queue are kept on the CPU, in call order, after the
 * same validation as immediate ones (errors are reported by the call). Each queue Signal that
 * reaches the VkQueue and each CPU Signal submits, in order, the deferred operations whose Waits
 * are then satisfied; their Signals may unblock other queues in turn, until nothing moves. So
 * nothing in the VkQueue ever waits for a signal behind it, and the VkQueue always drains.
 *
 * A deferred operation takes its submission number when accepted: lists and allocators see it as
 * in flight until it completed. It holds internal references on its fence and on the allocators
 * whose command buffers it executes, so the application may release them meanwhile. A queue
 * released with deferred operations drops them with a warning (nothing signals them; D3D12 would
 * hang); as every queue holds a device reference, none is left when the device is destroyed.
 *
 * Lock order: allocator->mutex, then device->vk->queue_mutex. The queue mutex guards the VkQueue
 * and all scheduling state: submission numbers, deferred operations, blocked queues, fence
 * pending values and last submissions, allocator and list last submissions. Nothing else is
 * locked under it (but the log). References replaced or given up under it are dropped after it is
 * released: that may destroy a fence (takes the fence waiter's mutexes, waits for the GPU), an
 * allocator or a queue (waits for the GPU). The fence waiter thread never takes the queue mutex,
 * so a CPU Signal unblocking queues under it cannot deadlock with the event waiter.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "d3d12_private.h"

const char *d3d12_debug_list_type(D3D12_COMMAND_LIST_TYPE type)
{
    /* Numbers, not names, for the video types: mingw-w64's d3d12.h does not declare them. */
    switch ((unsigned int)type)
    {
        case D3D12_COMMAND_LIST_TYPE_DIRECT: return "DIRECT";
        case D3D12_COMMAND_LIST_TYPE_BUNDLE: return "BUNDLE";
        case D3D12_COMMAND_LIST_TYPE_COMPUTE: return "COMPUTE";
        case D3D12_COMMAND_LIST_TYPE_COPY: return "COPY";
        case 4: return "VIDEO_DECODE";
        case 5: return "VIDEO_PROCESS";
        case 6: return "VIDEO_ENCODE";
        default: return vkdml_debug_sprintf("%#x", (unsigned int)type);
    }
}

/* DIRECT and COMPUTE are supported; logs as `method` otherwise. */
HRESULT d3d12_check_list_type(D3D12_COMMAND_LIST_TYPE type, const char *method)
{
    switch (type)
    {
        case D3D12_COMMAND_LIST_TYPE_DIRECT:
        case D3D12_COMMAND_LIST_TYPE_COMPUTE:
            return S_OK;
        case D3D12_COMMAND_LIST_TYPE_BUNDLE:
            FIXME("%s: type BUNDLE: bundles are not supported.", method);
            return E_NOTIMPL;
        default:
            ERR("%s: type %s is not supported: the D3D12 shim implements the buffer-only compute subset "
                    "(DIRECT and COMPUTE).", method, d3d12_debug_list_type(type));
            return E_INVALIDARG;
    }
}

/* ---- Timelines and submission ---- */

VkResult d3d12_device_create_timeline(struct d3d12_device *device, uint64_t initial_value, VkSemaphore *semaphore)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    VkSemaphoreTypeCreateInfo type_info = {VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    VkSemaphoreCreateInfo info = {VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type_info};

    type_info.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type_info.initialValue = initial_value;
    *semaphore = VK_NULL_HANDLE;
    return VK_CHECK(VK_CALL(vkCreateSemaphore(device->vk->vk_device, &info, NULL, semaphore)));
}

/* The semaphore's value, or an error HRESULT (the device is lost). */
static HRESULT timeline_value(struct d3d12_device *device, VkSemaphore semaphore, uint64_t *value)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    HRESULT hr;

    if ((hr = atomic_load(&device->removed_reason)) != S_OK)
        return hr;
    return d3d12_device_check_vk_result(device,
            VK_CHECK(VK_CALL(vkGetSemaphoreCounterValue(device->vk->vk_device, semaphore, value))));
}

/* Whether the timeline reached `value`. A lost device counts as reached: nothing runs any more. */
static bool timeline_reached(struct d3d12_device *device, VkSemaphore semaphore, uint64_t value)
{
    uint64_t current = 0;

    return FAILED(timeline_value(device, semaphore, &current)) || current >= value;
}

void d3d12_device_wait_timeline(struct d3d12_device *device, VkSemaphore semaphore, uint64_t value)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    VkSemaphoreWaitInfo info = {VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};

    if (atomic_load(&device->removed_reason) != S_OK)
        return;
    info.semaphoreCount = 1;
    info.pSemaphores = &semaphore;
    info.pValues = &value;
    d3d12_device_check_vk_result(device,
            VK_CHECK(VK_CALL(vkWaitSemaphores(device->vk->vk_device, &info, UINT64_MAX))));
}

/* Sets the timeline on the host; only valid while no signal of it is pending in the VkQueue. */
static void timeline_signal(struct d3d12_device *device, VkSemaphore semaphore, uint64_t value)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    VkSemaphoreSignalInfo info = {VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};

    if (atomic_load(&device->removed_reason) != S_OK)
        return;
    info.semaphore = semaphore;
    info.value = value;
    d3d12_device_check_vk_result(device, VK_CHECK(VK_CALL(vkSignalSemaphore(device->vk->vk_device, &info))));
}

#define SUBMIT_STACK_COUNT 16

static void fill_semaphore_infos(VkSemaphoreSubmitInfo *infos, const struct d3d12_timeline_op *ops, uint32_t count)
{
    uint32_t i;

    for (i = 0; i < count; ++i)
    {
        infos[i] = (VkSemaphoreSubmitInfo){VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        infos[i].semaphore = ops[i].semaphore;
        infos[i].value = ops[i].value;
        infos[i].stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    }
}

/* d3d12_device_submit with device->vk->queue_mutex held by the caller. */
static HRESULT device_submit_locked(struct d3d12_device *device, const VkCommandBuffer *buffers, uint32_t buffer_count,
        const struct d3d12_timeline_op *waits, uint32_t wait_count,
        const struct d3d12_timeline_op *signals, uint32_t signal_count)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    VkCommandBufferSubmitInfo buffer_stack[SUBMIT_STACK_COUNT], *buffer_infos = buffer_stack;
    VkSemaphoreSubmitInfo semaphore_stack[SUBMIT_STACK_COUNT], *semaphore_infos = semaphore_stack;
    VkSubmitInfo2 submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    uint32_t i;
    bool lose;
    HRESULT hr;
    VkResult vr;

    if ((hr = atomic_load(&device->removed_reason)) != S_OK)
        return hr;
    /* The device-loss test hook: the work is dropped, its signals still happen, so nothing waits forever. */
    if ((lose = atomic_exchange(&device->lose_next_submission, false)))
        buffer_count = 0;
    if ((buffer_count > SUBMIT_STACK_COUNT && !(buffer_infos = malloc(buffer_count * sizeof(*buffer_infos))))
            || (wait_count + signal_count > SUBMIT_STACK_COUNT
            && !(semaphore_infos = malloc((wait_count + signal_count) * sizeof(*semaphore_infos)))))
    {
        hr = E_OUTOFMEMORY;
        goto done;
    }
    for (i = 0; i < buffer_count; ++i)
    {
        buffer_infos[i] = (VkCommandBufferSubmitInfo){VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
        buffer_infos[i].commandBuffer = buffers[i];
    }
    fill_semaphore_infos(semaphore_infos, waits, wait_count);
    fill_semaphore_infos(semaphore_infos + wait_count, signals, signal_count);
    submit.waitSemaphoreInfoCount = wait_count;
    submit.pWaitSemaphoreInfos = semaphore_infos;
    submit.commandBufferInfoCount = buffer_count;
    submit.pCommandBufferInfos = buffer_infos;
    submit.signalSemaphoreInfoCount = signal_count;
    submit.pSignalSemaphoreInfos = semaphore_infos + wait_count;
    vkdml_vk_queue_lock(device->vk);
    vr = VK_CHECK(VK_CALL(vkQueueSubmit2(device->vk->queue, 1, &submit, VK_NULL_HANDLE)));
    /* A lost device has nothing in flight: objects are destroyed without waiting from now on. */
    if (lose && vr >= 0)
        vr = VK_CHECK(VK_CALL(vkQueueWaitIdle(device->vk->queue)));
    vkdml_vk_queue_unlock(device->vk);
    hr = d3d12_device_check_vk_result(device, lose && vr >= 0 ? VK_ERROR_DEVICE_LOST : vr);
    if (lose)
        d3d12_fence_waiter_device_lost(device);

done:
    if (buffer_infos != buffer_stack)
        free(buffer_infos);
    if (semaphore_infos != semaphore_stack)
        free(semaphore_infos);
    return hr;
}

HRESULT d3d12_device_submit(struct d3d12_device *device, const VkCommandBuffer *buffers, uint32_t buffer_count,
        const struct d3d12_timeline_op *waits, uint32_t wait_count,
        const struct d3d12_timeline_op *signals, uint32_t signal_count)
{
    HRESULT hr;

    vkdml_mutex_lock(&device->vk->queue_mutex);
    hr = device_submit_locked(device, buffers, buffer_count, waits, wait_count, signals, signal_count);
    vkdml_mutex_unlock(&device->vk->queue_mutex);
    return hr;
}

/* ---- ID3D12CommandQueue ---- */

static inline struct d3d12_command_queue *impl_from_ID3D12CommandQueue(ID3D12CommandQueue *iface)
{
    return CONTAINING_RECORD(iface, struct d3d12_command_queue, ID3D12CommandQueue_iface);
}

static void d3d12_command_queue_destroy(struct d3d12_command_queue *queue)
{
    struct d3d12_device *device = queue->device;
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;

    /* The semaphore must not be destroyed while a submission still signals it. */
    d3d12_device_wait_timeline(device, queue->submission_timeline, atomic_load(&queue->submission_count));
    VK_CALL(vkDestroySemaphore(device->vk->vk_device, queue->submission_timeline, NULL));
    vkdml_private_store_destroy(&queue->private_store);
    free(queue);
    d3d12_device_release(device);
}

static void d3d12_command_queue_internal_add_ref(struct d3d12_command_queue *queue)
{
    atomic_fetch_add(&queue->internal_refcount, 1);
}

/* Never call with device->vk->queue_mutex held: destruction waits for the queue's work. */
void d3d12_command_queue_internal_release(struct d3d12_command_queue *queue)
{
    if (atomic_fetch_sub(&queue->internal_refcount, 1) == 1)
        d3d12_command_queue_destroy(queue);
}

/* Makes (*last_queue, *last_submission) name `queue`'s submission `value`; a replaced queue goes
 * to stale[] for an internal release once the queue mutex is dropped. Only the last submission
 * is kept: every D3D12 queue submits to the same VkQueue, and a timeline signal there completes
 * only after all work submitted before it, so the last one completing implies the earlier ones did.
 * That holds in VkQueue order, so allocators and fences record a submission when it reaches the
 * VkQueue, not when a deferred operation is accepted. */
static void record_submission(struct d3d12_command_queue **last_queue, uint64_t *last_submission,
        struct d3d12_command_queue *queue, uint64_t value, struct d3d12_command_queue **stale, size_t *stale_count)
{
    if (*last_queue != queue)
    {
        if (*last_queue)
            stale[(*stale_count)++] = *last_queue;
        d3d12_command_queue_internal_add_ref(queue);
        *last_queue = queue;
    }
    *last_submission = value;
}

bool d3d12_command_queue_submission_pending(struct d3d12_command_queue *queue, uint64_t value)
{
    return queue && !timeline_reached(queue->device, queue->submission_timeline, value);
}

/* ---- Queue operations deferred behind an unsatisfied Wait ---- */

enum d3d12_queue_op_type
{
    QUEUE_OP_EXECUTE,
    QUEUE_OP_SIGNAL,
    QUEUE_OP_WAIT,
};

/* An accepted queue operation held back on the CPU. It holds what its submission needs, so the
 * application may release the objects meanwhile: an internal reference on its fence, or on the
 * allocator owning each command buffer. Once submitted or dropped it goes to a list that
 * d3d12_queue_ops_free frees after the queue mutex is released, with those references and the
 * queue references its submission replaced in records (stale). */
struct d3d12_queue_op
{
    struct d3d12_queue_op *next;
    enum d3d12_queue_op_type type;
    uint64_t submission;                        /* the queue's number, given when accepted */
    struct d3d12_fence *fence;                  /* SIGNAL, WAIT */
    uint64_t value;
    uint32_t buffer_count;                      /* EXECUTE */
    VkCommandBuffer *buffers;
    struct d3d12_command_allocator **allocators;    /* one per buffer */
    struct d3d12_command_queue **stale;         /* room for buffer_count + 1 */
    size_t stale_count;
};

static const char *queue_op_method(const struct d3d12_queue_op *op)
{
    switch (op->type)
    {
        case QUEUE_OP_EXECUTE: return "ExecuteCommandLists";
        case QUEUE_OP_SIGNAL: return "Signal";
        default: return "Wait";
    }
}

/* One allocation holds the operation and its arrays (all of pointer size and alignment). */
static struct d3d12_queue_op *queue_op_create(enum d3d12_queue_op_type type, uint32_t buffer_count)
{
    struct d3d12_queue_op *op;
    size_t size;

    size = sizeof(*op) + buffer_count * (sizeof(*op->allocators) + sizeof(*op->buffers))
            + (buffer_count + 1) * sizeof(*op->stale);
    if (!(op = calloc(1, size)))
        return NULL;
    op->type = type;
    op->buffer_count = buffer_count;
    op->allocators = (struct d3d12_command_allocator **)(op + 1);
    op->stale = (struct d3d12_command_queue **)(op->allocators + buffer_count);
    op->buffers = (VkCommandBuffer *)(op->stale + buffer_count + 1);
    return op;
}

void d3d12_queue_ops_free(struct d3d12_queue_op *ops)
{
    struct d3d12_queue_op *op;
    size_t i;

    while ((op = ops))
    {
        ops = op->next;
        if (op->fence)
            d3d12_fence_internal_release(op->fence);
        for (i = 0; i < op->buffer_count; ++i)
            d3d12_command_allocator_internal_release(op->allocators[i]);
        for (i = 0; i < op->stale_count; ++i)
            d3d12_command_queue_internal_release(op->stale[i]);
        free(op);
    }
}

/* Submits one batch that signals the queue's timeline at `submission`. Caller holds the queue mutex. */
static HRESULT queue_submit_locked(struct d3d12_command_queue *queue, uint64_t submission,
        const VkCommandBuffer *buffers, uint32_t buffer_count, const struct d3d12_timeline_op *wait,
        const struct d3d12_timeline_op *signal)
{
    struct d3d12_timeline_op signals[2];
    uint32_t signal_count = 0;
    HRESULT hr;

    if (signal)
        signals[signal_count++] = *signal;
    signals[signal_count].semaphore = queue->submission_timeline;
    signals[signal_count++].value = submission;
    if (SUCCEEDED(hr = device_submit_locked(queue->device, buffers, buffer_count, wait, wait ? 1 : 0,
            signals, signal_count)))
        queue->submitted_count = submission;
    return hr;
}

/* The number an operation submitted at once gets; the caller stores it in submission_count once
 * the submission succeeded. Caller holds the queue mutex. */
static uint64_t queue_next_submission(struct d3d12_command_queue *queue)
{
    return atomic_load(&queue->submission_count) + 1;
}

/* The value the fence has, or will have after the signals already in the VkQueue. */
static HRESULT fence_current_value(struct d3d12_fence *fence, uint64_t *value)
{
    uint64_t completed = 0;
    HRESULT hr;

    if (SUCCEEDED(hr = timeline_value(fence->device, fence->timeline, &completed)))
        *value = VKDML_MAX(completed, atomic_load(&fence->pending_value));
    return hr;
}

/* Whether a queue Wait for `value` may go to the VkQueue: the value is reached, or a batch already
 * there signals it. A wait for anything else would block the shared VkQueue, and with it the
 * signal it waits for. A lost device counts as satisfied: nothing runs any more. Caller holds the
 * queue mutex. */
static bool fence_wait_ready(struct d3d12_fence *fence, uint64_t value)
{
    uint64_t current = 0;

    return FAILED(fence_current_value(fence, &current)) || value <= current;
}

/* Submits ExecuteCommandLists' command buffers as operation `submission`, and records it on their
 * allocators (see record_submission). Caller holds the queue mutex. */
static HRESULT queue_submit_execute_locked(struct d3d12_command_queue *queue, uint64_t submission,
        const VkCommandBuffer *buffers, struct d3d12_command_allocator *const *allocators, uint32_t count,
        struct d3d12_command_queue **stale, size_t *stale_count)
{
    uint32_t i;
    HRESULT hr;

    if (FAILED(hr = queue_submit_locked(queue, submission, buffers, count, NULL, NULL)))
        return hr;
    for (i = 0; i < count; ++i)
    {
        record_submission(&allocators[i]->last_queue, &allocators[i]->last_submission, queue, submission,
                stale, stale_count);
        allocators[i]->last_timeline = queue->submission_timeline;
    }
    return S_OK;
}

/* Submits a queue Signal as operation `submission`. A deferred Signal overtaken meanwhile (a CPU
 * Signal or another queue set the fence to its value or beyond) signals the queue's timeline
 * only: timeline semaphores cannot go back. Caller holds the queue mutex. */
static HRESULT queue_submit_signal_locked(struct d3d12_command_queue *queue, struct d3d12_fence *fence,
        uint64_t value, uint64_t submission, struct d3d12_command_queue **stale, size_t *stale_count)
{
    struct d3d12_timeline_op signal;
    uint64_t current = 0;
    HRESULT hr;

    if (FAILED(hr = fence_current_value(fence, &current)))
        return hr;
    if (value <= current)
    {
        if (value < current)
            WARN("Signal: value %" PRIu64 " of fence %p, held back behind a queue Wait, is lower than the value "
                    "%" PRIu64 " the fence got meanwhile; a timeline semaphore cannot go back, so it is not set.",
                    value, (void *)&fence->ID3D12Fence_iface, current);
        return queue_submit_locked(queue, submission, NULL, 0, NULL, NULL);
    }
    signal.semaphore = fence->timeline;
    signal.value = value;
    if (FAILED(hr = queue_submit_locked(queue, submission, NULL, 0, NULL, &signal)))
        return hr;
    atomic_store(&fence->pending_value, value);
    record_submission(&fence->last_queue, &fence->last_submission, queue, submission, stale, stale_count);
    return S_OK;
}

/* Submits a queue Wait as operation `submission`; fence_wait_ready(fence, value) holds. Caller
 * holds the queue mutex. */
static HRESULT queue_submit_wait_locked(struct d3d12_command_queue *queue, struct d3d12_fence *fence,
        uint64_t value, uint64_t submission, struct d3d12_command_queue **stale, size_t *stale_count)
{
    struct d3d12_timeline_op wait;
    uint64_t completed = 0;
    HRESULT hr;

    if (FAILED(hr = timeline_value(queue->device, fence->timeline, &completed)))
        return hr;
    if (value <= completed)
        return queue_submit_locked(queue, submission, NULL, 0, NULL, NULL);
    wait.semaphore = fence->timeline;
    wait.value = value;
    if (FAILED(hr = queue_submit_locked(queue, submission, NULL, 0, &wait, NULL)))
        return hr;
    record_submission(&fence->last_queue, &fence->last_submission, queue, submission, stale, stale_count);
    return S_OK;
}

/* Appends an accepted operation to the queue's deferred ones under the queue's next number; the
 * first one makes the queue blocked. Caller holds the queue mutex. */
static void queue_defer_locked(struct d3d12_command_queue *queue, struct d3d12_queue_op *op)
{
    struct d3d12_command_queue **link;

    op->submission = queue_next_submission(queue);
    atomic_store(&queue->submission_count, op->submission);
    if (!queue->deferred_head)
    {
        TRACE("Queue %p is blocked by a Wait for fence %p value %" PRIu64 "; later operations are held back.",
                (void *)queue, (void *)op->fence, op->value);
        /* Appended, so queues are unblocked in the order they blocked when several can go. */
        for (link = &queue->device->blocked_queues; *link; link = &(*link)->blocked_next)
            ;
        *link = queue;
        queue->blocked_next = NULL;
    }
    op->next = NULL;
    *queue->deferred_tail = op;
    queue->deferred_tail = &op->next;
}

/* Holds a queue Signal or Wait back; logs as `method`. Caller holds the queue mutex. */
static HRESULT queue_defer_fence_op_locked(struct d3d12_command_queue *queue, enum d3d12_queue_op_type type,
        struct d3d12_fence *fence, uint64_t value, const char *method)
{
    struct d3d12_queue_op *op;

    if (!(op = queue_op_create(type, 0)))
    {
        ERR("%s: out of memory holding the operation back behind an unsatisfied queue Wait.", method);
        return E_OUTOFMEMORY;
    }
    d3d12_fence_internal_add_ref(fence);
    op->fence = fence;
    op->value = value;
    queue_defer_locked(queue, op);
    return S_OK;
}

/* Holds ExecuteCommandLists back; its number goes to *submission. Caller holds the queue mutex. */
static HRESULT queue_defer_execute_locked(struct d3d12_command_queue *queue, const VkCommandBuffer *buffers,
        struct d3d12_command_allocator *const *allocators, uint32_t count, uint64_t *submission)
{
    struct d3d12_queue_op *op;
    uint32_t i;

    if (!(op = queue_op_create(QUEUE_OP_EXECUTE, count)))
    {
        ERR("ExecuteCommandLists: out of memory holding %u command lists back behind an unsatisfied queue Wait; "
                "nothing was submitted.", count);
        return E_OUTOFMEMORY;
    }
    for (i = 0; i < count; ++i)
    {
        op->buffers[i] = buffers[i];
        op->allocators[i] = allocators[i];
        d3d12_command_allocator_internal_add_ref(allocators[i]);
        ++allocators[i]->deferred_count;
    }
    queue_defer_locked(queue, op);
    *submission = op->submission;
    return S_OK;
}

/* Submits a deferred operation. A failed one is dropped (logged) and its number signalled alone,
 * so that in-flight tracking does not wait for it. Caller holds the queue mutex. */
static void queue_submit_deferred_op_locked(struct d3d12_command_queue *queue, struct d3d12_queue_op *op)
{
    struct d3d12_device *device = queue->device;
    uint32_t i;
    HRESULT hr;

    switch (op->type)
    {
        case QUEUE_OP_EXECUTE:
            for (i = 0; i < op->buffer_count; ++i)
                --op->allocators[i]->deferred_count;
            hr = queue_submit_execute_locked(queue, op->submission, op->buffers, op->allocators, op->buffer_count,
                    op->stale, &op->stale_count);
            break;
        case QUEUE_OP_SIGNAL:
            hr = queue_submit_signal_locked(queue, op->fence, op->value, op->submission, op->stale, &op->stale_count);
            break;
        default:
            hr = queue_submit_wait_locked(queue, op->fence, op->value, op->submission, op->stale, &op->stale_count);
            break;
    }
    /* A lost device was logged when it was detected. */
    if (FAILED(hr) && hr != (HRESULT)atomic_load(&device->removed_reason))
    {
        ERR("%s: submitting the operation held back behind a queue Wait failed, hr %#x; it is dropped.",
                queue_op_method(op), (unsigned int)hr);
        queue_submit_locked(queue, op->submission, NULL, 0, NULL, NULL);
    }
}

/* Submits the queue's deferred operations, in order, up to the first Wait still unsatisfied, and
 * moves them to *done. Returns whether any was submitted. Caller holds the queue mutex. */
static bool queue_submit_deferred_locked(struct d3d12_command_queue *queue, struct d3d12_queue_op **done)
{
    struct d3d12_queue_op *op;
    bool progress = false;

    while ((op = queue->deferred_head))
    {
        if (op->type == QUEUE_OP_WAIT && !fence_wait_ready(op->fence, op->value))
            break;
        if (!(queue->deferred_head = op->next))
            queue->deferred_tail = &queue->deferred_head;
        queue_submit_deferred_op_locked(queue, op);
        op->next = *done;
        *done = op;
        progress = true;
    }
    return progress;
}

struct d3d12_queue_op *d3d12_device_unblock_queues_locked(struct d3d12_device *device)
{
    struct d3d12_command_queue **link, *queue;
    struct d3d12_queue_op *done = NULL;
    bool progress;

    /* A queue's deferred Signals may satisfy the Wait of any other blocked queue, one already
     * visited included: go round until nothing moves. */
    do
    {
        progress = false;
        for (link = &device->blocked_queues; (queue = *link);)
        {
            if (queue_submit_deferred_locked(queue, &done))
                progress = true;
            if (queue->deferred_head)
            {
                link = &queue->blocked_next;
                continue;
            }
            TRACE("Queue %p is unblocked.", (void *)queue);
            *link = queue->blocked_next;
            queue->blocked_next = NULL;
        }
    } while (progress);
    return done;
}

/* The application released the queue while operations still wait behind a Wait it never
 * satisfied: D3D12 would hang that queue; they are dropped with a warning instead. */
static void queue_drop_deferred(struct d3d12_command_queue *queue)
{
    struct d3d12_device *device = queue->device;
    struct d3d12_command_queue **link;
    struct d3d12_queue_op *ops, *op;
    uint64_t submitted, accepted, count = 0;
    uint32_t i;

    vkdml_mutex_lock(&device->vk->queue_mutex);
    if ((ops = queue->deferred_head))
    {
        queue->deferred_head = NULL;
        queue->deferred_tail = &queue->deferred_head;
        for (link = &device->blocked_queues; *link != queue; link = &(*link)->blocked_next)
            ;
        *link = queue->blocked_next;
        queue->blocked_next = NULL;
        for (op = ops; op; op = op->next)
        {
            for (i = 0; i < op->buffer_count; ++i)
                --op->allocators[i]->deferred_count;
            ++count;
        }
    }
    submitted = queue->submitted_count;
    accepted = atomic_load(&queue->submission_count);
    vkdml_mutex_unlock(&device->vk->queue_mutex);
    if (!ops)
        return;

    /* The head of a blocked queue is always the Wait that blocks it. */
    WARN("Release: the queue is released with %" PRIu64 " operations held back behind its Wait for fence %p "
            "value %" PRIu64 ", which nothing signalled (D3D12 would hang the queue); they are dropped.", count,
            ops->fence ? (void *)&ops->fence->ID3D12Fence_iface : NULL, ops->value);
    /* No batch will signal their numbers. Once the submitted ones completed, no signal of the
     * timeline is pending and the host may set it past them, so that lists and allocators that
     * recorded them are not in flight for ever. */
    d3d12_device_wait_timeline(device, queue->submission_timeline, submitted);
    timeline_signal(device, queue->submission_timeline, accepted);
    d3d12_queue_ops_free(ops);
}

void d3d12_fence_wait_submissions(struct d3d12_fence *fence)
{
    struct d3d12_device *device = fence->device;
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    struct d3d12_command_queue *queue = fence->last_queue;

    if (!queue)
        return;
    /* Destroying a semaphore that a pending batch waits on or signals is invalid in Vulkan, and
     * D3D12 lets the application release a fence right after a queue Signal or Wait. Seeing the
     * batch's own signal is not enough: Mesa's queue thread (lavapipe) and the validation layer
     * still touch the semaphores of a batch after its signals are visible; once the VkQueue is
     * idle they are done with them. The VkQueue always drains: nothing in it waits for a signal
     * behind it. */
    d3d12_device_wait_timeline(device, queue->submission_timeline, fence->last_submission);
    if (atomic_load(&device->removed_reason) == S_OK)
    {
        vkdml_mutex_lock(&device->vk->queue_mutex);
        vkdml_vk_queue_lock(device->vk);
        d3d12_device_check_vk_result(device, VK_CHECK(VK_CALL(vkQueueWaitIdle(device->vk->queue))));
        vkdml_vk_queue_unlock(device->vk);
        vkdml_mutex_unlock(&device->vk->queue_mutex);
    }
    fence->last_queue = NULL;
    d3d12_command_queue_internal_release(queue);
}

static HRESULT STDMETHODCALLTYPE d3d12_command_queue_QueryInterface(ID3D12CommandQueue *iface, REFIID riid,
        void **object)
{
    static const IID *const iids[] =
    {
        &IID_ID3D12CommandQueue, &IID_ID3D12Pageable, &IID_ID3D12DeviceChild, &IID_ID3D12Object,
        &IID_IUnknown
    };

    TRACE("iface %p, riid %s, object %p.", iface, debugstr_guid(riid), object);
    return vkdml_query_interface((IUnknown *)iface, iids, ARRAY_SIZE(iids), riid, object);
}

static ULONG STDMETHODCALLTYPE d3d12_command_queue_AddRef(ID3D12CommandQueue *iface)
{
    struct d3d12_command_queue *queue = impl_from_ID3D12CommandQueue(iface);
    ULONG refcount = vkdml_refcount_increment(&queue->refcount);

    TRACE("%p increasing refcount to %u.", queue, (unsigned int)refcount);
    return refcount;
}

static ULONG STDMETHODCALLTYPE d3d12_command_queue_Release(ID3D12CommandQueue *iface)
{
    struct d3d12_command_queue *queue = impl_from_ID3D12CommandQueue(iface);
    ULONG refcount = vkdml_refcount_decrement(&queue->refcount);

    TRACE("%p decreasing refcount to %u.", queue, (unsigned int)refcount);
    if (!refcount)
    {
        queue_drop_deferred(queue);
        d3d12_command_queue_internal_release(queue);
    }
    return refcount;
}

VKDML_IMPLEMENT_PRIVATE_DATA(d3d12_command_queue, ID3D12CommandQueue, impl_from_ID3D12CommandQueue, const IUnknown *)

static HRESULT STDMETHODCALLTYPE d3d12_command_queue_SetName(ID3D12CommandQueue *iface, const WCHAR *name)
{
    struct d3d12_command_queue *queue = impl_from_ID3D12CommandQueue(iface);

    TRACE("iface %p, name %p.", iface, name);
    /* The VkQueue is shared by every D3D12 queue: name the queue's own timeline instead. */
    return d3d12_object_set_name(queue->device, &queue->private_store, VK_OBJECT_TYPE_SEMAPHORE,
            (uint64_t)queue->submission_timeline, name);
}

D3D12_IMPLEMENT_GET_DEVICE(d3d12_command_queue, ID3D12CommandQueue, impl_from_ID3D12CommandQueue)

/* mingw-w64's WIDL header declares UpdateTileMappings without pHeap and with non-const arrays. */
#if !VKDML_D3D12_WIDL_HEADER
static void STDMETHODCALLTYPE d3d12_command_queue_UpdateTileMappings(ID3D12CommandQueue *iface,
        ID3D12Resource *resource, UINT region_count, const D3D12_TILED_RESOURCE_COORDINATE *region_starts,
        const D3D12_TILE_REGION_SIZE *region_sizes, ID3D12Heap *heap, UINT range_count,
        const D3D12_TILE_RANGE_FLAGS *range_flags, const UINT *heap_range_offsets, const UINT *range_tile_counts,
        D3D12_TILE_MAPPING_FLAGS flags)
{
    TRACE("iface %p, resource %p, region_count %u, region_starts %p, region_sizes %p, heap %p, range_count %u, "
            "range_flags %p, heap_range_offsets %p, range_tile_counts %p, flags %#x.", iface, resource, region_count,
            region_starts, region_sizes, heap, range_count, range_flags, heap_range_offsets, range_tile_counts,
            (unsigned int)flags);
    FIXME_ONCE("UpdateTileMappings: tiled resources are not supported (TiledResourcesTier is NOT_SUPPORTED); ignored.");
}
#else
static void STDMETHODCALLTYPE d3d12_command_queue_UpdateTileMappings(ID3D12CommandQueue *iface,
        ID3D12Resource *resource, UINT region_count, const D3D12_TILED_RESOURCE_COORDINATE *region_starts,
        const D3D12_TILE_REGION_SIZE *region_sizes, UINT range_count, const D3D12_TILE_RANGE_FLAGS *range_flags,
        UINT *heap_range_offsets, UINT *range_tile_counts, D3D12_TILE_MAPPING_FLAGS flags)
{
    TRACE("iface %p, resource %p, region_count %u, region_starts %p, region_sizes %p, range_count %u, "
            "range_flags %p, heap_range_offsets %p, range_tile_counts %p, flags %#x.", iface, resource, region_count,
            region_starts, region_sizes, range_count, range_flags, heap_range_offsets, range_tile_counts,
            (unsigned int)flags);
    FIXME_ONCE("UpdateTileMappings: tiled resources are not supported (TiledResourcesTier is NOT_SUPPORTED); ignored.");
}
#endif

static void STDMETHODCALLTYPE d3d12_command_queue_CopyTileMappings(ID3D12CommandQueue *iface,
        ID3D12Resource *dst_resource, const D3D12_TILED_RESOURCE_COORDINATE *dst_region_start,
        ID3D12Resource *src_resource, const D3D12_TILED_RESOURCE_COORDINATE *src_region_start,
        const D3D12_TILE_REGION_SIZE *region_size, D3D12_TILE_MAPPING_FLAGS flags)
{
    TRACE("iface %p, dst_resource %p, dst_region_start %p, src_resource %p, src_region_start %p, region_size %p, "
            "flags %#x.", iface, dst_resource, dst_region_start, src_resource, src_region_start, region_size,
            (unsigned int)flags);
    FIXME_ONCE("CopyTileMappings: tiled resources are not supported (TiledResourcesTier is NOT_SUPPORTED); ignored.");
}

static bool queue_accepts(const struct d3d12_command_queue *queue, D3D12_COMMAND_LIST_TYPE type)
{
    return queue->desc.Type == type;
}

/* The rules a list must meet before any Vulkan state is looked at; logs with the list index. */
static bool check_executable_list(struct d3d12_command_queue *queue, ID3D12CommandList *iface, UINT index,
        struct d3d12_command_list **out)
{
    struct d3d12_command_list *list;

    if (!(list = unsafe_impl_from_ID3D12CommandList(iface)))
        ERR("ExecuteCommandLists: ppCommandLists[%u] %p is not a vkdml command list; nothing was submitted.",
                index, iface);
    else if (list->device != queue->device)
        ERR("ExecuteCommandLists: ppCommandLists[%u] %p belongs to another device; nothing was submitted.",
                index, iface);
    else if (list->is_open)
        ERR("ExecuteCommandLists: ppCommandLists[%u] %p is still open (call Close first); nothing was submitted.",
                index, iface);
    else if (FAILED(list->close_error))
        ERR("ExecuteCommandLists: ppCommandLists[%u] %p failed to record (Close returned %#x); "
                "nothing was submitted.", index, iface, (unsigned int)list->close_error);
    else if (!queue_accepts(queue, list->type))
        ERR("ExecuteCommandLists: ppCommandLists[%u] %p is a %s list; a %s queue executes only %s lists; "
                "nothing was submitted.", index, iface, d3d12_debug_list_type(list->type),
                d3d12_debug_list_type(queue->desc.Type), d3d12_debug_list_type(queue->desc.Type));
    else if (!list->vk_command_buffer)
        ERR("ExecuteCommandLists: ppCommandLists[%u] %p: its command allocator was Reset or released after "
                "the list was closed (Reset the list); nothing was submitted.", index, iface);
    else
    {
        *out = list;
        return true;
    }
    return false;
}

/* The rules that depend on earlier submissions. Caller holds the queue mutex. */
static bool check_list_not_in_flight(struct d3d12_command_list **lists, UINT index)
{
    struct d3d12_command_list *list = lists[index];
    UINT i;

    for (i = 0; i < index; ++i)
    {
        if (lists[i] == list)
        {
            ERR("ExecuteCommandLists: ppCommandLists[%u] %p is also ppCommandLists[%u]; a list executes once per "
                    "call; nothing was submitted.", index, &list->ID3D12GraphicsCommandList_iface, i);
            return false;
        }
    }
    if (d3d12_command_queue_submission_pending(list->last_queue, list->last_submission))
    {
        ERR("ExecuteCommandLists: ppCommandLists[%u] %p is still executing from an earlier ExecuteCommandLists "
                "(wait on a fence first); nothing was submitted.", index, &list->ID3D12GraphicsCommandList_iface);
        return false;
    }
    return true;
}

static void STDMETHODCALLTYPE d3d12_command_queue_ExecuteCommandLists(ID3D12CommandQueue *iface, UINT count,
        ID3D12CommandList *const *command_lists)
{
    struct d3d12_command_queue *queue = impl_from_ID3D12CommandQueue(iface);
    struct d3d12_command_allocator *allocator_stack[SUBMIT_STACK_COUNT], **allocators = allocator_stack;
    struct d3d12_command_queue *stale_stack[2 * SUBMIT_STACK_COUNT], **stale = stale_stack;
    struct d3d12_command_list *list_stack[SUBMIT_STACK_COUNT], **lists = list_stack;
    VkCommandBuffer buffer_stack[SUBMIT_STACK_COUNT], *buffers = buffer_stack;
    size_t stale_count = 0, i;
    uint64_t submission = 0;
    HRESULT hr = E_FAIL;

    TRACE("iface %p, count %u, command_lists %p.", iface, count, command_lists);

    if (!count)
        return;
    if (!command_lists)
    {
        ERR("ExecuteCommandLists: ppCommandLists is NULL but NumCommandLists is %u.", count);
        return;
    }
    if (count > SUBMIT_STACK_COUNT && (!(lists = malloc(count * sizeof(*lists)))
            || !(buffers = malloc(count * sizeof(*buffers))) || !(allocators = malloc(count * sizeof(*allocators)))
            || !(stale = malloc(2 * count * sizeof(*stale)))))
    {
        ERR("ExecuteCommandLists: out of memory for %u command lists; nothing was submitted.", count);
        goto done;
    }
    for (i = 0; i < count; ++i)
    {
        /* A failing submit check logs on its own (the DML layer removes its device). */
        if (!check_executable_list(queue, command_lists[i], i, &lists[i])
                || !d3d12_command_list_run_submit_checks(lists[i]))
            goto done;
        buffers[i] = lists[i]->vk_command_buffer;
        allocators[i] = lists[i]->allocator;
    }

    vkdml_mutex_lock(&queue->device->vk->queue_mutex);
    for (i = 0; i < count; ++i)
    {
        if (!check_list_not_in_flight(lists, i))
            break;
    }
    if (i == count)
    {
        /* Behind a blocked Wait, the lists take their turn on the CPU. */
        if (queue->deferred_head)
            hr = queue_defer_execute_locked(queue, buffers, allocators, count, &submission);
        else if (SUCCEEDED(hr = queue_submit_execute_locked(queue, submission = queue_next_submission(queue),
                buffers, allocators, count, stale, &stale_count)))
            atomic_store(&queue->submission_count, submission);
    }
    /* Lists record their execution when it is accepted: a list may not execute again before it
     * completed, so a pending record is never replaced and VkQueue order does not matter. */
    for (i = 0; SUCCEEDED(hr) && i < count; ++i)
        record_submission(&lists[i]->last_queue, &lists[i]->last_submission, queue, submission, stale, &stale_count);
    vkdml_mutex_unlock(&queue->device->vk->queue_mutex);

    for (i = 0; i < stale_count; ++i)
        d3d12_command_queue_internal_release(stale[i]);
done:
    if (lists != list_stack)
        free(lists);
    if (buffers != buffer_stack)
        free(buffers);
    if (allocators != allocator_stack)
        free(allocators);
    if (stale != stale_stack)
        free(stale);
}

static void STDMETHODCALLTYPE d3d12_command_queue_SetMarker(ID3D12CommandQueue *iface, UINT metadata,
        const void *data, UINT size)
{
    TRACE("iface %p, metadata %#x, data %p, size %u: ignored.", iface, metadata, data, size);
}

static void STDMETHODCALLTYPE d3d12_command_queue_BeginEvent(ID3D12CommandQueue *iface, UINT metadata,
        const void *data, UINT size)
{
    TRACE("iface %p, metadata %#x, data %p, size %u: ignored.", iface, metadata, data, size);
}

static void STDMETHODCALLTYPE d3d12_command_queue_EndEvent(ID3D12CommandQueue *iface)
{
    TRACE("iface %p: ignored.", iface);
}

/* The fence argument of Signal and Wait; logs as `method`. */
static struct d3d12_fence *queue_fence_arg(struct d3d12_command_queue *queue, ID3D12Fence *iface, const char *method)
{
    struct d3d12_fence *fence;

    if (!(fence = unsafe_impl_from_ID3D12Fence(iface)))
        ERR("%s: pFence %p is not a vkdml fence.", method, iface);
    else if (fence->device != queue->device)
        ERR("%s: pFence %p belongs to another device.", method, iface);
    else
        return fence;
    return NULL;
}

/* Submits a queue Signal on a queue that holds nothing back, then whatever the new value unblocks
 * (returned in *unblocked). Caller holds the queue mutex. */
static HRESULT queue_signal_now_locked(struct d3d12_command_queue *queue, struct d3d12_fence *fence,
        uint64_t value, struct d3d12_command_queue **stale, size_t *stale_count, struct d3d12_queue_op **unblocked)
{
    uint64_t submission = queue_next_submission(queue);
    HRESULT hr;

    if (FAILED(hr = queue_submit_signal_locked(queue, fence, value, submission, stale, stale_count)))
        return hr;
    atomic_store(&queue->submission_count, submission);
    *unblocked = d3d12_device_unblock_queues_locked(queue->device);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE d3d12_command_queue_Signal(ID3D12CommandQueue *iface, ID3D12Fence *fence_iface,
        UINT64 value)
{
    struct d3d12_command_queue *queue = impl_from_ID3D12CommandQueue(iface);
    struct d3d12_queue_op *unblocked = NULL;
    struct d3d12_command_queue *stale = NULL;
    struct d3d12_fence *fence;
    size_t stale_count = 0;
    uint64_t current = 0;
    HRESULT hr;

    TRACE("iface %p, fence %p, value %" PRIu64 ".", iface, fence_iface, (uint64_t)value);

    if (!(fence = queue_fence_arg(queue, fence_iface, "Signal")))
        return E_INVALIDARG;

    vkdml_mutex_lock(&queue->device->vk->queue_mutex);
    if (FAILED(hr = fence_current_value(fence, &current)))
        goto done;
    if (value < current)
    {
        ERR("Signal: Value %" PRIu64 " is lower than the fence's current or already signalled value %" PRIu64
                "; fence values must increase (timeline semaphore).", (uint64_t)value, current);
        hr = E_INVALIDARG;
    }
    else if (value > current && queue->deferred_head)
        hr = queue_defer_fence_op_locked(queue, QUEUE_OP_SIGNAL, fence, value, "Signal");
    else if (value > current)
        hr = queue_signal_now_locked(queue, fence, value, &stale, &stale_count, &unblocked);
    /* value == current: the fence has or will have that value after earlier work on the one
     * VkQueue, so signalling it again changes nothing observable. */
done:
    vkdml_mutex_unlock(&queue->device->vk->queue_mutex);
    if (stale_count)
        d3d12_command_queue_internal_release(stale);
    d3d12_queue_ops_free(unblocked);
    return hr;
}

static HRESULT STDMETHODCALLTYPE d3d12_command_queue_Wait(ID3D12CommandQueue *iface, ID3D12Fence *fence_iface,
        UINT64 value)
{
    struct d3d12_command_queue *queue = impl_from_ID3D12CommandQueue(iface);
    struct d3d12_command_queue *stale = NULL;
    struct d3d12_fence *fence;
    uint64_t completed = 0, submission;
    size_t stale_count = 0;
    HRESULT hr;

    TRACE("iface %p, fence %p, value %" PRIu64 ".", iface, fence_iface, (uint64_t)value);

    if (!(fence = queue_fence_arg(queue, fence_iface, "Wait")))
        return E_INVALIDARG;

    vkdml_mutex_lock(&queue->device->vk->queue_mutex);
    /* A reached value orders nothing, not even behind a blocked Wait. */
    if (FAILED(hr = timeline_value(queue->device, fence->timeline, &completed)) || value <= completed)
        goto done;
    /* Neither reached nor signalled by a batch in the VkQueue (only a later queue Signal or a CPU
     * Signal can set it): the Wait and what follows it on this queue are held back on the CPU. */
    if (queue->deferred_head || !fence_wait_ready(fence, value))
        hr = queue_defer_fence_op_locked(queue, QUEUE_OP_WAIT, fence, value, "Wait");
    else if (SUCCEEDED(hr = queue_submit_wait_locked(queue, fence, value, submission = queue_next_submission(queue),
            &stale, &stale_count)))
        atomic_store(&queue->submission_count, submission);
done:
    vkdml_mutex_unlock(&queue->device->vk->queue_mutex);
    if (stale_count)
        d3d12_command_queue_internal_release(stale);
    return hr;
}

static HRESULT STDMETHODCALLTYPE d3d12_command_queue_GetTimestampFrequency(ID3D12CommandQueue *iface,
        UINT64 *frequency)
{
    struct d3d12_command_queue *queue = impl_from_ID3D12CommandQueue(iface);
    float period = queue->device->vk->caps.properties.limits.timestampPeriod;

    TRACE("iface %p, frequency %p.", iface, frequency);

    if (!frequency)
    {
        ERR("GetTimestampFrequency: pFrequency is NULL.");
        return E_INVALIDARG;
    }
    if (!(period > 0.0f))
    {
        ERR("GetTimestampFrequency: the Vulkan device reports no timestamp period.");
        return E_FAIL;
    }
    /* timestampPeriod is in nanoseconds per tick. */
    *frequency = (UINT64)(1e9 / period);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE d3d12_command_queue_GetClockCalibration(ID3D12CommandQueue *iface,
        UINT64 *gpu_timestamp, UINT64 *cpu_timestamp)
{
    TRACE("iface %p, gpu_timestamp %p, cpu_timestamp %p.", iface, gpu_timestamp, cpu_timestamp);
    FIXME("GetClockCalibration is not implemented (needs VK_EXT_calibrated_timestamps).");
    return E_NOTIMPL;
}

#if VKDML_RETVAL_WIN32
static D3D12_COMMAND_QUEUE_DESC * STDMETHODCALLTYPE d3d12_command_queue_GetDesc(ID3D12CommandQueue *iface,
        D3D12_COMMAND_QUEUE_DESC *desc)
{
    struct d3d12_command_queue *queue = impl_from_ID3D12CommandQueue(iface);

    TRACE("iface %p, desc %p.", iface, desc);
    *desc = queue->desc;
    return desc;
}
#else
static D3D12_COMMAND_QUEUE_DESC STDMETHODCALLTYPE d3d12_command_queue_GetDesc(ID3D12CommandQueue *iface)
{
    struct d3d12_command_queue *queue = impl_from_ID3D12CommandQueue(iface);

    TRACE("iface %p.", iface);
    return queue->desc;
}
#endif

static const struct ID3D12CommandQueueVtbl d3d12_command_queue_vtbl =
{
    /* IUnknown */
    d3d12_command_queue_QueryInterface,
    d3d12_command_queue_AddRef,
    d3d12_command_queue_Release,
    /* ID3D12Object */
    d3d12_command_queue_GetPrivateData,
    d3d12_command_queue_SetPrivateData,
    d3d12_command_queue_SetPrivateDataInterface,
    d3d12_command_queue_SetName,
    /* ID3D12DeviceChild */
    d3d12_command_queue_GetDevice,
    /* ID3D12CommandQueue */
    d3d12_command_queue_UpdateTileMappings,
    d3d12_command_queue_CopyTileMappings,
    d3d12_command_queue_ExecuteCommandLists,
    d3d12_command_queue_SetMarker,
    d3d12_command_queue_BeginEvent,
    d3d12_command_queue_EndEvent,
    d3d12_command_queue_Signal,
    d3d12_command_queue_Wait,
    d3d12_command_queue_GetTimestampFrequency,
    d3d12_command_queue_GetClockCalibration,
    d3d12_command_queue_GetDesc,
};

struct d3d12_command_queue *unsafe_impl_from_ID3D12CommandQueue(ID3D12CommandQueue *iface)
{
    if (!iface || iface->lpVtbl != &d3d12_command_queue_vtbl)
        return NULL;
    return impl_from_ID3D12CommandQueue(iface);
}

static HRESULT check_queue_desc(const D3D12_COMMAND_QUEUE_DESC *desc)
{
    const D3D12_COMMAND_QUEUE_FLAGS known_flags = D3D12_COMMAND_QUEUE_FLAG_DISABLE_GPU_TIMEOUT;
    HRESULT hr;

    if (!desc)
    {
        ERR("CreateCommandQueue: pDesc is NULL.");
        return E_INVALIDARG;
    }
    if (desc->Type == D3D12_COMMAND_LIST_TYPE_BUNDLE)
    {
        ERR("CreateCommandQueue: Type BUNDLE: bundles are not executed by queues.");
        return E_INVALIDARG;
    }
    if (FAILED(hr = d3d12_check_list_type(desc->Type, "CreateCommandQueue")))
        return hr;
    if (desc->Priority != D3D12_COMMAND_QUEUE_PRIORITY_NORMAL && desc->Priority != D3D12_COMMAND_QUEUE_PRIORITY_HIGH
            && desc->Priority != D3D12_COMMAND_QUEUE_PRIORITY_GLOBAL_REALTIME)
    {
        ERR("CreateCommandQueue: Priority %d is not a D3D12_COMMAND_QUEUE_PRIORITY.", desc->Priority);
        return E_INVALIDARG;
    }
    if (desc->Flags & ~known_flags)
    {
        ERR("CreateCommandQueue: Flags %#x has unknown bits %#x.", (unsigned int)desc->Flags,
                (unsigned int)(desc->Flags & ~known_flags));
        return E_INVALIDARG;
    }
    if (desc->NodeMask > 1)
    {
        ERR("CreateCommandQueue: NodeMask %#x: the device has a single node (use 0 or 1).", desc->NodeMask);
        return E_INVALIDARG;
    }
    return S_OK;
}

HRESULT d3d12_command_queue_create(struct d3d12_device *device, const D3D12_COMMAND_QUEUE_DESC *desc,
        struct d3d12_command_queue **out)
{
    struct d3d12_command_queue *queue;
    VkResult vr;
    HRESULT hr;

    *out = NULL;
    if (FAILED(hr = check_queue_desc(desc)))
        return hr;
    if (desc->Priority != D3D12_COMMAND_QUEUE_PRIORITY_NORMAL)
        TRACE("Priority %d ignored: every D3D12 queue shares one VkQueue.", desc->Priority);

    if (!(queue = calloc(1, sizeof(*queue))))
        return E_OUTOFMEMORY;
    queue->ID3D12CommandQueue_iface.lpVtbl = &d3d12_command_queue_vtbl;
    atomic_init(&queue->refcount, 1);
    atomic_init(&queue->internal_refcount, 1);
    queue->desc = *desc;
    if (!queue->desc.NodeMask)
        queue->desc.NodeMask = 1;
    atomic_init(&queue->submission_count, 0);
    queue->deferred_tail = &queue->deferred_head;
    if ((vr = d3d12_device_create_timeline(device, 0, &queue->submission_timeline)) < 0)
    {
        hr = d3d12_device_check_vk_result(device, vr);
        free(queue);
        return hr;
    }
    vkdml_private_store_init(&queue->private_store);
    queue->device = device;
    d3d12_device_add_ref(device);

    TRACE("Created %s queue %p.", d3d12_debug_list_type(desc->Type), queue);
    *out = queue;
    return S_OK;
}

