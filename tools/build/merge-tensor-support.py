#!/usr/bin/env python3
"""Merge a tensor-support file into tools/directml-schema.json.

Usage:
  tools/build/merge-tensor-support.py FILE [--replace] [--dry-run]

FILE holds {"operators": {"GEMM": <tensor_support>, ...}} in the format of docs/schema.md
("Tensor support"). Each entry is checked against the operator's tensor fields, then stored as
operators[].tensor_support. An operator that already has tensor_support keeps it unless
--replace is given; every difference between the two is printed either way, so that data
collected from DirectML's pages can be checked against the implemented families' (exact) data.
Unknown keys of an entry ("variants", "source", ...) are left out. Exit status 1 on an invalid
entry, 0 otherwise. Python 3 stdlib only.
"""

import argparse
import importlib.util
import json
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
SCHEMA = TOOLS.parent / 'directml-schema.json'
KEYS = ('feature_level', 'tensors', 'same_type', 'same_rank', 'note')


def load_extractor():
    """extract-directml-schema.py's dump(), so the JSON keeps one layout."""
    spec = importlib.util.spec_from_file_location('extract', TOOLS / 'extract-directml-schema.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def data_type_names(schema):
    enum = next(e for e in schema['enums'] if e['name'] == 'DML_TENSOR_DATA_TYPE')
    prefix = 'DML_TENSOR_DATA_TYPE_'
    return [v['name'][len(prefix):] for v in enum['values'] if v['value'] != 0]


def tensor_fields(op):
    return [f['name'] for f in op['fields'] if f['role'] in ('in', 'out')]


def normalise(op, entry, type_names):
    """The entry with known keys only, types in enum order; raises ValueError on a bad entry."""
    fields = tensor_fields(op)
    where = op['name']
    tensors = {}
    for name, tensor in entry.get('tensors', {}).items():
        if name not in fields:
            raise ValueError(f'{where}: {name} is not a tensor field ({", ".join(fields)})')
        out = {}
        if tensor.get('types'):     # [] or none: the page lists no types
            unknown = set(tensor['types']) - set(type_names)
            if unknown:
                raise ValueError(f'{where}.{name}: bad types {sorted(unknown)}')
            out['types'] = [t for t in type_names if t in tensor['types']]
        if 'ranks' in tensor:
            low, high = tensor['ranks']
            if not 1 <= low <= high <= 8:
                raise ValueError(f'{where}.{name}: ranks {tensor["ranks"]} are not within 1..8')
            out['ranks'] = [low, high]
        tensors[name] = out
    result = {'feature_level': entry.get('feature_level', op['feature_level']),
              'tensors': {name: tensors[name] for name in fields if name in tensors}}
    for key in ('same_type', 'same_rank'):
        groups = [g for g in entry.get(key) or [] if len(g) > 1]
        for group in groups:
            if not set(group) <= set(fields):
                raise ValueError(f'{where}: {key} group {group} names a field the desc lacks')
        if groups:
            result[key] = groups
    if entry.get('note'):
        result['note'] = entry['note']
    return result


def differences(old, new):
    """Human-readable differences in what the generated checks use."""
    out = []
    for name in sorted(set(old['tensors']) | set(new['tensors'])):
        a, b = old['tensors'].get(name, {}), new['tensors'].get(name, {})
        for key in ('types', 'ranks'):
            if a.get(key) != b.get(key):
                out.append(f'{name}.{key}: {a.get(key)} -> {b.get(key)}')
    for key in ('same_type', 'same_rank'):
        a = sorted(sorted(g) for g in old.get(key, []))
        b = sorted(sorted(g) for g in new.get(key, []))
        if a != b:
            out.append(f'{key}: {old.get(key, [])} -> {new.get(key, [])}')
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('file', type=Path)
    ap.add_argument('--replace', action='store_true', help='overwrite existing tensor_support entries')
    ap.add_argument('--dry-run', action='store_true', help='report only; write nothing')
    ap.add_argument('--schema', type=Path, default=SCHEMA)
    args = ap.parse_args()

    schema = json.loads(args.schema.read_text(encoding='utf-8'))
    incoming = json.loads(args.file.read_text(encoding='utf-8'))['operators']
    ops = {op['name']: op for op in schema['operators']}
    type_names = data_type_names(schema)
    added = replaced = kept = 0
    for name, entry in incoming.items():
        if name not in ops:
            print(f'{name}: not a DML_OPERATOR_TYPE', file=sys.stderr)
            return 1
        try:
            new = normalise(ops[name], entry, type_names)
        except ValueError as e:
            print(e, file=sys.stderr)
            return 1
        old = ops[name].get('tensor_support')
        if old is None:
            added += 1
        else:
            for line in differences(old, new):
                print(f'{name}: {line}{"" if args.replace else " (kept)"}')
            if not args.replace:
                kept += 1
                continue
            replaced += 1
        ops[name]['tensor_support'] = new
    print(f'{added} added, {replaced} replaced, {kept} kept; '
          f'{sum("tensor_support" in op for op in schema["operators"])} of {len(ops)} operators have tensor_support')
    if not args.dry_run:
        args.schema.write_text(load_extractor().dump(schema) + '\n', encoding='utf-8')
    return 0


if __name__ == '__main__':
    sys.exit(main())
