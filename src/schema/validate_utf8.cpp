// Rule utf8: every string of the file is UTF-8 (spec, "Encoding": "strings are UTF-8";
// gguf-py decodes them strictly and fails on anything else). Keys are printable ASCII
// already (the reader's invalid_key); values, string array elements and tensor names are
// checked here (issue 29, item 5).
#include <string>

#include "schema/checker.h"

namespace gguf::detail {
namespace {

// Offset of the first byte that does not start a well-formed UTF-8 sequence (Unicode
// Table 3-7: no overlongs, no surrogates, nothing above U+10FFFF), or npos.
size_t first_invalid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char b = p[i];
    if (b < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte
    if (b >= 0xC2 && b <= 0xDF) len = 2;
    else if (b >= 0xE0 && b <= 0xEF) len = 3, lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
    else if (b >= 0xF0 && b <= 0xF4) len = 4, lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
    else return i;
    if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k)
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
    i += len;
  }
  return std::string_view::npos;
}

std::string shown(std::string_view s, size_t at) {
  static const char hex[] = "0123456789abcdef";
  std::string out = "byte " + std::to_string(at) + " of the string is 0x";
  const auto b = static_cast<unsigned char>(s[at]);
  out += hex[b >> 4];
  out += hex[b & 15];
  return out;
}

}  // namespace

void check_utf8(checker& c) {
  for (const auto& kv : c.f.kvs()) {
    if (kv.value.type() == value_type::string) {
      auto s = kv.value.get<std::string_view>();
      if (!s) continue;
      if (size_t at = first_invalid_utf8(*s); at != std::string_view::npos)
        c.add(severity::error, "utf8", kv.key, kv.value.offset(),
              "the string is not UTF-8 (" + shown(*s, at) + "; spec: strings are UTF-8)");
      continue;
    }
    if (kv.value.type() != value_type::array) continue;
    auto a = kv.value.array();
    if (!a || a->nesting() != 1 || a->element_type() != value_type::string) continue;
    uint64_t bad = 0, first = 0;
    std::string first_why;
    (void)a->for_each_string([&](uint64_t i, std::string_view s) {
      if (size_t at = first_invalid_utf8(s); at != std::string_view::npos && bad++ == 0) {
        first = i;
        first_why = shown(s, at);
      }
    });
    if (bad)
      c.add(severity::error, "utf8", kv.key, kv.value.offset(),
            std::to_string(bad) + " element(s) not UTF-8, first: #" + std::to_string(first) + " (" + first_why +
                "; spec: strings are UTF-8)");
  }
  for (const auto& t : c.f.tensors()) {
    if (size_t at = first_invalid_utf8(t.name); at != std::string_view::npos)
      c.add(severity::error, "utf8", t.name, no_offset,
            "the tensor name is not UTF-8 (" + shown(t.name, at) + "; spec: strings are UTF-8)", true);
  }
}

}  // namespace gguf::detail
