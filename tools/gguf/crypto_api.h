// OpenSSL's libcrypto, loaded with dlopen when a hash needs it (SHA-1, SHA-256, the
// UUID) instead of linked: every other command starts without mapping libcrypto and its
// relocations (~1 ms of every process). GGUF_LIBCRYPTO names another library to load;
// the functions used (EVP digests) are OpenSSL 3's stable ABI (libcrypto.so.3), and the
// types come from its headers.
#pragma once

#include <openssl/evp.h>

#include <string>

namespace gguf::cli {

/// The libcrypto functions `gguf hash` uses, resolved from the loaded library.
struct crypto_api {
  EVP_MD_CTX* (*md_ctx_new)() = nullptr;
  void (*md_ctx_free)(EVP_MD_CTX*) = nullptr;
  int (*digest_init_ex)(EVP_MD_CTX*, const EVP_MD*, ENGINE*) = nullptr;
  int (*digest_update)(EVP_MD_CTX*, const void*, size_t) = nullptr;
  int (*digest_final_ex)(EVP_MD_CTX*, unsigned char*, unsigned int*) = nullptr;
  const EVP_MD* (*sha1)() = nullptr;
  const EVP_MD* (*sha256)() = nullptr;
  std::string error;  ///< why it could not be loaded; empty when every function is there
};

/// The library, loaded on the first call (thread-safe); check `error` before use.
const crypto_api& crypto();

}  // namespace gguf::cli
