// Helpers shared by the tensor-map tests: load a handcrafted file as a model, and look at
// its diagnostics.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "gguf/model.h"
#include "gguf_builder.h"

namespace gguf::test {

/// Tensor name -> shape (ne[0] first).
using shapes = std::map<std::string, std::vector<uint64_t>>;

/// Layers with a bias, as llama.cpp creates a LayerNorm or a projection with one: for each
/// {NAME, ne}, NAME.weight of shape ne and NAME.bias of the output size (ne's last dimension:
/// [n] for a norm [n], [n_out] for a projection [n_in, n_out]).
inline shapes with_biases(const shapes& layers) {
  shapes t;
  for (const auto& [name, ne] : layers) {
    t[name + ".weight"] = ne;
    t[name + ".bias"] = {ne.back()};
  }
  return t;
}

inline void add(gguf_builder& b, const shapes& t) {
  for (const auto& [name, ne] : t) b.tensor(name, ne);
}

/// The model of a handcrafted file; the file and the model load must succeed.
inline gguf::model load(const gguf_builder& b) {
  auto f = gguf::file::from_buffer(b.build());
  EXPECT_TRUE(f.ok()) << f.error().message();
  auto m = gguf::model::load(*f);
  EXPECT_TRUE(m.ok()) << m.error().message();
  return std::move(m).value();
}

/// The model of keys `b` with the tensors `t` added.
inline gguf::model load(gguf_builder b, const shapes& t) {
  add(b, t);
  return load(b);
}

/// Every diagnostic, one "tensor: message" line each (for failure messages).
inline std::string diag_text(const gguf::model& m) {
  std::string s;
  for (const auto& d : m.diagnostics()) s += d.tensor + ": " + d.message + "\n";
  return s;
}

inline const gguf::model_diagnostic* find_diag(const gguf::model& m, const std::string& tensor) {
  for (const auto& d : m.diagnostics()) {
    if (d.tensor == tensor) return &d;
  }
  return nullptr;
}

/// Expects exactly the diagnostics `want` (tensor -> substring of the message), all errors.
inline void expect_errors(const gguf::model& m, const std::map<std::string, std::string>& want) {
  EXPECT_EQ(m.diagnostics().size(), want.size()) << diag_text(m);
  for (const auto& [tensor, text] : want) {
    const auto* d = find_diag(m, tensor);
    ASSERT_NE(d, nullptr) << tensor << "\n" << diag_text(m);
    EXPECT_EQ(d->severity, gguf::severity::error) << tensor;
    EXPECT_NE(d->message.find(text), std::string::npos) << tensor << ": " << d->message;
  }
  EXPECT_FALSE(m.check().ok());
}

/// The model of keys `b` with the tensors `t`, which must load without any diagnostic.
inline gguf::model load_clean(const gguf_builder& b, const shapes& t) {
  auto m = load(b, t);
  EXPECT_TRUE(m.diagnostics().empty()) << diag_text(m);
  return m;
}

inline bool has_tensor(const gguf::model& m, const std::string& name) {
  for (const auto& t : m.tensors()) {
    if (t.name == name) return true;
  }
  return false;
}

}  // namespace gguf::test
