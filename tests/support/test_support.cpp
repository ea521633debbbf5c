#include "test_support.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gguf::test {

std::filesystem::path data_dir_wanted() {
  const char* env = std::getenv("GGUF_TEST_DATA");
  return env && *env ? std::filesystem::path(env) : std::filesystem::path(GGUF_TEST_DATA_DEFAULT);
}

std::filesystem::path data_dir() {
  const std::filesystem::path p = data_dir_wanted();
  std::error_code ec;
  if (!std::filesystem::is_directory(p, ec)) return {};
  return std::filesystem::canonical(p, ec);
}

std::filesystem::path data_file(const std::string& rel) {
  auto d = data_dir();
  return d.empty() ? d : d / rel;
}

std::vector<std::byte> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::vector<char> buf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(buf.size());
  std::memcpy(out.data(), buf.data(), buf.size());
  return out;
}

void write_bytes(const std::filesystem::path& p, const std::vector<std::byte>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

std::filesystem::path temp_dir() {
  // Removed when the test process exits (GGUF_KEEP_TEST_TMP=1 keeps it): every test of
  // a discovered suite is a process of its own, and what they write adds up.
  static const struct owned_dir {
    std::filesystem::path path;
    ~owned_dir() {
      std::error_code ec;
      if (!std::getenv("GGUF_KEEP_TEST_TMP")) std::filesystem::remove_all(path, ec);
    }
  } dir{[] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gguf-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    return std::filesystem::path(tmpl);
  }()};
  return dir.path;
}

std::vector<std::filesystem::path> vocab_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(data_dir() / "vocab"))
    if (e.path().extension() == ".gguf") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::filesystem::path fresh_dir(const std::string& name) {
  auto d = temp_dir() / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

std::filesystem::path copy_data_into(const std::filesystem::path& dir, const std::string& rel, const std::string& name) {
  auto dst = dir / name;
  std::filesystem::copy_file(data_file(rel), dst, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::permissions(dst, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  return dst;
}

std::vector<std::string> temps_in(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    auto n = e.path().filename().string();
    if (n.find(".tmp-") != std::string::npos || n.find("journal") != std::string::npos) out.push_back(n);
  }
  return out;
}

split_shards split_data_into(const std::string& name, const std::string& rel, unsigned max_tensors) {
  split_shards s{fresh_dir(name), {}};
  auto r = run_cli({"split", data_file(rel).string(), (s.dir / "m").string(), "--split-max-tensors",
                    std::to_string(max_tensors)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return s;
  for (const auto& f : std::filesystem::directory_iterator(s.dir)) s.shards.push_back(f.path());
  std::sort(s.shards.begin(), s.shards.end());
  return s;
}

namespace {
std::string quote(const std::string& s) {
  std::string q(1, '\'');
  for (char c : s) {
    if (c == '\'') {
      q.append("'\\''", 4);
    } else {
      q.push_back(c);
    }
  }
  q.push_back('\'');
  return q;
}
}  // namespace

run_result run_cli(const std::vector<std::string>& args, const std::string& stdin_path) {
  return run_command(GGUF_CLI_PATH, args, stdin_path);
}

run_result run_command(const std::string& program, const std::vector<std::string>& args,
                       const std::string& stdin_path) {
  static int counter = 0;
  auto dir = temp_dir();
  auto out_path = dir / ("out" + std::to_string(getpid()) + "_" + std::to_string(counter));
  auto err_path = dir / ("err" + std::to_string(getpid()) + "_" + std::to_string(counter++));
  std::string cmd = quote(program);
  for (const auto& a : args) {
    cmd.push_back(' ');
    cmd.append(quote(a));
  }
  cmd.append(stdin_path.empty() ? std::string(" </dev/null") : std::string(" <").append(quote(stdin_path)));
  cmd.append(" >").append(quote(out_path.string())).append(" 2>").append(quote(err_path.string()));
  int status = std::system(cmd.c_str());
  run_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(out_path);
  r.err = read_text(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return r;
}

void expect_generated(const std::string& script, const std::string& committed) {
  const auto root = source_dir();
  auto r = run_command("python3", {(root / "scripts" / script).string(), "--check", (root / committed).string()});
  if (r.exit_code == 77) GTEST_SKIP() << "reference source absent: " << r.err;
  EXPECT_EQ(r.exit_code, 0) << "regenerating " << committed << " with scripts/" << script
                            << " gives another file: " << r.out << r.err;
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string test_name(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

}  // namespace gguf::test
