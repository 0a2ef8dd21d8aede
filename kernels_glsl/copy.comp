#version 460
#extension GL_GOOGLE_include_directive : require
/* Word copy between two descriptor slots (see copy_interface.h). Each workgroup row covers
 * COPY_WORKGROUP_SIZE * COPY_WORDS_PER_INVOCATION words; y extends the grid past 65535 rows. */
#include "common.glsl"
#include "dml_interface.h"
#include "copy_interface.h"

layout(local_size_x = COPY_WORKGROUP_SIZE) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint words[]; };

uvec2 add_offset(uvec2 address, uvec2 offset)
{
    uint carry;
    uint low = uaddCarry(address.x, offset.x, carry);

    return uvec2(low, address.y + offset.y + carry);
}

void main()
{
    uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint first = (row * COPY_WORKGROUP_SIZE + gl_LocalInvocationID.x) * COPY_WORDS_PER_INVOCATION;
    Words src = Words(push.src_slot == COPY_SOURCE_ADDRESS ? push.src_address
            : push.table.records[push.src_slot].address);
    Words dst = Words(add_offset(push.table.records[push.dst_slot].address, push.dst_offset));

    [[unroll]] for (uint i = 0; i < COPY_WORDS_PER_INVOCATION; ++i)
    {
        uint index = first + i;

        if (index < push.word_count)
            dst.words[index] = src.words[index];
    }
}
