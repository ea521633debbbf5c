// Fuzz target: dequantization (quant layer: dequantize_row, dequantize_tensor, get_rows).
//
// Input, mode 1 (first bytes not "GGUF"): byte 0 = ggml type id, byte 1 bit 0 = byte
// order (big-endian if set), the rest = blocks of that type (whole blocks are used).
// Properties: dequantize_row succeeds exactly for the types can_dequantize() (or
// can_dequantize_big_endian()) names, with the documented error codes otherwise;
// dequantizing block by block gives the same bits as all at once (no kernel reads or
// writes outside its block, tails and vector paths agree); a destination that is not a
// whole number of blocks is partial_block, a source of the wrong size invalid_argument.
//
// Mode 2 (a GGUF file): every tensor is dequantized whole, and get_rows of its first,
// last (in each matrix of a 3-D / 4-D tensor) and out-of-range rows agrees bit for bit
// with the whole-tensor result. Then the model layer on the same file (model_mode).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "fuzz_check.h"
#include "gguf/model.h"
#include "gguf/quant.h"

namespace {

using gguf::byte_order;
using gguf::errc;
using gguf::ggml_type;

bool same_bits(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

void blocks_mode(const uint8_t* data, size_t size) {
  if (size < 2) return;
  uint32_t id = data[0] % gguf::ggml_type_count;
  auto order = (data[1] & 1) ? byte_order::big : byte_order::little;
  std::span<const std::byte> rest(reinterpret_cast<const std::byte*>(data + 2), size - 2);
  auto type = static_cast<ggml_type>(id);
  const auto* tr = gguf::ggml_type_traits(id);
  if (!tr) {
    std::vector<float> dst(32);
    auto r = gguf::dequantize_row(type, rest, dst, order);
    FUZZ_CHECK(!r.ok() && r.error().code == errc::invalid_ggml_type);
    return;
  }
  size_t nblocks = std::min<size_t>(rest.size() / tr->type_size, 64);
  auto src = rest.first(nblocks * tr->type_size);
  std::vector<float> all(nblocks * tr->blck_size);
  auto r = gguf::dequantize_row(type, src, all, order);
  bool supported = order == byte_order::little ? gguf::can_dequantize(type) : gguf::can_dequantize_big_endian(type);
  FUZZ_CHECK(r.ok() == supported);
  if (!r) {
    FUZZ_CHECK(r.error().code == errc::unsupported);
    return;
  }
  std::vector<float> one(tr->blck_size);
  for (size_t b = 0; b < nblocks; ++b) {
    auto rb = gguf::dequantize_row(type, src.subspan(b * tr->type_size, tr->type_size), one, order);
    FUZZ_CHECK(rb.ok());
    FUZZ_CHECK(same_bits(one, std::span<const float>(all).subspan(b * tr->blck_size, tr->blck_size)));
  }
  if (tr->blck_size > 1) {
    std::vector<float> partial(tr->blck_size + 1);
    auto rp = gguf::dequantize_row(type, src, partial, order);
    FUZZ_CHECK(!rp.ok());
  }
  if (nblocks > 0) {
    std::vector<float> fewer((nblocks - 1) * tr->blck_size);
    auto rm = gguf::dequantize_row(type, src, fewer, order);
    FUZZ_CHECK(!rm.ok() && rm.error().code == errc::invalid_argument);
  }
}

// The model layer on the same file: architecture, hparams and tensor map never fail
// other than invalid_model / unsupported; every table tensor found has the file's info;
// token embeddings of the first and last token equal those rows of the whole tensor.
void model_mode(const gguf::file& f) {
  auto m = gguf::model::load(f);
  if (!m) {
    FUZZ_CHECK(m.error().code == errc::invalid_model || m.error().code == errc::unsupported);
    return;
  }
  for (const auto& t : m->tensors()) {
    if (t.info) FUZZ_CHECK(f.find_tensor(t.name) == t.info);
  }
  for (const auto& d : m->diagnostics()) FUZZ_CHECK(!d.tensor.empty() && !d.message.empty());
  (void)m->check();
  FUZZ_CHECK(m->n_params() >= (m->token_embd().ok() ? (*m->token_embd())->nelements() : 0));
  auto te = m->token_embd();
  if (!te) return;
  const gguf::tensor_info& t = **te;
  if (t.nelements() > (1u << 22) || t.ne[1] == 0 || t.ne[1] > INT32_MAX) return;
  const int32_t ids[] = {0, static_cast<int32_t>(t.ne[1] - 1)};
  std::vector<float> rows(2 * t.ne[0]);
  auto r = m->get_token_embeddings(ids, rows);
  auto whole = gguf::dequantize_tensor(f, t);
  FUZZ_CHECK(r.ok() == whole.ok());
  if (!r) return;
  std::span<const float> all(*whole);
  FUZZ_CHECK(same_bits(std::span<const float>(rows).first(t.ne[0]), all.first(t.ne[0])));
  FUZZ_CHECK(same_bits(std::span<const float>(rows).subspan(t.ne[0]), all.subspan((t.ne[1] - 1) * t.ne[0], t.ne[0])));
}

void file_mode(const uint8_t* data, size_t size) {
  auto f = gguf::file::from_bytes(std::span(reinterpret_cast<const std::byte*>(data), size));
  if (!f) return;
  for (const auto& t : f->tensors()) {
    if (t.nelements() > (1u << 22)) continue;  // 16 MiB of floats at most per input
    auto whole = gguf::dequantize_tensor(*f, t);
    if (!whole) {
      FUZZ_CHECK(whole.error().code != errc::ok);
      continue;
    }
    FUZZ_CHECK(whole->size() == t.nelements());
    uint64_t ne0 = t.ne[0], ne1 = t.ne[1], n_mats = t.ne[2] * t.ne[3];
    if (ne1 > INT32_MAX || n_mats > 64) continue;
    // Each matrix's first and last row (ggml ids [2, ne2, ne3]) equal the whole tensor's.
    std::vector<int32_t> ids;
    for (uint64_t m = 0; m < n_mats; ++m) {
      ids.push_back(0);
      ids.push_back(static_cast<int32_t>(ne1 - 1));
    }
    std::vector<float> rows(ids.size() * ne0);
    auto r = gguf::get_rows(*f, t, ids, rows);
    FUZZ_CHECK(r.ok());
    for (uint64_t m = 0; m < n_mats; ++m) {
      std::span<const float> got(rows.data() + 2 * m * ne0, 2 * ne0), all(*whole);
      FUZZ_CHECK(same_bits(got.first(ne0), all.subspan(m * ne1 * ne0, ne0)));
      FUZZ_CHECK(same_bits(got.subspan(ne0), all.subspan((m * ne1 + ne1 - 1) * ne0, ne0)));
    }
    if (n_mats != 1) continue;
    std::vector<int32_t> bad{static_cast<int32_t>(std::min<uint64_t>(ne1, INT32_MAX)), -1};
    for (int32_t b : bad) {
      std::vector<float> row(ne0);
      auto rb = gguf::get_rows(*f, t, std::span(&b, 1), row);
      if (b < 0 || static_cast<uint64_t>(b) >= ne1) FUZZ_CHECK(!rb.ok() && rb.error().code == errc::out_of_range);
    }
  }
  model_mode(*f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 4 && std::memcmp(data, "GGUF", 4) == 0) {
    file_mode(data, size);
  } else {
    blocks_mode(data, size);
  }
  return 0;
}
