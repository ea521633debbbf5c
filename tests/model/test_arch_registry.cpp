// The architecture registry: a made-up architecture is one facts row (gguf/keys.h,
// registered here as src/schema/keys.cpp's arch_table would hold it) plus one bindings
// row (src/model/arch.h, as src/model/arch_table.cpp's rows[] would hold it), and
// `gguf validate` (the schema layer) and the model loader both see it with no other code
// to touch. Also: every built-in model row has its facts row, and takes in_spec from it.
#include <gtest/gtest.h>

#include <algorithm>

#include "gguf/keys.h"
#include "gguf/model.h"
#include "gguf_builder.h"
#include "model/arch.h"
#include "gguf/schema.h"  // gguf::validate_bytes: the schema layer, beside the model loader
#include "model/tensor_groups.h"

namespace {

using namespace gguf;
using gguf::test::gguf_builder;
using H = gguf::hparams;

// ---- the made-up architecture "toyarch" -------------------------------------------------

// Facts: llama's core keys and RMS epsilon, plus a key of its own, all required.
constexpr std::string_view toy_required[] = {"context_length", "embedding_length", "block_count",
                                             "attention.layer_norm_rms_epsilon", "widget_count"};
constexpr arch_info toy_facts{"toyarch", toy_required, {}, false};

// Bindings: the keys into hparams fields (widget_count borrows n_ff_exp), and llama's tensors.
constexpr detail::key_spec toy_keys[] = {
    detail::bind_key("attention.layer_norm_rms_epsilon", &H::f_norm_rms_eps),
    detail::bind_key("widget_count", &H::n_ff_exp)};
using namespace detail::tensors;
constexpr std::span<const detail::tensor_spec> toy_tensors[] = {token_embd, output_tied, attn_norm, attn_q_k_v_o,
                                                                ffn_norm,   ffn_gated};
constexpr detail::arch_row toy_row{.name = "toyarch", .keys = toy_keys, .tensors = toy_tensors,
                                   .tensors_complete = true};

class ArchRegistry : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_NE(register_architecture(toy_facts), nullptr);
    ASSERT_NE(detail::register_arch_row(toy_row), nullptr);
  }
};

/// A one-block toyarch: n_embd 8, 2 heads of 4, n_ff 16, 4 tokens; output tied.
gguf_builder toy_file(bool with_widgets = true, bool extra_tensor = false) {
  gguf_builder b = gguf::test::arch_keys("toyarch", {.n_ctx = 128, .rms_eps = 1e-5f, .n_vocab = 4});
  if (with_widgets) b.u32("toyarch.widget_count", 7);
  b.tensor("token_embd.weight", {8, 4}).tensor("output_norm.weight", {8});
  b.tensor("blk.0.attn_norm.weight", {8})
      .tensor("blk.0.attn_q.weight", {8, 8})
      .tensor("blk.0.attn_k.weight", {8, 8})
      .tensor("blk.0.attn_v.weight", {8, 8})
      .tensor("blk.0.attn_output.weight", {8, 8})
      .tensor("blk.0.ffn_norm.weight", {8})
      .tensor("blk.0.ffn_gate.weight", {8, 16})
      .tensor("blk.0.ffn_down.weight", {16, 8})
      .tensor("blk.0.ffn_up.weight", {8, 16});
  if (extra_tensor) b.tensor("blk.0.attn_sinks.weight", {2});
  return b;
}

const diagnostic* find_rule(const report& r, std::string_view rule, std::string_view subject = {}) {
  for (const auto& d : r.diagnostics)
    if (d.rule == rule && (subject.empty() || d.subject == subject)) return &d;
  return nullptr;
}

TEST_F(ArchRegistry, RegisteredOnceByName) {
  EXPECT_EQ(register_architecture(toy_facts), nullptr);  // already has a row
  EXPECT_EQ(detail::register_arch_row(toy_row), nullptr);
  constexpr detail::arch_row orphan{.name = "no-facts-row"};
  EXPECT_EQ(detail::register_arch_row(orphan), nullptr);  // bindings need the facts row first
  EXPECT_EQ(find_architecture("toyarch")->name, "toyarch");
  ASSERT_NE(find_model_architecture("toyarch"), nullptr);
  EXPECT_FALSE(find_model_architecture("toyarch")->from_spec);  // from the facts row
  EXPECT_TRUE(find_model_architecture("toyarch")->has_tensor_table);
}

TEST_F(ArchRegistry, ValidateSeesIt) {
  const auto ok = validate_bytes(toy_file().build());
  EXPECT_EQ(find_rule(ok, "arch.unknown"), nullptr);
  EXPECT_EQ(find_rule(ok, "arch.required"), nullptr);
  EXPECT_EQ(find_rule(ok, "tensor.name"), nullptr);

  const auto missing = validate_bytes(toy_file(false).build());
  const auto* d = find_rule(missing, "arch.required", "toyarch.widget_count");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->level, severity::error);
}

TEST_F(ArchRegistry, ModelLoaderSeesIt) {
  auto f = file::from_buffer(toy_file().build());
  ASSERT_TRUE(f.ok()) << f.error().message();
  auto m = model::load(*f);
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->arch().name, "toyarch");
  EXPECT_EQ(m->hparams().n_ff_exp, 7u);
  EXPECT_FLOAT_EQ(m->hparams().f_norm_rms_eps, 1e-5f);
  EXPECT_EQ(m->hparams().n_embd, 8u);
  EXPECT_TRUE(m->diagnostics().empty()) << m->diagnostics()[0].tensor << ": " << m->diagnostics()[0].message;
  EXPECT_TRUE(m->check().ok());

  // Required by the facts row (the binding says nothing about it).
  auto g = file::from_buffer(toy_file(false).build());
  ASSERT_TRUE(g.ok());
  auto e = model::load(*g);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, errc::invalid_model);
  EXPECT_EQ(e.error().subject, "toyarch.widget_count");

  // The tensor table is complete: a tensor it does not list is an error.
  auto h = file::from_buffer(toy_file(true, true).build());
  ASSERT_TRUE(h.ok());
  auto x = model::load(*h);
  ASSERT_TRUE(x.ok()) << x.error().message();
  EXPECT_FALSE(x->check().ok());
}

TEST(ArchRegistryBuiltin, EveryModelRowHasItsFactsRow) {
  for (const auto& row : detail::arch_rows()) {
    const arch_info* facts = find_architecture(row.name);
    ASSERT_NE(facts, nullptr) << row.name;
    const architecture* a = find_model_architecture(row.name);
    ASSERT_NE(a, nullptr) << row.name;
    EXPECT_EQ(a->from_spec, facts->in_spec) << row.name;
    // Every required key names a key some reader binds: a common key or one of the row's.
    for (std::string_view k : facts->required.empty() ? facts->spec_required : facts->required) {
      if (k == "context_length" || k == "embedding_length" || k == "block_count" ||
          k == "feed_forward_length" || k == "attention.head_count" || k == "attention.head_count_kv" ||
          k == "attention.key_length_swa" || k == "attention.value_length_swa" || k.starts_with("encoder.") ||
          k.starts_with("rope.") || (row.swa_layers_key && k == "attention.sliding_window_pattern"))
        continue;
      const bool bound = std::any_of(row.keys.begin(), row.keys.end(), [&](const auto& s) { return s.suffix == k; });
      if (!facts->in_spec) {
        EXPECT_TRUE(bound) << row.name << "." << k << " is required but not read";
      }
    }
  }
}

}  // namespace
