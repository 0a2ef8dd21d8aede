#!/usr/bin/env python3
"""`meson install --destdir` into a temporary directory, then what a user of the installed tree
needs: every file meson lists is there; each installed tool finds the installed libvkdml.so.0
through its $ORIGIN-relative rpath (tools/meson.build) with no LD_LIBRARY_PATH, and answers
--version; vkdml.pc gives the installed headers and library to a C program that uses vkdml.h.
A DESTDIR tree is a prefix the dynamic linker does not search, as a home directory is.

    test_install.py BUILD_DIR MESON SANITIZE CC...

SANITIZE is the build's b_sanitize: the program is built as the library was.
"""
import json
import os
import subprocess
import sys
import tempfile

PROGRAM = """#include <stdio.h>
#include <vkdml.h>

int main(void)
{
    return puts(vkdml_get_version_string()) < 0;
}
"""


def check_output(command, **kwargs):
    return subprocess.run(command, stdout=subprocess.PIPE, check=True, text=True, **kwargs).stdout


def in_destdir(destdir, path):
    return os.path.join(destdir, os.path.relpath(path, "/"))


def install(meson, build, destdir):
    env = dict(os.environ)
    env.pop("DESTDIR", None)
    check_output(meson + ["install", "-C", build, "--no-rebuild", "--quiet", "--destdir", destdir], env=env)
    installed = json.loads(check_output(meson + ["introspect", "--installed", build])).values()
    paths = [in_destdir(destdir, path) for path in installed]
    missing = [path for path in paths if not os.path.lexists(path)]
    assert not missing, missing
    targets = json.loads(check_output(meson + ["introspect", "--targets", build]))
    tools = [in_destdir(destdir, path) for target in targets if target["type"] == "executable" and target["installed"]
             for path in target["install_filename"]]
    return paths, tools


def check_tool(tool, destdir, env):
    version = check_output([tool, "--version"], env=env)
    assert version.startswith(os.path.basename(tool) + " "), version
    libraries = check_output(["ldd", tool], env=env)
    line = [line for line in libraries.splitlines() if "libvkdml.so" in line]
    assert line and os.path.realpath(line[0].split("=>")[1].split()[0]).startswith(destdir), libraries


def check_package(paths, destdir, sanitize, cc, env):
    pc_dir = os.path.dirname([path for path in paths if path.endswith("/vkdml.pc")][0])
    env = dict(env, PKG_CONFIG_PATH=pc_dir, PKG_CONFIG_SYSROOT_DIR=destdir)
    flags = check_output(["pkg-config", "--cflags", "--libs", "vkdml"], env=env).split()
    assert any(flag.startswith("-I" + destdir) and flag.endswith("/vkdml") for flag in flags), flags
    source = os.path.join(destdir, "program.c")
    with open(source, "w") as f:
        f.write(PROGRAM)
    sanitizers = ["-fsanitize=" + sanitize] if sanitize != "none" else []
    subprocess.run(cc + sanitizers + [source, "-o", os.path.join(destdir, "program")] + flags, env=env,
                   check=True)


def main():
    build, meson, sanitize, cc = sys.argv[1], [sys.argv[2]], sys.argv[3], sys.argv[4:]
    env = {key: value for key, value in os.environ.items() if key not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    with tempfile.TemporaryDirectory() as destdir:
        destdir = os.path.realpath(destdir)
        paths, tools = install(meson, build, destdir)
        assert any(path.endswith("/vkdml-info") for path in tools), paths
        for tool in tools:
            check_tool(tool, destdir, env)
        check_package(paths, destdir, sanitize, cc, env)
        print("installed:", len(paths), "files;", ", ".join(os.path.basename(tool) for tool in tools),
              "find the installed library")


if __name__ == "__main__":
    main()
