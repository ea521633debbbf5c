// A GGUF file far larger than the memory it takes to write: one f32 tensor of n zeros,
// for tests of edits, rewrites and faults that need a long write or a large mapping.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <span>
#include <vector>

#include "gguf/file.h"
#include "gguf/output.h"
#include "gguf/writer.h"

namespace gguf::test {

/// Writes `p`: general.architecture llama (and general.name `name` when given), one f32
/// tensor "t" of `n` elements, all zero. The header of a one-element tensor is written with
/// its dimension patched to n, then n * 4 zero bytes (safe_output::write_zeros), so the
/// file is written in bounded memory.
inline void make_big_model(const std::filesystem::path& p, uint64_t n, const char* name = nullptr) {
  gguf::writer shape;
  ASSERT_TRUE(shape.set("general.architecture", gguf::value::string("llama")).ok());
  if (name) {
    ASSERT_TRUE(shape.set("general.name", gguf::value::string(name)).ok());
  }
  std::vector<std::byte> one(4);
  uint64_t ne1[] = {1};
  ASSERT_TRUE(shape.add_tensor("t", gguf::ggml_type::f32, ne1, std::span<const std::byte>(one)).ok());
  auto parsed = gguf::file::from_buffer(shape.to_bytes());
  ASSERT_TRUE(parsed.ok());
  auto meta = shape.metadata_bytes();
  const uint64_t ne_at = parsed->tensors()[0].info_offset + 8 + 1 + 4;  // name length, "t", n_dims
  std::memcpy(meta.data() + ne_at, &n, 8);
  auto out = gguf::safe_output::create(p);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out->write(meta).ok());
  ASSERT_TRUE(out->write_zeros(n * 4).ok());
  ASSERT_TRUE(out->commit().ok());
}

}  // namespace gguf::test
