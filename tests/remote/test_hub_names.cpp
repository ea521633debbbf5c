// Models by hub name (gguf/remote.h, docs/remote.md): the name parser, the file choice
// llama-server -hf makes (tables of file listings), and the CLI against a mimic of the
// Hugging Face hub served by nginx (nginx_server.h): static model-API answers, a
// redirect to a CDN on another host name, a gated repository, a missing quant, a
// sharded quant, a revision, the listing asked once per run and revalidated from the cache.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gguf/remote.h"
#include "nginx_server.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::test::data_dir;
using gguf::test::nginx_server;
using gguf::test::run_gguf;

namespace {

TEST(hub_name, parses_the_forms) {
  auto n = gguf::parse_hub_name("hf://unsloth/Qwen3-8B-GGUF:UD-Q4_K_XL");
  ASSERT_TRUE(n) << n.error().message();
  EXPECT_EQ(n->repo, "unsloth/Qwen3-8B-GGUF");
  EXPECT_EQ(n->quant, "UD-Q4_K_XL");
  EXPECT_EQ(n->revision, "main");
  EXPECT_EQ(n->file, "");
  n = gguf::parse_hub_name("HF://o/r@v1.0/sub/dir/m-Q8_0.gguf");
  ASSERT_TRUE(n) << n.error().message();
  EXPECT_EQ(n->repo, "o/r");
  EXPECT_EQ(n->revision, "v1.0");
  EXPECT_EQ(n->file, "sub/dir/m-Q8_0.gguf");
  n = gguf::parse_hub_name("hf://o/r@refs%2Fpr%2F3:q4_0");
  ASSERT_TRUE(n) << n.error().message();
  EXPECT_EQ(n->revision, "refs%2Fpr%2F3");
  EXPECT_EQ(n->quant, "q4_0");
  n = gguf::parse_hub_name("hf://o/r");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->quant, "");
  for (const char* bad : {"hf://", "hf://o", "hf://o/", "hf:///r", "hf://o/r:", "hf://o/r@", "hf://o/r/x.bin",
                          "hf://o/r/../x.gguf", "hf://o/r:Q4 K", "hf://o/r:Q4/m.gguf", "hf://o o/r", "hf://o/r/",
                          "hf://../r:Q4_0", "http://o/r"}) {
    auto e = gguf::parse_hub_name(bad);
    EXPECT_FALSE(e) << bad;
    if (!e) {
      EXPECT_EQ(e.error().code, gguf::errc::io_error) << bad;
    }
  }
  EXPECT_TRUE(gguf::is_hub_name("Hf://x/y"));
  EXPECT_TRUE(gguf::is_remote("hf://x/y"));
  EXPECT_TRUE(gguf::is_remote("https://x/y"));
  EXPECT_FALSE(gguf::is_remote("hf:/x/y"));
}

// Listings in, files out, the way llama.cpp's find_best_model and get_split_files choose.
TEST(hub_name, selects_as_llama_server_does) {
  const std::vector<std::string> repo = {
      "README.md",
      "mmproj-Model-F16.gguf",
      "Model-Q8_0.gguf",
      "Model-IQ4_XS.gguf",
      "Model-UD-Q4_K_XL.gguf",
      "Q4_K_M/Model-Q4_K_M-00002-of-00002.gguf",
      "Q4_K_M/Model-Q4_K_M-00001-of-00002.gguf",
      "imatrix_unsloth.gguf_file",
      "Model.imatrix.gguf",
  };
  struct row {
    std::string quant;
    std::vector<std::string> want;
  } rows[] = {
      {"", {"Q4_K_M/Model-Q4_K_M-00001-of-00002.gguf", "Q4_K_M/Model-Q4_K_M-00002-of-00002.gguf"}},  // default
      {"q8_0", {"Model-Q8_0.gguf"}},
      {"UD-Q4_K_XL", {"Model-UD-Q4_K_XL.gguf"}},
      {"Q4_K_XL", {"Model-UD-Q4_K_XL.gguf"}},
      {"iq4_xs", {"Model-IQ4_XS.gguf"}},
      {"q4_k_m", {"Q4_K_M/Model-Q4_K_M-00001-of-00002.gguf", "Q4_K_M/Model-Q4_K_M-00002-of-00002.gguf"}},
  };
  for (const auto& r : rows) {
    auto got = gguf::select_hub_files(repo, r.quant);
    ASSERT_TRUE(got) << r.quant << ": " << got.error().message();
    EXPECT_EQ(*got, r.want) << r.quant;
  }
  // without Q4_K_M the default is Q8_0, without both the first model file
  std::vector<std::string> no_q4(repo.begin(), repo.begin() + 5);
  EXPECT_EQ(*gguf::select_hub_files(no_q4, ""), std::vector<std::string>{"Model-Q8_0.gguf"});
  const std::vector<std::string> plain = {"mmproj-x-F16.gguf", "x-F16.gguf", "x-BF16.gguf"};
  EXPECT_EQ(*gguf::select_hub_files(plain, ""), std::vector<std::string>{"x-F16.gguf"});
  // a quant the repository does not have: one line with the ones it has (projectors and
  // importance matrices are not models)
  auto none = gguf::select_hub_files(repo, "Q5_K_M");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().detail, "no file for quant Q5_K_M; its quants: IQ4_XS, Q4_K_M, Q4_K_XL, Q8_0");
  auto empty = gguf::select_hub_files(std::vector<std::string>{"README.md", "mmproj-F16.gguf"}, "");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().detail, "no GGUF model file");
}

// ---- against the hub mimic ----

nginx_server* server() {
  static std::unique_ptr<nginx_server> s;
  if (!s && !data_dir().empty()) s = std::make_unique<nginx_server>(data_dir());
  return s.get();
}

void link_file(const fs::path& target, const fs::path& link) {
  fs::create_directories(link.parent_path());
  std::error_code ec;
  fs::remove(link, ec);
  fs::create_symlink(target, link);
}

void write_api(const std::string& repo, const std::string& rev, const std::string& sha,
               const std::vector<std::string>& files) {
  nlohmann::json j;
  j["id"] = repo;
  j["sha"] = sha;
  j["siblings"] = nlohmann::json::array();
  for (const auto& f : files) j["siblings"].push_back({{"rfilename", f}});
  const fs::path p = server()->scratch() / "hub/api/models" / repo / "revision" / rev;
  fs::create_directories(p.parent_path());
  std::ofstream(p) << j.dump();
}

// The mimic's repositories, made once: test/tiny-GGUF (three quants of stories260K, a
// projector, and a v1 revision with one file), test/split-GGUF (a Q4_K_M split in two by
// our split command, and a Q8_0), gated/secret-GGUF.
void make_hub() {
  static bool made = false;
  if (made) return;
  made = true;
  const fs::path files = server()->scratch() / "hub/files";
  const fs::path models = data_dir() / "models";
  for (const char* q : {"Q4_0", "Q8_0", "F16"})
    link_file(models / ("stories260K-" + std::string(q) + ".gguf"),
              files / "test/tiny-GGUF" / ("stories260K-" + std::string(q) + ".gguf"));
  link_file(models / "stories260K-Q5_0.gguf", files / "test/tiny-GGUF/stories260K-UD-Q4_K_XL.gguf");
  link_file(models / "stories260K.gguf", files / "test/tiny-GGUF/mmproj-stories260K-F16.gguf");
  write_api("test/tiny-GGUF", "main", "1111111111111111111111111111111111111111",
            {"README.md", "mmproj-stories260K-F16.gguf", "stories260K-F16.gguf", "stories260K-Q4_0.gguf",
             "stories260K-Q8_0.gguf", "stories260K-UD-Q4_K_XL.gguf"});
  write_api("test/tiny-GGUF", "v1", "2222222222222222222222222222222222222222", {"stories260K-Q4_0.gguf"});
  fs::create_directories(files / "test/split-GGUF");
  auto r = run_gguf({"split", (models / "synth-llama-256-Q4_K_M.gguf").string(),
                     (files / "test/split-GGUF/synth-Q4_K_M").string(), "--split-max-tensors", "6"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  link_file(models / "synth-llama-256-Q4_K_M.gguf", files / "test/split-GGUF/synth-Q8_0.gguf");
  std::vector<std::string> split_files = {"synth-Q8_0.gguf"};
  for (const auto& e : fs::directory_iterator(files / "test/split-GGUF"))
    if (e.path().filename().string().starts_with("synth-Q4_K_M-")) split_files.push_back(e.path().filename().string());
  ASSERT_GE(split_files.size(), 3u);
  write_api("test/split-GGUF", "main", "3333333333333333333333333333333333333333", split_files);
  link_file(models / "stories260K-Q8_0.gguf", files / "gated/secret-GGUF/secret-Q8_0.gguf");
  write_api("gated/secret-GGUF", "main", "4444444444444444444444444444444444444444", {"secret-Q8_0.gguf"});
}

#define REQUIRE_HUB()                                                   \
  GGUF_REQUIRE_DATA();                                                  \
  ASSERT_TRUE(server()->started()) << server()->why_not();              \
  make_hub();                                                           \
  server()->take_log()

std::vector<std::string> hub_env() {
  return {"GGUF_HF_ENDPOINT=" + server()->base() + "/hub", "HF_TOKEN=", "HF_ENDPOINT="};
}

std::string info_json(const std::string& path, std::vector<std::string> extra = {}, std::vector<std::string> env = {}) {
  std::vector<std::string> args = {"info", "--json", path};
  args.insert(args.end(), extra.begin(), extra.end());
  auto e = hub_env();
  e.insert(e.end(), env.begin(), env.end());
  auto r = run_gguf(args, e);
  EXPECT_EQ(r.exit_code, 0) << path << ": " << r.err;
  return r.out;
}

size_t count_uri(const std::vector<gguf::test::access_entry>& log, const std::string& part) {
  size_t n = 0;
  for (const auto& e : log) n += e.uri.find(part) != std::string::npos;
  return n;
}

TEST(hub_name_cli, quant_tags_pick_files_through_the_cdn) {
  REQUIRE_HUB();
  const fs::path models = data_dir() / "models";
  // a tag, case-insensitive, reads the file it names: same info as the local file
  struct row {
    std::string name, local;
  } rows[] = {
      {"hf://test/tiny-GGUF:q4_0", "stories260K-Q4_0.gguf"},
      {"hf://test/tiny-GGUF:Q8_0", "stories260K-Q8_0.gguf"},
      {"hf://test/tiny-GGUF:ud-q4_k_xl", "stories260K-Q5_0.gguf"},
      {"hf://test/tiny-GGUF", "stories260K-Q8_0.gguf"},  // no Q4_K_M: Q8_0
      {"hf://test/tiny-GGUF/stories260K-F16.gguf", "stories260K-F16.gguf"},
      {"hf://test/tiny-GGUF@v1:Q4_0", "stories260K-Q4_0.gguf"},
  };
  for (const auto& r : rows) {
    auto want = run_gguf({"info", "--json", (models / r.local).string()});
    auto got = info_json(r.name);
    EXPECT_EQ(nlohmann::json::parse(got)["kv_count"], nlohmann::json::parse(want.out)["kv_count"]) << r.name;
    EXPECT_EQ(nlohmann::json::parse(got)["file_type_name"], nlohmann::json::parse(want.out)["file_type_name"])
        << r.name;
    EXPECT_EQ(nlohmann::json::parse(got)["metadata_size"], nlohmann::json::parse(want.out)["metadata_size"]) << r.name;
    const auto log = server()->take_log();
    // the API once for a tag (never for a file), the resolve redirect, the CDN
    EXPECT_EQ(count_uri(log, "/hub/api/"), r.name.ends_with(".gguf") ? 0u : 1u) << r.name;
    EXPECT_GE(count_uri(log, std::string("/cdn/test/tiny-GGUF/") + (r.name.ends_with(".gguf") ? "stories260K-F16.gguf" : "")),
              1u)
        << r.name;
    for (const auto& e : log) EXPECT_LT(e.status, 400) << e.uri;
    // the listing's commit is in the resolve URL
    if (r.name.find("@v1") != std::string::npos) {
      EXPECT_EQ(count_uri(log, "/resolve/2222222222"), 1u);
    } else if (!r.name.ends_with(".gguf")) {
      EXPECT_EQ(count_uri(log, "/resolve/1111111111"), 1u) << r.name;
    }
  }
}

TEST(hub_name_cli, a_missing_quant_lists_the_quants) {
  REQUIRE_HUB();
  auto r = run_gguf({"info", "hf://test/tiny-GGUF:Q5_K_M"}, hub_env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "gguf: hf://test/tiny-GGUF:Q5_K_M: no file for quant Q5_K_M in test/tiny-GGUF; its quants: F16, "
                   "Q4_0, Q4_K_XL, Q8_0\n");
  r = run_gguf({"info", "hf://test/no-such-GGUF:Q4_0"}, hub_env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no repository test/no-such-GGUF at revision main (HTTP 404"), std::string::npos) << r.err;
  r = run_gguf({"info", "hf://test/tiny-GGUF/missing-Q4_0.gguf"}, hub_env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "gguf: hf://test/tiny-GGUF/missing-Q4_0.gguf: not found (HTTP 404)\n");
  r = run_gguf({"info", "hf://test"}, hub_env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("expected hf://OWNER/REPO[@REV]/FILE.gguf or hf://OWNER/REPO[@REV][:QUANT]"), std::string::npos)
      << r.err;
}

TEST(hub_name_cli, a_sharded_quant_reads_its_set_with_one_listing) {
  REQUIRE_HUB();
  const std::string local = (data_dir() / "models/synth-llama-256-Q4_K_M.gguf").string();
  auto want = nlohmann::json::parse(run_gguf({"info", "--json", local}).out);
  auto got = nlohmann::json::parse(info_json("hf://test/split-GGUF"));  // default: Q4_K_M, split
  EXPECT_EQ(got["tensor_count"], want["tensor_count"]);
  EXPECT_EQ(got["parameters"], want["parameters"]);
  const auto log = server()->take_log();
  EXPECT_EQ(count_uri(log, "/hub/api/"), 1u);  // once per run
  EXPECT_GE(count_uri(log, "synth-Q4_K_M-00001-of-"), 2u);  // resolve + CDN
  EXPECT_GE(count_uri(log, "synth-Q4_K_M-00002-of-"), 2u);
  // tokenize through the hub equals the local file
  auto a = run_gguf({"tokenize", "-m", "hf://test/split-GGUF:Q4_K_M", "Hello world"}, hub_env());
  auto b = run_gguf({"tokenize", "-m", local, "Hello world"});
  EXPECT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
}

TEST(hub_name_cli, a_gated_repository_needs_a_token_the_cdn_never_sees) {
  REQUIRE_HUB();
  auto r = run_gguf({"info", "hf://gated/secret-GGUF:Q8_0"}, hub_env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("access denied (HTTP 401)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--hf-token"), std::string::npos) << r.err;
  r = run_gguf({"info", "hf://gated/secret-GGUF:Q8_0", "--hf-token", "wrong"}, hub_env());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  server()->take_log();
  // the token goes to the hub, not to the CDN (which answers 403 to any Authorization)
  info_json("hf://gated/secret-GGUF:Q8_0", {"--hf-token", "test-token"});
  auto log = server()->take_log();
  EXPECT_GE(count_uri(log, "/cdn/gated/secret-GGUF/secret-Q8_0.gguf"), 1u);
  for (const auto& e : log) EXPECT_LT(e.status, 400) << e.uri;
  info_json("hf://gated/secret-GGUF", {}, {"HF_TOKEN=test-token"});
  for (const auto& e : server()->take_log()) EXPECT_LT(e.status, 400) << e.uri;
}

TEST(hub_name_cli, the_cache_revalidates_the_listing) {
  REQUIRE_HUB();
  const fs::path cache = gguf::test::temp_dir() / "hub-cache";
  fs::remove_all(cache);
  info_json("hf://test/tiny-GGUF:Q4_0", {"--cache", cache.string()});
  auto first = server()->take_log();
  info_json("hf://test/tiny-GGUF:Q4_0", {"--cache", cache.string()});
  auto second = server()->take_log();
  size_t api_304 = 0, api_200 = 0;
  for (const auto& e : first) api_200 += e.uri.find("/hub/api/") != std::string::npos && e.status == 200;
  for (const auto& e : second) api_304 += e.uri.find("/hub/api/") != std::string::npos && e.status == 304;
  EXPECT_EQ(api_200, 1u);
  EXPECT_EQ(api_304, 1u);
  fs::remove_all(cache);
}

}  // namespace
