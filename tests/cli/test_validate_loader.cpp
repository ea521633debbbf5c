// Issue 29, item 4: `gguf validate` agrees with llama.cpp v0.5.0's loader. The cases of
// tests/schema/data/llama_loader_cases.json (scripts/gen_loader_cases.py: real files of
// the test data with one mutation each; recorded by scripts/record-loader-diff.sh, which
// loads each with libllama vocab-only and full) are rebuilt here with the same code
// (tests/support/mutations.h) and validated: a file with tensors must be refused exactly
// when llama.cpp's full load refuses it, a vocab-only file exactly when the vocab-only
// load does. Cases where we knowingly differ are listed in `known_differences` with the
// reason; every other case must agree.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "gguf/file.h"
#include "mutations.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::test::data_dir;
using gguf::test::run_cli;

namespace {

// name -> why validate and llama.cpp differ on purpose.
const std::string zero_dim =
    "llama.cpp reads the missing (or 0) hparam as 0, expects a tensor dimension of 0 and refuses the file; "
    "our tensor map reads an expected dimension of 0 as 'any' (the registry's marker for a dimension it "
    "does not constrain), so the file passes";
const std::map<std::string, std::string> known_differences = {
    {"architecture unknown",
     "an architecture the registry does not know is a note (arch.unknown), not an error: GGUF also carries "
     "models llama.cpp does not run (superpoint, whisper), and the registry lacks some llama.cpp architectures"},
    {"removed llama.feed_forward_length", zero_dim},
    {"removed llama.attention.head_count", zero_dim},
    {"head_count 0", zero_dim},
};

nlohmann::json recorded() {
  std::ifstream in(gguf::test::source_dir() / "tests/schema/data/llama_loader_cases.json");
  return nlohmann::json::parse(in);
}

}  // namespace

TEST(Issue29, Item4ValidateAgreesWithTheLlamaCppLoader) {
  GGUF_REQUIRE_DATA();
  const auto doc = recorded();
  const auto dir = gguf::test::temp_dir() / "loader-diff";
  fs::create_directories(dir);
  size_t agree = 0, total = 0, known = 0;
  std::string disagreements;
  for (const auto& c : doc["cases"]) {
    const std::string name = c["name"];
    auto base = gguf::file::open(data_dir() / c["base"].get<std::string>());
    ASSERT_TRUE(base) << name;
    auto bytes = gguf::test::apply_mutations(*base, c["ops"]);
    ASSERT_TRUE(bytes) << name << ": " << bytes.error().message();
    const auto path = dir / "case.gguf";
    gguf::test::write_bytes(path, *bytes);
    const bool has_tensors = base->tensor_count() > 0;
    const auto& ref = c["llama_cpp"][has_tensors ? "full" : "vocab_only"];
    const bool llama_ok = ref["ok"].get<bool>();
    auto r = run_cli({"validate", path.string(), "--quiet"});
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << name << ": " << r.err;
    const bool ours_ok = r.exit_code == 0;
    ++total;
    if (ours_ok == llama_ok) {
      ++agree;
      continue;
    }
    if (known_differences.count(name)) {
      ++known;
      continue;
    }
    auto full = run_cli({"validate", path.string()});
    disagreements += "  " + name + ": llama.cpp " + (llama_ok ? "loads it" : "refuses: " + ref.value("error", "")) +
                     "; validate " + (ours_ok ? "passes it" : "refuses:\n" + full.out) + "\n";
  }
  std::printf("validate vs llama.cpp v0.5.0 loader: %zu of %zu cases agree (%zu known differences)\n", agree, total,
              known);
  EXPECT_EQ(agree + known, total) << disagreements;
  EXPECT_GE(total, 100u);
}
