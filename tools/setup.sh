#!/bin/sh
# The README's commands. On a fresh Debian 12 machine each one is enough by itself:
#   tools/setup.sh demo   install what is missing, build, run the main job: the demo (GEMM -> ADD1+ReLU ->
#                         MULTIPLY through the DirectML API, checked against the CPU) on the default device
#   tools/setup.sh test   install what is missing, build, run the whole test suite (validation on)
#   tools/setup.sh windows  the same for Windows: vkdml.dll and the test suite cross-built with
#                         mingw-w64, the tests run under wine on the same Vulkan driver (README.md, "Windows")
#   tools/setup.sh build  install what is missing and build, nothing run (CI's clang build)
#   tools/setup.sh fuzz   clang, ASan + UBSan and libFuzzer: replay the seed corpus, then fuzz operator descs for
#                         FUZZ_SECONDS (default 60; README.md, "Fuzzing")
#   tools/setup.sh tsan   clang and ThreadSanitizer: the multi-threaded tests (README.md, "Sanitizers")
# CC=clang (CXX=clang++) builds with clang, which is then installed too.
# BUILD_DIR (default: build; build-win, build-fuzz, build-tsan for those) picks the build directory;
# MESON_ARGS adds meson options (-Doption=value), to `meson setup` on a new build directory and through
# `meson configure` on an existing one. MESON_TEST_ARGS adds `meson test` arguments (test and
# windows: a --timeout-multiplier for sanitizer builds, --suite to run part of the suite).
set -eu

cd "$(dirname "$0")/.."
case "${1:-}" in
    windows) BUILD_DIR=${BUILD_DIR:-build-win} ;;
    fuzz|tsan) BUILD_DIR=${BUILD_DIR:-build-$1} ;;
    *) BUILD_DIR=${BUILD_DIR:-build} ;;
esac

# Debian 12 packages, each for a reason (README.md, "Dependencies").
PACKAGES="gcc g++ pkg-config python3 meson ninja-build binutils
libvulkan-dev libvulkan-volk-dev glslang-tools spirv-tools directx-headers-dev libcmocka-dev
mesa-vulkan-drivers vulkan-validationlayers
protobuf-c-compiler libprotobuf-c-dev libonnx-dev libonnx-testdata"
# The Windows build: mingw-w64 (the win32 thread model is enough, vkdml uses Win32 threads), wine
# and a virtual X server to run the tests, CMake and dpkg-dev to build cmocka from Debian's source.
WINDOWS_PACKAGES="gcc-mingw-w64-x86-64-win32 g++-mingw-w64-x86-64-win32 wine64 xvfb xauth cmake dpkg-dev"
# fuzz and tsan are clang's: libFuzzer, and a ThreadSanitizer that needs no extra gcc runtime package.
case "${1:-}" in
    fuzz|tsan) CC=clang CXX=clang++; export CC CXX ;;
esac
# The compiler CC names, when it is not gcc (meson reads CC and CXX itself). clang's sanitizer and
# libFuzzer runtimes are libclang-rt-14-dev, which clang only recommends (libfuzzer-14-dev is the
# stand-alone libFuzzer.a, which -fsanitize=fuzzer does not use).
case "${CC:-}" in
    clang*) PACKAGES="$PACKAGES clang libclang-rt-14-dev" ;;
esac
# clang's sanitizer runtime is linked into executables only: libvkdml.so leaves its symbols undefined.
CLANG_SANITIZER_ARGS="-Db_lundef=false"

install_missing() {
    missing=""
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    echo "setup: installing$missing"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
}

# Extra arguments go to the first `meson setup` only (the cross file cannot change later);
# MESON_ARGS also applies to a build directory that exists, so it always says what is built.
configure() {
    if [ ! -f "$BUILD_DIR/build.ninja" ]; then
        # shellcheck disable=SC2086
        meson setup "$BUILD_DIR" ${MESON_ARGS:-} "$@"
    elif [ -n "${MESON_ARGS:-}" ]; then
        # shellcheck disable=SC2086
        meson configure "$BUILD_DIR" $MESON_ARGS
    fi
}

build() {
    configure "$@"
    ninja -C "$BUILD_DIR"
}

# The environment the suite's tests get from test/meson.build, for running a program by hand.
test_environment() {
    LP_NUM_THREADS=2
    LSAN_OPTIONS="suppressions=$(pwd)/test/lsan.supp:print_suppressions=0"
    export LP_NUM_THREADS LSAN_OPTIONS
}

case "${1:-}" in
    demo)
        # shellcheck disable=SC2086
        install_missing $PACKAGES
        build
        "$BUILD_DIR/tools/vkdml-demo"
        ;;
    build)
        # shellcheck disable=SC2086
        install_missing $PACKAGES
        build
        ;;
    test)
        # shellcheck disable=SC2086
        install_missing $PACKAGES
        build
        # shellcheck disable=SC2086
        meson test -C "$BUILD_DIR" --print-errorlogs --num-processes "$(nproc)" ${MESON_TEST_ARGS:-}
        ;;
    windows)
        # shellcheck disable=SC2086
        install_missing $PACKAGES $WINDOWS_PACKAGES
        tools/build/build-cmocka-mingw.sh "$BUILD_DIR/cmocka"
        build --cross-file tools/build/x86_64-w64-mingw32.ini -Dcmocka-prefix=cmocka
        # shellcheck disable=SC2086
        tools/wine-test.sh "$BUILD_DIR" --print-errorlogs --num-processes "$(nproc)" ${MESON_TEST_ARGS:-}
        ;;
    fuzz)
        # shellcheck disable=SC2086
        install_missing $PACKAGES
        MESON_ARGS="-Dfuzz=true -Dtests=false -Dtools=false -Db_sanitize=address,undefined $CLANG_SANITIZER_ARGS
            ${MESON_ARGS:-}"
        build
        meson test -C "$BUILD_DIR" --print-errorlogs --suite fuzz
        # New inputs go to the build directory's corpus; the seeds in the tree stay as they are. Any
        # allocation above 1 GiB or input taking 60 s is a finding too. A fixed seed (FUZZ_SEED) makes
        # a run repeatable: CI explores the same inputs each time, as far as its time allows.
        mkdir -p "$BUILD_DIR/fuzz-corpus" "$BUILD_DIR/fuzz-artifacts"
        test_environment
        "$BUILD_DIR/test/fuzz/fuzz_operator_desc" -seed="${FUZZ_SEED:-1}" -max_total_time="${FUZZ_SECONDS:-60}" \
            -malloc_limit_mb=1024 \
            -timeout=60 -print_final_stats=1 -artifact_prefix="$BUILD_DIR/fuzz-artifacts/" \
            "$BUILD_DIR/fuzz-corpus" test/fuzz/corpus/operator_desc
        ;;
    tsan)
        # shellcheck disable=SC2086
        install_missing $PACKAGES
        MESON_ARGS="-Db_sanitize=thread $CLANG_SANITIZER_ARGS -Dtools=false ${MESON_ARGS:-}"
        configure
        # Only the tests that run threads: the whole suite under TSan would take long and add nothing.
        ninja -C "$BUILD_DIR" test/dml/test_dml_threads test/dml/test_dml_execution
        # shellcheck disable=SC2086
        meson test -C "$BUILD_DIR" --no-rebuild --print-errorlogs ${MESON_TEST_ARGS:-} "dml threads" "dml execution"
        ;;
    *)
        echo "usage: $0 demo|test|windows|build|fuzz|tsan" >&2
        exit 2
        ;;
esac
