// gguf/keys.h: the facts tables (file types, standardized keys, draft names, architectures,
// tokenizer models, tensor names) against the values the header documents and against the
// real files of ../shared/data, which llama.cpp's and gguf-py's writers made.
#include <gtest/gtest.h>

#include "gguf/file.h"
#include "gguf/keys.h"
#include "test_support.h"

namespace fs = std::filesystem;

TEST(Keys, FileTypesAsLlamaCppNamesThem) {
  EXPECT_EQ(gguf::file_type_name(0), "ALL_F32");
  EXPECT_EQ(gguf::file_type_name(1), "MOSTLY_F16");
  EXPECT_EQ(gguf::file_type_name(15), "MOSTLY_Q4_K_M");
  EXPECT_EQ(gguf::file_type_name(32), "MOSTLY_BF16");
  for (uint32_t retired : {4u, 5u, 6u, 33u, 34u, 35u}) {
    EXPECT_EQ(gguf::file_type_name(retired), "") << retired;
    EXPECT_EQ(gguf::find_file_type(retired), nullptr) << retired;
  }
  EXPECT_EQ(gguf::file_types().size(), 42u - 6u);  // ids 0..41 without the six retired ones
  for (const auto& t : gguf::file_types()) EXPECT_EQ(gguf::find_file_type(t.id), &t) << t.name;
  EXPECT_EQ(gguf::find_file_type(15)->main_type, gguf::ggml_type::q4_K);
}

TEST(Keys, StandardKeysAndDraftNames) {
  const auto* ctx = gguf::find_standard_key("llama.context_length", "llama");
  ASSERT_NE(ctx, nullptr);
  EXPECT_EQ(ctx->name, "[llm].context_length");
  EXPECT_EQ(gguf::find_standard_key("llama.context_length", "qwen2"), nullptr);  // another prefix
  const auto* align = gguf::find_standard_key("general.alignment", "llama");
  ASSERT_NE(align, nullptr);
  EXPECT_EQ(align->types, gguf::type_bit(gguf::value_type::uint32));
  EXPECT_EQ(gguf::renamed_key_for("llama.hidden_size", "llama"), "llama.embedding_length");
  EXPECT_EQ(gguf::renamed_key_for("llama.embedding_length", "llama"), "");
  EXPECT_EQ(gguf::tokenizer_vocab_type("llama"), "spm");
  EXPECT_EQ(gguf::tokenizer_vocab_type("gpt2"), "bpe");
  EXPECT_EQ(gguf::tokenizer_vocab_type("bert"), "wpm");
  EXPECT_EQ(gguf::tokenizer_vocab_type("t5"), "ugm");
  EXPECT_EQ(gguf::tokenizer_vocab_type("rwkv"), "rwkv");
  EXPECT_EQ(gguf::tokenizer_vocab_type("no-such-model"), "");
  for (auto name : {"token_embd.weight", "blk.0.attn_q.weight", "blk.12.ffn_down.weight", "output.bias"})
    EXPECT_TRUE(gguf::is_standard_tensor_name(name)) << name;
  for (auto name : {"", "foo", "blk.x.attn_q.weight", "token_embd"})
    EXPECT_FALSE(gguf::is_standard_tensor_name(name)) << name;
  ASSERT_NE(gguf::find_architecture("llama"), nullptr);
  EXPECT_TRUE(gguf::find_architecture("llama")->in_spec);
  EXPECT_EQ(gguf::find_architecture("no-such-arch"), nullptr);
}

// Every standardized key of every real model and vocabulary has a type the table accepts,
// and every tensor of the models whose architecture validate checks has a standard name.
TEST(Keys, RealFilesAgreeWithTheTables) {
  GGUF_REQUIRE_DATA();
  const auto data = gguf::test::data_file("");
  size_t files = 0, keys = 0, tensors = 0;
  for (const char* sub : {"models", "vocab"}) {
    for (const auto& e : fs::directory_iterator(data / sub)) {
      if (e.path().extension() != ".gguf") continue;
      auto f = gguf::file::open(e.path());
      if (!f) continue;  // malformed files are the reader's tests
      ++files;
      const std::string arch(f->get_string("general.architecture").value_or(""));
      for (const auto& kv : f->kvs()) {
        const auto* k = gguf::find_standard_key(kv.key, arch);
        if (!k) continue;
        ++keys;
        EXPECT_NE(k->types & gguf::type_bit(kv.value.type()), 0u)
            << e.path().filename() << ": " << kv.key << " is " << gguf::value_type_name(kv.value.type());
      }
      const auto* a = gguf::find_architecture(arch);
      if (!a || !a->validated) continue;
      for (const auto& t : f->tensors()) {
        ++tensors;
        EXPECT_TRUE(gguf::is_standard_tensor_name(t.name)) << e.path().filename() << ": " << t.name;
      }
    }
  }
  EXPECT_GT(files, 20u);
  EXPECT_GT(keys, 200u);
  EXPECT_GT(tensors, 50u);
}
