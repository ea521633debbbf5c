// gguf::diff: metadata and tensor-info comparison of two files, and the values pass
// (diff_values.cpp) for changed tensors. Contract in include/gguf/diff.h.
#include "gguf/diff.h"

#include <algorithm>
#include <cstring>

#include "gguf/quant.h"
#include "model/diff_impl.h"

namespace gguf {
namespace {

// Keys that say how a model is cut into files (llama.cpp's LLM_KV_SPLIT_*), not what it is.
bool is_split_key(std::string_view key) {
  return key == "split.no" || key == "split.count" || key == "split.tensors.count";
}

template <class T>
bool same_scalar(const value_ref& a, const value_ref& b) {
  auto x = a.get<T>();
  auto y = b.get<T>();
  if (!x || !y) return false;
  if constexpr (std::is_floating_point_v<T>) {
    return std::memcmp(&*x, &*y, sizeof(T)) == 0;  // NaN equals NaN, -0 differs from 0: bits
  } else {
    return *x == *y;
  }
}

bool same_scalar_value(const value_ref& a, const value_ref& b) {
  switch (a.type()) {
    case value_type::uint8: return same_scalar<uint8_t>(a, b);
    case value_type::int8: return same_scalar<int8_t>(a, b);
    case value_type::uint16: return same_scalar<uint16_t>(a, b);
    case value_type::int16: return same_scalar<int16_t>(a, b);
    case value_type::uint32: return same_scalar<uint32_t>(a, b);
    case value_type::int32: return same_scalar<int32_t>(a, b);
    case value_type::float32: return same_scalar<float>(a, b);
    case value_type::boolean: return same_scalar<bool>(a, b);
    case value_type::string: return same_scalar<std::string_view>(a, b);
    case value_type::uint64: return same_scalar<uint64_t>(a, b);
    case value_type::int64: return same_scalar<int64_t>(a, b);
    case value_type::float64: return same_scalar<double>(a, b);
    case value_type::array: return false;  // handled by same_value
  }
  return false;
}

// Index of the first element where the arrays differ, or nullopt when they are equal.
std::optional<uint64_t> first_difference(const array_ref& x, const array_ref& y) {
  const uint64_t n = std::min(x.size(), y.size());
  if (x.element_type() == value_type::string) {
    for (uint64_t i = 0; i < n; ++i) {
      auto s = x.get<std::string_view>(i);
      auto t = y.get<std::string_view>(i);
      if (!s || !t || *s != *t) return i;
    }
  } else {
    for (uint64_t i = 0; i < n; ++i) {
      auto s = x.at(i);
      auto t = y.at(i);
      if (!s || !t || !same_value(*s, *t)) return i;
    }
  }
  if (x.size() != y.size()) return n;
  return std::nullopt;
}

// Bytes of two tensors of equal size, compared a chunk at a time (remote: fetched and
// released chunk by chunk).
result<bool> same_bytes(const file& fa, const tensor_info& ta, const file& fb, const tensor_info& tb) {
  constexpr uint64_t chunk = 16u << 20;
  for (uint64_t off = 0; off < ta.data.size(); off += chunk) {
    const uint64_t n = std::min<uint64_t>(chunk, ta.data.size() - off);
    auto va = ta.data.subspan(off, n);
    auto vb = tb.data.subspan(off, n);
    if (auto r = fa.fetch(va); !r) return r.error();
    if (auto r = fb.fetch(vb); !r) return r.error();
    const bool eq = std::memcmp(va.data(), vb.data(), n) == 0;
    fa.release(va);
    fb.release(vb);
    if (!eq) return false;
  }
  return true;
}

}  // namespace

std::string_view diff_status_name(diff_status s) noexcept {
  switch (s) {
    case diff_status::added: return "added";
    case diff_status::removed: return "removed";
    case diff_status::changed: return "changed";
  }
  return "changed";
}

bool same_value(const value_ref& a, const value_ref& b, std::optional<uint64_t>* first_diff) {
  if (a.type() != b.type()) return false;
  if (a.type() != value_type::array) return same_scalar_value(a, b);
  auto x = a.array();
  auto y = b.array();
  if (!x || !y) return false;
  if (x->element_type() != y->element_type()) return false;
  auto d = first_difference(*x, *y);
  if (d && first_diff) *first_diff = *d;
  return !d;
}

result<diff_result> diff(const file& a, const file& b, const diff_options& options) {
  diff_result out;

  // metadata
  for (const auto& kv : a.kvs()) {
    if (is_split_key(kv.key)) continue;
    auto other = b.find(kv.key);
    if (!other) {
      out.kv.push_back({std::string(kv.key), diff_status::removed, kv.value, std::nullopt, std::nullopt});
      continue;
    }
    std::optional<uint64_t> index;
    if (!same_value(kv.value, *other, &index))
      out.kv.push_back({std::string(kv.key), diff_status::changed, kv.value, *other, index});
  }
  for (const auto& kv : b.kvs()) {
    if (is_split_key(kv.key) || a.find(kv.key)) continue;
    out.kv.push_back({std::string(kv.key), diff_status::added, std::nullopt, kv.value, std::nullopt});
  }

  // tensors
  const bool same_order = a.byte_order() == b.byte_order();
  std::vector<detail::values_job_tensor> value_work;  // tensors whose values are compared
  for (const auto& ta : a.tensors()) {
    const tensor_info* tb = b.find_tensor(ta.name);
    if (!tb) {
      tensor_diff d;
      d.name = std::string(ta.name);
      d.status = diff_status::removed;
      d.a = &ta;
      out.tensors.push_back(std::move(d));
      continue;
    }
    tensor_diff d;
    d.name = std::string(ta.name);
    d.a = &ta;
    d.b = tb;
    d.type_changed = ta.type != tb->type;
    d.shape_changed = ta.ne != tb->ne || ta.n_dims != tb->n_dims;
    if (!d.type_changed && !d.shape_changed && same_order) {
      auto eq = same_bytes(a, ta, b, *tb);
      if (!eq) return eq.error();
      d.data_equal = *eq;
    }
    if (d.data_equal) continue;
    const bool comparable = ta.ne == tb->ne && can_dequantize(ta.type) && can_dequantize(tb->type) &&
                            (a.byte_order() == byte_order::little || can_dequantize_big_endian(ta.type)) &&
                            (b.byte_order() == byte_order::little || can_dequantize_big_endian(tb->type));
    // files of other byte orders: the data is compared through its values
    const bool by_values = !same_order && !d.type_changed && !d.shape_changed && comparable;
    if (comparable && (options.values || by_values))
      value_work.push_back({out.tensors.size(), &ta, tb, by_values && !options.values});
    out.tensors.push_back(std::move(d));
  }
  for (const auto& tb : b.tensors()) {
    if (a.find_tensor(tb.name)) continue;
    tensor_diff d;
    d.name = std::string(tb.name);
    d.status = diff_status::added;
    d.b = &tb;
    out.tensors.push_back(std::move(d));
  }

  if (!value_work.empty()) {
    auto stats = detail::compare_values(a, b, value_work, options);
    if (!stats) return stats.error();
    std::vector<size_t> unchanged;
    for (size_t i = 0; i < value_work.size(); ++i) {
      auto& d = out.tensors[value_work[i].index];
      const auto& s = (*stats)[i];
      if (!value_work[i].only_equality) {
        d.nmse = s.nmse();
        d.max_abs = s.max_abs;
      }
      if (s.bits_equal && !d.type_changed && !d.shape_changed) unchanged.push_back(value_work[i].index);
    }
    // a tensor of the same type whose values are equal bit for bit is not a difference
    for (auto it = unchanged.rbegin(); it != unchanged.rend(); ++it) {
      out.tensors[*it].data_equal = true;
      out.tensors.erase(out.tensors.begin() + static_cast<std::ptrdiff_t>(*it));
    }
  }
  return out;
}

}  // namespace gguf
