// gguf/version.h — the library's version, "MAJOR.MINOR.PATCH".
//
//   std::cout << "gguf " << gguf::version() << "\n";      // what `gguf --version` prints
//
// Its one source is `project(gguf VERSION ...)` in CMakeLists.txt: the library, the shared
// library's soname, gguf.pc, the CMake package, `gguf --version` and the Python package
// (ggufkit.__version__, the wheel's version: python/setup.py reads the same line) all
// take it from there.
#pragma once

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// The version this library was built as, e.g. "0.1.0" (static storage, never null).
const char* version() noexcept;

}  // namespace gguf
#pragma GCC visibility pop
