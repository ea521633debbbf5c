// The compiled tokenizer cache (vocab_load_options::cache_dir): every vocabulary of the
// test data gives the same ids from its cached tables as from freshly built ones (the
// built ones are checked against llama.cpp by the vector tests), and a cache file that
// is damaged, cut short, another vocabulary's or unwritable never changes a result.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "gguf/file.h"
#include "gguf/vocab.h"
#include "test_support.h"
#include "vocab/runtime/prefault.h"
#include "vocab/runtime/table_cache.h"

namespace fs = std::filesystem;
using gguf::test::data_dir;
using gguf::test::vocab_files;
using gguf::test::temp_dir;

namespace {

std::string corpus_head(size_t bytes) {
  std::ifstream in(data_dir() / "corpus" / "bench.txt", std::ios::binary);
  std::string s(bytes, '\0');
  in.read(s.data(), std::streamsize(bytes));
  s.resize(size_t(in.gcount()));
  // cut at a line end: a whole UTF-8 text
  if (const size_t nl = s.rfind('\n'); nl != std::string::npos) s.resize(nl + 1);
  return s;
}

// The folder's files whose names start with `prefix` (vocab-*.bin: cache files;
// ident-*.key: identity records).
std::vector<fs::path> files_of(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}
std::vector<fs::path> cache_files(const fs::path& dir) { return files_of(dir, "vocab-"); }
std::vector<fs::path> ident_files(const fs::path& dir) { return files_of(dir, "ident-"); }

gguf::vocab load(const fs::path& model, const fs::path& cache) {
  auto f = gguf::file::open(model.string());
  EXPECT_TRUE(static_cast<bool>(f)) << model;
  auto v = gguf::vocab::load(*f, gguf::vocab_load_options{cache.string()});
  EXPECT_TRUE(static_cast<bool>(v)) << model << ": " << (v ? "" : v.error().message());
  return std::move(*v);
}

// The ids of `text` in the three modes (plain; parse_special; add_special + parse_special).
std::vector<std::vector<int32_t>> ids_of(const gguf::vocab& v, const std::string& text) {
  std::vector<std::vector<int32_t>> out;
  for (auto [add, parse] : {std::pair{false, false}, {false, true}, {true, true}}) {
    auto r = v.tokenize(text, add, parse);
    out.push_back(r ? *r : std::vector<int32_t>{-12345});  // an error (add_special without an id) compares too
  }
  return out;
}

void write_file(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << s;
}

}  // namespace

TEST(TokenizerCache, EveryVocabularyGivesTheSameIdsFromItsCache) {
  GGUF_REQUIRE_DATA();
  const std::string text = corpus_head(64 << 10) + "<s> </s> <|endoftext|> [CLS] <mask> ~ 12345 ’s 你好 🙂\n";
  const fs::path dir = temp_dir() / "cache-all";
  size_t n = 0;
  for (const auto& model : vocab_files()) {
    SCOPED_TRACE(model.filename().string());
    const auto cold = load(model, "");  // no cache
    EXPECT_FALSE(cold.from_cache());
    const size_t before = cache_files(dir).size();
    const auto first = load(model, dir);  // builds and writes
    EXPECT_FALSE(first.from_cache());
    EXPECT_EQ(cache_files(dir).size(), before + 1) << "one cache file per vocabulary";
    const auto cached = load(model, dir);
    EXPECT_TRUE(cached.from_cache());
    const auto want = ids_of(cold, text);
    EXPECT_EQ(ids_of(first, text), want);
    EXPECT_EQ(ids_of(cached, text), want);
    EXPECT_EQ(cached.n_tokens(), cold.n_tokens());
    for (int32_t id = 0; id < int32_t(cold.n_tokens()); id += 97) EXPECT_EQ(cached.is_eog(id), cold.is_eog(id)) << id;
    const std::vector<int32_t> some{0, 1, 2, int32_t(cold.n_tokens()) - 1};
    EXPECT_EQ(cached.detokenize(some, false, true), cold.detokenize(some, false, true));
    ++n;
  }
  EXPECT_GE(n, 20u);
}

TEST(TokenizerCache, DamagedOrForeignFilesAreRebuilt) {
  GGUF_REQUIRE_DATA();
  const fs::path bpe = data_dir() / "vocab" / "ggml-vocab-qwen2.gguf";
  const fs::path ugm = data_dir() / "vocab" / "ugm-sp-test.gguf";
  const std::string text = corpus_head(16 << 10);
  const auto want_bpe = ids_of(load(bpe, ""), text);
  const auto want_ugm = ids_of(load(ugm, ""), text);
  const fs::path dir = temp_dir() / "cache-damage";

  // a fresh cache for each vocabulary
  (void)load(bpe, dir);
  const fs::path bpe_cache = cache_files(dir).at(0);
  (void)load(ugm, dir);
  auto files = cache_files(dir);
  ASSERT_EQ(files.size(), 2u);
  const fs::path ugm_cache = files[0] == bpe_cache ? files[1] : files[0];
  const std::string good = gguf::test::read_text(bpe_cache);
  ASSERT_GT(good.size(), 4096u);

  const auto expect_rebuilt = [&](const char* what) {
    SCOPED_TRACE(what);
    const auto v = load(bpe, dir);
    EXPECT_FALSE(v.from_cache());
    EXPECT_EQ(ids_of(v, text), want_bpe);
    EXPECT_EQ(gguf::test::read_text(bpe_cache), good) << "the file is written anew";
    EXPECT_TRUE(load(bpe, dir).from_cache());
  };
  std::string bad = good;
  bad[good.size() / 2] ^= 0x40;  // one flipped bit in the tables
  write_file(bpe_cache, bad);
  expect_rebuilt("a flipped bit");
  write_file(bpe_cache, good.substr(0, good.size() - 100));
  expect_rebuilt("cut short");
  write_file(bpe_cache, good.substr(0, 10));
  expect_rebuilt("shorter than its header");
  bad = good;
  bad[0] = 'X';
  write_file(bpe_cache, bad);
  expect_rebuilt("another magic");
  // another vocabulary's valid file under this one's name: its key differs
  fs::copy_file(ugm_cache, bpe_cache, fs::copy_options::overwrite_existing);
  expect_rebuilt("another vocabulary's file");
  // another vocabulary's tables with this one's key and a valid checksum: the tables do
  // not fit (token count, table names), the load starts over without them
  std::string forged = gguf::test::read_text(ugm_cache);
  std::memcpy(forged.data() + 16, good.data() + 16, 16);  // key
  const uint64_t sum = XXH3_64bits(forged.data() + 64, forged.size() - 64);
  std::memcpy(forged.data() + 40, &sum, 8);
  write_file(bpe_cache, forged);
  expect_rebuilt("forged tables");
  // the other vocabulary was never disturbed
  const auto u = load(ugm, dir);
  EXPECT_TRUE(u.from_cache());
  EXPECT_EQ(ids_of(u, text), want_ugm);
}

TEST(TokenizerCache, AnUnwritableFolderOnlyCostsTheBuild) {
  GGUF_REQUIRE_DATA();
  if (geteuid() == 0) {
    // root writes anywhere: a file where the folder should be stands in for it
    const fs::path blocker = temp_dir() / "cache-blocker";
    write_file(blocker, "not a folder");
    const fs::path model = data_dir() / "vocab" / "ggml-vocab-llama-spm.gguf";
    const auto v = load(model, blocker / "sub");
    EXPECT_FALSE(v.from_cache());
    EXPECT_EQ(ids_of(v, "Hello world"), ids_of(load(model, ""), "Hello world"));
    EXPECT_TRUE(fs::is_regular_file(blocker));
    return;
  }
  const fs::path dir = gguf::test::fresh_dir("cache-readonly");
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
  const fs::path model = data_dir() / "vocab" / "ggml-vocab-llama-spm.gguf";
  const auto v = load(model, dir);
  EXPECT_FALSE(v.from_cache());
  EXPECT_TRUE(cache_files(dir).empty());
  fs::permissions(dir, fs::perms::owner_all);
}

TEST(TokenizerCache, AnEditedFileHasAnotherKey) {
  GGUF_REQUIRE_DATA();
  // the same vocabulary with one token text changed (same length, so the layout and the
  // file size are unchanged): its tables differ, and so does the key
  const fs::path src = data_dir() / "vocab" / "ggml-vocab-gpt-2.gguf";
  const fs::path copy = temp_dir() / "gpt2-edited.gguf";
  std::string bytes = gguf::test::read_text(src);
  const std::string from = "Hello", to = "Jello";
  const size_t at = bytes.find(std::string("\x05\0\0\0\0\0\0\0", 8) + from);
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(bytes.find(std::string("\x05\0\0\0\0\0\0\0", 8) + to), std::string::npos);
  write_file(copy, bytes);
  const fs::path dir = temp_dir() / "cache-edit";
  const auto before = load(copy, dir);
  EXPECT_TRUE(load(copy, dir).from_cache());
  bytes.replace(at + 8, from.size(), to);
  write_file(copy, bytes);
  const auto after = load(copy, dir);
  EXPECT_FALSE(after.from_cache()) << "an edited vocabulary must not use the old tables";
  EXPECT_NE(ids_of(after, "Hello"), ids_of(before, "Hello"));
  for (const char* t : {"Hello", "Jello", "Hello world"}) EXPECT_EQ(ids_of(after, t), ids_of(load(copy, ""), t)) << t;
  EXPECT_EQ(cache_files(dir).size(), 2u);
}

TEST(TokenizerCache, TheFolderIsKeptUnderItsCap) {
  GGUF_REQUIRE_DATA();
  const fs::path dir = temp_dir() / "cache-cap";
  setenv("GGUF_CACHE_MAX_MB", "2", 1);
  std::vector<fs::path> order;  // the cache file of each load, oldest first
  for (const char* name : {"ggml-vocab-llama-spm.gguf", "ggml-vocab-phi-3.gguf", "ggml-vocab-baichuan.gguf",
                           "ugm-sp-test.gguf"}) {
    const auto before = cache_files(dir);
    (void)load(data_dir() / "vocab" / name, dir);
    for (const auto& p : cache_files(dir))
      if (std::find(before.begin(), before.end(), p) == before.end()) order.push_back(p);
  }
  unsetenv("GGUF_CACHE_MAX_MB");
  ASSERT_EQ(order.size(), 4u);
  uint64_t total = 0;
  for (const auto& p : cache_files(dir)) total += fs::file_size(p);
  EXPECT_TRUE(fs::exists(order.back())) << "the file just written stays";
  EXPECT_FALSE(fs::exists(order.front())) << "the least recently used goes first";
  EXPECT_LE(total, std::max<uint64_t>(2u << 20, fs::file_size(order.back())));
}

namespace {
// identity_min_age_ns for the scope of a test
struct min_age {
  int64_t saved = gguf::vocab_detail::identity_min_age_ns;
  explicit min_age(int64_t ns) { gguf::vocab_detail::identity_min_age_ns = ns; }
  ~min_age() { gguf::vocab_detail::identity_min_age_ns = saved; }
};
std::unique_ptr<gguf::vocab_detail::table_cache> open_cache(const fs::path& model, const fs::path& dir) {
  auto f = gguf::file::open(model.string());
  EXPECT_TRUE(static_cast<bool>(f));
  return gguf::vocab_detail::table_cache::open(dir.string(), *f);
}
}  // namespace

TEST(TokenizerCache, AnUnchangedFileIsKnownByItsIdentity) {
  // The content key of a file is recorded under its identity; the next open reads it
  // there (no hash of the metadata) and finds the same cache file. A file whose times
  // are too recent is not recorded; a file written since has another identity; a damaged
  // record is not used.
  GGUF_REQUIRE_DATA();
  const fs::path copy = temp_dir() / "ident-gpt2.gguf";
  std::string bytes = gguf::test::read_text(data_dir() / "vocab" / "ggml-vocab-gpt-2.gguf");
  write_file(copy, bytes);
  const fs::path dir = temp_dir() / "cache-ident";
  const std::string text = "Hello world, the identity of a file";
  const auto want = ids_of(load(copy, ""), text);
  {
    // just written: its times are within the default 2 s, so it is not recorded
    const auto v = load(copy, dir);
    EXPECT_FALSE(v.from_cache());
    EXPECT_TRUE(ident_files(dir).empty());
    EXPECT_FALSE(open_cache(copy, dir)->keyed_by_identity());
  }
  const min_age now(0);
  {
    auto c = open_cache(copy, dir);  // hashes, then records the identity
    EXPECT_FALSE(c->keyed_by_identity());
    EXPECT_TRUE(c->hit());
    ASSERT_EQ(ident_files(dir).size(), 1u);
  }
  const std::string key_path = open_cache(copy, dir)->path();
  {
    auto c = open_cache(copy, dir);
    EXPECT_TRUE(c->keyed_by_identity());
    EXPECT_TRUE(c->hit());
    EXPECT_EQ(c->path(), key_path) << "the recorded key is the content key";
    const auto v = load(copy, dir);
    EXPECT_TRUE(v.from_cache());
    EXPECT_EQ(ids_of(v, text), want);
  }
  // damaged records are not used (and the key is hashed again, to the same file)
  const fs::path record = ident_files(dir).at(0);
  const std::string good = gguf::test::read_text(record);
  for (const std::string& bad : {good.substr(0, 31), good + "x", std::string("XGUFVTI1") + good.substr(8),
                                 good.substr(0, 24) + std::string(7, '\0') + "\x01"}) {
    write_file(record, bad);
    auto c = open_cache(copy, dir);
    EXPECT_FALSE(c->keyed_by_identity());
    EXPECT_EQ(c->path(), key_path);
    EXPECT_TRUE(c->hit());
  }
  // the file rewritten with one token changed (same size): another identity, another key
  const std::string from = "Hello", to = "Jello";
  const size_t at = bytes.find(std::string("\x05\0\0\0\0\0\0\0", 8) + from);
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at + 8, from.size(), to);
  write_file(copy, bytes);
  {
    auto c = open_cache(copy, dir);
    EXPECT_FALSE(c->keyed_by_identity());
    EXPECT_NE(c->path(), key_path);
    EXPECT_FALSE(c->hit());
    const auto v = load(copy, dir);
    EXPECT_EQ(ids_of(v, "Hello"), ids_of(load(copy, ""), "Hello"));
    EXPECT_NE(ids_of(v, "Hello"), ids_of(load(data_dir() / "vocab" / "ggml-vocab-gpt-2.gguf", ""), "Hello"));
  }
  // buffers have no identity
  auto mem = gguf::file::from_bytes(std::as_bytes(std::span(bytes)));
  ASSERT_TRUE(mem);
  EXPECT_FALSE(mem->identity().has_value());
  EXPECT_FALSE(gguf::vocab_detail::table_cache::open(dir.string(), *mem)->keyed_by_identity());
}

TEST(TokenizerCache, AVerifiedFileIsNotHashedAgainUntilItChanges) {
  // After a hit whose hash found the payload whole, the file's verified record lets the
  // next opens skip the hash, until the file is written again: then it is hashed (and a
  // flipped bit found) whatever its modification time says. A file written too recently
  // gets no record; a damaged record is not used; pruning removes a file's record with it.
  GGUF_REQUIRE_DATA();
  const fs::path model = data_dir() / "vocab" / "ggml-vocab-qwen2.gguf";
  const fs::path dir = temp_dir() / "cache-verified";
  const std::string text = corpus_head(4 << 10);
  const auto want = ids_of(load(model, ""), text);
  (void)load(model, dir);  // builds and writes the cache file
  const fs::path bin = cache_files(dir).at(0);
  const fs::path record = fs::path(bin).replace_extension(".ok");
  {
    auto c = open_cache(model, dir);  // the file is not 2 s old: hashed, no record
    EXPECT_TRUE(c->hit());
    EXPECT_FALSE(c->vouched());
    EXPECT_FALSE(fs::exists(record));
  }
  // (a record needs the file's times older than any timestamp granularity: 50 ms here)
  const min_age age(50'000'000);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  {
    auto c = open_cache(model, dir);  // hashed, then recorded
    EXPECT_TRUE(c->hit());
    EXPECT_FALSE(c->vouched());
    ASSERT_TRUE(fs::exists(record));
  }
  const auto bin_time = fs::last_write_time(bin);
  {
    auto c = open_cache(model, dir);
    EXPECT_TRUE(c->hit());
    EXPECT_TRUE(c->vouched());
    const auto v = load(model, dir);
    EXPECT_TRUE(v.from_cache());
    EXPECT_EQ(ids_of(v, text), want);
  }
  EXPECT_EQ(fs::last_write_time(bin), bin_time) << "a use touches the record, not the file";
  // damaged records are not used: the payload is hashed again, and found whole
  const std::string good_record = gguf::test::read_text(record);
  for (std::string bad : {good_record.substr(0, 20), good_record + "x", "X" + good_record.substr(1), good_record}) {
    if (bad == good_record) bad[bad.size() - 1] ^= 1;  // another checksum
    write_file(record, bad);
    auto c = open_cache(model, dir);
    EXPECT_TRUE(c->hit());
    EXPECT_FALSE(c->vouched());
  }
  write_file(record, good_record);
  ASSERT_TRUE(open_cache(model, dir)->vouched());
  // one flipped bit, the modification time put back: the change time still moved
  const std::string good = gguf::test::read_text(bin);
  std::string bad = good;
  bad[good.size() / 2] ^= 0x40;
  write_file(bin, bad);
  fs::last_write_time(bin, bin_time);
  {
    auto c = open_cache(model, dir);
    EXPECT_FALSE(c->vouched());
    EXPECT_FALSE(c->hit());
    EXPECT_EQ(c->why_miss(), "checksum mismatch");
  }
  const auto v = load(model, dir);  // rebuilt
  EXPECT_FALSE(v.from_cache());
  EXPECT_EQ(ids_of(v, text), want);
  EXPECT_EQ(gguf::test::read_text(bin), good);
  // pruning a file removes its record
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  ASSERT_TRUE(open_cache(model, dir)->hit());
  ASSERT_TRUE(fs::exists(record));
  setenv("GGUF_CACHE_MAX_MB", "0", 1);
  (void)load(data_dir() / "vocab" / "ugm-sp-test.gguf", dir);  // a write prunes the others
  unsetenv("GGUF_CACHE_MAX_MB");
  EXPECT_FALSE(fs::exists(bin));
  EXPECT_FALSE(fs::exists(record));
}

TEST(TokenizerCache, AFifoUnderACacheNameIsNotWaitedFor) {
  // A FIFO (no writer) where the cache file or the identity record should be: the open
  // must neither block nor use it; the load builds its tables and gives the same ids.
  GGUF_REQUIRE_DATA();
  const min_age now(0);
  const fs::path model = data_dir() / "vocab" / "ugm-sp-test.gguf";
  const fs::path dir = temp_dir() / "cache-fifo";
  const std::string cache_path = open_cache(model, dir)->path();  // records the identity
  ASSERT_EQ(ident_files(dir).size(), 1u);
  const fs::path record = ident_files(dir).at(0);
  fs::remove(record);
  ASSERT_EQ(mkfifo(record.c_str(), 0644), 0);
  fs::remove(cache_path);
  ASSERT_EQ(mkfifo(cache_path.c_str(), 0644), 0);
  auto c = open_cache(model, dir);
  EXPECT_FALSE(c->keyed_by_identity());
  EXPECT_FALSE(c->hit());
  EXPECT_EQ(c->path(), cache_path);
  const auto v = load(model, dir);
  EXPECT_FALSE(v.from_cache());
  EXPECT_EQ(ids_of(v, "Hello world"), ids_of(load(model, ""), "Hello world"));
}

TEST(TokenizerCache, IdentityRecordsAreKeptToTheirCap) {
  GGUF_REQUIRE_DATA();
  const fs::path dir = gguf::test::fresh_dir("cache-ident-cap");
  const size_t cap = gguf::vocab_detail::max_ident_files;
  // old records, then a load that writes a cache file (the prune runs after a write)
  // (names as the disk cache gives them: ident-<32 hex digits>.key)
  const auto name = [](size_t i) {
    char hex[33];
    std::snprintf(hex, sizeof hex, "%032zx", i);
    return "ident-" + std::string(hex) + ".key";
  };
  for (size_t i = 0; i < cap + 10; ++i) {
    const fs::path p = dir / name(i);
    write_file(p, std::string(32, 'x'));
    fs::last_write_time(p, fs::file_time_type::clock::now() - std::chrono::hours(1) + std::chrono::seconds(i));
  }
  const min_age now(0);
  (void)load(data_dir() / "vocab" / "ugm-sp-test.gguf", dir);
  const auto records = ident_files(dir);
  EXPECT_EQ(records.size(), cap);
  EXPECT_FALSE(fs::exists(dir / name(0))) << "the least recently used go";
  EXPECT_TRUE(fs::exists(dir / name(cap + 9)));
}

// prefaulted_table (prefault.h) writes nothing over a fresh mapping when the fill is all
// zero bytes; any other table must still hold n copies of the fill: small tables (reused
// heap memory, dirtied first), large ones (fresh mappings), zero and nonzero fills.
TEST(TokenizerTables, PrefaultedTablesHoldTheirFill) {
  using gguf::vocab_detail::prefaulted_table;
  for (size_t n : {size_t(1000), size_t(70000), size_t(1) << 20}) {
    {
      auto dirty = prefaulted_table<uint32_t>(n, 0xA5A5A5A5u);  // leaves dirty memory behind
      ASSERT_TRUE(std::all_of(dirty.begin(), dirty.end(), [](uint32_t x) { return x == 0xA5A5A5A5u; })) << n;
    }
    const auto zero = prefaulted_table<uint32_t>(n, 0);
    ASSERT_EQ(zero.size(), n);
    ASSERT_TRUE(std::all_of(zero.begin(), zero.end(), [](uint32_t x) { return x == 0; })) << n;
    const auto ones = prefaulted_table<int32_t>(n, -1);
    ASSERT_TRUE(std::all_of(ones.begin(), ones.end(), [](int32_t x) { return x == -1; })) << n;
  }
}
