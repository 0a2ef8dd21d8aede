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

/*
 * VKDML_DEFINE_SUBGROUP_COMBINE(name, T, combine) and VKDML_DEFINE_WORKGROUP_COMBINE(name, T,
 * combine) define
 *     T name(T value)
 * like VKDML_DEFINE_WORKGROUP_REDUCE, for a combine(a, b) that no subgroup operation has (an
 * arg-reduction of (value, index) pairs, a log-sum-exp of (max, sum) pairs, NaN-propagating
 * min / max ...), packed in a T that subgroupShuffleXor takes (a scalar or vector): a shuffle
 * butterfly inside the subgroup (every invocation of it must call, and the subgroup must be
 * full), then, for the workgroup form, the subgroups' results combined in subgroup order (every
 * invocation of the workgroup must call it). The elected invocation's sequence of combines is
 * fixed, so its result is the same on every run even for a combine that rounds.
 */
#define VKDML_DEFINE_SUBGROUP_COMBINE(name, T, combine) \
    T name(T value) \
    { \
        uint i; \
        for (i = 1u; i < gl_SubgroupSize; i <<= 1) \
            value = combine(value, subgroupShuffleXor(value, i)); \
        return value; \
    }

#define VKDML_DEFINE_WORKGROUP_COMBINE(name, T, combine) \
    VKDML_DEFINE_SUBGROUP_COMBINE(name##_subgroup, T, combine) \
    shared T name##_partials[gl_WorkGroupSize.x]; \
    T name(T value) \
    { \
        uint i; \
        value = name##_subgroup(value); \
        if (subgroupElect()) \
            name##_partials[gl_SubgroupID] = value; \
        barrier(); \
        value = name##_partials[0]; \
        for (i = 1u; i < gl_NumSubgroups; ++i) \
            value = combine(value, name##_partials[i]); \
        barrier(); \
        return value; \
    }

#endif /* VKDML_REDUCE_COMMON_GLSL */
