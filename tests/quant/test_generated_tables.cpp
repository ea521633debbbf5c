// src/quant/tables.cpp is what scripts/gen_quant_tables.py writes from ggml's
// ggml-common.h (skipped where that reference source is absent).
#include <gtest/gtest.h>

#include "test_support.h"

TEST(generated_tables, quant_tables_cpp_is_the_generator_output) {
  gguf::test::expect_generated("gen_quant_tables.py", "src/quant/tables.cpp");
}

TEST(generated_tables, grid_tables_cpp_is_the_generator_output) {
  gguf::test::expect_generated("gen_quantize_grids.py", "src/quant/grid_tables.cpp");
}
