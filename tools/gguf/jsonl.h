// The --jsonl loop every command that reads JSON lines shares (tokenize, detokenize,
// embed): the input is cut into blocks of whole lines; each block is decoded, worked on
// and formatted by one call of the command's block function (on a worker thread with
// --threads N); the calling thread only reads blocks and writes their output in input
// order. A few blocks are in flight at a time, so memory stays bounded however long the
// input is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/error.h"

namespace gguf::cli {

/// One line of a --jsonl input (blank lines included) and its 1-based line number.
struct jsonl_line {
  std::string_view text;  ///< without the '\n'
  size_t line_no;
};

/// A block of whole lines: `lines` view into `bytes`.
struct jsonl_block {
  std::string bytes;
  std::vector<jsonl_line> lines;
};

/// Reads a --jsonl input in blocks of whole lines: about `block_bytes` of input per block
/// (more only for a longer line), at most `max_lines` lines. Every line is given, a blank
/// one too: each input line has its output line (issue 29, item 16).
class jsonl_reader {
 public:
  /// Lines of file descriptor `fd` (standard input: 0). A command whose output is much
  /// larger than its input (embed) takes blocks of one line, so it never holds the output
  /// of more than one line.
  explicit jsonl_reader(int fd, size_t block_bytes = size_t(256) << 10, size_t max_lines = SIZE_MAX);
  /// Lines of the file `path` (-f/--file), or of standard input for "" or "-"; the file is
  /// read in blocks (input.h) and closed with the reader. Errors: io_error "cannot open".
  static result<jsonl_reader> open(const std::string& path, size_t block_bytes = size_t(256) << 10,
                                   size_t max_lines = SIZE_MAX);
  /// Lines of a text given on the command line.
  explicit jsonl_reader(std::string_view text);
  jsonl_reader(jsonl_reader&&) noexcept = default;
  jsonl_reader& operator=(jsonl_reader&&) noexcept = default;
  /// The next block of lines (its buffers are reused); false at the end of the
  /// input or when reading failed (then failed() is true).
  bool next(jsonl_block& block);
  bool failed() const noexcept { return failed_; }
  /// True when next() would not wait for the writer: a whole line is buffered, the input
  /// has ended, or the descriptor has data (poll, no timeout).
  bool ready() const;
  /// What the lines come from, for errors: "<stdin>", the file's path, or "<argument>"
  /// for a text given on the command line.
  std::string_view source() const noexcept { return source_; }

 private:
  struct owned_fd {  // a file opened by open(), closed with the reader (never standard input)
    int fd = -1;
    owned_fd() = default;
    explicit owned_fd(int f) : fd(f) {}
    owned_fd(owned_fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
    owned_fd& operator=(owned_fd&& o) noexcept;
    ~owned_fd();
  };
  int fd_ = -1;
  owned_fd owned_;
  std::string source_ = "<stdin>";
  size_t block_ = 0;
  size_t max_lines_ = SIZE_MAX;
  std::string buf_;
  size_t begin_ = 0;  ///< start of the unconsumed bytes of buf_
  size_t line_no_ = 0;
  bool eof_ = false, failed_ = false;
  bool short_read_ = false;  ///< the last read returned less than it asked for
};

/// What a command does with one block: appends the output of each line, in order, to
/// `out`. At a bad line it stops and returns a non-zero exit code with the error (whole
/// lines for stderr) in `err`; the output of the lines before the bad one is written.
/// `worker` (0 .. threads-1) tells which thread runs the call, for per-thread scratch.
using jsonl_block_fn =
    std::function<int(unsigned worker, std::span<const jsonl_line> lines, std::string& out, std::string& err)>;

/// The number of threads --threads N asks for: N, or every core for 0 (at least 1).
unsigned jsonl_threads(unsigned requested);

/// Runs `fn` over every block of `in` and writes each block's output to standard output
/// in input order, then its error (if any) to standard error, and stops there. With
/// threads > 1 (0 = every core) the blocks are handed to that many worker threads while
/// the calling thread reads the next blocks and writes finished ones; at most 2 blocks
/// per thread are in flight. Returns the exit code of the first failed block, exit_usage
/// if reading failed, else exit_ok.
int run_jsonl(jsonl_reader& in, unsigned threads, const jsonl_block_fn& fn);

/// True for a line of JSON whitespace only: the empty text (tokenize, embed) or the
/// empty list of ids (detokenize).
bool jsonl_blank(std::string_view line);

/// The text of a --jsonl line: a JSON string, or an object with a "text" string (other
/// fields ignored), decoded into `out`; a blank line is the empty text. False if the
/// line is none of these (or is not JSON).
/// The usual shapes (`"..."`, `{"text": "..."}`) are decoded without building a JSON
/// document; anything else goes through nlohmann::json with the same result.
bool jsonl_text(std::string_view line, std::string& out);

/// Sets `err` to `gguf: SOURCE: line N: expected WHAT\n` (SOURCE: in.source()) and
/// returns exit_invalid.
int jsonl_error(const jsonl_reader& in, size_t line_no, std::string_view what, std::string& err);

/// run_jsonl for commands that read a text a line (tokenize, embed): each line's text
/// (jsonl_text; a line that is none is an error) goes to
/// `fn(text, scratch, line_no, out, err)`, which appends that line's output and returns
/// exit_ok (0) or stops the run with its exit code. Every thread has its own `Scratch`.
template <class Scratch, class Fn>
int run_jsonl_texts(jsonl_reader& in, unsigned threads, Fn&& fn) {
  threads = jsonl_threads(threads);
  struct alignas(64) slot {  // a cache line each: threads write their own only
    std::string text;
    Scratch scratch;
  };
  std::vector<slot> per_thread(threads);
  return run_jsonl(in, threads, [&](unsigned k, std::span<const jsonl_line> lines, std::string& out, std::string& err) {
    auto& [text, scratch] = per_thread[k];
    for (const jsonl_line& line : lines) {
      if (!jsonl_text(line.text, text))
        return jsonl_error(in, line.line_no, "a JSON string or an object with a \"text\" string", err);
      if (int rc = fn(text, scratch, line.line_no, out, err); rc != 0) return rc;
    }
    return 0;
  });
}

/// Sets `err` to `gguf: FILE: MESSAGE\n`, the line report() prints, and returns report()'s
/// exit code.
int report_to(std::string_view file, const gguf::error& e, std::string& err);

/// Appends `[id,id,...]` (nlohmann's compact spelling of a JSON array of integers).
void append_ids_json(std::string& out, std::span<const int32_t> ids);
/// The same JSON array and a newline written to `f` through a 64 KiB buffer (no string of
/// the whole output: megabytes of fresh pages for a long text). False on a write error.
bool write_ids_json(std::FILE* f, std::span<const int32_t> ids);

}  // namespace gguf::cli
