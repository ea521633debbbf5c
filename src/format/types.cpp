// Value-type and ggml-type tables. Block sizes and type sizes are ggml's (ggml.c
// type_traits, ggml-common.h block structs); ids are ggml.h's enum ggml_type.
#include <array>
#include <cctype>

#include "gguf/format.h"

namespace gguf {
namespace {

constexpr std::array<std::string_view, value_type_count> value_type_names = {
    "uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
    "bool",  "string", "array", "uint64", "int64", "float64"};
constexpr std::array<uint8_t, value_type_count> value_type_sizes = {1, 1, 2, 2, 4, 4, 4,
                                                                     1, 0, 0, 8, 8, 8};

constexpr uint32_t QK_K = 256;
// One row per id 0..42; retired ids have an empty name.
constexpr std::array<type_traits, ggml_type_count> ggml_types = {{
    {"f32", 1, 4, false},         // 0
    {"f16", 1, 2, false},         // 1
    {"q4_0", 32, 18, true},       // 2: f16 d + 16 bytes of nibbles
    {"q4_1", 32, 20, true},       // 3: f16 d, m + 16
    {},                           // 4: q4_2 retired
    {},                           // 5: q4_3 retired
    {"q5_0", 32, 22, true},       // 6: f16 d + 4 qh + 16
    {"q5_1", 32, 24, true},       // 7: f16 d, m + 4 + 16
    {"q8_0", 32, 34, true},       // 8: f16 d + 32
    {"q8_1", 32, 36, true},       // 9: f16 d, s + 32
    {"q2_K", QK_K, 84, true},     // 10
    {"q3_K", QK_K, 110, true},    // 11
    {"q4_K", QK_K, 144, true},    // 12
    {"q5_K", QK_K, 176, true},    // 13
    {"q6_K", QK_K, 210, true},    // 14
    {"q8_K", QK_K, 292, true},    // 15: f32 d + 256 + 16 x int16 bsums
    {"iq2_xxs", QK_K, 66, true},  // 16
    {"iq2_xs", QK_K, 74, true},   // 17
    {"iq3_xxs", QK_K, 98, true},  // 18
    {"iq1_s", QK_K, 50, true},    // 19
    {"iq4_nl", 32, 18, true},     // 20
    {"iq3_s", QK_K, 110, true},   // 21
    {"iq2_s", QK_K, 82, true},    // 22
    {"iq4_xs", QK_K, 136, true},  // 23
    {"i8", 1, 1, false},          // 24
    {"i16", 1, 2, false},         // 25
    {"i32", 1, 4, false},         // 26
    {"i64", 1, 8, false},         // 27
    {"f64", 1, 8, false},         // 28
    {"iq1_m", QK_K, 56, true},    // 29
    {"bf16", 1, 2, false},        // 30
    {},                           // 31: q4_0_4_4 retired
    {},                           // 32: q4_0_4_8 retired
    {},                           // 33: q4_0_8_8 retired
    {"tq1_0", QK_K, 54, true},    // 34
    {"tq2_0", QK_K, 66, true},    // 35
    {},                           // 36: iq4_nl_4_4 retired
    {},                           // 37: iq4_nl_4_8 retired
    {},                           // 38: iq4_nl_8_8 retired
    {"mxfp4", 32, 17, true},      // 39: e8m0 scale + 16
    {"nvfp4", 64, 36, true},      // 40: 4 ue4m3 scales + 32
    {"q1_0", 128, 18, true},      // 41: f16 d + 16
    {"q2_0", 64, 18, true},       // 42: f16 d + 16
}};

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}
}  // namespace

std::string_view value_type_name(value_type t) noexcept {
  auto i = static_cast<uint32_t>(t);
  return i < value_type_count ? value_type_names[i] : std::string_view{};
}

std::optional<value_type> value_type_from_name(std::string_view name) noexcept {
  for (uint32_t i = 0; i < value_type_count; ++i) {
    if (value_type_names[i] == name) return static_cast<value_type>(i);
  }
  return std::nullopt;
}

size_t value_type_size(value_type t) noexcept {
  auto i = static_cast<uint32_t>(t);
  return i < value_type_count ? value_type_sizes[i] : 0;
}

const type_traits* ggml_type_traits(uint32_t id) noexcept {
  if (id >= ggml_type_count || ggml_types[id].name.empty()) return nullptr;
  return &ggml_types[id];
}

std::string_view ggml_type_name(ggml_type t) noexcept {
  const auto* tr = ggml_type_traits(t);
  return tr ? tr->name : std::string_view{};
}

std::optional<ggml_type> ggml_type_from_name(std::string_view name) noexcept {
  for (uint32_t i = 0; i < ggml_type_count; ++i) {
    if (!ggml_types[i].name.empty() && iequal(ggml_types[i].name, name)) return static_cast<ggml_type>(i);
  }
  return std::nullopt;
}

result<uint64_t> ggml_row_size(ggml_type type, uint64_t ne0) {
  const auto* tr = ggml_type_traits(type);
  if (!tr) {
    return make_error(errc::invalid_ggml_type, no_offset,
                      "unknown ggml type id " + std::to_string(static_cast<uint32_t>(type)));
  }
  if (ne0 % tr->blck_size != 0) {
    return make_error(errc::partial_block, no_offset,
                      "ne[0] = " + std::to_string(ne0) + " is not a multiple of the " +
                          std::string(tr->name) + " block size " + std::to_string(tr->blck_size));
  }
  uint64_t bytes = 0;
  if (!checked_mul(ne0 / tr->blck_size, tr->type_size, bytes)) {
    return make_error(errc::size_overflow, no_offset, "row size overflows");
  }
  return bytes;
}

result<uint64_t> ggml_nbytes(ggml_type type, const uint64_t* ne, uint32_t n_dims) {
  if (n_dims > max_dims) {
    return make_error(errc::too_many_dims, no_offset, std::to_string(n_dims) + " dimensions > 4");
  }
  uint64_t ne0 = n_dims > 0 ? ne[0] : 1;
  auto row = ggml_row_size(type, ne0);
  if (!row) return row;
  uint64_t total = *row;
  uint64_t nelements = ne0;
  for (uint32_t d = 1; d < n_dims; ++d) {
    if (!checked_mul(total, ne[d], total) || !checked_mul(nelements, ne[d], nelements)) {
      return make_error(errc::size_overflow, no_offset, "tensor size overflows 64 bits");
    }
  }
  if (nelements > static_cast<uint64_t>(INT64_MAX)) {
    return make_error(errc::size_overflow, no_offset, "element count exceeds INT64_MAX");
  }
  return total;
}

}  // namespace gguf
