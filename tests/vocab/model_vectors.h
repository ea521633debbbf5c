// Test helpers for the WPM/UGM/RWKV model tests: a vocab_data read straight from a
// GGUF's tokenizer.ggml.* keys (the way the loader fills it, without its defaulting
// logic beyond what these vocabularies need), and llama.cpp's expected outputs
// (tokenizer-vectors/*.jsonl and the .inp/.out pairs of llama.cpp's test-tokenizer-0).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gguf/file.h"
#include "test_support.h"
#include "vocab/models/tokenizer_model.h"

namespace gguf::test::models {

struct loaded_vocab {
  gguf::file file;
  vocab_detail::vocab_data data;
};

inline int32_t opt_id(const gguf::file& f, std::string_view key) {
  auto v = f.get_uint(key);
  return v ? static_cast<int32_t>(*v) : vocab_detail::no_token;
}
inline bool opt_bool(const gguf::file& f, std::string_view key, bool def) {
  auto v = f.find(key);
  if (!v) return def;
  auto b = v->get<bool>();
  return b ? *b : def;
}

/// Opens `path` and fills vocab_data from its tokenizer.ggml.* keys (views into the file).
inline std::unique_ptr<loaded_vocab> load(const std::filesystem::path& path) {
  auto f = gguf::file::open(path);
  if (!f) {
    ADD_FAILURE() << "cannot open " << path << ": " << f.error().message();
    return nullptr;
  }
  auto lv = std::make_unique<loaded_vocab>(loaded_vocab{std::move(*f), {}});
  const gguf::file& file = lv->file;
  auto& v = lv->data;
  auto tokens = file.get_array("tokenizer.ggml.tokens");
  if (!tokens) {
    ADD_FAILURE() << "no tokenizer.ggml.tokens in " << path;
    return nullptr;
  }
  v.tokens.resize(tokens->size());
  auto walked = tokens->for_each_string([&](uint64_t i, std::string_view s) { v.tokens.mut(i).text = s; });
  EXPECT_TRUE(static_cast<bool>(walked));
  if (auto a = file.get_array("tokenizer.ggml.scores")) {
    auto scores = a->to_vector<float>();
    EXPECT_TRUE(static_cast<bool>(scores));
    if (scores && scores->size() == v.tokens.size())
      for (size_t i = 0; i < scores->size(); ++i) v.tokens.mut(i).score = (*scores)[i];
  }
  if (auto a = file.get_array("tokenizer.ggml.token_type")) {
    auto types = a->to_vector<int32_t>();
    EXPECT_TRUE(static_cast<bool>(types));
    if (types && types->size() == v.tokens.size())
      for (size_t i = 0; i < types->size(); ++i) v.tokens.mut(i).type = static_cast<vocab_detail::token_type>((*types)[i]);
  }
  EXPECT_EQ(v.token_to_id.build(v.tokens), v.tokens.size());
  if (auto a = file.get_array("tokenizer.ggml.precompiled_charsmap")) v.precompiled_charsmap = a->raw();
  v.unk = opt_id(file, "tokenizer.ggml.unknown_token_id");
  v.bos = opt_id(file, "tokenizer.ggml.bos_token_id");
  v.eos = opt_id(file, "tokenizer.ggml.eos_token_id");
  v.add_space_prefix = opt_bool(file, "tokenizer.ggml.add_space_prefix", v.add_space_prefix);
  v.remove_extra_whitespaces = opt_bool(file, "tokenizer.ggml.remove_extra_whitespaces", v.remove_extra_whitespaces);
  v.lowercase = opt_bool(file, "tokenizer.ggml.normalizer.lowercase", true);
  v.strip_accents = opt_bool(file, "tokenizer.ggml.normalizer.strip_accents", v.lowercase);
  return lv;
}

struct vector_case {
  std::string text;
  std::vector<int32_t> ids;
};

/// tokenizer-vectors/NAME.jsonl: `text` and `ids` (add_special and parse_special off).
inline std::vector<vector_case> read_jsonl(const std::filesystem::path& path) {
  std::vector<vector_case> out;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line);
    out.push_back({j.at("text").get<std::string>(), j.at("ids").get<std::vector<int32_t>>()});
  }
  return out;
}

/// llama.cpp's test-tokenizer-0 pair: FILE.inp holds texts each followed by
/// "\n__ggml_vocab_test__\n"; FILE.out one line of space-separated ids per text.
inline std::vector<vector_case> read_inp_out(const std::filesystem::path& inp, const std::filesystem::path& outp) {
  std::vector<vector_case> cases;
  std::ifstream fi(inp, std::ios::binary), fo(outp, std::ios::binary);
  EXPECT_TRUE(fi.good() && fo.good()) << "cannot read " << inp << " / " << outp;
  std::stringstream si;
  si << fi.rdbuf();
  const std::string all = si.str();
  const std::string sep = "\n__ggml_vocab_test__\n";
  for (size_t pos = 0;;) {
    const size_t hit = all.find(sep, pos);
    if (hit == std::string::npos) break;
    cases.push_back({all.substr(pos, hit - pos), {}});
    pos = hit + sep.size();
  }
  std::string line;
  size_t i = 0;
  while (std::getline(fo, line) && i < cases.size()) {
    std::istringstream ls(line);
    int32_t id;
    while (ls >> id) cases[i].ids.push_back(id);
    ++i;
  }
  EXPECT_EQ(i, cases.size()) << "fewer output lines than inputs in " << outp;
  return cases;
}

/// The ids of `text`: normalized, then tokenized (what the vocabulary runs on a fragment).
inline std::vector<int32_t> run(const vocab_detail::tokenizer_model& m, std::string_view text) {
  std::vector<int32_t> out;
  m.run(text, true, out);
  return out;
}

/// The ids of `text` from the model alone (no normalizer).
inline std::vector<int32_t> tokenize(const vocab_detail::tokenizer_model& m, std::string_view text) {
  std::vector<int32_t> out;
  m.tokenize(text, out);
  return out;
}

/// Tokenizes the lines of `text` with `m` on two threads at once (even lines on one, odd
/// on the other, each its own calls: a lazy model's tables get built by one of them while
/// the other goes on) and expects each line's ids to equal `ref`'s.
inline void expect_two_threads_equal(const vocab_detail::tokenizer_model& m, const vocab_detail::tokenizer_model& ref,
                                     const std::string& text) {
  std::vector<std::string> lines[2];
  std::istringstream ls(text);
  size_t k = 0;
  for (std::string line; std::getline(ls, line); ++k) lines[k % 2].push_back(line);
  std::vector<std::vector<int32_t>> ids[2];
  std::thread t0([&] { for (const auto& l : lines[0]) ids[0].push_back(tokenize(m, l)); });
  std::thread t1([&] { for (const auto& l : lines[1]) ids[1].push_back(tokenize(m, l)); });
  t0.join();
  t1.join();
  for (int t = 0; t < 2; ++t)
    for (size_t i = 0; i < lines[t].size(); ++i)
      ASSERT_EQ(ids[t][i], tokenize(ref, lines[t][i])) << "thread " << t << ", line " << i;
}

/// Runs `model` on every case; reports the first few mismatches; returns the count of
/// matching cases.
inline size_t check_cases(const vocab_detail::tokenizer_model& model, const std::vector<vector_case>& cases,
                          const std::string& what) {
  size_t ok = 0, reported = 0;
  std::vector<int32_t> got;
  for (size_t i = 0; i < cases.size(); ++i) {
    got.clear();
    model.run(cases[i].text, true, got);
    if (got == cases[i].ids) {
      ++ok;
    } else if (reported++ < 5) {
      ADD_FAILURE() << what << " case " << i << " text " << nlohmann::json(cases[i].text).dump(-1, ' ', false,
                                                                                                nlohmann::json::error_handler_t::replace)
                    << "\n  want " << nlohmann::json(cases[i].ids).dump() << "\n  got  " << nlohmann::json(got).dump();
    }
  }
  return ok;
}

/// The model `make(data)` builds from the vocabulary `gguf_rel` (a data file) gives
/// llama.cpp's ids on every text of tokenizer-vectors/NAME.jsonl (2532 texts).
template <class Make>
void expect_vectors(const std::string& gguf_rel, const std::string& name, Make make) {
  auto lv = load(gguf::test::data_file(gguf_rel));
  ASSERT_TRUE(lv) << gguf_rel;
  auto model = make(lv->data);
  const auto cases = read_jsonl(gguf::test::data_file("tokenizer-vectors/" + name + ".jsonl"));
  ASSERT_EQ(cases.size(), 2532u);
  EXPECT_EQ(check_cases(*model, cases, name), cases.size());
}

/// The same against the .inp/.out pair beside the vocabulary (llama.cpp's test-tokenizer-0
/// texts, 40 or more).
template <class Make>
void expect_inp_out(const std::string& gguf_rel, const std::string& name, Make make) {
  auto lv = load(gguf::test::data_file(gguf_rel));
  ASSERT_TRUE(lv) << gguf_rel;
  auto model = make(lv->data);
  const auto cases = read_inp_out(gguf::test::data_file(gguf_rel + ".inp"), gguf::test::data_file(gguf_rel + ".out"));
  ASSERT_GE(cases.size(), 40u);
  EXPECT_EQ(check_cases(*model, cases, name + " .inp/.out"), cases.size());
}

}  // namespace gguf::test::models
