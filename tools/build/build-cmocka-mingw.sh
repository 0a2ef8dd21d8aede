#!/bin/sh
# Builds cmocka for Windows x86-64 with mingw-w64, for the Windows test build (README.md,
# "Windows"). Debian has no mingw cmocka, so this takes Debian's own cmocka source package (the
# version libcmocka-dev is built from, with Debian's patches), fetched with apt-get through a
# private source list (the system's apt configuration is left alone), and builds its static
# library with CMake and a mingw toolchain file.
#
#   tools/build/build-cmocka-mingw.sh PREFIX    installs PREFIX/include/cmocka.h and PREFIX/lib/libcmocka-static.a
#
# then: meson setup build-win --cross-file tools/build/x86_64-w64-mingw32.ini -Dcmocka-prefix=PREFIX
# Needs apt-get, dpkg-dev (dpkg-source), cmake and gcc-mingw-w64-x86-64; does nothing when PREFIX
# already holds the library. The work files go to PREFIX.src.
set -eu

if [ $# -ne 1 ]; then
    echo "usage: $0 PREFIX" >&2
    exit 2
fi
prefix=$(realpath -m "$1")
work="$prefix.src"

if [ -f "$prefix/lib/libcmocka-static.a" ] && [ -f "$prefix/include/cmocka.h" ]; then
    echo "build-cmocka-mingw: $prefix is there already"
    exit 0
fi

# The Debian archive this machine already uses (a mirror stays a mirror), for the release it runs.
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
archive=$(apt-get indextargets --format '$(REPO_URI)' "Release: $codename" 'Origin: Debian' 'Component: main' \
              | sort -u | head -n 1)
archive=${archive:-http://deb.debian.org/debian/}

rm -rf "$work"
mkdir -p "$work/lists/partial" "$work/cache"
cd "$work"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $archive $codename main" > sources.list
apt_private() {
    apt-get -q -o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" "$@"
}
apt_private update
# Signed Release -> Sources index -> the .dsc and tarballs' hashes: apt checks the chain, then
# dpkg-source unpacks and applies Debian's patches.
apt_private source cmocka
src=$(find "$work" -maxdepth 1 -type d -name 'cmocka-*' | head -n 1)

cat > toolchain-mingw64.cmake <<'EOF'
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
EOF

# Static: the tests then need no cmocka.dll (nor its libgcc_s_seh-1.dll) on wine's path.
# mingw's C99 printf, as in vkdml's own Windows build (%zu in assertion messages).
cmake -S "$src" -B build -G Ninja \
    -DCMAKE_TOOLCHAIN_FILE="$work/toolchain-mingw64.cmake" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS=-D__USE_MINGW_ANSI_STDIO=1 \
    -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF
cmake --build build
cmake --install build
test -f "$prefix/lib/libcmocka-static.a"
echo "build-cmocka-mingw: cmocka $(basename "$src" | sed 's/^cmocka-//') installed in $prefix"
