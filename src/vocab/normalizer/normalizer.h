// The shared pieces of the normalizer stage (internal): SentencePiece's whitespace
// escaping (' ' <-> U+2581) used by the SPM and BPE normalizers and by the decoders.
#pragma once

#include <string>
#include <string_view>

namespace gguf::vocab_detail {

inline constexpr std::string_view escaped_space = "\xE2\x96\x81";  // U+2581

/// out = (space_prefix ? " " : "") + text, every ' ' replaced by U+2581.
inline void escape_whitespace(std::string_view text, bool space_prefix, std::string& out) {
  out.clear();
  out.reserve(text.size() + text.size() / 4 + 3);
  if (space_prefix) out += escaped_space;
  for (char c : text) {
    if (c == ' ') out += escaped_space;
    else out += c;
  }
}

/// Every U+2581 replaced by ' '.
inline std::string unescape_whitespace(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 3, escaped_space) == 0) {
      out += ' ';
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace gguf::vocab_detail
