// A remote file as a byte source: HTTP range requests (range_client) into a reservation
// of the file's size (sparse_buffer), and its metadata cache. Not installed. Contract:
// include/gguf/remote.h.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "io/byte_source.h"
#include "io/range_client.h"
#include "io/sparse_buffer.h"

namespace gguf::io {

class http_source : public byte_source {
 public:
  /// Sends the first request (or revalidates the cached metadata) and reserves the
  /// file's size. Errors: io_error with a one-line cause.
  static result<std::unique_ptr<http_source>> open(const std::string& url, const remote_options& opt);

  std::span<const std::byte> bytes() const noexcept override { return {buf_.data(), buf_.size()}; }
  uint64_t prefix() const noexcept override;
  result<void> grow_prefix(uint64_t end, uint64_t hint) override;
  result<void> fetch(std::span<const byte_range> ranges) override;
  bool resident(uint64_t off, uint64_t n) const noexcept override;
  void release(uint64_t off, uint64_t n) noexcept override;
  transfer_stats stats() const noexcept override;

  bool remote() const noexcept override { return true; }
  /// The metadata [0, end) is parsed: stores it in the cache (remote_options::cache_dir)
  /// unless it came from there. Best effort: a failed write is ignored.
  void metadata_parsed(uint64_t end) noexcept override;

 private:
  http_source() = default;
  bool load_cache();
  std::string cache_path() const;

  remote_options opt_;
  std::string url_;              // as given: the cache key
  sparse_buffer buf_;            // (declared before the client, which writes into it)
  std::unique_ptr<range_client> client_;
  std::vector<std::byte> cached_;  // metadata from the cache, until revalidated
  validators cached_validators_;
  uint64_t cached_size_ = 0;
  bool from_cache_ = false;
  mutable std::mutex mu_;
};

}  // namespace gguf::io
