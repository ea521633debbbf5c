// The expectation of a model load that fails on a hyperparameter key (the model tests).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "gguf/model.h"
#include "gguf_builder.h"

namespace gguf::test {

/// Loads, expects invalid_model about `key`, at the byte offset of that key's value
/// (or no offset when the key is missing), with `says` in the message when given.
inline void expect_key_error(const gguf_builder& b, const std::string& key, bool key_present = true,
                             const std::string& says = {}) {
  auto f = gguf::file::from_buffer(b.build());
  ASSERT_TRUE(f.ok()) << f.error().message();
  auto m = gguf::model::load(*f);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, gguf::errc::invalid_model) << m.error().message();
  EXPECT_EQ(m.error().subject, key) << m.error().message();
  EXPECT_NE(m.error().message().find(says), std::string::npos) << m.error().message();
  if (key_present) {
    auto v = f->find(key);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(m.error().offset, v->offset());
  } else {
    EXPECT_EQ(m.error().offset, gguf::no_offset);
  }
}

}  // namespace gguf::test
