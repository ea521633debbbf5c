// Loading libcrypto on first use (crypto_api.h).
#include "crypto_api.h"

#include "gguf/shared_library.h"

namespace gguf::cli {

const crypto_api& crypto() {
  static const crypto_api api = [] {
    crypto_api a;
    shared_library lib("GGUF_LIBCRYPTO", "libcrypto.so.3");
    if (!lib.loaded()) {
      a.error = "cannot load OpenSSL's libcrypto (" + lib.name() + "), which SHA-1, SHA-256 and --uuid need: " +
                lib.load_error();
      return a;
    }
    lib.resolve("EVP_MD_CTX_new", a.md_ctx_new);
    lib.resolve("EVP_MD_CTX_free", a.md_ctx_free);
    lib.resolve("EVP_DigestInit_ex", a.digest_init_ex);
    lib.resolve("EVP_DigestUpdate", a.digest_update);
    lib.resolve("EVP_DigestFinal_ex", a.digest_final_ex);
    lib.resolve("EVP_sha1", a.sha1);
    lib.resolve("EVP_sha256", a.sha256);
    if (!lib.missing().empty()) a.error = "cannot use " + lib.name() + " for SHA-1 / SHA-256: no symbol " + lib.missing();
    return a;  // a half-usable library stays loaded: unloading it gains nothing
  }();
  return api;
}

}  // namespace gguf::cli
