// Byte fallback of the BPE and SPM models (internal): the token each byte of a symbol that
// is not a token becomes. llama.cpp's llm_tokenizer_spm::resegment looks up "<0xXX>"
// (SentencePiece's byte pieces; token_to_byte / byte_to_token) and its BPE session the
// byte's own one-character text through the byte alphabet or "<0xXX>" without it.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "vocab/models/tokenizer_model.h"

namespace gguf::vocab_detail {

class byte_fallback {
 public:
  /// Which text a byte's token has: "<0xXX>", the byte itself, or "<0xXX>" else the byte.
  enum class pieces { hex, raw, hex_then_raw };

  byte_fallback() = default;
  /// The token of each byte in `v`; `missing` where it has none.
  byte_fallback(const vocab_data& v, pieces p, int32_t missing) {
    static constexpr char hex[] = "0123456789ABCDEF";
    for (int b = 0; b < 256; ++b) {
      int32_t id = -1;
      if (p != pieces::raw) {
        const char h[6] = {'<', '0', 'x', hex[b >> 4], hex[b & 15], '>'};
        id = v.find(std::string_view(h, 6));
      }
      if (id < 0 && p != pieces::hex) {
        const char c = char(b);
        id = v.find(std::string_view(&c, 1));
      }
      ids_[b] = id < 0 ? missing : id;
    }
  }

  /// The token of each byte in `v`, from the compiled cache's table `name` when it has it
  /// (512 lookups in the token map otherwise: random pages of it), else found and saved
  /// (this object must then stay in place until the cache is written: a model's member).
  void load_or_find(const vocab_data& v, std::string_view name, pieces p, int32_t missing) {
    load_or_build(
        v.cache, name,
        [&](table_reader& r) {
          std::span<const int32_t> ids;
          if (!r.get(ids) || ids.size() != ids_.size()) return false;
          for (size_t b = 0; b < ids.size(); ++b) {
            if (ids[b] < -1 || (ids[b] >= 0 && size_t(ids[b]) >= v.tokens.size())) return false;
            ids_[b] = ids[b];
          }
          return true;
        },
        [&] { *this = byte_fallback(v, p, missing); }, [&](table_writer& w) { w.put(std::span<const int32_t>(ids_)); });
  }

  /// Appends the token of each byte of `bytes` (a byte without one gives nothing).
  void append(std::string_view bytes, std::vector<int32_t>& out) const {
    for (const char c : bytes) {
      const int32_t id = ids_[static_cast<uint8_t>(c)];
      if (id >= 0) out.push_back(id);
    }
  }

 private:
  std::array<int32_t, 256> ids_{};
};

}  // namespace gguf::vocab_detail
