// Loading libcrypto on first use (crypto_api.h).
#include "crypto_api.h"

#include <dlfcn.h>

#include <cstdlib>

namespace gguf::cli {

namespace {
template <class F>
bool resolve(void* lib, const char* name, F& fn, std::string& error) {
  void* p = dlsym(lib, name);
  if (!p) {
    if (error.empty()) error = std::string("no symbol ") + name;
    return false;
  }
  fn = reinterpret_cast<F>(p);
  return true;
}
}  // namespace

const crypto_api& crypto() {
  static const crypto_api api = [] {
    crypto_api a;
    const char* env = std::getenv("GGUF_LIBCRYPTO");
    const std::string name = env && *env ? env : "libcrypto.so.3";
    void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = dlerror();
      a.error = "cannot load OpenSSL's libcrypto (" + name + "), which SHA-1, SHA-256 and --uuid need: " +
                (why ? why : "not found");
      return a;
    }
    bool ok = resolve(lib, "EVP_MD_CTX_new", a.md_ctx_new, a.error);
    ok = resolve(lib, "EVP_MD_CTX_free", a.md_ctx_free, a.error) && ok;
    ok = resolve(lib, "EVP_DigestInit_ex", a.digest_init_ex, a.error) && ok;
    ok = resolve(lib, "EVP_DigestUpdate", a.digest_update, a.error) && ok;
    ok = resolve(lib, "EVP_DigestFinal_ex", a.digest_final_ex, a.error) && ok;
    ok = resolve(lib, "EVP_sha1", a.sha1, a.error) && ok;
    ok = resolve(lib, "EVP_sha256", a.sha256, a.error) && ok;
    if (!ok) a.error = "cannot use " + name + " for SHA-1 / SHA-256: " + a.error;
    return a;  // a half-usable library stays loaded: unloading it gains nothing
  }();
  return api;
}

}  // namespace gguf::cli
