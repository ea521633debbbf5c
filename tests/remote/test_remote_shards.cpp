// A model split in three shards (PREFIX-0000N-of-00003.gguf with llama.cpp's split.* keys,
// made here with the writer from a real model) served by nginx: each shard's URL reads
// exactly as its local path does (the whole set: any shard opens the split model), for
// every read command, hash and estimate included.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>

#include "gguf/file.h"
#include "gguf/model_files.h"
#include "gguf/writer.h"
#include "nginx_server.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::test::data_dir;
using gguf::test::data_file;
using gguf::test::run_gguf;

namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size()) s.replace(p, from.size(), to);
  return s;
}

// Writes `src` as three shards into `dir` (readable by everyone, for nginx): all metadata in the first, the tensors in
// three runs, split.no / split.count / split.tensors.count in each (gguf-split's layout).
std::vector<std::string> write_shards(const gguf::file& src, const fs::path& dir, const std::string& prefix) {
  const size_t n = src.tensor_count(), per = (n + 2) / 3;
  std::vector<std::string> names;
  for (uint16_t s = 0; s < 3; ++s) {
    gguf::writer w;
    if (s == 0) {
      for (const auto& kv : src.kvs()) EXPECT_TRUE(w.set(kv.key, gguf::value::copy_of(kv.value)));
    }
    EXPECT_TRUE(w.set("split.no", gguf::value::u16(s)));
    EXPECT_TRUE(w.set("split.count", gguf::value::u16(3)));
    EXPECT_TRUE(w.set("split.tensors.count", gguf::value::i32(static_cast<int32_t>(n))));
    for (size_t i = s * per; i < std::min(n, (s + 1) * per); ++i) {
      const auto& t = src.tensors()[i];
      EXPECT_TRUE(w.add_tensor(t.name, t.type, std::span<const uint64_t>(t.ne.data(), t.n_dims), t.data));
    }
    char name[64];
    std::snprintf(name, sizeof name, "%s-%05d-of-%05d.gguf", prefix.c_str(), s + 1, 3);
    EXPECT_TRUE(w.write_file(dir / name));
    fs::permissions(dir / name, fs::perms::others_read, fs::perm_options::add);  // nginx's worker reads it
    names.push_back(name);
  }
  return names;
}

// stories260K-Q8_0 in three shards (write_shards) in the scratch folder of an nginx server.
class RemoteShards : public ::testing::Test {
 protected:
  void SetUp() override {
    GGUF_REQUIRE_DATA();
    server = std::make_unique<gguf::test::nginx_server>(data_dir());
    ASSERT_TRUE(server->started()) << server->why_not();
    auto f = gguf::file::open(data_file("models/stories260K-Q8_0.gguf"));
    ASSERT_TRUE(f);
    src.emplace(std::move(*f));
    names = write_shards(*src, server->scratch(), "stories260K-Q8_0");
  }

  std::unique_ptr<gguf::test::nginx_server> server;
  std::optional<gguf::file> src;
  std::vector<std::string> names;
};

}  // namespace

TEST_F(RemoteShards, EveryShardUrlReadsAsItsPath) {
  const std::string last_tensor(src->tensors().back().name);
  for (const auto& n : names) {
    std::string local = (server->scratch() / n).string(), remote = server->base() + "/mutable/" + n;
    for (std::vector<std::string> cmd : {std::vector<std::string>{"dump", "--json", "--full-arrays"},
                                         {"info", "--json"},
                                         {"validate", "--json"},
                                         {"dequantize", "@", last_tensor},
                                         {"tokenize", "-m", "@", "Once upon a time"},
                                         {"embed", "-m", "@", "Once upon a time"},
                                         {"hash", "--all", "--uuid"},
                                         {"estimate", "--json", "--ctx-size", "300"}}) {
      auto la = cmd, ra = cmd;
      auto at = std::find(la.begin(), la.end(), "@");
      if (at == la.end()) {
        la.push_back(local);
        ra.push_back(remote);
      } else {
        *at = local;
        ra[at - la.begin()] = remote;
      }
      auto l = run_gguf(la), r = run_gguf(ra);
      EXPECT_EQ(l.exit_code, r.exit_code) << n << " " << cmd[0] << "\n" << l.err << r.err;
      EXPECT_EQ(l.out, replace_all(r.out, remote, local)) << n << " " << cmd[0];
      EXPECT_EQ(l.err, replace_all(r.err, remote, local)) << n << " " << cmd[0];
    }
  }
}

// validate opens the other shards of a split model with the command's remote options:
// behind a server that wants a token, --header reaches every shard (rule split.set).
TEST_F(RemoteShards, ValidateOpensTheOtherShardsWithTheRemoteOptions) {
  const std::string local = (server->scratch() / names[0]).string();
  const std::string remote = server->base() + "/authmutable/" + names[0];
  const auto l = run_gguf({"validate", "--json", local});
  const auto r = run_gguf({"validate", "--json", remote, "--header", "Authorization: Bearer test-token"});
  EXPECT_EQ(r.exit_code, l.exit_code) << r.err;
  EXPECT_EQ(replace_all(r.out, remote, local), l.out);
  EXPECT_EQ(r.out.find("split.set"), std::string::npos) << r.out;
  const auto no_token = run_gguf({"validate", "--json", remote});
  EXPECT_NE(no_token.exit_code, 0);
}

// file::open_all opens the shards' URLs at once (one thread each): one request per shard,
// the same metadata and tensors as the local shards.
TEST_F(RemoteShards, OpenAllFetchesShardsInParallel) {
  std::vector<std::string> urls;
  for (const auto& n : names) urls.push_back(server->base() + "/mutable/" + n);
  server->take_log();
  auto files = gguf::file::open_all(urls);
  ASSERT_EQ(files.size(), 3u);
  size_t tensors = 0;
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(files[i]) << files[i].error().message();
    auto local = gguf::file::open(server->scratch() / names[i]);
    ASSERT_TRUE(local);
    EXPECT_EQ(files[i]->kv_count(), local->kv_count());
    ASSERT_EQ(files[i]->tensor_count(), local->tensor_count());
    EXPECT_EQ(files[i]->get_uint("split.no").value(), i);
    for (size_t t = 0; t < local->tensor_count(); ++t) {
      EXPECT_EQ(files[i]->tensors()[t].name, local->tensors()[t].name);
      EXPECT_EQ(files[i]->tensors()[t].offset, local->tensors()[t].offset);
    }
    tensors += local->tensor_count();
  }
  EXPECT_EQ(tensors, src->tensor_count());
  auto log = server->take_log();
  EXPECT_EQ(log.size(), 3u);  // one request per shard (each fits the first request)
}

// A split model's merged view holds tensors of every shard: its fetch reaches the shard
// whose bytes a view is (the merged file knows its shards; there is no process-wide
// registry of remote files).
TEST_F(RemoteShards, FetchReachesTheFileHoldingTheView) {
  gguf::remote_options o;
  o.first_request = 16384;  // the tensor data stays remote
  auto first = gguf::file::open_url(server->base() + "/mutable/" + names[0], o);
  ASSERT_TRUE(first);
  auto m = gguf::model_files::from_file(*first, [&](const std::string& u) { return gguf::file::open_url(u, o); });
  ASSERT_TRUE(m) << m.error().message();
  ASSERT_EQ(m->shard_count(), 3u);
  const gguf::file& merged = m->merged();
  const gguf::file& third = m->shards()[2];
  const auto& t = third.tensors().back();
  const auto* mt = merged.find_tensor(t.name);
  ASSERT_NE(mt, nullptr);
  ASSERT_EQ(mt->data.data(), t.data.data());  // the merged view's tensor is the shard's bytes
  const uint64_t off = static_cast<uint64_t>(t.data.data() - third.bytes().data());
  ASSERT_FALSE(third.resident(off, t.nbytes));
  server->take_log();
  ASSERT_TRUE(merged.fetch(mt->data));  // through the merged view
  EXPECT_TRUE(third.resident(off, t.nbytes));
  auto log = server->take_log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].uri, "/mutable/" + names[2]);
  EXPECT_EQ(log[0].bytes, t.nbytes);
  const auto* want = src->find_tensor(t.name);
  ASSERT_NE(want, nullptr);
  EXPECT_EQ(std::memcmp(t.data.data(), want->data.data(), t.nbytes), 0);
  // Released (streaming), then fetched again: one more request, the same bytes.
  merged.release(mt->data);  // (whole pages only: a small tensor may stay)
  ASSERT_TRUE(merged.fetch(mt->data));
  EXPECT_EQ(std::memcmp(t.data.data(), want->data.data(), t.nbytes), 0);
  EXPECT_LE(server->take_log().size(), 1u);
}
