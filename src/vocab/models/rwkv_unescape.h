// RWKV token text unescaping (llama.cpp's llama_unescape_rwkv_token), for the model and
// for detokenization: the GGUF stores RWKV "world" tokens as escaped strings. Inline: the
// model's table build checks and unescapes every token text.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "vocab/runtime/swar.h"

namespace gguf::vocab_detail {

/// The raw bytes of an escaped RWKV token text: `\t` `\n` `\r` become the control
/// characters, `\xHH` one byte (lowercase hex; other digits follow llama.cpp's
/// arithmetic), `\c` the character c; an unfinished escape at the end is dropped.
inline std::string rwkv_unescape(std::string_view escaped);

/// rwkv_unescape into `out`, which has room for escaped.size() bytes (unescaping never
/// lengthens a text); returns the end of what it wrote.
inline char* rwkv_unescape_to(std::string_view escaped, char* out);

inline std::string rwkv_unescape(std::string_view escaped) {
  std::string out(escaped.size(), '\0');  // unescaping never lengthens a text
  out.resize(size_t(rwkv_unescape_to(escaped, out.data()) - out.data()));
  return out;
}

inline char* rwkv_unescape_to(std::string_view escaped, char* out) {
  const char* p = escaped.data();
  const char* const end = p + escaped.size();
  while (p != end) {
    const char c = *p++;
    if (c != '\\') {
      *out++ = c;
      continue;
    }
    if (p == end) break;  // a dangling escape is dropped
    switch (*p++) {
      case 't': *out++ = '\t'; break;
      case 'n': *out++ = '\n'; break;
      case 'r': *out++ = '\r'; break;
      case 'x': {
        if (end - p < 2) return out;  // an unfinished \x escape is dropped
        // llama_unescape_rwkv_token's digit rule: 'a'..'f' (and above) count from 10,
        // everything else from '0', in 8-bit arithmetic.
        uint8_t acc = 0;
        for (int k = 0; k < 2; ++k) {
          const auto d = static_cast<uint8_t>(*p++);
          acc = static_cast<uint8_t>((acc << 4) + (d >= 'a' ? d - 'a' + 10 : d - '0'));
        }
        *out++ = static_cast<char>(acc);
        break;
      }
      default: *out++ = p[-1]; break;
    }
  }
  return out;
}

/// Whether `text` holds a backslash (needs unescaping). Where the 8-byte words from its
/// start that cover it all lie inside `readable` (the mapped file the texts are views
/// into), it is read a word at a time, the bytes past its end masked off; elsewhere byte
/// by byte (memchr).
inline bool rwkv_has_escape(std::string_view text, std::span<const std::byte> readable) noexcept {
  const size_t n = text.size();
  const size_t words = (n + 7) / 8;
  const auto at = reinterpret_cast<uintptr_t>(text.data()), lo = reinterpret_cast<uintptr_t>(readable.data());
  if constexpr (std::endian::native == std::endian::little) {
    if (at >= lo && at - lo <= readable.size() && readable.size() - (at - lo) >= words * 8) {
      constexpr uint64_t backslashes = 0x0101010101010101ull * '\\';
      uint64_t found = 0;
      for (size_t k = 0; k < words; ++k) {
        uint64_t w;
        std::memcpy(&w, text.data() + 8 * k, 8);
        uint64_t x = w ^ backslashes;  // a zero byte where a backslash is
        if (k + 1 == words && n % 8) x |= ~uint64_t{0} << (8 * (n % 8));  // the bytes past the text: not zero
        found |= zero_byte_bits(x);
      }
      return found != 0;
    }
  }
  return n && std::memchr(text.data(), '\\', n) != nullptr;
}

}  // namespace gguf::vocab_detail
