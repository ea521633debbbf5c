#!/usr/bin/env bash
# Installs the package from a configured build tree and builds examples/cmake-consumer
# against the installed tree only, three ways: the static library through the CMake
# config, the shared library through the CMake config (install component "shared"), and
# pkg-config. Each consumer must print the ids `gguf tokenize` prints. Also checks the
# shared library: soname with the project version, no internal symbol exported, no
# private dependency's include path in a consumer's compile commands.
#
#   scripts/test-package.sh BUILD_DIR [DATA_DIR]      (ctest runs it as package_consumer)
#
# GGUF_TEST_PACKAGE_REBUILD=1 also configures a second tree with -DBUILD_SHARED_LIBS=ON,
# installs it as is and builds the consumer against it (recompiles the library).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
data=${GGUF_TEST_DATA:-${2:-$root/../shared/data}}  # the environment first, as the C++ tests
work=$build/package-test
rm -rf "$work"
mkdir -p "$work"
fail() { echo "test-package: $*" >&2; exit 1; }

file=$data/vocab/ggml-vocab-llama-bpe.gguf
[ -f "$file" ] || fail "missing test data $file (set GGUF_TEST_DATA)"
text='Hello world, 3 + 4 = 7 ... <|begin_of_text|>'
want=$("$build/gguf" tokenize -m "$file" "$text")
version=$(sed -n 's/^project(gguf VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")

launcher=$(sed -n 's/^CMAKE_CXX_COMPILER_LAUNCHER:[A-Z]*=//p' "$build/CMakeCache.txt")
consumer() {  # consumer NAME PREFIX [cmake args...]: configure, build, run, compare
  local name=$1 prefix=$2
  shift 2
  cmake -S "$root/examples/cmake-consumer" -B "$work/$name" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher} "$@" >"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log" >&2; fail "$name: configure failed"; }
  cmake --build "$work/$name" >>"$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; fail "$name: build failed"; }
  # the only include path a consumer gets is the package's own
  local paths
  paths=$(grep -oE -- '(-I|-isystem )[^ ]+' "$work/$name/compile_commands.json" | sed 's/^-I//; s/^-isystem //' | sort -u)
  [ "$paths" = "$prefix/include" ] || fail "$name: include paths '$paths', want only $prefix/include"
  local got
  got=$("$work/$name/gguf-consumer" "$file" "$text" | tail -1)
  [ "$got" = "$want" ] || fail "$name: ids $got, gguf tokenize gives $want"
  echo "test-package: $name ok ($got)"
}

# the umbrella header gguf/gguf.h includes every public header (the consumer below
# includes only it); it declares nothing itself
for h in "$root"/include/gguf/*.h; do
  name=gguf/$(basename "$h")
  [ "$name" = gguf/gguf.h ] && continue
  grep -q "^#include \"$name\"" "$root/include/gguf/gguf.h" || fail "include/gguf/gguf.h does not include $name"
done
[ "$(grep -o '^#include "gguf/[^"]*"' "$root/examples/cmake-consumer/main.cpp")" = '#include "gguf/gguf.h"' ] ||
  fail "examples/cmake-consumer/main.cpp: the consumer includes gguf/gguf.h only"

# every public header exports what it declares (the library is built with hidden visibility)
for h in "$root"/include/gguf/*.h "$root"/include/gguf/detail/*.h; do
  [ "$h" = "$root/include/gguf/gguf.h" ] && continue
  [ "$(grep -c '^#pragma GCC visibility push(default)' "$h")" = "$(grep -c '^#pragma GCC visibility pop' "$h")" ] &&
    grep '^#pragma GCC visibility push(default)' "$h" >/dev/null ||
    fail "$h: public header without '#pragma GCC visibility push(default)' ... 'pop' around its declarations"
done

prefix=$work/prefix
cmake --build "$build" --target gguf_static gguf_shared gguf_cli >/dev/null
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name libgguf.a | head -1)")
[ -f "$prefix/include/gguf/vocab.h" ] || fail "headers not installed"
[ -f "$libdir/cmake/gguf/ggufConfig.cmake" ] || fail "CMake config not installed"
[ -f "$libdir/pkgconfig/gguf.pc" ] || fail "gguf.pc not installed"
if ! grep -q 'BUILD_SHARED_LIBS:BOOL=ON' "$build/CMakeCache.txt"; then
  [ ! -e "$libdir/libgguf.so" ] || fail "libgguf.so installed without BUILD_SHARED_LIBS"
fi
consumer static "$prefix" -DGGUF_USE_STATIC=ON
nm "$work/static/gguf-consumer" | grep 'gguf5vocab8tokenize' >/dev/null || fail "static: libgguf.a not linked in"

cmake --install "$build" --prefix "$prefix" --component shared >/dev/null
so=$libdir/libgguf.so.$version
[ -f "$so" ] || fail "shared: $so not installed"
soname=$(readelf -d "$so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = "libgguf.so.$version" ] || fail "shared: soname '$soname', want libgguf.so.$version"
internal=$(nm -DC --defined-only "$so" | grep -E ' gguf::([a-z_]+_detail::|detail::file_impl::|.*anonymous namespace)' || true)
[ -z "$internal" ] || fail "shared: internal symbols exported: $(echo "$internal" | head -5)"
nm -DC --defined-only "$so" | grep ' gguf::vocab::tokenize_batch' >/dev/null || fail "shared: public API not exported"
consumer shared "$prefix"
ldd "$work/shared/gguf-consumer" | grep "libgguf.so.$version => $libdir" >/dev/null || fail "shared: consumer not linked to $so"

export PKG_CONFIG_PATH=$libdir/pkgconfig
if pkg-config --cflags gguf | grep -E 'pcre2|icu' >/dev/null; then fail "pkg-config: private Cflags leak: $(pkg-config --cflags gguf)"; fi
# shellcheck disable=SC2046
g++ -O1 "$root/examples/cmake-consumer/main.cpp" -o "$work/pc-static" $(pkg-config --cflags gguf) \
  "$libdir/libgguf.a" $(pkg-config --libs-only-l --static gguf | sed 's/-lgguf //') || fail "pkg-config: static link failed"
# shellcheck disable=SC2046
g++ -O1 "$root/examples/cmake-consumer/main.cpp" -o "$work/pc-shared" $(pkg-config --cflags --libs gguf) \
  -Wl,-rpath,"$libdir" || fail "pkg-config: shared link failed"
for exe in pc-static pc-shared; do
  got=$("$work/$exe" "$file" "$text" | tail -1)
  [ "$got" = "$want" ] || fail "$exe: ids $got, gguf tokenize gives $want"
  echo "test-package: $exe ok"
done

if [ "${GGUF_TEST_PACKAGE_REBUILD:-0}" = 1 ]; then
  cmake -S "$root" -B "$work/shared-build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGUF_BUILD_TESTS=OFF \
    -DGGUF_BUILD_BENCH=OFF ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher} >/dev/null
  cmake --build "$work/shared-build" -j2 --target gguf_static gguf_shared gguf_cli >/dev/null
  cmake --install "$work/shared-build" --prefix "$work/prefix2" >/dev/null
  [ -n "$(find "$work/prefix2" -name "libgguf.so.$version")" ] || fail "BUILD_SHARED_LIBS=ON: no libgguf.so installed"
  consumer rebuilt-shared "$work/prefix2"
  ldd "$work/rebuilt-shared/gguf-consumer" | grep "libgguf.so.$version => $work/prefix2" >/dev/null || fail "rebuilt-shared: not the shared library"
fi
echo "test-package: all ok"
