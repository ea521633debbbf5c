// Hostile files: deterministic mutants of every real GGUF file of the test data (vocab,
// models, compat, quant) are opened with the library and run through every command of
// the CLI. Each must be rejected with an error value / exit 1 and one error line, or
// accepted and fully readable — never a crash, hang, abort, sanitizer report or
// unbounded memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <span>

#include "../../fuzz/fuzz_check.h"
#include "gguf/quant.h"
#include "gguf/schema.h"
#include "gguf/vocab.h"
#include "hostile.h"
#include "test_support.h"

namespace gguf::hostile {
namespace {

std::string param_name(const testing::TestParamInfo<std::filesystem::path>& info) {
  return gguf::test::test_name(std::filesystem::relative(info.param, gguf::test::data_dir()).string());
}

std::vector<std::filesystem::path> params() {
  auto files = data_files();
  if (files.empty()) files.emplace_back();  // one parameter that skips without data
  return files;
}

class mutants : public testing::TestWithParam<std::filesystem::path> {
 protected:
  void SetUp() override {
    GGUF_REQUIRE_DATA();
    bytes_ = gguf::test::read_bytes(GetParam());
    auto f = gguf::file::from_bytes(bytes_);
    big_endian_ = f && f->byte_order() == byte_order::big;
    valid_ = f.ok();
  }
  std::vector<std::byte> bytes_;
  bool big_endian_ = false;
  bool valid_ = false;
};

// Every mutant through the reader and every accessor (fuzz/fuzz_check.h walks every
// key, value, array element and tensor info and checks the reader's invariants).
TEST_P(mutants, library_reads_or_rejects_every_mutant) {
  auto list = mutants_of(bytes_);
  ASSERT_FALSE(list.empty());
  size_t accepted = 0, rejected = 0;
  for (const auto& m : list) {
    applied a(bytes_, m, big_endian_);
    std::span<const std::byte> view(bytes_.data(), a.size());
    auto f = gguf::file::from_bytes(view);
    if (f) {
      ++accepted;
      gguf::fuzz::visit_file(*f);
    } else {
      ++rejected;
      const auto& e = f.error();
      EXPECT_NE(e.code, errc::ok) << m.what;
      EXPECT_FALSE(e.message().empty()) << m.what;
      EXPECT_TRUE(e.offset == no_offset || e.offset <= view.size()) << m.what << ": " << e.message();
      EXPECT_EQ(e.message().find('\n'), std::string::npos) << m.what;
    }
  }
  // The suite must really exercise the reader's checks, not only the happy path.
  if (valid_) {
    EXPECT_GT(rejected, list.size() / 4) << accepted << " accepted";
  }
  RecordProperty("mutants", static_cast<int>(list.size()));
}

// The layers above the reader on a deterministic sample of the mutants, in process:
// validate, the vocabulary (load, tokenize, detokenize) and dequantization of every
// tensor. Each either works or returns an error value.
TEST_P(mutants, validate_vocab_and_dequantize_survive_sampled_mutants) {
  auto all = mutants_of(bytes_);
  // The mutants the reader accepts reach the upper layers: sample mostly those.
  std::vector<const mutant*> accepted, list;
  for (const auto& m : all) {
    applied a(bytes_, m, big_endian_);
    if (gguf::file::from_bytes(std::span<const std::byte>(bytes_.data(), a.size()))) accepted.push_back(&m);
  }
  mutant original{"unmodified file"};
  list.push_back(&original);
  size_t want = bytes_.size() > (4u << 20) ? 8 : 32;
  for (size_t i = 0; i < want && !accepted.empty(); ++i) list.push_back(accepted[(i * accepted.size()) / want]);
  for (size_t i = 0; i < want / 4 && !all.empty(); ++i) list.push_back(&all[(i * all.size()) / (want / 4)]);
  size_t loaded = 0;
  for (const mutant* mp : list) {
    const mutant& m = *mp;
    applied a(bytes_, m, big_endian_);
    std::span<const std::byte> view(bytes_.data(), a.size());
    auto rep = gguf::validate_bytes(view);
    for (const auto& d : rep.diagnostics) EXPECT_FALSE(d.rule.empty() || d.message.empty()) << m.what;
    auto f = gguf::file::from_bytes(view);
    if (!f) {
      EXPECT_TRUE(rep.has_errors()) << m.what;
      continue;
    }
    if (f->find("tokenizer.ggml.model")) {
      auto v = gguf::vocab::load(*f);
      if (v) {
        ++loaded;
        auto ids = v->tokenize("Hello world! <s> \xe4\xbd\xa0\xe5\xa5\xbd 123\n", true, true);
        if (ids) {
          for (int32_t id : *ids) EXPECT_TRUE(id >= 0 && static_cast<uint32_t>(id) < v->n_tokens()) << m.what;
          (void)v->detokenize(*ids, true, true);
        }
        int32_t odd[] = {-1, static_cast<int32_t>(v->n_tokens()), 0, 1, 2};
        (void)v->detokenize(odd, false, true);
      } else {
        EXPECT_FALSE(v.error().message().empty()) << m.what;
      }
    }
    for (const auto& t : f->tensors()) {
      if (t.nelements() > (1u << 22)) continue;
      auto d = gguf::dequantize_tensor(*f, t);
      if (!d) {
        EXPECT_FALSE(d.error().message().empty()) << m.what;
      }
    }
  }
  RecordProperty("vocabs_loaded", static_cast<int>(loaded));
}

// Every command of `gguf --help` on the file and on a deterministic sample of its mutants.
TEST_P(mutants, every_cli_command_keeps_the_contract) {
  auto commands = cli_commands();
  ASSERT_FALSE(commands.empty()) << "gguf --help lists no commands";
  auto list = mutants_of(bytes_);
  // Sample: spread evenly over the mutant list (header, keys, tensors, data), fewer for
  // big files (each mutant is written out in full). GGUF_HOSTILE_CLI_MUTANTS overrides.
  size_t want = bytes_.size() > (4u << 20) ? 4 : 10;
  if (const char* env = std::getenv("GGUF_HOSTILE_CLI_MUTANTS")) want = std::strtoul(env, nullptr, 10);
  std::vector<const mutant*> sample;
  mutant original{"unmodified file"};
  sample.push_back(&original);
  for (size_t i = 0; i < want && !list.empty(); ++i) sample.push_back(&list[(i * list.size()) / want + (i * 7) % std::max<size_t>(1, list.size() / want)]);

  auto scratch = gguf::test::temp_dir();
  auto path = (scratch / "hostile-mutant.gguf").string();
  std::vector<std::string> violations;
  size_t runs = 0;
  for (const auto* m : sample) {
    {
      applied a(bytes_, *m, big_endian_);
      std::vector<std::byte> out(bytes_.begin(), bytes_.begin() + a.size());
      gguf::test::write_bytes(path, out);
    }
    for (const auto& c : commands) {
      for (const auto& inv : invocations(c, path, scratch)) {
        auto r = run_cli(inv.args);
        ++runs;
        if (auto v = r.violation(inv.allow_usage); !v.empty()) {
          std::string cmd;
          for (const auto& a : inv.args) cmd += " " + a;
          violations.push_back("[" + m->what + "] gguf" + cmd + ": " + v + "\n  stderr: " + r.err.substr(0, 300));
        }
      }
    }
  }
  for (const auto& v : violations) ADD_FAILURE() << v;
  RecordProperty("cli_runs", static_cast<int>(runs));
}

INSTANTIATE_TEST_SUITE_P(data, mutants, testing::ValuesIn(params()), param_name);

}  // namespace
}  // namespace gguf::hostile
