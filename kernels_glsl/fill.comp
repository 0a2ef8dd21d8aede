#version 460
#extension GL_GOOGLE_include_directive : require
/* Fills 32-bit words with an arithmetic sequence; the kernel that proves the build path,
 * also used to clear buffers. */
#include "common.glsl"
#include "fill_interface.h"

layout(local_size_x_id = FILL_SPEC_LOCAL_SIZE_X, local_size_x = 64) in;

void main()
{
    uint i = gl_GlobalInvocationID.x;

    if (i < push.count)
        push.dst.words[i] = push.value + i * push.step;
}
