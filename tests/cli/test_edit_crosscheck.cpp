// Edited files read by a reader that is not ours: @huggingface/gguf (npm, installed in
// tests/js by scripts/bootstrap.sh). On a copy of every model of the test data: a batch
// of 10 edits in one `gguf edit` run (a string shorter and one longer than before, a
// 20 KB chat template from a file, a string array, an array of arrays, uint64, float32,
// bool, a float array, a removal) — a streamed rewrite; then a batch that shrinks the
// metadata — in place. After each, @huggingface/gguf reads every new value and the
// same tensors at the same offsets, and every tensor's bytes are the original's.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "gguf/file.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::test::data_file;
using gguf::test::run_cli;
using json = nlohmann::json;

namespace {

fs::path js_dir() { return fs::path(GGUF_SOURCE_DIR) / "tests" / "js"; }

// What @huggingface/gguf reads (tests/js/read_gguf.mjs), or null if it cannot run.
json hf_read(const fs::path& file) {
  std::string cmd = "cd '" + js_dir().string() + "' && node read_gguf.mjs '" + file.string() + "' 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  std::array<char, 65536> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p.get())) > 0) out.append(buf.data(), n);
  auto j = json::parse(out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << file << ": " << out.substr(0, 500);
  return j;
}

// Tensor names, types, offsets and the data offset as @huggingface/gguf reads them
// equal ours; every tensor's bytes equal the original's.
void expect_same_tensors(const json& hf, const gguf::file& f, const gguf::file& original, const std::string& name) {
  EXPECT_EQ(hf["tensor_data_offset"].get<std::string>(), std::to_string(f.data_offset())) << name;
  ASSERT_EQ(hf["tensors"].size(), f.tensor_count()) << name;
  ASSERT_EQ(original.tensor_count(), f.tensor_count()) << name;
  for (size_t i = 0; i < f.tensor_count(); ++i) {
    const auto& t = f.tensors()[i];
    const auto& h = hf["tensors"][i];
    EXPECT_EQ(h["name"].get<std::string>(), t.name) << name;
    EXPECT_EQ(h["dtype"].get<int>(), static_cast<int>(t.type)) << name << " " << t.name;
    EXPECT_EQ(h["offset"].get<std::string>(), std::to_string(t.offset)) << name << " " << t.name;
    const auto& o = original.tensors()[i];
    ASSERT_EQ(o.nbytes, t.nbytes);
    EXPECT_EQ(std::memcmp(o.data.data(), t.data.data(), t.nbytes), 0) << name << " " << t.name;
  }
}

ino_t inode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0);
  return st.st_ino;
}

}  // namespace

TEST(EditCrossCheck, HuggingFaceGgufReadsEveryEditOfEveryModel) {
  GGUF_REQUIRE_DATA();
  if (std::system("node --version >/dev/null 2>&1") != 0 || !fs::exists(js_dir() / "node_modules" / "@huggingface" / "gguf")) {
    GTEST_SKIP() << "@huggingface/gguf is not installed (node + npm ci in tests/js: scripts/bootstrap.sh does it)";
  }
  auto dir = gguf::test::temp_dir() / "crosscheck";
  fs::create_directories(dir);
  std::string tmpl;
  while (tmpl.size() < 20000) {
    tmpl += "{% for message in messages %}<|{{ message['role'] }}|>\n{{ message['content'] }}</s>\n{% endfor %}\n";
  }
  std::ofstream(dir / "template.jinja", std::ios::binary) << tmpl;
  const std::string longer(300, 'L');
  size_t models = 0;
  for (const auto& e : fs::directory_iterator(data_file("models"))) {
    if (e.path().extension() != ".gguf") continue;
    const std::string name = e.path().filename().string();
    auto original = gguf::file::open(e.path());
    ASSERT_TRUE(original.ok()) << name;
    auto path = dir / name;
    fs::copy_file(e.path(), path, fs::copy_options::overwrite_existing);
    fs::permissions(path, fs::perms::owner_write, fs::perm_options::add);

    std::string removed;
    for (const char* k : {"tokenizer.ggml.padding_token_id", "general.quantization_version"}) {
      if (original->find(k)) {
        removed = k;
        break;
      }
    }
    std::vector<std::string> args = {"edit", path.string(),
                                     "--set", "general.name=n",  // shorter than before (or new)
                                     "--set", "general.basename=" + longer,
                                     "--set-file", "tokenizer.chat_template=" + (dir / "template.jinja").string(),
                                     "--set-json", "my.tags=[\"alpha\",\"beta\",\"gamma\"]",
                                     "--set-json", "my.matrix=[[1,2,3],[4,5,6]]",
                                     "--set", "my.count:uint64=12345678901234",
                                     "--set", "my.ratio:float32=0.25",
                                     "--set", "my.flag:bool=true",
                                     "--set-json", "my.floats=[1.5,-2.25]"};
    if (!removed.empty()) {
      args.insert(args.end(), {"--rm", removed});
    } else {
      args.insert(args.end(), {"--set", "general.description=a tenth edit"});  // nothing to remove yet
    }
    auto r = run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find("rewritten"), std::string::npos) << name << ": " << r.out;  // grew by 20 KB

    json hf = hf_read(path);
    ASSERT_TRUE(hf.contains("kv")) << name;
    const auto& kv = hf["kv"];
    EXPECT_EQ(kv["general.name"]["value"], "n") << name;
    EXPECT_EQ(kv["general.basename"]["value"], longer) << name;
    EXPECT_EQ(kv["tokenizer.chat_template"]["value"], tmpl) << name;
    EXPECT_EQ(kv["my.tags"]["value"], json::parse(R"(["alpha","beta","gamma"])")) << name;
    EXPECT_EQ(kv["my.matrix"]["value"], json::parse("[[1,2,3],[4,5,6]]")) << name;
    EXPECT_EQ(kv["my.count"]["value"], "12345678901234") << name;  // uint64: a BigInt
    EXPECT_EQ(kv["my.count"]["type"], 10) << name;
    EXPECT_EQ(kv["my.ratio"]["value"], 0.25) << name;
    EXPECT_EQ(kv["my.flag"]["value"], true) << name;
    EXPECT_EQ(kv["my.floats"]["value"], json::parse("[1.5,-2.25]")) << name;
    if (!removed.empty()) {
      EXPECT_FALSE(kv.contains(removed)) << name;
    }
    auto edited = gguf::file::open(path);
    ASSERT_TRUE(edited.ok()) << name;
    expect_same_tensors(hf, *edited, *original, name);

    // A batch that shrinks the metadata: in place (same inode, data section untouched).
    auto before = gguf::test::read_bytes(path);
    auto ino = inode_of(path);
    r = run_cli({"edit", path.string(), "--rm", "tokenizer.chat_template", "--rm", "my.tags", "--set",
                 "general.basename=b"});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find("edited in place"), std::string::npos) << name << ": " << r.out;
    EXPECT_EQ(inode_of(path), ino) << name;
    auto after = gguf::test::read_bytes(path);
    ASSERT_EQ(after.size(), before.size()) << name;
    EXPECT_EQ(std::memcmp(after.data() + edited->data_offset(), before.data() + edited->data_offset(),
                          after.size() - edited->data_offset()),
              0)
        << name;
    hf = hf_read(path);
    EXPECT_FALSE(hf["kv"].contains("tokenizer.chat_template")) << name;
    EXPECT_FALSE(hf["kv"].contains("my.tags")) << name;
    EXPECT_EQ(hf["kv"]["general.basename"]["value"], "b") << name;
    EXPECT_EQ(hf["kv"]["my.count"]["value"], "12345678901234") << name;
    auto shrunk = gguf::file::open(path);
    ASSERT_TRUE(shrunk.ok()) << name;
    expect_same_tensors(hf, *shrunk, *original, name);
    ++models;
  }
  EXPECT_GE(models, 12u);
}
