// Text helpers of the HTTP client: header values, Content-Range, URL hosts, byte counts
// for messages. Not installed. (gguf::is_url and gguf::request_headers, gguf/remote.h,
// are defined in url.cpp.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gguf::io {

std::string lower(std::string_view s);
/// Without leading blanks and trailing blanks and line ends.
std::string_view trim(std::string_view s);
/// A whole decimal number (after trim); false for anything else.
bool parse_u64(std::string_view s, uint64_t& v);
/// "1.5 GiB", "3.0 MiB", "512 bytes".
std::string human_size(uint64_t n);

/// A Content-Range value: "bytes A-B/T" (T may be "*"), or "bytes */T" (416).
struct content_range {
  bool ok = false;
  uint64_t first = 0, last = 0, total = UINT64_MAX;
};
content_range parse_content_range(std::string_view v);

/// Host of a URL, lower case, without port or credentials.
std::string url_host(std::string_view url);

}  // namespace gguf::io
