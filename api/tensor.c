/* Tensor arithmetic that does not depend on the backend. */

#include "vkdml_common.h"

/* Element sizes of DML_TENSOR_DATA_TYPE 1..13 (FLOAT32 .. INT4), in bits. */
unsigned int vkdml_data_type_bits(uint32_t data_type)
{
    static const unsigned char bits[] = {0, 32, 16, 32, 16, 8, 32, 16, 8, 64, 64, 64, 4, 4};

    return data_type < ARRAY_SIZE(bits) ? bits[data_type] : 0;
}

/* From the DirectML documentation (dml-helper-functions):
 *   IndexOfLastElement = sum_i (Sizes[i] - 1) * Strides[i]
 *   MinimumImpliedSizeInBytes = roundup((IndexOfLastElement + 1) * ElementSize, 4)
 * For 4-bit types the element count is taken in bits first, then rounded up to whole bytes. */
VKDML_API uint64_t vkdml_calc_buffer_tensor_size(uint32_t data_type, uint32_t dimension_count,
        const uint32_t *sizes, const uint32_t *strides)
{
    unsigned int bits = vkdml_data_type_bits(data_type);
    uint64_t element_count = 1;
    uint32_t i;

    if (!bits || !sizes)
        return 0;

    if (strides)
    {
        uint64_t last_index = 0;

        for (i = 0; i < dimension_count; ++i)
        {
            if (!sizes[i])
                return 0;
            last_index += (uint64_t)(sizes[i] - 1) * strides[i];
        }
        element_count = last_index + 1;
    }
    else
    {
        for (i = 0; i < dimension_count; ++i)
            element_count *= sizes[i];
        if (!element_count)
            return 0;
    }

    return VKDML_ALIGN_UP((element_count * bits + 7) / 8, 4);
}
