#!/usr/bin/env python3
"""Structural test of tools/build/spirv-coopmat-khr.py (NV -> KHR cooperative matrices).

Usage: test_spirv_coopmat_khr.py REWRITER GLSLANG [NV.spv KHR.spv]...

spirv-val of Debian 12 cannot read the KHR form, so the output is decoded here and compared,
instruction by instruction, with the NV input. The optional pairs are the built kernels.
"""
import os
import struct
import subprocess
import sys
import tempfile
import unittest

MAGIC = 0x07230203
OP_STRING, OP_EXTENSION, OP_EXT_INST_IMPORT, OP_CAPABILITY = 7, 10, 11, 17
OP_TYPE_INT, OP_TYPE_FLOAT = 21, 22
OP_CONSTANT_TRUE, OP_CONSTANT_FALSE, OP_CONSTANT = 41, 42, 43
OP_SPEC_CONSTANT_OP = 52
OP_FUNCTION, OP_DECORATION_GROUP, OP_SELECT, OP_LABEL = 54, 73, 169, 248
NV_TYPE, NV_LOAD, NV_STORE, NV_MULADD, NV_LENGTH = 5358, 5359, 5360, 5361, 5362
KHR_TYPE, KHR_LOAD, KHR_STORE, KHR_MULADD, KHR_LENGTH = 4456, 4457, 4458, 4459, 4460
NV_OPS = {NV_TYPE, NV_LOAD, NV_STORE, NV_MULADD, NV_LENGTH}
CAP_NV, CAP_KHR = 5357, 6022
EXT_NV, EXT_KHR = 'SPV_NV_cooperative_matrix', 'SPV_KHR_cooperative_matrix'
USE_A, USE_B, USE_ACCUMULATOR = 0, 1, 2
# Result id in word 1: types (but OpTypeForwardPointer, 39) and a few others. Every other
# instruction whose word 1 is a type id has its result in word 2 (valid modules declare types
# after the debug and annotation instructions, whose word 1 may name a type).
TYPE_OPS = set(range(19, 39)) | {NV_TYPE, KHR_TYPE}
RESULT_FIRST = TYPE_OPS | {OP_STRING, OP_EXT_INST_IMPORT, OP_DECORATION_GROUP, OP_LABEL}

PRELUDE = '''#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 32) in;
layout(constant_id = 0) const bool COL = false;
layout(binding = 0) buffer In { float16_t a[]; };
layout(binding = 1) buffer Out { float c[]; };
shared float16_t sh[256];
#define A16x16 fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define B16x8 fcoopmatNV<16, gl_ScopeSubgroup, 16, 8>
#define C16x8 fcoopmatNV<32, gl_ScopeSubgroup, 16, 8>
#define C16x16 fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
'''
# A row-major from a buffer, column-major from shared memory, and by a spec constant (plain and
# negated, an OpSpecConstantOp bool); B; the accumulator stored; its length() (a spec constant op).
MAIN = PRELUDE + '''void main() {
  A16x16 a0, a1, a2; B16x8 b; C16x8 acc = C16x8(0.0);
  coopMatLoadNV(a0, a, 0, 16, false);
  coopMatLoadNV(a1, sh, 0, 16, true);
  coopMatLoadNV(a2, a, 256, 24, COL);
  coopMatLoadNV(b, a, 512, 8, false);
  acc = coopMatMulAddNV(a0, b, acc);
  acc = coopMatMulAddNV(a1, b, acc);
  acc = coopMatMulAddNV(a2, b, acc);
  coopMatStoreNV(acc, c, 0, 8, false);
  coopMatStoreNV(acc, c, 128, 12, true);
  coopMatStoreNV(acc, c, 256, 20, !COL);
  c[gl_SubgroupInvocationID] = float(acc.length());
}
'''
BOTH_A_AND_B = PRELUDE + '''void main() {
  A16x16 x; C16x16 acc = C16x16(0.0);
  coopMatLoadNV(x, a, 0, 16, false);
  acc = coopMatMulAddNV(x, x, acc);
  coopMatStoreNV(acc, c, 0, 16, false);
}
'''
PLAIN = PRELUDE + 'void main() { c[gl_SubgroupInvocationID] = float(a[0]); }\n'


def opcode(ins):
    return ins[0] & 0xffff


def instruction(op, operands):
    return [((len(operands) + 1) << 16) | op] + list(operands)


def string(words):
    return struct.pack(f'<{len(words)}I', *words).split(b'\0')[0].decode()


class Spirv:
    """A decoded module: header, instructions, and each result id's instruction and position."""

    def __init__(self, data):
        assert len(data) % 4 == 0 and len(data) >= 20, 'not whole words'
        words = struct.unpack(f'<{len(data) // 4}I', data)
        self.header, self.code, i = list(words[:5]), [], 5
        while i < len(words):
            count = words[i] >> 16
            assert count and i + count <= len(words), f'bad word count at word {i}'
            self.code.append(list(words[i:i + count]))
            i += count
        self.defs, self.pos, types = {}, {}, set()
        for pos, ins in enumerate(self.code):
            result = self.result_of(ins, types)
            if result is not None:
                assert result not in self.defs, f'%{result} defined twice'
                self.defs[result], self.pos[result] = ins, pos

    @staticmethod
    def result_of(ins, types):
        if opcode(ins) in RESULT_FIRST:
            if opcode(ins) in TYPE_OPS:
                types.add(ins[1])
            return ins[1]
        return ins[2] if len(ins) > 2 and ins[1] in types else None

    def find(self, op):
        return [ins for ins in self.code if opcode(ins) == op]

    def value(self, ident, of_type=None):
        """The literal of a 32-bit OpConstant (of of_type, if given)."""
        ins = self.defs[ident]
        assert opcode(ins) == OP_CONSTANT and len(ins) == 4, f'%{ident} is not a 32-bit constant'
        assert of_type in (None, ins[1]), f'%{ident} is not of type %{of_type}'
        return ins[3]

    def uint_type(self):
        return [ins[1] for ins in self.find(OP_TYPE_INT) if ins[2:] == [32, 0]][0]

    def first_function(self):
        return [opcode(ins) for ins in self.code].index(OP_FUNCTION)


def expected_uses(khr):
    """Use of each KHR matrix type as the multiply-adds say: A, B, else accumulator."""
    uses = {ins[1]: USE_ACCUMULATOR for ins in khr.find(KHR_TYPE)}
    for ins in khr.find(KHR_MULADD):
        for operand, use in ((ins[3], USE_A), (ins[4], USE_B)):
            uses[khr.defs[operand][1]] = use
    return uses


def layout_of(khr, ident):
    """A KHR layout operand: 0 or 1, or ('select', bool) for a spec constant's select."""
    ins, uint = khr.defs[ident], khr.uint_type()
    assert khr.pos[ident] < khr.first_function(), f'layout %{ident} not global'
    assert ins[1] == uint, f'layout %{ident} not a 32-bit uint'
    if opcode(ins) == OP_CONSTANT:
        assert ins[3] in (0, 1), ins
        return ins[3]
    assert opcode(ins) == OP_SPEC_CONSTANT_OP and ins[3] == OP_SELECT, ins
    assert (khr.value(ins[5], uint), khr.value(ins[6], uint)) == (1, 0), ins
    return ('select', ins[4])


def nv_layout(nv, ident):
    """What an NV column-major bool must become."""
    op = opcode(nv.defs[ident])
    return {OP_CONSTANT_TRUE: 1, OP_CONSTANT_FALSE: 0}.get(op, ('select', ident))


class Checks(unittest.TestCase):
    def check_khr(self, khr):
        """What any rewritten module must satisfy, without its input."""
        self.assertEqual(khr.header[0], MAGIC)
        self.assertGreater(khr.header[3], max(khr.defs), 'id bound')
        ops = {opcode(ins) for ins in khr.code}
        self.assertFalse(ops & NV_OPS, 'NV instructions left')
        spec_ops = {ins[3] for ins in khr.find(OP_SPEC_CONSTANT_OP)}
        self.assertFalse(spec_ops & NV_OPS, 'NV spec constant ops left')
        caps = [ins[1] for ins in khr.find(OP_CAPABILITY)]
        self.assertIn(CAP_KHR, caps)
        self.assertNotIn(CAP_NV, caps)
        exts = [string(ins[1:]) for ins in khr.find(OP_EXTENSION)]
        self.assertIn(EXT_KHR, exts)
        self.assertNotIn(EXT_NV, exts)
        self.check_types(khr)
        for ins in khr.find(KHR_LOAD):
            layout_of(khr, ins[4])
        for ins in khr.find(KHR_STORE):
            layout_of(khr, ins[3])

    def check_types(self, khr):
        uses, uint = expected_uses(khr), khr.uint_type()
        self.assertTrue(uses, 'no KHR matrix types')
        for ins in khr.find(KHR_TYPE):
            self.assertEqual(len(ins), 7, ins)    # result, component, scope, rows, columns, use
            self.assertEqual(khr.value(ins[6], uint), uses[ins[1]], ins)
            self.assertLess(khr.pos[ins[6]], khr.pos[ins[1]], 'use defined after its type')

    def check_rewrite(self, nv, khr):
        """khr is nv with each NV instruction rewritten in place and global constants added."""
        self.assertEqual(khr.header[:3] + khr.header[4:], nv.header[:3] + nv.header[4:])
        new_ids = {khr.pos[ident] for ident in khr.defs if ident >= nv.header[3]}
        added = [ins for pos, ins in enumerate(khr.code) if pos in new_ids]
        kept = [ins for pos, ins in enumerate(khr.code) if pos not in new_ids]
        self.assertEqual(len(kept), len(nv.code), 'instruction count')
        for ins in added:
            self.check_added(khr, ins)
        for pos, (old, new) in enumerate(zip(nv.code, kept)):
            self.assertEqual(new, self.rewritten(nv, khr, old, new), f'instruction {pos}')

    def check_added(self, khr, ins):
        """New uint constants and selects: global, and after what they refer to."""
        self.assertIn(opcode(ins), (OP_CONSTANT, OP_SPEC_CONSTANT_OP), ins)
        self.assertLess(khr.pos[ins[2]], khr.first_function(), ins)
        refs = [ins[1]] + (ins[4:] if opcode(ins) == OP_SPEC_CONSTANT_OP else [])
        for ref in refs:
            self.assertLess(khr.pos[ref], khr.pos[ins[2]], f'%{ref} used before defined')

    def rewritten(self, nv, khr, old, new):
        """What old must have become (the layout and use operands taken from new, checked)."""
        op = opcode(old)
        if op == NV_LOAD:       # result type, result, pointer, stride, column major, access...
            self.assertEqual(layout_of(khr, new[4]), nv_layout(nv, old[5]), old)
            return instruction(KHR_LOAD, old[1:4] + [new[4], old[4]] + old[6:])
        if op == NV_STORE:      # pointer, object, stride, column major, access...
            self.assertEqual(layout_of(khr, new[3]), nv_layout(nv, old[4]), old)
            return instruction(KHR_STORE, old[1:3] + [new[3], old[3]] + old[5:])
        if op == NV_TYPE:
            return instruction(KHR_TYPE, old[1:6] + new[6:7])
        if op in (NV_MULADD, NV_LENGTH):
            return instruction(op - NV_MULADD + KHR_MULADD, old[1:])
        if op == OP_SPEC_CONSTANT_OP and old[3] == NV_LENGTH:
            return old[:3] + [KHR_LENGTH] + old[4:]
        if op == OP_CAPABILITY and old[1] == CAP_NV:
            return instruction(OP_CAPABILITY, [CAP_KHR])
        if op == OP_EXTENSION and string(old[1:]) == EXT_NV:
            data = EXT_KHR.encode() + b'\0' * (4 - len(EXT_KHR) % 4)
            return instruction(OP_EXTENSION, struct.unpack(f'<{len(data) // 4}I', data))
        return old


class RewriterTest(Checks):
    rewriter = glslang = None
    kernels = []

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def compile(self, source):
        with open(self.path('k.comp'), 'w') as f:
            f.write(source)
        subprocess.run([self.glslang, '-V', '--target-env', 'vulkan1.2', '-S', 'comp', '-o',
                        self.path('k.spv'), self.path('k.comp')], check=True, stdout=subprocess.DEVNULL)
        return self.path('k.spv')

    def rewrite(self, spv):
        return subprocess.run([sys.executable, self.rewriter, spv, self.path('khr.spv')],
                              stderr=subprocess.PIPE, text=True)

    def check_file_pair(self, nv_path, khr_path):
        with open(nv_path, 'rb') as f, open(khr_path, 'rb') as g:
            nv, khr = Spirv(f.read()), Spirv(g.read())
        self.check_khr(khr)
        self.check_rewrite(nv, khr)
        return khr

    def test_rewrite(self):
        spv = self.compile(MAIN)
        done = self.rewrite(spv)
        self.assertEqual(done.returncode, 0, done.stderr)
        khr = self.check_file_pair(spv, self.path('khr.spv'))
        self.assertEqual(len(khr.find(KHR_LOAD)), 4)
        self.assertEqual(len(khr.find(KHR_STORE)), 3)
        self.assertEqual(self.uses_by_shape(khr), {(16, 16, 16): USE_A, (16, 16, 8): USE_B, (32, 16, 8): USE_ACCUMULATOR})

    @staticmethod
    def uses_by_shape(khr):
        """(component bits, rows, columns) -> use, for each KHR matrix type."""
        shapes = {}
        for ins in khr.find(KHR_TYPE):
            component = khr.defs[ins[2]]
            assert opcode(component) == OP_TYPE_FLOAT, component
            shapes[(component[2], khr.value(ins[4]), khr.value(ins[5]))] = khr.value(ins[6])
        return shapes

    def expect_failure(self, spv, message):
        done = self.rewrite(spv)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn(message, done.stderr)

    def test_type_both_a_and_b(self):
        self.expect_failure(self.compile(BOTH_A_AND_B), 'both A and B')

    def test_not_spirv(self):
        for data in (b'not SPIR-V', b'\0' * 24):    # not whole words; no magic
            with open(self.path('bad.spv'), 'wb') as f:
                f.write(data)
            self.expect_failure(self.path('bad.spv'), 'not a SPIR-V module')

    def test_no_cooperative_matrices(self):
        self.expect_failure(self.compile(PLAIN), 'no NV cooperative matrices')

    def test_built_kernels(self):
        if not self.kernels:
            self.skipTest('no built kernels given')
        for nv_path, khr_path in self.kernels:
            with self.subTest(kernel=os.path.basename(khr_path)):
                self.check_file_pair(nv_path, khr_path)


if __name__ == '__main__':
    if len(sys.argv) < 3 or len(sys.argv) % 2 == 0:
        sys.exit(__doc__)
    RewriterTest.rewriter, RewriterTest.glslang = sys.argv[1:3]
    RewriterTest.kernels = list(zip(sys.argv[3::2], sys.argv[4::2]))
    unittest.main(argv=sys.argv[:1], verbosity=2)
