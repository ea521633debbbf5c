// validate(): one handcrafted file per rule (built with gguf::writer, or raw bytes for
// structure errors), and the real files of ../shared/data.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "gguf/schema.h"
#include "gguf/writer.h"
#include "test_support.h"

namespace gguf {
namespace {

using S = severity;

const diagnostic* find(const report& r, std::string_view rule, std::string_view subject = {}) {
  for (const auto& d : r.diagnostics)
    if (d.rule == rule && (subject.empty() || d.subject == subject)) return &d;
  return nullptr;
}

std::string dump(const report& r) {
  std::string s;
  for (const auto& d : r.diagnostics)
    s += std::string(severity_name(d.level)) + " " + d.rule + " [" + d.subject + "] " + d.message + "\n";
  return s;
}

// The report has a diagnostic of `rule` on `subject` (any subject when empty), at `level`.
// Returns it for further checks (nullptr, and the test fails, when it is absent).
const diagnostic* expect_diagnostic(const report& r, std::string_view rule, std::string_view subject,
                                    severity level) {
  const auto* d = find(r, rule, subject);
  if (d == nullptr) {
    ADD_FAILURE() << rule << " [" << subject << "] not in:\n" << dump(r);
    return nullptr;
  }
  EXPECT_EQ(d->level, level) << rule << " [" << subject << "]";
  return d;
}

// A small but complete llama model: every required key, an SPM vocabulary of 4 tokens,
// two f32 tensors.
struct model_builder {
  writer w;
  std::vector<std::byte> embd = std::vector<std::byte>(4 * 4 * 4);
  std::vector<std::byte> norm = std::vector<std::byte>(4 * 4);
  std::vector<std::string> tokens{"<unk>", "<s>", "</s>", "a"};
  bool with_tensors = true;

  model_builder() {
    set("general.architecture", value::string("llama"));
    set("llama.context_length", value::u32(128));
    set("llama.embedding_length", value::u32(4));
    set("llama.block_count", value::u32(0));
    set("llama.feed_forward_length", value::u32(8));
    set("llama.rope.dimension_count", value::u32(4));
    set("llama.attention.head_count", value::u32(1));
    set("llama.attention.layer_norm_rms_epsilon", value::f32(1e-5f));
    set("tokenizer.ggml.model", value::string("llama"));
    set("tokenizer.ggml.tokens", value::string_array(std::span<const std::string>(tokens)));
    std::vector<float> scores{0, 0, 0, -1};
    set("tokenizer.ggml.scores", value::array(std::span<const float>(scores)));
    std::vector<int32_t> types{2, 3, 3, 1};
    set("tokenizer.ggml.token_type", value::array(std::span<const int32_t>(types)));
    set("tokenizer.ggml.bos_token_id", value::u32(1));
    set("tokenizer.ggml.eos_token_id", value::u32(2));
  }
  void set(std::string_view k, value v) { ASSERT_TRUE(w.set(k, std::move(v))) << k; }
  std::vector<std::byte> bytes() {
    if (with_tensors && w.tensor_count() == 0) {
      std::vector<uint64_t> ne2{4, 4}, ne1{4};
      EXPECT_TRUE(w.add_tensor("token_embd.weight", ggml_type::f32, ne2, std::span<const std::byte>(embd)));
      EXPECT_TRUE(w.add_tensor("output_norm.weight", ggml_type::f32, ne1, std::span<const std::byte>(norm)));
    }
    return w.to_bytes();
  }
  report validate() {
    auto b = bytes();
    return validate_bytes(b, "test.gguf");
  }
};

TEST(Validate, CompleteModelHasNoErrorsOrWarnings) {
  model_builder m;
  auto r = m.validate();
  EXPECT_EQ(r.count(S::error), 0u) << dump(r);
  EXPECT_EQ(r.count(S::warning), 0u) << dump(r);
  EXPECT_TRUE(r.passes(true));
  EXPECT_EQ(r.version, 3u);
}

TEST(Validate, KeyNameNotLowerSnakeCase) {
  model_builder m;
  m.set("llama.Rope.Extra", value::u32(1));
  auto r = m.validate();
  const auto* d = expect_diagnostic(r, "key.name", "llama.Rope.Extra", S::warning);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->offset, no_offset);
  EXPECT_TRUE(r.passes(false));
  EXPECT_FALSE(r.passes(true));
}

TEST(Validate, ArchitecturePrefixMayContainDash) {
  model_builder m;
  m.set("general.architecture", value::string("command-r"));
  m.set("command-r.context_length", value::u32(1));
  auto r = m.validate();
  EXPECT_EQ(find(r, "key.name", "command-r.context_length"), nullptr) << dump(r);
}

TEST(Validate, KeyWithoutNamespace) {
  model_builder m;
  m.set("mykey", value::u32(1));
  expect_diagnostic(m.validate(), "key.namespace", "mykey", S::warning);
}

TEST(Validate, KeyTypeWrong) {
  model_builder m;
  m.set("llama.context_length", value::f32(128.0f));
  std::vector<int32_t> bad_scores{0, 0, 0, 0};
  m.set("tokenizer.ggml.scores", value::array(std::span<const int32_t>(bad_scores)));
  auto r = m.validate();
  const auto* d = expect_diagnostic(r, "key.type", "llama.context_length", S::error);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("float32"), std::string::npos);
  ASSERT_NE(find(r, "key.type", "tokenizer.ggml.scores"), nullptr) << dump(r);
}

TEST(Validate, CountKeysAcceptUint64) {
  model_builder m;
  m.set("llama.context_length", value::u64(128));
  m.set("llama.block_count", value::u64(0));
  auto r = m.validate();
  EXPECT_EQ(find(r, "key.type"), nullptr) << dump(r);
  // A key the spec types uint32 does not accept uint64.
  m.set("general.file_type", value::u64(0));
  EXPECT_NE(find(m.validate(), "key.type", "general.file_type"), nullptr);
}

TEST(Validate, DraftKeyNamesFlagged) {
  model_builder m;
  m.set("llama.hidden_size", value::u32(4));
  m.set("llama.attention.num_heads", value::u32(1));
  m.set("tokenizer.embedded.tokens", value::u32(1));
  auto r = m.validate();
  const auto* d = find(r, "key.renamed", "llama.hidden_size");
  ASSERT_NE(d, nullptr) << dump(r);
  EXPECT_NE(d->message.find("llama.embedding_length"), std::string::npos);
  d = find(r, "key.renamed", "llama.attention.num_heads");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("llama.attention.head_count"), std::string::npos);
  d = find(r, "key.renamed", "tokenizer.embedded.tokens");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("tokenizer.ggml.tokens"), std::string::npos);
}

TEST(Validate, AlignmentNotMultipleOf8) {
  model_builder m;
  m.set("general.alignment", value::u32(4));
  auto r = m.validate();
  expect_diagnostic(r, "key.alignment", "", S::warning);
  model_builder ok;
  ok.set("general.alignment", value::u32(64));
  EXPECT_EQ(find(ok.validate(), "key.alignment"), nullptr);
}

TEST(Validate, QuantizationVersionRequiredWhenQuantized) {
  model_builder m;
  m.with_tensors = false;
  std::vector<std::byte> q(34);  // one q8_0 block of 32 elements
  std::vector<uint64_t> ne{32};
  ASSERT_TRUE(m.w.add_tensor("output_norm.weight", ggml_type::q8_0, ne, std::span<const std::byte>(q)));
  auto r = m.validate();
  ASSERT_NE(find(r, "key.quantization_version"), nullptr) << dump(r);
  m.set("general.quantization_version", value::u32(2));
  EXPECT_EQ(find(m.validate(), "key.quantization_version"), nullptr);
}

TEST(Validate, FileTypeConsistentWithTensors) {
  model_builder m;
  m.set("general.file_type", value::u32(2));  // MOSTLY_Q4_0, but the tensors are f32
  auto r = m.validate();
  const auto* d = find(r, "key.file_type");
  ASSERT_NE(d, nullptr) << dump(r);
  EXPECT_NE(d->message.find("q4_0"), std::string::npos);
  m.set("general.file_type", value::u32(0));  // ALL_F32: right
  EXPECT_EQ(find(m.validate(), "key.file_type"), nullptr);
  m.set("general.file_type", value::u32(5));  // retired MOSTLY_Q4_2
  EXPECT_NE(find(m.validate(), "key.file_type"), nullptr);
}

TEST(Validate, ArchitectureMissing) {
  model_builder m;
  m.w.remove("general.architecture");
  expect_diagnostic(m.validate(), "key.required", "general.architecture", S::error);
}

TEST(Validate, ArchitectureNameCharacters) {
  model_builder m;
  m.set("general.architecture", value::string("My_Arch"));
  auto r = m.validate();
  ASSERT_NE(find(r, "key.architecture"), nullptr) << dump(r);
  ASSERT_NE(find(r, "arch.unknown"), nullptr) << dump(r);
}

TEST(Validate, ArchitectureRequiredKeys) {
  model_builder m;
  m.w.remove("llama.attention.layer_norm_rms_epsilon");
  auto r = m.validate();
  expect_diagnostic(r, "arch.required", "llama.attention.layer_norm_rms_epsilon", S::error);
  // Without tensors the file loads as vocabulary only: a warning.
  model_builder v;
  v.with_tensors = false;
  v.w.remove("llama.attention.layer_norm_rms_epsilon");
  auto rv = v.validate();
  expect_diagnostic(rv, "arch.required", "llama.attention.layer_norm_rms_epsilon", S::warning);
  EXPECT_NE(find(rv, "format.vocab_only"), nullptr);
}

TEST(Validate, ArchitectureSpecKeys) {
  model_builder m;
  m.w.remove("llama.feed_forward_length");
  auto r = m.validate();
  expect_diagnostic(r, "arch.spec", "llama.feed_forward_length", S::warning);
  EXPECT_EQ(r.count(S::error), 0u);
}

TEST(Validate, TokenizerLengths) {
  model_builder m;
  std::vector<float> scores{0, 0, 0};
  m.set("tokenizer.ggml.scores", value::array(std::span<const float>(scores)));
  expect_diagnostic(m.validate(), "tokenizer.length", "tokenizer.ggml.scores", S::error);
}

TEST(Validate, TokenTypesOutOfRange) {
  model_builder m;
  std::vector<int32_t> types{2, 3, 7, 0};
  m.set("tokenizer.ggml.token_type", value::array(std::span<const int32_t>(types)));
  auto r = m.validate();
  // llama.cpp v0.5.0 loads it (issue 29, item 4)
  const auto* d = expect_diagnostic(r, "tokenizer.token_type", "", S::warning);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("2 token type"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("token 2 has 7"), std::string::npos) << d->message;
}

TEST(Validate, SpecialTokenIdOutsideVocab) {
  model_builder m;
  m.set("tokenizer.ggml.bos_token_id", value::u32(4));
  m.set("tokenizer.ggml.padding_token_id", value::u32(4294967295u));  // none
  auto r = m.validate();
  expect_diagnostic(r, "tokenizer.special_id", "tokenizer.ggml.bos_token_id", S::warning);
  EXPECT_EQ(find(r, "tokenizer.special_id", "tokenizer.ggml.padding_token_id"), nullptr);
}

TEST(Validate, BpeMerges) {
  model_builder m;
  m.set("tokenizer.ggml.model", value::string("gpt2"));
  auto r = m.validate();
  ASSERT_NE(find(r, "tokenizer.merges"), nullptr) << dump(r);  // missing
  ASSERT_NE(find(r, "tokenizer.pre"), nullptr) << dump(r);
  std::vector<std::string> merges{"a b", "ab", "a "};
  m.set("tokenizer.ggml.merges", value::string_array(std::span<const std::string>(merges)));
  m.set("tokenizer.ggml.pre", value::string("default"));
  r = m.validate();
  const auto* d = find(r, "tokenizer.merges");
  ASSERT_NE(d, nullptr) << dump(r);
  EXPECT_NE(d->message.find("2 merge"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("#1 \"ab\""), std::string::npos) << d->message;
  EXPECT_EQ(find(r, "tokenizer.pre"), nullptr);
  std::vector<std::string> good{"a b", "<s> </s>"};
  m.set("tokenizer.ggml.merges", value::string_array(std::span<const std::string>(good)));
  EXPECT_EQ(find(m.validate(), "tokenizer.merges"), nullptr);
}

TEST(Validate, UgmWithoutCharsmap) {
  model_builder m;
  m.set("tokenizer.ggml.model", value::string("t5"));
  auto r = m.validate();
  ASSERT_NE(find(r, "tokenizer.charsmap"), nullptr) << dump(r);
  std::vector<uint8_t> cm{0, 0, 0, 0};
  m.set("tokenizer.ggml.precompiled_charsmap", value::array(std::span<const uint8_t>(cm)));
  EXPECT_EQ(find(m.validate(), "tokenizer.charsmap"), nullptr);
}

TEST(Validate, TokenizerModelAndTokens) {
  model_builder m;
  m.set("tokenizer.ggml.model", value::string("sentencepiece"));
  auto r = m.validate();
  expect_diagnostic(r, "tokenizer.model", "", S::error);
  model_builder n;
  n.w.remove("tokenizer.ggml.model");
  ASSERT_NE(find(n.validate(), "tokenizer.model"), nullptr);
  model_builder t;
  t.w.remove("tokenizer.ggml.tokens");
  ASSERT_NE(find(t.validate(), "tokenizer.tokens"), nullptr);
  model_builder a;
  for (auto k : {"tokenizer.ggml.model", "tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type",
                 "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"})
    a.w.remove(k);
  auto ra = a.validate();
  expect_diagnostic(ra, "tokenizer.absent", "", S::note);
}

TEST(Validate, TensorNames) {
  model_builder m;
  std::vector<std::byte> x(16);
  std::vector<uint64_t> ne{4};
  ASSERT_TRUE(m.w.add_tensor("my_weights", ggml_type::f32, ne, std::span<const std::byte>(x)));
  ASSERT_TRUE(m.w.add_tensor("blk.0.attn_q.weight", ggml_type::f32, ne, std::span<const std::byte>(x)));
  auto r = m.validate();
  const auto* d = find(r, "tensor.name", "my_weights");
  ASSERT_NE(d, nullptr) << dump(r);
  EXPECT_TRUE(d->subject_is_tensor);
  EXPECT_EQ(find(r, "tensor.name", "blk.0.attn_q.weight"), nullptr);
}

TEST(Validate, TensorPaddingNotZero) {
  model_builder m;
  auto bytes = m.bytes();
  auto f = file::from_bytes(bytes);
  ASSERT_TRUE(f);
  const tensor_info* t = f->find_tensor("output_norm.weight");  // 16 bytes, then 16 of padding
  ASSERT_NE(t, nullptr);
  uint64_t pad = f->data_offset() + t->offset + t->nbytes;
  ASSERT_LT(pad, bytes.size());
  ASSERT_EQ(validate_bytes(bytes).count(S::warning), 0u);
  bytes[pad + 3] = std::byte{0x5a};
  auto r = validate_bytes(bytes);
  const auto* d = find(r, "tensor.padding");
  ASSERT_NE(d, nullptr) << dump(r);
  EXPECT_EQ(d->offset, pad + 3);
  EXPECT_EQ(d->level, S::warning);
}

TEST(Validate, StructureErrorIsOneDiagnostic) {
  model_builder m;
  auto bytes = m.bytes();
  auto bad = bytes;
  bad[0] = std::byte{'X'};
  auto r = validate_bytes(bad);
  ASSERT_EQ(r.diagnostics.size(), 1u) << dump(r);
  EXPECT_EQ(r.diagnostics[0].rule, "structure.bad_magic");
  EXPECT_EQ(r.diagnostics[0].code, errc::bad_magic);
  EXPECT_EQ(r.diagnostics[0].offset, 0u);
  EXPECT_EQ(r.version, 0u);
  EXPECT_FALSE(r.byte_order.has_value());

  auto cut = std::vector<std::byte>(bytes.begin(), bytes.begin() + 100);
  auto rc = validate_bytes(cut);
  ASSERT_EQ(rc.diagnostics.size(), 1u);
  EXPECT_EQ(rc.diagnostics[0].rule, "structure.truncated");
  EXPECT_EQ(rc.diagnostics[0].level, S::error);
}

TEST(Validate, UnreadableFileIsAnIoError) {
  auto r = validate_file("/nonexistent/dir/x.gguf");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, errc::io_error);
}

TEST(Validate, VersionAndByteOrderNotes) {
  // The same metadata written big-endian v3, then little-endian v2.
  model_builder m;
  m.with_tensors = false;
  auto little = m.bytes();
  auto f = file::from_bytes(little);
  ASSERT_TRUE(f);
  writer big(writer_options{3, byte_order::big});
  for (const auto& kv : f->kvs()) ASSERT_TRUE(big.set(kv.key, value::copy_of(kv.value)));
  auto rb_bytes = big.to_bytes();
  auto rb = validate_bytes(rb_bytes);
  ASSERT_NE(find(rb, "format.byte_order"), nullptr) << dump(rb);
  EXPECT_EQ(find(rb, "format.byte_order")->level, S::note);
  EXPECT_EQ(rb.byte_order, byte_order::big);
  EXPECT_EQ(rb.count(S::error), 0u) << dump(rb);

  writer w(writer_options{2, byte_order::little});
  for (const auto& kv : f->kvs()) ASSERT_TRUE(w.set(kv.key, value::copy_of(kv.value)));
  auto r2_bytes = w.to_bytes();
  auto r2 = validate_bytes(r2_bytes);
  ASSERT_NE(find(r2, "format.version"), nullptr) << dump(r2);
  EXPECT_EQ(r2.version, 2u);
}

// ---- real files -------------------------------------------------------------------

std::vector<std::filesystem::path> gguf_files(const std::string& dir) {
  std::vector<std::filesystem::path> out;
  auto d = test::data_file(dir);
  if (d.empty() || !std::filesystem::is_directory(d)) return out;
  for (const auto& e : std::filesystem::directory_iterator(d))
    if (e.path().extension() == ".gguf") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ValidateRealFiles, VocabAndModelsHaveNoErrors) {
  GGUF_REQUIRE_DATA();
  size_t n = 0;
  for (const auto& dir : {"vocab", "models"}) {
    for (const auto& p : gguf_files(dir)) {
      auto r = validate_file(p);
      ASSERT_TRUE(r) << p;
      EXPECT_EQ(r->count(S::error), 0u) << p << "\n" << dump(*r);
      ++n;
    }
  }
  EXPECT_GE(n, 30u);
}

// A data file and the rule validate() reports on it.
struct file_rule {
  const char* file;
  const char* rule;
};

TEST(ValidateRealFiles, InvalidCompatFilesFailWithTheRightRule) {
  GGUF_REQUIRE_DATA();
  const file_rule cases[] = {
      {"compat/invalid-reversed-magic-v1.gguf", "structure.bad_magic"},
      {"compat/invalid-draft-format.gguf", "structure.bad_magic"},
      {"compat/invalid-value-type-13.gguf", "structure.invalid_value_type"},
  };
  for (const auto& k : cases) {
    auto r = validate_file(test::data_file(k.file));
    ASSERT_TRUE(r) << k.file;
    ASSERT_EQ(r->diagnostics.size(), 1u) << k.file;
    EXPECT_EQ(r->diagnostics[0].rule, k.rule) << k.file;
    EXPECT_FALSE(r->passes());
  }
}

TEST(ValidateRealFiles, OldVersionsAndBigEndianValidateWithANote) {
  GGUF_REQUIRE_DATA();
  const file_rule cases[] = {
      {"compat/stories260K-v1.gguf", "format.version"},     {"compat/vocab-llama-v1-a.gguf", "format.version"},
      {"compat/vocab-llama-v1-b.gguf", "format.version"},   {"compat/vocab-falcon-v2.gguf", "format.version"},
      {"vocab/ggml-vocab-aquila.gguf", "format.version"},   {"compat/stories260K-be.gguf", "format.byte_order"},
      {"compat/stories260K-Q8_0-be.gguf", "format.byte_order"}, {"compat/vocab-llama-spm-be.gguf", "format.byte_order"},
  };
  for (const auto& k : cases) {
    auto r = validate_file(test::data_file(k.file));
    ASSERT_TRUE(r) << k.file;
    EXPECT_EQ(r->count(S::error), 0u) << k.file << "\n" << dump(*r);
    SCOPED_TRACE(k.file);
    expect_diagnostic(*r, k.rule, "", S::note);
  }
}

TEST(ValidateRealFiles, Stories260KNoneSpecialIdsAccepted) {
  GGUF_REQUIRE_DATA();
  // stores tokenizer.ggml.seperator_token_id / padding_token_id = 4294967295 (none)
  auto r = validate_file(test::data_file("models/stories260K.gguf"));
  ASSERT_TRUE(r);
  EXPECT_EQ(find(*r, "tokenizer.special_id"), nullptr) << dump(*r);
  EXPECT_TRUE(r->passes(true)) << dump(*r);
}

TEST(ValidateRealFiles, KnownTrueWarnings) {
  GGUF_REQUIRE_DATA();
  // The falcon vocab has no falcon.attention.use_norm, listed by the spec's Falcon section.
  auto r = validate_file(test::data_file("vocab/ggml-vocab-falcon.gguf"));
  ASSERT_TRUE(r);
  EXPECT_NE(find(*r, "arch.spec", "falcon.attention.use_norm"), nullptr) << dump(*r);
  // gpt-neox's vocab is BPE without tokenizer.ggml.pre.
  auto n = validate_file(test::data_file("vocab/ggml-vocab-gpt-neox.gguf"));
  ASSERT_TRUE(n);
  EXPECT_NE(find(*n, "tokenizer.pre"), nullptr) << dump(*n);
  // quant-fixture has quantized tensors and no general.quantization_version.
  auto q = validate_file(test::data_file("quant/quant-fixture.gguf"));
  ASSERT_TRUE(q);
  EXPECT_NE(find(*q, "key.quantization_version"), nullptr) << dump(*q);
}

}  // namespace
}  // namespace gguf
