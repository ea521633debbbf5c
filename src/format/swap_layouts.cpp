// Byte-swap layouts of the ggml block types (gguf/byte_swap.h): one row per type, beside
// the type traits of types.cpp. Offsets are those of ggml-common.h's block structs
// (tests/format/test_byte_swap.cpp checks every field of every block against the
// structs of src/quant/blocks.h).
#include <array>
#include <cstring>
#include <type_traits>
#include <string>

#include "gguf/byte_swap.h"

namespace gguf {
namespace {

using T = ggml_type;
constexpr uint16_t QK_K = 256;

// Field lists. {offset, width, count}.
constexpr swap_field el16[] = {{0, 2, 1}};
constexpr swap_field el32[] = {{0, 4, 1}};
constexpr swap_field el64[] = {{0, 8, 1}};
constexpr swap_field d16[] = {{0, 2, 1}};                        // f16 d first: q4_0 q8_0 iq4_nl q1_0 q2_0 iq3_s iq2_s
constexpr swap_field d16_m16[] = {{0, 2, 2}};                    // f16 d, m / d, dmin: q4_1 q4_K q5_K q8_1 (d, s)
constexpr swap_field q5_0[] = {{0, 2, 1}, {2, 4, 1}};            // d; qh read as one uint32
constexpr swap_field q5_1[] = {{0, 2, 2}, {4, 4, 1}};            // d, m; qh as uint32
constexpr swap_field q2_K[] = {{80, 2, 2}};                      // scales[16] qs[64] | d, dmin
constexpr swap_field q3_K[] = {{108, 2, 1}};                     // hmask[32] qs[64] scales[12] | d
constexpr swap_field q6_K[] = {{208, 2, 1}};                     // ql[128] qh[64] scales[16] | d
constexpr swap_field q8_K[] = {{0, 4, 1}, {260, 2, QK_K / 16}};  // f32 d, qs[256], int16 bsums[16]
constexpr swap_field iq2_xxs[] = {{0, 2, 1}, {2, 4, QK_K / 16}};  // d; qs: uint32 pairs (grid | signs, scale)
constexpr swap_field iq2_xs[] = {{0, 2, 1}, {2, 2, QK_K / 8}};   // d; qs uint16[32]; scales[8]
constexpr swap_field iq3_xxs[] = {{0, 2, 1}, {2 + QK_K / 4, 4, QK_K / 32}};  // d; qs[64]; uint32 scales_and_signs[8]
constexpr swap_field iq1_s[] = {{0, 2, 1}, {2 + QK_K / 8, 2, QK_K / 32}};    // d; qs[32]; qh uint16[8]
constexpr swap_field iq1_m[] = {{QK_K / 8 + QK_K / 16, 2, QK_K / 64}};      // qs[32] qh[16] | scales as uint16[4]
constexpr swap_field iq4_xs[] = {{0, 2, 2}};                     // d, scales_h uint16; scales_l[4] qs[128]
constexpr swap_field tq1_0[] = {{52, 2, 1}};                     // qs[48] qh[4] | d
constexpr swap_field tq2_0[] = {{64, 2, 1}};                     // qs[64] | d

constexpr std::span<const swap_field> no_fields{};

// One row per type id 0..42 (retired ids: no row).
constexpr std::array<swap_layout, ggml_type_count> layouts = [] {
  std::array<swap_layout, ggml_type_count> t{};
  for (uint32_t i = 0; i < ggml_type_count; ++i) t[i] = {static_cast<T>(i), no_fields};
  auto row = [&](T type, std::span<const swap_field> f) { t[static_cast<uint32_t>(type)] = {type, f}; };
  row(T::f32, el32);
  row(T::f16, el16);
  row(T::q4_0, d16);
  row(T::q4_1, d16_m16);
  row(T::q5_0, q5_0);
  row(T::q5_1, q5_1);
  row(T::q8_0, d16);
  row(T::q8_1, d16_m16);
  row(T::q2_K, q2_K);
  row(T::q3_K, q3_K);
  row(T::q4_K, d16_m16);
  row(T::q5_K, d16_m16);
  row(T::q6_K, q6_K);
  row(T::q8_K, q8_K);
  row(T::iq2_xxs, iq2_xxs);
  row(T::iq2_xs, iq2_xs);
  row(T::iq3_xxs, iq3_xxs);
  row(T::iq1_s, iq1_s);
  row(T::iq4_nl, d16);
  row(T::iq3_s, d16);
  row(T::iq2_s, d16);
  row(T::iq4_xs, iq4_xs);
  row(T::i8, no_fields);
  row(T::i16, el16);
  row(T::i32, el32);
  row(T::i64, el64);
  row(T::f64, el64);
  row(T::iq1_m, iq1_m);
  row(T::bf16, el16);
  row(T::tq1_0, tq1_0);
  row(T::tq2_0, tq2_0);
  row(T::mxfp4, no_fields);  // e8m0 scale byte + nibbles
  row(T::nvfp4, no_fields);  // 4 ue4m3 scale bytes + nibbles
  row(T::q1_0, d16);
  row(T::q2_0, d16);
  return t;
}();

template <int W>
void swap_words(std::byte* p, size_t n) {
  using U = std::conditional_t<W == 2, uint16_t, std::conditional_t<W == 4, uint32_t, uint64_t>>;
  for (size_t i = 0; i < n; ++i, p += W) {
    U v;
    std::memcpy(&v, p, W);
    if constexpr (W == 2) v = __builtin_bswap16(v);
    else if constexpr (W == 4) v = __builtin_bswap32(v);
    else v = __builtin_bswap64(v);
    std::memcpy(p, &v, W);
  }
}

}  // namespace

const swap_layout* ggml_swap_layout(ggml_type type) noexcept {
  if (!ggml_type_traits(type)) return nullptr;
  return &layouts[static_cast<uint32_t>(type)];
}

result<void> swap_blocks(ggml_type type, std::span<std::byte> data) {
  const auto* tr = ggml_type_traits(type);
  if (!tr) {
    return make_error(errc::invalid_ggml_type, no_offset,
                      "unknown ggml type id " + std::to_string(static_cast<uint32_t>(type)));
  }
  if (data.size() % tr->type_size != 0) {
    return make_error(errc::invalid_argument, no_offset,
                      std::to_string(data.size()) + " bytes are not whole " + std::string(tr->name) + " blocks of " +
                          std::to_string(tr->type_size));
  }
  const auto fields = layouts[static_cast<uint32_t>(type)].fields;
  if (fields.empty()) return {};
  std::byte* p = data.data();
  const size_t nblocks = data.size() / tr->type_size;
  // Element types (blck_size 1, one field covering the block): one pass over the data.
  if (tr->blck_size == 1) {
    switch (fields[0].width) {
      case 2: swap_words<2>(p, nblocks); break;
      case 4: swap_words<4>(p, nblocks); break;
      case 8: swap_words<8>(p, nblocks); break;
    }
    return {};
  }
  for (size_t b = 0; b < nblocks; ++b, p += tr->type_size) {
    for (const auto& f : fields) {
      switch (f.width) {
        case 2: swap_words<2>(p + f.offset, f.count); break;
        case 4: swap_words<4>(p + f.offset, f.count); break;
        case 8: swap_words<8>(p + f.offset, f.count); break;
      }
    }
  }
  return {};
}

}  // namespace gguf
