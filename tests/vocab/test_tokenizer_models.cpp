// The tokenizer model tables: a made-up tokenizer model is one facts row
// (gguf/tokenizer_models.h) plus one factory/decoder row (vocab/model_table.h); loading,
// the tokenize pipeline (normalizer, model, special-token template), token_to_piece,
// detokenize and the newline token all follow the rows, with no other code to touch.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "gguf/writer.h"
#include "vocab/vocab_impl.h"

namespace {

using namespace gguf;
using namespace gguf::vocab_detail;

constexpr auto toy_type = static_cast<vocab_type>(100);  // no such vocab_type

// Normalizer: ASCII lowercase. Model: one token per byte, else the unknown token.
class toy_model final : public tokenizer_model {
 public:
  explicit toy_model(const vocab_data& v) : v_(v) {}
  std::string_view normalize(std::string_view fragment, bool, std::string& buf) const override {
    buf.assign(fragment);
    for (char& c : buf) c = (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
    return buf;
  }
  void tokenize(std::string_view text, std::vector<int32_t>& out) const override {
    for (char c : text) {
      const int32_t id = v_.find(std::string_view(&c, 1));
      out.push_back(id >= 0 ? id : v_.unk);
    }
  }

 private:
  const vocab_data& v_;
};

std::unique_ptr<tokenizer_model> make_toy(const vocab_data& v) { return std::make_unique<toy_model>(v); }
std::string toy_piece(const vocab_data&, const token_data& t, uint32_t) {
  std::string s = "[";
  s.append(t.text);
  s += ']';
  return s;
}

constexpr tokenizer_model_info toy_info[] = {
    {{"toy", ""}, toy_type, "toy", true, 1, 2, 0, token_null, token_null, token_null,
     /*add_bos*/ false, /*add_eos*/ true, false, false, false, false,
     {add_when::always, add_when::if_flag, add_when::never}},
};
constexpr model_row toy_row[] = {{toy_type, make_toy, toy_piece, newline_rule::first_id}};

file toy_file(std::string_view model = "toy") {
  writer w;
  EXPECT_TRUE(w.set("tokenizer.ggml.model", value::string(model)).ok());
  const std::vector<std::string> tokens = {"<unk>", "<s>", "</s>", "a", "b", "c", "\n"};
  EXPECT_TRUE(w.set("tokenizer.ggml.tokens", value::string_array(std::span<const std::string>(tokens))).ok());
  const std::vector<int32_t> types = {2, 3, 3, 1, 1, 1, 1};
  EXPECT_TRUE(w.set("tokenizer.ggml.token_type", value::array(std::span<const int32_t>(types))).ok());
  auto f = file::from_buffer(w.to_bytes());
  EXPECT_TRUE(f.ok()) << f.error().message();
  return std::move(*f);
}

TEST(model_table, a_made_up_tokenizer_model_is_one_row_in_each_table) {
  const file f = toy_file();
  // Unknown to the real tables ...
  auto real = vocab::load(f);
  ASSERT_FALSE(real.ok());
  EXPECT_EQ(real.error().code, errc::unsupported);
  // ... and complete with its two rows.
  auto p = vocab::impl::load(f, toy_info, toy_row);
  ASSERT_TRUE(p.ok()) << p.error().message();
  const vocab::impl& v = **p;
  EXPECT_EQ(v.d.type, toy_type);
  EXPECT_EQ(v.d.bos, 1);
  EXPECT_EQ(v.d.eos, 2);
  EXPECT_TRUE(v.d.add_eos);
  EXPECT_EQ(v.d.nl, 6);  // newline_rule::first_id: the model's id for "\n"

  std::vector<int32_t> ids;
  // normalizer (lowercase), model, template: BOS always, EOS because add_eos is set
  ASSERT_TRUE(v.tokenize_into("AbCx", ids, true, true));
  EXPECT_EQ(ids, (std::vector<int32_t>{1, 3, 4, 5, 0, 2}));
  ids.clear();
  ASSERT_TRUE(v.tokenize_into("a</s>B", ids, false, true));  // the special-token partition
  EXPECT_EQ(ids, (std::vector<int32_t>{3, 2, 4}));
  ids.clear();
  ASSERT_TRUE(v.tokenize_into("a</s>B", ids, false, false));
  EXPECT_EQ(ids, (std::vector<int32_t>{3, 0, 0, 0, 0, 4}));

  // the decoder row; control tokens render only with special = true
  EXPECT_EQ(v.token_to_piece(3, true), "[a]");
  EXPECT_EQ(v.token_to_piece(1, false), "");
  EXPECT_EQ(v.token_to_piece(1, true), "[<s>]");
  const int32_t seq[] = {1, 3, 4, 2};
  EXPECT_EQ(v.detokenize(seq, true, false), "[a][b]");
  EXPECT_EQ(v.detokenize(seq, false, true), "[<s>][a][b][</s>]");
}

TEST(model_table, every_supported_tokenizer_model_has_a_factory_row) {
  std::set<std::string_view> names;
  for (const auto& m : tokenizer_models()) {
    for (std::string_view n : m.names) {
      if (n.empty()) continue;
      EXPECT_TRUE(names.insert(n).second) << "tokenizer.ggml.model '" << n << "' in two rows";
      EXPECT_EQ(find_tokenizer_model(n), &m);
    }
    EXPECT_EQ(vocab_type_name(m.type), m.type_name);
    const auto rows = model_table();
    const bool has_row = std::any_of(rows.begin(), rows.end(), [&](const model_row& r) { return r.type == m.type; });
    EXPECT_EQ(has_row, m.supported && !m.no_vocab) << m.type_name;
  }
  EXPECT_EQ(find_tokenizer_model(""), nullptr);
  EXPECT_EQ(find_tokenizer_model("whitespace"), nullptr);
}

}  // namespace
