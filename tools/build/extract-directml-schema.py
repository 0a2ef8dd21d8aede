#!/usr/bin/env python3
"""One-off extraction: DirectML fact sheet (markdown) -> tools/directml-schema.json.

Usage: tools/build/extract-directml-schema.py PATH/TO/directml-api.md [-o OUT.json]

The fact sheet is the research record; the JSON it produces is the project's
source of truth afterwards (tools/build/gen-directml-header.py reads only the JSON).
Re-run this only to re-import a revised fact sheet, then review the JSON diff.
Every table is cross-checked while parsing, so a malformed or inconsistent
fact sheet stops the import instead of producing a bad schema.
"""

import argparse
import json
import re
import sys
from pathlib import Path

SECTION_RE = re.compile(r'^(#{2,4}) (.*)$')


class FactSheetError(Exception):
    pass


def fail(msg):
    raise FactSheetError(msg)


# --- markdown helpers -------------------------------------------------------

def split_sections(lines):
    """Map each heading text to the lines below it (up to the next heading)."""
    sections = {}
    order = []
    current = None
    for line in lines:
        m = SECTION_RE.match(line)
        if m:
            current = m.group(2).strip()
            sections[current] = []
            order.append(current)
        elif current is not None:
            sections[current].append(line)
    return sections, order


def find_section(sections, prefix):
    hits = [k for k in sections if k.startswith(prefix)]
    if len(hits) != 1:
        fail(f'expected one section starting with {prefix!r}, found {hits}')
    return sections[hits[0]]


def table_rows(lines):
    """Rows of the markdown tables in `lines`, header and separator dropped."""
    rows = []
    in_table = False
    for line in lines:
        if not line.startswith('|'):
            in_table = False
            continue
        cells = [c.strip() for c in re.split(r'(?<!\\)\|', line.strip()[1:-1])]
        if not in_table:
            in_table = True  # header row
            continue
        if all(re.fullmatch(r':?-+:?', c) for c in cells):
            continue
        rows.append(cells)
    return rows


def untick(cell):
    return cell.strip().strip('`').strip()


def guard_of(text):
    """'always' -> None, '≥ 0x3000' or '>= 0x3000' -> '0x3000'."""
    text = text.strip()
    if text in ('always', '', '–'):
        return None
    m = re.search(r'0x([0-9A-Fa-f]{4})', text)
    if not m:
        fail(f'unrecognised guard {text!r}')
    return '0x' + m.group(1).upper()


def guard_of_fl(fl):
    """Feature level '2_1' -> '0x2100'; 1_0 needs no guard."""
    major, minor = fl.split('_')
    value = f'0x{int(major):X}{int(minor):X}00'
    return None if value == '0x1000' else value


def int_value(text):
    text = text.strip()
    return int(text, 16) if text.lower().startswith('0x') else int(text)


# --- C types and parameters -------------------------------------------------

def norm_type(t):
    """Canonical spelling of a C type: 'const UINT*', 'IDMLX* const*'."""
    t = re.sub(r'\s+', ' ', t.strip())
    t = re.sub(r'\s*\*', '*', t)
    t = re.sub(r'\*(?=[A-Za-z_])', '* ', t)
    return t


SAL_RE = re.compile(r'^(_[A-Za-z_]+_)(\([^()]*\))?\s+')


def parse_param(text):
    """'_In_reads_opt_(n) const void* data /*note*/' -> dict."""
    text = text.strip()
    param = {}
    m = re.search(r'/\*\s*(.*?)\s*\*/', text)
    if m:
        param['note'] = m.group(1)
        text = (text[:m.start()] + text[m.end():]).strip()
    m = SAL_RE.match(text)
    if m:
        param['sal'] = m.group(0).strip()
        text = text[m.end():]
    m = re.fullmatch(r'(.*?)\s*\b([A-Za-z_][A-Za-z0-9_]*)', text)
    if not m or not m.group(1):
        fail(f'cannot parse parameter {text!r}')
    out = {'type': norm_type(m.group(1)), 'name': m.group(2)}
    out.update(param)
    return out


def parse_params(text):
    text = untick(text)
    if text in ('–', '-', '') or text.startswith('– '):
        return []
    parts, depth, cur = [], 0, ''
    for ch in text:
        if ch == ',' and depth == 0:
            parts.append(cur)
            cur = ''
            continue
        depth += ch == '('
        depth -= ch == ')'
        cur += ch
    parts.append(cur)
    return [parse_param(p) for p in parts]


def parse_annotation(text):
    """Field annotation cell -> {array, nullable, note} (only keys that apply)."""
    out = {}
    rest = []
    for part in [p.strip() for p in text.split(',') if p.strip()]:
        m = re.fullmatch(r'(optional )?array\[(\w+)\]', part)
        if m:
            out['array'] = m.group(2)
            if m.group(1):
                out['nullable'] = True
        elif part == 'nullable':
            out['nullable'] = True
        else:
            rest.append(part)
    if rest:
        out['note'] = ', '.join(rest)
    return out


# --- sections ---------------------------------------------------------------

def parse_target_version(lines):
    text = '\n'.join(lines)
    m = re.search(r'→ \*\*(0x[0-9A-F]{4})\*\*', text)
    if not m:
        fail('default DML_TARGET_VERSION not found in §1.1')
    selection = []
    for ntddi, ver in re.findall(r'(NTDDI_WIN10_\w+)`?[^→\n]*→ (0x[0-9A-F]{4})', text):
        selection.append({'ntddi': ntddi, 'version': ver})
    m_else = re.search(r'otherwise[^→]*→ (0x[0-9A-F]{4})', text)
    m_guards = re.search(r'The guard values used are ([^;]*?);', text, re.S)
    if not (selection and m_else and m_guards):
        fail('§1.1 target version selection incomplete')
    guards = re.findall(r'0x[0-9A-F]{4}', m_guards.group(1))
    return {
        'default': m.group(1),
        'selection': selection,
        'fallback': m_else.group(1),
        'guards': guards,
    }


def parse_constants(lines):
    consts = []
    for cells in table_rows(lines):
        name, ctype, value, guard, meaning = cells[:5]
        consts.append({
            'name': name, 'type': untick(ctype).replace('static const ', ''),
            'value': int_value(value), 'guard': guard_of(guard), 'doc': meaning,
        })
    return consts


def parse_functions(lines):
    funcs = []
    for cells in table_rows(lines):
        if not untick(cells[1]).startswith('STDAPI'):
            continue  # the DML_CREATE_DEVICE_FLAGS table shares the section
        name, sig, notes = untick(cells[0]), untick(cells[1]), cells[2]
        m = re.fullmatch(r'STDAPI (\w+)\((.*)\)', sig)
        if not m or m.group(1) != name:
            fail(f'bad function signature {sig!r}')
        g = re.search(r'Guarded by `>= (0x[0-9A-F]{4})`', notes)
        funcs.append({'name': name, 'returns': 'HRESULT',
                      'params': parse_params(m.group(2)),
                      'guard': g.group(1) if g else None})
    return funcs


def iid_from_string(s):
    m = re.fullmatch(r'([0-9A-F]{8})-([0-9A-F]{4})-([0-9A-F]{4})-([0-9A-F]{4})-([0-9A-F]{12})', s)
    if not m:
        fail(f'bad IID {s!r}')
    d4 = m.group(4) + m.group(5)
    return [int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16)] + \
        [int(d4[i:i + 2], 16) for i in range(0, 16, 2)]


def iid_from_initializer(s):
    nums = [int(x, 16) for x in re.findall(r'0x([0-9A-Fa-f]+)', s)]
    if len(nums) != 11:
        fail(f'bad IID initializer {s!r}')
    return nums


def parse_interfaces(iid_lines, vtbl_lines):
    ifaces = {}
    order = []
    for cells in table_rows(iid_lines):
        name, base, iid_s, iid_c, since = cells[:5]
        iid_s, iid_c = untick(iid_s), untick(iid_c)
        if iid_from_string(iid_s) != iid_from_initializer(iid_c):
            fail(f'{name}: IID string and initializer disagree')
        m = re.search(r'guard (0x[0-9A-F]{4})', since)
        ifaces[name] = {
            'name': name, 'base': None if base == '–' else base,
            'iid': iid_s, 'iid_c': iid_c,
            'guard': m.group(1) if m else guard_of_fl(since.split()[0]) if since != 'always' else None,
            'methods': [],
        }
        order.append(name)
    for cells in table_rows(vtbl_lines):
        slot, owner, method, ret, params = cells[:5]
        if slot in ('–', '-'):
            continue  # tag interfaces without methods of their own
        ret = ret.replace('*', '').strip()
        by_value = '(returned by value)' in ret
        ret = ret.replace('(returned by value)', '').strip()
        entry = {'slot': int(slot), 'name': method, 'returns': ret,
                 'params': parse_params(params)}
        if by_value:
            entry['struct_return'] = True
        ifaces[owner]['methods'].append(entry)
    text = '\n'.join(vtbl_lines)
    m = re.search(r'Full vtable sizes, in slots: (.*?)\.\n', text, re.S)
    if not m:
        fail('vtable sizes line not found')
    sizes = {}
    for part in m.group(1).replace('\n', ' ').split(';'):
        names, count = part.strip().rsplit(' ', 1)
        for n in re.split(r',\s*|\s+and\s+', names.strip()):
            sizes[n.strip()] = int(count)
    for name in order:
        if name == 'IUnknown':
            ifaces[name]['external'] = True
            continue
        if name not in sizes:
            fail(f'no vtable size for {name}')
        ifaces[name]['vtable_slots'] = sizes[name]
    return [ifaces[n] for n in order]


def parse_enums(lines):
    enums = []
    sections, order = split_sections(lines)
    for name in order:
        body = sections[name]
        text = '\n'.join(body)
        if 'Enum always declared.' in text:
            guard = None
        else:
            m = re.search(r'Whole enum guarded by `DML_TARGET_VERSION >= (0x[0-9A-F]{4})`', text)
            if not m:
                fail(f'{name}: no guard statement')
            guard = m.group(1)
        values = []
        hex_style = False
        for cells in table_rows(body):
            if cells[0].startswith('*('):
                continue  # DML_OPERATOR_TYPE: listed in §8.1
            hex_style |= cells[1].lower().startswith('0x')
            values.append({'name': cells[0], 'value': int_value(cells[1]),
                           'guard': guard_of(cells[2])})
        doc = next((l.strip() for l in body if l.strip() and not l.startswith('|')
                    and not l.startswith('Enum always') and not l.startswith('Whole enum')), None)
        enum = {'name': name, 'guard': guard, 'flags': name.endswith('_FLAGS'),
                'hex': hex_style}
        if doc:
            enum['doc'] = doc
        enum['values'] = values
        enums.append(enum)
    return enums


STRUCT_HEAD_RE = re.compile(
    r'^\*\*(\w+)\*\* \((struct|union); sizeof (\d+), align (\d+); guard ([^)]*)\)$')


def parse_core_structs(lines):
    structs = []
    cur = None
    for line in lines:
        m = STRUCT_HEAD_RE.match(line)
        if m:
            cur = {'name': m.group(1), 'kind': m.group(2), 'guard': guard_of(m.group(5)),
                   'sizeof': int(m.group(3)), 'align': int(m.group(4)), 'fields': []}
            structs.append(cur)
            continue
        if cur is None or not line.startswith('| ') or line.startswith('| Offset') \
                or line.startswith('|---'):
            if line.startswith('Key field semantics'):
                break
            continue
        off, field, ctype, annot = [c.strip() for c in line.strip()[1:-1].split('|')]
        f = {'name': field, 'type': norm_type(untick(ctype)), 'offset': int(off)}
        f.update(parse_annotation(annot))
        cur['fields'].append(f)
    return structs


def parse_operator_master(lines):
    ops = []
    for cells in table_rows(lines):
        val, _hex, name, fl, desc, inputs, outputs, fusion, summary = cells[:9]
        op = {'value': int(val), 'name': name, 'feature_level': fl}
        if desc.startswith('(alias of '):
            op['alias_of'] = re.search(r'alias of (\w+)', desc).group(1)
        elif desc != '–':
            op['desc'] = desc.replace('_…', '_OPERATOR_DESC')
            op['inputs'] = [] if inputs == '–' else [s.strip() for s in inputs.split(',')]
            op['outputs'] = [] if outputs == '–' else [s.strip() for s in outputs.split(',')]
            if fusion:
                op['fusion'] = fusion
            op['summary'] = summary.replace('\\|', '|')
        ops.append(op)
    return ops


OP_HEAD_RE = re.compile(
    r'^(\d+) \(0x([0-9A-F]+)\) DML_OPERATOR_(\w+) \| FL (\d_\d) \| `(\w+)` \(sizeof (\d+)\)$')


def parse_operator_descs(sections, order):
    descs = {}
    for head in order:
        m = OP_HEAD_RE.match(head)
        if not m:
            continue
        value = int(m.group(1))
        if value != int(m.group(2), 16):
            fail(f'{head}: decimal and hex values disagree')
        body = sections[head]
        notes = next((l.strip() for l in body if l.strip() and not l.startswith('|')), '')
        fields = []
        for cells in table_rows(body):
            idx, off, name, ctype, annot, role = cells[:6]
            if int(idx) != len(fields):
                fail(f'{head}: field index {idx} out of order')
            f = {'name': name, 'type': norm_type(untick(ctype)), 'offset': int(off)}
            f.update(parse_annotation(annot))
            roles = [r.strip() for r in role.split(',')]
            f['role'] = roles[0]
            if 'opt' in roles[1:]:
                f['opt'] = True
            fields.append(f)
        descs[value] = {'operator': m.group(3), 'feature_level': m.group(4),
                        'struct': m.group(5), 'sizeof': int(m.group(6)),
                        'notes': notes, 'fields': fields}
    return descs


IN_PLACE = 'in-place execution allowed per the S3 schema flag (DxDispatch helper, not a public API guarantee)'
KNOWN_NOTES = ('usable as fused activation', 'fused-activation host', IN_PLACE)


def split_notes(notes, summary):
    """§8.4's line under each heading is the summary plus known hints."""
    if notes.startswith(summary):
        notes = notes[len(summary):].lstrip('. ')
    out = {}
    parts = [p.strip() for p in notes.split(';') if p.strip()]
    if IN_PLACE in parts:
        out['in_place_hint'] = True
    rest = [p for p in parts if p not in KNOWN_NOTES]
    if rest:
        out['notes'] = '; '.join(rest)
    return out


def build_operators(master, descs):
    """Merge §8.1 (values, binding order) with §8.4 (layouts), checking they agree."""
    ops = []
    for op in master:
        if op['value'] == 0 or 'alias_of' in op:
            continue
        d = descs.get(op['value'])
        if d is None:
            fail(f'no §8.4 entry for operator {op["value"]}')
        if (d['operator'], d['feature_level'], d['struct']) != \
                (op['name'], op['feature_level'], op['desc']):
            fail(f'operator {op["value"]}: §8.1 and §8.4 disagree')
        entry = {'value': op['value'], 'name': op['name'],
                 'feature_level': op['feature_level'],
                 'guard': guard_of_fl(op['feature_level']),
                 'struct': d['struct'], 'sizeof': d['sizeof'],
                 'inputs': op['inputs'], 'outputs': op['outputs']}
        if 'fusion' in op:
            entry['fusion'] = op['fusion']
        entry['summary'] = op['summary']
        entry.update(split_notes(d['notes'], op['summary']))
        entry['fields'] = d['fields']
        ops.append(entry)
    if len(ops) != len(descs):
        fail('§8.4 has operators that §8.1 lacks')
    return ops


def operator_type_enum(master, enum_doc):
    values = []
    for op in master:
        v = {'name': 'DML_OPERATOR_' + op['name'], 'value': op['value'],
             'guard': guard_of_fl(op['feature_level'])}
        if 'alias_of' in op:
            v['alias_of'] = 'DML_OPERATOR_' + op['alias_of']
        values.append(v)
    enum = {'name': 'DML_OPERATOR_TYPE', 'guard': None, 'flags': False, 'hex': False}
    if enum_doc:
        enum['doc'] = enum_doc
    enum['values'] = values
    return enum


# DML_OPERATOR_DESC has no layout table in the fact sheet (§6 only states
# that Desc must match Type); its two fields are implied by every use.
OPERATOR_DESC = {
    'name': 'DML_OPERATOR_DESC', 'kind': 'struct', 'guard': None, 'sizeof': 16, 'align': 8,
    'source': 'not tabulated in the fact sheet; layout {Type, Desc} as for DML_TENSOR_DESC',
    'fields': [
        {'name': 'Type', 'type': 'DML_OPERATOR_TYPE', 'offset': 0},
        {'name': 'Desc', 'type': 'const void*', 'offset': 8,
         'note': 'points to the DML_*_OPERATOR_DESC matching Type'},
    ],
}


def extract(md_text):
    lines = md_text.splitlines()
    sections, order = split_sections(lines)

    enum_start = order.index(next(h for h in order if h.startswith('5. Enumerations')))
    enum_end = order.index(next(h for h in order if h.startswith('6. Core')))
    enum_lines = []
    for h in order[enum_start + 1:enum_end]:
        enum_lines.append('### ' + h)
        enum_lines.extend(sections[h])

    master = parse_operator_master(find_section(sections, '8.1 Master table'))
    descs = parse_operator_descs(sections, order)
    enums = parse_enums(enum_lines)
    op_enum_doc = next(e for e in enums if e['name'] == 'DML_OPERATOR_TYPE').get('doc')
    enums = [operator_type_enum(master, op_enum_doc) if e['name'] == 'DML_OPERATOR_TYPE'
             else e for e in enums]

    structs = parse_core_structs(find_section(sections, '6. Core'))
    # DML_OPERATOR_DESC goes right after DML_TENSOR_DESC.
    at = next(i for i, s in enumerate(structs) if s['name'] == 'DML_TENSOR_DESC') + 1
    structs.insert(at, OPERATOR_DESC)

    schema = {
        'about': ('DirectML API facts at DML_FEATURE_LEVEL_6_4, imported from '
                  'the project fact sheet (shared/reference/directml-api.md) by '
                  'tools/build/extract-directml-schema.py. Source of truth for '
                  'tools/build/gen-directml-header.py. Offsets and sizes are x86-64/LLP64-'
                  'compatible (no long in any struct). guard null = always declared.'),
        'feature_level': '6_4',
        'target_version': parse_target_version(find_section(sections, '1.1 How DML_TARGET_VERSION')),
        'constants': parse_constants(find_section(sections, '2.1 Constants')),
        'functions': parse_functions(find_section(sections, '3. Exported functions')),
        'enums': enums,
        'structs': structs,
        'operators': build_operators(master, descs),
        'aliases': [{'name': 'DML_SCATTER_ELEMENTS_OPERATOR_DESC',
                     'target': 'DML_SCATTER_OPERATOR_DESC', 'guard': '0x2000'}],
        'interfaces': parse_interfaces(find_section(sections, '4.1 Hierarchy'),
                                       find_section(sections, '4.2 Vtables')),
    }
    check(schema)
    return schema


def check(schema):
    ops = schema['operators']
    if [o['value'] for o in ops] != list(range(1, 178)):
        fail('operator values are not 1..177')
    for o in ops + schema['structs']:
        offs = [f['offset'] for f in o['fields']]
        if offs != sorted(offs) and o.get('kind') != 'union':
            fail(f'{o.get("struct", o["name"])}: offsets not increasing')
    alias = schema['aliases'][0]
    if not any(o['struct'] == alias['target'] for o in ops):
        fail('alias target missing')


# --- JSON output: one line per leaf object so diffs stay readable -----------

def is_leaf(v):
    if isinstance(v, dict):
        return all(not isinstance(x, (dict, list)) or
                   (isinstance(x, list) and all(not isinstance(y, (dict, list)) for y in x))
                   for x in v.values())
    if isinstance(v, list):
        return all(not isinstance(x, (dict, list)) for x in v)
    return True


def dump(v, indent=0):
    pad = '  ' * indent
    if is_leaf(v):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        inner = ',\n'.join(pad + '  ' + dump(x, indent + 1) for x in v)
        return '[\n' + inner + '\n' + pad + ']'
    items = []
    for k, x in v.items():
        items.append(pad + '  ' + json.dumps(k) + ': ' + dump(x, indent + 1))
    return '{\n' + ',\n'.join(items) + '\n' + pad + '}'


def keep_tensor_support(schema, previous):
    """The fact sheet has no tensor-support tables: keep those of the schema being replaced
    (tools/build/merge-tensor-support.py put them there)."""
    if not previous.exists():
        return
    old = {op['name']: op for op in json.loads(previous.read_text(encoding='utf-8'))['operators']}
    for op in schema['operators']:
        if 'tensor_support' in old.get(op['name'], {}):
            op['tensor_support'] = old[op['name']]['tensor_support']


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('factsheet', type=Path)
    ap.add_argument('-o', '--output', type=Path,
                    default=Path(__file__).resolve().parents[1] / 'directml-schema.json')
    args = ap.parse_args()
    try:
        schema = extract(args.factsheet.read_text(encoding='utf-8'))
    except FactSheetError as e:
        print(f'{args.factsheet}: {e}', file=sys.stderr)
        return 1
    keep_tensor_support(schema, args.output)
    args.output.write_text(dump(schema) + '\n', encoding='utf-8')
    print(f'wrote {args.output}: {len(schema["enums"])} enums, {len(schema["structs"])} structs, '
          f'{len(schema["operators"])} operator descs, {len(schema["interfaces"])} interfaces')
    return 0


if __name__ == '__main__':
    sys.exit(main())
