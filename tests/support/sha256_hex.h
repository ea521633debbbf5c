// SHA-256 of bytes as lower-case hex (OpenSSL's EVP), for tests that compare outputs with
// digests recorded from the reference tools. Header-only: only the test executables that
// link OpenSSL include it.
#pragma once

#include <openssl/evp.h>

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace gguf::test {

inline std::string sha256_hex(const std::vector<std::byte>& b) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(b.data(), b.size(), md, &n, EVP_sha256(), nullptr);
  std::string s;
  char h[3];
  for (unsigned i = 0; i < n; ++i) {
    std::snprintf(h, sizeof h, "%02x", md[i]);
    s += h;
  }
  return s;
}

}  // namespace gguf::test
