// Opening a system library at run time (gguf/shared_library.h).
#include "gguf/shared_library.h"

#include <dlfcn.h>

#include <cstdlib>

namespace gguf {

// The statically linked gguf executable links tools/gguf/static_shared_library.cpp instead
// of this file: available() false, nothing opened.
bool shared_library::available() noexcept { return true; }

shared_library::shared_library(const char* env_var, const char* default_name) {
  const char* env = std::getenv(env_var);
  name_ = env && *env ? env : default_name;
  handle_ = dlopen(name_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* why = dlerror();
    load_error_ = why ? why : "not found";
  }
}

void* shared_library::address(const char* symbol) {
  if (!handle_) return nullptr;
  void* p = dlsym(handle_, symbol);
  if (!p && missing_.empty()) missing_ = symbol;
  return p;
}

}  // namespace gguf
