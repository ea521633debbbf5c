// Public dequantization API (gguf/quant.h): argument checks, the big-endian path, tensors
// and row lookup. The kernels themselves are in kernels_*.cpp, chosen by dispatch.cpp.
#include "gguf/quant.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "gguf/byte_swap.h"
#include "quant/kernels.h"

namespace gguf {
namespace {

std::string type_label(ggml_type type) {
  auto name = ggml_type_name(type);
  return name.empty() ? "type id " + std::to_string(static_cast<uint32_t>(type)) : std::string(name);
}

// Big-endian data: swap a bounded chunk of blocks into a local buffer (the type's layout
// of gguf/byte_swap.h), then run the little-endian kernel on it.
void dequantize_swapped(ggml_type type, detail::row_kernel kernel, const type_traits& tr, const uint8_t* src,
                        float* dst, size_t nblocks) {
  constexpr size_t chunk_bytes = 16384;
  alignas(64) uint8_t buf[chunk_bytes];
  const size_t per_chunk = std::max<size_t>(1, chunk_bytes / tr.type_size);
  for (size_t done = 0; done < nblocks;) {
    const size_t n = std::min(per_chunk, nblocks - done);
    std::memcpy(buf, src + done * tr.type_size, n * tr.type_size);
    (void)swap_blocks(type, std::as_writable_bytes(std::span<uint8_t>(buf, n * tr.type_size)));
    kernel(buf, dst + done * tr.blck_size, n);
    done += n;
  }
}

gguf::error with_tensor(gguf::error e, const tensor_info& t) {
  e.subject = std::string(t.name);
  e.subject_is_tensor = true;
  if (e.offset == no_offset) e.offset = t.info_offset;
  return e;
}

}  // namespace

namespace detail {
namespace {

// A type's kernel, checked and chosen once: runs rows of `n` elements (whole blocks).
struct row_dequantizer {
  ggml_type type;
  const type_traits* tr;
  row_kernel kernel;
  byte_order order;

  void run(const uint8_t* src, float* dst, size_t nblocks) const {
    if (order == byte_order::big) dequantize_swapped(type, kernel, *tr, src, dst, nblocks);
    else kernel(src, dst, nblocks);
  }
};

// The checks of dequantize_row that depend on the type, the byte order and the row
// length only (not on the data).
result<row_dequantizer> prepare(ggml_type type, size_t n, byte_order order, kernel_isa isa) {
  const type_traits* tr = ggml_type_traits(type);
  const kernel_row* row = kernels_for(type);
  if (!tr || !row) {
    return make_error(errc::invalid_ggml_type, no_offset,
                      "unknown ggml type id " + std::to_string(static_cast<uint32_t>(type)));
  }
  if (!row->scalar) {
    return make_error(errc::unsupported, no_offset,
                      "dequantization of " + type_label(type) + " is not supported (ggml has no to_float for it)");
  }
  if (n % tr->blck_size != 0) {
    return make_error(errc::partial_block, no_offset,
                      std::to_string(n) + " elements are not a multiple of the " + type_label(type) +
                          " block size " + std::to_string(tr->blck_size));
  }
  return row_dequantizer{type, tr, select_kernel(*row, isa), order};
}

}  // namespace

result<void> dequantize_row_isa(ggml_type type, std::span<const std::byte> src, std::span<float> dst,
                                byte_order order, kernel_isa isa) {
  auto dq = prepare(type, dst.size(), order, isa);
  if (!dq) return dq.error();
  const type_traits* tr = dq->tr;
  const size_t nblocks = dst.size() / tr->blck_size;
  uint64_t need = 0;
  if (!checked_mul(nblocks, tr->type_size, need) || src.size() != need) {
    return make_error(errc::invalid_argument, no_offset,
                      std::to_string(dst.size()) + " " + type_label(type) + " elements take " + std::to_string(need) +
                          " bytes, got " + std::to_string(src.size()));
  }
  if (nblocks == 0) return {};
  dq->run(reinterpret_cast<const uint8_t*>(src.data()), dst.data(), nblocks);
  return {};
}

}  // namespace detail

bool can_dequantize(ggml_type type) noexcept {
  const auto* row = detail::kernels_for(type);
  return row && row->scalar;
}

bool can_dequantize_big_endian(ggml_type type) noexcept {
  return can_dequantize(type) && ggml_swap_layout(type) != nullptr;
}

result<void> dequantize_row(ggml_type type, std::span<const std::byte> src, std::span<float> dst, byte_order order) {
  return detail::dequantize_row_isa(type, src, dst, order, detail::best_isa());
}

result<void> dequantize_tensor(const file& f, const tensor_info& t, std::span<float> out) {
  if (out.size() != t.nelements()) {
    return with_tensor(make_error(errc::invalid_argument, no_offset,
                                  "output holds " + std::to_string(out.size()) + " floats, the tensor has " +
                                      std::to_string(t.nelements()) + " elements"),
                       t);
  }
  // A contiguous tensor is a sequence of whole blocks (the reader checked ne[0] % blck_size).
  auto r = dequantize_row(t.type, t.data, out, f.byte_order());
  if (!r) return with_tensor(r.error(), t);
  return {};
}

result<std::vector<float>> dequantize_tensor(const file& f, const tensor_info& t) {
  if (!can_dequantize(t.type)) {
    return with_tensor(make_error(errc::unsupported, no_offset,
                                  "dequantization of " + type_label(t.type) + " is not supported"),
                       t);
  }
  std::vector<float> out(t.nelements());
  auto r = dequantize_tensor(f, t, out);
  if (!r) return r.error();
  return out;
}

result<void> get_rows(const file& f, const tensor_info& t, std::span<const int32_t> ids, std::span<float> out) {
  const uint64_t ne0 = t.ne[0];
  const uint64_t n_rows = t.ne[1];
  // ggml_get_rows(a, b): b holds ids.size() / (ne2 * ne3) ids for each of the ne2 * ne3
  // matrices of a, matrix after matrix; row j of matrix m is row m * ne1 + j of the data.
  const uint64_t n_mats = t.ne[2] * t.ne[3];  // dims are bounded by the reader: no overflow
  if (n_mats == 0 || ids.size() % n_mats != 0) {
    return with_tensor(make_error(errc::invalid_argument, no_offset,
                                  std::to_string(ids.size()) + " ids do not split evenly over the " +
                                      std::to_string(n_mats) + " matrices (ne[2] * ne[3]) of the tensor"),
                       t);
  }
  const uint64_t ids_per_mat = ids.size() / n_mats;
  uint64_t want = 0;
  if (!checked_mul(ids.size(), ne0, want) || out.size() != want) {
    return with_tensor(make_error(errc::invalid_argument, no_offset,
                                  "output holds " + std::to_string(out.size()) + " floats, " +
                                      std::to_string(ids.size()) + " rows of " + std::to_string(ne0) + " need " +
                                      std::to_string(want)),
                       t);
  }
  auto row_bytes = ggml_row_size(t.type, ne0);
  if (!row_bytes) return with_tensor(row_bytes.error(), t);
  for (size_t i = 0; i < ids.size(); ++i) {
    const int32_t id = ids[i];
    if (id < 0 || static_cast<uint64_t>(id) >= n_rows) {
      return with_tensor(make_error(errc::out_of_range, no_offset,
                                    "row id " + std::to_string(id) + " (position " + std::to_string(i) +
                                        ") is outside 0.." + std::to_string(n_rows - 1)),
                         t);
    }
  }
  if (ids.empty()) return {};
  // The type, byte order and row length are the same for every row: check them and
  // choose the kernel once (dequantize_row would redo both per row).
  auto dq = detail::prepare(t.type, size_t(ne0), f.byte_order(), detail::best_isa());
  if (!dq) return with_tensor(dq.error(), t);
  const size_t nblocks = size_t(ne0) / dq->tr->blck_size;
  if (nblocks == 0) return {};
  const auto* data = reinterpret_cast<const uint8_t*>(t.data.data());
  for (size_t i = 0; i < ids.size(); ++i) {
    const uint64_t row = (i / ids_per_mat) * n_rows + static_cast<uint64_t>(ids[i]);
    dq->run(data + row * *row_bytes, out.data() + i * ne0, nblocks);
  }
  return {};
}

std::string_view dequantize_isa() noexcept {
  return detail::best_isa() == detail::kernel_isa::avx2 ? "avx2" : "scalar";
}

}  // namespace gguf
