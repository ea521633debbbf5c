// The --jsonl loop (jsonl.h): a block reader, the ordered block pipeline on the process's
// workers (gguf/workers.h), and the decoder of the line shapes the commands accept.
#include "jsonl.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "gguf/io.h"
#include "gguf/utf8.h"
#include "gguf/workers.h"
#include "input.h"

namespace gguf::cli {

jsonl_reader::jsonl_reader(int fd, size_t block_bytes, size_t max_lines)
    : fd_(fd), block_(std::max<size_t>(block_bytes, 4096)), max_lines_(std::max<size_t>(max_lines, 1)) {}

jsonl_reader::jsonl_reader(std::string_view text) : source_("<argument>"), buf_(text), eof_(true) {}

result<jsonl_reader> jsonl_reader::open(const std::string& path, size_t block_bytes, size_t max_lines) {
  auto fd = open_input_fd(path);
  if (!fd) return fd.error();
  jsonl_reader r(*fd, block_bytes, max_lines);
  r.owned_ = owned_fd(*fd);
  r.source_ = input_source(path);
  return r;
}

jsonl_reader::owned_fd& jsonl_reader::owned_fd::operator=(owned_fd&& o) noexcept {
  if (this != &o) {
    close_input_fd(fd);
    fd = o.fd;
    o.fd = -1;
  }
  return *this;
}

jsonl_reader::owned_fd::~owned_fd() { close_input_fd(fd); }

bool jsonl_reader::next(jsonl_block& block) {
  block.lines.clear();
  for (;;) {
    // read while the unconsumed bytes hold no whole line, or less than a block when a
    // block may hold many lines and the last read filled what it asked for (a pipe that
    // had less to give is not waited on: a writer waiting for our answer gets it); the
    // consumed bytes are dropped first
    const auto want_more = [&] {
      const std::string_view rest = std::string_view(buf_).substr(begin_);
      return rest.find('\n') == std::string_view::npos || (max_lines_ > 1 && rest.size() < block_ && !short_read_);
    };
    while (!eof_ && want_more()) {
      if (begin_ > 0) {
        buf_.erase(0, begin_);
        begin_ = 0;
      }
      const size_t old = buf_.size(), ask = std::max(block_, old / 2);
      buf_.resize(old + ask);
      const ssize_t n = io::read_some(fd_, buf_.data() + old, ask);
      buf_.resize(old + size_t(std::max<ssize_t>(n, 0)));
      short_read_ = n >= 0 && size_t(n) < ask;
      if (n < 0) failed_ = true;
      if (n <= 0) eof_ = true;
    }
    if (begin_ >= buf_.size()) return false;
    // whole lines from begin_, up to max_lines_ of them (at the end of the input
    // the last line needs no '\n'), copied into the block
    const std::string_view data(buf_);
    const size_t first = begin_;
    size_t p = first;
    while (p < data.size() && block.lines.size() < max_lines_) {
      size_t q = data.find('\n', p);
      if (q == std::string_view::npos) {
        if (!eof_) break;
        q = data.size();
      }
      ++line_no_;
      // every line, blank ones too: one output line per input line (issue 29, item 16)
      block.lines.push_back({data.substr(p, q - p), line_no_});
      p = std::min(q + 1, data.size());
    }
    begin_ = p;
    block.bytes.assign(data.substr(first, p - first));
    for (jsonl_line& l : block.lines)  // from views into buf_ to views into the copy
      l.text = std::string_view(block.bytes.data() + (l.text.data() - data.data() - first), l.text.size());
    if (!block.lines.empty()) return true;
  }
}

bool jsonl_reader::ready() const {
  if (eof_ || fd_ < 0) return true;
  if (std::string_view(buf_).substr(begin_).find('\n') != std::string_view::npos) return true;
  return io::readable_now(fd_);  // data, end of input, or an error that the read will report
}

namespace {

bool write_out(const std::string& s) {
  if (s.empty()) return true;
  if (!write_standard_output(s.data(), s.size())) return false;
  if (std::fflush(stdout) == 0) return true;
  note_standard_output_error(errno);
  return false;
}

int read_failed(const jsonl_reader& in) {
  std::cerr << "gguf: " << in.source() << ": cannot read " << (in.source() == "<stdin>" ? "standard input" : "it") << "\n";
  return exit_usage;
}

int run_serial(jsonl_reader& in, const jsonl_block_fn& fn) {
  jsonl_block block;
  std::string out, err;
  while (in.next(block)) {
    out.clear();
    const int rc = fn(0, block.lines, out, err);
    write_out(out);
    if (rc) {
      std::cerr << err;
      return rc;
    }
  }
  return in.failed() ? read_failed(in) : exit_ok;
}

// One block on its way through the pipeline.
struct job {
  jsonl_block block;
  std::string out, err;
  int rc = 0;
  bool done = false;
};

// The blocks waiting for a worker, and the workers' loop (fn_ on each block, in the order
// the blocks were submitted) until stop().
class block_queue {
 public:
  explicit block_queue(const jsonl_block_fn& fn) : fn_(fn) {}
  void submit(job* j) {
    {
      std::lock_guard lock(mu_);
      todo_.push_back(j);
    }
    work_cv_.notify_one();
  }
  void wait(const job& j) {
    std::unique_lock lock(mu_);
    done_cv_.wait(lock, [&] { return j.done; });
  }
  /// Drops the blocks not started; the workers return after the block they are on.
  void stop() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      todo_.clear();
    }
    work_cv_.notify_all();
  }
  void work(unsigned k) {
    for (;;) {
      job* j;
      {
        std::unique_lock lock(mu_);
        work_cv_.wait(lock, [&] { return stop_ || !todo_.empty(); });
        if (stop_) return;
        j = todo_.front();
        todo_.pop_front();
      }
      j->rc = fn_(k, j->block.lines, j->out, j->err);
      {
        std::lock_guard lock(mu_);
        j->done = true;
      }
      done_cv_.notify_one();
    }
  }

 private:
  const jsonl_block_fn& fn_;
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<job*> todo_;
  bool stop_ = false;
};

// The blocks submitted and not yet written (in input order), and finished ones for reuse.
struct job_lists {
  std::deque<std::unique_ptr<job>> in_flight, spare;
};

// The calling thread's part: reads blocks, submits them, writes their output in input order.
// The jobs live in `jobs`, which outlives the workers: after an error, blocks still being
// worked on are written to until the workers have returned.
int feed_and_write(jsonl_reader& in, size_t max_in_flight, block_queue& q, job_lists& jobs) {
  auto& [in_flight, spare] = jobs;
  bool more = true;
  for (;;) {
    while (more && in_flight.size() < max_in_flight) {
      // A read that would block waits for the writer, who may be waiting for the answers
      // to the lines it has sent: write those first (a coprocess is answered line by line).
      if (!in_flight.empty() && !in.ready()) break;
      std::unique_ptr<job> j;
      if (spare.empty()) {
        j = std::make_unique<job>();
      } else {
        j = std::move(spare.back());
        spare.pop_back();
      }
      if (!in.next(j->block)) {
        more = false;
        break;
      }
      j->out.clear();
      j->err.clear();
      j->rc = 0;
      j->done = false;
      q.submit(j.get());
      in_flight.push_back(std::move(j));
    }
    if (in_flight.empty()) break;
    job& first = *in_flight.front();
    q.wait(first);
    write_out(first.out);
    if (first.rc) {
      std::cerr << first.err;
      return first.rc;  // (the caller stops the queue: the blocks not started are dropped)
    }
    spare.push_back(std::move(in_flight.front()));
    in_flight.pop_front();
  }
  return in.failed() ? read_failed(in) : exit_ok;
}

}  // namespace

unsigned jsonl_threads(unsigned requested) {
  return requested != 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
}

int run_jsonl(jsonl_reader& in, unsigned threads, const jsonl_block_fn& fn) {
  threads = jsonl_threads(threads);
  if (threads == 1) return run_serial(in, fn);
  // the process's workers (gguf/workers.h): share 0 (this thread) reads and writes,
  // shares 1..threads work on blocks
  job_lists jobs;  // (declared before the run: the workers may use them until it ends)
  block_queue q(fn);
  int rc = exit_ok;
  run_workers(threads + 1, [&](unsigned k) {
    if (k > 0) return q.work(k - 1);
    struct stopper {
      block_queue& q;
      ~stopper() { q.stop(); }
    } stop_at_end{q};
    rc = feed_and_write(in, size_t(threads) * 2, q, jobs);
  });
  return rc;
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

bool jsonl_blank(std::string_view line) {
  size_t p = 0;
  skip_space(line, p);
  return p == line.size();
}

bool jsonl_text(std::string_view line, std::string& out) {
  out.clear();
  if (jsonl_blank(line)) return true;  // the empty text
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

int jsonl_error(const jsonl_reader& in, size_t line_no, std::string_view what, std::string& err) {
  err = "gguf: " + std::string(in.source()) + ": line " + std::to_string(line_no) + ": expected " +
        std::string(what) + "\n";
  return exit_invalid;
}

int report_to(std::string_view file, const gguf::error& e, std::string& err) {
  err = error_line(file, e);
  return e.code == errc::io_error ? exit_usage : exit_invalid;
}

namespace {

// Per v < 1000: its decimal digits (1 to 3) then their count as a byte (lead), and its
// three digits with leading zeros then a pad byte (tail). 8 KB.
constexpr auto lead_digits = [] {
  std::array<std::array<char, 4>, 1000> t{};
  for (int v = 0; v < 1000; ++v) {
    const int n = v < 10 ? 1 : v < 100 ? 2 : 3;
    for (int k = n - 1, x = v; k >= 0; --k, x /= 10) t[size_t(v)][size_t(k)] = char('0' + x % 10);
    t[size_t(v)][3] = char(n);
  }
  return t;
}();
constexpr auto tail_digits = [] {
  std::array<std::array<char, 4>, 1000> t{};
  for (int v = 0; v < 1000; ++v)
    t[size_t(v)] = {char('0' + v / 100), char('0' + v / 10 % 10), char('0' + v % 10), 0};
  return t;
}();

// Writes id in decimal at p (room for 11 bytes; up to 8 may be written); returns the end.
// Ids under 10^6 (every vocabulary's) as one or two 4-byte copies from the tables above,
// without a branch on their number of digits (ugm-sp-test's ids are 1 to 3 digits at
// random: cli_vs_llama's cjk.txt, 740k ids, spent 7% of the process here with a branch
// per digit count).
inline char* put_id(char* p, int32_t id) noexcept {
  const auto v = uint32_t(id);
  if (id < 0 || v >= 1000000) return std::to_chars(p, p + 11, id).ptr;
  if (v < 1000) {
    std::memcpy(p, lead_digits[v].data(), 4);
    return p + lead_digits[v][3];
  }
  const uint32_t hi = v / 1000;
  std::memcpy(p, lead_digits[hi].data(), 4);
  p += lead_digits[hi][3];
  std::memcpy(p, tail_digits[v - 1000 * hi].data(), 4);
  return p + 3;
}

}  // namespace

bool write_ids_json(std::FILE* f, std::span<const int32_t> ids) {
  char buf[size_t(1) << 16];
  constexpr size_t room = 12;  // ',' and an int32_t
  char* p = buf;
  *p++ = '[';
  for (size_t i = 0; i < ids.size();) {
    // as many ids as surely fit, without a check each
    const size_t fit = size_t(buf + sizeof buf - p) / room;
    if (fit < 2) {  // (and room for "]\n" after the last)
      if (std::fwrite(buf, 1, size_t(p - buf), f) != size_t(p - buf)) return false;
      p = buf;
      continue;
    }
    const size_t end = std::min(ids.size(), i + fit - 1);
    if (i == 0) p = put_id(p, ids[i++]);
    for (; i < end; ++i) {
      *p++ = ',';
      p = put_id(p, ids[i]);
    }
  }
  *p++ = ']';
  *p++ = '\n';
  return std::fwrite(buf, 1, size_t(p - buf), f) == size_t(p - buf);
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

}  // namespace gguf::cli
