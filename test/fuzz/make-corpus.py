#!/usr/bin/env python3
"""Writes the operator-desc fuzzer's seed corpus (test/fuzz/corpus/operator_desc/, README.md "Fuzzing").

Each seed is a valid desc of an operator vkdml implements, in the byte format fuzz_operator_desc.c
decodes (its header comment describes it; keep the two in step), so that fuzzing starts from inputs
that reach compilation and the initializer. Field layouts come from tools/directml-schema.json.

    test/fuzz/make-corpus.py [OUTPUT_DIR]
"""
import json
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA_TYPES = {'FLOAT32': 1, 'FLOAT16': 2, 'UINT32': 3, 'UINT8': 5, 'INT32': 6}
VALUE_KINDS = ('UINT', 'INT', 'FLOAT', 'float', 'BOOL', 'DML_SIZE_2D', 'DML_SCALAR_UNION')


def tensor(shape, data_type='FLOAT32'):
    """A packed buffer tensor: selector, DataType, Flags, rank, sizes, no strides, computed size."""
    assert 1 <= len(shape) <= 8 and all(1 <= s <= 16 for s in shape)
    return bytes([0, DATA_TYPES[data_type] - 1, 0, len(shape) - 1] + [s - 1 for s in shape] + [0, 0, 0])


def small_uint(value):
    assert 0 <= value < 8
    return bytes([value])


def small_float(value):
    code = int(value * 2) + 4
    assert 0 <= code < 16 and (code - 4) * 0.5 == value, value
    return bytes([code])


def operator_type(value):
    return struct.pack('<H', value)


class Encoder:
    def __init__(self, schema):
        self.operators = {op['name']: op for op in schema['operators']}

    def operator(self, name, values, nested=False):
        """values: field name -> shape list (tensor), (shape, type), number, list (array), None
        (NULL pointer), or (operator name, values) for FusedActivation."""
        op = self.operators[name]
        out = (bytes([0xf0]) if nested else b'') + operator_type(op['value'])
        counts = {f['array'] for f in op['fields'] if 'array' in f}
        for field in op['fields']:
            if field['type'] in VALUE_KINDS or field['type'].startswith('DML_'):
                out += self.value(field, values.get(field['name'], 0), field['name'] in counts)
        for field in op['fields']:
            if field['type'].startswith('const'):
                out += self.pointer(field, values.get(field['name']))
        return out

    def value(self, field, value, is_count):
        kind = field['type']
        if kind in ('FLOAT', 'float'):
            return small_float(value)
        if kind == 'DML_SCALAR_UNION':
            return struct.pack('<f', value) + bytes(4)
        if kind == 'INT':
            assert -4 <= value <= 4
            return bytes([value + 4])
        if kind == 'DML_SIZE_2D':
            return small_uint(value[0]) + small_uint(value[1])
        if is_count:
            assert 0 <= value <= 8
            return bytes([value])
        return small_uint(value)

    def pointer(self, field, value):
        kind = field['type']
        if kind == 'const DML_TENSOR_DESC*' and 'array' not in field:
            if value is None:
                return bytes([0x0f])
            return tensor(*value) if isinstance(value, tuple) else tensor(value)
        if kind == 'const DML_TENSOR_DESC*':
            return b'\0' + b''.join(tensor(shape) for shape in value)
        if kind == 'const DML_OPERATOR_DESC*' and 'array' not in field:
            return b'\0' if value is None else b'\1' + self.operator(value[0], value[1], nested=True)
        if kind == 'const DML_SCALE_BIAS*':
            return b'\0' if value is None else b'\1' + small_float(value[0]) + small_float(value[1])
        if kind in ('const UINT*', 'const INT*'):
            return b'\0' + b''.join(small_uint(v) for v in value)
        if kind == 'const FLOAT*':
            return b'\0' + b''.join(small_float(v) for v in value)
        raise ValueError(f'no seed encoding for {field["name"]} ({kind})')


def seeds():
    """(file name, operator, field values): every implemented family, plain and with options."""
    s4 = [1, 2, 3, 4]
    unary = ['ELEMENT_WISE_IDENTITY', 'ELEMENT_WISE_ABS', 'ELEMENT_WISE_SQRT', 'ELEMENT_WISE_EXP',
             'ELEMENT_WISE_SIN', 'ELEMENT_WISE_NEGATE', 'ELEMENT_WISE_SIGN', 'ELEMENT_WISE_ERF']
    binary = ['ELEMENT_WISE_ADD', 'ELEMENT_WISE_SUBTRACT', 'ELEMENT_WISE_MULTIPLY', 'ELEMENT_WISE_DIVIDE',
              'ELEMENT_WISE_MAX', 'ELEMENT_WISE_MIN', 'ELEMENT_WISE_MODULUS_FLOOR', 'ELEMENT_WISE_ATAN_YX']
    activations = ['ACTIVATION_RELU', 'ACTIVATION_SIGMOID', 'ACTIVATION_TANH', 'ACTIVATION_ELU',
                   'ACTIVATION_SOFTPLUS', 'ACTIVATION_HARD_SWISH', 'ACTIVATION_GELU', 'ACTIVATION_SHRINK']
    for name in unary:
        yield name.lower(), name, {'InputTensor': s4, 'OutputTensor': s4}
    yield 'identity_scale_bias', 'ELEMENT_WISE_IDENTITY', {'InputTensor': [8], 'OutputTensor': [8],
                                                          'ScaleBias': (0.5, 1.0)}
    yield 'identity_int32', 'ELEMENT_WISE_IDENTITY', {'InputTensor': ([2, 3], 'INT32'),
                                                     'OutputTensor': ([2, 3], 'INT32')}
    yield 'clip', 'ELEMENT_WISE_CLIP', {'InputTensor': s4, 'OutputTensor': s4, 'Min': -1.0, 'Max': 1.0}
    yield 'clip1', 'ELEMENT_WISE_CLIP1', {'InputTensor': s4, 'OutputTensor': s4, 'MinMaxDataType': 1,
                                          'Min': -1.0, 'Max': 1.0}
    yield 'round', 'ELEMENT_WISE_ROUND', {'InputTensor': s4, 'OutputTensor': s4, 'RoundingMode': 1}
    for name in binary:
        yield name.lower(), name, {'ATensor': s4, 'BTensor': s4, 'OutputTensor': s4}
    yield 'add1_relu', 'ELEMENT_WISE_ADD1', {'ATensor': s4, 'BTensor': s4, 'OutputTensor': s4,
                                             'FusedActivation': ('ACTIVATION_RELU', {})}
    yield 'greater_than', 'ELEMENT_WISE_LOGICAL_GREATER_THAN', {
        'ATensor': s4, 'BTensor': s4, 'OutputTensor': (s4, 'UINT8')}
    yield 'logical_and', 'ELEMENT_WISE_LOGICAL_AND', {
        'ATensor': (s4, 'UINT8'), 'BTensor': (s4, 'UINT8'), 'OutputTensor': (s4, 'UINT8')}
    yield 'bit_shift_left', 'ELEMENT_WISE_BIT_SHIFT_LEFT', {
        'ATensor': (s4, 'UINT32'), 'BTensor': (s4, 'UINT32'), 'OutputTensor': (s4, 'UINT32')}
    yield 'if', 'ELEMENT_WISE_IF', {'ConditionTensor': (s4, 'UINT8'), 'ATensor': s4, 'BTensor': s4,
                                    'OutputTensor': s4}
    yield 'is_infinity', 'ELEMENT_WISE_IS_INFINITY', {'InputTensor': s4, 'OutputTensor': (s4, 'UINT8')}
    for name in activations:
        yield name.lower(), name, {'InputTensor': s4, 'OutputTensor': s4, 'Alpha': 1.0}
    yield 'parameterized_relu', 'ACTIVATION_PARAMETERIZED_RELU', {'InputTensor': s4, 'SlopeTensor': s4,
                                                                  'OutputTensor': s4}
    yield 'gemm', 'GEMM', {'ATensor': [1, 1, 4, 8], 'BTensor': [1, 1, 8, 3], 'CTensor': None,
                           'OutputTensor': [1, 1, 4, 3], 'Alpha': 1.0}
    yield 'gemm_bias_relu', 'GEMM', {'ATensor': [1, 1, 8, 4], 'BTensor': [1, 1, 8, 3], 'CTensor': [1, 1, 4, 3],
                                     'OutputTensor': [1, 1, 4, 3], 'TransA': 1, 'Alpha': 1.0, 'Beta': 1.0,
                                     'FusedActivation': ('ACTIVATION_RELU', {})}
    conv = {'InputTensor': [1, 2, 5, 5], 'FilterTensor': [3, 2, 3, 3], 'BiasTensor': None,
            'OutputTensor': [1, 3, 3, 3], 'DimensionCount': 2, 'Strides': [1, 1], 'Dilations': [1, 1],
            'StartPadding': [0, 0], 'EndPadding': [0, 0], 'OutputPadding': [0, 0], 'GroupCount': 1}
    yield 'convolution', 'CONVOLUTION', conv
    yield 'convolution_bias_relu_padded', 'CONVOLUTION', dict(
        conv, BiasTensor=[1, 3, 1, 1], OutputTensor=[1, 3, 5, 5], StartPadding=[1, 1], EndPadding=[1, 1],
        FusedActivation=('ACTIVATION_RELU', {}))
    yield 'convolution_backward', 'CONVOLUTION', dict(
        conv, InputTensor=[1, 2, 3, 3], FilterTensor=[2, 3, 3, 3], OutputTensor=[1, 3, 5, 5], Direction=1)
    yield 'convolution_1d_groups', 'CONVOLUTION', dict(
        conv, InputTensor=[1, 4, 8], FilterTensor=[4, 2, 3], OutputTensor=[1, 4, 3], DimensionCount=1,
        Strides=[2], Dilations=[1], StartPadding=[0], EndPadding=[0], OutputPadding=[0], GroupCount=2)
    window = {'DimensionCount': 2, 'WindowSizes': [2, 2], 'Strides': [1, 1], 'Dilations': [1, 1],
              'StartPadding': [0, 0], 'EndPadding': [0, 0]}
    yield 'unfold', 'UNFOLD', dict(window, InputTensor=[1, 2, 4, 4], OutputTensor=[1, 8, 9])
    yield 'fold', 'FOLD', dict(window, InputTensor=[1, 8, 9], OutputTensor=[1, 2, 4, 4])
    yield 'unimplemented_softmax', 'ACTIVATION_SOFTMAX', {'InputTensor': [2, 3], 'OutputTensor': [2, 3]}
    yield 'unimplemented_join', 'JOIN', {'InputCount': 2, 'InputTensors': [[2, 3], [2, 3]], 'OutputTensor': [4, 3]}


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'test', 'fuzz', 'corpus', 'operator_desc')
    with open(os.path.join(ROOT, 'tools', 'directml-schema.json')) as f:
        encoder = Encoder(json.load(f))
    os.makedirs(out_dir, exist_ok=True)
    for old in os.listdir(out_dir):
        os.remove(os.path.join(out_dir, old))
    count = 0
    for file_name, name, values in seeds():
        with open(os.path.join(out_dir, file_name), 'wb') as f:
            f.write(encoder.operator(name, values))
        count += 1
    print(f'make-corpus: {count} seeds in {out_dir}')


if __name__ == '__main__':
    main()
