// gguf/shared_library.h — a system library opened at run time (dlopen) on first use, so that a
// program starts without it: the io layer's libcurl (remote files) and the command-line tool's
// libcrypto (`gguf hash` SHA-1 / SHA-256) are both loaded through it.
//
//   gguf::shared_library lib("GGUF_LIBCURL", "libcurl.so.4");   // $GGUF_LIBCURL overrides the name
//   CURL* (*easy_init)() = nullptr;
//   lib.resolve("curl_easy_init", easy_init);
//   if (!lib.loaded()) ... lib.load_error() ...        // dlopen failed: dlerror's text
//   else if (!lib.missing().empty()) ...                // the first symbol it lacks
#pragma once

#include <string>

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

class shared_library {
 public:
  /// Opens the library named by the environment variable `env_var` when it is set and not
  /// empty, else `default_name` (dlopen, RTLD_NOW | RTLD_LOCAL). The library is never closed:
  /// the functions resolved from it stay valid for the life of the process.
  /// In the statically linked `gguf` executable (which runs gguf-dynamic for what needs
  /// a library), nothing is opened: loaded() is false and load_error() says why.
  shared_library(const char* env_var, const char* default_name);

  /// Whether this process can open libraries at run time: true, except in the statically
  /// linked `gguf` executable (glibc's dlopen in a static program loads a second C library
  /// beside the first: not safe), which links its own version of this class.
  static bool available() noexcept;

  /// The name given to dlopen.
  const std::string& name() const noexcept { return name_; }
  /// Whether dlopen found and loaded it.
  bool loaded() const noexcept { return handle_ != nullptr; }
  /// Why dlopen failed (dlerror's text, "not found" when it gave none); empty when loaded().
  const std::string& load_error() const noexcept { return load_error_; }
  /// The first symbol resolve() did not find (empty when all were found, or not loaded()).
  const std::string& missing() const noexcept { return missing_; }

  /// Sets `fn` (a function pointer) to the library's function `symbol`; leaves it unchanged
  /// when the library lacks it (recorded in missing()) or is not loaded.
  template <class F>
  void resolve(const char* symbol, F& fn) {
    if (void* p = address(symbol)) fn = reinterpret_cast<F>(p);
  }

 private:
  void* address(const char* symbol);

  std::string name_, load_error_, missing_;
  void* handle_ = nullptr;
};

}  // namespace gguf
#pragma GCC visibility pop
