// Unicode helpers shared by the tokenizers (internal). Semantics follow llama.cpp's
// src/unicode.cpp exactly, because token ids depend on them:
//  - UTF-8 decoding is lenient the llama.cpp way: a byte that does not start a valid
//    sequence becomes U+FFFD and consumes one byte; 4-byte leads are not range-checked.
//  - categories come from llama.cpp's tables (one category per code point: N L Z M P S C),
//    `whitespace` is llama.cpp's fixed set (\t..\r, space, U+0085, U+00A0, U+1680,
//    U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gguf::vocab_detail {

/// Per code point flags; bit values are llama.cpp's unicode_cpt_flags.
struct cpt_flags {
  enum : uint16_t {
    undefined = 0x0001,
    number = 0x0002,       ///< \p{N}
    letter = 0x0004,       ///< \p{L}
    separator = 0x0008,    ///< \p{Z}
    accent_mark = 0x0010,  ///< \p{M}
    punctuation = 0x0020,  ///< \p{P}
    symbol = 0x0040,       ///< \p{S}
    control = 0x0080,      ///< \p{C}
    mask_categories = 0x00FF,
    whitespace = 0x0100,
    lowercase = 0x0200,
    uppercase = 0x0400,
    nfd = 0x0800,
  };
  uint16_t bits = 0;

  bool is_undefined() const { return bits & undefined; }
  bool is_number() const { return bits & number; }
  bool is_letter() const { return bits & letter; }
  bool is_separator() const { return bits & separator; }
  bool is_accent_mark() const { return bits & accent_mark; }
  bool is_punctuation() const { return bits & punctuation; }
  bool is_symbol() const { return bits & symbol; }
  bool is_control() const { return bits & control; }
  bool is_whitespace() const { return bits & whitespace; }
  bool is_lowercase() const { return bits & lowercase; }
  bool is_uppercase() const { return bits & uppercase; }
  uint16_t category() const { return bits & mask_categories; }
};

inline constexpr uint32_t max_codepoints = 0x110000;

/// Flags of a code point; code points >= 0x110000 have no flags (bits == 0), like llama.cpp.
cpt_flags flags_of(uint32_t cpt) noexcept;
/// The flag table itself (max_codepoints entries), for hot loops.
const uint16_t* flags_table() noexcept;

/// Number of bytes of the UTF-8 sequence whose first byte is `c` (1 for a stray
/// continuation byte), llama.cpp's unicode_len_utf8.
inline size_t utf8_len(char c) noexcept {
  static constexpr uint8_t lookup[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  return lookup[static_cast<uint8_t>(c) >> 4];
}

/// Decodes one code point at `offset`, advancing it; returns false (and leaves offset)
/// when the bytes there are not a sequence llama.cpp accepts.
bool utf8_decode(std::string_view s, size_t& offset, uint32_t& cpt) noexcept;

/// Decodes a whole string; invalid bytes become U+FFFD (one byte each).
void utf8_to_cpts(std::string_view s, std::vector<uint32_t>& out);

/// Appends the UTF-8 encoding of `cpt` (code points above 0x10FFFF are encoded as U+FFFD;
/// llama.cpp would throw there).
void append_utf8(std::string& out, uint32_t cpt);

/// Simple lowercase mapping (llama.cpp unicode_tolower).
uint32_t to_lower(uint32_t cpt) noexcept;
/// First code point of the NFD decomposition (llama.cpp unicode_cpts_normalize_nfd).
uint32_t to_nfd(uint32_t cpt) noexcept;

/// llama.cpp's unicode_cpt_is_han (CJK ideograph ranges).
bool is_han(uint32_t cpt) noexcept;

/// GPT-2 byte-level alphabet: byte -> its UTF-8 encoded stand-in code point.
std::string_view byte_to_utf8(uint8_t byte) noexcept;
/// Inverse of byte_to_utf8 for one code point; false if `cpt` is not in the alphabet.
bool utf8_cpt_to_byte(uint32_t cpt, uint8_t& byte) noexcept;

}  // namespace gguf::vocab_detail
