// Public quantization API (gguf/quant.h): argument checks and the type -> quantizer table.
// The kernels are in quantize_legacy.cpp, quantize_k.cpp and quantize_iq*.cpp.
#include <array>
#include <atomic>
#include <string>

#include "gguf/quant.h"
#include "quant/quantize.h"
#include "quant/quantize_simd.h"

namespace gguf {
namespace detail {
namespace {

constexpr size_t id(ggml_type t) { return static_cast<size_t>(t); }

// One row per ggml type: the quantizer ggml_quantize_chunk dispatches to (ggml.c).
constexpr std::array<quantize_kernel, ggml_type_count> make_table() {
  using T = ggml_type;
  std::array<quantize_kernel, ggml_type_count> t{};
  t[id(T::f32)] = quantize_f32;
  t[id(T::f16)] = quantize_f16;
  t[id(T::bf16)] = quantize_bf16;
  t[id(T::q1_0)] = quantize_q1_0;
  t[id(T::q2_0)] = quantize_q2_0;
  t[id(T::q4_0)] = quantize_q4_0;
  t[id(T::q4_1)] = quantize_q4_1;
  t[id(T::q5_0)] = quantize_q5_0;
  t[id(T::q5_1)] = quantize_q5_1;
  t[id(T::q8_0)] = quantize_q8_0;
  t[id(T::mxfp4)] = quantize_mxfp4;
  t[id(T::nvfp4)] = quantize_nvfp4;
  t[id(T::q2_K)] = quantize_q2_K;
  t[id(T::q3_K)] = quantize_q3_K;
  t[id(T::q4_K)] = quantize_q4_K;
  t[id(T::q5_K)] = quantize_q5_K;
  t[id(T::q6_K)] = quantize_q6_K;
  t[id(T::iq2_xxs)] = quantize_iq2_xxs;
  t[id(T::iq2_xs)] = quantize_iq2_xs;
  t[id(T::iq2_s)] = quantize_iq2_s;
  t[id(T::iq3_xxs)] = quantize_iq3_xxs;
  t[id(T::iq3_s)] = quantize_iq3_s;
  t[id(T::iq1_s)] = quantize_iq1_s;
  t[id(T::iq1_m)] = quantize_iq1_m;
  t[id(T::iq4_nl)] = quantize_iq4_nl;
  t[id(T::iq4_xs)] = quantize_iq4_xs;
  t[id(T::tq1_0)] = quantize_tq1_0;
  t[id(T::tq2_0)] = quantize_tq2_0;
  return t;
}

constexpr std::array<quantize_kernel, ggml_type_count> table = make_table();

std::string type_label(ggml_type type) {
  auto name = ggml_type_name(type);
  return name.empty() ? "type id " + std::to_string(static_cast<uint32_t>(type)) : std::string(name);
}

}  // namespace

namespace {
std::atomic<bool> simd_on{true};
}  // namespace

bool use_simd_quantizers() noexcept { return GGUF_QUANT_X86 && simd_on.load(std::memory_order_relaxed) && cpu_has_avx2(); }
void set_simd_quantizers(bool on) noexcept { simd_on.store(on, std::memory_order_relaxed); }

quantize_kernel quantizer_for(ggml_type type) noexcept {
  const auto i = static_cast<size_t>(type);
  return i < table.size() ? table[i] : nullptr;
}

}  // namespace detail

bool can_quantize(ggml_type type) noexcept { return detail::quantizer_for(type) != nullptr; }

bool quantize_requires_imatrix(ggml_type type) noexcept {
  return type == ggml_type::iq2_xxs || type == ggml_type::iq2_xs || type == ggml_type::iq1_s;
}

void quantize_init(ggml_type type) { detail::iq_grids_init(type); }

result<std::size_t> quantize_rows(ggml_type type, const float* src, void* dst, std::int64_t nrows,
                                  std::int64_t n_per_row, const float* imatrix) {
  const type_traits* tr = ggml_type_traits(type);
  if (!tr) {
    return make_error(errc::invalid_ggml_type, no_offset,
                      "unknown ggml type id " + std::to_string(static_cast<uint32_t>(type)));
  }
  if (!imatrix && quantize_requires_imatrix(type)) {
    return make_error(errc::invalid_argument, no_offset,
                      detail::type_label(type) + " needs an importance matrix (ggml_quantize_requires_imatrix)");
  }
  const detail::quantize_kernel kernel = detail::quantizer_for(type);
  if (!kernel) {
    return make_error(errc::unsupported, no_offset, "ggml cannot quantize to " + detail::type_label(type));
  }
  if (nrows < 0 || n_per_row <= 0) {
    return make_error(errc::invalid_argument, no_offset,
                      "bad shape: " + std::to_string(nrows) + " rows of " + std::to_string(n_per_row));
  }
  if (n_per_row % tr->blck_size != 0) {
    return make_error(errc::partial_block, no_offset,
                      "a row of " + std::to_string(n_per_row) + " elements is not a multiple of the " +
                          detail::type_label(type) + " block size " + std::to_string(tr->blck_size));
  }
  auto row_size = ggml_row_size(type, static_cast<uint64_t>(n_per_row));
  if (!row_size) return row_size.error();
  uint64_t total = 0, elements = 0;
  if (!checked_mul(*row_size, static_cast<uint64_t>(nrows), total) ||
      !checked_mul(static_cast<uint64_t>(n_per_row), static_cast<uint64_t>(nrows), elements) ||
      total > static_cast<uint64_t>(INT64_MAX)) {
    return make_error(errc::size_overflow, no_offset, std::to_string(nrows) + " rows of " + std::to_string(n_per_row));
  }
  if (nrows == 0) return std::size_t{0};
  if (!src || !dst) return make_error(errc::invalid_argument, no_offset, "null source or destination");
  quantize_init(type);
  auto* out = static_cast<uint8_t*>(dst);
  for (int64_t r = 0; r < nrows; ++r) {
    kernel(src + r * n_per_row, out + static_cast<uint64_t>(r) * *row_size, n_per_row, imatrix);
  }
  return static_cast<std::size_t>(total);
}

}  // namespace gguf
