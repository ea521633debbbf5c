// Regression tests of the edit findings (each failed before the write path was redone):
// mode and owner kept, read-only refused, symlinks followed, hard links, bounded
// memory, signals and stale temp files, edits that break a model, values with '-',
// v1 upgrade said; and gguf edit / get end to end.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include <nlohmann/json.hpp>

#include "gguf/edit.h"
#include "gguf/file.h"
#include "gguf/writer.h"
#include "big_model.h"
#include "journal_builder.h"
#include "test_support.h"

namespace fs = std::filesystem;
using gguf::test::data_file;
using gguf::test::copy_data_into;
using gguf::test::run_cli;
using gguf::test::temps_in;

namespace {

fs::path dir_for(const std::string& name) { return gguf::test::fresh_dir("safety-" + name); }

struct stat stat_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st;
}

// A GGUF file with one f32 tensor of n elements (zeros), written in bounded memory.
void make_big_model(const fs::path& p, uint64_t n) { gguf::test::make_big_model(p, n, "big"); }

}  // namespace

// Finding 1: the replaced file got mode 0666 & ~umask.
TEST(EditFindings, StreamedRewriteKeepsModeAndOwner) {
  GGUF_REQUIRE_DATA();
  auto dir = dir_for("mode");
  auto p = copy_data_into(dir, "models/stories260K.gguf", "a.gguf");
  ::chmod(p.c_str(), 0600);
  if (geteuid() == 0) {
    ASSERT_EQ(::chown(p.c_str(), 65534, 65534), 0);
  }
  auto r = run_cli({"set", p.string(), "general.name", std::string(3000, 'n'), "--in-place=never"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rewritten"), std::string::npos) << r.out;
  auto st = stat_of(p);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  if (geteuid() == 0) {
    EXPECT_EQ(st.st_uid, 65534u);
    EXPECT_EQ(st.st_gid, 65534u);
  }
}

// Finding 1: a read-only (444) file in a writable folder was overwritten.
TEST(EditFindings, ReadOnlyFileIsRefusedWithExit2) {
  GGUF_REQUIRE_DATA();
  auto dir = dir_for("ro");
  auto p = copy_data_into(dir, "models/stories260K.gguf", "a.gguf");
  ::chmod(p.c_str(), 0444);
  auto before = gguf::test::read_bytes(p);
  for (const char* mode : {"--in-place=never", "--in-place=auto"}) {
    auto r = run_cli({"set", p.string(), "general.name", "x", mode});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("read-only"), std::string::npos) << r.err;
  }
  EXPECT_EQ(gguf::test::read_bytes(p), before);
  EXPECT_TRUE(temps_in(dir).empty());
}

// Finding 2: set through a symlink replaced the link by a plain file.
TEST(EditFindings, SymlinkedFileIsEditedThroughTheLink) {
  GGUF_REQUIRE_DATA();
  auto dir = dir_for("link");
  fs::create_directories(dir / "blobs");
  fs::create_directories(dir / "snapshots" / "main");
  auto blob = copy_data_into(dir / "blobs", "models/stories260K.gguf", "0123abcd");
  auto link = dir / "snapshots" / "main" / "model.gguf";
  fs::create_symlink("../../blobs/0123abcd", link);
  for (const char* mode : {"--in-place=never", "--in-place=auto"}) {
    std::string name = std::string("via link ") + mode;
    auto r = run_cli({"set", link.string(), "general.name", name, mode});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(*gguf::file::open(blob)->get_string("general.name"), name);
  }
  EXPECT_TRUE(temps_in(dir / "blobs").empty());
  EXPECT_TRUE(temps_in(dir / "snapshots" / "main").empty());
}

// Finding 2: a hard-linked file was silently split from its other names.
TEST(EditFindings, HardLinksAreNamedAndNeverSilentlySplit) {
  GGUF_REQUIRE_DATA();
  auto dir = dir_for("hard");
  auto p = copy_data_into(dir, "models/stories260K.gguf", "a.gguf");
  fs::create_hard_link(p, dir / "b.gguf");
  std::string big(3000, 'n');
  auto r = run_cli({"set", p.string(), "general.name", big});  // does not fit in place
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("2 hard links"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--break-links"), std::string::npos) << r.err;
  r = run_cli({"set", p.string(), "general.name", "short"});  // fits: in place, both names
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(*gguf::file::open(dir / "b.gguf")->get_string("general.name"), "short");
  r = run_cli({"set", p.string(), "general.name", big, "--break-links"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(*gguf::file::open(p)->get_string("general.name"), big);
  EXPECT_EQ(*gguf::file::open(dir / "b.gguf")->get_string("general.name"), "short");
}

// Finding 3: set on a file with one big tensor took twice the tensor in memory.
TEST(EditFindings, StreamedSetOfABigTensorIsBoundedInMemory) {
  auto dir = dir_for("rss");
  auto p = dir / "big.gguf";
  make_big_model(p, 48ull << 20);  // 192 MiB tensor
  // Max RSS of gguf set against gguf get on the same file (the baseline: start-up,
  // libraries, a sanitizer's runtime).
  auto rss_of = [&](const char* cmd, const char* value) -> long {
    pid_t pid = fork();
    if (pid == 0) {
      int null = ::open("/dev/null", O_WRONLY);
      dup2(null, 1);
      execl(GGUF_CLI_PATH, "gguf", cmd, p.c_str(), "general.name", value, static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd;
    return ru.ru_maxrss;
  };
  long base = rss_of("get", nullptr);
  long rss = rss_of("set", "a much longer name than before");
  EXPECT_LT(rss - base, 48 * 1024) << "max RSS (KiB) of gguf set on a 192 MiB tensor: " << rss << ", of gguf get "
                                   << base;
  EXPECT_EQ(*gguf::file::open(p)->get_string("general.name"), "a much longer name than before");
}

// Finding 4: SIGINT / SIGTERM during set left .NAME.tmp-XXXX behind; SIGKILL leftovers
// were never mentioned.
TEST(EditFindings, InterruptedSetLeavesNoTempFileAndStaleOnesAreRemoved) {
  auto dir = dir_for("signal");
  auto p = dir / "big.gguf";
  make_big_model(p, 64ull << 20);  // 256 MiB: the rewrite takes a while
  auto before_size = fs::file_size(p);
  for (int sig : {SIGINT, SIGTERM}) {
    pid_t pid = fork();
    if (pid == 0) {
      execl(GGUF_CLI_PATH, "gguf", "set", p.c_str(), "general.name", "a much longer name than before",
            "--in-place=never", "-q", static_cast<char*>(nullptr));
      _exit(127);
    }
    // Wait until the temp file exists, then interrupt.
    for (int i = 0; i < 2000 && temps_in(dir).empty(); ++i) std::this_thread::sleep_for(std::chrono::microseconds(500));
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status)) {
      EXPECT_EQ(WEXITSTATUS(status), 0);  // finished before the signal: fine, and nothing left
    } else {
      EXPECT_EQ(WTERMSIG(status), sig);
      EXPECT_EQ(fs::file_size(p), before_size);
    }
    EXPECT_TRUE(temps_in(dir).empty()) << strsignal(sig);
    ASSERT_TRUE(gguf::file::open(p).ok());
  }
  // A temp file of a SIGKILLed run is removed by the next edit, which names it
  // (tests/cli/test_stale_temps.cpp kills real runs).
  std::ofstream(dir / ".big.gguf.tmp-Zq81Xy") << "partial";
  auto r = run_cli({"set", p.string(), "general.name", "x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(".big.gguf.tmp-Zq81Xy"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / ".big.gguf.tmp-Zq81Xy"));
}

// Finding 6: rm / set that break the model exited 0.
TEST(EditFindings, EditsThatMakeTheFileInvalidAreRefusedUnlessForced) {
  GGUF_REQUIRE_DATA();
  auto dir = dir_for("invalid");
  auto p = copy_data_into(dir, "models/stories260K.gguf", "a.gguf");
  auto before = gguf::test::read_bytes(p);
  auto r = run_cli({"rm", p.string(), "general.architecture"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("would make the file invalid"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("general.architecture"), std::string::npos) << r.err;
  r = run_cli({"set", p.string(), "general.architecture", "5", "--type", "uint32"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  r = run_cli({"set", p.string(), "llama.attention.layer_norm_rms_epsilon", "nan"});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // the model loader refuses a non-finite epsilon
  EXPECT_EQ(gguf::test::read_bytes(p), before);
  r = run_cli({"rm", p.string(), "general.architecture", "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(gguf::file::open(p)->find("general.architecture").has_value());
}

// Finding 7: -inf was read as an option, and --type could not follow --.
TEST(EditFindings, NegativeNumbersAndMinusInfAreValues) {
  GGUF_REQUIRE_DATA();
  auto dir = dir_for("neg");
  auto p = copy_data_into(dir, "models/stories260K.gguf", "a.gguf");
  auto r = run_cli({"set", p.string(), "my.f", "-inf", "--type", "float32", "--force"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::isinf(*gguf::file::open(p)->get("my.f")->get<float>()));
  r = run_cli({"set", p.string(), "my.i", "--", "-42", "--type", "int32"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(*gguf::file::open(p)->get("my.i")->get<int32_t>(), -42);
  r = run_cli({"set", p.string(), "my.d", "-0.5", "--type", "float64"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(*gguf::file::open(p)->get("my.d")->get<double>(), -0.5);
  EXPECT_EQ(run_cli({"get", p.string(), "my.f"}).out, "-inf\n");
  EXPECT_EQ(run_cli({"set", p.string(), "my.i", "--bogus"}).exit_code, 2);  // still an unknown option
}

// Finding 8: v1 files became v3 silently.
TEST(EditFindings, UpgradingV1IsSaid) {
  GGUF_REQUIRE_DATA();
  auto dir = dir_for("v1");
  auto p = copy_data_into(dir, "compat/stories260K-v1.gguf", "a.gguf");
  auto r = run_cli({"set", p.string(), "general.name", "x", "--force"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("GGUF v1 is written as v3"), std::string::npos) << r.err;
  EXPECT_EQ(gguf::file::open(p)->version(), 3u);
}

TEST(CliEditCommand, BatchOfEditsHelpersAndGet) {
  GGUF_REQUIRE_DATA();
  auto dir = dir_for("batch");
  auto p = copy_data_into(dir, "models/stories260K.gguf", "a.gguf");
  std::string tmpl(20000, 'x');
  // a valid template (gguf edit refuses one that does not parse without --force)
  for (size_t i = 0; i < tmpl.size(); i += 100) tmpl.replace(i, 8, "{{ x }}\n");
  std::ofstream(dir / "tmpl.jinja") << tmpl;
  auto r = run_cli({"edit", p.string(), "--set", "general.name=Stories", "--set", "my.count:uint64=7", "--set-file",
                    "my.text=" + (dir / "tmpl.jinja").string(), "--set-json", "my.list=[\"a\",\"b\",\"c\"]",
                    "--set-json", "my.nested:int16=[[1,-2],[3]]", "--chat-template-file", (dir / "tmpl.jinja").string(),
                    "--special-token", "bos", "<s>", "--special-token-by-id", "eos", "2", "--rm",
                    "tokenizer.ggml.padding_token_id"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rewritten"), std::string::npos);
  auto f = gguf::file::open(p);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f->get_string("general.name"), "Stories");
  EXPECT_EQ(f->get("my.count")->type(), gguf::value_type::uint64);
  EXPECT_EQ(*f->get_string("tokenizer.chat_template"), tmpl);
  EXPECT_EQ(*f->get_string("my.text"), tmpl);
  EXPECT_EQ(f->get_array("my.list")->size(), 3u);
  EXPECT_EQ(f->get_array("my.nested")->nesting(), 2u);
  EXPECT_EQ(f->get_array("my.nested")->innermost_type(), gguf::value_type::int16);
  EXPECT_EQ(*f->get_uint("tokenizer.ggml.bos_token_id"), 1u);
  EXPECT_EQ(*f->get_uint("tokenizer.ggml.eos_token_id"), 2u);
  EXPECT_FALSE(f->find("tokenizer.ggml.padding_token_id").has_value());
  // get: raw string exactly, JSON, numbers.
  EXPECT_EQ(run_cli({"get", p.string(), "tokenizer.chat_template"}).out, tmpl);
  EXPECT_EQ(run_cli({"get", p.string(), "my.nested", "--json"}).out, "[[1,-2],[3]]\n");
  EXPECT_EQ(run_cli({"get", p.string(), "my.count"}).out, "7\n");
  EXPECT_EQ(run_cli({"get", p.string(), "general.name", "--json"}).out, "\"Stories\"\n");
  EXPECT_EQ(run_cli({"get", p.string(), "no.such"}).exit_code, 1);
  // Helpers check what they set.
  EXPECT_EQ(run_cli({"edit", p.string(), "--pre-tokenizer", "not-a-preset"}).exit_code, 2);
  EXPECT_EQ(run_cli({"edit", p.string(), "--special-token", "bos", "no such token text"}).exit_code, 2);
  EXPECT_EQ(run_cli({"edit", p.string(), "--special-token-by-id", "eos", "512"}).exit_code, 2);  // 512 tokens
  EXPECT_EQ(run_cli({"edit", p.string(), "--special-token", "nonsense", "<s>"}).exit_code, 2);
  ASSERT_EQ(run_cli({"edit", p.string(), "--pre-tokenizer", "llama3", "--force"}).exit_code, 0);
  // Dry run: says what it would do, writes nothing.
  auto before = gguf::test::read_bytes(p);
  r = run_cli({"edit", p.string(), "--set", "general.name=S", "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("would be edited in place"), std::string::npos) << r.out;
  EXPECT_EQ(gguf::test::read_bytes(p), before);
  // -o: another file, the input only read.
  r = run_cli({"edit", p.string(), "-o", (dir / "out.gguf").string(), "--set", "general.name=Out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(gguf::test::read_bytes(p), before);
  EXPECT_EQ(*gguf::file::open(dir / "out.gguf")->get_string("general.name"), "Out");
  // --in-place=always that does not fit: refused, unchanged.
  r = run_cli({"edit", p.string(), "--set", "general.name=" + std::string(5000, 'z'), "--in-place=always"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot edit in place"), std::string::npos) << r.err;
  EXPECT_EQ(gguf::test::read_bytes(p), before);
}

// Finding 5: validate passed a nan epsilon the model loader refuses; dump printed null.
TEST(EditFindings, NonFiniteHparamsAreErrorsAndDumpSpellsThem) {
  GGUF_REQUIRE_DATA();
  auto dir = dir_for("nan");
  auto p = copy_data_into(dir, "models/stories260K.gguf", "a.gguf");
  ASSERT_EQ(run_cli({"set", p.string(), "llama.attention.layer_norm_rms_epsilon", "nan", "--force"}).exit_code, 0);
  ASSERT_EQ(run_cli({"set", p.string(), "my.neg_inf", "-inf", "--type", "float64"}).exit_code, 0);
  ASSERT_EQ(run_cli({"edit", p.string(), "--set-json", "my.floats:float32=[1.5]"}).exit_code, 0);
  auto r = run_cli({"validate", p.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("error key.not_finite: value is nan"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(1 error, 0 warnings, "), std::string::npos) << r.out;  // finding 8: "1 errors"
  r = run_cli({"dump", p.string()});
  EXPECT_NE(r.out.find("llama.attention.layer_norm_rms_epsilon = nan"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("my.neg_inf = -inf"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("= null"), std::string::npos) << r.out;
}

// Finding 8: validate --json dropped unreadable files; validate --stdin was refused.
TEST(EditFindings, ValidateListsUnreadableFilesAndReadsStdin) {
  GGUF_REQUIRE_DATA();
  auto missing = (gguf::test::temp_dir() / "no-such-file.gguf").string();
  auto good = data_file("models/stories260K.gguf").string();
  auto r = run_cli({"validate", "--json", good, missing});
  EXPECT_EQ(r.exit_code, 2);
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["files"].size(), 2u);
  EXPECT_EQ(j["files"][1]["file"], missing);
  EXPECT_EQ(j["files"][1]["readable"], false);
  EXPECT_EQ(j["files"][1]["code"], "io_error");
  r = run_cli({"validate", "--stdin"}, good);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("<stdin>: valid"), std::string::npos) << r.out;
}

// The journal of an interrupted in-place edit is finished by the next edit; a reader
// (here `gguf info`) reads the consistent state without writing (issue 29, item 3).
TEST(CliEditCommand, NextEditFinishesAnInterruptedInPlaceEdit) {
  GGUF_REQUIRE_DATA();
  auto dir = dir_for("journal");
  auto done = copy_data_into(dir, "models/stories260K.gguf", "done.gguf");
  ASSERT_EQ(run_cli({"set", done.string(), "general.name", "journaled", "--in-place=always"}).exit_code, 0);
  auto done_bytes = gguf::test::read_bytes(done);
  auto room = gguf::file::open(done)->data_offset();
  std::vector<std::byte> region(done_bytes.begin(), done_bytes.begin() + static_cast<long>(room));
  auto p = copy_data_into(dir, "models/stories260K.gguf", "a.gguf");
  auto torn = gguf::test::read_bytes(p);
  const std::vector<std::byte> old_region(torn.begin(), torn.begin() + static_cast<long>(room));
  std::memcpy(torn.data(), region.data(), 300);  // killed while the region was written
  gguf::test::write_bytes(p, torn);
  gguf::test::write_bytes(gguf::journal_path(p), gguf::test::make_journal(p, 0, region, old_region));
  auto r = run_cli({"info", p.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("awaits a writer"), std::string::npos) << r.err;
  EXPECT_EQ(gguf::test::read_bytes(p), torn);
  r = run_cli({"set", p.string(), "general.name", "journaled"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("finished an interrupted in-place edit"), std::string::npos) << r.err;
  EXPECT_EQ(gguf::test::read_bytes(p), done_bytes);
  EXPECT_FALSE(fs::exists(gguf::journal_path(p)));
}

// Deliver 4: a progress bar with bytes/s on a terminal for writes over 256 MiB; none when
// stderr is not a terminal or with --quiet.
TEST(CliEditCommand, ProgressBarOnlyOnATerminal) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1) to give gguf a terminal";
  auto dir = dir_for("progress");
  auto p = dir / "big.gguf";
  make_big_model(p, 65ull << 20);  // 260 MiB
  auto out = dir / "tty.txt";
  std::string cmd = "script -qec \"'" + std::string(GGUF_CLI_PATH) + "' set '" + p.string() +
                    "' general.name 'a name that does not fit' --in-place=never\" /dev/null > '" + out.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(out, std::ios::binary);
  std::string tty((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(tty.find("iB/s"), std::string::npos) << tty;  // the rate: KiB/s, MiB/s or GiB/s
  EXPECT_NE(tty.find("(100%)"), std::string::npos) << tty;
  auto r = run_cli({"set", p.string(), "general.name", "another name that does not fit", "--in-place=never"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("iB/s"), std::string::npos) << r.err;
}
