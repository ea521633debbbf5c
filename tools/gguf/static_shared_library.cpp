// gguf::shared_library for the statically linked gguf executable, linked there in place of
// src/io/shared_library.cpp (CMakeLists.txt: it defines every symbol of that file, so the
// linker never takes that file's object from libgguf_io.a). glibc's dlopen in a static
// program loads a second C library beside the first, which is not safe: this version opens
// nothing. The commands that need a library (remote files: libcurl; SHA hashes: libcrypto)
// run gguf-dynamic instead before they get here (main.cpp, cmd_hash.cpp); this is what the
// rest see, as a library that failed to load.
#include <cstdlib>

#include "gguf/shared_library.h"

namespace gguf {

bool shared_library::available() noexcept { return false; }

shared_library::shared_library(const char* env_var, const char* default_name) {
  const char* env = std::getenv(env_var);
  name_ = env && *env ? env : default_name;
  load_error_ = "this gguf is statically linked and cannot load libraries; gguf-dynamic, installed beside it, can";
}

void* shared_library::address(const char*) { return nullptr; }

}  // namespace gguf
