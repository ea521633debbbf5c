// The journal of an interrupted in-place edit, built from its documented layout
// (docs/format.md, "Editing"), for tests of the recovery.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <vector>

#include <gtest/gtest.h>

namespace gguf::test {

// A journal as docs/format.md describes it: "GGUFJRN1", then little-endian uint64 dev,
// ino, size, offset, length, checksum (FNV-1a 64 over the magic, the five fields and the
// payload), then the payload (the new bytes of [offset, offset + length)).
inline std::vector<std::byte> make_journal(const std::filesystem::path& target, uint64_t offset, const std::vector<std::byte>& payload) {
  struct stat st {};
  EXPECT_EQ(::stat(target.c_str(), &st), 0);
  uint64_t f[6] = {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
                   static_cast<uint64_t>(st.st_size), offset, payload.size(), 0};
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](const void* p, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<const unsigned char*>(p)[i]) * 0x100000001b3ull;
  };
  mix("GGUFJRN1", 8);
  mix(f, 40);
  mix(payload.data(), payload.size());
  f[5] = h;
  std::vector<std::byte> out(8 + 48 + payload.size());
  std::memcpy(out.data(), "GGUFJRN1", 8);
  std::memcpy(out.data() + 8, f, 48);
  if (!payload.empty()) std::memcpy(out.data() + 56, payload.data(), payload.size());
  return out;
}

}  // namespace gguf::test
