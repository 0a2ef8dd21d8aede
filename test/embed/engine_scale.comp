#version 450
/* The test engine's own compute work: values[i] *= scale, through a descriptor set (not buffer
 * device addresses), so the tests see that vkdml's dispatches leave the engine's sets bound. */
layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) buffer Data
{
    float values[];
};

layout(push_constant) uniform Push
{
    float scale;
    uint count;
};

void main()
{
    uint i = gl_GlobalInvocationID.x;

    if (i < count)
        values[i] *= scale;
}
