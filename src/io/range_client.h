// HTTP range requests with libcurl: one easy handle (one kept-alive connection) per
// file; every response is checked against its request before a byte of it is stored
// (contract: include/gguf/remote.h). The bytes go into a sparse_buffer. Not installed.
#pragma once

#include <memory>
#include <string>

#include "gguf/error.h"
#include "gguf/remote.h"
#include "io/sparse_buffer.h"

namespace gguf::io {

/// What identifies one version of a remote file: its ETag and Last-Modified headers.
struct validators {
  std::string etag, last_modified;
  bool empty() const noexcept { return etag.empty() && last_modified.empty(); }
};

class range_client {
 public:
  /// A client of `url` writing into `buf` (which outlives it). Nothing is sent yet.
  /// Errors: io_error (libcurl missing, a line break in the URL).
  static result<std::unique_ptr<range_client>> open(const std::string& url, const remote_options& opt,
                                                    sparse_buffer& buf);
  ~range_client();
  range_client(const range_client&) = delete;
  range_client& operator=(const range_client&) = delete;

  /// The first request, bytes [0, first_request): reserves the file's size in the buffer
  /// and stores what came (a server that ignores Range: the whole small file). With
  /// `cached`, a conditional request: true when the server answered 304 Not Modified
  /// (nothing reserved or stored; validators() are `cached`). Retries as get().
  result<bool> first_request(const validators* cached);
  /// Bytes [from, to) into the buffer, retried after 429, 5xx and broken connections;
  /// a response whose validators differ from the first one's is an io_error.
  result<void> get(uint64_t from, uint64_t to);

  /// The file's validators (from the first response).
  const validators& current() const noexcept { return validators_; }
  transfer_stats stats() const noexcept { return stats_; }
  gguf::error fail(std::string what) const;

  struct exchange;  // one request and its response (range_client.cpp)

 private:
  range_client(sparse_buffer& buf) : buf_(buf) {}
  static size_t on_header(char* data, size_t size, size_t n, void* user);
  static size_t on_body(char* data, size_t size, size_t n, void* user);
  size_t body(exchange& x, const char* data, size_t n);
  bool check_first_byte(exchange& x);
  result<void> attempt(exchange& x, const validators* cached);
  result<void> send(exchange& x, const validators* cached);

  sparse_buffer& buf_;
  remote_options opt_;
  std::string url_;        // as given: messages
  std::string effective_;  // after redirects: later requests
  std::string shown_;      // url_ without its query string, for --verbose
  void* curl_ = nullptr;
  void* header_list_ = nullptr;
  validators validators_;
  transfer_stats stats_;
};

}  // namespace gguf::io
