// SPM model: llama.cpp's llm_tokenizer_spm. The text (spaces already escaped to U+2581
// by the session) is split into UTF-8 characters; adjacent symbols whose concatenation
// is a token merge, highest token score first; a final symbol that is not a token is
// emitted as byte tokens (<0xXX>, or the single-byte token).
#include <array>
#include <string>

#include "vocab/merge_queue.h"
#include "vocab/model.h"
#include "vocab/unicode.h"

namespace gguf::vocab_detail {
namespace {

class spm_model final : public tokenizer_model {
 public:
  explicit spm_model(const vocab_data& v) : v_(v) {
    static constexpr char hex[] = "0123456789ABCDEF";
    for (int b = 0; b < 256; ++b) {
      const char buf[6] = {'<', '0', 'x', hex[b >> 4], hex[b & 15], '>'};
      int32_t id = v.find(std::string_view(buf, 6));
      if (id < 0) {
        const char c = char(b);
        id = v.find(std::string_view(&c, 1));
      }
      byte_token_[b] = id < 0 ? v.unk : id;  // llama.cpp would throw here; unk keeps the input visible
    }
  }

  void tokenize(std::string_view text, std::vector<int32_t>& out) const override {
    std::vector<symbol> syms;
    syms.reserve(text.size());
    for (size_t off = 0; off < text.size();) {
      const size_t len = std::min(utf8_len(text[off]), text.size() - off);
      symbol s;
      s.start = uint32_t(off);
      s.len = uint32_t(len);
      s.prev = int32_t(syms.size()) - 1;
      s.next = off + len == text.size() ? -1 : int32_t(syms.size()) + 1;
      syms.push_back(s);
      off += len;
    }
    const uint32_t n_tokens = uint32_t(v_.tokens.size());
    merge_symbols<float>(syms, [&](const symbol& l, const symbol& r, pair_candidate<float>& pc) {
      const int32_t id = v_.find(text.substr(l.start, l.len + r.len));
      if (id < 0 || uint32_t(id) >= n_tokens) return false;
      pc.key = -v_.tokens[id].score;
      pc.merged = id;
      return true;
    });
    for (int32_t i = syms.empty() ? -1 : 0; i >= 0; i = syms[i].next) {
      const symbol& s = syms[i];
      const int32_t id = v_.find(text.substr(s.start, s.len));
      if (id >= 0) {
        out.push_back(id);
        continue;
      }
      for (uint32_t j = 0; j < s.len; ++j) {
        const int32_t b = byte_token_[uint8_t(text[s.start + j])];
        if (b >= 0) out.push_back(b);
      }
    }
  }

 private:
  const vocab_data& v_;
  std::array<int32_t, 256> byte_token_{};
};

}  // namespace

std::unique_ptr<tokenizer_model> make_spm(const vocab_data& v) { return std::make_unique<spm_model>(v); }

}  // namespace gguf::vocab_detail
