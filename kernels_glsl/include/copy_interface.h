/*
 * Interface of kernels_glsl/copy.comp: copies 32-bit words between two descriptor-table slots,
 * dst.address + dst_offset ← src.address (or src_address with src_slot COPY_SOURCE_ADDRESS: a
 * compiled graph's constant data). The initializer uses it to consume OWNED_BY_DML tensors and
 * constants into persistent resources.
 */
#ifndef VKDML_COPY_INTERFACE_H
#define VKDML_COPY_INTERFACE_H

#define COPY_WORKGROUP_SIZE 256
#define COPY_WORDS_PER_INVOCATION 4
#define COPY_SOURCE_ADDRESS 0xffffffffu

#ifdef VULKAN

layout(push_constant, std430) uniform CopyPush
{
    VkdmlDescriptorTable table;
    uint src_slot;
    uint dst_slot;
    uvec2 dst_offset;               /* bytes; 4-byte aligned */
    uint word_count;
    uint padding;
    uvec2 src_address;
} push;

#else

#include <stdint.h>

/* The kernel's constants after the 8-byte table address. */
struct vkdml_copy_push
{
    uint32_t src_slot;
    uint32_t dst_slot;
    uint64_t dst_offset;
    uint32_t word_count;
    uint32_t padding;
    uint64_t src_address;
};

#endif

#endif /* VKDML_COPY_INTERFACE_H */
