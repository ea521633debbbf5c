// `gguf diff` end to end: edited copies (each kind of metadata change, made with `gguf edit`;
// tensor changes written with gguf::writer), two quantizations of one model (every tensor of
// another type changed, NMSE against a computation of its own here, the unchanged ones equal
// byte for byte), a file against itself, a shard set against its merged file, threads and
// chunk sizes, usage errors. The NMSE against numpy: tests/cli/diff_numpy.py (ctest diff_numpy).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "gguf/file.h"
#include "gguf/quant.h"
#include "gguf/writer.h"
#include "test_support.h"

using gguf::test::data_file;
using gguf::test::run_cli;
using gguf::test::temp_dir;
using nlohmann::json;

namespace {

const std::string stories = "models/stories260K.gguf";

// A copy of stories260K edited by `gguf edit -o` with `edits`.
std::string edited(const std::string& name, const std::vector<std::string>& edits) {
  const auto out = (temp_dir() / (name + ".gguf")).string();
  std::vector<std::string> args = {"edit", data_file(stories).string(), "-o", out, "-q", "--force"};
  args.insert(args.end(), edits.begin(), edits.end());
  auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out;
}

json diff_json(const std::vector<std::string>& args, int want_exit) {
  std::vector<std::string> a = {"diff", "--json"};
  a.insert(a.end(), args.begin(), args.end());
  auto r = run_cli(a);
  EXPECT_EQ(r.exit_code, want_exit) << r.err;
  return json::parse(r.out);
}

const json* find_by(const json& list, const char* field, const std::string& v) {
  for (const auto& e : list)
    if (e[field] == v) return &e;
  return nullptr;
}

}  // namespace

TEST(CliDiff, FileWithItselfIsSame) {
  GGUF_REQUIRE_DATA();
  for (const char* m : {"models/stories260K.gguf", "models/stories260K-Q4_0.gguf", "models/synth-llama-256-Q4_K_M.gguf"}) {
    const auto p = data_file(m).string();
    auto j = diff_json({p, p, "--values"}, 0);
    EXPECT_TRUE(j["same"].get<bool>()) << m;
    EXPECT_TRUE(j["kv"].empty());
    EXPECT_TRUE(j["tensors"].empty());
    auto t = run_cli({"diff", p, p});
    EXPECT_EQ(t.exit_code, 0);
    EXPECT_NE(t.out.find("same: "), std::string::npos) << t.out;
  }
}

TEST(CliDiff, EachKindOfMetadataChange) {
  GGUF_REQUIRE_DATA();
  const auto a = data_file(stories).string();
  // changed scalar, changed string, added key, removed key, type change, changed array element
  const auto b = edited("meta", {"--set", "llama.context_length=256", "--set", "general.name=other",
                                 "--set", "my.new_key:uint32=7", "--rm", "tokenizer.ggml.padding_token_id",
                                 "--rm", "llama.rope.dimension_count", "--set", "llama.rope.dimension_count:uint64=8",
                                 "--set-json", "tokenizer.ggml.scores=" + [&] {
                                   auto f = gguf::file::open(a).value();
                                   auto s = f.get_array("tokenizer.ggml.scores")->to_vector<float>().value();
                                   s[300] += 1.0f;
                                   return json(s).dump();
                                 }()});
  const auto before = gguf::file::open(a).value();
  auto j = diff_json({a, b}, 1);
  EXPECT_FALSE(j["same"].get<bool>());
  const auto& kv = j["kv"];
  auto* ctx = find_by(kv, "key", "llama.context_length");
  ASSERT_NE(ctx, nullptr);
  EXPECT_EQ((*ctx)["status"], "changed");
  EXPECT_EQ((*ctx)["a"], *before.get_uint("llama.context_length"));
  EXPECT_EQ((*ctx)["b"], 256);
  auto* name = find_by(kv, "key", "general.name");
  ASSERT_NE(name, nullptr);
  EXPECT_EQ((*name)["a"], std::string(*before.get_string("general.name")));
  EXPECT_EQ((*name)["b"], "other");
  auto* added = find_by(kv, "key", "my.new_key");
  ASSERT_NE(added, nullptr);
  EXPECT_EQ((*added)["status"], "added");
  EXPECT_TRUE((*added)["a"].is_null());
  EXPECT_EQ((*added)["b"], 7);
  auto* removed = find_by(kv, "key", "tokenizer.ggml.padding_token_id");
  ASSERT_NE(removed, nullptr);
  EXPECT_EQ((*removed)["status"], "removed");
  EXPECT_EQ((*removed)["a"], 4294967295u);
  EXPECT_TRUE((*removed)["b"].is_null());
  auto* typed = find_by(kv, "key", "llama.rope.dimension_count");
  ASSERT_NE(typed, nullptr);
  EXPECT_EQ((*typed)["status"], "changed");
  EXPECT_EQ((*typed)["a_type"], "uint32");
  EXPECT_EQ((*typed)["b_type"], "uint64");
  auto* scores = find_by(kv, "key", "tokenizer.ggml.scores");
  ASSERT_NE(scores, nullptr);
  EXPECT_EQ((*scores)["index"], 300);
  EXPECT_EQ((*scores)["a"]["length"], 512);
  EXPECT_EQ((*scores)["a"]["element_type"], "float32");
  EXPECT_NE((*scores)["a"]["at_index"], (*scores)["b"]["at_index"]);
  EXPECT_TRUE(j["tensors"].empty()) << j["tensors"].dump();
  // nothing else is reported: the six keys touched
  EXPECT_EQ(kv.size(), 6u) << kv.dump(1);

  // the reverse direction swaps added and removed; text output names every key
  auto r = diff_json({b, a}, 1);
  EXPECT_EQ((*find_by(r["kv"], "key", "my.new_key"))["status"], "removed");
  auto t = run_cli({"diff", a, b});
  EXPECT_EQ(t.exit_code, 1);
  EXPECT_NE(t.out.find("~ general.name: "), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("+ my.new_key = 7"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("first difference at [300]"), std::string::npos) << t.out;
}

TEST(CliDiff, TensorsAddedRemovedAndChanged) {
  GGUF_REQUIRE_DATA();
  const auto a = data_file(stories).string();
  auto f = gguf::file::open(a).value();
  auto w = gguf::writer::from_file(f);
  // rebuilt with: blk.0.attn_q.weight removed, blk.9.extra.weight added, one value of
  // blk.1.attn_k.weight changed, blk.1.ffn_down.weight reshaped (same bytes)
  gguf::writer out;
  for (const auto& kv : f.kvs()) ASSERT_TRUE(out.set(kv.key, *w.find(kv.key)));
  std::vector<std::byte> changed;
  for (const auto& t : f.tensors()) {
    std::vector<uint64_t> ne(t.ne.begin(), t.ne.begin() + t.n_dims);
    if (t.name == "blk.0.attn_q.weight") continue;
    if (t.name == "blk.1.attn_k.weight") {
      changed.assign(t.data.begin(), t.data.end());
      float x;
      std::memcpy(&x, changed.data() + 40, 4);
      x += 0.5f;
      std::memcpy(changed.data() + 40, &x, 4);
      ASSERT_TRUE(out.add_tensor(t.name, t.type, ne, std::span<const std::byte>(changed)));
      continue;
    }
    if (t.name == "blk.1.ffn_down.weight") std::swap(ne[0], ne[1]);
    ASSERT_TRUE(out.add_tensor(t.name, t.type, ne, t.data));
  }
  std::vector<std::byte> extra(16 * 4);
  ASSERT_TRUE(out.add_tensor("blk.9.extra.weight", gguf::ggml_type::f32, std::vector<uint64_t>{16}, std::span<const std::byte>(extra)));
  const auto b = (temp_dir() / "tensors.gguf").string();
  ASSERT_TRUE(out.write_file(b));

  auto j = diff_json({a, b, "--values"}, 1);
  EXPECT_TRUE(j["kv"].empty()) << j["kv"].dump();
  const auto& ts = j["tensors"];
  ASSERT_EQ(ts.size(), 4u) << ts.dump(1);
  auto* gone = find_by(ts, "name", "blk.0.attn_q.weight");
  ASSERT_NE(gone, nullptr);
  EXPECT_EQ((*gone)["status"], "removed");
  EXPECT_TRUE((*gone)["b"].is_null());
  auto* extra_t = find_by(ts, "name", "blk.9.extra.weight");
  ASSERT_NE(extra_t, nullptr);
  EXPECT_EQ((*extra_t)["status"], "added");
  EXPECT_EQ((*extra_t)["b"]["ne"], json::array({16}));
  auto* k = find_by(ts, "name", "blk.1.attn_k.weight");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ((*k)["status"], "changed");
  EXPECT_FALSE((*k)["type_changed"].get<bool>());
  EXPECT_FALSE((*k)["shape_changed"].get<bool>());
  EXPECT_FALSE((*k)["bytes_equal"].get<bool>());
  // one element (the 11th float) moved: max_abs is its change, nmse its square / sum a^2
  const auto* orig = f.find_tensor("blk.1.attn_k.weight");
  auto vals = gguf::dequantize_tensor(f, *orig).value();
  double ref2 = 0;
  for (float v : vals) ref2 += double(v) * v;
  const double x0 = vals[10], x1 = double(float(vals[10] + 0.5f));
  EXPECT_EQ((*k)["max_abs"].get<double>(), x1 - x0);
  EXPECT_NEAR((*k)["nmse"].get<double>(), (x1 - x0) * (x1 - x0) / ref2, 1e-12);
  auto* reshaped = find_by(ts, "name", "blk.1.ffn_down.weight");
  ASSERT_NE(reshaped, nullptr);
  EXPECT_TRUE((*reshaped)["shape_changed"].get<bool>());
  EXPECT_TRUE((*reshaped)["nmse"].is_null());  // another shape: no values compared
}

// Two quantizations of one model: every tensor whose type differs is listed, with an NMSE
// > 0 equal to one computed here from whole-tensor dequantization (not diff's chunked
// pass); every tensor not listed has the same type and bytes.
TEST(CliDiff, TwoQuantizationsNmse) {
  GGUF_REQUIRE_DATA();
  const auto pa = data_file("models/stories260K-Q4_0.gguf").string();
  const auto pb = data_file("models/stories260K-Q8_0.gguf").string();
  auto j = diff_json({pa, pb, "--values", "--chunk", "100"}, 1);
  auto fa = gguf::file::open(pa).value();
  auto fb = gguf::file::open(pb).value();
  size_t type_changed = 0;
  for (const auto& ta : fa.tensors()) {
    const auto* tb = fb.find_tensor(ta.name);
    ASSERT_NE(tb, nullptr);
    const json* e = find_by(j["tensors"], "name", std::string(ta.name));
    const bool same_bytes = ta.type == tb->type && ta.ne == tb->ne &&
                            std::memcmp(ta.data.data(), tb->data.data(), ta.data.size()) == 0;
    if (same_bytes) {
      EXPECT_EQ(e, nullptr) << ta.name;
      continue;
    }
    ASSERT_NE(e, nullptr) << ta.name;
    type_changed += ta.type != tb->type;
    auto xa = gguf::dequantize_tensor(fa, ta).value();
    auto xb = gguf::dequantize_tensor(fb, *tb).value();
    double err2 = 0, ref2 = 0, max_abs = 0;
    for (size_t i = 0; i < xa.size(); ++i) {
      const double d = double(xb[i]) - double(xa[i]);
      err2 += d * d;
      ref2 += double(xa[i]) * double(xa[i]);
      max_abs = std::max(max_abs, std::fabs(d));
    }
    EXPECT_GT((*e)["nmse"].get<double>(), 0.0) << ta.name;
    EXPECT_NEAR((*e)["nmse"].get<double>(), err2 / ref2, 1e-9 * err2 / ref2) << ta.name;
    EXPECT_EQ((*e)["max_abs"].get<double>(), max_abs) << ta.name;
  }
  EXPECT_GT(type_changed, 10u);
  EXPECT_EQ(j["tensors"].size(), type_changed);
}

TEST(CliDiff, ThreadsAndChunksGiveTheSameFigures) {
  GGUF_REQUIRE_DATA();
  const auto pa = data_file("models/stories260K.gguf").string();
  const auto pb = data_file("models/stories260K-Q4_1.gguf").string();
  auto one = diff_json({pa, pb, "--values", "--threads", "1"}, 1);
  auto two = diff_json({pa, pb, "--values", "--threads", "2"}, 1);
  EXPECT_EQ(one, two);  // fixed order of the partial sums: bit-identical
  auto small = diff_json({pa, pb, "--values", "--threads", "2", "--chunk", "64"}, 1);
  ASSERT_EQ(small["tensors"].size(), one["tensors"].size());
  for (size_t i = 0; i < one["tensors"].size(); ++i) {
    const double x = one["tensors"][i]["nmse"], y = small["tensors"][i]["nmse"];
    EXPECT_NEAR(x, y, 1e-12 * x);
    EXPECT_EQ(one["tensors"][i]["max_abs"], small["tensors"][i]["max_abs"]);
  }
}

TEST(CliDiff, ShardSetEqualsItsMergedFile) {
  GGUF_REQUIRE_DATA();
  const auto src = data_file(stories).string();
  const auto dir = temp_dir() / "shards";
  std::filesystem::create_directories(dir);
  auto s = run_cli({"split", src, (dir / "m").string(), "--split-max-tensors", "10"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const auto first = (dir / "m-00001-of-00005.gguf").string();
  const auto merged = (dir / "merged.gguf").string();
  auto m = run_cli({"merge", first, merged});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  auto j = diff_json({first, merged, "--values"}, 0);
  EXPECT_TRUE(j["same"].get<bool>()) << j.dump(1);
  EXPECT_EQ(diff_json({src, (dir / "m-00003-of-00005.gguf").string()}, 0)["same"], true);
  // and a change in one shard is seen through the set
  auto e = run_cli({"edit", (dir / "m-00001-of-00005.gguf").string(), "--set", "general.name=x", "-q"});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  auto d = diff_json({merged, first}, 1);
  ASSERT_EQ(d["kv"].size(), 1u);
  EXPECT_EQ(d["kv"][0]["key"], "general.name");
}

TEST(CliDiff, UsageAndUnreadable) {
  GGUF_REQUIRE_DATA();
  EXPECT_EQ(run_cli({"diff", data_file(stories).string()}).exit_code, 2);
  auto r = run_cli({"diff", data_file(stories).string(), (temp_dir() / "missing.gguf").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing.gguf"), std::string::npos) << r.err;
  auto h = run_cli({"diff", "--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("nmse"), std::string::npos);
  EXPECT_NE(h.out.find("Exit status"), std::string::npos);
}
