// `gguf dequantize FILE TENSOR [-o OUT]`: raw little-endian float32 equal to ggml's
// dequantization (deq.<type> of the fixture), exit codes of the CLI contract.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gguf/file.h"
#include "test_support.h"

namespace {

using gguf::test::run_cli;

std::string fixture() { return gguf::test::data_file("quant/quant-fixture.gguf").string(); }

// ggml's floats for `name`, as the little-endian bytes the command must write.
std::string expected_bytes(const std::string& deq_name) {
  auto f = gguf::file::open(fixture());
  if (!f) throw std::runtime_error(f.error().message());
  const auto* t = f->find_tensor(deq_name);
  if (!t) throw std::runtime_error("no tensor " + deq_name);
  return std::string(reinterpret_cast<const char*>(t->data.data()), t->data.size());  // f32 LE in the file
}

TEST(CliDequantize, StdoutEqualsGgml) {
  GGUF_REQUIRE_DATA();
  for (const char* type : {"q4_K", "iq2_xxs", "nvfp4", "bf16"}) {
    auto r = run_cli({"dequantize", fixture(), std::string("q.") + type});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_EQ(r.out, expected_bytes(std::string("deq.") + type)) << type;
  }
}

// `-o -` is standard output, as `-` is everywhere else (DESIGN.md): it wrote a file
// named "-" in the current folder (found in the new-user pass).
TEST(CliDequantize, DashOutputIsStandardOutput) {
  GGUF_REQUIRE_DATA();
  auto dir = gguf::test::fresh_dir("deq-dash");
  auto r = gguf::test::run_command(
      "sh", {"-c", "cd \"$1\" && shift && exec \"$@\"", "sh", dir.string(), GGUF_CLI_PATH, "dequantize", fixture(),
             "q.q4_K", "-o", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, expected_bytes("deq.q4_K"));
  EXPECT_FALSE(std::filesystem::exists(dir / "-"));
  r = run_cli({"dequantize", fixture(), "q.q4_K", "-o", "-", "--json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST(CliDequantize, OutputFileIsWrittenAtomically) {
  GGUF_REQUIRE_DATA();
  auto out = gguf::test::temp_dir() / "deq_q6_K.f32";
  auto r = run_cli({"dequantize", fixture(), "q.q6_K", "-o", out.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto bytes = gguf::test::read_bytes(out);
  const std::string want = expected_bytes("deq.q6_K");
  ASSERT_EQ(bytes.size(), want.size());
  EXPECT_EQ(std::memcmp(bytes.data(), want.data(), want.size()), 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("type"), "q6_K");
  EXPECT_EQ(j.at("elements"), 512 * 24);
  EXPECT_EQ(j.at("bytes"), 512 * 24 * 4);
  // No temporary left behind.
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(out.parent_path())) {
    files += e.path().filename().string().starts_with("deq_q6_K.f32");
  }
  EXPECT_EQ(files, 1u);
}

TEST(CliDequantize, BigEndianFileGivesTheSameFloats) {
  GGUF_REQUIRE_DATA();
  auto be = run_cli({"dequantize", gguf::test::data_file("compat/stories260K-Q8_0-be.gguf").string(),
                     "token_embd.weight"});
  auto le = run_cli({"dequantize", gguf::test::data_file("models/stories260K-Q8_0.gguf").string(),
                     "token_embd.weight"});
  ASSERT_EQ(be.exit_code, 0) << be.err;
  ASSERT_EQ(le.exit_code, 0) << le.err;
  EXPECT_EQ(be.out.size(), 64u * 512u * 4u);
  EXPECT_EQ(be.out, le.out);
}

TEST(CliDequantize, ExitCodes) {
  GGUF_REQUIRE_DATA();
  auto help = run_cli({"dequantize", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("TENSOR"), std::string::npos);

  auto missing_tensor = run_cli({"dequantize", fixture(), "no.such.tensor"});
  EXPECT_EQ(missing_tensor.exit_code, 1);
  EXPECT_NE(missing_tensor.err.find("gguf: "), std::string::npos);
  EXPECT_NE(missing_tensor.err.find("no.such.tensor"), std::string::npos) << missing_tensor.err;
  EXPECT_TRUE(missing_tensor.out.empty());

  auto unreadable = run_cli({"dequantize", "/nonexistent/file.gguf", "x"});
  EXPECT_EQ(unreadable.exit_code, 2);

  auto usage = run_cli({"dequantize", fixture()});
  EXPECT_EQ(usage.exit_code, 2);

  auto json_without_output = run_cli({"dequantize", fixture(), "q.q4_0", "--json"});
  EXPECT_EQ(json_without_output.exit_code, 2);

  auto bad_dir = run_cli({"dequantize", fixture(), "q.q4_0", "-o", "/nonexistent/dir/out.f32"});
  EXPECT_EQ(bad_dir.exit_code, 2);
  EXPECT_NE(bad_dir.err.find("gguf: "), std::string::npos);
}

}  // namespace
