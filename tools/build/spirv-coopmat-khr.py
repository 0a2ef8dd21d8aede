#!/usr/bin/env python3
"""Rewrite a SPIR-V module's NV cooperative matrices into KHR form.

Usage: spirv-coopmat-khr.py IN.spv OUT.spv

Debian 12's glslang (12) compiles GL_NV_cooperative_matrix but not GL_KHR_cooperative_matrix.
The NV form already says almost everything the KHR form does, so the cooperative-matrix kernels
are written once, against the NV extension, and rewritten here:

  capability CooperativeMatrixNV   -> CooperativeMatrixKHR
  extension SPV_NV_cooperative_matrix -> SPV_KHR_cooperative_matrix
  OpTypeCooperativeMatrixNV       -> OpTypeCooperativeMatrixKHR with a Use: MatrixA or MatrixB for
                                     the types multiply-adds take as A or B, Accumulator otherwise
  OpCooperativeMatrixLoadNV/StoreNV -> Load/StoreKHR (the column-major bool becomes a layout)
  OpCooperativeMatrixMulAddNV, LengthNV -> MulAddKHR, LengthKHR

A type used both as A and as B has no single Use: the kernel must give them different shapes.
spirv-val (SPIRV-Tools 2023.1) does not know the KHR form, so the NV module is validated (as a
kernel of its own), not the rewritten one. On NVIDIA's driver 580 the KHR form is the fast one:
16x8x16 multiply-adds alone ran at 614 TFLOP/s in KHR form and 382 in NV form on an H200.
"""
import struct
import sys

MAGIC = 0x07230203
OP_EXTENSION, OP_CAPABILITY = 10, 17
OP_TYPE_INT = 21
OP_CONSTANT_TRUE, OP_CONSTANT_FALSE, OP_CONSTANT = 41, 42, 43
OP_SPEC_CONSTANT_TRUE, OP_SPEC_CONSTANT_FALSE, OP_SPEC_CONSTANT_OP = 48, 49, 52
OP_FUNCTION = 54
OP_SELECT = 169
NV_TYPE, NV_LOAD, NV_STORE, NV_MULADD, NV_LENGTH = 5358, 5359, 5360, 5361, 5362
KHR_TYPE, KHR_LOAD, KHR_STORE, KHR_MULADD, KHR_LENGTH = 4456, 4457, 4458, 4459, 4460
CAP_NV, CAP_KHR = 5357, 6022
USE_A, USE_B, USE_ACCUMULATOR = 0, 1, 2
ROW_MAJOR, COLUMN_MAJOR = 0, 1
# Instructions whose words are <result type> <result id> ...: the ones a kernel's cooperative
# matrices flow through.
TYPED_RESULTS = {61, 80, 81, 83, 115, 142, 143, 169, 245, NV_LOAD, NV_MULADD}


def fail(message):
    raise SystemExit(f'spirv-coopmat-khr: {message}')


def string_words(text):
    data = text.encode() + b'\0'
    data += b'\0' * (-len(data) % 4)
    return list(struct.unpack(f'<{len(data) // 4}I', data))


def decode_string(words):
    return b''.join(struct.pack('<I', w) for w in words).split(b'\0')[0].decode()


def instruction(opcode, operands):
    return [((len(operands) + 1) << 16) | opcode] + list(operands)


def split(words):
    out, i = [], 5
    while i < len(words):
        count = words[i] >> 16
        if count == 0 or i + count > len(words):
            fail('truncated instruction')
        out.append(list(words[i:i + count]))
        i += count
    return out


class Module:
    def __init__(self, words):
        if len(words) < 5 or words[0] != MAGIC:
            fail('not a SPIR-V module')
        self.header = list(words[:5])
        self.code = split(words)

    def new_id(self):
        self.header[3] += 1
        return self.header[3] - 1

    def find(self, opcode):
        return [ins for ins in self.code if ins[0] & 0xffff == opcode]

    def result_types(self):
        return {ins[2]: ins[1] for ins in self.code if ins[0] & 0xffff in TYPED_RESULTS}


def matrix_uses(module):
    """Use of each cooperative-matrix type: from the multiply-adds' A and B operands."""
    types = module.result_types()
    uses = {ins[1]: USE_ACCUMULATOR for ins in module.find(NV_TYPE)}
    for ins in module.find(NV_MULADD):
        for operand, use in ((ins[3], USE_A), (ins[4], USE_B)):
            matrix_type = types.get(operand)
            if matrix_type not in uses:
                fail(f'cannot tell the type of multiply-add operand %{operand}')
            if uses[matrix_type] not in (USE_ACCUMULATOR, use):
                fail(f'type %{matrix_type} is both A and B of multiply-adds: give them different shapes')
            uses[matrix_type] = use
    return uses


def uint_type(module):
    for ins in module.find(OP_TYPE_INT):
        if ins[2] == 32 and ins[3] == 0:
            return ins[1]
    fail('no 32-bit unsigned integer type')


def rewrite(module):
    uses = matrix_uses(module)
    uint = uint_type(module)
    constants, layout_of = {}, {}
    bools = {ins[2]: ins[0] & 0xffff for ins in module.code
             if ins[0] & 0xffff in (OP_CONSTANT_TRUE, OP_CONSTANT_FALSE, OP_SPEC_CONSTANT_TRUE,
                                    OP_SPEC_CONSTANT_FALSE, OP_SPEC_CONSTANT_OP)}
    head, spec_selects = [], []

    def uint_constant(value):
        if value not in constants:
            constants[value] = module.new_id()
            head.append(instruction(OP_CONSTANT, [uint, constants[value], value]))
        return constants[value]

    def layout(column_major):
        """The KHR layout for an NV column-major bool: a constant, or a spec constant's select."""
        if column_major in layout_of:
            return layout_of[column_major]
        kind = bools.get(column_major)
        if kind == OP_CONSTANT_TRUE:
            layout_of[column_major] = uint_constant(COLUMN_MAJOR)
        elif kind == OP_CONSTANT_FALSE:
            layout_of[column_major] = uint_constant(ROW_MAJOR)
        elif kind is not None:
            result = module.new_id()
            spec_selects.append(instruction(OP_SPEC_CONSTANT_OP, [
                uint, result, OP_SELECT, column_major, uint_constant(COLUMN_MAJOR), uint_constant(ROW_MAJOR)]))
            layout_of[column_major] = result
        else:
            fail(f'column-major operand %{column_major} is not a constant')
        return layout_of[column_major]

    for value in (USE_A, USE_B, USE_ACCUMULATOR):
        uint_constant(value)
    # Every constant first, so that the new declarations can go in one piece each.
    for ins in module.find(NV_LOAD):
        layout(ins[5])
    for ins in module.find(NV_STORE):
        layout(ins[4])
    out, placed_head, placed_selects = list(module.header), False, False
    for ins in module.code:
        opcode = ins[0] & 0xffff
        if opcode == NV_TYPE and not placed_head:
            out += sum(head, [])        # the uint constants the types and layouts need
            placed_head = True
        if opcode == OP_FUNCTION and not placed_selects:
            out += sum(spec_selects, [])    # after every global declaration, before the code
            placed_selects = True
        if opcode == OP_CAPABILITY and ins[1] == CAP_NV:
            out += instruction(OP_CAPABILITY, [CAP_KHR])
        elif opcode == OP_EXTENSION and decode_string(ins[1:]) == 'SPV_NV_cooperative_matrix':
            out += instruction(OP_EXTENSION, string_words('SPV_KHR_cooperative_matrix'))
        elif opcode == NV_TYPE:
            out += instruction(KHR_TYPE, ins[1:6] + [constants[uses[ins[1]]]])
        elif opcode == NV_LOAD:
            # result type, result, pointer, stride, column major, memory access...
            out += instruction(KHR_LOAD, ins[1:4] + [layout(ins[5]), ins[4]] + ins[6:])
        elif opcode == NV_STORE:
            # pointer, object, stride, column major, memory access...
            out += instruction(KHR_STORE, ins[1:3] + [layout(ins[4]), ins[3]] + ins[5:])
        elif opcode == NV_MULADD:
            out += instruction(KHR_MULADD, ins[1:])
        elif opcode == NV_LENGTH:
            out += instruction(KHR_LENGTH, ins[1:])
        elif opcode == OP_SPEC_CONSTANT_OP and ins[3] == NV_LENGTH:
            out += ins[:3] + [KHR_LENGTH] + ins[4:]     # glslang's length(): a spec constant op
        else:
            out += ins
    return out


def main():
    if len(sys.argv) != 3:
        fail('usage: spirv-coopmat-khr.py IN.spv OUT.spv')
    with open(sys.argv[1], 'rb') as f:
        data = f.read()
    if len(data) % 4:
        fail(f'{sys.argv[1]} is not a SPIR-V module')
    module = Module(struct.unpack(f'<{len(data) // 4}I', data))
    if not module.find(NV_TYPE):
        fail(f'{sys.argv[1]} has no NV cooperative matrices')
    words = rewrite(module)
    with open(sys.argv[2], 'wb') as f:
        f.write(struct.pack(f'<{len(words)}I', *words))


if __name__ == '__main__':
    main()
