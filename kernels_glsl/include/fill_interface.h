/*
 * Interface of kernels_glsl/fill.comp, shared by C and GLSL (glslang defines VULKAN):
 * dst[i] = value + i * step for i < count, on 32-bit words.
 */
#ifndef VKDML_FILL_INTERFACE_H
#define VKDML_FILL_INTERFACE_H

#define FILL_SPEC_LOCAL_SIZE_X 0    /* specialization constant: workgroup width */

#ifdef VULKAN

layout(buffer_reference, std430, buffer_reference_align = 4) buffer FillWords { uint words[]; };

layout(push_constant, std430) uniform FillPush
{
    FillWords dst;
    uint count;
    uint value;
    uint step;
} push;

#else

#include <stdint.h>

struct vkdml_fill_push
{
    uint64_t dst;                   /* buffer device address, 4-byte aligned */
    uint32_t count;
    uint32_t value;
    uint32_t step;
    uint32_t padding;
};

_Static_assert(sizeof(struct vkdml_fill_push) == 24, "push constant layout must match fill.comp");

#endif

#endif /* VKDML_FILL_INTERFACE_H */
