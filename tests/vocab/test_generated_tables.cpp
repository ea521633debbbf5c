// src/vocab/unicode_data.cpp is what scripts/gen_unicode_data.py writes from llama.cpp's
// src/unicode-data.cpp (skipped where that reference source is absent).
#include <gtest/gtest.h>

#include "test_support.h"

TEST(generated_tables, unicode_data_cpp_is_the_generator_output) {
  gguf::test::expect_generated("gen_unicode_data.py", "src/vocab/unicode_data.cpp");
}
