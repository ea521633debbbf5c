// The differential suite: what llama.cpp's llama_tokenize returned (recorded by
// scripts/make_tokenizer_vectors.py into tests/vocab/data/llama-vectors.jsonl.gz, format
// described there) for every vocabulary of the test data, and for every tokenizer.ggml.pre
// name that llama.cpp accepts set on three real BPE vocabularies, over pre-tokenizer
// stress texts, in three modes (plain, parse_special, add_special + parse_special).
// Where llama.cpp aborted (recorded "abort", docs/tokenizers.md) we must not crash;
// anywhere else ids (or the error) must be the same.
#include <gtest/gtest.h>
#include <zlib.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "gguf/file.h"
#include "gguf/vocab.h"
#include "gguf/writer.h"
#include "test_support.h"
#include "vocab/pre_tokenizer/pre_tokenizer.h"

namespace {

using json = nlohmann::json;

struct recorded {
  std::string release;
  std::vector<std::string> texts;
  std::vector<json> sources;
};

const recorded& vectors() {
  static const recorded r = [] {
    recorded out;
    const std::string path = std::string(GGUF_SOURCE_DIR) + "/tests/vocab/data/llama-vectors.jsonl.gz";
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) throw std::runtime_error("cannot open " + path);
    std::string all;
    char buf[1 << 16];
    for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) all.append(buf, size_t(n));
    gzclose(f);
    size_t pos = 0;
    bool first = true;
    while (pos < all.size()) {
      size_t end = all.find('\n', pos);
      if (end == std::string::npos) end = all.size();
      json j = json::parse(all.substr(pos, end - pos));
      pos = end + 1;
      if (first) {
        out.release = j.at("llama.cpp").get<std::string>();
        out.texts = j.at("texts").get<std::vector<std::string>>();
        first = false;
      } else {
        out.sources.push_back(std::move(j));
      }
    }
    return out;
  }();
  return r;
}

std::string show(const std::string& s) {
  std::string o;
  for (unsigned char c : s) {
    if (c == '\n') o += "\\n";
    else if (c == '\t') o += "\\t";
    else if (c == '\r') o += "\\r";
    else o += char(c);
  }
  return o;
}

std::string show(const json& ids) { return ids.is_string() ? ids.get<std::string>() : ids.dump(); }

// One source: our vocabulary (with pre rewritten if the source sets one) against the record.
void check_source(const json& src, const json* own_cases) {
  const std::string rel = src.at("vocab").get<std::string>();
  const std::string label = rel + (src.at("pre").is_null() ? "" : " with pre " + src.at("pre").get<std::string>());
  SCOPED_TRACE(label);
  auto f = gguf::file::open(gguf::test::data_file(rel));
  ASSERT_TRUE(f.ok()) << f.error().message();
  std::optional<gguf::file> copy;
  if (!src.at("pre").is_null()) {
    auto w = gguf::writer::from_file(*f);
    ASSERT_TRUE(w.set("tokenizer.ggml.pre", gguf::value::string(src.at("pre").get<std::string>())).ok());
    auto c = gguf::file::from_buffer(w.to_bytes());
    ASSERT_TRUE(c.ok());
    copy.emplace(std::move(*c));
  }
  auto v = gguf::vocab::load(copy ? *copy : *f);
  if (!src.at("load").get<bool>()) {
    EXPECT_FALSE(v.ok()) << "llama.cpp does not load it";
    return;
  }
  ASSERT_TRUE(v.ok()) << v.error().message();
  const auto& texts = vectors().texts;
  const json& cases = src.at("cases");
  size_t bad = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    const json* c = nullptr;
    if (cases.is_array()) c = &cases.at(i);
    else if (auto it = cases.find(std::to_string(i)); it != cases.end()) c = &*it;
    else c = &own_cases->at(i);
    // expand: 0 = same as the previous mode
    const json* want[3] = {&c->at(0), &c->at(1), &c->at(2)};
    if (want[1]->is_number()) want[1] = want[0];
    if (want[2]->is_number()) want[2] = want[1];
    for (int mode = 0; mode < 3; ++mode) {
      const json& w = *want[mode];
      auto got = v->tokenize(texts[i], mode == 2, mode >= 1);
      if (w.is_string() && w.get<std::string>() == "abort") continue;  // llama.cpp aborted: any answer
      bool same = false;
      if (w.is_string()) same = !got.ok();
      else same = got.ok() && json(*got) == w;
      if (!same && bad++ < 5)
        ADD_FAILURE() << "text " << i << " \"" << show(texts[i]) << "\" mode " << mode << ": llama.cpp " << show(w)
                      << ", ours " << (got.ok() ? json(*got).dump() : "error: " + got.error().message());
    }
  }
  EXPECT_EQ(bad, 0u) << "cases that differ";
}

const json* own_cases(const std::string& rel) {
  for (const auto& s : vectors().sources)
    if (s.at("vocab") == rel && s.at("pre").is_null()) return s.contains("cases") ? &s.at("cases") : nullptr;
  return nullptr;
}

TEST(llama_vectors, recorded_by_a_release) {
  EXPECT_FALSE(vectors().release.empty());
  EXPECT_GT(vectors().texts.size(), 300u);
  EXPECT_GT(vectors().sources.size(), 250u);
}

// Every name the recording llama.cpp accepts is one of ours, and the other way round.
TEST(llama_vectors, pre_names_are_llama_cpps) {
  std::set<std::string> theirs, ours;
  for (const auto& s : vectors().sources)
    if (!s.at("pre").is_null()) theirs.insert(s.at("pre").get<std::string>());
  for (const auto& n : gguf::vocab_detail::all_pre_names()) ours.insert(std::string(n.name));
  EXPECT_EQ(theirs, ours);
}

TEST(llama_vectors, every_vocabulary) {
  GGUF_REQUIRE_DATA();
  size_t n = 0;
  for (const auto& s : vectors().sources) {
    if (!s.at("pre").is_null()) continue;
    check_source(s, nullptr);
    ++n;
  }
  EXPECT_GE(n, 20u);
}

// Every pre name on one base vocabulary (one test per base, so that they run in parallel).
void every_pre_name_on(const std::string& base) {
  GGUF_REQUIRE_DATA();
  const std::string rel = "vocab/ggml-vocab-" + base + ".gguf";
  const json* own = own_cases(rel);
  ASSERT_NE(own, nullptr) << rel;
  size_t n = 0;
  for (const auto& s : vectors().sources) {
    if (s.at("pre").is_null() || s.at("vocab") != rel) continue;
    check_source(s, own);
    ++n;
  }
  EXPECT_GE(n, 90u);
}

TEST(llama_vectors, every_pre_name_on_llama_bpe) { every_pre_name_on("llama-bpe"); }
TEST(llama_vectors, every_pre_name_on_qwen2) { every_pre_name_on("qwen2"); }
TEST(llama_vectors, every_pre_name_on_gpt_2) { every_pre_name_on("gpt-2"); }

// The bases above are all there are.
TEST(llama_vectors, pre_names_set_on_three_vocabularies) {
  std::set<std::string> bases;
  for (const auto& s : vectors().sources)
    if (!s.at("pre").is_null()) bases.insert(s.at("vocab").get<std::string>());
  EXPECT_EQ(bases, (std::set<std::string>{"vocab/ggml-vocab-llama-bpe.gguf", "vocab/ggml-vocab-qwen2.gguf",
                                          "vocab/ggml-vocab-gpt-2.gguf"}));
}

}  // namespace
