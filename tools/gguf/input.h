// Text input of the commands that read text or JSON lines (tokenize, detokenize, embed,
// chat): a file named with -f/--file, or standard input. A regular file (also standard
// input redirected from one) is mapped read-only; a pipe or terminal is read in 1 MiB
// blocks. Never character by character through iostreams: at corpus sizes that read
// cost as much as the tokenizer (issue 31).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "gguf/error.h"

namespace gguf::cli {

/// The whole text of one input, read once. Movable, not copyable; the view stays valid
/// while the object lives.
class input_text {
 public:
  /// Reads `path`, or standard input when `path` is empty or "-". Errors: io_error
  /// "cannot open: REASON" or "cannot read: REASON", for report(input_source(path), e).
  static result<input_text> read(const std::string& path);

  input_text() = default;
  input_text(input_text&& o) noexcept;
  input_text& operator=(input_text&& o) noexcept;
  input_text(const input_text&) = delete;
  input_text& operator=(const input_text&) = delete;
  ~input_text();

  /// The bytes of the input.
  std::string_view view() const noexcept { return map_ ? std::string_view(map_, map_size_) : std::string_view(buf_); }

 private:
  const char* map_ = nullptr;  ///< the mapping of a regular file (munmap on destruction)
  size_t map_size_ = 0;
  std::string buf_;  ///< the bytes read from a pipe or terminal
};

/// Opens `path` for reading in blocks: standard input (fd 0, not closed) when `path` is
/// empty or "-", else the file, whose descriptor the caller closes with close_input_fd.
/// Errors: io_error "cannot open" with the reason.
result<int> open_input_fd(const std::string& path);
/// Closes a descriptor of open_input_fd (standard input is left open).
void close_input_fd(int fd) noexcept;

/// The name of an input in error lines: "<stdin>" for empty or "-", else the path.
std::string input_source(const std::string& path);

}  // namespace gguf::cli
