// A plain GET of a small document (the hub's model API) with the remote options'
// headers, timeout and retries. Not installed. (Range requests of a file: range_client.h.)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gguf/error.h"
#include "gguf/remote.h"

namespace gguf::io {

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

}  // namespace gguf::io
