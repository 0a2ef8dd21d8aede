#!/usr/bin/env python3
"""A tool's command-line conventions (tools/tool_options.h): --help and -h print the usage to stdout
and exit 0, --version prints "NAME VERSION" and exits 0, a bad option prints the usage to stderr and
exits 2. VERSION is vkdml_get_version_string(): the git description, else the project's version.
None of them needs a Vulkan device.

    test_tool_options.py NAME TOOL

In a cross build (the Windows one under wine) meson hands the exe wrapper over in MESON_EXE_WRAPPER.
"""
import os
import re
import shlex
import subprocess
import sys


def run(command, *args):
    done = subprocess.run(command + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=60)
    return done.returncode, done.stdout, done.stderr


def main():
    name, tool = sys.argv[1:3]
    command = shlex.split(os.environ.get("MESON_EXE_WRAPPER", "")) + [tool]
    usage = "usage: " + name + " "

    for option in ("--help", "-h"):
        status, out, err = run(command, option)
        assert status == 0, (option, status, err)
        assert out.startswith(usage) and "--version" in out, (option, out)
        assert usage not in err, (option, err)

    status, out, err = run(command, "--version")
    assert status == 0, ("--version", status, err)
    assert re.fullmatch(re.escape(name) + r" \S+\n", out), ("--version", out)

    status, out, err = run(command, "--no-such-option")
    assert status == 2, ("--no-such-option", status, out, err)
    assert out == "" and err.startswith(usage), ("--no-such-option", out, err)
    print(name, "follows the conventions")


if __name__ == "__main__":
    main()
