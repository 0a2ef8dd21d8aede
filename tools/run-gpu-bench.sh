#!/bin/bash
# run-gpu-bench.sh: vkdml-bench's GPU presets on a machine with a GPU driver, from a vkdml build
# made elsewhere for x86-64, whether or not that machine has a Vulkan loader installed. Where
# PyTorch and CUDA are there too, PyTorch's times for the same workloads are measured first, in the
# same run, and become the anchors of the ratios (else performance.md's figures are used).
#
#   tools/run-gpu-bench.sh [-b BUILD] [-d DEBS] [-o OUT] [-- VKDML-BENCH ARGUMENTS...]
#
#   -b BUILD  a meson build directory, or a copy holding its tools/vkdml-bench and
#             backend_vk/libvkdml.so.0 (default: build)
#   -d DEBS   a directory with Debian's libvulkan1 and glvnd packages (default: .gl, where the
#             device tool's recipe puts them); unpacked into a temporary directory, and put on
#             LD_LIBRARY_PATH, only when the system lacks one of their libraries
#   -o OUT    where to write (default: .): vkdml-bench.json, vkdml-bench.md (date, GPU, driver, each
#             preset's figure and ratio), vkdml-bench.txt (the full table and log),
#             vkdml-bench-trace.json (Chrome trace), pytorch-anchors.txt
#   after --  replaces the default vkdml-bench arguments: --check gpu
#
# Environment: NO_PYTORCH=1 skips the PyTorch anchors; GRAPHS_ONLY=1 times only the graph presets'
# (with -- --check graph, a run of issue 21's networks alone). ONNX=1 is GRAPHS_ONLY=1 with
# `-- --check graph` by default, then the same networks as ONNX files through vkdml-run (issue 22):
# BUILD's tools/run/vkdml-run runs each model of ONNX_MODELS (default: written into the scratch
# directory by tools/run/models/make-models.py, which needs numpy and python3-onnx) with
# `--runs ${ONNX_RUNS:-50} --report --json`, and writes vkdml-run-PRESET.{json,txt} and vkdml-run.md
# (vkdml-run against the preset and PyTorch eager). VK_DRIVER_FILES, when unset and the loader's
# standard directories hold no NVIDIA ICD file, is pointed at the one that container images mount
# under /usr/local/nvidia.
set -eu -o pipefail

build=build
debs=.gl
out=.
while getopts b:d:o: option; do
    case $option in
        b) build=$OPTARG ;;
        d) debs=$OPTARG ;;
        o) out=$OPTARG ;;
        *) sed -n '2,27p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
bench_args=("$@")
if [ -n "${ONNX:-}" ]; then
    export GRAPHS_ONLY=1
    [ ${#bench_args[@]} -gt 0 ] || bench_args=(--check graph)
fi
[ ${#bench_args[@]} -gt 0 ] || bench_args=(--check gpu)

bench=$build/tools/vkdml-bench
if [ ! -x "$bench" ]; then
    echo "run-gpu-bench.sh: no $bench: build vkdml (meson setup $build && ninja -C $build) first" >&2
    exit 1
fi
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Libraries the system may lack, from Debian's packages unpacked beside us (never into /): the
# Vulkan loader (libvulkan1), and glvnd's libraries, without which NVIDIA's Vulkan driver
# (libGLX_nvidia.so.0) answers no vkCreateInstance (seen on the H200 machine: libvulkan1 +
# libglvnd0 alone were not enough; the device tool's set of packages was). When one is missing,
# every .deb of DEBS is unpacked.
missing=
for library in libvulkan.so.1 libGLdispatch.so.0 libGLX.so.0 libEGL.so.1; do
    ldconfig -p 2>/dev/null | grep -q "${library//./\\.} " || missing="$missing $library"
done
if [ -n "$missing" ]; then
    debs_found=$(ls "$debs"/*.deb 2>/dev/null || true)
    if [ -z "$debs_found" ]; then
        echo "run-gpu-bench.sh: missing$missing and no .deb in $debs" >&2
    fi
    for deb in $debs_found; do
        deb=$(realpath "$deb")
        if command -v dpkg-deb >/dev/null; then
            dpkg-deb -x "$deb" "$scratch/libs"
        else
            mkdir -p "$scratch/ar" "$scratch/libs"
            (cd "$scratch/ar" && ar x "$deb" && tar -xf data.tar.* -C "$scratch/libs" && rm -f ./*)
        fi
    done
    [ -z "$debs_found" ] || echo "run-gpu-bench.sh: missing$missing: unpacked" $debs_found >&2
    export LD_LIBRARY_PATH="$scratch/libs/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export LD_LIBRARY_PATH="$build/backend_vk${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# The driver: NVIDIA's container images mount its ICD file where the loader does not look.
if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] \
        && ! ls /usr/share/vulkan/icd.d/*nvidia* /etc/vulkan/icd.d/*nvidia* >/dev/null 2>&1; then
    for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/local/share/vulkan/icd.d/nvidia_icd.json; do
        if [ -f "$icd" ]; then
            export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
            echo "run-gpu-bench.sh: Vulkan driver from $icd" >&2
            break
        fi
    done
fi

# Which devices the loader offers, and which vkdml takes.
[ -x "$build/tools/vkdml-info" ] && "$build/tools/vkdml-info" >&2 || true
command -v nvidia-smi >/dev/null && nvidia-smi --format=csv,noheader \
        --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem >&2 || true

# PyTorch's times (CUDA events, median of 50 after 10 warm-up) for the presets of the same shape:
# the bytes and flops are vkdml-bench's, so only the times travel.
anchors=()
if [ -z "${NO_PYTORCH:-}" ] && python3 -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
    python3 - >"$out/pytorch-anchors.txt" <<'EOF' || echo "run-gpu-bench.sh: the PyTorch anchors stopped early" >&2
import os
import torch
import torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False   # DirectML's FLOAT32 GEMM is fp32
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True

def median_ms(fn, warmup=10, runs=50):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]

def report(name, fn, *aliases):
    ms = median_ms(fn)
    for label in (name,) + aliases:
        print(f"{label}={ms:.6f}", flush=True)

def memory_bound(suffix, dtype, count):
    x = torch.rand(count, device="cuda", dtype=dtype) * 2 - 1
    y = torch.rand(count, device="cuda", dtype=dtype) * 2 - 1
    out = torch.empty_like(x)
    # bare-add-256MiB (a plain Vulkan kernel) is held to the same PyTorch add.
    report("add-256MiB" + suffix, lambda: torch.add(x, y, out=out), *(() if suffix else ("bare-add-256MiB",)))
    if not suffix:
        report("multiply-256MiB", lambda: torch.mul(x, y, out=out))
    report("relu-256MiB" + suffix, lambda: torch.relu(x))
    report("identity-256MiB" + suffix, lambda: out.copy_(x))

def broadcast(suffix, dtype, rows, columns):
    a = torch.rand(rows, columns, device="cuda", dtype=dtype)
    b = torch.rand(1, columns, device="cuda", dtype=dtype)
    out = torch.empty_like(a)
    report("add-broadcast-256MiB" + suffix, lambda: torch.add(a, b, out=out))

def large():
    x = torch.rand(1 << 28, device="cuda")
    y = torch.rand(1 << 28, device="cuda")
    out = torch.empty_like(x)
    report("add-1GiB", lambda: torch.add(x, y, out=out))
    report("identity-1GiB", lambda: out.copy_(x))

# Issue 18's operators along the last axis (dim -1) or the first (dim 0, presets "-first") of
# 8192x8192: the presets' names, PyTorch's nearest equivalent of each.
def rows(suffix, dtype):
    x = torch.rand(8192, 8192, device="cuda", dtype=dtype) * 2 - 1
    report("softmax-8192" + suffix, lambda: torch.softmax(x, dim=-1))
    report("log-softmax-8192" + suffix, lambda: torch.log_softmax(x, dim=-1))
    # hardmax: 1 at the row's first maximum, else 0 (one_hot of argmax, without int64 rows)
    report("hardmax-8192" + suffix,
           lambda: torch.zeros_like(x).scatter_(-1, torch.argmax(x, dim=-1, keepdim=True), 1.0))

def reductions(suffix, dtype, functions):
    x = torch.rand(8192, 8192, device="cuda", dtype=dtype) * 2 - 1
    for dim, where in ((-1, ""), (0, "-first")):
        for name, fn in functions:
            report(f"{name}-8192{where}{suffix}", lambda fn=fn, dim=dim: fn(x, dim))

def scans_and_top_k():
    x = torch.rand(8192, 8192, device="cuda") * 2 - 1
    report("cumsum-8192", lambda: torch.cumsum(x, dim=-1))
    for k in (8, 64):
        report(f"top-k-8192-k{k}", lambda k=k: torch.topk(x, k, dim=-1))

def gemm(name, size, dtype):
    a = torch.rand(size, size, device="cuda", dtype=dtype) * 2 - 1
    b = torch.rand(size, size, device="cuda", dtype=dtype) * 2 - 1
    out = torch.empty_like(a)
    report(name, lambda: torch.mm(a, b, out=out))

def conv(name, n, c, hw, k, rs, stride, pad, dtype):
    x = torch.rand(n, c, hw, hw, device="cuda", dtype=dtype) * 2 - 1
    w = torch.rand(k, c, rs, rs, device="cuda", dtype=dtype) * 2 - 1
    report(name, lambda: F.conv2d(x, w, stride=stride, padding=pad))

# Issue 19's data movement, PyTorch's nearest equivalent of each preset, same dtype. DirectML's JOIN
# and SPLIT are one operator; PyTorch's split gives views, so each part is copied (clone() along
# dim 0, where the parts are contiguous views; contiguous() along dim 1): four copies, the same bytes.
def movement():
    parts = [torch.rand(4096, 4096, device="cuda") for _ in range(4)]
    rows = torch.empty(16384, 4096, device="cuda")
    columns = torch.empty(4096, 16384, device="cuda")
    report("join-4x64MiB", lambda: torch.cat(parts, dim=0, out=rows))
    report("join-4x64MiB-inner", lambda: torch.cat(parts, dim=1, out=columns))
    report("split-4x64MiB", lambda: [p.clone() for p in torch.split(rows, 4096, dim=0)])
    report("split-4x64MiB-inner", lambda: [p.contiguous() for p in torch.split(columns, 4096, dim=1)])
    del parts, rows, columns
    x = torch.rand(8192, 8192, device="cuda")
    report("slice-cols-8192", lambda: x[:, 1024:5120].contiguous())
    image = torch.rand(32, 64, 112, 112, device="cuda")
    report("padding-1-resnet", lambda: F.pad(image, (1, 1, 1, 1), value=0.5))
    report("padding-1-resnet-reflection", lambda: F.pad(image, (1, 1, 1, 1), mode="reflect"))
    small = torch.rand(32, 64, 56, 56, device="cuda")
    report("tile-2x2-resnet", lambda: small.repeat(1, 1, 2, 2))
    single = torch.rand(1 << 26, device="cuda")
    half = torch.rand(1 << 26, device="cuda", dtype=torch.float16)
    report("cast-f32-f16-64Mi", lambda: single.half())
    report("cast-f16-f32-64Mi", lambda: half.float())
    table = torch.rand(65536, 1024, device="cuda", dtype=torch.float16)
    indices = torch.randint(0, 65536, (32768,), device="cuda")
    indices32 = indices.int()
    report("gather-rows-fp16", lambda: torch.index_select(table, 0, indices32))
    report("gather-rows-fp16-int64", lambda: F.embedding(indices, table))
    for suffix, dtype in (("", torch.float32), ("-fp16", torch.float16)):
        nchw = torch.rand(32, 256, 56, 56, device="cuda", dtype=dtype)
        report("transpose-nchw-nhwc" + suffix, lambda nchw=nchw: nchw.permute(0, 2, 3, 1).contiguous())

# Issue 20's mean-variance normalizations: layer norm of 8192^2 over the last axis and group norm
# of 32x256x56x56 in 32 groups, each with per-element (layer) or per-channel (group) weights.
def mvn():
    for suffix, dtype in (("", torch.float32), ("-fp16", torch.float16)):
        x = torch.rand(8192, 8192, device="cuda", dtype=dtype) * 2 - 1
        w = torch.rand(8192, device="cuda", dtype=dtype)
        b = torch.rand(8192, device="cuda", dtype=dtype)
        report("layernorm-8192" + suffix, lambda x=x, w=w, b=b: F.layer_norm(x, (8192,), w, b))
        image = torch.rand(32, 256, 56, 56, device="cuda", dtype=dtype) * 2 - 1
        gw = torch.rand(256, device="cuda", dtype=dtype)
        gb = torch.rand(256, device="cuda", dtype=dtype)
        report("groupnorm-resnet" + suffix, lambda image=image, gw=gw, gb=gb: F.group_norm(image, 32, gw, gb))
        del x, image

def resample():
    for suffix, dtype in (("", torch.float32), ("-fp16", torch.float16)):
        image = torch.rand(32, 64, 112, 112, device="cuda", dtype=dtype)
        report("resample-2x-nearest" + suffix, lambda image=image: F.interpolate(image, scale_factor=2, mode="nearest"))
        report("resample-2x-bilinear" + suffix, lambda image=image: F.interpolate(image, scale_factor=2,
               mode="bilinear", align_corners=False))

def pooling():
    for suffix, dtype in (("", torch.float32), ("-fp16", torch.float16)):
        image = torch.rand(32, 64, 112, 112, device="cuda", dtype=dtype)
        report("maxpool-3x3-s2" + suffix, lambda image=image: F.max_pool2d(image, 3, 2, 1))
        report("avgpool-2x2-s2" + suffix, lambda image=image: F.avg_pool2d(image, 2, 2))
        features = torch.rand(32, 2048, 7, 7, device="cuda", dtype=dtype)
        report("global-avgpool" + suffix, lambda features=features: F.adaptive_avg_pool2d(features, 1))

def normalization():
    for suffix, dtype in (("", torch.float32), ("-fp16", torch.float16)):
        x = torch.rand(32, 256, 56, 56, device="cuda", dtype=dtype)
        mean, weight, bias = (torch.rand(256, device="cuda", dtype=dtype) for _ in range(3))
        var = torch.rand(256, device="cuda", dtype=dtype) + 0.5
        report("batchnorm-resnet" + suffix, lambda x=x, mean=mean, var=var, weight=weight, bias=bias:
               F.batch_norm(x, mean, var, weight, bias, training=False, eps=1e-5))

# Issue 21's graph presets: the same networks in eager mode (NCHW, inference, TF32 off as above;
# fp16 through .half()). torchvision may be absent, so ResNet-50 v1.5 is written here: stride on
# the 3x3 convolution, projection shortcuts where the shape changes.
class Bottleneck(torch.nn.Module):
    def __init__(self, inplanes, width, stride):
        super().__init__()
        nn = torch.nn
        self.conv1, self.bn1 = nn.Conv2d(inplanes, width, 1, bias=False), nn.BatchNorm2d(width)
        self.conv2, self.bn2 = nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width)
        self.conv3, self.bn3 = nn.Conv2d(width, 4 * width, 1, bias=False), nn.BatchNorm2d(4 * width)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or inplanes != 4 * width:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, 4 * width, 1, stride, bias=False),
                                            nn.BatchNorm2d(4 * width))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        return self.relu(self.bn3(self.conv3(out)) + identity)

def resnet50():
    nn = torch.nn
    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1)]
    inplanes = 64
    for stage, blocks in enumerate((3, 4, 6, 3)):
        for block in range(blocks):
            layers.append(Bottleneck(inplanes, 64 << stage, 2 if stage and not block else 1))
            inplanes = 4 * (64 << stage)
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, 1000)]
    return nn.Sequential(*layers)

def graphs():
    with torch.inference_mode():
        for suffix, half in (("-fp32", False), ("-fp16", True)):
            model = resnet50().cuda().eval()
            model = model.half() if half else model
            for batch in (1, 32):
                x = torch.rand(batch, 3, 224, 224, device="cuda", dtype=torch.float16 if half else torch.float32)
                report(f"resnet50-b{batch}{suffix}", lambda model=model, x=x: model(x))
            del model
            # One post-norm encoder layer, as vkdml-bench's graph: heads of 64, FFN 4d with GELU.
            for d in (768, 1024):
                layer = torch.nn.TransformerEncoderLayer(d, d // 64, 4 * d, dropout=0.0, activation="gelu",
                                                         batch_first=True).cuda().eval()
                layer = layer.half() if half else layer
                x = torch.rand(8, 512, d, device="cuda", dtype=torch.float16 if half else torch.float32) * 2 - 1
                report(f"encoder-d{d}{suffix}", lambda layer=layer, x=x: layer(x))
                del layer

if os.environ.get("GRAPHS_ONLY"):     # ONNX=1 sets it too
    graphs()
    raise SystemExit(0)
memory_bound("", torch.float32, 1 << 26)
memory_bound("-fp16", torch.float16, 1 << 27)
broadcast("", torch.float32, 8192, 8192)
broadcast("-fp16", torch.float16, 8192, 16384)
large()
rows("", torch.float32)
rows("-fp16", torch.float16)
reductions("", torch.float32, (
    ("reduce-sum", lambda x, dim: torch.sum(x, dim=dim, keepdim=True)),
    ("reduce-max", lambda x, dim: torch.amax(x, dim=dim, keepdim=True)),
    ("reduce-average", lambda x, dim: torch.mean(x, dim=dim, keepdim=True)),
    ("reduce-sum-square", lambda x, dim: (x * x).sum(dim=dim, keepdim=True)),
    ("argmax", lambda x, dim: torch.argmax(x, dim=dim, keepdim=True))))
reductions("-fp16", torch.float16, (("reduce-sum", lambda x, dim: torch.sum(x, dim=dim, keepdim=True)),))
scans_and_top_k()
gemm("gemm-4096-fp32", 4096, torch.float32)
gemm("gemm-8192-fp32", 8192, torch.float32)
gemm("gemm-4096-fp16", 4096, torch.float16)
gemm("gemm-1024-fp16", 1024, torch.float16)
gemm("gemm-64-fp32", 64, torch.float32)
conv("conv-resnet50", 32, 64, 56, 64, 3, 1, 1, torch.float32)
conv("conv-resnet50-c256", 32, 256, 14, 256, 3, 1, 1, torch.float32)
conv("conv-resnet50-1x1", 32, 64, 56, 256, 1, 1, 0, torch.float32)
conv("conv-resnet50-stem", 32, 3, 224, 64, 7, 2, 3, torch.float32)
conv("conv-resnet50-fp16", 32, 64, 56, 64, 3, 1, 1, torch.float16)
conv("conv-resnet50-c256-fp16", 32, 256, 14, 256, 3, 1, 1, torch.float16)
movement()
mvn()
resample()
pooling()
normalization()
graphs()
EOF
    while read -r line; do
        anchors+=(--anchor-ms "$line")
    done <"$out/pytorch-anchors.txt"
    torch_version=$(python3 -c 'import torch; print(torch.__version__)')
    anchors+=(--anchor-source "PyTorch $torch_version in this run (CUDA events, median of 50 after 10 warm-up)")
    echo "run-gpu-bench.sh: PyTorch anchors: $(wc -l <"$out/pytorch-anchors.txt") workloads" >&2
else
    echo "run-gpu-bench.sh: no PyTorch with CUDA here: ratios to performance.md's figures" >&2
fi

# Issue 22: the graph presets' networks as ONNX models through vkdml-run, after the presets.
onnx_python() {
    local python
    for python in python3 /usr/bin/python3; do
        if "$python" -c 'import numpy, onnx' 2>/dev/null; then
            echo "$python"
            return 0
        fi
    done
    return 1
}

run_onnx_models() {
    local runner=$build/tools/run/vkdml-run models=${ONNX_MODELS:-} tools_dir python model name failed=0
    tools_dir=$(dirname "$(realpath "$0")")
    if [ ! -x "$runner" ]; then
        echo "run-gpu-bench.sh: no $runner: build vkdml-run (ninja -C $build tools/run/vkdml-run) first" >&2
        return 1
    fi
    if [ -z "$models" ]; then
        models=$scratch/models
        if ! python=$(onnx_python); then
            echo "run-gpu-bench.sh: no python3 with numpy and onnx to write the models: give ONNX_MODELS" >&2
            return 1
        fi
        "$python" "$tools_dir/run/models/make-models.py" bench "$models" >&2 || return 1
    fi
    for model in "$models"/*.onnx; do
        name=$(basename "$model" .onnx)
        echo "run-gpu-bench.sh: vkdml-run $name" >&2
        "$runner" "$model" --runs "${ONNX_RUNS:-50}" --report --json "$out/vkdml-run-$name.json" \
                >"$out/vkdml-run-$name.txt" 2>&1 || failed=1
        grep -E '^(graph|runs|compiler):|vkdml-run:' "$out/vkdml-run-$name.txt" >&2 || true
    done
    python=$(command -v python3 || echo /usr/bin/python3)
    "$python" "$tools_dir/run/models/bench-table.py" "$out" >"$out/vkdml-run.md" || failed=1
    cat "$out/vkdml-run.md"
    return $failed
}

status=0
"$bench" "${bench_args[@]}" ${anchors[@]+"${anchors[@]}"} \
        --json "$out/vkdml-bench.json" --markdown "$out/vkdml-bench.md" \
        --chrome-trace "$out/vkdml-bench-trace.json" 2>&1 | tee "$out/vkdml-bench.txt" || status=$?
echo
cat "$out/vkdml-bench.md" 2>/dev/null || true
[ -z "${ONNX:-}" ] || run_onnx_models || status=$?
exit $status
