// The token table of a cached load (vocab_load.cpp, "tokens.text"; runtime/token_table.h):
// placed over the file from the texts' places the compiled cache keeps, it gives every
// token's text, score, type, attributes and piece exactly as the table built from the
// file does; a cache file of the previous format is rebuilt, and one whose places do not
// fit the file is refused (rebuilt, never read).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "gguf/file.h"
#include "gguf/vocab.h"
#include "gguf/writer.h"
#include "test_support.h"
#include "vocab/vocab_impl.h"

namespace fs = std::filesystem;
using gguf::test::data_dir;
using gguf::test::vocab_files;

namespace {

fs::path only_cache_file(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("vocab-", 0) == 0 && e.path().extension() == ".bin") out.push_back(e.path());
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? fs::path() : out[0];
}

// The internal load (the token table's form is visible there).
std::shared_ptr<gguf::vocab::impl> load_impl(const gguf::file& f, const fs::path& cache) {
  auto p = gguf::vocab::impl::load(f, gguf::tokenizer_models(), gguf::vocab_detail::model_table(),
                                   gguf::vocab_load_options{cache.string()});
  EXPECT_TRUE(static_cast<bool>(p)) << (p ? "" : p.error().message());
  return p ? *p : nullptr;
}

gguf::vocab load(const gguf::file& f, const fs::path& cache) {
  auto v = gguf::vocab::load(f, gguf::vocab_load_options{cache.string()});
  EXPECT_TRUE(static_cast<bool>(v)) << (v ? "" : v.error().message());
  return std::move(*v);
}

// Everything a vocabulary says about each token.
void expect_same_tokens(const gguf::vocab& a, const gguf::vocab& b) {
  ASSERT_EQ(a.n_tokens(), b.n_tokens());
  for (int32_t id = 0; id < int32_t(a.n_tokens()); ++id) {
    ASSERT_EQ(a.token_text(id), b.token_text(id)) << id;
    ASSERT_EQ(a.token_score(id), b.token_score(id)) << id;
    ASSERT_EQ(a.token_type(id), b.token_type(id)) << id;
    ASSERT_EQ(a.token_attr(id), b.token_attr(id)) << id;
    ASSERT_EQ(a.token_to_piece(id, true), b.token_to_piece(id, true)) << id;
    ASSERT_EQ(a.find(a.token_text(id)), b.find(b.token_text(id))) << id;
  }
}

// Where array `k` of table `name` starts in a cache file (the layout of table_cache.cpp:
// the name, padding to 8, the array count and body size, then per array its count, element
// size and padding to 64 from the file start).
size_t array_at(const std::string& file, const std::string& name, size_t k, uint64_t& count) {
  const size_t named = file.find(name);
  if (named == std::string::npos) return 0;
  size_t p = (named + name.size() + 7) / 8 * 8 + 16;
  for (size_t i = 0;; ++i) {
    uint32_t elem = 0;
    std::memcpy(&count, file.data() + p, 8);
    std::memcpy(&elem, file.data() + p + 8, 4);
    p = (p + 16 + 63) / 64 * 64;
    if (i == k) return p;
    p = (p + count * elem + 7) / 8 * 8;
  }
}

// The file with its payload checksum made right again (a forged file, not a damaged one).
std::string with_checksum(std::string file) {
  const uint64_t sum = XXH3_64bits(file.data() + 64, file.size() - 64);
  std::memcpy(file.data() + 40, &sum, 8);
  return file;
}

void write_file(const fs::path& p, const std::string& s) {
  const auto* b = reinterpret_cast<const std::byte*>(s.data());
  gguf::test::write_bytes(p, std::vector<std::byte>(b, b + s.size()));
}

}  // namespace

TEST(TokenizerCacheTokens, APlacedTableGivesEveryTokenAsTheBuiltOne) {
  GGUF_REQUIRE_DATA();
  size_t placed = 0;
  for (const auto& model : vocab_files()) {
    SCOPED_TRACE(model.filename().string());
    auto f = gguf::file::open(model.string());
    ASSERT_TRUE(f);
    const fs::path dir = gguf::test::fresh_dir("cache-tokens");
    const auto built = load(*f, "");
    (void)load(*f, dir);  // writes the cache
    const auto p = load_impl(*f, dir);
    ASSERT_TRUE(p && p->cache) << "a hit";
    placed += p->d.tokens.placed();
    const auto cached = load(*f, dir);
    ASSERT_TRUE(cached.from_cache());
    expect_same_tokens(built, cached);
  }
  EXPECT_GE(placed, 18u) << "every vocabulary of the test data but those without tokens is placed";
}

TEST(TokenizerCacheTokens, AVocabularyWithAnEmptyTokenWalksItsArrayFromTheCache) {
  gguf::writer w;
  const std::vector<std::string> tokens{"<unk>", "a", "", "b", "ab"};
  ASSERT_TRUE(w.set("general.architecture", gguf::value::string("llama")));
  ASSERT_TRUE(w.set("tokenizer.ggml.model", gguf::value::string("llama")));
  ASSERT_TRUE(w.set("tokenizer.ggml.tokens", gguf::value::string_array(std::span<const std::string>(tokens))));
  const auto bytes = w.to_bytes();
  auto f = gguf::file::from_bytes(bytes);
  ASSERT_TRUE(f) << f.error().message();
  const fs::path dir = gguf::test::fresh_dir("cache-empty-token");
  const auto built = load(*f, "");
  EXPECT_EQ(built.token_text(2), "[EMPTY_2]");
  (void)load(*f, dir);
  const auto p = load_impl(*f, dir);
  ASSERT_TRUE(p && p->cache);
  EXPECT_FALSE(p->d.tokens.placed());
  const auto cached = load(*f, dir);
  EXPECT_TRUE(cached.from_cache());
  expect_same_tokens(built, cached);
}

TEST(TokenizerCacheTokens, AFileOfTheFormerFormatIsRebuilt) {
  GGUF_REQUIRE_DATA();
  auto f = gguf::file::open((data_dir() / "vocab" / "ggml-vocab-phi-3.gguf").string());
  ASSERT_TRUE(f);
  const fs::path dir = gguf::test::fresh_dir("cache-format");
  (void)load(*f, dir);
  const fs::path bin = only_cache_file(dir);
  std::string file = gguf::test::read_text(bin);
  uint32_t format = 0;
  std::memcpy(&format, file.data() + 8, 4);
  EXPECT_EQ(format, 2u) << "format 2: the texts' places";
  const uint32_t old = 1;
  std::memcpy(file.data() + 8, &old, 4);
  write_file(bin, file);
  const auto v = load(*f, dir);
  EXPECT_FALSE(v.from_cache()) << "a format-1 file is not read";
  const std::string again = gguf::test::read_text(bin);
  std::memcpy(&format, again.data() + 8, 4);
  EXPECT_EQ(format, 2u) << "and is written anew";
  EXPECT_TRUE(load(*f, dir).from_cache());
}

TEST(TokenizerCacheTokens, PlacesThatDoNotFitTheFileAreRefused) {
  GGUF_REQUIRE_DATA();
  auto f = gguf::file::open((data_dir() / "vocab" / "ggml-vocab-bert-bge.gguf").string());
  ASSERT_TRUE(f);
  const auto built = load(*f, "");
  const fs::path dir = gguf::test::fresh_dir("cache-places");
  (void)load(*f, dir);
  const fs::path bin = only_cache_file(dir);
  const std::string good = gguf::test::read_text(bin);
  uint64_t count = 0;
  const size_t starts = array_at(good, "tokens.text", 1, count);
  ASSERT_GT(starts, 0u);
  ASSERT_EQ(count, uint64_t(built.n_tokens()) + 1);
  const auto read_start = [&](size_t i) {
    uint32_t x;
    std::memcpy(&x, good.data() + starts + 4 * i, 4);
    return x;
  };
  EXPECT_EQ(read_start(0), 8u) << "(v3: an 8-byte length before each text)";
  const auto forge = [&](size_t i, uint32_t value) {
    std::string bad = good;
    std::memcpy(bad.data() + starts + 4 * i, &value, 4);
    return with_checksum(bad);
  };
  struct forged {
    const char* what;
    std::string file;
  };
  const size_t n = built.n_tokens();
  const forged cases[] = {
      {"another length width", forge(0, 5)},
      {"a text before the one ahead of it", forge(100, read_start(99) - 1)},
      {"an empty text", forge(101, read_start(100) + 8)},
      {"past the end of the file", forge(n, uint32_t(f->bytes().size()))},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    write_file(bin, c.file);
    fs::remove(fs::path(bin).replace_extension(".ok"));  // (no record vouches for it)
    const auto v = load(*f, dir);
    EXPECT_FALSE(v.from_cache());
    expect_same_tokens(built, v);
    EXPECT_EQ(gguf::test::read_text(bin), good) << "the file is written anew";
    EXPECT_TRUE(load(*f, dir).from_cache());
  }
}
