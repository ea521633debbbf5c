// Every case of every ../shared/data/tokenizer-vectors/NAME.jsonl (produced by
// llama.cpp): ids with add_special=parse_special=false, ids_special with both true, and
// detok = detokenize(ids). One parameterized test per vocabulary; per-file pass counts
// are printed and the test fails on any mismatch.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "gguf/vocab.h"
#include "test_support.h"
#include "vector_vocabs.h"

namespace {

using gguf::test::vocab_path;

std::string show(const std::vector<int32_t>& v) {
  std::string s(1, '[');
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s.push_back(',');
    s.append(std::to_string(v[i]));
  }
  s.push_back(']');
  return s;
}

class tokenizer_vectors : public ::testing::TestWithParam<std::string> {};

TEST_P(tokenizer_vectors, match_llama_cpp) {
  GGUF_REQUIRE_DATA();
  const std::string name = GetParam();
  auto f = gguf::file::open(gguf::test::data_file(vocab_path(name)));
  ASSERT_TRUE(f) << f.error().message();
  auto v = gguf::vocab::load(*f);
  ASSERT_TRUE(v) << v.error().message();
  std::ifstream in(gguf::test::data_file("tokenizer-vectors/" + name + ".jsonl"));
  ASSERT_TRUE(in) << "missing vectors for " << name;
  size_t cases = 0, ok_ids = 0, ok_special = 0, ok_detok = 0, shown = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line);
    const std::string text = j.at("text");
    const auto want_ids = j.at("ids").get<std::vector<int32_t>>();
    const auto want_special = j.at("ids_special").get<std::vector<int32_t>>();
    const std::string want_detok = j.at("detok");
    ++cases;
    const auto ids = v->tokenize(text, false, false).value();
    const auto ids_sp = v->tokenize(text, true, true).value();
    const std::string detok = v->detokenize(want_ids);
    ok_ids += ids == want_ids;
    ok_special += ids_sp == want_special;
    ok_detok += detok == want_detok;
    if ((ids != want_ids || ids_sp != want_special || detok != want_detok) && shown < 5) {
      ++shown;
      ADD_FAILURE() << name << " case " << cases << " text=" << nlohmann::json(text).dump()
                    << "\n  ids      got " << show(ids) << "\n           want " << show(want_ids)
                    << "\n  special  got " << show(ids_sp) << "\n           want " << show(want_special)
                    << "\n  detok    got " << nlohmann::json(detok).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                    << "\n           want " << nlohmann::json(want_detok).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
  }
  std::printf("[ vectors  ] %-20s cases %zu  ids %zu  ids_special %zu  detok %zu\n", name.c_str(), cases, ok_ids,
              ok_special, ok_detok);
  EXPECT_GT(cases, 0u);
  EXPECT_EQ(ok_ids, cases) << name;
  EXPECT_EQ(ok_special, cases) << name;
  EXPECT_EQ(ok_detok, cases) << name;
}

INSTANTIATE_TEST_SUITE_P(all, tokenizer_vectors,
                         ::testing::ValuesIn(gguf::test::vector_vocabs),
                         [](const auto& info) { return gguf::test::test_name(info.param); });

}  // namespace
