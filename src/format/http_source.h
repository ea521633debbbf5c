// A remote file read with HTTP range requests (libcurl) into a reservation of the file's
// size. Not installed. Contract: include/gguf/remote.h.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "format/byte_source.h"

namespace gguf::detail {

class http_source : public byte_source {
 public:
  /// Sends the first request (or revalidates the cached metadata) and reserves the
  /// file's size. Errors: io_error with a one-line cause.
  static result<std::unique_ptr<http_source>> open(const std::string& url, const remote_options& opt);
  ~http_source() override;

  std::span<const std::byte> bytes() const noexcept override { return {base_, size_}; }
  uint64_t prefix() const noexcept override;
  result<void> grow_prefix(uint64_t end, uint64_t hint) override;
  result<void> fetch(std::span<const byte_range> ranges) override;
  bool resident(uint64_t off, uint64_t n) const noexcept override;
  void release(uint64_t off, uint64_t n) noexcept override;
  transfer_stats stats() const noexcept override;
  void parsed(uint64_t end) noexcept override;

  struct exchange;  // one request and its response (http_source.cpp)

 private:
  static size_t on_header(char* data, size_t size, size_t n, void* user);
  static size_t on_body(char* data, size_t size, size_t n, void* user);
  size_t body(exchange& x, const char* data, size_t n);
  bool check_first_byte(exchange& x);
  http_source() = default;
  result<void> first_request();
  result<void> get(uint64_t from, uint64_t to);  // [from, to) with retries
  result<void> attempt(exchange& x);
  result<void> reserve(uint64_t size);
  void unreserve() noexcept;
  result<void> make_writable(uint64_t from, uint64_t to);
  void mark(uint64_t from, uint64_t to);
  bool resident_locked(uint64_t off, uint64_t n) const noexcept;
  bool load_cache();
  std::string cache_path() const;
  gguf::error fail(std::string what) const;

  remote_options opt_;
  std::string url_;        // as given: messages and the cache key
  std::string effective_;  // after redirects: later requests
  std::string shown_;      // url_ without its query string, for --verbose
  void* curl_ = nullptr;
  void* header_list_ = nullptr;
  std::byte* base_ = nullptr;
  uint64_t size_ = 0;
  uint64_t reserved_ = 0;
  std::map<uint64_t, uint64_t> have_;  // fetched ranges: start -> end, disjoint, merged
  std::string etag_, last_modified_;
  std::vector<std::byte> cached_;  // metadata from the cache, until revalidated
  std::string cached_etag_, cached_last_modified_;
  uint64_t cached_size_ = 0;
  bool from_cache_ = false;
  transfer_stats stats_;
  mutable std::mutex mu_;
};

/// The reply to a plain GET (the hub's model API): status, body, ETag.
struct small_reply {
  long status = 0;
  std::string body, etag;
};
/// GETs `url` whole with the options' headers (plus `extra_headers`), timeout and retries
/// (429, 5xx, broken connections), following redirects; a body over `max_body` bytes is
/// cut and refused. Any status comes back as a reply; errors are io_error for a transfer
/// that failed (one line naming the cause).
result<small_reply> http_get_small(const std::string& url, const remote_options& opt,
                                   const std::vector<std::string>& extra_headers = {},
                                   uint64_t max_body = uint64_t{32} << 20);

}  // namespace gguf::detail
