#version 450
/*
 * vkdml-bench's bare Vulkan baseline: result[i] = a[i] + b[i] over vec4s, with the buffers' device
 * addresses straight in push constants (no descriptor table to read). Recorded as
 * vkCmdBindPipeline + vkCmdPushConstants + vkCmdDispatch, it is the least a Vulkan program can
 * do per dispatch (the small-dispatch chain's baseline), and on large buffers the most bandwidth
 * a plain Vulkan kernel gets (the bare-add-256MiB preset): vkdml's ELEMENT_WISE_ADD is measured
 * against both. Each invocation adds one vec4 per grid-sized stride, so a grid of at most 65535
 * workgroups (Vulkan's guaranteed limit) covers any size.
 */
#extension GL_EXT_buffer_reference : require

layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer Vec4s
{
    vec4 v[];
};

/* struct bare_push in bare.c */
layout(push_constant) uniform Push
{
    Vec4s a;
    Vec4s b;
    Vec4s result;
    uint count;             /* in vec4s */
} push;

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;

    for (uint i = gl_GlobalInvocationID.x; i < push.count; i += stride)
        push.result.v[i] = push.a.v[i] + push.b.v[i];
}
