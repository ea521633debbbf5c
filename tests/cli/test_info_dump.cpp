// `gguf info` and `gguf dump` end to end: agreement of `dump --json` with the reference
// dumps in ../shared/data/expected, exit codes and one-line errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cctype>
#include <fstream>

#include "test_support.h"

namespace fs = std::filesystem;
using gguf::test::data_file;
using gguf::test::run_cli;
using nlohmann::json;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Numbers compare as doubles (the reference prints float32 through Python's repr).
void expect_json_equal(const json& want, const json& got, const std::string& where) {
  if (want.is_number() && got.is_number()) {
    EXPECT_EQ(want.get<double>(), got.get<double>()) << where;
  } else if (want.is_array() && got.is_array()) {
    ASSERT_EQ(want.size(), got.size()) << where;
    for (size_t i = 0; i < want.size(); ++i) expect_json_equal(want[i], got[i], where + "[" + std::to_string(i) + "]");
  } else {
    EXPECT_EQ(want, got) << where;
  }
}

}  // namespace

// Every expected dump: header fields, every key (type, value; arrays: element type,
// nesting, length, first 8 and last of the full values) and every tensor info.
TEST(CliDump, JsonAgreesWithEveryExpectedDump) {
  GGUF_REQUIRE_DATA();
  int files = 0;
  for (const auto& e : fs::directory_iterator(data_file("expected"))) {
    std::ifstream in(e.path());
    json want = json::parse(in);
    auto r = run_cli({"dump", "--json", "--full-arrays", data_file(want["file"].get<std::string>()).string()});
    ASSERT_EQ(r.exit_code, 0) << e.path() << r.err;
    json got = json::parse(r.out);
    for (const char* k : {"version", "byte_order", "alignment", "data_offset", "kv_count", "tensor_count"}) {
      EXPECT_EQ(want[k], got[k]) << e.path() << " " << k;
    }
    ASSERT_EQ(want["kv"].size(), got["kv"].size()) << e.path();
    for (size_t i = 0; i < want["kv"].size(); ++i) {
      const auto& w = want["kv"][i];
      const auto& g = got["kv"][i];
      std::string where = e.path().filename().string() + " " + w["key"].get<std::string>();
      EXPECT_EQ(w["key"], g["key"]) << where;
      EXPECT_EQ(w["type"], g["type"]) << where;
      if (w["type"] != "array") {
        expect_json_equal(w["value"], g["value"], where);
        continue;
      }
      // The reference leaves element_type null for uint8 blobs (precompiled_charsmap).
      if (!w["element_type"].is_null()) {
        EXPECT_EQ(w["element_type"], g["element_type"]) << where;
      }
      EXPECT_EQ(w["nesting"], g["nesting"]) << where;
      EXPECT_EQ(w["length"], g["length"]) << where;
      const auto& values = g["values"];
      ASSERT_EQ(values.size(), w["length"].get<size_t>()) << where;
      json first = json::array();
      for (size_t k = 0; k < std::min<size_t>(8, values.size()); ++k) first.push_back(values[k]);
      expect_json_equal(w["first"], first, where + " first");
      if (!values.empty()) expect_json_equal(w["last"], values.back(), where + " last");
    }
    ASSERT_EQ(want["tensors"].size(), got["tensors"].size()) << e.path();
    for (size_t i = 0; i < want["tensors"].size(); ++i) {
      const auto& w = want["tensors"][i];
      const auto& g = got["tensors"][i];
      EXPECT_EQ(w["name"], g["name"]);
      EXPECT_EQ(lower(w["type"].get<std::string>()), lower(g["type"].get<std::string>())) << w["name"];
      EXPECT_EQ(w["ne"], g["ne"]) << w["name"];
      EXPECT_EQ(w["offset"], g["offset"]) << w["name"];
      EXPECT_EQ(w["nbytes"], g["nbytes"]) << w["name"];
    }
    ++files;
  }
  EXPECT_GE(files, 37);
}

TEST(CliDump, ShortArraysShowFirstAndLastLikeTheReference) {
  GGUF_REQUIRE_DATA();
  auto r = run_cli({"dump", "--json", data_file("vocab/ggml-vocab-llama-spm.gguf").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(data_file("expected/vocab__ggml-vocab-llama-spm.json"));
  json want = json::parse(in);
  json got = json::parse(r.out);
  for (size_t i = 0; i < want["kv"].size(); ++i) {
    if (want["kv"][i]["type"] != "array") continue;
    expect_json_equal(want["kv"][i]["first"], got["kv"][i]["first"], want["kv"][i]["key"].get<std::string>());
    expect_json_equal(want["kv"][i]["last"], got["kv"][i]["last"], want["kv"][i]["key"].get<std::string>());
  }
}

TEST(CliInfo, SummarizesRealFiles) {
  GGUF_REQUIRE_DATA();
  auto r = run_cli({"info", "--json", data_file("models/stories260K-Q8_0.gguf").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["version"], 3);
  EXPECT_EQ(j["architecture"], "llama");
  EXPECT_EQ(j["tensor_count"], 48);
  EXPECT_EQ(j["file_type"], 7);
  EXPECT_EQ(j["n_vocab"], 512);
  EXPECT_EQ(j["byte_order"], "little");
  // 48 tensors of the expected dump: the parameter count is the sum of their elements.
  std::ifstream in(data_file("expected/models__stories260K-Q8_0.json"));
  json want = json::parse(in);
  uint64_t params = 0;
  for (const auto& t : want["tensors"]) {
    uint64_t n = 1;
    for (const auto& d : t["ne"]) n *= d.get<uint64_t>();
    params += n;
  }
  EXPECT_EQ(j["parameters"].get<uint64_t>(), params);
  auto text = run_cli({"info", data_file("compat/vocab-llama-spm-be.gguf").string()});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("big-endian"), std::string::npos);
}

TEST(CliInfo, ReadsStandardInput) {
  GGUF_REQUIRE_DATA();
  auto r = run_cli({"info", "--json", "-"}, data_file("vocab/ggml-vocab-gpt-2.gguf").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["tokenizer_model"], "gpt2");
}

TEST(CliErrors, ExitCodesAndOneLineMessages) {
  GGUF_REQUIRE_DATA();
  // Invalid input: exit 1, one line naming file, offset and key.
  auto bad = data_file("compat/invalid-value-type-13.gguf").string();
  for (const char* cmd : {"info", "dump"}) {
    auto r = run_cli({cmd, bad});
    EXPECT_EQ(r.exit_code, 1) << cmd;
    EXPECT_EQ(r.err, "gguf: " + bad + ": value type 13 is not a GGUF type (0..12) (at byte 204, key dict1)\n") << cmd;
    EXPECT_TRUE(r.out.empty()) << cmd;
  }
  // Unreadable file: exit 2.
  auto missing = run_cli({"info", "/nonexistent/x.gguf"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1);
  // Usage errors: exit 2.
  EXPECT_EQ(run_cli({"info"}).exit_code, 2);
  EXPECT_EQ(run_cli({"dump", "--no-such-flag", bad}).exit_code, 2);
  EXPECT_EQ(run_cli({"no-such-command"}).exit_code, 2);
  EXPECT_EQ(run_cli({}).exit_code, 2);
  // --help on each command: exit 0, text on stdout.
  for (const char* cmd : {"info", "dump"}) {
    auto h = run_cli({cmd, "--help"});
    EXPECT_EQ(h.exit_code, 0) << cmd;
    EXPECT_NE(h.out.find("--json"), std::string::npos) << cmd;
  }
  auto top = run_cli({"--help"});
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_NE(top.out.find("info"), std::string::npos);
  // every command's line: two spaces, the name, at least two spaces, its summary, the
  // summaries in one column (the longest name, convert-endian, ran into its summary)
  size_t column = 0, lines = 0;
  for (size_t at = top.out.find("\n  "); at != std::string::npos; at = top.out.find("\n  ", at + 1)) {
    const std::string line = top.out.substr(at + 1, top.out.find('\n', at + 1) - at - 1);
    const size_t name_end = line.find(' ', 2);
    ASSERT_NE(name_end, std::string::npos) << line;
    const size_t summary = line.find_first_not_of(' ', name_end);
    ASSERT_NE(summary, std::string::npos) << line;
    EXPECT_GE(summary - name_end, 2u) << line;
    if (column == 0) column = summary;
    EXPECT_EQ(summary, column) << line;
    ++lines;
  }
  EXPECT_GE(lines, 10u);
}
