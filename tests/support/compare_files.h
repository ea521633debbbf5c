// Compares two parsed GGUF files: every key (type and value, arrays element by element,
// nested arrays recursively) and every tensor info. Header-only test helper.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "gguf/file.h"

namespace gguf::test {

/// Adds a failure naming `where` unless the two values are equal (type and value).
inline void expect_same_value(const gguf::value_ref& x, const gguf::value_ref& y, const std::string& where) {
  ASSERT_EQ(x.type(), y.type()) << where;
  switch (x.type()) {
    case gguf::value_type::array: {
      auto a = *x.array();
      auto b = *y.array();
      ASSERT_EQ(a.element_type(), b.element_type()) << where;
      ASSERT_EQ(a.size(), b.size()) << where;
      for (uint64_t i = 0; i < a.size(); ++i) {
        expect_same_value(*a.at(i), *b.at(i), where + "[" + std::to_string(i) + "]");
        if (::testing::Test::HasFatalFailure()) return;
      }
      return;
    }
    case gguf::value_type::string:
      ASSERT_EQ(*x.get<std::string_view>(), *y.get<std::string_view>()) << where;
      return;
    case gguf::value_type::boolean:
      ASSERT_EQ(*x.get<bool>(), *y.get<bool>()) << where;
      return;
    case gguf::value_type::float32:
    case gguf::value_type::float64: {
      double a = *x.to_double(), b = *y.to_double();
      if (a != a && b != b) return;  // both NaN
      ASSERT_EQ(a, b) << where;
      return;
    }
    case gguf::value_type::uint64:
      ASSERT_EQ(*x.to_uint64(), *y.to_uint64()) << where;
      return;
    default:
      ASSERT_EQ(*x.to_int64(), *y.to_int64()) << where;
      return;
  }
}

inline void expect_same_content(const gguf::file& a, const gguf::file& b) {
  ASSERT_EQ(a.kv_count(), b.kv_count()) << a.path() << " vs " << b.path();
  for (size_t i = 0; i < a.kv_count(); ++i) {
    const auto& kv = a.kv(i);
    EXPECT_EQ(kv.key, b.kv(i).key) << "key order";
    auto other = b.find(kv.key);
    ASSERT_TRUE(other.has_value()) << kv.key;
    expect_same_value(kv.value, *other, std::string(kv.key));
    if (::testing::Test::HasFatalFailure()) return;
  }
  ASSERT_EQ(a.tensor_count(), b.tensor_count());
  for (size_t i = 0; i < a.tensor_count(); ++i) {
    const auto& x = a.tensors()[i];
    const auto& y = b.tensors()[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.type, y.type) << x.name;
    EXPECT_EQ(x.n_dims, y.n_dims) << x.name;
    EXPECT_EQ(x.ne, y.ne) << x.name;
    EXPECT_EQ(x.nbytes, y.nbytes) << x.name;
  }
}

}  // namespace gguf::test
