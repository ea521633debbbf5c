// Hostile-file suite: deterministic mutants of real GGUF files, and a sandboxed runner
// for the CLI (time limit, address-space limit, signals and sanitizer reports detected).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gguf::hostile {

/// What a field of the wire format is, for choosing its mutations.
enum class field_kind { version, count, length, value_type, ggml_type, n_dims, dimension, offset, scalar };

/// A count, length, type id or offset in a file: where it is and how wide (4 or 8 bytes).
struct field {
  uint64_t offset = 0;
  uint32_t width = 0;
  field_kind kind = field_kind::count;
  std::string what;  ///< e.g. "array length of tokenizer.ggml.tokens"
};

/// The fields of a file the reader accepts, found through the public API (kv offsets,
/// value offsets, tensor info offsets): header, every key's length and value type, every
/// string length, every array's element type and count (and the first two and the last
/// element of each array), every tensor's name length, n_dims, ne, type and offset, and
/// every integer scalar value (token ids, hparams).
std::vector<field> fields_of(const std::vector<std::byte>& bytes);

/// One mutant: truncation to `truncate_at` bytes, or `width` bytes at `offset` replaced
/// by `value` (little- or big-endian as the file), or `fill` bytes of 0xff at `offset`.
struct mutant {
  std::string what;
  uint64_t truncate_at = UINT64_MAX;
  uint64_t offset = 0;
  uint32_t width = 0;
  uint64_t value = 0;
  uint32_t fill = 0;
};

/// Every mutant of a file: truncation at each field, at the data section and inside the
/// last tensor; for each field its value zeroed, bit 0 and bit 7 flipped, and the huge
/// values 2^31, 2^32-1 (4-byte fields) or 2^32, 2^63, 2^64-1 (8-byte fields); invalid
/// type ids; and 0xff garbage over the start of each tensor's data. Deterministic.
std::vector<mutant> mutants_of(const std::vector<std::byte>& bytes);

/// Applies `m` to `bytes` in place and returns the length to use; undo() restores.
struct applied {
  std::vector<std::byte>& bytes;
  const mutant& m;
  std::vector<std::byte> saved;
  applied(std::vector<std::byte>& b, const mutant& m, bool big_endian);
  ~applied();
  size_t size() const;
};

/// Every GGUF file under the test data folder (sorted), or empty without data.
std::vector<std::filesystem::path> data_files();

/// Outcome of a sandboxed CLI run.
struct outcome {
  int exit_code = -1;  ///< -1 when killed by a signal
  int signal = 0;      ///< the signal, SIGALRM for a hang (wall-clock limit)
  std::string out, err;
  /// "" when the run kept the contract: exit 0/1 (2 when `allow_usage`), no signal, no
  /// sanitizer report, and a failure explained on one stderr line starting "gguf".
  std::string violation(bool allow_usage = false) const;
};

/// Runs the built gguf CLI with `args` and stdin from /dev/null, at most `seconds` of
/// wall-clock time and 2 GiB of address space (sanitizer builds: ASan's RSS limit
/// instead, as its shadow memory needs a large address space).
outcome run_cli(const std::vector<std::string>& args, unsigned seconds = 10);

/// The commands of `gguf --help` (everything listed under "commands:").
std::vector<std::string> cli_commands();

/// The argument lists that exercise `command` on `file`: known commands get their
/// documented form (tokenize -m FILE TEXT…); a command this suite does not know is run
/// as `command FILE` and `command -m FILE`, the usage error (exit 2) being allowed.
struct invocation {
  std::vector<std::string> args;
  bool allow_usage = false;
};
std::vector<invocation> invocations(const std::string& command, const std::string& file,
                                    const std::filesystem::path& scratch);

}  // namespace gguf::hostile
