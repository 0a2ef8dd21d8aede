/*
 * Index tensors (GATHER*, SCATTER*, ONE_HOT, REVERSE_SUBSEQUENCES' lengths): INT32, UINT32, INT64
 * and UINT64 elements read as 32-bit words, so 64-bit indices need no shaderInt64, and resolved
 * against an axis before any address is formed from them: buffers are reached through device
 * addresses, which have no bounds check (README, "Indices out of range"). Include after
 * tensor_io.glsl.
 */
#ifndef VKDML_INDICES_GLSL
#define VKDML_INDICES_GLSL

/* Element `index` of an index tensor of `type` as (low word, high word) of its 64-bit value:
 * signed 32-bit values sign-extended. */
uvec2 idx_load_words(uint type, uvec2 base, uint index)
{
    uint low;

    if (tio_element_size(type) == 8u)
        return TioPair(tio_element_address(base, index, 8u)).v;
    low = TioWord(tio_element_address(base, index, 4u)).v;
    return uvec2(low, type == TIO_TYPE_INT32 && int(low) < 0 ? ~0u : 0u);
}

/* An index's value `words` resolved against an axis of `size` elements: [0, size) as is and,
 * with `negative` (signed types only), [-size, 0) counting from the end. False when outside
 * both: the caller skips, clamps or zeroes as its operator's page says. */
bool idx_resolve_words(uint type, uvec2 words, uint size, bool negative, out uint resolved)
{
    uint carry;

    resolved = 0u;
    if (words.y == 0u && words.x < size)
    {
        resolved = words.x;
        return true;
    }
    if (!negative || !tio_is_signed(type) || words.y != ~0u)
        return false;
    /* value = words.x - 2^32, in [-size, 0) exactly when words.x + size carries out. */
    resolved = uaddCarry(words.x, size, carry);
    return carry != 0u;
}

bool idx_resolve(uint type, uvec2 base, uint index, uint size, bool negative, out uint resolved)
{
    return idx_resolve_words(type, idx_load_words(type, base, index), size, negative, resolved);
}

#endif /* VKDML_INDICES_GLSL */
