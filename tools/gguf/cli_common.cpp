#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <iterator>

#include "commands.h"
#include "gguf/model_files.h"
#include "gguf/vocab.h"
#include "edit_support.h"

namespace gguf::cli {

namespace {
// The remote options of this process (one command per process).
struct remote_flags {
  std::vector<std::string> headers;
  long timeout = 30;
  int retries = 3;
  std::string cache;
  bool verbose = false;
  uint64_t first_request = 0;
} remote;

std::vector<command>& registry() {
  static std::vector<command> r;
  return r;
}
}  // namespace

registrar::registrar(std::string_view name, std::string_view summary, int (*run)(int, char**)) {
  auto& r = registry();
  r.push_back({name, summary, run});
  std::sort(r.begin(), r.end(), [](const command& a, const command& b) { return a.name < b.name; });
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

int report(std::string_view file, const gguf::error& e) {
  std::cerr << "gguf: " << file << ": " << e.message() << "\n";
  return e.code == errc::io_error ? exit_usage : exit_invalid;
}

std::string input_name(const std::string& path, bool use_stdin) {
  return (use_stdin || path == "-") ? std::string("<stdin>") : path;
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
  if (!is_url(path)) {
    if (auto r = finish_interrupted_edit(path); !r) return r.error();
    return gguf::file::open(path);
  }
  remote_options o;
  o.headers = remote.headers;
  o.timeout_seconds = remote.timeout;
  o.retries = remote.retries;
  o.cache_dir = remote.cache;
  if (remote.first_request) o.first_request = remote.first_request;
  if (remote.verbose) {
    o.log = [](std::string_view line) { std::cerr << "gguf: " << line << "\n"; };  // never a header
  }
  return gguf::file::open_url(path, o);
}

void add_remote_options(CLI::App& app) {
  const char* group = "Remote files (http:// or https:// URLs)";
  app.add_option("--header", remote.headers,
                 "request header 'Name: value', e.g. 'Authorization: Bearer TOKEN' (repeatable; HF_TOKEN is used "
                 "for huggingface.co when no Authorization is given)")
      ->group(group);
  app.add_option("--timeout", remote.timeout, "seconds to connect, and seconds a transfer may stall (default 30)")
      ->check(CLI::Range(1L, 86400L))
      ->group(group);
  app.add_option("--retries", remote.retries, "retries after 429, 5xx or a broken connection (default 3)")
      ->check(CLI::Range(0, 20))
      ->group(group);
  app.add_option("--cache", remote.cache, "directory of cached metadata, keyed by URL and ETag")->group(group);
  app.add_option("--first-request", remote.first_request, "bytes of the first request (default 8 MiB)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 34))
      ->group(group);
  app.add_flag("--verbose", remote.verbose, "print each request (range, status, bytes, milliseconds) to stderr")
      ->group(group);
}

namespace {
struct vocab_cache_flags {
  std::string dir;
  bool off = false;
} vocab_cache;
}  // namespace

void add_vocab_cache_options(CLI::App& app) {
  const char* group = "Tokenizer cache";
  app.add_option("--tokenizer-cache", vocab_cache.dir,
                 "folder of the compiled tokenizer cache (default: $GGUF_CACHE_DIR, else $XDG_CACHE_HOME/gguf, "
                 "else ~/.cache/gguf)")
      ->group(group);
  app.add_flag("--no-tokenizer-cache", vocab_cache.off, "build the tokenizer tables without reading or writing the cache")
      ->group(group);
}

result<gguf::vocab> load_vocab(const gguf::file& f) {
  gguf::vocab_load_options o;
  if (!vocab_cache.off) o.cache_dir = vocab_cache.dir.empty() ? gguf::default_tokenizer_cache_dir() : vocab_cache.dir;
  auto v = gguf::vocab::load(f, o);
  if (v && remote.verbose && !o.cache_dir.empty())
    std::cerr << "gguf: tokenizer tables " << (v->from_cache() ? "mapped from" : "built; cache in") << " " << o.cache_dir
              << "\n";
  return v;
}

result<gguf::file> open_model(const std::string& path, bool use_stdin, split_facts* split) {
  auto f = open_input(path, use_stdin);
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

// --- --jsonl input loop ---

namespace gguf::cli {

jsonl_reader::jsonl_reader(int fd, size_t block_bytes) : fd_(fd), block_(std::max<size_t>(block_bytes, 4096)) {}

jsonl_reader::jsonl_reader(std::string_view text) : buf_(text), eof_(true) {}

bool jsonl_reader::next(std::vector<jsonl_line>& lines) {
  lines.clear();
  for (;;) {
    // keep the unconsumed tail, then fill up to one block (or to the end of a long line)
    if (begin_ > 0) {
      buf_.erase(0, begin_);
      begin_ = 0;
    }
    while (!eof_ && (buf_.size() < block_ || buf_.find('\n') == std::string::npos)) {
      const size_t old = buf_.size();
      buf_.resize(old + std::max(block_, old / 2));
      ssize_t n;
      do n = ::read(fd_, buf_.data() + old, buf_.size() - old);
      while (n < 0 && errno == EINTR);
      buf_.resize(old + size_t(std::max<ssize_t>(n, 0)));
      if (n < 0) failed_ = true;
      if (n <= 0) eof_ = true;
    }
    const size_t last_nl = buf_.rfind('\n');
    const size_t end = eof_ ? buf_.size() : (last_nl == std::string::npos ? 0 : last_nl + 1);
    const std::string_view data(buf_.data(), end);
    for (size_t p = 0; p < data.size();) {
      size_t q = data.find('\n', p);
      if (q == std::string_view::npos) q = data.size();
      ++line_no_;
      if (q > p) lines.push_back({data.substr(p, q - p), line_no_});
      p = q + 1;
    }
    begin_ = end;
    if (!lines.empty()) return true;
    if (eof_ && begin_ >= buf_.size()) return false;
  }
}

int for_each_jsonl_block(jsonl_reader& in, const std::function<int(std::span<const jsonl_line>)>& fn) {
  std::vector<jsonl_line> lines;
  while (in.next(lines))
    if (int rc = fn(lines)) return rc;
  if (in.failed()) {
    std::cerr << "gguf: <stdin>: cannot read standard input\n";
    return exit_usage;
  }
  return exit_ok;
}

namespace {

bool json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void skip_space(std::string_view s, size_t& p) {
  while (p < s.size() && json_space(s[p])) ++p;
}

int hex4(std::string_view s, size_t p) {
  if (p + 4 > s.size()) return -1;
  int v = 0;
  for (size_t i = p; i < p + 4; ++i) {
    const char c = s[i];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= c - '0';
    else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
    else return -1;
  }
  return v;
}

// Length of the well-formed UTF-8 sequence at s[p] (RFC 3629: no overlong forms, no
// surrogates, at most U+10FFFF), or 0.
size_t utf8_seq(std::string_view s, size_t p) {
  const auto b = [&](size_t i) { return p + i < s.size() ? uint8_t(s[p + i]) : uint8_t(0); };
  const uint8_t c = b(0);
  const auto cont = [](uint8_t x) { return (x & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return cont(b(1)) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const uint8_t lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return b(1) >= lo && b(1) <= hi && cont(b(2)) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const uint8_t lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return b(1) >= lo && b(1) <= hi && cont(b(2)) && cont(b(3)) ? 4 : 0;
  }
  return 0;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

// A JSON string starting at s[p] == '"', decoded into out; p ends past the closing quote.
// False on anything RFC 8259 does not allow (the caller then asks nlohmann::json).
bool json_string(std::string_view s, size_t& p, std::string& out) {
  ++p;
  for (;;) {
    size_t q = p;
    while (q < s.size() && s[q] != '"' && s[q] != '\\' && uint8_t(s[q]) >= 0x20 && uint8_t(s[q]) < 0x80) ++q;
    out.append(s.data() + p, q - p);
    p = q;
    if (p >= s.size()) return false;
    const uint8_t c = uint8_t(s[p]);
    if (c == '"') {
      ++p;
      return true;
    }
    if (c < 0x20) return false;
    if (c >= 0x80) {
      const size_t n = utf8_seq(s, p);
      if (!n) return false;
      out.append(s.data() + p, n);
      p += n;
      continue;
    }
    // backslash
    if (p + 1 >= s.size()) return false;
    const char e = s[p + 1];
    p += 2;
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        int cp = hex4(s, p);
        if (cp < 0) return false;
        p += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (p + 6 > s.size() || s[p] != '\\' || s[p + 1] != 'u') return false;
          const int lo = hex4(s, p + 2);
          if (lo < 0xDC00 || lo > 0xDFFF) return false;
          p += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return false;
        }
        append_utf8(out, uint32_t(cp));
        break;
      }
      default: return false;
    }
  }
}

// `"..."` or `{"text": "..."}` with JSON whitespace around the tokens; false for any
// other shape.
bool fast_text(std::string_view line, std::string& out) {
  size_t p = 0;
  skip_space(line, p);
  if (p < line.size() && line[p] == '{') {
    ++p;
    skip_space(line, p);
    if (line.compare(p, 6, "\"text\"") != 0) return false;
    p += 6;
    skip_space(line, p);
    if (p >= line.size() || line[p] != ':') return false;
    ++p;
    skip_space(line, p);
    if (p >= line.size() || line[p] != '"' || !json_string(line, p, out)) return false;
    skip_space(line, p);
    if (p >= line.size() || line[p] != '}') return false;
    ++p;
  } else if (p < line.size() && line[p] == '"') {
    if (!json_string(line, p, out)) return false;
  } else {
    return false;
  }
  skip_space(line, p);
  return p == line.size();
}

}  // namespace

bool jsonl_text(std::string_view line, std::string& out) {
  out.clear();
  if (fast_text(line, out)) return true;
  out.clear();
  auto j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_string()) {
    out = j.get<std::string>();
    return true;
  }
  if (j.is_object()) {
    auto it = j.find("text");
    if (it != j.end() && it->is_string()) {
      out = it->get<std::string>();
      return true;
    }
  }
  return false;
}

int jsonl_error(const jsonl_reader& in, size_t line_no, std::string_view what) {
  std::cerr << "gguf: " << in.source() << ": line " << line_no << ": expected " << what << "\n";
  return exit_invalid;
}

void append_ids_json(std::string& out, std::span<const int32_t> ids) {
  char buf[16];
  out += '[';
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ',';
    const auto r = std::to_chars(buf, buf + sizeof buf, ids[i]);
    out.append(buf, r.ptr);
  }
  out += ']';
}

void out_buffer::flush() {
  if (buf_.empty()) return;
  std::fwrite(buf_.data(), 1, buf_.size(), stdout);
  std::fflush(stdout);
  buf_.clear();
}

}  // namespace gguf::cli
