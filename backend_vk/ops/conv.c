/*
 * The CONVOLUTION family (DML_OPERATOR_CONVOLUTION): DirectML's rules, and one dispatch of the
 * kernel that suits the shape (kernels_glsl/conv_*.comp, one per algorithm; conv_interface.h).
 *
 * DirectML's rules (DML_CONVOLUTION_OPERATOR_DESC, FL 4_0 tensor support): Input {N, C, [D], [H],
 * W}, Filter {FilterBatch, FilterChannels, [D], [H], W}, optional Bias {1, OutputChannels, 1, ..}
 * and Output {N, OutputChannels, ...}, all of one DimensionCount (3 to 5, DimensionCount of the
 * desc = that - 2) and one DataType (FLOAT32 or FLOAT16). Forward, the filter is {K, C / Groups,
 * ...}; backward (transposed, ONNX ConvTranspose's layout, which ONNX Runtime and WebNN pass to
 * DirectML unchanged), it is {C, K / Groups, ...}. Output sizes:
 *   forward   (In + StartPadding + EndPadding - Window) / Stride + 1 + OutputPadding
 *   backward  (In - 1) * Stride + Window - StartPadding - EndPadding + OutputPadding
 * with Window = (KernelSize - 1) * Dilation + 1. Backward, the OutputPadding positions are ordinary
 * outputs of the transposed convolution: inputs contribute wherever the kernel window reaches them
 * (it does where EndPadding cut the output short), as ONNX ConvTranspose's output_padding. Forward,
 * they take no input (they hold Bias, activated). ONNX Runtime and Chromium's WebNN size the
 * backward output themselves and pass OutputPadding 0, so a backward output may also be up to
 * max(Stride, Dilation) - 1 larger: those positions are computed like the others (the other
 * forward-convolution input sizes with the same output size).
 *
 * Kernels: FLOAT16 convolutions with at least 16 output channels per group and 16 reduction
 * values run on cooperative matrices where the device has them (conv_coopmat.comp, as
 * gemm_coopmat.comp), forward ones of one group with taps and channels enough (staging_pays) on
 * channels-last copies of the input and filter that conv_stage.comp makes in the temporary resource
 * first ("coopmat-nhwc"); otherwise a 1x1 convolution with unit strides and no padding is a plain
 * GEMM over channels and runs the GEMM service (gemm.c's kernel choice; batches = images x groups,
 * bias as C), except where few tiles and a long reduction (batch-1 inference) make the tiled
 * kernel split K (split_tiled_pays, before the GEMM service and the direct kernel); shapes whose
 * GEMM tiles would be mostly empty (few output channels per group such as depthwise, or tiny
 * reductions) or too few to fill the device run the direct kernel; large ones (128 tiles of 64 x
 * 64 outputs) the register-tiled implicit GEMM (CONV_TILED); the rest the implicit-GEMM kernel
 * with small thread tiles. VKDML_CONV_KERNEL=direct|implicit-gemm|tiled|gemm-1x1|coopmat|
 * coopmat-nhwc forces one (benchmarks; E_NOTIMPL where it cannot run the shape); VKDML_CONV_TUNE
 * overrides the tiling of the tiled kernel ("tile_m,tile_n[,tile_k[,split_k]]") or the
 * cooperative-matrix one ("tile_m,tile_n,subgroups_m,subgroups_n[,split_k]"); a tiling the kernel
 * cannot take is ignored. Both kernels can split K over several workgroups per tile when the tiles are too few
 * for the device: their fp32 partial sums go to the temporary resource, and a second dispatch
 * (CONV_SPLIT_REDUCE) adds them up before bias, activation and store.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_private.h"
#include "conv_interface.h"

_Static_assert(CONV_COOPMAT_SUBGROUP_SIZE == VKDML_COOPMAT_SUBGROUP_SIZE, "the coopmat kernels' subgroups");
_Static_assert(CONV_SPEC_ACTIVATION + VKDML_ACTIVATION_SPEC_COUNT == CONV_SPEC_COUNT,
        "the fused activation's constants end the convolution kernels' list");

enum conv_tensor
{
    CONV_INPUT,
    CONV_FILTER,
    CONV_BIAS,
    CONV_OUTPUT,
    CONV_TENSOR_COUNT,
};

static const char *const tensor_names[CONV_TENSOR_COUNT] = {"InputTensor", "FilterTensor", "BiasTensor", "OutputTensor"};

/* The convolution as the kernels see it: 3 spatial dimensions ({D, H, W}; the ones DirectML
 * leaves out have size 1), tensors as {N, C, D, H, W} element strides. */
struct conv_shape
{
    bool backward, flip;
    uint32_t batch, in_channels, out_channels, groups;
    uint32_t in_sizes[3], out_sizes[3], kernel[3], extents[3];
    uint32_t strides[3], dilations[3], start_padding[3];
    uint32_t in_strides[5], out_strides[5], filter_strides[5];
    uint32_t bias_stride;
};

/* Named by VKDML_CONV_KERNEL's values (vkdml_conv_kernel_names). */
enum conv_path
{
    CONV_PATH_GEMM_1X1 = VKDML_CONV_KERNEL_GEMM_1X1,    /* the GEMM service */
    CONV_PATH_DIRECT = VKDML_CONV_KERNEL_DIRECT,
    CONV_PATH_IMPLICIT_GEMM = VKDML_CONV_KERNEL_IMPLICIT_GEMM,
    CONV_PATH_COOPMAT = VKDML_CONV_KERNEL_COOPMAT,
    CONV_PATH_TILED = VKDML_CONV_KERNEL_TILED,
    CONV_PATH_COOPMAT_NHWC = VKDML_CONV_KERNEL_COOPMAT_NHWC,   /* CONV_COOPMAT on channels-last copies (CONV_STAGE) */
};

static const DML_BUFFER_TENSOR_DESC *conv_tensor(const struct vkdml_operator_view *op, enum conv_tensor which)
{
    return which == CONV_OUTPUT ? op->outputs[0] : op->inputs[which];
}

/* A tensor's sizes and strides as 5-D {N, C, D, H, W}: missing spatial dimensions are inserted
 * after C with size 1; NULL strides are packed. */
static void tensor_5d(const DML_BUFFER_TENSOR_DESC *tensor, uint32_t sizes[5], uint32_t strides[5])
{
    uint32_t rank = tensor->DimensionCount, missing = 5 - rank, i, d;

    for (i = 0; i < 5; ++i)
    {
        sizes[i] = 1;
        strides[i] = 0;
    }
    for (i = rank; i-- > 0;)
    {
        d = i < 2 ? i : i + missing;
        sizes[d] = tensor->Sizes[i];
        strides[d] = vkdml_tensor_stride(tensor, i);
    }
}

/* ---- Validation ---- */

/* DimensionCount = InputTensor.DimensionCount - 2 is the schema's rule, checked before the desc is copied
 * (api/tensor_desc.c). */
static HRESULT validate_ranks(const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *input = conv_tensor(op, CONV_INPUT), *t;
    unsigned int i;

    if (input->DimensionCount < 3 || input->DimensionCount > 5)
        return vkdml_op_error(op, E_INVALIDARG, "InputTensor.DimensionCount=%u must be 3 to 5.", input->DimensionCount);
    for (i = CONV_FILTER; i < CONV_TENSOR_COUNT; ++i)
    {
        if ((t = conv_tensor(op, i)) && t->DimensionCount != input->DimensionCount)
            return vkdml_op_error(op, E_INVALIDARG, "%s.DimensionCount=%u must equal InputTensor.DimensionCount=%u.",
                    tensor_names[i], t->DimensionCount, input->DimensionCount);
    }
    return S_OK;
}

static HRESULT validate_attributes(const struct vkdml_operator_view *op, const DML_CONVOLUTION_OPERATOR_DESC *desc)
{
    unsigned int i;

    if (!desc->GroupCount)
        return vkdml_op_error(op, E_INVALIDARG, "GroupCount=0 must be at least 1.");
    for (i = 0; i < desc->DimensionCount; ++i)
    {
        if (!desc->Strides[i])
            return vkdml_op_error(op, E_INVALIDARG, "Strides[%u]=0 must be at least 1.", i);
        if (!desc->Dilations[i])
            return vkdml_op_error(op, E_INVALIDARG, "Dilations[%u]=0 must be at least 1.", i);
    }
    return S_OK;
}

/* "OutputTensor.Sizes[1]=6 must equal FilterTensor.Sizes[0]=4 (output channels)." */
static HRESULT check_equal(const struct vkdml_operator_view *op, enum conv_tensor x, uint32_t x_dim,
        enum conv_tensor y, uint32_t y_dim, const char *what)
{
    uint32_t x_size = conv_tensor(op, x)->Sizes[x_dim], y_size = conv_tensor(op, y)->Sizes[y_dim];

    if (x_size == y_size)
        return S_OK;
    return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u must equal %s.Sizes[%u]=%u (%s).",
            tensor_names[x], x_dim, x_size, tensor_names[y], y_dim, y_size, what);
}

static HRESULT check_divisible(const struct vkdml_operator_view *op, enum conv_tensor x, uint32_t x_dim,
        uint32_t groups)
{
    uint32_t size = conv_tensor(op, x)->Sizes[x_dim];

    if (size % groups == 0)
        return S_OK;
    return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u must be a multiple of GroupCount=%u.",
            tensor_names[x], x_dim, size, groups);
}

/* Forward: Filter {K, C / G}; backward: Filter {C, K / G}. */
static HRESULT validate_channels(const struct vkdml_operator_view *op, const DML_CONVOLUTION_OPERATOR_DESC *desc)
{
    const DML_BUFFER_TENSOR_DESC *input = conv_tensor(op, CONV_INPUT), *filter = conv_tensor(op, CONV_FILTER);
    const DML_BUFFER_TENSOR_DESC *output = conv_tensor(op, CONV_OUTPUT);
    uint32_t groups = desc->GroupCount;
    HRESULT hr;

    if (FAILED(hr = check_equal(op, CONV_OUTPUT, 0, CONV_INPUT, 0, "batch")))
        return hr;
    if (FAILED(hr = check_divisible(op, CONV_INPUT, 1, groups)))
        return hr;
    if (desc->Direction == DML_CONVOLUTION_DIRECTION_FORWARD)
    {
        if (FAILED(hr = check_divisible(op, CONV_OUTPUT, 1, groups)))
            return hr;
        if (filter->Sizes[1] != input->Sizes[1] / groups)
            return vkdml_op_error(op, E_INVALIDARG, "FilterTensor.Sizes[1]=%u must equal InputTensor.Sizes[1]=%u "
                    "/ GroupCount=%u (input channels per group).", filter->Sizes[1], input->Sizes[1], groups);
        return check_equal(op, CONV_FILTER, 0, CONV_OUTPUT, 1, "output channels");
    }
    if (FAILED(hr = check_equal(op, CONV_FILTER, 0, CONV_INPUT, 1, "input channels of a backward convolution")))
        return hr;
    if ((uint64_t)filter->Sizes[1] * groups != output->Sizes[1])
        return vkdml_op_error(op, E_INVALIDARG, "OutputTensor.Sizes[1]=%u must equal FilterTensor.Sizes[1]=%u "
                "* GroupCount=%u (output channels of a backward convolution).", output->Sizes[1], filter->Sizes[1],
                groups);
    return S_OK;
}

/* Spatial dimension `i` (0-based among DimensionCount) of a forward convolution. */
static HRESULT validate_forward_size(const struct vkdml_operator_view *op, const DML_CONVOLUTION_OPERATOR_DESC *desc,
        unsigned int i)
{
    unsigned int d = i + 2;
    uint64_t in = conv_tensor(op, CONV_INPUT)->Sizes[d], k = conv_tensor(op, CONV_FILTER)->Sizes[d];
    uint64_t out = conv_tensor(op, CONV_OUTPUT)->Sizes[d], window = (k - 1) * desc->Dilations[i] + 1;
    uint64_t padded = in + desc->StartPadding[i] + desc->EndPadding[i], expected;

    if (padded < window)
        return vkdml_op_error(op, E_INVALIDARG, "InputTensor.Sizes[%u]=%" PRIu64 " + StartPadding[%u]=%u + "
                "EndPadding[%u]=%u must be at least the dilated kernel (FilterTensor.Sizes[%u]=%" PRIu64 " - 1) * "
                "Dilations[%u]=%u + 1 = %" PRIu64 ".", d, in, i, desc->StartPadding[i], i, desc->EndPadding[i], d, k,
                i, desc->Dilations[i], window);
    expected = (padded - window) / desc->Strides[i] + 1 + desc->OutputPadding[i];
    if (out == expected)
        return S_OK;
    return vkdml_op_error(op, E_INVALIDARG, "OutputTensor.Sizes[%u]=%" PRIu64 " must equal (InputTensor.Sizes[%u]=%"
            PRIu64 " + StartPadding[%u]=%u + EndPadding[%u]=%u - %" PRIu64 " (dilated kernel)) / Strides[%u]=%u + 1 "
            "+ OutputPadding[%u]=%u = %" PRIu64 ".", d, out, d, in, i, desc->StartPadding[i], i, desc->EndPadding[i],
            window, i, desc->Strides[i], i, desc->OutputPadding[i], expected);
}

/* Spatial dimension `i` of a backward convolution (see the top of the file for the slack). */
static HRESULT validate_backward_size(const struct vkdml_operator_view *op, const DML_CONVOLUTION_OPERATOR_DESC *desc,
        unsigned int i)
{
    unsigned int d = i + 2;
    uint64_t in = conv_tensor(op, CONV_INPUT)->Sizes[d], k = conv_tensor(op, CONV_FILTER)->Sizes[d];
    uint64_t out = conv_tensor(op, CONV_OUTPUT)->Sizes[d], window = (k - 1) * desc->Dilations[i] + 1;
    uint64_t full = (in - 1) * desc->Strides[i] + window, padding = (uint64_t)desc->StartPadding[i] + desc->EndPadding[i];
    uint64_t expected, slack = VKDML_MAX(desc->Strides[i], desc->Dilations[i]) - 1;

    if (full <= padding)
        return vkdml_op_error(op, E_INVALIDARG, "StartPadding[%u]=%u + EndPadding[%u]=%u must be less than "
                "(InputTensor.Sizes[%u]=%" PRIu64 " - 1) * Strides[%u]=%u + %" PRIu64 " (dilated kernel).",
                i, desc->StartPadding[i], i, desc->EndPadding[i], d, in, i, desc->Strides[i], window);
    expected = full - padding + desc->OutputPadding[i];
    if (out >= expected && out <= expected + slack)
        return S_OK;
    return vkdml_op_error(op, E_INVALIDARG, "OutputTensor.Sizes[%u]=%" PRIu64 " must equal (InputTensor.Sizes[%u]=%"
            PRIu64 " - 1) * Strides[%u]=%u + %" PRIu64 " (dilated kernel) - StartPadding[%u]=%u - EndPadding[%u]=%u "
            "+ OutputPadding[%u]=%u = %" PRIu64 " (or exceed it by less than max(Strides, Dilations)).", d, out, d, in,
            i, desc->Strides[i], window, i, desc->StartPadding[i], i, desc->EndPadding[i], i, desc->OutputPadding[i],
            expected);
}

static HRESULT validate_spatial(const struct vkdml_operator_view *op, const DML_CONVOLUTION_OPERATOR_DESC *desc)
{
    HRESULT hr;
    unsigned int i;

    for (i = 0; i < desc->DimensionCount; ++i)
    {
        hr = desc->Direction == DML_CONVOLUTION_DIRECTION_FORWARD ? validate_forward_size(op, desc, i)
                : validate_backward_size(op, desc, i);
        if (FAILED(hr))
            return hr;
    }
    return S_OK;
}

static HRESULT validate_bias(const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *bias = conv_tensor(op, CONV_BIAS);
    unsigned int i;

    if (!bias)
        return S_OK;
    for (i = 0; i < bias->DimensionCount; ++i)
    {
        if (i == 1)
        {
            HRESULT hr = check_equal(op, CONV_BIAS, 1, CONV_OUTPUT, 1, "one bias per output channel");

            if (FAILED(hr))
                return hr;
        }
        else if (bias->Sizes[i] != 1)
        {
            return vkdml_op_error(op, E_INVALIDARG, "BiasTensor.Sizes[%u]=%u must be 1 (BiasTensor is {1, "
                    "OutputChannelCount, 1, ...}).", i, bias->Sizes[i]);
        }
    }
    return S_OK;
}

/* The kernels index elements and spatial coordinates with 32-bit signed arithmetic. */
static HRESULT validate_index_range(const struct vkdml_operator_view *op, const DML_CONVOLUTION_OPERATOR_DESC *desc)
{
    const DML_BUFFER_TENSOR_DESC *t;
    unsigned int i, d;
    uint64_t reach;
    HRESULT hr;

    for (i = 0; i < CONV_TENSOR_COUNT; ++i)
    {
        if ((t = conv_tensor(op, i)) && FAILED(hr = vkdml_check_index_range(op, t, tensor_names[i])))
            return hr;
    }
    for (i = 0; i < desc->DimensionCount; ++i)
    {
        d = i + 2;
        reach = (uint64_t)conv_tensor(op, CONV_OUTPUT)->Sizes[d] * desc->Strides[i] + desc->StartPadding[i]
                + (uint64_t)conv_tensor(op, CONV_FILTER)->Sizes[d] * desc->Dilations[i];
        if (reach > INT32_MAX)
            return vkdml_op_error(op, E_NOTIMPL, "spatial dimension %u reaches coordinate %" PRIu64
                    "; at most 2^31 are implemented.", i, reach);
    }
    return S_OK;
}

HRESULT vkdml_conv_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    const DML_CONVOLUTION_OPERATOR_DESC *desc = op->desc;
    HRESULT hr;

    if (FAILED(hr = validate_ranks(op)))
        return hr;
    if (FAILED(hr = validate_attributes(op, desc)))
        return hr;
    if (FAILED(hr = validate_channels(op, desc)))
        return hr;
    if (FAILED(hr = validate_spatial(op, desc)))
        return hr;
    if (FAILED(hr = validate_bias(op)))
        return hr;
    if (FAILED(hr = vkdml_validate_fused_activation(op, desc->FusedActivation)))
        return hr;
    return validate_index_range(op, desc);
}

/* ---- Compilation ---- */

static void conv_shape_init(struct conv_shape *shape, const struct vkdml_operator_view *op)
{
    const DML_CONVOLUTION_OPERATOR_DESC *desc = op->desc;
    uint32_t in_sizes[5], out_sizes[5], filter_sizes[5], bias_sizes[5], bias_strides[5];
    uint32_t missing = 3 - desc->DimensionCount, i, d;

    memset(shape, 0, sizeof(*shape));
    shape->backward = desc->Direction == DML_CONVOLUTION_DIRECTION_BACKWARD;
    shape->flip = desc->Mode == DML_CONVOLUTION_MODE_CONVOLUTION;
    shape->groups = desc->GroupCount;
    tensor_5d(conv_tensor(op, CONV_INPUT), in_sizes, shape->in_strides);
    tensor_5d(conv_tensor(op, CONV_OUTPUT), out_sizes, shape->out_strides);
    tensor_5d(conv_tensor(op, CONV_FILTER), filter_sizes, shape->filter_strides);
    shape->batch = in_sizes[0];
    shape->in_channels = in_sizes[1];
    shape->out_channels = out_sizes[1];
    for (i = 0; i < 3; ++i)
    {
        shape->in_sizes[i] = in_sizes[i + 2];
        shape->out_sizes[i] = out_sizes[i + 2];
        shape->kernel[i] = filter_sizes[i + 2];
        shape->extents[i] = out_sizes[i + 2];
        shape->strides[i] = shape->dilations[i] = 1;
    }
    /* The desc's arrays cover the last DimensionCount of the three. */
    for (i = 0; i < desc->DimensionCount; ++i)
    {
        d = i + missing;
        shape->strides[d] = desc->Strides[i];
        shape->dilations[d] = desc->Dilations[i];
        shape->start_padding[d] = desc->StartPadding[i];
        if (!shape->backward)
            shape->extents[d] -= desc->OutputPadding[i];
    }
    if (conv_tensor(op, CONV_BIAS))
    {
        tensor_5d(conv_tensor(op, CONV_BIAS), bias_sizes, bias_strides);
        shape->bias_stride = bias_strides[1];
    }
}

static uint32_t product3(const uint32_t v[3])
{
    return v[0] * v[1] * v[2];
}

/* The element stride of the spatial dimensions read as one dimension (0 when they are broadcast);
 * false when they do not line up. */
static bool flat_spatial_stride(const uint32_t sizes[3], const uint32_t strides[5], uint32_t *stride)
{
    uint32_t span = 1;
    bool found = false;
    int i;

    *stride = 1;
    for (i = 2; i >= 0; --i)
    {
        if (sizes[i] == 1)
            continue;
        if (!found)
            *stride = strides[i + 2];
        else if (strides[i + 2] != *stride * span)
            return false;
        found = true;
        span *= sizes[i];
    }
    return true;
}

static bool is_gemm_1x1(const struct conv_shape *shape)
{
    uint32_t stride;
    unsigned int i;

    for (i = 0; i < 3; ++i)
    {
        if (shape->kernel[i] != 1 || shape->strides[i] != 1 || shape->start_padding[i]
                || shape->in_sizes[i] != shape->out_sizes[i] || shape->extents[i] != shape->out_sizes[i])
            return false;
    }
    return flat_spatial_stride(shape->in_sizes, shape->in_strides, &stride)
            && flat_spatial_stride(shape->out_sizes, shape->out_strides, &stride);
}

/* About one workgroup per compute unit of a large GPU (an H100 or H200 has 132). */
#define CONV_ENOUGH_GROUPS 128

static uint64_t gemm_tiles(uint64_t m, uint64_t n, uint32_t groups, uint32_t thread_m, uint32_t thread_n)
{
    uint64_t tile_m = CONV_THREADS_M * thread_m, tile_n = CONV_THREADS_N * thread_n;

    return (m + tile_m - 1) / tile_m * ((n + tile_n - 1) / tile_n) * groups;
}

/* ---- conv_tiled.comp ---- */

struct tiled_tiling
{
    uint32_t tile_m, tile_n, tile_k;    /* channels, positions, K per slab */
    uint32_t split_k;                   /* workgroups per tile, each summing a part of K */
};

static uint64_t tiled_tiles(const struct conv_shape *shape, const struct tiled_tiling *t)
{
    uint64_t m = shape->out_channels / shape->groups, n = (uint64_t)shape->batch * product3(shape->out_sizes);

    return (m + t->tile_m - 1) / t->tile_m * ((n + t->tile_n - 1) / t->tile_n) * shape->groups;
}

/* Two buffers of a K slab of each side, rows padded by 4 values. */
static uint32_t tiled_shared_size(const struct tiled_tiling *t)
{
    return 2 * t->tile_k * (t->tile_m + 4 + t->tile_n + 4) * sizeof(float);
}

static bool valid_tiled_side(uint32_t size)
{
    return size == CONV_TILED_BLOCK || size == 2 * CONV_TILED_BLOCK || size == 4 * CONV_TILED_BLOCK;
}

static bool valid_tiled_tiling(const struct vkdml_compile *compile, const struct tiled_tiling *t)
{
    return valid_tiled_side(t->tile_m) && valid_tiled_side(t->tile_n)
            && (t->tile_m / CONV_TILED_BLOCK) * (t->tile_n / CONV_TILED_BLOCK) <= CONV_TILED_MAX_BLOCKS
            && (t->tile_k == 8 || t->tile_k == CONV_TILED_MAX_TILE_K)
            && tiled_shared_size(t) <= compile->vk->caps.properties.limits.maxComputeSharedMemorySize;
}

static const struct tiled_tiling tiled_smallest = {CONV_TILED_BLOCK, CONV_TILED_BLOCK, 8, 1};

static const char *tiled_shared_missing(const struct vkdml_compile *compile)
{
    return valid_tiled_tiling(compile, &tiled_smallest) ? NULL : "the device has too little shared memory";
}

/* CONV_TILED pays with enough of its smallest tiles to give a large GPU a workgroup per unit. */
static bool tiled_pays(const struct vkdml_compile *compile, const struct conv_shape *shape)
{
    return !tiled_shared_missing(compile) && tiled_tiles(shape, &tiled_smallest) >= CONV_ENOUGH_GROUPS;
}

/* ---- Split-K (CONV_TILED, CONV_COOPMAT; split_k.c) ---- */

static uint64_t conv_outputs(const struct conv_shape *shape)
{
    return (uint64_t)shape->batch * shape->out_channels * product3(shape->out_sizes);
}

static bool valid_split_k(const struct conv_shape *shape, uint32_t split_k)
{
    return vkdml_split_k_valid(conv_outputs(shape), split_k);
}

/* Parts of K for `tiles` workgroup tiles of `tile_k` values a slab (vkdml_split_k_choose). */
static uint32_t choose_split_k(const struct conv_shape *shape, uint64_t tiles, uint32_t tile_k)
{
    uint32_t slabs = (shape->in_channels / shape->groups * product3(shape->kernel) + tile_k - 1) / tile_k;

    return vkdml_split_k_choose(tiles, slabs, conv_outputs(shape));
}

/* Batch-1 inference's few positions (ResNet-50's layers 2 to 4: 784 to 49 an image) make fewer
 * tiles than a large GPU has units, but their reductions are long: CONV_TILED's smallest tiles
 * with K split (choose_split_k) then fill the GPU where the direct kernel, the implicit GEMM and
 * the GEMM service (1x1) leave it idle. H200, FLOAT32 batch 1, us, before -> after (64x64x8 tiles:
 * tiles, parts): 3x3 C512 7x7 K512 93.3 -> 27.6 (8, 16), C256 14x14 K256 69.2 -> 24.7 (16, 16),
 * C128 28x28 K128 50.9 -> 24.1 (26, 8), C64 56x56 K64 34.9 -> 24.9 (49, 4), C256 7x7 K256 50.0 ->
 * 18.1 (4, 16); 1x1 C2048 7x7 K512 124.9 -> 16.9 (8, 16), C1024 14x14 K256 66.9 -> 17.0 (16, 8),
 * C512 7x7 K2048 35.4 -> 17.5 (32, 4), C256 56x56 K64 20.7 -> 17.4 (49, 2), C256 14x14 K1024
 * 20.9 -> 18.8 (64, 2). Not with more tiles than half the units, even split: C256 56x56 K128 1x1
 * (98 tiles, 2 parts) 21.0 -> 23.6, C256 56x56 K512 1x1 stride 2 (104, 2) 22.1 -> 24.5, C128
 * 28x28 K512 1x1 (104, unsplit) 13.3 -> 14.9. */
#define CONV_SPLIT_ENOUGH_GROUPS 64

static bool split_tiled_pays(const struct vkdml_compile *compile, const struct conv_shape *shape)
{
    uint64_t tiles = tiled_tiles(shape, &tiled_smallest);
    uint32_t split_k = choose_split_k(shape, tiles, tiled_smallest.tile_k);

    return !tiled_shared_missing(compile) && 2 * tiles <= CONV_ENOUGH_GROUPS && split_k > 1
            && tiles * split_k >= CONV_SPLIT_ENOUGH_GROUPS;
}

/* ---- CONV_TILED's tiling ---- */

/* VKDML_CONV_TUNE's numbers, as given, into the first `count` fields. */
static void tuning_fields(const struct vkdml_tuning_knob *knob, uint32_t *const *fields, unsigned int count)
{
    unsigned int i;

    for (i = 0; i < knob->count && i < count; ++i)
        *fields[i] = knob->values[i];
}

/* The first of these tilings whose tiles are at most an eighth padding and number at least half
 * a large GPU's units, K split (choose_split_k) if they are still too few;
 * VKDML_CONV_TUNE="tile_m,tile_n[,tile_k[,split_k]]" (channels and positions 64, 128 or 256, at
 * most 4 blocks of 64 x 64; K slabs of 8 or 16; 1 to 16 parts) overrides it. Measured on an H200,
 * ResNet-50 3x3 layers at batch 32 (TFLOP/s): C256 14x14 256x64x16 25.6 (98 tiles), 128x128x16
 * 23.9, 64x64x16 23.6, 128x64x8 19.6-21.4; C64 56x56 64x128x8 27.1, 64x128x16 19.7, 64x64x16
 * 21.9, 64x256 2.1 (whatever its slab; the register allocation falls over); the 7x7 stem
 * 64x128x8 23.2. More channels a tile is cheaper: the input gather costs more than the filter's
 * loads. */
static void choose_tiled_tiling(const struct vkdml_compile *compile, const struct conv_shape *shape,
        struct tiled_tiling *tiling)
{
    static const struct tiled_tiling candidates[] =
    {
        {256, 64, 16, 1}, {128, 128, 16, 1}, {64, 128, 8, 1}, {64, 64, 8, 1},
    };
    uint64_t m = shape->out_channels / shape->groups, n = (uint64_t)shape->batch * product3(shape->out_sizes);
    const struct vkdml_tuning_knob *knob = &compile->knobs->conv_tune;
    struct tiled_tiling requested = {0, 0, 8, 1};
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(candidates); ++i)
    {
        uint64_t tiles = tiled_tiles(shape, &candidates[i]), area = candidates[i].tile_m * candidates[i].tile_n;

        *tiling = candidates[i];
        if (2 * tiles >= CONV_ENOUGH_GROUPS && 8 * (tiles * area - m * n * shape->groups) <= tiles * area)
            break;
    }
    if (!valid_tiled_tiling(compile, tiling))
        tiling->tile_k = 8;
    tiling->split_k = choose_split_k(shape, tiled_tiles(shape, tiling), tiling->tile_k);
    if (!knob->count)
        return;
    tuning_fields(knob, (uint32_t *[]){&requested.tile_m, &requested.tile_n, &requested.tile_k, &requested.split_k}, 4);
    if (knob->count <= 4 && valid_tiled_tiling(compile, &requested) && valid_split_k(shape, requested.split_k))
        *tiling = requested;
    else
        WARN("Ignoring VKDML_CONV_TUNE=%s: want tile_m,tile_n[,tile_k[,split_k]] the tiled kernel can take.",
                knob->text);
}

/* NULL when conv_coopmat.comp can run the convolution, else why not. */
static const char *coopmat_unsuitable(const struct vkdml_compile *compile, const struct conv_shape *shape)
{
    const char *why_not;

    if (conv_tensor(compile->op, CONV_INPUT)->DataType != DML_TENSOR_DATA_TYPE_FLOAT16)
        return "it is a FLOAT16 kernel";
    if ((why_not = vkdml_caps_coopmat_f16_missing(&compile->vk->caps)))
        return why_not;
    if (shape->out_channels / shape->groups < CONV_COOPMAT_MATRIX
            || shape->in_channels / shape->groups * product3(shape->kernel) < CONV_COOPMAT_MATRIX)
        return "it needs 16 output channels per group and 16 reduction values";
    return NULL;
}

/* The channels-last copies' geometry (conv_interface.h): C' and the padded span the windows read. */
struct staging
{
    uint32_t channels, sizes[3];
    uint64_t input_bytes, filter_bytes;
};

/* Each copy is at most this large: the kernels index them by 32-bit element counts. */
#define CONV_STAGED_MAX_BYTES (1ull << 30)

static void staging_init(const struct conv_shape *shape, struct staging *staging)
{
    unsigned int i;

    staging->channels = (shape->in_channels + CONV_COOPMAT_TILE_K - 1) / CONV_COOPMAT_TILE_K * CONV_COOPMAT_TILE_K;
    /* Positions past the extents (a forward OutputPadding tail) read nothing. */
    for (i = 0; i < 3; ++i)
        staging->sizes[i] = shape->extents[i] ? (shape->extents[i] - 1) * shape->strides[i]
                + (shape->kernel[i] - 1) * shape->dilations[i] + 1 : 1;
    staging->input_bytes = (uint64_t)shape->batch * product3(staging->sizes) * staging->channels * 2;
    staging->filter_bytes = (uint64_t)shape->out_channels * product3(shape->kernel) * staging->channels * 2;
}

/* NULL when CONV_COOPMAT can run on channels-last copies, else why not. */
static const char *staging_unsuitable(const struct vkdml_compile *compile, const struct conv_shape *shape)
{
    struct staging staging;
    const char *why_not;

    if ((why_not = coopmat_unsuitable(compile, shape)))
        return why_not;
    if (shape->backward || shape->groups != 1)
        return "it takes forward convolutions of one group";
    staging_init(shape, &staging);
    if (staging.input_bytes > CONV_STAGED_MAX_BYTES || staging.filter_bytes > CONV_STAGED_MAX_BYTES)
        return "the copies would exceed 1 GiB";
    return NULL;
}

/* Measured on an H200 (fp16, batch 32, TFLOP/s, gathering against copies, vector stores where
 * the positions allow): 3x3 C64 56x56 64.8 / 100.7, C128 28x28 50.9 / 94.5, C256 14x14 52.3 /
 * 87.4 (batch 1 C64 56x56 before vector stores: 8.3 / 11.1); but 1x1 convolutions, whose every
 * input value is read once per tile anyway, C64 56x56 K256 40.1 / 45.6 and C256 K64 52.0 / 21.7
 * (the copy outweighs the arithmetic), and the 7x7 stem's 3 channels padded to 32 28.2 / 9.3.
 * So: taps to reuse the copy over, and at most a fifth of the copy's channels padding. */
static bool staging_pays(const struct conv_shape *shape)
{
    struct staging staging;

    staging_init(shape, &staging);
    return product3(shape->kernel) > 1 && staging.channels * 4 <= shape->in_channels * 5;
}

static enum conv_path choose_path(const struct vkdml_compile *compile, const struct conv_shape *shape)
{
    uint64_t gemm_m = (uint64_t)shape->batch * product3(shape->out_sizes);
    uint32_t gemm_n = shape->out_channels / shape->groups;
    uint32_t gemm_k = shape->in_channels / shape->groups * product3(shape->kernel);

    /* A 1x1 convolution is a GEMM, and the GEMM service's kernels beat the convolution's own
     * (H200, N32 56x56 FLOAT16: C64 K256 76.3 against 42.0 TFLOP/s on conv_coopmat.comp, C256 K64
     * 56.1 against 56.5; FLOAT32 C64 K256 28.3 against 22.2 on the implicit GEMM); but not with
     * few tiles and a long K, where the tiled kernel split wins (split_tiled_pays: 1x1 C2048 7x7
     * K512 124.9 against 16.9 us) unless cooperative matrices take it (the GEMM service's split). */
    if (is_gemm_1x1(shape) && !(coopmat_unsuitable(compile, shape) && split_tiled_pays(compile, shape)))
        return CONV_PATH_GEMM_1X1;
    if (!staging_unsuitable(compile, shape) && staging_pays(shape))
        return CONV_PATH_COOPMAT_NHWC;
    if (!coopmat_unsuitable(compile, shape))
        return CONV_PATH_COOPMAT;
    /* Tiles of at least 16 x 16 outputs and 16 reduction steps would be mostly padding. */
    if (gemm_n < 8 || gemm_k < 8)
        return CONV_PATH_DIRECT;
    if (split_tiled_pays(compile, shape))
        return CONV_PATH_TILED;
    /* Too few outputs to fill the device even with the smallest tiles, and K too short to
     * split (split_tiled_pays takes the others: N1 C256 7x7 K256 3x3, direct 50.0 -> 18.1 us):
     * the direct kernel's thread per output gives 4 times the workgroups. H200, direct against
     * implicit GEMM: N1 C256 7x7 K256 3x3 (64 tiles) 0.049 against 0.068 ms; N1 C64 56x56 K64 3x3
     * (784 tiles) 0.064 against 0.036 ms. Backward convolutions stay on the implicit GEMM whatever their
     * strides: it multiplies the zeros of the taps that meet no input, and still wins
     * (N8 C128 28x28 K64 3x3, strides 3x3: 0.68 against 0.49 ms). */
    if (gemm_tiles(gemm_m, gemm_n, shape->groups, 1, 1) < CONV_ENOUGH_GROUPS)
        return CONV_PATH_DIRECT;
    if (tiled_pays(compile, shape))
        return CONV_PATH_TILED;
    return CONV_PATH_IMPLICIT_GEMM;
}

/* The kernel for `shape`: choose_path()'s, or the one VKDML_CONV_KERNEL names (so that
 * benchmarks can compare the kernels on one shape). */
static HRESULT plan_path(const struct vkdml_compile *compile, const struct conv_shape *shape, enum conv_path *path)
{
    enum vkdml_conv_kernel_knob requested = compile->knobs->conv_kernel;
    const char *why_not;

    *path = choose_path(compile, shape);
    if (requested == VKDML_CONV_KERNEL_AUTO)
        return S_OK;
    if (requested == VKDML_CONV_KERNEL_GEMM_1X1 && !is_gemm_1x1(shape))
        return vkdml_op_error(compile->op, E_NOTIMPL, "VKDML_CONV_KERNEL=gemm-1x1 needs a 1x1 kernel, unit "
                "strides, no padding and positions that read as one dimension.");
    if (requested == VKDML_CONV_KERNEL_COOPMAT && (why_not = coopmat_unsuitable(compile, shape)))
        return vkdml_op_error(compile->op, E_NOTIMPL, "VKDML_CONV_KERNEL=coopmat: %s.", why_not);
    if (requested == VKDML_CONV_KERNEL_COOPMAT_NHWC && (why_not = staging_unsuitable(compile, shape)))
        return vkdml_op_error(compile->op, E_NOTIMPL, "VKDML_CONV_KERNEL=coopmat-nhwc: %s.", why_not);
    if (requested == VKDML_CONV_KERNEL_TILED && (why_not = tiled_shared_missing(compile)))
        return vkdml_op_error(compile->op, E_NOTIMPL, "VKDML_CONV_KERNEL=tiled: %s.", why_not);
    *path = (enum conv_path)requested;
    return S_OK;
}

static enum vkdml_kernel_id choose_kernel(const struct vkdml_compile *compile, enum conv_path path)
{
    static const enum vkdml_kernel_id kernels[][3] =
    {
        [CONV_PATH_DIRECT] = {VKDML_KERNEL_CONV_DIRECT_F32, VKDML_KERNEL_CONV_DIRECT_F16,
                VKDML_KERNEL_CONV_DIRECT_F16_HALF_COMPUTE},
        [CONV_PATH_IMPLICIT_GEMM] = {VKDML_KERNEL_CONV_GEMM_F32, VKDML_KERNEL_CONV_GEMM_F16,
                VKDML_KERNEL_CONV_GEMM_F16_HALF_COMPUTE},
        /* fp32 arithmetic: half precision is a permission. */
        [CONV_PATH_TILED] = {VKDML_KERNEL_CONV_TILED_F32, VKDML_KERNEL_CONV_TILED_F16, VKDML_KERNEL_CONV_TILED_F16},
    };

    if (conv_tensor(compile->op, CONV_INPUT)->DataType == DML_TENSOR_DATA_TYPE_FLOAT32)
        return kernels[path][0];
    return kernels[path][vkdml_half_compute(compile) ? 2 : 1];
}

/* ---- The 1x1 path: the GEMM service over {image, group} batches ---- */

/* Per batch {image, group}: Output{K, P} = Filter{K, C} x Input{C, P} + Bias{K, 1}, with K and C
 * the output and input channels of the group and P the positions; a backward filter is read
 * transposed. */
static HRESULT compile_gemm_1x1(struct vkdml_compile *compile, const struct conv_shape *shape)
{
    const DML_CONVOLUTION_OPERATOR_DESC *desc = compile->op->desc;
    uint32_t c_per_group = shape->in_channels / shape->groups, k_per_group = shape->out_channels / shape->groups;
    const uint32_t *fs = shape->filter_strides;
    struct vkdml_gemm_problem problem;
    uint32_t *a, *b, *out, *bias;

    memset(&problem, 0, sizeof(problem));
    problem.data_type = conv_tensor(compile->op, CONV_INPUT)->DataType;
    problem.m = k_per_group;
    problem.n = product3(shape->out_sizes);
    problem.k = c_per_group;
    problem.batches[0] = shape->batch;
    problem.batches[1] = shape->groups;
    a = problem.a.strides;
    a[1] = shape->backward ? c_per_group * fs[0] : k_per_group * fs[0];
    a[2] = shape->backward ? fs[1] : fs[0];
    a[3] = shape->backward ? fs[0] : fs[1];
    b = problem.b.strides;
    b[0] = shape->in_strides[0];
    b[1] = c_per_group * shape->in_strides[1];
    b[2] = shape->in_strides[1];
    flat_spatial_stride(shape->in_sizes, shape->in_strides, &b[3]);
    out = problem.output.strides;
    out[0] = shape->out_strides[0];
    out[1] = k_per_group * shape->out_strides[1];
    out[2] = shape->out_strides[1];
    flat_spatial_stride(shape->out_sizes, shape->out_strides, &out[3]);
    problem.a.location = compile->inputs[CONV_FILTER];
    problem.b.location = compile->inputs[CONV_INPUT];
    problem.output.location = compile->outputs[0];
    if ((problem.has_c = !!conv_tensor(compile->op, CONV_BIAS)))
    {
        bias = problem.c.strides;
        bias[1] = k_per_group * shape->bias_stride;
        bias[2] = shape->bias_stride;
        problem.c.location = compile->inputs[CONV_BIAS];
    }
    problem.alpha = problem.beta = 1.0f;
    problem.activation = desc->FusedActivation;
    TRACE("Convolution kernel: gemm-1x1, %u GEMMs of {%u,%u,%u}.", shape->batch * shape->groups, problem.m,
            problem.n, problem.k);
    return vkdml_gemm_add_dispatches(compile, &problem);
}

/* ---- conv_direct.comp, conv_implicit_gemm.comp ---- */

static void fill_conv_spec(const struct vkdml_compile *compile, const struct conv_shape *shape,
        uint32_t spec[CONV_SPEC_COUNT])
{
    const DML_CONVOLUTION_OPERATOR_DESC *desc = compile->op->desc;

    spec[CONV_SPEC_BATCH] = shape->batch;
    spec[CONV_SPEC_IN_CHANNELS] = shape->in_channels;
    memcpy(&spec[CONV_SPEC_IN_SIZES], shape->in_sizes, sizeof(shape->in_sizes));
    memcpy(&spec[CONV_SPEC_IN_STRIDES], shape->in_strides, sizeof(shape->in_strides));
    spec[CONV_SPEC_OUT_CHANNELS] = shape->out_channels;
    memcpy(&spec[CONV_SPEC_OUT_SIZES], shape->out_sizes, sizeof(shape->out_sizes));
    memcpy(&spec[CONV_SPEC_OUT_STRIDES], shape->out_strides, sizeof(shape->out_strides));
    memcpy(&spec[CONV_SPEC_FILTER_STRIDES], shape->filter_strides, sizeof(shape->filter_strides));
    memcpy(&spec[CONV_SPEC_KERNEL_SIZES], shape->kernel, sizeof(shape->kernel));
    memcpy(&spec[CONV_SPEC_STRIDES], shape->strides, sizeof(shape->strides));
    memcpy(&spec[CONV_SPEC_DILATIONS], shape->dilations, sizeof(shape->dilations));
    memcpy(&spec[CONV_SPEC_START_PADDING], shape->start_padding, sizeof(shape->start_padding));
    memcpy(&spec[CONV_SPEC_EXTENTS], shape->extents, sizeof(shape->extents));
    spec[CONV_SPEC_GROUPS] = shape->groups;
    spec[CONV_SPEC_BACKWARD] = shape->backward;
    spec[CONV_SPEC_FLIP] = shape->flip;
    spec[CONV_SPEC_HAS_BIAS] = !!conv_tensor(compile->op, CONV_BIAS);
    spec[CONV_SPEC_BIAS_STRIDE] = shape->bias_stride;
    vkdml_set_location(&spec[CONV_SPEC_IN_LOCATION], &compile->inputs[CONV_INPUT]);
    vkdml_set_location(&spec[CONV_SPEC_FILTER_LOCATION], &compile->inputs[CONV_FILTER]);
    if (spec[CONV_SPEC_HAS_BIAS])
        vkdml_set_location(&spec[CONV_SPEC_BIAS_LOCATION], &compile->inputs[CONV_BIAS]);
    vkdml_set_location(&spec[CONV_SPEC_OUT_LOCATION], &compile->outputs[0]);
    spec[CONV_SPEC_THREAD_M] = spec[CONV_SPEC_THREAD_N] = 1;
    vkdml_fused_activation_spec(desc->FusedActivation, &spec[CONV_SPEC_ACTIVATION]);
}

/* 1, 2 or 4 outputs per thread: enough to cover `size` with 16 threads, at most 4. */
static uint32_t thread_tile(uint64_t size)
{
    return size > 2 * CONV_THREADS_M ? 4 : size > CONV_THREADS_M ? 2 : 1;
}

/* Thread tiles for the implicit GEMM: as large as the matrix allows, smaller again while that
 * leaves fewer than a device's worth of workgroups (more, smaller tiles keep more units busy). */
static void choose_thread_tiles(const struct conv_shape *shape, uint32_t spec[CONV_SPEC_COUNT])
{
    uint64_t m = (uint64_t)shape->batch * product3(shape->out_sizes), n = shape->out_channels / shape->groups;
    uint32_t thread_m = thread_tile(m), thread_n = thread_tile(n);

    while (gemm_tiles(m, n, shape->groups, thread_m, thread_n) < CONV_ENOUGH_GROUPS && (thread_m > 1 || thread_n > 1))
    {
        if (thread_m >= thread_n)
            thread_m /= 2;
        else
            thread_n /= 2;
    }
    spec[CONV_SPEC_THREAD_M] = thread_m;
    spec[CONV_SPEC_THREAD_N] = thread_n;
}

static HRESULT compile_conv(struct vkdml_compile *compile, const struct conv_shape *shape, enum conv_path path)
{
    uint32_t spec[CONV_SPEC_COUNT] = {0}, groups[3];
    uint64_t count;
    HRESULT hr;

    fill_conv_spec(compile, shape, spec);
    if (path == CONV_PATH_IMPLICIT_GEMM)
    {
        choose_thread_tiles(shape, spec);
        count = gemm_tiles((uint64_t)shape->batch * product3(shape->out_sizes), shape->out_channels / shape->groups,
                shape->groups, spec[CONV_SPEC_THREAD_M], spec[CONV_SPEC_THREAD_N]);
    }
    else
    {
        count = ((uint64_t)shape->batch * shape->out_channels * product3(shape->out_sizes) + CONV_DIRECT_THREADS - 1)
                / CONV_DIRECT_THREADS;
    }
    if (FAILED(hr = vkdml_spread_groups(compile, count, groups)))
        return hr;
    TRACE("Convolution kernel: %s, %s, %" PRIu64 " workgroups of thread tiles %ux%u.",
            vkdml_conv_kernel_names[path], shape->backward ? "backward" : "forward", count,
            spec[CONV_SPEC_THREAD_M], spec[CONV_SPEC_THREAD_N]);
    return vkdml_compile_add_dispatch(compile, choose_kernel(compile, path), spec, CONV_SPEC_COUNT, NULL, 0,
            groups, false);
}

/* Split-K's partial sums come first in the operator's part of the temporary resource, after what
 * earlier dispatches keep there (a compiled graph's intermediates); the channels-last copies
 * follow them. */
static void set_partial_location(const struct vkdml_compile *compile, uint32_t *spec)
{
    struct vkdml_tensor_location partial = {compile->temporary_slot, VKDML_ALIGN_UP(compile->temporary_size, 256)};

    vkdml_set_location(&spec[CONV_SPEC_PARTIAL_LOCATION], &partial);
}

static uint64_t partial_offset(const uint32_t *spec)
{
    return spec[CONV_SPEC_PARTIAL_LOCATION + 1] | (uint64_t)spec[CONV_SPEC_PARTIAL_LOCATION + 2] << 32;
}

/* After a kernel that wrote `split_k` parts' sums: the temporary resource they need, and the
 * dispatch that adds them up (spec: the kernel's constants, CONV_SPEC_PARTIAL_LOCATION included). */
static HRESULT add_split_reduce(struct vkdml_compile *compile, const struct conv_shape *shape, const uint32_t *spec,
        uint32_t split_k)
{
    uint64_t count = (conv_outputs(shape) + CONV_DIRECT_THREADS - 1) / CONV_DIRECT_THREADS;
    bool fp32 = conv_tensor(compile->op, CONV_INPUT)->DataType == DML_TENSOR_DATA_TYPE_FLOAT32;
    uint32_t groups[3];
    HRESULT hr;

    if (split_k == 1)
        return S_OK;
    /* Channels-last copies may follow the partial sums. */
    compile->temporary_size = VKDML_MAX(compile->temporary_size,
            partial_offset(spec) + vkdml_split_k_partial_size(conv_outputs(shape), split_k));
    if (FAILED(hr = vkdml_spread_groups(compile, count, groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, fp32 ? VKDML_KERNEL_CONV_SPLIT_REDUCE_F32
            : VKDML_KERNEL_CONV_SPLIT_REDUCE_F16, spec, CONV_TILED_SPEC_COUNT, NULL, 0, groups, true);
}

/* The tiled or cooperative-matrix kernel over `tiles` tiles of `split_k` parts of K each (after
 * the dispatches before it with `barrier_before`), then split-K's reduction (`spec` gets the split
 * constants). */
static HRESULT add_tile_dispatches(struct vkdml_compile *compile, const struct conv_shape *shape,
        enum vkdml_kernel_id kernel, uint32_t *spec, uint32_t spec_count, uint64_t tiles, uint32_t split_k,
        bool barrier_before)
{
    uint32_t groups[3];
    HRESULT hr;

    spec[CONV_SPEC_SPLIT_K] = split_k;
    if (FAILED(hr = vkdml_spread_groups(compile, tiles * split_k, groups))
            || FAILED(hr = vkdml_compile_add_dispatch(compile, kernel, spec, spec_count, NULL, 0, groups,
            barrier_before)))
        return hr;
    return add_split_reduce(compile, shape, spec, split_k);
}

static HRESULT compile_tiled(struct vkdml_compile *compile, const struct conv_shape *shape)
{
    uint32_t spec[CONV_TILED_SPEC_COUNT] = {0};
    struct tiled_tiling tiling;
    uint64_t tiles;

    fill_conv_spec(compile, shape, spec);
    set_partial_location(compile, spec);
    choose_tiled_tiling(compile, shape, &tiling);
    spec[CONV_SPEC_TILE_M] = tiling.tile_m;
    spec[CONV_SPEC_TILE_N] = tiling.tile_n;
    spec[CONV_SPEC_TILE_K] = tiling.tile_k;
    tiles = tiled_tiles(shape, &tiling);
    TRACE("Convolution kernel: tiled, %s, %" PRIu64 " workgroups of %ux%u tiles, K slabs of %u in %u part(s).",
            shape->backward ? "backward" : "forward", tiles * tiling.split_k, tiling.tile_m, tiling.tile_n,
            tiling.tile_k, tiling.split_k);
    return add_tile_dispatches(compile, shape, choose_kernel(compile, CONV_PATH_TILED), spec, CONV_TILED_SPEC_COUNT,
            tiles, tiling.split_k, false);
}

/* ---- conv_coopmat.comp ---- */

struct coopmat_tiling
{
    uint32_t tile_m, tile_n, subgroups_m, subgroups_n;
    uint32_t split_k;                   /* workgroups per tile, each summing a part of K */
};

static bool valid_coopmat_tile(uint32_t size)
{
    return size == 64 || size == 128 || size == CONV_COOPMAT_MAX_TILE;
}

/* What the kernel can take (conv_interface.h): whole 16 x 16 matrices per subgroup, at most
 * CONV_COOPMAT_MAX_ACCUMULATORS, 4 to 8 subgroups whose threads split the input tile's rows
 * evenly. */
static bool valid_coopmat_tiling(const struct coopmat_tiling *t)
{
    uint32_t subgroups = t->subgroups_m * t->subgroups_n, threads = subgroups * CONV_COOPMAT_SUBGROUP_SIZE;
    uint32_t sub_m, sub_n;

    if (!valid_coopmat_tile(t->tile_m) || !valid_coopmat_tile(t->tile_n) || subgroups < 4 || subgroups > 8
            || !t->subgroups_m || !t->subgroups_n || t->tile_m % t->subgroups_m || t->tile_n % t->subgroups_n)
        return false;
    sub_m = t->tile_m / t->subgroups_m;
    sub_n = t->tile_n / t->subgroups_n;
    if (sub_m % CONV_COOPMAT_MATRIX || sub_n % CONV_COOPMAT_MATRIX
            || (sub_m / CONV_COOPMAT_MATRIX) * (sub_n / CONV_COOPMAT_MATRIX) > CONV_COOPMAT_MAX_ACCUMULATORS)
        return false;
    return (CONV_COOPMAT_TILE_K * t->tile_n / 8) % threads == 0 && threads % (t->tile_n / 8) == 0;
}

static uint64_t coopmat_tiles(const struct conv_shape *shape, const struct coopmat_tiling *t)
{
    uint64_t m = shape->out_channels / shape->groups, n = (uint64_t)shape->batch * product3(shape->out_sizes);

    return (m + t->tile_m - 1) / t->tile_m * ((n + t->tile_n - 1) / t->tile_n) * shape->groups;
}

/* 64 x 128 tiles where they give a large GPU a workgroup per unit, K whole; else 64 x 64, K split
 * by the tiled kernel's rule. Measured on an H200 (ResNet-50 3x3 layers, batch 32): 64 x 128 beat
 * 128 x 128, 128 x 64, 256 x 64 and 64 x 256 both with 64 channels at 56 x 56 (784 tiles) and
 * with 256 at 14 x 14 (196 tiles): the gather of the input is the cost, and taller tiles leave too
 * few workgroups. Splitting K loses there (C256 14x14, TFLOP/s: 1 part 47.8, 2 parts 38.4, 4 parts
 * 40.5; 64 x 64 in 2 parts 33.5) but wins at batch 1 (64 x 64 tiles, microseconds whole / split
 * as chosen: C256 14x14 50.4 / 25.3 in 4, C512 7x7 90.9 / 27.0 in 8, C128 28x28 27.7 / 24.3 in 2;
 * C64 56x56's 49 tiles stay whole, 18.1).
 * VKDML_CONV_TUNE="tile_m,tile_n,subgroups_m,subgroups_n[,split_k]" overrides it. */
static void choose_coopmat_tiling(const struct vkdml_compile *compile, const struct conv_shape *shape,
        struct coopmat_tiling *tiling)
{
    static const struct coopmat_tiling candidates[] =
    {
        {64, 128, 2, 4, 1},
        {64, 64, 2, 2, 1},
    };
    const struct vkdml_tuning_knob *knob = &compile->knobs->conv_tune;
    struct coopmat_tiling requested = {0, 0, 0, 0, 1};
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(candidates); ++i)
    {
        *tiling = candidates[i];
        if (coopmat_tiles(shape, tiling) >= CONV_ENOUGH_GROUPS)
            break;
    }
    if (coopmat_tiles(shape, tiling) < CONV_ENOUGH_GROUPS)
        tiling->split_k = choose_split_k(shape, coopmat_tiles(shape, tiling), CONV_COOPMAT_TILE_K);
    if (!knob->count)
        return;
    tuning_fields(knob, (uint32_t *[]){&requested.tile_m, &requested.tile_n, &requested.subgroups_m,
            &requested.subgroups_n, &requested.split_k}, 5);
    if (knob->count >= 4 && valid_coopmat_tiling(&requested) && valid_split_k(shape, requested.split_k))
        *tiling = requested;
    else
        WARN("Ignoring VKDML_CONV_TUNE=%s: want tile_m,tile_n,subgroups_m,subgroups_n[,split_k] the kernel can take.",
                knob->text);
}

/* Forward filters {channels, input channels, taps} packed, as 16-byte vectors along K. */
static bool filter_vectorizable(const struct vkdml_compile *compile, const struct conv_shape *shape)
{
    const uint32_t *fs = shape->filter_strides;
    uint32_t taps = product3(shape->kernel);

    return !shape->backward && !shape->flip && fs[4] == 1 && fs[3] == shape->kernel[2]
            && fs[2] == shape->kernel[1] * shape->kernel[2] && fs[1] == taps && fs[0] % 8 == 0
            && (shape->in_channels / shape->groups * taps) % 8 == 0 && compile->inputs[CONV_FILTER].offset % 16 == 0;
}

/* An OWNED_BY_DML filter is copied channels-last once, by the initializer, into the persistent
 * resource (vkdml_conv_initialize); any other filter at every execution. */
static bool filter_staged_once(const struct vkdml_compile *compile)
{
    return conv_tensor(compile->op, CONV_FILTER)->Flags & DML_TENSOR_FLAG_OWNED_BY_DML;
}

/* The channels-last copy of the input (filter false) or filter, `bytes` of it (spec: the
 * convolution's constants, staging ones included). */
static HRESULT add_stage_dispatch(struct vkdml_compile *compile, const uint32_t *spec, bool filter, uint64_t bytes)
{
    uint32_t stage_spec[CONV_STAGE_SPEC_COUNT], groups[3];
    HRESULT hr;

    memcpy(stage_spec, spec, CONV_COOPMAT_SPEC_COUNT * sizeof(*spec));
    stage_spec[CONV_SPEC_STAGE_FILTER] = filter;
    if (FAILED(hr = vkdml_spread_groups(compile, (bytes / 16 + CONV_STAGE_THREADS - 1) / CONV_STAGE_THREADS, groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, VKDML_KERNEL_CONV_STAGE_F16, stage_spec, CONV_STAGE_SPEC_COUNT, NULL, 0,
            groups, false);
}

/* The copies' constants: the input's after split-K's partial sums in the temporary resource, the
 * filter's after it or in the persistent resource (filter_staged_once). */
static void set_staging_spec(struct vkdml_compile *compile, const struct conv_shape *shape, uint32_t *spec,
        uint32_t split_k, struct staging *staging)
{
    struct vkdml_tensor_location input = {compile->temporary_slot}, filter = {compile->temporary_slot};

    staging_init(shape, staging);
    input.offset = VKDML_ALIGN_UP(partial_offset(spec) + vkdml_split_k_partial_size(conv_outputs(shape), split_k),
            256);
    compile->temporary_size = VKDML_MAX(compile->temporary_size, input.offset + staging->input_bytes);
    if (filter_staged_once(compile))
    {
        filter = vkdml_compile_reserve_persistent(compile, staging->filter_bytes);
    }
    else
    {
        filter.offset = VKDML_ALIGN_UP(compile->temporary_size, 256);
        compile->temporary_size = filter.offset + staging->filter_bytes;
    }
    spec[CONV_SPEC_STAGED] = 1;
    spec[CONV_SPEC_STAGED_CHANNELS] = staging->channels;
    memcpy(&spec[CONV_SPEC_STAGED_SIZES], staging->sizes, sizeof(staging->sizes));
    vkdml_set_location(&spec[CONV_SPEC_STAGED_IN_LOCATION], &input);
    vkdml_set_location(&spec[CONV_SPEC_STAGED_FILTER_LOCATION], &filter);
}

/* The copies the convolution reads, made before it (it waits for them). */
static HRESULT add_staging(struct vkdml_compile *compile, const struct conv_shape *shape, uint32_t *spec,
        uint32_t split_k)
{
    struct staging staging;
    HRESULT hr;

    set_staging_spec(compile, shape, spec, split_k, &staging);
    if (FAILED(hr = add_stage_dispatch(compile, spec, false, staging.input_bytes)))
        return hr;
    if (!filter_staged_once(compile) && FAILED(hr = add_stage_dispatch(compile, spec, true, staging.filter_bytes)))
        return hr;
    TRACE("Channels-last copies: %u channels, span %ux%ux%u, %" PRIu64 " + %" PRIu64 " bytes%s.", staging.channels,
            staging.sizes[0], staging.sizes[1], staging.sizes[2], staging.input_bytes, staging.filter_bytes,
            filter_staged_once(compile) ? ", the filter's made once by the initializer" : "");
    return S_OK;
}

/* Output positions packed (unit W stride, rows and planes back to back), a multiple of 8 per image,
 * channel and image strides multiples of 8, offset 16-byte aligned: conv_coopmat.comp's OUT_VECTOR. */
static bool output_vectorizable(const struct vkdml_compile *compile, const struct conv_shape *shape)
{
    const uint32_t *os = shape->out_strides;
    uint32_t stride;

    return flat_spatial_stride(shape->out_sizes, os, &stride) && stride == 1 && product3(shape->out_sizes) % 8 == 0
            && os[1] % 8 == 0 && (shape->batch == 1 || os[0] % 8 == 0) && compile->outputs[0].offset % 16 == 0;
}

static void fill_coopmat_spec(const struct vkdml_compile *compile, const struct conv_shape *shape, bool staged,
        uint32_t spec[CONV_COOPMAT_SPEC_COUNT], struct coopmat_tiling *tiling)
{
    fill_conv_spec(compile, shape, spec);
    set_partial_location(compile, spec);
    choose_coopmat_tiling(compile, shape, tiling);
    spec[CONV_SPEC_TILE_M] = tiling->tile_m;
    spec[CONV_SPEC_TILE_N] = tiling->tile_n;
    spec[CONV_SPEC_SUBGROUPS_M] = tiling->subgroups_m;
    spec[CONV_SPEC_SUBGROUPS_N] = tiling->subgroups_n;
    spec[CONV_SPEC_FILTER_VECTOR] = !staged && filter_vectorizable(compile, shape);
    spec[CONV_SPEC_OUT_VECTOR] = output_vectorizable(compile, shape);
    spec[CONV_SPEC_THREADS] = tiling->subgroups_m * tiling->subgroups_n * CONV_COOPMAT_SUBGROUP_SIZE;
}

static HRESULT compile_coopmat(struct vkdml_compile *compile, const struct conv_shape *shape, bool staged)
{
    uint32_t spec[CONV_COOPMAT_SPEC_COUNT] = {0};
    struct coopmat_tiling tiling;
    enum vkdml_kernel_id kernel;
    uint64_t tiles;
    HRESULT hr;

    fill_coopmat_spec(compile, shape, staged, spec, &tiling);
    if (staged && FAILED(hr = add_staging(compile, shape, spec, tiling.split_k)))
        return hr;
    tiles = coopmat_tiles(shape, &tiling);
    TRACE("Convolution kernel: %s, %s, %" PRIu64 " workgroups of %ux%u tiles in %u part(s) of K, filter %s, "
            "output %s.", vkdml_conv_kernel_names[staged ? CONV_PATH_COOPMAT_NHWC : CONV_PATH_COOPMAT],
            shape->backward ? "backward" : "forward", tiles * tiling.split_k, tiling.tile_m, tiling.tile_n,
            tiling.split_k, staged ? "copied" : spec[CONV_SPEC_FILTER_VECTOR] ? "in vectors" : "gathered",
            spec[CONV_SPEC_OUT_VECTOR] ? "in vectors" : "by elements");
    kernel = compile->vk->caps.coopmat_khr ? VKDML_KERNEL_CONV_COOPMAT_F16_KHR : VKDML_KERNEL_CONV_COOPMAT_F16;
    return add_tile_dispatches(compile, shape, kernel, spec, CONV_COOPMAT_SPEC_COUNT, tiles, tiling.split_k, staged);
}

HRESULT vkdml_conv_compile(struct vkdml_compile *compile)
{
    struct conv_shape shape;
    enum conv_path path;
    HRESULT hr;

    conv_shape_init(&shape, compile->op);
    if (FAILED(hr = plan_path(compile, &shape, &path)))
        return hr;
    if (path == CONV_PATH_GEMM_1X1)
        return compile_gemm_1x1(compile, &shape);
    if (path == CONV_PATH_COOPMAT || path == CONV_PATH_COOPMAT_NHWC)
        return compile_coopmat(compile, &shape, path == CONV_PATH_COOPMAT_NHWC);
    if (path == CONV_PATH_TILED)
        return compile_tiled(compile, &shape);
    return compile_conv(compile, &shape, path);
}

/* The initializer's part: the channels-last copy of an OWNED_BY_DML filter, into the persistent
 * space vkdml_conv_compile reserved (set_staging_spec reserves it again, at the same offset). */
HRESULT vkdml_conv_initialize(struct vkdml_compile *compile)
{
    uint32_t spec[CONV_COOPMAT_SPEC_COUNT] = {0};
    uint64_t temporary_size = compile->temporary_size;
    struct coopmat_tiling tiling;
    struct staging staging;
    struct conv_shape shape;
    enum conv_path path;
    HRESULT hr;

    conv_shape_init(&shape, compile->op);
    if (FAILED(hr = plan_path(compile, &shape, &path)))
        return hr;
    if (path != CONV_PATH_COOPMAT_NHWC || !filter_staged_once(compile))
        return S_OK;
    fill_coopmat_spec(compile, &shape, true, spec, &tiling);
    set_staging_spec(compile, &shape, spec, tiling.split_k, &staging);
    /* The input's copy is the executions': the initializer needs no temporary space for it. */
    compile->temporary_size = temporary_size;
    TRACE("Initializer: the filter's channels-last copy, %" PRIu64 " bytes.", staging.filter_bytes);
    return add_stage_dispatch(compile, spec, true, staging.filter_bytes);
}
