// Internal state of gguf::file. Not installed.
#pragma once

#include <bit>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "gguf/file.h"
#include "io/byte_source.h"

namespace gguf::detail {

template <class T>
inline T load_raw(const std::byte* p, bool swap) noexcept {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if (swap) {
    if constexpr (sizeof(T) == 2) {
      auto u = std::bit_cast<uint16_t>(v);
      v = std::bit_cast<T>(static_cast<uint16_t>(__builtin_bswap16(u)));
    } else if constexpr (sizeof(T) == 4) {
      v = std::bit_cast<T>(__builtin_bswap32(std::bit_cast<uint32_t>(v)));
    } else if constexpr (sizeof(T) == 8) {
      v = std::bit_cast<T>(__builtin_bswap64(std::bit_cast<uint64_t>(v)));
    }
  }
  return v;
}

struct file_impl {
  std::string path;
  std::unique_ptr<io::byte_source> source;  // a mapped file, a buffer, or a remote file
  std::span<const std::byte> bytes;     // source->bytes(): the whole file at a fixed address
  std::vector<gguf::file> parts;      // the shards a merged view's tensors point into
  std::vector<io::byte_source*> part_sources;  // their sources (kept alive by `parts`)
  pending_edit pending = pending_edit::none;  // an interrupted in-place edit found at open (journal.h)

  uint32_t version = 0;
  bool swap = false;  // file byte order differs from the host's
  gguf::byte_order order = gguf::byte_order::little;
  uint32_t alignment = default_alignment;
  uint64_t metadata_end = 0;
  uint64_t data_offset = 0;

  std::vector<kv_ref> kvs;
  std::unordered_map<std::string_view, uint32_t> kv_index;
  std::vector<tensor_info> tensors;
  std::unordered_map<std::string_view, uint32_t> tensor_index;

  // Lazily built element offset tables of variable-size arrays, keyed by the array's
  // first-element offset.
  mutable std::mutex index_mutex;
  mutable std::unordered_map<uint64_t, std::unique_ptr<std::vector<uint64_t>>> array_index;

  const std::byte* at(uint64_t off) const noexcept { return bytes.data() + off; }
  template <class T>
  T load(uint64_t off) const noexcept {
    return load_raw<T>(at(off), swap);
  }
  /// Width of counts and lengths: 4 bytes in v1, 8 after.
  uint64_t len_width() const noexcept { return version == 1 ? 4 : 8; }
  uint64_t load_len(uint64_t off) const noexcept {
    return version == 1 ? load<uint32_t>(off) : load<uint64_t>(off);
  }
  /// Size in bytes of an already validated value of type `t` at `off`.
  uint64_t value_size(value_type t, uint64_t off) const noexcept;
  const std::vector<uint64_t>& element_offsets(const array_ref& a, uint64_t data, uint64_t count,
                                               value_type elem) const;
};

result<std::shared_ptr<file_impl>> parse(std::shared_ptr<file_impl> impl, const reader_limits& limits);

}  // namespace gguf::detail
