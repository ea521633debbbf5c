// The failure contract of vocab::tokenize_into (the vocabulary tests): it fails with the
// reason and leaves what the caller's vector held.
#pragma once

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "gguf/vocab.h"

namespace gguf::test {

/// tokenize_into(text) of `v` fails and leaves `out`'s earlier ids alone; returns its error
/// (errc::ok when it did not fail) for checks of code, subject and message.
inline gguf::error tokenize_into_fails(const gguf::vocab& v, std::string_view text, bool add_special,
                                       bool parse_special) {
  std::vector<int32_t> out{42};
  auto r = v.tokenize_into(text, out, add_special, parse_special);
  EXPECT_FALSE(r.ok()) << text;
  EXPECT_EQ(out, std::vector<int32_t>{42}) << text;
  return r.ok() ? gguf::error{} : r.error();
}

}  // namespace gguf::test
