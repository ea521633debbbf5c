// src/quant/grid_tables.h is what scripts/gen_quantize_grids.py writes from ggml's
// ggml-quants.c; the tables of src/quant/tables.cpp (grids derived from it at compile time,
// sign rules, code books) hold every value of ggml's ggml-common.h tables of the same
// names. Both skipped where the reference source is absent.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "quant/tables.h"
#include "test_support.h"

namespace {

namespace qt = gguf::detail::quant_tables;

std::filesystem::path ggml_common_h() {
  const char* ref = std::getenv("GGUF_REF_DIR");
  const char* home = std::getenv("HOME");
  const std::filesystem::path dir = ref ? ref : std::filesystem::path(home ? home : "") / ".cache" / "gguf-ref";
  return dir / "llsrc" / "ggml" / "src" / "ggml-common.h";
}

// The values of `GGML_TABLE_BEGIN(type, name, size) ... GGML_TABLE_END()` (empty if absent).
std::vector<long long> ggml_table(const std::string& text, const std::string& name) {
  std::vector<long long> v;
  const size_t at = text.find(", " + name + ",");
  if (at == std::string::npos) return v;
  const size_t end = text.find("GGML_TABLE_END()", at);
  size_t i = text.find(')', at) + 1;
  while (i < end) {
    const char c = text[i];
    if (c == '-' || (c >= '0' && c <= '9')) {
      char* next = nullptr;
      const bool neg = c == '-';
      const unsigned long long u = std::strtoull(text.c_str() + i + (neg ? 1 : 0), &next, 0);
      v.push_back(neg ? -static_cast<long long>(u) : static_cast<long long>(u));
      i = static_cast<size_t>(next - text.c_str());
    } else {
      ++i;
    }
  }
  return v;
}

template <class Table>
void expect_table(const std::string& text, const std::string& name, const Table& ours) {
  const auto ref = ggml_table(text, name);
  ASSERT_EQ(ref.size(), std::size(ours)) << name;
  for (size_t i = 0; i < ref.size(); ++i) {
    ASSERT_EQ(static_cast<unsigned long long>(ref[i]), static_cast<unsigned long long>(ours[i])) << name << "[" << i << "]";
  }
}

}  // namespace

TEST(generated_tables, grid_tables_h_is_the_generator_output) {
  gguf::test::expect_generated("gen_quantize_grids.py", "src/quant/grid_tables.h");
}

TEST(generated_tables, quant_tables_equal_ggml_common_h) {
  const auto path = ggml_common_h();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "reference source absent: " << path;
  const std::string text = gguf::test::read_text(path);
  expect_table(text, "kmask_iq2xs", qt::kmask_iq2xs);
  expect_table(text, "ksigns_iq2xs", qt::ksigns_iq2xs);
  expect_table(text, "iq2xxs_grid", qt::iq2xxs_grid);
  expect_table(text, "iq2xs_grid", qt::iq2xs_grid);
  expect_table(text, "iq2s_grid", qt::iq2s_grid);
  expect_table(text, "iq3xxs_grid", qt::iq3xxs_grid);
  expect_table(text, "iq3s_grid", qt::iq3s_grid);
  expect_table(text, "iq1s_grid", qt::iq1s_grid);
  expect_table(text, "kvalues_iq4nl", qt::kvalues_iq4nl);
  expect_table(text, "kvalues_fp4", qt::kvalues_fp4);
}
