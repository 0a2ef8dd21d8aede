#!/usr/bin/python3
"""Writes the ONNX models of vkdml-run's benchmarks (issue 22) with random weights.

The networks are those of vkdml-bench's graph presets (tools/bench/graph.c; README.md,
"Benchmarks"), written with the operators a PyTorch export of the same torch modules holds at
opset 17, so that `vkdml-run MODEL --runs N` and `vkdml-bench --check graph` time the same work:

  resnet50  ResNet-50 v1.5, NCHW: Conv (no bias), BatchNormalization and Relu as separate nodes,
            MaxPool 3x3/2, bottlenecks with the stride on the 3x3 convolution and projection
            shortcuts where the shape changes, GlobalAveragePool, Flatten, Gemm (transB).
  encoder   one post-norm transformer encoder layer (nn.TransformerEncoderLayer, batch first,
            activation "gelu"): MatMul + Add projections, Reshape/Transpose into heads of 64,
            MatMul, Softmax, LayerNormalization (or its ReduceMean form with --decompose), GELU in
            its Erf form (Gelu itself is opset 20). Q is scaled by 1/8 before Q.K^T.

Weights are initializers drawn as vkdml-bench draws them (He-uniform for Conv, Gemm and MatMul,
statistics near the activations' for the normalizations), from a fixed seed. Models are fully
static (no free dimensions). Uses only numpy and python3-onnx (Debian); no network.

  make-models.py resnet50 OUT.onnx [--batch N] [--side S] [--blocks 3,4,6,3] [--dtype float16]
  make-models.py encoder OUT.onnx [--shape 8x512x1024] [--dtype float16] [--decompose]
  make-models.py bench DIR [--dtype float32|float16|all]   the graph presets' networks, named
                                                           as the presets (resnet50-b1-fp32.onnx, ...)
"""
import argparse
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
HEAD_SIZE = 64
DTYPES = {"float32": (np.float32, TensorProto.FLOAT, "fp32"), "float16": (np.float16, TensorProto.FLOAT16, "fp16")}


class Graph:
    """Nodes, initializers and random weights of one model in one float type."""

    def __init__(self, dtype, seed):
        self.np_type, self.onnx_type, _ = DTYPES[dtype]
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.initializers = []

    def weight(self, name, shape, low, high):
        values = self.rng.uniform(low, high, size=shape).astype(np.float32).astype(self.np_type)
        self.initializers.append(numpy_helper.from_array(values, name))
        return name

    def he_uniform(self, name, shape, fan_in):
        bound = math.sqrt(6.0 / fan_in)
        return self.weight(name, shape, -bound, bound)

    def constant(self, name, values, np_type=None):
        self.initializers.append(numpy_helper.from_array(np.array(values, dtype=np_type or self.np_type), name))
        return name

    def node(self, op_type, inputs, name, output=None, **attributes):
        output = output or name + "_output"
        self.nodes.append(helper.make_node(op_type, inputs, [output], name=name, **attributes))
        return output

    def model(self, name, inputs, outputs, doc):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="vkdml tools/run/models/make-models.py", doc_string=doc)
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


# ---- ResNet-50 v1.5 ----

def conv_bn(g, prefix, conv, bn, x, in_channels, out_channels, window, stride):
    pad = window // 2
    weight = g.he_uniform(f"{prefix}{conv}.weight", (out_channels, in_channels, window, window),
                          in_channels * window * window)
    y = g.node("Conv", [x, weight], f"{prefix}{conv}", kernel_shape=[window, window], strides=[stride, stride],
               pads=[pad, pad, pad, pad], dilations=[1, 1], group=1)
    # vkdml-bench's ranges: mean, variance, scale, bias.
    mean = g.weight(f"{prefix}{bn}.running_mean", (out_channels,), -0.1, 0.1)
    var = g.weight(f"{prefix}{bn}.running_var", (out_channels,), 0.5, 1.5)
    scale = g.weight(f"{prefix}{bn}.weight", (out_channels,), 0.5, 1.0)
    bias = g.weight(f"{prefix}{bn}.bias", (out_channels,), -0.1, 0.1)
    return g.node("BatchNormalization", [y, scale, bias, mean, var], f"{prefix}{bn}", epsilon=1e-5, momentum=0.9)


def conv_bn_relu(g, prefix, index, x, in_channels, out_channels, window, stride):
    y = conv_bn(g, prefix, f"conv{index}", f"bn{index}", x, in_channels, out_channels, window, stride)
    return g.node("Relu", [y], f"{prefix}relu{index}")


def bottleneck(g, stage, block, x, in_channels, width, stride):
    prefix = f"layer{stage + 1}.{block}."
    y = conv_bn_relu(g, prefix, "1", x, in_channels, width, 1, 1)
    y = conv_bn_relu(g, prefix, "2", y, width, width, 3, stride)
    y = conv_bn(g, prefix, "conv3", "bn3", y, width, 4 * width, 1, 1)
    shortcut = x
    if in_channels != 4 * width or stride != 1:
        shortcut = conv_bn(g, prefix, "downsample.0", "downsample.1", x, in_channels, 4 * width, 1, stride)
    y = g.node("Add", [y, shortcut], f"{prefix}add")
    return g.node("Relu", [y], f"{prefix}relu3")


def resnet50(batch, side, blocks, dtype, seed=50):
    g = Graph(dtype, seed)
    x = g.node("Relu", [conv_bn(g, "", "conv1", "bn1", "input", 3, 64, 7, 2)], "relu")
    x = g.node("MaxPool", [x], "maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    channels = 64
    for stage, count in enumerate(blocks):
        width = 64 << stage
        for block in range(count):
            x = bottleneck(g, stage, block, x, channels, width, 2 if stage and not block else 1)
            channels = 4 * width
    x = g.node("GlobalAveragePool", [x], "avgpool")
    x = g.node("Flatten", [x], "flatten", axis=1)
    weight = g.he_uniform("fc.weight", (1000, channels), channels)
    bias = g.weight("fc.bias", (1000,), -0.1, 0.1)
    g.node("Gemm", [x, weight, bias], "fc", output="output", alpha=1.0, beta=1.0, transB=1)
    inputs = [helper.make_tensor_value_info("input", g.onnx_type, [batch, 3, side, side])]
    outputs = [helper.make_tensor_value_info("output", g.onnx_type, [batch, 1000])]
    return g.model("resnet50", inputs, outputs, f"ResNet-50 v1.5, batch {batch}, {side}x{side}, blocks {blocks}")


# ---- One transformer encoder layer ----

def linear(g, name, x, k, columns):
    weight = g.he_uniform(f"{name}.weight_t", (k, columns), k)     # torch exports W^T for a 3-D MatMul
    bias = g.weight(f"{name}.bias", (columns,), -0.1, 0.1)
    return g.node("Add", [g.node("MatMul", [x, weight], f"{name}/MatMul"), bias], f"{name}/Add")


def layer_norm(g, name, x, d, decompose, output=None):
    scale = g.weight(f"{name}.weight", (d,), 0.5, 1.5)
    bias = g.weight(f"{name}.bias", (d,), -0.1, 0.1)
    if not decompose:
        return g.node("LayerNormalization", [x, scale, bias], name, output, axis=-1, epsilon=1e-5)
    # What torch exports below opset 17.
    mean = g.node("ReduceMean", [x], f"{name}/ReduceMean", axes=[-1], keepdims=1)
    centred = g.node("Sub", [x, mean], f"{name}/Sub")
    square = g.node("Pow", [centred, g.constant(f"{name}.two", 2.0)], f"{name}/Pow")
    var = g.node("ReduceMean", [square], f"{name}/ReduceMean_1", axes=[-1], keepdims=1)
    std = g.node("Sqrt", [g.node("Add", [var, g.constant(f"{name}.epsilon", 1e-5)], f"{name}/Add")], f"{name}/Sqrt")
    y = g.node("Mul", [g.node("Div", [centred, std], f"{name}/Div"), scale], f"{name}/Mul")
    return g.node("Add", [y, bias], f"{name}/Add_1", output)


def gelu_erf(g, name, x):
    """0.5 x (1 + erf(x / sqrt 2)), as torch exports F.gelu before opset 20."""
    y = g.node("Div", [x, g.constant(f"{name}.sqrt2", math.sqrt(2.0))], f"{name}/Div")
    y = g.node("Add", [g.node("Erf", [y], f"{name}/Erf"), g.constant(f"{name}.one", 1.0)], f"{name}/Add")
    y = g.node("Mul", [x, y], f"{name}/Mul")
    return g.node("Mul", [y, g.constant(f"{name}.half", 0.5)], f"{name}/Mul_1")


def heads(g, name, x, batch, sequence, hidden, perm):
    shape = g.constant(f"{name}.heads_shape", [batch, sequence, hidden // HEAD_SIZE, HEAD_SIZE], np.int64)
    return g.node("Transpose", [g.node("Reshape", [x, shape], f"{name}/Reshape")], f"{name}/Transpose", perm=perm)


def attention(g, x, batch, sequence, hidden):
    q = linear(g, "self_attn.q_proj", x, hidden, hidden)
    k = linear(g, "self_attn.k_proj", x, hidden, hidden)
    v = linear(g, "self_attn.v_proj", x, hidden, hidden)
    q = g.node("Mul", [q, g.constant("self_attn.scaling", 1.0 / math.sqrt(HEAD_SIZE))], "self_attn/Mul")
    q = heads(g, "self_attn.q", q, batch, sequence, hidden, [0, 2, 1, 3])        # {B, H, S, 64}
    k = heads(g, "self_attn.k", k, batch, sequence, hidden, [0, 2, 3, 1])        # {B, H, 64, S}
    v = heads(g, "self_attn.v", v, batch, sequence, hidden, [0, 2, 1, 3])
    scores = g.node("MatMul", [q, k], "self_attn/MatMul")
    probabilities = g.node("Softmax", [scores], "self_attn/Softmax", axis=-1)
    context = g.node("MatMul", [probabilities, v], "self_attn/MatMul_1")
    context = g.node("Transpose", [context], "self_attn/Transpose", perm=[0, 2, 1, 3])
    shape = g.constant("self_attn.merge_shape", [batch, sequence, hidden], np.int64)
    context = g.node("Reshape", [context, shape], "self_attn/Reshape")
    return linear(g, "self_attn.out_proj", context, hidden, hidden)


def encoder(batch, sequence, hidden, dtype, decompose=False, seed=22):
    if hidden % HEAD_SIZE:
        raise ValueError(f"the hidden size {hidden} is not a multiple of the head size {HEAD_SIZE}")
    g = Graph(dtype, seed)
    y = g.node("Add", ["input", attention(g, "input", batch, sequence, hidden)], "residual1")
    norm1 = layer_norm(g, "norm1", y, hidden, decompose)
    y = gelu_erf(g, "gelu", linear(g, "linear1", norm1, hidden, 4 * hidden))
    y = g.node("Add", [norm1, linear(g, "linear2", y, 4 * hidden, hidden)], "residual2")
    layer_norm(g, "norm2", y, hidden, decompose, "output")
    inputs = [helper.make_tensor_value_info("input", g.onnx_type, [batch, sequence, hidden])]
    outputs = [helper.make_tensor_value_info("output", g.onnx_type, [batch, sequence, hidden])]
    return g.model("encoder", inputs, outputs,
                   f"transformer encoder layer, {batch}x{sequence}x{hidden}, heads of {HEAD_SIZE}")


# ---- Expected outputs: the model evaluated in float64 by numpy, node by node ----

def conv(x, w, strides, pads):
    n, c, h, width = x.shape
    k, _, r, s = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    out_h = (x.shape[2] - r) // strides[0] + 1
    out_w = (x.shape[3] - s) // strides[1] + 1
    y = np.zeros((n, k, out_h, out_w))
    for i in range(r):
        for j in range(s):
            window = x[:, :, i:i + strides[0] * out_h:strides[0], j:j + strides[1] * out_w:strides[1]]
            y += np.einsum("nchw,kc->nkhw", window, w[:, :, i, j])
    return y


def max_pool(x, window, strides, pads):
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])), constant_values=-np.inf)
    out_h = (x.shape[2] - window[0]) // strides[0] + 1
    out_w = (x.shape[3] - window[1]) // strides[1] + 1
    return np.max([x[:, :, i:i + strides[0] * out_h:strides[0], j:j + strides[1] * out_w:strides[1]]
                   for i in range(window[0]) for j in range(window[1])], axis=0)


def normalize(x, axis, epsilon):
    mean = x.mean(axis=axis, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=axis, keepdims=True) + epsilon)


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def evaluate_node(node, args, a):
    """The ops make-models.py writes, at opset 17; `a` holds the node's attributes."""
    op = node.op_type
    if op == "Conv":
        return conv(args[0], args[1], a["strides"], a["pads"])
    if op == "BatchNormalization":
        x, scale, bias, mean, var = args
        shape = (1, -1) + (1,) * (x.ndim - 2)
        return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + a["epsilon"]) * scale.reshape(shape) \
            + bias.reshape(shape)
    if op == "MaxPool":
        return max_pool(args[0], a["kernel_shape"], a["strides"], a["pads"])
    if op == "Gemm":
        return a.get("alpha", 1.0) * (args[0] @ (args[1].T if a.get("transB") else args[1])) \
            + a.get("beta", 1.0) * args[2]
    if op == "LayerNormalization":
        return normalize(args[0], a["axis"], a["epsilon"]) * args[1] + args[2]
    simple = {
        "Relu": lambda x: np.maximum(x, 0), "Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
        "Div": np.divide, "Pow": np.power, "Sqrt": np.sqrt, "MatMul": np.matmul,
        "Erf": np.vectorize(math.erf), "GlobalAveragePool": lambda x: x.mean(axis=(2, 3), keepdims=True),
        "Flatten": lambda x: x.reshape(x.shape[0], -1), "Reshape": lambda x, shape: x.reshape(shape),
        "Transpose": lambda x: x.transpose(a["perm"]), "Softmax": lambda x: softmax(x, a["axis"]),
        "ReduceMean": lambda x: x.mean(axis=tuple(a["axes"]), keepdims=bool(a["keepdims"])),
    }
    return simple[op](*args)


def reference(model, inputs):
    values = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in model.graph.initializer
              if i.data_type != TensorProto.INT64}
    values.update({i.name: numpy_helper.to_array(i) for i in model.graph.initializer
                   if i.data_type == TensorProto.INT64})
    values.update({name: x.astype(np.float64) for name, x in inputs.items()})
    for node in model.graph.node:
        attributes = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        values[node.output[0]] = evaluate_node(node, [values[i] for i in node.input], attributes)
    return [values[o.name] for o in model.graph.output]


def write_data(model, directory, seed=7):
    """An ONNX test folder beside the model: input_0.pb (uniform in [-1, 1]) and the expected output_0.pb."""
    declared = model.graph.input[0]
    np_type = next(np_type for np_type, onnx_type, _ in DTYPES.values()
                   if onnx_type == declared.type.tensor_type.elem_type)
    shape = [d.dim_value for d in declared.type.tensor_type.shape.dim]
    x = np.random.default_rng(seed).uniform(-1.0, 1.0, size=shape).astype(np_type)
    outputs = reference(model, {declared.name: x})
    data = os.path.join(directory, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, declared.name).SerializeToString())
    for i, (y, declared_output) in enumerate(zip(outputs, model.graph.output)):
        with open(os.path.join(data, f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(y.astype(np_type), declared_output.name).SerializeToString())
    print(f"{data}: input_0.pb and the expected output_0.pb (numpy, float64)")


# ---- Command line ----

def parse_dims(text, count):
    dims = [int(d) for d in text.split("x")]
    if len(dims) != count or min(dims) < 1:
        raise argparse.ArgumentTypeError(f"expected {count} positive sizes separated by 'x': {text}")
    return dims


def save(model, path):
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    onnx.save(model, path)
    print(f"{path}: {model.doc_string} ({os.path.getsize(path) / 1048576:.1f} MiB)")


# vkdml-bench's graph presets (tools/bench/presets.c): name, network, shape.
BENCH = [("resnet50-b1", "resnet50", 1), ("resnet50-b32", "resnet50", 32),
         ("encoder-d768", "encoder", (8, 512, 768)), ("encoder-d1024", "encoder", (8, 512, 1024))]


def write_bench(directory, dtypes, decompose):
    for dtype in dtypes:
        suffix = DTYPES[dtype][2]
        for name, network, shape in BENCH:
            model = resnet50(shape, 224, (3, 4, 6, 3), dtype) if network == "resnet50" \
                else encoder(*shape, dtype, decompose)
            save(model, os.path.join(directory, f"{name}-{suffix}.onnx"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="network", required=True)
    res = sub.add_parser("resnet50", help="ResNet-50 v1.5")
    res.add_argument("output")
    res.add_argument("--batch", type=int, default=1)
    res.add_argument("--side", type=int, default=224, help="image height and width (vkdml-bench: 32 or more)")
    res.add_argument("--blocks", default="3,4,6,3", help="bottlenecks per stage (1 to 4 stages)")
    enc = sub.add_parser("encoder", help="one transformer encoder layer")
    enc.add_argument("output")
    enc.add_argument("--shape", type=lambda t: parse_dims(t, 3), default=[8, 512, 1024],
                     help="BATCHxSEQUENCExHIDDEN, HIDDEN a multiple of 64")
    enc.add_argument("--decompose", action="store_true", help="LayerNormalization as ReduceMean, Sub, Pow, ...")
    bench = sub.add_parser("bench", help="the networks of vkdml-bench's graph presets, named as they are")
    bench.add_argument("directory")
    bench.add_argument("--decompose", action="store_true", help="the encoders' LayerNormalization decomposed")
    for p in (res, enc):
        p.add_argument("--dtype", choices=DTYPES, default="float32")
        p.add_argument("--data", action="store_true", help="also OUTPUT's folder/test_data_set_0 with the expected "
                       "output, computed by numpy (for vkdml-run --check at small sizes)")
    bench.add_argument("--dtype", choices=list(DTYPES) + ["all"], default="all")
    args = parser.parse_args()

    if args.network == "resnet50":
        blocks = [int(b) for b in args.blocks.split(",")]
        if not 1 <= len(blocks) <= 4 or min(blocks) < 1 or args.batch < 1 or args.side < 32:
            parser.error("ResNet-50 takes 1 to 4 stages of 1 or more blocks, batch >= 1, side >= 32")
        model = resnet50(args.batch, args.side, blocks, args.dtype)
    elif args.network == "encoder":
        model = encoder(*args.shape, args.dtype, args.decompose)
    else:
        write_bench(args.directory, list(DTYPES) if args.dtype == "all" else [args.dtype], args.decompose)
        return 0
    save(model, args.output)
    if args.data:
        write_data(model, os.path.dirname(args.output) or ".")
    return 0


if __name__ == "__main__":
    sys.exit(main())
