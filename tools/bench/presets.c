/*
 * vkdml-bench's named workloads (presets) and the groups that run several of them.
 */
#include "graph.h"

#include <string.h>

/* Group names: every preset in one of them runs under that name (also through --preset). */
const struct preset_group groups[] =
{
    {"gpu", GROUP_GPU}, {"memory", GROUP_MEMORY}, {"gemm", GROUP_GEMM}, {"conv", GROUP_CONV},
    {"smoke", GROUP_SMOKE}, {"movement", GROUP_MOVEMENT},
    {"pooling-norm", GROUP_POOLING_NORM}, {"graph", GROUP_GRAPH}, {"all", ~0u},
};
const size_t group_count = ARRAY_SIZE(groups);

#define GPU_MEM (GROUP_GPU | GROUP_MEMORY)
#define GPU_GEMM (GROUP_GPU | GROUP_GEMM)
#define GPU_CONV (GROUP_GPU | GROUP_CONV)
/* performance.md's rule for memory-bound operators other than element-wise ones: never slower than
 * PyTorch (target 1.0), and >= 0.85x of the run's copy bandwidth for the bytes they must move. */
#define MEMORY_RULE 1.0, 0.85
/* Anchors of the issue-18 operators: performance.md's times of the same workloads (H200, PyTorch
 * 2.11) as GB/s of the bytes vkdml-bench counts; where it has none, a like operator's bandwidth. */
#define SUM_LAST "PyTorch sum fp32 8192^2, last axis"
#define SUM_FIRST "PyTorch sum fp32 8192^2, first axis"
#define AS_SUM_LAST SUM_LAST ", as bandwidth"
#define AS_SUM_FIRST SUM_FIRST ", as bandwidth"
/* Issue 19's GPU presets: memory-bound, anchored by PyTorch in the same run (tools/run-gpu-bench.sh). */
#define MOVER(name, op, type, shape, mode) \
        {name, op, type, shape, false, GPU_MEM | GROUP_MOVEMENT, 0, NULL, MEMORY_RULE, mode}
/* Issue 20's GPU presets (pooling, normalization, resampling), likewise. */
#define POOLING_NORM(name, op, type, shape, mode) \
        {name, op, type, shape, false, GPU_MEM | GROUP_POOLING_NORM, 0, NULL, MEMORY_RULE, mode}
/* Issue 21's networks (graph.c): `anchor` is PyTorch eager's time in ms, `target` a speed ratio. */
#define GRAPH(name, op, type, shape, anchor_ms, source, target) \
        {name, op, type, shape, false, GROUP_GPU | GROUP_GRAPH, anchor_ms, source, target, 0, NULL}
#define RESNET50 "x224:3,4,6,3"
/* Smoke presets, for --check on lavapipe. */
#define SMOKE(name, op, type, shape, mode) {name, op, type, shape, false, GROUP_SMOKE, 0, NULL, 0, 0, mode}
#define INT8 DML_TENSOR_DATA_TYPE_INT8
#define INT32 DML_TENSOR_DATA_TYPE_INT32
/* performance.md measured PyTorch's element-wise operators in fp32 only: fp16 and broadcast cases
 * are held to the same bandwidth. IDENTITY (a copy) is held to RELU's, the same traffic. */
const struct preset presets[] =
{
    {"add-256MiB", "add", FP32, "67108864", false, GPU_MEM, 4294, "PyTorch add fp32 64Mi", 0.9},
    /* vkdml's ADD against a plain Vulkan kernel's, same bytes, same timing: what Vulkan itself allows. */
    {"bare-add-256MiB", BARE_ADD_OP, FP32, "67108864", false, GPU_MEM, 4294, "PyTorch add fp32 64Mi", 0.9},
    {"add-256MiB-fp16", "add", FP16, "134217728", false, GPU_MEM, 4294, "PyTorch add fp32 64Mi, as bandwidth", 0.9},
    {"add-broadcast-256MiB", "add", FP32, "8192x8192", true, GPU_MEM, 4294, "PyTorch add fp32 64Mi, as bandwidth",
            0.9},
    {"add-broadcast-256MiB-fp16", "add", FP16, "8192x16384", true, GPU_MEM, 4294,
            "PyTorch add fp32 64Mi, as bandwidth", 0.9},
    {"multiply-256MiB", "multiply", FP32, "67108864", false, GPU_MEM, 4294, "PyTorch add fp32 64Mi, as bandwidth", 0.9},
    {"relu-256MiB", "relu", FP32, "67108864", false, GPU_MEM, 4148, "PyTorch relu fp32 64Mi", 0.9},
    {"relu-256MiB-fp16", "relu", FP16, "134217728", false, GPU_MEM, 4148, "PyTorch relu fp32 64Mi, as bandwidth", 0.9},
    {"identity-256MiB", "identity", FP32, "67108864", false, GPU_MEM, 4148, "PyTorch relu fp32 64Mi, as bandwidth",
            0.9},
    {"identity-256MiB-fp16", "identity", FP16, "134217728", false, GPU_MEM, 4148,
            "PyTorch relu fp32 64Mi, as bandwidth", 0.9},
    /* 1 GiB per tensor: what fixed costs remain at 256 MiB. */
    {"add-1GiB", "add", FP32, "268435456", false, GPU_MEM, 4294, "PyTorch add fp32 64Mi, as bandwidth", 0.9},
    {"identity-1GiB", "identity", FP32, "268435456", false, GPU_MEM, 4148, "PyTorch relu fp32 64Mi, as bandwidth", 0.9},
    {"softmax-8192", "softmax1", FP32, "8192x8192", false, GPU_MEM, 1907, "PyTorch softmax fp32 8192^2", MEMORY_RULE},
    {"softmax-8192-fp16", "softmax1", FP16, "8192x8192", false, GPU_MEM, 1032, "PyTorch softmax fp16 8192^2",
            MEMORY_RULE},
    {"log-softmax-8192", "log-softmax1", FP32, "8192x8192", false, GPU_MEM, 2198, "PyTorch log_softmax fp32 8192^2",
            MEMORY_RULE},
    {"log-softmax-8192-fp16", "log-softmax1", FP16, "8192x8192", false, GPU_MEM, 1220,
            "PyTorch log_softmax fp16 8192^2", MEMORY_RULE},
    {"hardmax-8192", "hardmax1", FP32, "8192x8192", false, GPU_MEM, 1907, "PyTorch softmax fp32 8192^2, as bandwidth",
            MEMORY_RULE},
    {"hardmax-8192-fp16", "hardmax1", FP16, "8192x8192", false, GPU_MEM, 1032,
            "PyTorch softmax fp16 8192^2, as bandwidth", MEMORY_RULE},
    {"reduce-sum-8192", "reduce", FP32, "8192x8192", false, GPU_MEM, 3302, SUM_LAST, MEMORY_RULE, "sum"},
    {"reduce-sum-8192-first", "reduce", FP32, "8192x8192:first", false, GPU_MEM, 3638, SUM_FIRST, MEMORY_RULE, "sum"},
    {"reduce-sum-8192-fp16", "reduce", FP16, "8192x8192", false, GPU_MEM, 3302, AS_SUM_LAST, MEMORY_RULE, "sum"},
    {"reduce-sum-8192-first-fp16", "reduce", FP16, "8192x8192:first", false, GPU_MEM, 3638, AS_SUM_FIRST, MEMORY_RULE,
            "sum"},
    {"reduce-max-8192", "reduce", FP32, "8192x8192", false, GPU_MEM, 3302, AS_SUM_LAST, MEMORY_RULE, "max"},
    {"reduce-max-8192-first", "reduce", FP32, "8192x8192:first", false, GPU_MEM, 3638, AS_SUM_FIRST, MEMORY_RULE,
            "max"},
    {"reduce-average-8192", "reduce", FP32, "8192x8192", false, GPU_MEM, 3302, AS_SUM_LAST, MEMORY_RULE, "average"},
    {"reduce-average-8192-first", "reduce", FP32, "8192x8192:first", false, GPU_MEM, 3638, AS_SUM_FIRST, MEMORY_RULE,
            "average"},
    {"reduce-sum-square-8192", "reduce", FP32, "8192x8192", false, GPU_MEM, 3302, AS_SUM_LAST, MEMORY_RULE,
            "sum-square"},
    {"reduce-sum-square-8192-first", "reduce", FP32, "8192x8192:first", false, GPU_MEM, 3638, AS_SUM_FIRST,
            MEMORY_RULE, "sum-square"},
    {"argmax-8192", "argmax", FP32, "8192x8192", false, GPU_MEM, 2160, "PyTorch argmax fp32 8192^2, last axis",
            MEMORY_RULE},
    {"argmax-8192-first", "argmax", FP32, "8192x8192:first", false, GPU_MEM, 2160,
            "PyTorch argmax fp32 8192^2, last axis, as bandwidth", MEMORY_RULE},
    {"cumsum-8192", "cumulative-summation", FP32, "8192x8192", false, GPU_MEM, 1277,
            "PyTorch cumsum fp32 8192^2, last axis", MEMORY_RULE},
    {"top-k-8192-k8", "top-k", FP32, "8192x8192k8", false, GPU_MEM, 279, "PyTorch topk k=8 fp32 8192^2", MEMORY_RULE},
    {"top-k-8192-k64", "top-k", FP32, "8192x8192k64", false, GPU_MEM, 267, "PyTorch topk k=64 fp32 8192^2",
            MEMORY_RULE},
    {"gemm-4096-fp32", "gemm", FP32, "4096x4096x4096", false, GPU_GEMM, 51.4, "cuBLAS fp32 (TF32 off) 4096^3", 0.6},
    {"gemm-8192-fp32", "gemm", FP32, "8192x8192x8192", false, GPU_GEMM, 51.0, "cuBLAS fp32 (TF32 off) 8192^3", 0.6},
    {"gemm-4096-fp16", "gemm", FP16, "4096x4096x4096", false, GPU_GEMM, 748, "cuBLAS fp16 4096^3", 0.35},
    {"gemm-1024-fp16", "gemm", FP16, "1024x1024x1024", false, GPU_GEMM, 202, "cuBLAS fp16 1024^3", 0},
    {"gemm-64-fp32", "gemm", FP32, "64x64x64", false, GPU_GEMM | GROUP_SMOKE, 0, NULL, 0},
    /* Batch-1 inference (M = 1): bound by reading B once, so rated in GB/s, against add's bandwidth. */
    {"gemv-4096-fp32", "gemm", FP32, "1x4096x4096", false, GPU_GEMM, 0, NULL, 0},
    {"gemv-4096-fp16", "gemm", FP16, "1x4096x4096", false, GPU_GEMM, 0, NULL, 0},
    {"conv-resnet50", "convolution", FP32, "32x64x56x56x64x3x3", false, GPU_CONV, 30.7,
            "cuDNN fp32 N32 C64 56^2 K64 3x3", 0.5},
    {"conv-resnet50-c256", "convolution", FP32, "32x256x14x14x256x3x3", false, GPU_CONV, 42.1,
            "cuDNN fp32 N32 C256 14^2 K256 3x3", 0.5},
    {"conv-resnet50-1x1", "convolution", FP32, "32x64x56x56x256x1x1", false, GPU_CONV, 26.3,
            "cuDNN fp32 N32 C64 56^2 K256 1x1", 0.5},
    {"conv-resnet50-stem", "convolution", FP32, "32x3x224x224x64x7x7x2x3", false, GPU_CONV, 20.3,
            "cuDNN fp32 N32 C3 224^2 K64 7x7 s2", 0.5},
    {"conv-resnet50-fp16", "convolution", FP16, "32x64x56x56x64x3x3", false, GPU_CONV, 139,
            "cuDNN fp16 N32 C64 56^2 K64 3x3", 0.3},
    {"conv-resnet50-c256-fp16", "convolution", FP16, "32x256x14x14x256x3x3", false, GPU_CONV, 215,
            "cuDNN fp16 N32 C256 14^2 K256 3x3", 0.3},
    /* Issue 19: JOIN of 4 x 64 MiB along the outer and the inner axis, SPLIT back, SLICE of columns
     * 1024:5120 of 8192^2, PADDING by 1 and TILE 2x2 of ResNet-sized tensors, CAST of 64 Mi elements,
     * GATHER of 32768 rows of a 65536x1024 fp16 table, and IDENTITY reading NCHW as NHWC (a transpose). */
    MOVER("join-4x64MiB", "join", FP32, "4096x4096k4:0", NULL),
    MOVER("join-4x64MiB-inner", "join", FP32, "4096x4096k4:1", NULL),
    MOVER("split-4x64MiB", "split", FP32, "16384x4096k4:0", NULL),
    MOVER("split-4x64MiB-inner", "split", FP32, "4096x16384k4:1", NULL),
    MOVER("slice-cols-8192", "slice", FP32, "8192x8192", NULL),
    MOVER("padding-1-resnet", "padding", FP32, "32x64x112x112:2,3", NULL),
    MOVER("padding-1-resnet-reflection", "padding", FP32, "32x64x112x112:2,3", "reflection"),
    MOVER("tile-2x2-resnet", "tile", FP32, "32x64x56x56k2:2,3", NULL),
    MOVER("cast-f32-f16-64Mi", "cast", FP32, "67108864@fp16", NULL),
    MOVER("cast-f16-f32-64Mi", "cast", FP16, "67108864@fp32", NULL),
    MOVER("gather-rows-fp16", "gather", FP16, "65536x1024k32768:0", NULL),
    MOVER("gather-rows-fp16-int64", "gather", FP16, "65536x1024k32768@int64:0", NULL),
    MOVER("transpose-nchw-nhwc", "identity", FP32, "32x256x56x56:0,2,3,1", NULL),
    MOVER("transpose-nchw-nhwc-fp16", "identity", FP16, "32x256x56x56:0,2,3,1", NULL),
    {"small-dispatch", DISPATCH_OP, FP32, "1024", false, GROUP_GPU | GROUP_SMOKE, 0, NULL, 0},
    /* Odd sizes, every family and layout: correctness under --check, not speed. */
    {"add-smoke", "add", FP32, "3x5x67", false, GROUP_SMOKE, 0, NULL, 0},
    {"add-smoke-fp16", "add", FP16, "1001", false, GROUP_SMOKE, 0, NULL, 0},
    {"add-broadcast-smoke", "add", FP32, "37x64", true, GROUP_SMOKE, 0, NULL, 0},
    {"add-broadcast-smoke-fp16", "add", FP16, "5x3x72", true, GROUP_SMOKE, 0, NULL, 0},
    {"multiply-smoke", "multiply", FP32, "4099", false, GROUP_SMOKE, 0, NULL, 0},
    {"relu-smoke", "relu", FP32, "4099", false, GROUP_SMOKE, 0, NULL, 0},
    {"relu-smoke-fp16", "relu", FP16, "2047", false, GROUP_SMOKE, 0, NULL, 0},
    {"identity-smoke", "identity", FP32, "7x9x11", false, GROUP_SMOKE, 0, NULL, 0},
    {"sigmoid-smoke", "sigmoid", FP32, "999", false, GROUP_SMOKE, 0, NULL, 0},
    {"gemm-smoke", "gemm", FP32, "33x17x45", false, GROUP_SMOKE, 0, NULL, 0},
    {"gemm-smoke-fp16", "gemm", FP16, "64x32x48", false, GROUP_SMOKE, 0, NULL, 0},
    {"gemv-smoke", "gemm", FP32, "3x300x37", false, GROUP_SMOKE, 0, NULL, 0},
    {"gemv-smoke-fp16", "gemm", FP16, "1x256x40", false, GROUP_SMOKE, 0, NULL, 0},
    {"conv-smoke", "convolution", FP32, "2x3x9x9x4x3x3", false, GROUP_SMOKE, 0, NULL, 0},
    {"conv-smoke-stride", "convolution", FP32, "1x5x11x11x6x3x3x2x1", false, GROUP_SMOKE, 0, NULL, 0},
    {"softmax-smoke", "softmax1", FP32, "7x33", false, GROUP_SMOKE, 0, NULL, 0},
    {"log-softmax-smoke-fp16", "log-softmax1", FP16, "5x1000", false, GROUP_SMOKE, 0, NULL, 0},
    {"hardmax-smoke", "hardmax1", FP32, "33x7:first", false, GROUP_SMOKE, 0, NULL, 0},
    {"reduce-sum-smoke", "reduce", FP32, "5x33x7:0,2", false, GROUP_SMOKE, 0, NULL, 0, 0, "sum"},
    {"reduce-max-smoke-fp16", "reduce", FP16, "1000x7:first", false, GROUP_SMOKE, 0, NULL, 0, 0, "max"},
    {"reduce-average-smoke", "reduce", FP32, "3x1000", false, GROUP_SMOKE, 0, NULL, 0, 0, "average"},
    {"reduce-sum-square-smoke", "reduce", FP32, "7x9x11:1", false, GROUP_SMOKE, 0, NULL, 0, 0, "sum-square"},
    {"argmax-smoke", "argmax", FP32, "33x1000", false, GROUP_SMOKE, 0, NULL, 0},
    {"argmin-smoke-fp16", "argmin", FP16, "7x33:first", false, GROUP_SMOKE, 0, NULL, 0},
    {"top-k-smoke", "top-k", FP32, "7x1000k8", false, GROUP_SMOKE, 0, NULL, 0},
    {"top-k1-smoke-fp16", "top-k1", FP16, "33x7k3:first", false, GROUP_SMOKE, 0, NULL, 0},
    {"cumsum-smoke", "cumulative-summation", FP32, "7x1000", false, GROUP_SMOKE, 0, NULL, 0},
    {"cumprod-smoke", "cumulative-product", FP32, "5x33", false, GROUP_SMOKE, 0, NULL, 0},
    {"bare-add-smoke", BARE_ADD_OP, FP32, "4096", false, GROUP_SMOKE, 0, NULL, 0},
    {"transpose-smoke", "identity", FP32, "5x6x7x33:0,2,3,1", false, GROUP_SMOKE, 0, NULL, 0},
    {"transpose-smoke-fp16", "identity", FP16, "3x70x5x9:0,2,3,1", false, GROUP_SMOKE, 0, NULL, 0},
    {"transpose-smoke-int8", "identity", INT8, "2x33x3x7:0,2,3,1", false, GROUP_SMOKE, 0, NULL, 0},
    {"transpose-smoke-int64", "identity", DML_TENSOR_DATA_TYPE_INT64, "2x9x5x7:0,3,1,2", false, GROUP_SMOKE, 0, NULL,
            0},
    /* Issue 19: every operator once, odd shapes, several and non-adjacent axes, other index types. */
    SMOKE("cast-smoke", "cast", FP32, "7x33", NULL),
    SMOKE("cast-smoke-int8", "cast", INT8, "1001", NULL),
    SMOKE("cast-smoke-fp16-int32", "cast", FP16, "5x67@int32", NULL),
    SMOKE("slice-smoke", "slice", FP32, "5x7x33k2:0,2", NULL),
    SMOKE("slice1-smoke-fp16", "slice1", FP16, "7x9x33k3:0,2", NULL),
    SMOKE("split-smoke", "split", FP32, "5x7x9k3:1", NULL),
    SMOKE("join-smoke-fp16", "join", FP16, "5x7x9k4:2", NULL),
    SMOKE("padding-smoke", "padding", FP32, "2x3x7x9k2:2,3", NULL),
    SMOKE("padding-smoke-reflection", "padding", FP32, "2x3x7x9k2:1,3", "reflection"),
    SMOKE("padding1-smoke-edge", "padding1", INT32, "3x7x9k2:0,2", "edge"),
    SMOKE("padding1-smoke-symmetric-fp16", "padding1", FP16, "7x9k3", "symmetric"),
    SMOKE("padding1-smoke-wrap", "padding1", FP32, "5x7x9k2:0,1", "wrap"),
    SMOKE("tile-smoke", "tile", FP32, "2x3x5x7k3:1,3", NULL),
    SMOKE("space-to-depth-smoke", "space-to-depth", FP32, "2x3x6x4", NULL),
    SMOKE("space-to-depth1-smoke-crd", "space-to-depth1", FP16, "2x3x9x6k3", "column-row-depth"),
    SMOKE("depth-to-space-smoke", "depth-to-space", FP32, "2x12x3x5", NULL),
    SMOKE("depth-to-space1-smoke-crd", "depth-to-space1", FP32, "2x12x3x5", "column-row-depth"),
    SMOKE("gather-smoke", "gather", FP32, "33x7k5", NULL),
    SMOKE("gather-smoke-int64", "gather", FP16, "5x33x7k9@int64:1", NULL),
    SMOKE("gather-elements-smoke", "gather-elements", FP32, "5x7x9k4@int64:1", NULL),
    SMOKE("gather-nd-smoke", "gather-nd", FP32, "7x5x9k4", NULL),
    SMOKE("gather-nd1-smoke-uint32", "gather-nd1", FP16, "7x5x9k4@uint32", NULL),
    SMOKE("scatter-elements-smoke", "scatter-elements", FP32, "5x7x9k3:1", NULL),
    SMOKE("scatter-nd-smoke", "scatter-nd", FP32, "33x7k5", NULL),
    SMOKE("one-hot-smoke", "one-hot", FP32, "7x33", NULL),
    SMOKE("nonzero-smoke", "nonzero-coordinates", INT8, "5x7x9", NULL),
    SMOKE("nonzero-smoke-fp32", "nonzero-coordinates", FP32, "2x1x33x7", NULL),
    SMOKE("random-generator-smoke", "random-generator", DML_TENSOR_DATA_TYPE_UINT32, "1001", NULL),
    SMOKE("diagonal-matrix-smoke", "diagonal-matrix", FP32, "1x2x7x33", NULL),
    SMOKE("diagonal-matrix1-smoke", "diagonal-matrix1", INT32, "1x3x7x33", NULL),
    SMOKE("value-scale-2d-smoke", "value-scale-2d", FP32, "2x3x7x9", NULL),
    SMOKE("reverse-subsequences-smoke", "reverse-subsequences", FP32, "9x5x7", NULL),
    /* Issue 20's ROI operators (no GPU preset: docs/kernels.md, "ROI pooling and ROI align"). */
    SMOKE("roi-pooling-smoke", "roi-pooling", FP32, "2x3x9x11k5", NULL),
    SMOKE("roi-align-smoke-fp16", "roi-align", FP16, "2x3x9x11k5", NULL),
    SMOKE("roi-align1-smoke", "roi-align1", FP32, "2x5x16x13k7", NULL),
    /* Issue 20's normalizations: layer norm of 8192^2 (one read, one write), group norm of ResNet's
     * 32x256x56x56 in 32 groups (per-channel weights), PyTorch's F.layer_norm and F.group_norm in
     * the same run. */
    POOLING_NORM("layernorm-8192", "mean-variance-normalization1", FP32, "8192x8192", NULL),
    POOLING_NORM("layernorm-8192-fp16", "mean-variance-normalization1", FP16, "8192x8192", NULL),
    POOLING_NORM("groupnorm-resnet", "mean-variance-normalization1", FP32, "32x32x8x3136k2:2,3", NULL),
    POOLING_NORM("groupnorm-resnet-fp16", "mean-variance-normalization1", FP16, "32x32x8x3136k2:2,3", NULL),
    SMOKE("mvn-smoke", "mean-variance-normalization", FP32, "2x3x5x7", NULL),
    SMOKE("mvn-smoke-cross-channel-fp16", "mean-variance-normalization", FP16, "2x3x5x7:1,2,3", NULL),
    SMOKE("mvn1-smoke-layernorm", "mean-variance-normalization1", FP32, "7x1000", NULL),
    SMOKE("mvn1-smoke-groupnorm-fp16", "mean-variance-normalization1", FP16, "2x4x3x25k2:2,3", NULL),
    SMOKE("mvn2-smoke", "mean-variance-normalization2", FP32, "5x7x9:0,2", NULL),
    SMOKE("lp-normalization-smoke", "lp-normalization", FP32, "7x33", NULL),
    SMOKE("lp-normalization-smoke-p1-fp16", "lp-normalization", FP16, "9x33x5k1:1", NULL),
    /* Issue 20, resampling: 2x of ResNet's 112x112 activations (PyTorch's nearest and bilinear in
     * tools/run-gpu-bench.sh), and every operator once on lavapipe. */
    POOLING_NORM("resample-2x-nearest", "resample2", FP32, "32x64x112x112", "nearest-neighbor"),
    POOLING_NORM("resample-2x-nearest-fp16", "resample2", FP16, "32x64x112x112", "nearest-neighbor"),
    POOLING_NORM("resample-2x-bilinear", "resample2", FP32, "32x64x112x112", "linear"),
    POOLING_NORM("resample-2x-bilinear-fp16", "resample2", FP16, "32x64x112x112", "linear"),
    SMOKE("upsample-2d-smoke", "upsample-2d", FP32, "2x3x5x7k3", NULL),
    SMOKE("upsample-2d-smoke-linear-fp16", "upsample-2d", FP16, "2x3x5x7", "linear"),
    SMOKE("resample-smoke-linear", "resample", FP32, "2x3x5x33", "linear"),
    SMOKE("resample1-smoke-int8", "resample1", INT8, "2x3x5x7k3", NULL),
    SMOKE("resample2-smoke-linear-fp16", "resample2", FP16, "1x3x9x7k3", "linear"),
    SMOKE("resample3-smoke-uint8", "resample3", UINT8, "2x3x5x7", NULL),
    SMOKE("resample3-smoke-linear", "resample3", FP32, "2x3x5x7", "linear"),
    /* Issue 20's pooling (tools/bench/pooling.c): PyTorch's max_pool2d(x, 3, 2, 1), avg_pool2d(x, 2, 2)
     * and adaptive_avg_pool2d(x, 1) in the same run (tools/run-gpu-bench.sh, pooling()). */
    POOLING_NORM("maxpool-3x3-s2", "max-pooling", FP32, "32x64x112x112x3x3x2x1", NULL),
    POOLING_NORM("maxpool-3x3-s2-fp16", "max-pooling", FP16, "32x64x112x112x3x3x2x1", NULL),
    POOLING_NORM("avgpool-2x2-s2", "average-pooling", FP32, "32x64x112x112x2x2x2", NULL),
    POOLING_NORM("avgpool-2x2-s2-fp16", "average-pooling", FP16, "32x64x112x112x2x2x2", NULL),
    POOLING_NORM("global-avgpool", "average-pooling", FP32, "32x2048x7x7", NULL),
    POOLING_NORM("global-avgpool-fp16", "average-pooling", FP16, "32x2048x7x7", NULL),
    SMOKE("average-pooling-smoke", "average-pooling", FP32, "2x3x9x8x3x3x2x1", NULL),
    SMOKE("average-pooling-smoke-global-fp16", "average-pooling", FP16, "2x3x9x11", NULL),
    SMOKE("average-pooling1-smoke", "average-pooling1", FP32, "2x3x9x8x2x2x2", NULL),
    SMOKE("lp-pooling-smoke", "lp-pooling", FP32, "2x3x9x8x3x3x2x1", NULL),
    SMOKE("lp-pooling1-smoke-fp16", "lp-pooling1", FP16, "2x3x9x8x3x3x1x1", NULL),
    SMOKE("max-pooling-smoke", "max-pooling", FP32, "2x3x9x8x3x3x2x1", NULL),
    SMOKE("max-pooling1-smoke-fp16", "max-pooling1", FP16, "2x3x9x8x3x3x2x1@uint32", NULL),
    SMOKE("max-pooling2-smoke", "max-pooling2", FP32, "2x3x9x8x2x2x2@uint64", NULL),
    SMOKE("max-pooling2-smoke-int8", "max-pooling2", INT8, "2x3x9x8x3x3x2x1", NULL),
    /* Issue 20: normalization (normalization.c's families) ... */
    POOLING_NORM("batchnorm-resnet", "batch-normalization", FP32, "32x256x56x56", NULL),
    POOLING_NORM("batchnorm-resnet-fp16", "batch-normalization", FP16, "32x256x56x56", NULL),
    SMOKE("batchnorm-smoke", "batch-normalization", FP32, "2x3x5x8", NULL),
    SMOKE("batchnorm-smoke-fp16", "batch-normalization", FP16, "3x7x33", NULL),
    SMOKE("lrn-smoke", "local-response-normalization", FP32, "2x7x5x6", NULL),
    SMOKE("lrn-smoke-fp16", "local-response-normalization", FP16, "1x9x3x33", NULL),
    SMOKE("max-unpooling-smoke", "max-unpooling", FP32, "2x3x6x10", NULL),
    SMOKE("max-unpooling-smoke-int64", "max-unpooling", DML_TENSOR_DATA_TYPE_INT64, "2x3x6x10@uint64", NULL),
    /* Issue 21: ResNet-50 v1.5 and a transformer encoder layer (batch 8, sequence 512) through
     * CompileGraph, beside their operators one by one; the bars are performance.md's and the
     * issue's (the encoder's in FLOAT32). Smoke: a stem and one bottleneck at 32x32, and an
     * encoder of two heads; --check compares the graph with the one-by-one run. */
    GRAPH("resnet50-b1-fp32", GRAPH_RESNET, FP32, "1" RESNET50, 3.37, "PyTorch eager, batch 1 fp32", 3.0),
    GRAPH("resnet50-b1-fp16", GRAPH_RESNET, FP16, "1" RESNET50, 4.57, "PyTorch eager, batch 1 fp16", 3.0),
    GRAPH("resnet50-b32-fp32", GRAPH_RESNET, FP32, "32" RESNET50, 10.99, "PyTorch eager, batch 32 fp32", 0.8),
    GRAPH("resnet50-b32-fp16", GRAPH_RESNET, FP16, "32" RESNET50, 4.24, "PyTorch eager, batch 32 fp16", 0.8),
    GRAPH("encoder-d768-fp32", GRAPH_ENCODER, FP32, "8x512x768", 0, NULL, 0.8),
    GRAPH("encoder-d768-fp16", GRAPH_ENCODER, FP16, "8x512x768", 0, NULL, 0),
    GRAPH("encoder-d1024-fp32", GRAPH_ENCODER, FP32, "8x512x1024", 2.51, "PyTorch eager, d 1024 fp32", 0.8),
    GRAPH("encoder-d1024-fp16", GRAPH_ENCODER, FP16, "8x512x1024", 0.241, "PyTorch eager, d 1024 fp16", 0),
    /* ResNet-50's whole depth (267 graph inputs) at a size a CPU device runs in seconds. */
    {"resnet50-32px", GRAPH_RESNET, FP32, "1x32:3,4,6,3", false, GROUP_GRAPH, 0, NULL, 0},
    {"resnet-smoke", GRAPH_RESNET, FP32, "1x32:1", false, GROUP_SMOKE | GROUP_GRAPH, 0, NULL, 0},
    {"encoder-smoke", GRAPH_ENCODER, FP32, "2x16x128", false, GROUP_SMOKE | GROUP_GRAPH, 0, NULL, 0},
    {"encoder-smoke-fp16", GRAPH_ENCODER, FP16, "2x16x128", false, GROUP_SMOKE | GROUP_GRAPH, 0, NULL, 0},
};
#undef GPU_MEM
#undef GPU_GEMM
#undef GPU_CONV
#undef MEMORY_RULE
#undef MOVER
#undef POOLING_NORM
#undef SMOKE
#undef GRAPH
#undef RESNET50
#undef INT8
#undef INT32
#undef SUM_LAST
#undef SUM_FIRST
#undef AS_SUM_LAST
#undef AS_SUM_FIRST

const size_t preset_count = ARRAY_SIZE(presets);

_Static_assert(ARRAY_SIZE(presets) <= MAX_PRESETS, "struct selection has room for MAX_PRESETS presets");

const struct preset *find_preset(const char *name)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(presets); ++i)
    {
        if (!strcmp(presets[i].name, name))
            return &presets[i];
    }
    return NULL;
}
