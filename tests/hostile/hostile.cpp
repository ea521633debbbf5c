#include "hostile.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "gguf/file.h"
#include "test_support.h"

#if defined(__SANITIZE_ADDRESS__)
#define GGUF_HOSTILE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GGUF_HOSTILE_ASAN 1
#endif
#endif

namespace gguf::hostile {

namespace {

void add_value_fields(std::vector<field>& out, const value_ref& v, const std::string& key, uint32_t lw,
                      int depth) {
  if (v.type() == value_type::string) {
    out.push_back({v.offset(), lw, field_kind::length, "string length of " + key});
    return;
  }
  if (is_integer_type(v.type()) && value_type_size(v.type()) >= 4) {
    out.push_back({v.offset(), static_cast<uint32_t>(value_type_size(v.type())), field_kind::scalar, "value of " + key});
    return;
  }
  if (v.type() != value_type::array) return;
  out.push_back({v.offset(), 4, field_kind::value_type, "array element type of " + key});
  out.push_back({v.offset() + 4, lw, field_kind::count, "array length of " + key});
  auto a = v.array();
  if (!a || a->empty() || depth > 2) return;
  for (uint64_t i : {uint64_t{0}, uint64_t{1}, a->size() - 1}) {
    if (i >= a->size()) continue;
    auto e = a->at(i);
    if (e) add_value_fields(out, *e, key + "[" + std::to_string(i) + "]", lw, depth + 1);
    if (i == a->size() - 1) break;
  }
}

}  // namespace

std::vector<field> fields_of(const std::vector<std::byte>& bytes) {
  std::vector<field> out;
  auto f = gguf::file::from_bytes(bytes);
  if (!f) return out;
  uint32_t lw = f->version() == 1 ? 4 : 8;
  out.push_back({4, 4, field_kind::version, "version"});
  out.push_back({8, lw, field_kind::count, "tensor count"});
  out.push_back({8 + lw, lw, field_kind::count, "key/value count"});
  for (const auto& kv : f->kvs()) {
    std::string key(kv.key);
    out.push_back({kv.offset, lw, field_kind::length, "key length of " + key});
    out.push_back({kv.value.offset() - 4, 4, field_kind::value_type, "value type of " + key});
    add_value_fields(out, kv.value, key, lw, 0);
  }
  for (const auto& t : f->tensors()) {
    std::string name(t.name);
    uint64_t p = t.info_offset;
    out.push_back({p, lw, field_kind::length, "name length of tensor " + name});
    p += lw + t.name.size();
    out.push_back({p, 4, field_kind::n_dims, "n_dims of tensor " + name});
    p += 4;
    for (uint32_t d = 0; d < t.n_dims; ++d, p += lw) {
      out.push_back({p, lw, field_kind::dimension, "ne[" + std::to_string(d) + "] of tensor " + name});
    }
    out.push_back({p, 4, field_kind::ggml_type, "type of tensor " + name});
    out.push_back({p + 4, 8, field_kind::offset, "offset of tensor " + name});
  }
  return out;
}

std::vector<mutant> mutants_of(const std::vector<std::byte>& bytes) {
  std::vector<mutant> out;
  auto f = gguf::file::from_bytes(bytes);
  if (!f) {
    // An invalid real file: its truncations still are hostile inputs.
    for (uint64_t cut : {uint64_t{0}, uint64_t{3}, uint64_t{4}, uint64_t{7}, uint64_t{8}, uint64_t{16}, uint64_t{24}}) {
      if (cut < bytes.size()) out.push_back({"truncated to " + std::to_string(cut), cut});
    }
    return out;
  }
  for (const auto& fl : fields_of(bytes)) {
    out.push_back({"truncated at " + fl.what, fl.offset});
    out.push_back({"truncated inside " + fl.what, fl.offset + fl.width / 2});
    auto set = [&](const std::string& how, uint64_t v) {
      mutant m;
      m.what = fl.what + " := " + how;
      m.offset = fl.offset;
      m.width = fl.width;
      m.value = v;
      out.push_back(m);
    };
    uint64_t cur = 0;
    if (f->byte_order() == byte_order::little) {
      for (uint32_t i = 0; i < fl.width; ++i) cur |= uint64_t(static_cast<uint8_t>(bytes[fl.offset + i])) << (8 * i);
    } else {
      for (uint32_t i = 0; i < fl.width; ++i) cur = (cur << 8) | static_cast<uint8_t>(bytes[fl.offset + i]);
    }
    set("0", 0);
    set("bit 0 flipped", cur ^ 1);
    set("bit 7 flipped", cur ^ 0x80);
    if (fl.width == 4) {
      set("2^31", uint64_t{1} << 31);
      set("2^32-1", 0xffffffffu);
    } else {
      set("2^32", uint64_t{1} << 32);
      set("2^63", uint64_t{1} << 63);
      set("2^64-1", ~uint64_t{0});
    }
    if (fl.kind == field_kind::value_type) {
      for (uint64_t t : {8, 9, 10, 13}) set("type " + std::to_string(t), t);
    }
    if (fl.kind == field_kind::ggml_type) {
      for (uint64_t t : {0, 4, 14, 23, 29, 39, 43}) set("ggml type " + std::to_string(t), t);
    }
    if (fl.kind == field_kind::n_dims) set("5", 5);
  }
  if (f->data_offset() <= bytes.size()) out.push_back({"truncated at the data section", f->data_offset()});
  for (const auto& t : f->tensors()) {
    mutant m;
    m.what = "0xff over the data of tensor " + std::string(t.name);
    m.offset = static_cast<uint64_t>(t.data.data() - f->bytes().data());
    m.fill = static_cast<uint32_t>(std::min<uint64_t>(t.nbytes, 256));
    out.push_back(m);
  }
  if (!f->tensors().empty()) out.push_back({"truncated inside the last tensor's data", bytes.size() - 1});
  return out;
}

applied::applied(std::vector<std::byte>& b, const mutant& mu, bool big_endian) : bytes(b), m(mu) {
  if (m.fill) {
    saved.assign(bytes.begin() + m.offset, bytes.begin() + m.offset + m.fill);
    std::fill_n(bytes.begin() + m.offset, m.fill, std::byte{0xff});
  } else if (m.width) {
    saved.assign(bytes.begin() + m.offset, bytes.begin() + m.offset + m.width);
    for (uint32_t i = 0; i < m.width; ++i) {
      uint32_t shift = 8 * (big_endian ? m.width - 1 - i : i);
      bytes[m.offset + i] = static_cast<std::byte>((m.value >> shift) & 0xff);
    }
  }
}

applied::~applied() {
  if (!saved.empty()) std::copy(saved.begin(), saved.end(), bytes.begin() + m.offset);
}

size_t applied::size() const { return std::min<uint64_t>(m.truncate_at, bytes.size()); }

std::vector<std::filesystem::path> data_files() {
  std::vector<std::filesystem::path> out;
  auto dir = gguf::test::data_dir();
  if (dir.empty()) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".gguf") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string outcome::violation(bool allow_usage) const {
  if (signal == SIGALRM) return "hang: killed after the time limit";
  if (signal != 0) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  for (const char* bad : {"AddressSanitizer", "LeakSanitizer", "runtime error:", "terminate called",
                          "Assertion", "std::bad_alloc"}) {
    if (err.find(bad) != std::string::npos) return std::string("stderr reports '") + bad + "'";
  }
  if (exit_code == 0) return "";
  if (exit_code == 2 && allow_usage) return "";
  if (exit_code != 1) return "exit code " + std::to_string(exit_code);
  // Exit 1: a failed check reported on stdout, or one error line on stderr.
  if (err.empty()) return out.empty() ? "exit 1 without any message" : "";
  auto first_nl = err.find('\n');
  if (err.rfind("gguf", 0) != 0) return "error line does not start with 'gguf': " + err.substr(0, 200);
  if (out.empty() && first_nl != std::string::npos && first_nl + 1 < err.size()) {
    return "error message of more than one line: " + err.substr(0, 400);
  }
  return "";
}

outcome run_cli(const std::vector<std::string>& args, unsigned seconds) {
  static int counter = 0;
  auto dir = gguf::test::temp_dir();
  auto out_path = dir / ("hostile-out-" + std::to_string(counter));
  auto err_path = dir / ("hostile-err-" + std::to_string(counter++));
  std::vector<std::string> argv_s{GGUF_CLI_PATH};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY);
    int o = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || o < 0 || e < 0) _exit(120);
    dup2(in, 0);
    dup2(o, 1);
    dup2(e, 2);
#ifdef GGUF_HOSTILE_ASAN
    setenv("ASAN_OPTIONS", "exitcode=86:hard_rss_limit_mb=2048:max_allocation_size_mb=2048:detect_leaks=1", 1);
#else
    rlimit as{2ull << 30, 2ull << 30};
    setrlimit(RLIMIT_AS, &as);
#endif
    setenv("UBSAN_OPTIONS", "exitcode=87:print_stacktrace=1:halt_on_error=1", 1);
    alarm(seconds);  // survives exec: SIGALRM ends a hang
    execv(argv[0], argv.data());
    _exit(127);
  }
  outcome r;
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) {
    r.exit_code = 126;
    return r;
  }
  if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  } else {
    r.exit_code = WEXITSTATUS(status);
  }
  r.out = gguf::test::read_text(out_path);
  r.err = gguf::test::read_text(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return r;
}

std::vector<std::string> cli_commands() {
  auto r = run_cli({"--help"});
  std::vector<std::string> out;
  std::istringstream in(r.out);
  std::string line;
  bool in_list = false;
  while (std::getline(in, line)) {
    if (line.rfind("commands:", 0) == 0) {
      in_list = true;
      continue;
    }
    if (!in_list) continue;
    if (line.size() < 3 || line[0] != ' ' || line[2] == ' ') {
      if (!out.empty()) break;
      continue;
    }
    std::istringstream ls(line);
    std::string name;
    ls >> name;
    if (!name.empty()) out.push_back(name);
  }
  return out;
}

std::vector<invocation> invocations(const std::string& c, const std::string& file,
                                    const std::filesystem::path& scratch) {
  auto out_file = (scratch / "hostile-output.gguf").string();
  auto copy = [&] {
    auto p = scratch / "hostile-edit.gguf";
    std::filesystem::copy_file(file, p, std::filesystem::copy_options::overwrite_existing);
    return p.string();
  };
  if (c == "info") return {{{"info", file}}, {{"info", "--json", file}}};
  if (c == "dump") return {{{"dump", file}}, {{"dump", "--json", "--full-arrays", file}}};
  if (c == "validate") return {{{"validate", file}}, {{"validate", "--json", "--strict", file}}};
  if (c == "tokenize") {
    return {{{"tokenize", "-m", file, "Hello world! <s> 123 \xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x98\x80"}},
            {{"tokenize", "-m", file, "--pieces", "--no-parse-special", " a  b\n\tc"}}};
  }
  if (c == "detokenize") {
    return {{{"detokenize", "-m", file, "0", "1", "2", "3", "100", "4294967295"}},
            {{"detokenize", "-m", file, "--unparse-special", "--remove-special", "1", "0", "2"}}};
  }
  if (c == "dequantize") {
    auto raw = (scratch / "hostile-dequantized.f32").string();
    return {{{"dequantize", "-o", raw, "--force", "--json", file, "token_embd.weight"}},
            {{"dequantize", "-o", raw, "--force", file, "output.weight"}}};
  }
  if (c == "embed") return {{{"embed", "-m", file, "Hello world"}}};
  if (c == "name") return {{{"name", std::filesystem::path(file).filename().string()}}};
  if (c == "estimate") return {{{"estimate", file, "-c", "300,70000", "--parallel", "3"}}, {{"estimate", "--json", file}}};
  if (c == "set") {
    auto edit = copy();
    // An absent key without --type is a documented usage error (exit 2).
    return {{{"set", edit, "general.name", "hostile", "--type", "string"}},
            {{"set", edit, "tokenizer.ggml.bos_token_id", "1"}, true},
            {{"set", edit, "general.alignment", "64", "--type", "uint32"}}};
  }
  if (c == "rm") return {{{"rm", copy(), "general.name"}}};
  // OUT is the same scratch file for every input: replacing it needs --force
  if (c == "convert-endian") return {{{"convert-endian", file, "--to", "big", "-o", out_file, "--force"}}};
  // A server runs until it is stopped: its handling of hostile files is tested against
  // the running server (tests/web: serve_security, web_serve), not by this one-shot suite.
  if (c == "serve") return {};
  if (c == "split") {
    return {{{"split", file, (scratch / "hostile-shard").string(), "--split-max-tensors", "2", "--dry-run"}}};
  }
  if (c == "hash") return {{{"hash", file}}, {{"hash", "--all", "--uuid", "--threads", "2", file}}};
  // A command this suite does not know yet: both usual forms, usage errors allowed.
  return {{{c, file}, true}, {{c, "-m", file}, true}};
}

}  // namespace gguf::hostile
