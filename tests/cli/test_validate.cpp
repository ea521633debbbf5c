// gguf validate / gguf name through the CLI: exit codes, JSON output.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace gguf {
namespace {

TEST(CliValidate, ExitCodes) {
  GGUF_REQUIRE_DATA();
  auto ok = test::run_cli({"validate", test::data_file("models/stories260K.gguf").string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("valid"), std::string::npos);
  auto bad = test::run_cli({"validate", test::data_file("compat/invalid-value-type-13.gguf").string()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("structure.invalid_value_type"), std::string::npos) << bad.out;
  auto missing = test::run_cli({"validate", "/nonexistent/x.gguf"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("gguf: /nonexistent/x.gguf: "), std::string::npos) << missing.err;
  // Warnings only: 0, or 1 with --strict.
  auto falcon = test::data_file("vocab/ggml-vocab-falcon.gguf").string();
  EXPECT_EQ(test::run_cli({"validate", falcon}).exit_code, 0);
  EXPECT_EQ(test::run_cli({"validate", "--strict", falcon}).exit_code, 1);
  EXPECT_EQ(test::run_cli({"validate"}).exit_code, 2);
  EXPECT_EQ(test::run_cli({"validate", "--help"}).exit_code, 0);
}

TEST(CliValidate, Json) {
  GGUF_REQUIRE_DATA();
  auto r = test::run_cli({"validate", "--json", test::data_file("compat/stories260K-be.gguf").string(),
                          test::data_file("compat/invalid-reversed-magic-v1.gguf").string()});
  EXPECT_EQ(r.exit_code, 1);
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["files"].size(), 2u);
  EXPECT_EQ(j["files"][0]["valid"], true);
  EXPECT_EQ(j["files"][0]["byte_order"], "big");
  EXPECT_EQ(j["files"][0]["diagnostics"][0]["rule"], "format.byte_order");
  EXPECT_EQ(j["files"][1]["valid"], false);
  EXPECT_EQ(j["files"][1]["diagnostics"][0]["rule"], "structure.bad_magic");
  EXPECT_EQ(j["files"][1]["diagnostics"][0]["code"], "bad_magic");
  EXPECT_EQ(j["files"][1]["diagnostics"][0]["offset"], 0);
}

TEST(CliName, ParseAndSuggest) {
  auto r = test::run_cli({"name", "--json", "Grok-100B-v1.0-Q4_0-00003-of-00009.gguf", "not-a-known-arrangement.gguf"});
  EXPECT_EQ(r.exit_code, 1);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["names"][0]["conforms"], true);
  EXPECT_EQ(j["names"][0]["parts"]["base_name"], "Grok");
  EXPECT_EQ(j["names"][0]["parts"]["shard"], 3);
  EXPECT_EQ(j["names"][0]["parts"]["shard_count"], 9);
  EXPECT_EQ(j["names"][1]["conforms"], false);
  EXPECT_TRUE(j["names"][1]["parts"].is_null());
  EXPECT_EQ(test::run_cli({"name", "Mixtral-8x7B-v0.1-KQ2.gguf"}).exit_code, 0);
  GGUF_REQUIRE_DATA();
  auto s = test::run_cli({"name", "--suggest", test::data_file("models/synth-llama-256-Q4_K_M.gguf").string()});
  EXPECT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(s.out.substr(0, 16), "synth-llama-256-");
  EXPECT_NE(s.out.find("-v1.0-Q4_K_M.gguf"), std::string::npos) << s.out;
}

}  // namespace
}  // namespace gguf
