#!/bin/sh
# The README's two commands. On a fresh Debian 12 machine each one is enough by itself:
#   tools/setup.sh demo   install what is missing, build, run the main job: the demo (GEMM -> ADD1+ReLU ->
#                         MULTIPLY through the DirectML API, checked against the CPU) on the default device
#   tools/setup.sh test   install what is missing, build, run the whole test suite (validation on)
# BUILD_DIR (default: build) picks the build directory; MESON_ARGS adds `meson setup` options.
set -eu

cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}

# Debian 12 packages, each for a reason (README.md, "Dependencies").
PACKAGES="gcc g++ pkg-config python3 meson ninja-build binutils
libvulkan-dev libvulkan-volk-dev glslang-tools spirv-tools directx-headers-dev libcmocka-dev
mesa-vulkan-drivers vulkan-validationlayers"

install_missing() {
    missing=""
    for p in $PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    echo "setup: installing$missing"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
}

build() {
    if [ ! -f "$BUILD_DIR/build.ninja" ]; then
        # shellcheck disable=SC2086
        meson setup "$BUILD_DIR" ${MESON_ARGS:-}
    fi
    ninja -C "$BUILD_DIR"
}

case "${1:-}" in
    demo)
        install_missing
        build
        "$BUILD_DIR/tools/vkdml-demo"
        ;;
    test)
        install_missing
        build
        meson test -C "$BUILD_DIR" --print-errorlogs --num-processes "$(nproc)"
        ;;
    *)
        echo "usage: $0 demo|test" >&2
        exit 2
        ;;
esac
