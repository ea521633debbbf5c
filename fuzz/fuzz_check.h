// Shared helpers of the fuzz targets: a property check that fails loudly (abort, so
// libFuzzer reports it as a crash with the input), and a walk over every value of a
// parsed file through every public accessor.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "gguf/file.h"

#define FUZZ_CHECK(cond)                                                          \
  do {                                                                            \
    if (!(cond)) {                                                                \
      std::fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                               \
    }                                                                             \
  } while (0)

namespace gguf::fuzz {

/// Every accessor of a scalar value: the exact-type getter succeeds only for the
/// stored type, the widening accessors agree with it.
template <class T>
inline void check_get(const value_ref& v, value_type want) {
  auto r = v.get<T>();
  FUZZ_CHECK(r.ok() == (v.type() == want));
  if (!r) FUZZ_CHECK(r.error().code == errc::type_mismatch);
}

inline void visit_value(const value_ref& v, uint32_t depth);

/// Elements of an array through get<T>(i), at(i), to_vector, copy_to, raw,
/// for_each_string; at most `cap` elements from each end to keep executions fast.
template <class T>
inline void visit_fixed(const array_ref& a) {
  auto vec = a.to_vector<T>();
  FUZZ_CHECK(vec.ok());
  FUZZ_CHECK(vec->size() == a.size());
  FUZZ_CHECK(a.raw().size() == a.size() * sizeof(T) || (std::is_same_v<T, bool> && a.raw().size() == a.size()));
  for (uint64_t i = 0; i < a.size(); ++i) {
    auto e = a.get<T>(i);
    FUZZ_CHECK(e.ok());
    if constexpr (std::is_floating_point_v<T>) {
      FUZZ_CHECK(std::memcmp(&*e, &(*vec)[i], sizeof(T)) == 0);
    } else {
      FUZZ_CHECK(*e == (*vec)[i]);
    }
    if (i == 64 && a.size() > 128) i = a.size() - 64;
  }
  FUZZ_CHECK(!a.get<T>(a.size()).ok());
}

inline void visit_array(const array_ref& a, uint32_t depth) {
  FUZZ_CHECK(depth <= 1000);  // bounded by reader_limits::max_array_nesting
  (void)a.nesting();
  (void)a.innermost_type();
  FUZZ_CHECK(!a.at(a.size()).ok());
  switch (a.element_type()) {
    case value_type::uint8: visit_fixed<uint8_t>(a); break;
    case value_type::int8: visit_fixed<int8_t>(a); break;
    case value_type::uint16: visit_fixed<uint16_t>(a); break;
    case value_type::int16: visit_fixed<int16_t>(a); break;
    case value_type::uint32: visit_fixed<uint32_t>(a); break;
    case value_type::int32: visit_fixed<int32_t>(a); break;
    case value_type::float32: visit_fixed<float>(a); break;
    case value_type::boolean: visit_fixed<bool>(a); break;
    case value_type::uint64: visit_fixed<uint64_t>(a); break;
    case value_type::int64: visit_fixed<int64_t>(a); break;
    case value_type::float64: visit_fixed<double>(a); break;
    case value_type::string: {
      FUZZ_CHECK(!a.to_vector<uint8_t>().ok());
      FUZZ_CHECK(a.raw().empty());
      uint64_t seen = 0;
      auto r = a.for_each_string([&](uint64_t i, std::string_view s) {
        FUZZ_CHECK(i == seen);
        ++seen;
        if (i < 32 || i + 32 >= a.size()) {
          auto e = a.get<std::string_view>(i);
          FUZZ_CHECK(e.ok() && *e == s);
        }
      });
      FUZZ_CHECK(r.ok());
      FUZZ_CHECK(seen == a.size());
      break;
    }
    case value_type::array: {
      FUZZ_CHECK(!a.for_each_string([](uint64_t, std::string_view) {}).ok());
      for (uint64_t i = 0; i < a.size(); ++i) {
        auto e = a.at(i);
        FUZZ_CHECK(e.ok());
        FUZZ_CHECK(e->type() == value_type::array);
        visit_value(*e, depth + 1);
        if (i == 16 && a.size() > 32) i = a.size() - 16;
      }
      break;
    }
  }
}

inline void visit_value(const value_ref& v, uint32_t depth) {
  check_get<uint8_t>(v, value_type::uint8);
  check_get<int8_t>(v, value_type::int8);
  check_get<uint16_t>(v, value_type::uint16);
  check_get<int16_t>(v, value_type::int16);
  check_get<uint32_t>(v, value_type::uint32);
  check_get<int32_t>(v, value_type::int32);
  check_get<float>(v, value_type::float32);
  check_get<bool>(v, value_type::boolean);
  check_get<std::string_view>(v, value_type::string);
  check_get<uint64_t>(v, value_type::uint64);
  check_get<int64_t>(v, value_type::int64);
  check_get<double>(v, value_type::float64);
  auto u = v.to_uint64();
  auto s = v.to_int64();
  auto d = v.to_double();
  if (u && s) FUZZ_CHECK(*u == static_cast<uint64_t>(*s));
  if (u || s) FUZZ_CHECK(d.ok());
  auto a = v.array();
  FUZZ_CHECK(a.ok() == (v.type() == value_type::array));
  if (a) visit_array(*a, depth);
}

/// Checks the invariants of an opened file and walks every key/value and tensor info.
inline void visit_file(const file& f) {
  FUZZ_CHECK(f.version() >= 1 && f.version() <= 3);
  FUZZ_CHECK(f.alignment() != 0 && (f.alignment() & (f.alignment() - 1)) == 0);
  FUZZ_CHECK(f.data_offset() % f.alignment() == 0);
  FUZZ_CHECK(f.metadata_end() <= f.data_offset());
  FUZZ_CHECK(f.metadata_end() <= f.size());
  FUZZ_CHECK(f.kvs().size() == f.kv_count());
  for (const auto& kv : f.kvs()) {
    FUZZ_CHECK(!kv.key.empty());
    auto found = f.find(kv.key);
    FUZZ_CHECK(found && found->offset() == kv.value.offset());
    FUZZ_CHECK(kv.offset < kv.value.offset() && kv.value.offset() <= f.size());
    visit_value(kv.value, 0);
    (void)f.get_string(kv.key);
    (void)f.get_uint(kv.key);
    (void)f.get_array(kv.key);
  }
  FUZZ_CHECK(!f.get("\x01 no such key").ok());
  const std::byte* lo = f.bytes().data();
  const std::byte* hi = lo + f.size();
  uint64_t total = 0;
  for (const auto& t : f.tensors()) {
    FUZZ_CHECK(!t.name.empty() && t.n_dims <= 4);
    FUZZ_CHECK(f.find_tensor(t.name) == &t);
    auto nb = ggml_nbytes(t.type, t.ne.data(), t.n_dims);
    FUZZ_CHECK(nb.ok() && *nb == t.nbytes);
    FUZZ_CHECK(t.data.size() == t.nbytes);
    FUZZ_CHECK(t.offset % f.alignment() == 0);
    FUZZ_CHECK(t.data.data() == lo + f.data_offset() + t.offset);
    FUZZ_CHECK(t.data.data() >= lo && t.data.data() + t.data.size() <= hi);
    total += t.nbytes;  // non-overlapping, all inside the file: cannot exceed its size
    FUZZ_CHECK(total <= f.size());
  }
  FUZZ_CHECK(!f.get_tensor("\x01 no such tensor").ok());
}

/// A failed parse must still carry a usable error.
inline void check_error(const gguf::error& e, size_t size) {
  FUZZ_CHECK(e.code != errc::ok);
  FUZZ_CHECK(e.offset == no_offset || e.offset <= size);
  FUZZ_CHECK(!e.message().empty());
}

/// Small limits that a fuzzer input can hit.
inline reader_limits tight_limits() {
  reader_limits l;
  l.max_kv_count = 24;
  l.max_tensor_count = 12;
  l.max_string_length = 200;
  l.max_array_length = 300;
  l.max_array_nesting = 2;
  l.max_metadata_bytes = 8192;
  return l;
}

}  // namespace gguf::fuzz
