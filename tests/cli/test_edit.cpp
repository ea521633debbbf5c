// `gguf set` and `gguf rm` on copies of real files: values change, everything else
// (other keys, tensors, their bytes) stays, and failures leave the file untouched.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "compare_files.h"
#include "gguf/file.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::test::data_file;
using gguf::test::run_cli;

namespace {
fs::path copy_of(const std::string& rel, const std::string& name) {
  auto dst = gguf::test::temp_dir() / name;
  fs::copy_file(data_file(rel), dst, fs::copy_options::overwrite_existing);
  fs::permissions(dst, fs::perms::owner_write, fs::perm_options::add);
  return dst;
}
}  // namespace

TEST(CliEdit, SetKeepsTypeAndEverythingElse) {
  GGUF_REQUIRE_DATA();
  auto path = copy_of("models/stories260K-Q8_0.gguf", "edit-set.gguf");
  auto r = run_cli({"set", path.string(), "general.name", "renamed model"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cli({"set", path.string(), "llama.context_length", "4096"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cli({"set", path.string(), "my.new_flag", "true", "--type", "bool"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto edited = gguf::file::open(path);
  auto original = gguf::file::open(data_file("models/stories260K-Q8_0.gguf"));
  ASSERT_TRUE(edited.ok() && original.ok());
  EXPECT_EQ(*edited->get_string("general.name"), "renamed model");
  EXPECT_EQ(edited->get("llama.context_length")->type(), gguf::value_type::uint32);
  EXPECT_EQ(*edited->get_uint("llama.context_length"), 4096u);
  EXPECT_EQ(*edited->get("my.new_flag")->get<bool>(), true);
  EXPECT_EQ(edited->kv_count(), original->kv_count() + 1);
  ASSERT_EQ(edited->tensor_count(), original->tensor_count());
  for (size_t i = 0; i < original->tensor_count(); ++i) {
    const auto& a = original->tensors()[i];
    const auto& b = edited->tensors()[i];
    EXPECT_EQ(a.name, b.name);
    ASSERT_EQ(a.nbytes, b.nbytes);
    EXPECT_EQ(std::memcmp(a.data.data(), b.data.data(), a.nbytes), 0) << a.name;
  }
}

TEST(CliEdit, RmRemovesOnlyThatKey) {
  GGUF_REQUIRE_DATA();
  auto path = copy_of("vocab/ggml-vocab-llama-spm.gguf", "edit-rm.gguf");
  auto r = run_cli({"rm", path.string(), "general.name"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto edited = gguf::file::open(path);
  ASSERT_TRUE(edited.ok());
  EXPECT_FALSE(edited->find("general.name").has_value());
  EXPECT_EQ(edited->get_array("tokenizer.ggml.tokens")->size(), 32000u);
  EXPECT_EQ(run_cli({"rm", path.string(), "general.name"}).exit_code, 1);
}

TEST(CliEdit, FailuresLeaveTheFileUntouched) {
  GGUF_REQUIRE_DATA();
  auto path = copy_of("models/stories260K.gguf", "edit-fail.gguf");
  auto before = gguf::test::read_bytes(path);
  EXPECT_EQ(run_cli({"set", path.string(), "llama.block_count", "not-a-number"}).exit_code, 2);
  EXPECT_EQ(run_cli({"set", path.string(), "llama.block_count", "-1"}).exit_code, 2);
  EXPECT_EQ(run_cli({"set", path.string(), "new.key", "1"}).exit_code, 2);  // no --type
  EXPECT_EQ(run_cli({"set", path.string(), "tokenizer.ggml.tokens", "x"}).exit_code, 2);
  EXPECT_EQ(run_cli({"set", path.string(), "general.alignment", "48"}).exit_code, 2);
  EXPECT_EQ(run_cli({"set", path.string(), "a.b", "1", "--type", "nope"}).exit_code, 2);
  EXPECT_EQ(gguf::test::read_bytes(path), before);
  auto bad = copy_of("compat/invalid-value-type-13.gguf", "edit-invalid.gguf");
  auto r = run_cli({"set", bad.string(), "general.name", "x"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("value type 13"), std::string::npos);
  // No temporary files are left in the folder.
  for (const auto& e : fs::directory_iterator(gguf::test::temp_dir())) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  }
}

TEST(CliEdit, AlignmentChangeRelaysTheData) {
  GGUF_REQUIRE_DATA();
  auto path = copy_of("models/stories260K-F16.gguf", "edit-align.gguf");
  auto r = run_cli({"set", path.string(), "general.alignment", "64", "--type", "uint32"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto edited = gguf::file::open(path);
  ASSERT_TRUE(edited.ok()) << edited.error().message();
  EXPECT_EQ(edited->alignment(), 64u);
  auto original = gguf::file::open(data_file("models/stories260K-F16.gguf"));
  for (size_t i = 0; i < original->tensor_count(); ++i) {
    const auto& b = edited->tensors()[i];
    EXPECT_EQ(b.offset % 64, 0u);
    EXPECT_EQ(std::memcmp(original->tensors()[i].data.data(), b.data.data(), b.nbytes), 0);
  }
}

// The summary line's "was N bytes" is the replaced file's own size only when the input is
// rewritten; with -o OUT it names the input it was written from (a replaced OUT's old size
// is not what "was" said before).
TEST(CliEdit, TheSummaryNamesTheInputWhenWritingElsewhere) {
  GGUF_REQUIRE_DATA();
  auto in = copy_of("models/stories260K-Q8_0.gguf", "edit-summary-in.gguf");
  auto out = gguf::test::temp_dir() / "edit-summary-out.gguf";
  {
    std::ofstream old(out, std::ios::binary | std::ios::trunc);
    old << "an older, much smaller file";
  }
  const auto in_size = fs::file_size(in);
  auto r = run_cli({"edit", in.string(), "-o", out.string(), "--set", "general.name=Out", "--force"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("written from " + in.string() + " ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; input " + std::to_string(in_size) + " bytes;"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(", was "), std::string::npos) << r.out;

  r = run_cli({"edit", in.string(), "-o", in.string(), "--set", "general.name=Same"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rewritten (" + std::to_string(fs::file_size(in)) + " bytes, was " + std::to_string(in_size)),
            std::string::npos)
      << r.out;
}
