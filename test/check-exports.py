#!/usr/bin/env python3
"""Fails unless the shared library exports exactly public entry points: every dynamic symbol
is declared in a public header (api/*.h) and none comes from volk, Vulkan or DirectX-Guids."""
import os
import re
import subprocess
import sys

ALLOWED = re.compile(r'^(vkdml_\w+|DMLCreateDevice1?|IID_IDML\w+|D3D12CreateDevice)$')
REQUIRED = {'vkdml_get_version', 'vkdml_set_log_callback', 'vkdml_calc_buffer_tensor_size'}


def exported_symbols(library):
    out = subprocess.run(['nm', '-D', '--defined-only', library], check=True, capture_output=True, text=True).stdout
    # Type 'A' entries are the version-script node names (VKDML_0), not symbols.
    return {line.split()[-1].split('@')[0] for line in out.splitlines()
            if line.strip() and line.split()[-2] != 'A'}


def public_declarations():
    api = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'api')
    text = ''
    for name in os.listdir(api):
        if name.endswith('.h'):
            with open(os.path.join(api, name)) as f:
                text += f.read()
    return text


def main():
    symbols = exported_symbols(sys.argv[1])
    declarations = public_declarations()
    bad = sorted(s for s in symbols if not ALLOWED.match(s) or not re.search(r'\b' + s + r'\b', declarations))
    missing = sorted(REQUIRED - symbols)
    for s in sorted(symbols):
        print('exported:', s)
    if bad:
        print('not public (not declared in api/*.h, or not an allowed name):', ', '.join(bad))
    if missing:
        print('missing:', ', '.join(missing))
    return 1 if bad or missing else 0


if __name__ == '__main__':
    sys.exit(main())
