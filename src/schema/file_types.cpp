// The general.file_type table (llama.cpp include/llama.h, enum llama_ftype).
#include <algorithm>

#include "gguf/keys.h"

namespace gguf {
namespace {

using t = ggml_type;

// id, llama_ftype name, naming-convention label, main tensor type.
constexpr file_type_info table[] = {
    {0, "ALL_F32", "F32", t::f32},
    {1, "MOSTLY_F16", "F16", t::f16},
    {2, "MOSTLY_Q4_0", "Q4_0", t::q4_0},
    {3, "MOSTLY_Q4_1", "Q4_1", t::q4_1},
    {7, "MOSTLY_Q8_0", "Q8_0", t::q8_0},
    {8, "MOSTLY_Q5_0", "Q5_0", t::q5_0},
    {9, "MOSTLY_Q5_1", "Q5_1", t::q5_1},
    {10, "MOSTLY_Q2_K", "Q2_K", t::q2_K},
    {11, "MOSTLY_Q3_K_S", "Q3_K_S", t::q3_K},
    {12, "MOSTLY_Q3_K_M", "Q3_K_M", t::q3_K},
    {13, "MOSTLY_Q3_K_L", "Q3_K_L", t::q3_K},
    {14, "MOSTLY_Q4_K_S", "Q4_K_S", t::q4_K},
    {15, "MOSTLY_Q4_K_M", "Q4_K_M", t::q4_K},
    {16, "MOSTLY_Q5_K_S", "Q5_K_S", t::q5_K},
    {17, "MOSTLY_Q5_K_M", "Q5_K_M", t::q5_K},
    {18, "MOSTLY_Q6_K", "Q6_K", t::q6_K},
    {19, "MOSTLY_IQ2_XXS", "IQ2_XXS", t::iq2_xxs},
    {20, "MOSTLY_IQ2_XS", "IQ2_XS", t::iq2_xs},
    {21, "MOSTLY_Q2_K_S", "Q2_K_S", t::q2_K},
    {22, "MOSTLY_IQ3_XS", "IQ3_XS", t::iq3_s},
    {23, "MOSTLY_IQ3_XXS", "IQ3_XXS", t::iq3_xxs},
    {24, "MOSTLY_IQ1_S", "IQ1_S", t::iq1_s},
    {25, "MOSTLY_IQ4_NL", "IQ4_NL", t::iq4_nl},
    {26, "MOSTLY_IQ3_S", "IQ3_S", t::iq3_s},
    {27, "MOSTLY_IQ3_M", "IQ3_M", t::iq3_s},
    {28, "MOSTLY_IQ2_S", "IQ2_S", t::iq2_s},
    {29, "MOSTLY_IQ2_M", "IQ2_M", t::iq2_s},
    {30, "MOSTLY_IQ4_XS", "IQ4_XS", t::iq4_xs},
    {31, "MOSTLY_IQ1_M", "IQ1_M", t::iq1_m},
    {32, "MOSTLY_BF16", "BF16", t::bf16},
    {36, "MOSTLY_TQ1_0", "TQ1_0", t::tq1_0},
    {37, "MOSTLY_TQ2_0", "TQ2_0", t::tq2_0},
    {38, "MOSTLY_MXFP4_MOE", "MXFP4_MOE", t::mxfp4},
    {39, "MOSTLY_NVFP4", "NVFP4", t::nvfp4},
    {40, "MOSTLY_Q1_0", "Q1_0", t::q1_0},
    {41, "MOSTLY_Q2_0", "Q2_0", t::q2_0},
};

}  // namespace

std::span<const file_type_info> file_types() noexcept { return table; }

const file_type_info* find_file_type(uint32_t id) noexcept {
  auto it = std::find_if(std::begin(table), std::end(table), [id](const file_type_info& f) { return f.id == id; });
  return it == std::end(table) ? nullptr : &*it;
}

std::string_view file_type_name(uint32_t id) noexcept {
  const auto* f = find_file_type(id);
  return f ? f->name : std::string_view{};
}

}  // namespace gguf
