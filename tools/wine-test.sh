#!/bin/sh
# Runs the test suite of a Windows build (tools/build/x86_64-w64-mingw32.ini) under wine, on the host's
# Vulkan driver (lavapipe without a GPU), with the Khronos validation layer (README.md, "Windows").
#
#   tools/wine-test.sh BUILD_DIR [meson test arguments]
#
# - wine 8 reaches Vulkan through its X11 driver, so everything runs inside one virtual X server
#   (xvfb-run), which outlives every wine process.
# - A wine prefix of its own: BUILD_DIR/wineprefix, created on the first run.
# - wineserver and wine's background processes (services.exe, explorer.exe /desktop) are started
#   here, before the tests, with nothing inherited: started by a test they would hold on to that
#   test's output pipes, and `meson test` would wait for them until the test's timeout. The desktop
#   process ends a few seconds after its last user, so a notepad.exe keeps it in use throughout.
# - The validation layer cannot be named inside wine (wine lists no layers); test/meson.build sets
#   VK_INSTANCE_LAYERS, which the host's loader reads, and vkdml's debug messenger gets its messages.
set -eu

if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [meson test arguments]" >&2
    exit 2
fi
build=$(realpath "$1")
shift

WINE=/usr/lib/wine/wine64
WINESERVER=/usr/lib/wine/wineserver
export WINEPREFIX="$build/wineprefix"
export WINEDEBUG="${WINEDEBUG:--all}"
# No Mono/Gecko installers (a fresh prefix would offer them), no desktop integration.
export WINEDLLOVERRIDES="${WINEDLLOVERRIDES:-mscoree,mshtml,winemenubuilder.exe=d}"

# The part that runs inside the X server. The tests' status is the script's.
inside_x() {
    logs="$build/meson-logs"
    mkdir -p "$WINEPREFIX" "$logs"
    "$WINESERVER" -p </dev/null >/dev/null 2>&1
    "$WINE" wineboot --init </dev/null >"$logs/wineboot.txt" 2>&1
    "$WINE" notepad.exe </dev/null >/dev/null 2>&1 &
    # The desktop process, and a look at what Vulkan gives wine (into a file: what wine starts from
    # here may keep the descriptor open, which a file does not mind).
    if [ -f "$build/tools/vkdml-info.exe" ]; then
        info="$logs/vkdml-info.txt"
        WINEPATH="Z:$build/backend_vk" "$WINE" "$build/tools/vkdml-info.exe" </dev/null >"$info" 2>&1 || true
        echo "wine-test: $(grep -m1 '^\*' "$info" || echo "no Vulkan device, see $info")"
    fi
    rc=0
    meson test -C "$build" "$@" || rc=$?
    "$WINESERVER" -k || true
    return $rc
}

if [ "${VKDML_WINE_TEST_INSIDE_X:-}" = 1 ]; then
    inside_x "$@"
else
    VKDML_WINE_TEST_INSIDE_X=1 exec xvfb-run -a -s '-screen 0 640x480x24' "$0" "$build" "$@"
fi
