#!/usr/bin/env python3
"""Fails unless the shared library exports exactly public entry points: every dynamic symbol
is declared in a public header (api/*.h) and none comes from volk, Vulkan or DirectX-Guids.

  check-exports.py LIBRARY                          libvkdml.so (nm -D)
  check-exports.py --objdump OBJDUMP --def DEF DLL  vkdml.dll: its PE export table must equal the
                                                    .def, and D3D12CreateDevice must not be there
  check-exports.py --def DEF                        the .def lists exactly the public entry points
                                                    of the headers (run on every platform, so a new
                                                    vkdml_* function cannot miss the Windows list)
"""
import argparse
import os
import re
import subprocess
import sys

ALLOWED = re.compile(r'^(vkdml_\w+|DMLCreateDevice1?|IID_IDML\w+|D3D12CreateDevice)$')
REQUIRED = {'vkdml_get_version', 'vkdml_set_log_callback', 'vkdml_calc_buffer_tensor_size'}
# On Windows D3D12CreateDevice is d3d12.dll's: exporting it from vkdml.dll would shadow it.
NOT_ON_WINDOWS = {'D3D12CreateDevice'}


def exported_symbols(library):
    out = subprocess.run(['nm', '-D', '--defined-only', library], check=True, capture_output=True, text=True).stdout
    # Type 'A' entries are the version-script node names (VKDML_0), not symbols.
    return {line.split()[-1].split('@')[0] for line in out.splitlines()
            if line.strip() and line.split()[-2] != 'A'}


def pe_exported_symbols(objdump, dll):
    """The names of the PE export table, from `objdump -p`'s "[Ordinal/Name Pointer] Table"."""
    out = subprocess.run([objdump, '-p', dll], check=True, capture_output=True, text=True).stdout
    names, in_table = set(), False
    for line in out.splitlines():
        if 'Ordinal/Name Pointer] Table' in line:
            in_table = True
        elif in_table:
            match = re.match(r'^\s*\[\s*\d+\]\s+(\S+)\s*$', line)
            if not match:
                break
            names.add(match.group(1))
    return names


def def_exports(path):
    """{name: is_data} from the EXPORTS section of a .def file."""
    exports, in_exports = {}, False
    with open(path) as f:
        for line in f:
            line = line.split(';', 1)[0].strip()
            if not line:
                continue
            if line.upper() == 'EXPORTS':
                in_exports = True
            elif in_exports:
                words = line.split()
                exports[words[0]] = 'DATA' in (w.upper() for w in words[1:])
    return exports


def public_declarations():
    api = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'api')
    text = ''
    for name in sorted(os.listdir(api)):
        if name.endswith('.h'):
            with open(os.path.join(api, name)) as f:
                text += f.read()
    return text


def public_entry_points(declarations):
    """{name: is_data}: what the headers declare as exported."""
    functions = set(re.findall(r'\bVKDML_API\b[^;{}()]*?\b(vkdml_\w+)\s*\(', declarations))
    functions |= set(re.findall(r'\bVKDML_DML_API\b[^;{}()]*?\b(DMLCreateDevice1?)\s*\(', declarations))
    iids = set(re.findall(r'\bDEFINE_GUID\(\s*(IID_IDML\w+)\s*,', declarations))
    return {**{f: False for f in functions}, **{i: True for i in iids}}


def check_symbols(symbols, declarations, windows):
    bad = sorted(s for s in symbols if not ALLOWED.match(s) or not re.search(r'\b' + s + r'\b', declarations)
                 or (windows and s in NOT_ON_WINDOWS))
    missing = sorted(REQUIRED - symbols)
    for s in sorted(symbols):
        print('exported:', s)
    if bad:
        print('not public (not declared in api/*.h, or not an allowed name):', ', '.join(bad))
    if missing:
        print('missing:', ', '.join(missing))
    return not bad and not missing


def check_def(path, declarations):
    listed, public = def_exports(path), public_entry_points(declarations)
    ok = True
    for name in sorted(set(public) - set(listed)):
        print(f'{path}: missing {name} (declared as exported in api/*.h)')
        ok = False
    for name in sorted(set(listed) - set(public)):
        print(f'{path}: lists {name}, which no public header declares as exported')
        ok = False
    for name in sorted(set(listed) & set(public)):
        if listed[name] != public[name]:
            print(f'{path}: {name} must {"" if public[name] else "not "}be marked DATA')
            ok = False
    if ok:
        print(f'{path}: the {len(listed)} public entry points, {sum(listed.values())} of them data')
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--objdump')
    parser.add_argument('--def', dest='def_file')
    parser.add_argument('library', nargs='?')
    args = parser.parse_args()
    declarations = public_declarations()

    ok = True
    if args.def_file:
        ok = check_def(args.def_file, declarations)
    if args.library and args.objdump:
        symbols = pe_exported_symbols(args.objdump, args.library)
        ok = check_symbols(symbols, declarations, windows=True) and ok
        if args.def_file and symbols != set(def_exports(args.def_file)):
            print('the DLL exports differ from the .def:', ', '.join(sorted(symbols ^ set(def_exports(args.def_file)))))
            ok = False
    elif args.library:
        ok = check_symbols(exported_symbols(args.library), declarations, windows=False) and ok
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
