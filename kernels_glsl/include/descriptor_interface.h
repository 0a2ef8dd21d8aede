/*
 * The software descriptor record (docs/design.md, "Descriptor model"): what a CBV_SRV_UAV descriptor
 * heap slot holds. Shared by C (the D3D12 shim and binding tables write records) and GLSL
 * (kernels read them at execution time through the heap's device address). 32 bytes, the
 * descriptor handle increment size.
 */
#ifndef VKDML_DESCRIPTOR_INTERFACE_H
#define VKDML_DESCRIPTOR_INTERFACE_H

#define VKDML_DESCRIPTOR_SIZE 32

#define VKDML_DESCRIPTOR_KIND_NONE 0        /* empty slot: kernels must not read it */
#define VKDML_DESCRIPTOR_KIND_UAV_BUFFER 1  /* CreateUnorderedAccessView on a buffer, or a DML binding */
#define VKDML_DESCRIPTOR_KIND_SRV_BUFFER 2  /* CreateShaderResourceView on a buffer */

#ifdef VULKAN

/* Addresses as uvec2 (GL_EXT_buffer_reference_uvec2), so kernels need no shaderInt64. */
struct VkdmlDescriptor
{
    uvec2 address;                  /* buffer device address of the first byte in view */
    uvec2 size;                     /* bytes in view */
    uint kind;
    uint stride;                    /* element stride in bytes; 0 for raw views */
    uvec2 reserved;
};

#else

#include <stdint.h>

struct vkdml_descriptor
{
    uint64_t address;
    uint64_t size;
    uint32_t kind;
    uint32_t stride;
    uint64_t resource;              /* CPU-side identity of the viewed resource (not read by kernels) */
};

_Static_assert(sizeof(struct vkdml_descriptor) == VKDML_DESCRIPTOR_SIZE, "descriptor record layout");

#endif

#endif /* VKDML_DESCRIPTOR_INTERFACE_H */
