/*
 * Workgroup-wide reductions and scans for the reduction families (REDUCE, ARGMIN/ARGMAX, the
 * softmax family, TOP_K, cumulative operators): subgroup operations inside a subgroup, shared
 * memory between subgroups. Needs the subgroup operations of caps->subgroup_reductions (basic,
 * arithmetic, ballot, shuffle). The order of operations is fixed by the workgroup's shape, so a
 * result is the same on every run (no atomics).
 *
 * VKDML_DEFINE_WORKGROUP_REDUCE(name, T, subgroup_op, combine, identity) defines
 *     T name(T value)
 * which every invocation of the workgroup must call (it has barriers); each gets the reduction
 * of all the workgroup's values. `combine(a, b)` is a function or macro of two T; `subgroup_op`
 * the matching subgroup reduction (subgroupAdd, subgroupMax, ...). The shared scratch has one
 * slot per invocation, so any subgroup size works.
 */
#ifndef VKDML_REDUCE_COMMON_GLSL
#define VKDML_REDUCE_COMMON_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require

#define VKDML_DEFINE_WORKGROUP_REDUCE(name, T, subgroup_op, combine, identity) \
    shared T name##_partials[gl_WorkGroupSize.x]; \
    T name(T value) \
    { \
        uint i; \
        value = subgroup_op(value); \
        if (subgroupElect()) \
            name##_partials[gl_SubgroupID] = value; \
        barrier(); \
        value = identity; \
        for (i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) \
            value = combine(value, name##_partials[i]); \
        value = subgroup_op(value); \
        barrier(); \
        return value; \
    }

#endif /* VKDML_REDUCE_COMMON_GLSL */
