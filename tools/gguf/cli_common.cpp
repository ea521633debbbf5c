#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <set>

#include "commands.h"
#include "gguf/edit.h"
#include "gguf/model_files.h"
#include "gguf/output.h"
#include "gguf/remote.h"
#include "gguf/shared_library.h"
#include "gguf/vocab.h"
#include "edit_support.h"

namespace gguf::cli {

namespace {
// The remote options of this process (one command per process).
struct remote_flags {
  std::vector<std::string> headers;
  long timeout = 30;
  int retries = 3;
  bool verbose = false;
  uint64_t first_request = 0;
  std::string hf_token;
} remote;

// The disk cache of this process: --cache-dir DIR / --no-cache (and their older names).
struct cache_flags {
  std::string dir;
  bool off = false;
} cache;

std::vector<command>& registry() {
  static std::vector<command> r;
  return r;
}
}  // namespace

registrar::registrar(std::string_view name, std::string_view summary, int (*run)(int, char**)) {
  auto& r = registry();  // kept sorted by name: one insertion per command, not one sort
  auto at = std::upper_bound(r.begin(), r.end(), name, [](std::string_view n, const command& c) { return n < c.name; });
  r.insert(at, {name, summary, run});
}

const std::vector<command>& commands() { return registry(); }

std::optional<int> parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return exit_ok;
  } catch (const CLI::ParseError& e) {
    std::cerr << "gguf " << app.get_name() << ": " << e.what() << " (see --help)\n";
    return exit_usage;
  }
  return std::nullopt;
}

namespace {
// e's message without a leading "FILE: " (said by the caller's line)
std::string message_after(std::string_view file, const gguf::error& e) {
  std::string m = e.message();
  if (!file.empty() && m.size() > file.size() + 2 && m.starts_with(file) && m.compare(file.size(), 2, ": ") == 0)
    m.erase(0, file.size() + 2);
  return m;
}
}  // namespace

std::string error_line(std::string_view file, const gguf::error& e) {
  return "gguf: " + std::string(file) + ": " + message_after(file, e) + "\n";
}

int report(std::string_view file, const gguf::error& e) {
  std::cerr << error_line(file, e);
  return e.code == errc::io_error ? exit_usage : exit_invalid;
}

namespace {
int standard_output_errno = 0;  // the reason of the first failed write (note_standard_output_error)
}  // namespace

void note_standard_output_error(int e) {
  if (standard_output_errno == 0) standard_output_errno = e;
}

bool write_standard_output(const void* data, size_t n) {
  if (n == 0 || std::fwrite(data, 1, n, stdout) == n) return true;
  note_standard_output_error(errno);
  return false;
}

namespace {
std::vector<char*> process_arguments;  // main's argv, saved by save_process_arguments
}  // namespace

void save_process_arguments(int argc, char** argv) { process_arguments.assign(argv, argv + argc); }

int exec_beside(const char* name, const std::vector<char*>& args, std::string_view why) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path exe = ec ? std::filesystem::path(name) : self.parent_path() / name;
  std::vector<char*> argv = args;
  argv.push_back(nullptr);
  execv(exe.c_str(), argv.data());
  const int err = errno;
  std::cerr << "gguf: cannot run " << exe.string() << " (installed beside gguf), which " << why << ": "
            << std::strerror(err) << "\n";
  return exit_usage;
}

bool is_static_build() noexcept { return !gguf::shared_library::available(); }

int run_dynamic_build(std::string_view why) {
  std::string name = "gguf-dynamic";
  std::vector<char*> args = process_arguments;
  if (args.empty()) args.push_back(nullptr);
  args[0] = name.data();
  return exec_beside(name.c_str(), args, why);
}

bool names_remote_file(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (gguf::is_remote(a)) return true;
    if (a.starts_with("--")) {
      if (auto eq = a.find('='); eq != std::string_view::npos && gguf::is_remote(a.substr(eq + 1))) return true;
    }
  }
  return false;
}

int check_standard_output(int code) {
  errno = 0;  // a reason set by the flushes below is theirs; else an earlier failed write's, if noted
  std::cout.flush();
  const bool flush_failed = std::fflush(stdout) != 0;
  const int e = errno != 0 ? errno : standard_output_errno;
  if (!flush_failed && !std::ferror(stdout) && std::cout.good()) return code;
  std::clearerr(stdout);  // said once: a later check (main's, after end_process returned) passes
  std::cout.clear();
  std::cerr << "gguf: standard output: cannot write" << (e ? std::string(": ") + std::strerror(e) : std::string())
            << "; the output is incomplete\n";
  return exit_usage;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GGUF_CLI_CHECKS_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define GGUF_CLI_CHECKS_AT_EXIT 1
#endif
#endif

int end_process(int code) {
  code = check_standard_output(code);
#ifndef GGUF_CLI_CHECKS_AT_EXIT
  std::cerr.flush();
  ::_exit(code);
#endif
  return code;
}

std::string input_name(const std::string& path, bool use_stdin) {
  return (use_stdin || path == "-") ? std::string("<stdin>") : path;
}

void note_interrupted_edit(const std::string& path, pending_edit state) {
  static std::set<std::string> said;  // once per file and process
  if (state == pending_edit::none || !said.insert(path).second) return;
  const auto journal = journal_path(path).string();
  switch (state) {
    case pending_edit::applied:
      std::cerr << "gguf: " << path << ": an interrupted in-place edit awaits a writer (read as the edit left it, "
                << "from its journal " << journal << "; the next gguf edit of the file finishes it)\n";
      break;
    case pending_edit::incomplete:
      std::cerr << "gguf: " << path << ": an interrupted in-place edit awaits a writer (its journal " << journal
                << " is incomplete and never reached the file, read as it is; the next gguf edit removes it)\n";
      break;
    case pending_edit::foreign:
      std::cerr << "gguf: " << path << ": the journal " << journal
                << " beside it belongs to another file (not this inode or size): ignored; remove it if the file is "
                << "right\n";
      break;
    case pending_edit::none: break;
  }
}

result<gguf::file> open_input(const std::string& path, bool use_stdin) {
  if (use_stdin || path == "-") {
    std::vector<std::byte> bytes;
    char buf[1 << 16];
    for (;;) {
      ssize_t n = ::read(0, buf, sizeof buf);
      if (n < 0) return make_error(errc::io_error, no_offset, "cannot read standard input");
      if (n == 0) break;
      auto* p = reinterpret_cast<const std::byte*>(buf);
      bytes.insert(bytes.end(), p, p + n);
    }
    return gguf::file::from_buffer(std::move(bytes), {}, "<stdin>");
  }
  if (!is_remote(path)) {
    // Readers never write (issue 29, item 3): the library reads an interrupted edit's
    // consistent state; the next edit finishes it.
    auto f = gguf::file::open(path);
    if (f) note_interrupted_edit(path, f->interrupted_edit());
    return f;
  }
  remote_options o;
  o.headers = remote.headers;
  o.timeout_seconds = remote.timeout;
  o.retries = remote.retries;
  o.cache_dir = cache.off ? std::string() : cache.dir;  // remote metadata: only in a folder named
  o.hf_token = remote.hf_token;
  if (remote.first_request) o.first_request = remote.first_request;
  if (remote.verbose) {
    o.log = [](std::string_view line) { std::cerr << "gguf: " << line << "\n"; };  // never a header
  }
  return gguf::file::open_url(path, o);
}

std::optional<int> refuse_urls(std::string_view cmd, std::initializer_list<std::string_view> paths) {
  for (auto p : paths) {
    if (is_remote(p)) {  // http(s):// or hf://
      std::cerr << "gguf " << cmd << ": " << p << ": writing needs a local file (download it first)\n";
      return exit_usage;
    }
  }
  return std::nullopt;
}

std::optional<int> refuse_stdout_output(std::string_view cmd, std::string_view out) {
  if (out != "-") return std::nullopt;
  std::cerr << "gguf " << cmd << ": OUT '-': a GGUF file is not written to standard output; name a file "
            << "('./-' for one called '-')\n";
  return exit_usage;
}

std::optional<int> check_output_path(const std::string& out, std::span<const std::filesystem::path> inputs,
                                     bool force, bool may_replace_input) {
  if (auto r = check_overwrite(out, inputs, force, may_replace_input); !r) {
    std::cerr << "gguf: " << r.error().message() << "\n";  // the message names OUT
    return exit_usage;  // a usage error: the command was asked to do what it must not
  }
  // A missing folder is said before any plan is printed or any input is read in full (the
  // write itself would fail only after the work).
  std::filesystem::path dir = std::filesystem::path(out).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    const bool there = std::filesystem::exists(dir, ec);
    std::cerr << "gguf: " << out << ": cannot write: " << dir.string()
              << (there ? " is not a folder\n" : ": no such folder\n");
    return exit_usage;  // as the write's own io_error would give
  }
  return std::nullopt;
}

namespace {
// Whether the command line (main's argv) names one of `names`, as `NAME` or `NAME=VALUE`, or
// may ask for help (`--help`, or a short option cluster holding `h`). True when main saved no
// command line.
bool command_line_names(std::initializer_list<std::string_view> names) {
  if (process_arguments.empty()) return true;
  for (size_t i = 1; i < process_arguments.size(); ++i) {
    const std::string_view a = process_arguments[i];
    if (a == "--help" || (a.size() > 1 && a[0] == '-' && a[1] != '-' && a.find('h') != std::string_view::npos))
      return true;
    for (std::string_view n : names)
      if (a.starts_with(n) && (a.size() == n.size() || a[n.size()] == '=')) return true;
  }
  return false;
}
}  // namespace

void add_remote_options(CLI::App& app) {
  // Start-up: CLI11 spends about 130,000 instructions adding these nine options (each add
  // compares its names with every option added before), a fifth of a cached `gguf tokenize`
  // (bench/load_vs_llama.py). They are added only when the command line names one of them or
  // may ask for help: a command line that names none parses the same without them.
  if (!command_line_names({"--header", "--hf-token", "--timeout", "--retries", "--first-request", "--verbose",
                           "--cache-dir", "--cache", "--no-cache"}))
    return;
  const char* group = "Remote files (http:// or https:// URLs, hf://OWNER/REPO[@REV][:QUANT | /FILE.gguf])";
  app.add_option("--header", remote.headers,
                 "request header 'Name: value', e.g. 'Authorization: Bearer TOKEN' (repeatable; HF_TOKEN is used "
                 "for huggingface.co when no Authorization is given)")
      ->group(group);
  app.add_option("--hf-token", remote.hf_token,
                 "token of the Hugging Face hub for hf:// names and hub URLs (default: $HF_TOKEN); hub: "
                 "$GGUF_HF_ENDPOINT, else $HF_ENDPOINT, else https://huggingface.co")
      ->group(group);
  app.add_option("--timeout", remote.timeout, "seconds to connect, and seconds a transfer may stall (default 30)")
      ->check(CLI::Range(1L, 86400L))
      ->group(group);
  app.add_option("--retries", remote.retries, "retries after 429, 5xx or a broken connection (default 3)")
      ->check(CLI::Range(0, 20))
      ->group(group);
  app.add_option("--first-request", remote.first_request, "bytes of the first request (default 64 KiB)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 34))
      ->group(group);
  app.add_flag("--verbose", remote.verbose, "print each request (range, status, bytes, milliseconds) to stderr")
      ->group(group);
  const char* cache_group = "Disk cache";
  app.add_option("--cache-dir,--cache", cache.dir,
                 "the disk cache folder: compiled tokenizer tables (default: $GGUF_CACHE_DIR, else "
                 "$XDG_CACHE_HOME/gguf, else ~/.cache/gguf) and, when named, the metadata of remote files "
                 "(keyed by URL, revalidated by ETag)")
      ->group(cache_group);
  app.add_flag("--no-cache", cache.off, "neither read nor write the disk cache")->group(cache_group);
}

void add_vocab_cache_options(CLI::App& app) {
  // older names of --cache-dir and --no-cache (add_remote_options)
  app.add_option("--tokenizer-cache", cache.dir, "the same as --cache-dir")->group("Disk cache");
  app.add_flag("--no-tokenizer-cache", cache.off, "the same as --no-cache")->group("Disk cache");
}

void add_read_options(CLI::App& app, read_flags& f, const char* json_help, const char* stdin_help) {
  app.add_flag("--json", f.json, json_help);
  if (stdin_help) app.add_flag("--stdin", f.use_stdin, stdin_help);
  add_remote_options(app);
}

void add_write_options(CLI::App& app, write_flags& f, const char* dry_run_help, const char* force_help) {
  app.add_flag("--dry-run", f.dry_run, dry_run_help);
  app.add_flag("--force", f.force, force_help);
  app.add_flag("--break-links", f.break_links,
               "allow replacing an OUT that has other hard links (they keep the old content)");
}

void add_text_options(CLI::App& app, text_options& o, const char* model_help, const char* jsonl_help,
                      const char* verb) {
  app.add_option("-m,--model", o.model, model_help)->required();
  o.jsonl_flag = app.add_flag("--jsonl", o.jsonl, jsonl_help);
  app.add_option("--threads", o.threads,
                 std::string("with --jsonl: ") + verb + " on N threads, output order kept (0 = every core; default 1)")
      ->needs(o.jsonl_flag);
  add_remote_options(app);
  add_vocab_cache_options(app);
}

result<gguf::vocab> load_vocab(const gguf::file& f) {
  gguf::vocab_load_options o;
  if (!cache.off) o.cache_dir = cache.dir.empty() ? gguf::default_tokenizer_cache_dir() : cache.dir;
  auto v = gguf::vocab::load(f, o);
  if (v && remote.verbose && !o.cache_dir.empty())
    std::cerr << "gguf: tokenizer tables " << (v->from_cache() ? "mapped from" : "built; cache in") << " " << o.cache_dir
              << "\n";
  return v;
}

namespace {
// f, or when it is a shard, the merged view of its set (open_model)
result<gguf::file> with_its_set(result<gguf::file> f, split_facts* split) {
  if (!f || !f->find(kv_split_count)) return f;
  auto m = model_files::from_file(*f, [](const std::string& p) { return open_input(p); });
  if (!m) return m.error();
  if (split && m->shards().size() > 1) {
    split->count = uint16_t(m->shards().size());
    split->own_size = f->size();
    split->total_size = m->total_size();
    if (auto no = f->get_uint(kv_split_no)) split->no = uint16_t(*no);
  }
  return m->merged();
}
}  // namespace

result<gguf::file> open_model(const std::string& path, bool use_stdin, split_facts* split) {
  return with_its_set(open_input(path, use_stdin), split);
}

result<gguf::file> open_model_or_file(const std::string& path, bool use_stdin) {
  auto f = open_input(path, use_stdin);
  if (!f || !f->find(kv_split_count)) return f;
  if (auto info = read_split_info(*f); !info) {
    const std::string name = input_name(path, use_stdin);
    std::cerr << "gguf: " << name << ": warning: " << message_after(name, info.error())
              << "; read as one file (gguf validate " << name << " lists the problems)\n";
    return f;
  }
  return with_its_set(std::move(f), nullptr);
}

nlohmann::ordered_json value_json(const value_ref& v, uint64_t max_elems) {
  switch (v.type()) {
    case value_type::uint8: return *v.get<uint8_t>();
    case value_type::int8: return *v.get<int8_t>();
    case value_type::uint16: return *v.get<uint16_t>();
    case value_type::int16: return *v.get<int16_t>();
    case value_type::uint32: return *v.get<uint32_t>();
    case value_type::int32: return *v.get<int32_t>();
    case value_type::float32: return static_cast<double>(*v.get<float>());
    case value_type::boolean: return *v.get<bool>();
    case value_type::string: return std::string(*v.get<std::string_view>());
    case value_type::uint64: return *v.get<uint64_t>();
    case value_type::int64: return *v.get<int64_t>();
    case value_type::float64: return *v.get<double>();
    case value_type::array: {
      auto a = *v.array();
      auto j = nlohmann::ordered_json::array();
      uint64_t n = max_elems ? std::min(max_elems, a.size()) : a.size();
      if (a.element_type() == value_type::string) {
        a.for_each_string([&](uint64_t i, std::string_view s) {
           if (i < n) j.push_back(std::string(s));
         }).value();
        return j;
      }
      for (uint64_t i = 0; i < n; ++i) j.push_back(value_json(*a.at(i), max_elems));
      return j;
    }
  }
  return nullptr;
}

void print_json(const nlohmann::ordered_json& j, int indent) {
  std::cout << j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace gguf::cli
