// `gguf convert-endian`: little -> big -> little gives every readable file of the test
// data back byte for byte, our big-endian files equal gguf-py's (compat/*-be.gguf were
// made with its gguf_convert_endian.py), and every type of the quant fixture dequantizes
// from its big-endian conversion to ggml's little-endian floats exactly.
#include <gtest/gtest.h>

#include <cstring>

#include "gguf/file.h"
#include "gguf/quant.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace gguf::test;

TEST(CliConvertEndian, RoundTripGivesEveryFileBack) {
  GGUF_REQUIRE_DATA();
  const fs::path dir = gguf::test::fresh_dir("endian");
  int files = 0;
  for (const char* sub : {"models", "quant", "vocab", "compat"}) {
    for (const auto& e : fs::directory_iterator(data_dir() / sub)) {
      if (e.path().extension() != ".gguf") continue;
      auto f = gguf::file::open(e.path());
      if (!f) continue;  // the invalid-* files
      const bool big = f->byte_order() == gguf::byte_order::big;
      const fs::path there = dir / "there.gguf", back = dir / "back.gguf";
      // --force: the same two outputs are reused for every file (issue 29, item 9)
      auto a = run_cli({"convert-endian", e.path().string(), "--to", big ? "little" : "big", "-o", there.string(),
                        "--force"});
      ASSERT_EQ(a.exit_code, 0) << e.path() << a.err;
      auto b = run_cli({"convert-endian", there.string(), "--to", big ? "big" : "little", "-o", back.string(),
                        "--force"});
      ASSERT_EQ(b.exit_code, 0) << e.path() << b.err;
      auto t = gguf::file::open(there);
      ASSERT_TRUE(t) << e.path();
      EXPECT_NE(t->byte_order(), f->byte_order());
      EXPECT_EQ(t->kv_count(), f->kv_count());
      EXPECT_TRUE(read_bytes(back) == read_bytes(e.path())) << e.path();
      ++files;
    }
  }
  EXPECT_GE(files, 40);
}

TEST(CliConvertEndian, BigEndianOutputEqualsGgufPys) {
  GGUF_REQUIRE_DATA();
  const fs::path dir = gguf::test::fresh_dir("endian-py");
  const std::pair<const char*, const char*> cases[] = {
      {"models/stories260K.gguf", "compat/stories260K-be.gguf"},
      {"models/stories260K-Q8_0.gguf", "compat/stories260K-Q8_0-be.gguf"},
      {"vocab/ggml-vocab-llama-spm.gguf", "compat/vocab-llama-spm-be.gguf"},
  };
  for (const auto& [le, be] : cases) {
    const fs::path out = dir / fs::path(be).filename();
    auto r = run_cli({"convert-endian", data_file(le).string(), "--to", "big", "-o", out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(read_bytes(out) == read_bytes(data_file(be))) << le;
  }
}

TEST(CliConvertEndian, EveryFixtureTypeDequantizesFromBigEndianExactly) {
  GGUF_REQUIRE_DATA();
  const fs::path out = temp_dir() / "fixture-be.gguf";
  auto r = run_cli({"convert-endian", data_file("quant/quant-fixture.gguf").string(), "--to", "big", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto le = gguf::file::open(data_file("quant/quant-fixture.gguf")).value();
  auto be = gguf::file::open(out).value();
  ASSERT_EQ(be.byte_order(), gguf::byte_order::big);
  int types = 0;
  for (const auto& t : be.tensors()) {
    if (t.name.rfind("q.", 0) != 0) continue;
    const auto* deq = le.find_tensor("deq." + std::string(t.name.substr(2)));
    ASSERT_NE(deq, nullptr) << t.name;
    auto got = gguf::dequantize_tensor(be, t);
    ASSERT_TRUE(got) << t.name << ": " << got.error().message();
    ASSERT_EQ(got->size() * sizeof(float), deq->nbytes) << t.name;
    EXPECT_EQ(std::memcmp(got->data(), deq->data.data(), deq->nbytes), 0) << t.name;
    ++types;
  }
  EXPECT_EQ(types, 27);
}

TEST(CliConvertEndian, DryRunAndInPlace) {
  GGUF_REQUIRE_DATA();
  const fs::path dir = gguf::test::fresh_dir("endian-inplace");
  const fs::path p = dir / "m.gguf";
  write_bytes(p, read_bytes(data_file("models/stories260K-Q4_0.gguf")));
  const auto before = read_bytes(p);
  auto d = run_cli({"convert-endian", p.string(), "--to", "big", "--dry-run"});
  EXPECT_EQ(d.exit_code, 0);
  EXPECT_NE(d.out.find("little-endian -> big-endian"), std::string::npos) << d.out;
  EXPECT_TRUE(read_bytes(p) == before);
  EXPECT_EQ(run_cli({"convert-endian", p.string(), "--to", "big"}).exit_code, 0);
  EXPECT_EQ(gguf::file::open(p)->byte_order(), gguf::byte_order::big);
  EXPECT_EQ(run_cli({"convert-endian", p.string(), "--to", "native"}).exit_code, 0);
  EXPECT_TRUE(read_bytes(p) == before);
  EXPECT_EQ(run_cli({"convert-endian", p.string(), "--to", "middle"}).exit_code, 2);
}
