// The journal of an interrupted in-place edit, built from its documented layout
// (docs/format.md, "Editing"), for tests of the recovery.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include <gtest/gtest.h>

namespace gguf::test {

// A journal as docs/format.md describes it: "GGUFJRN2", then little-endian uint64 dev,
// ino, size, offset, length, checksum (FNV-1a 64 over the magic, the five fields, the
// payload and the old bytes), then the payload (the new bytes of [offset, offset +
// length)), then the old bytes of that range (`before`). With `v1`, the earlier layout:
// "GGUFJRN1", no old bytes, the checksum without them.
inline std::vector<std::byte> make_journal(const std::filesystem::path& target, uint64_t offset,
                                           const std::vector<std::byte>& payload, const std::vector<std::byte>& before,
                                           bool v1 = false) {
  struct stat st {};
  EXPECT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_TRUE(v1 || before.size() == payload.size());
  const char* magic = v1 ? "GGUFJRN1" : "GGUFJRN2";
  uint64_t f[6] = {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
                   static_cast<uint64_t>(st.st_size), offset, payload.size(), 0};
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](const void* p, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<const unsigned char*>(p)[i]) * 0x100000001b3ull;
  };
  mix(magic, 8);
  mix(f, 40);
  mix(payload.data(), payload.size());
  const size_t n_before = v1 ? 0 : before.size();
  mix(before.data(), n_before);
  f[5] = h;
  std::vector<std::byte> out(8 + 48 + payload.size() + n_before);
  std::memcpy(out.data(), magic, 8);
  std::memcpy(out.data() + 8, f, 48);
  if (!payload.empty()) std::memcpy(out.data() + 56, payload.data(), payload.size());
  if (n_before) std::memcpy(out.data() + 56 + payload.size(), before.data(), n_before);
  return out;
}

// The journal an editor writes now: the old bytes are the target's range as it is.
inline std::vector<std::byte> make_journal(const std::filesystem::path& target, uint64_t offset,
                                           const std::vector<std::byte>& payload) {
  std::vector<std::byte> before(payload.size());
  std::FILE* f = std::fopen(target.c_str(), "rb");
  EXPECT_NE(f, nullptr) << target;
  if (f) {
    EXPECT_EQ(std::fseek(f, static_cast<long>(offset), SEEK_SET), 0);
    EXPECT_EQ(std::fread(before.data(), 1, before.size(), f), before.size()) << target;
    std::fclose(f);
  }
  return make_journal(target, offset, payload, before);
}

}  // namespace gguf::test
