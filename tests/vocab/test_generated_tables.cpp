// src/vocab/unicode/unicode_data.cpp is what scripts/gen_unicode_data.py writes from llama.cpp's
// src/unicode-data.cpp (skipped where that reference source is absent).
#include <gtest/gtest.h>

#include <vector>

#include "test_support.h"
#include "vocab/unicode/unicode.h"

TEST(generated_tables, unicode_data_cpp_is_the_generator_output) {
  gguf::test::expect_generated("gen_unicode_data.py", "src/vocab/unicode/unicode_data.cpp");
}

// The flag table holds the code points below flags_table_size; past it flags_of reads
// the category ranges alone. Every code point's flags are those of the plain reading of
// the generated data (its range, then the whitespace, case and NFD lists), and no list
// holds a code point past the table (a new Unicode version that put one there would need
// a larger table).
TEST(generated_tables, flags_of_every_code_point_is_the_data_s) {
  namespace ud = gguf::vocab_detail::unicode_data;
  using gguf::vocab_detail::cpt_flags;
  using gguf::vocab_detail::flags_table_size;
  using gguf::vocab_detail::max_codepoints;
  std::vector<uint16_t> want(max_codepoints, 0);
  for (size_t i = 0; i + 1 < ud::ranges_flags_count; ++i)
    for (uint32_t c = ud::ranges_flags[i].start; c < ud::ranges_flags[i + 1].start && c < max_codepoints; ++c)
      want[c] = ud::ranges_flags[i].flags;
  const auto add = [&](uint32_t c, uint16_t bit) {
    ASSERT_LT(c, flags_table_size) << "a listed code point past the flag table";
    want[c] |= bit;
  };
  for (size_t i = 0; i < ud::whitespace_count; ++i) add(ud::whitespace[i], cpt_flags::whitespace);
  for (size_t i = 0; i < ud::map_lowercase_count; ++i) add(ud::map_lowercase[i].to, cpt_flags::lowercase);
  for (size_t i = 0; i < ud::map_uppercase_count; ++i) add(ud::map_uppercase[i].to, cpt_flags::uppercase);
  for (size_t i = 0; i < ud::ranges_nfd_count; ++i) add(ud::ranges_nfd[i].nfd, cpt_flags::nfd);
  // the ASCII table, built apart from the whole one, holds the same flags
  const uint16_t* ascii = gguf::vocab_detail::ascii_flags_table();
  for (uint32_t c = 0; c < 0x80; ++c) ASSERT_EQ(ascii[c], want[c]) << std::hex << c;
  size_t past_table = 0;
  for (uint32_t c = 0; c < max_codepoints; ++c) {
    ASSERT_EQ(gguf::vocab_detail::flags_of(c).bits, want[c]) << std::hex << c;
    past_table += c >= flags_table_size && want[c] != 0;
  }
  EXPECT_GT(past_table, 0u);  // (CJK extensions G and H, tags, private use: the range path is used)
  EXPECT_TRUE(gguf::vocab_detail::flags_of(0x30000).is_letter());     // CJK extension G
  EXPECT_TRUE(gguf::vocab_detail::flags_of(0xF0000).is_control());    // private use is \p{C}
  EXPECT_EQ(gguf::vocab_detail::flags_of(0x110000).bits, 0);
}

// flags_table_for gives the small ASCII table only to code points that are all ASCII.
TEST(generated_tables, flags_table_for_picks_the_ascii_table_for_ascii_alone) {
  using namespace gguf::vocab_detail;
  const std::vector<uint32_t> ascii = {'H', 'i', ' ', 0x7F, 0};
  const std::vector<uint32_t> wider = {'H', 0x80};
  const std::vector<uint32_t> cjk = {0x4E00};
  EXPECT_EQ(flags_table_for(ascii), ascii_flags_table());
  EXPECT_EQ(flags_table_for(std::span<const uint32_t>{}), ascii_flags_table());
  EXPECT_EQ(flags_table_for(wider), flags_table());
  EXPECT_EQ(flags_table_for(cjk), flags_table());
}
