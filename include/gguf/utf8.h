// gguf/utf8.h — UTF-8 encoding of a code point: the library's one encoder, used by the
// tokenizers, the Jinja engine and the command-line tool's JSON line decoder.
//
//   std::string s;
//   gguf::append_utf8(s, 0x2581);   // "\xE2\x96\x81" (U+2581, SentencePiece's space)
//
// Follows RFC 3629's byte patterns, as llama.cpp's unicode_cpt_to_utf8; a code point above
// U+10FFFF (which llama.cpp rejects with an exception) is written as U+FFFD. Surrogates
// (U+D800..U+DFFF) are encoded like any other value, as llama.cpp does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// Writes the UTF-8 encoding of `cpt` to `out` (room for 4 bytes); returns the number of
/// bytes written (1..4).
inline size_t utf8_encode(uint32_t cpt, char* out) noexcept {
  if (cpt <= 0x7F) {
    out[0] = char(cpt);
    return 1;
  }
  if (cpt <= 0x7FF) {
    out[0] = char(0xC0 | ((cpt >> 6) & 0x1F));
    out[1] = char(0x80 | (cpt & 0x3F));
    return 2;
  }
  if (cpt <= 0xFFFF) {
    out[0] = char(0xE0 | ((cpt >> 12) & 0x0F));
    out[1] = char(0x80 | ((cpt >> 6) & 0x3F));
    out[2] = char(0x80 | (cpt & 0x3F));
    return 3;
  }
  if (cpt <= 0x10FFFF) {
    out[0] = char(0xF0 | ((cpt >> 18) & 0x07));
    out[1] = char(0x80 | ((cpt >> 12) & 0x3F));
    out[2] = char(0x80 | ((cpt >> 6) & 0x3F));
    out[3] = char(0x80 | (cpt & 0x3F));
    return 4;
  }
  out[0] = char(0xEF), out[1] = char(0xBF), out[2] = char(0xBD);  // U+FFFD
  return 3;
}

/// Appends the UTF-8 encoding of `cpt` to `out` (utf8_encode).
inline void append_utf8(std::string& out, uint32_t cpt) {
  char u[4];
  out.append(u, utf8_encode(cpt, u));
}

}  // namespace gguf
#pragma GCC visibility pop
