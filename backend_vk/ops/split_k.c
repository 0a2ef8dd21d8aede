/*
 * Split-K, shared by the families whose GEMM-like kernels can split their reduction over several
 * workgroups per output tile (conv.c, gemm.c): the bounds of a split and its default choice.
 */

#include "ops_private.h"

/* Each part keeps at least this many slabs of K: shorter parts spend more on their partial sums
 * than they gain. */
#define MIN_PART_SLABS 16
/* The kernels index the partial sums with 32-bit integers. */
#define MAX_PARTIAL (1ull << 30)
/* Three workgroups per compute unit of a large GPU (an H100 or H200 has 132). */
#define TARGET_GROUPS (3 * 128)

uint64_t vkdml_split_k_partial_size(uint64_t outputs, uint32_t split_k)
{
    return split_k > 1 ? split_k * outputs * sizeof(float) : 0;
}

bool vkdml_split_k_valid(uint64_t outputs, uint32_t split_k)
{
    return split_k >= 1 && split_k <= VKDML_MAX_SPLIT_K && vkdml_split_k_partial_size(outputs, split_k) <= MAX_PARTIAL;
}

/* More parts, doubling, until there are 3 workgroups per unit of a large GPU, each part keeping
 * at least MIN_PART_SLABS slabs. H200, convolution N32 C256 14x14 K256 3x3 on conv_tiled.comp's
 * kernel, 98 tiles of 256x64 (TFLOP/s): 1 part 25.8, 2 parts 21.8 (196 workgroups: a second,
 * mostly empty wave), 4 parts 27.0. */
uint32_t vkdml_split_k_choose(uint64_t tiles, uint64_t slabs, uint64_t outputs)
{
    uint32_t split_k = 1;

    while (tiles * split_k < TARGET_GROUPS && slabs / (2 * split_k) >= MIN_PART_SLABS
            && vkdml_split_k_valid(outputs, 2 * split_k))
        split_k *= 2;
    return split_k;
}
