// Unicode lookups for the WPM/UGM normalizers, with llama.cpp's exact behaviour.
//
// The data is the tokenizers' one table set (unicode.h, transcribed from llama.cpp's
// src/unicode-data.cpp, Unicode 15.1): general-category flags, the White_Space set, the
// simple lowercase mapping and "NFD" — which in llama.cpp maps a code point to the
// FIRST code point of its canonical decomposition only (the combining marks are dropped,
// a Hangul syllable becomes its leading jamo). That is what bert vocabularies in
// llama.cpp see, so it is what we reproduce, not real NFD. What differs from unicode.h is
// only the interface the normalizers use: flags as plain bits with `undefined` above
// U+10FFFF, and llama.cpp's strict UTF-8 decoder (unicode_cpt_from_utf8).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "vocab/unicode.h"

namespace gguf::vocab_detail::unicode {

/// Category flags, as llama.cpp's unicode_cpt_flags (one bit per general category class).
enum cpt_flag : uint16_t {
  undefined = 0x0001,    ///< Cn, and every value above U+10FFFF
  number = 0x0002,       ///< \p{N}
  letter = 0x0004,       ///< \p{L}
  separator = 0x0008,    ///< \p{Z}
  accent_mark = 0x0010,  ///< \p{M}
  punctuation = 0x0020,  ///< \p{P}
  symbol = 0x0040,       ///< \p{S}
  control = 0x0080,      ///< \p{C} except Cn
  whitespace = 0x0100,   ///< White_Space property (llama.cpp's unicode_set_whitespace)
};

/// Flags of `cpt` (any uint32; above U+10FFFF: `undefined`).
inline uint16_t flags(uint32_t cpt) noexcept {
  return cpt < max_codepoints ? static_cast<uint16_t>(flags_of(cpt).bits & (cpt_flags::mask_categories | cpt_flags::whitespace))
                              : uint16_t{undefined};
}
/// Simple lowercase mapping (UnicodeData field 13), or `cpt` itself.
using vocab_detail::to_lower;
/// llama.cpp's unicode_cpts_normalize_nfd for one code point: the first code point of
/// its canonical decomposition, or `cpt` itself.
inline uint32_t nfd_first(uint32_t cpt) noexcept { return to_nfd(cpt); }

/// Decodes one UTF-8 sequence at s[pos] the way llama.cpp's unicode_cpt_from_utf8 does
/// (lead-byte bit patterns and continuation bytes are checked; overlongs, surrogates and
/// values up to 0x1FFFFF are accepted). Returns the byte length, or 0 if invalid
/// (llama.cpp throws there). Requires pos < s.size().
inline size_t decode_utf8(std::string_view s, size_t pos, uint32_t& cpt) noexcept {
  const auto b0 = static_cast<uint8_t>(s[pos]);
  const size_t left = s.size() - pos;
  auto cont = [&](size_t k) { return (static_cast<uint8_t>(s[pos + k]) & 0xC0) == 0x80; };
  auto at = [&](size_t k) { return static_cast<uint32_t>(static_cast<uint8_t>(s[pos + k]) & 0x3F); };
  if (!(b0 & 0x80)) {
    cpt = b0;
    return 1;
  }
  if (!(b0 & 0x40)) return 0;
  if (!(b0 & 0x20)) {
    if (left < 2 || !cont(1)) return 0;
    cpt = ((b0 & 0x1Fu) << 6) | at(1);
    return 2;
  }
  if (!(b0 & 0x10)) {
    if (left < 3 || !cont(1) || !cont(2)) return 0;
    cpt = ((b0 & 0x0Fu) << 12) | (at(1) << 6) | at(2);
    return 3;
  }
  if (!(b0 & 0x08)) {
    if (left < 4 || !cont(1) || !cont(2) || !cont(3)) return 0;
    cpt = ((b0 & 0x07u) << 18) | (at(1) << 12) | (at(2) << 6) | at(3);
    return 4;
  }
  return 0;
}

/// llama.cpp's unicode_len_utf8: sequence length implied by a lead byte's high nibble
/// (continuation bytes count as 1).
inline size_t utf8_len_from_lead(char c) noexcept { return utf8_len(c); }
/// Appends the UTF-8 encoding of cpt.
using vocab_detail::append_utf8;
}  // namespace gguf::vocab_detail::unicode
