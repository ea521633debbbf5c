// gguf/schema.h — validation of a GGUF file against the specification and against what
// llama.cpp's model loader needs, as a list of diagnostics (never a first-error abort).
//
//   auto r = gguf::validate_file("model.gguf");       // result<report>
//   if (!r) { /* io_error: the file could not be read at all */ }
//   for (const auto& d : r->diagnostics) std::cout << d.rule << ": " << d.message << "\n";
//   bool ok = r->passes(/*strict=*/false);             // no errors
//
// Severities: `error` — llama.cpp-style loading fails or reads inconsistent data (wrong
// value type of a key it reads, a required key missing, arrays of different lengths …);
// `warning` — the file breaks a requirement or recommendation of the GGUF specification
// that llama.cpp does not enforce (key naming, general.alignment a multiple of 8, …);
// `note` — facts worth knowing (GGUF v1/v2, big-endian, vocabulary-only file, …).
// Every rule has a stable id ("key.type", "tensor.padding"); docs/validation-rules.md
// lists them all with the specification text each comes from.
//
// Structure errors are found by the reader (gguf::file::open): it stops at the first
// one, so such a file yields exactly one diagnostic, rule "structure.<errc name>"
// (e.g. "structure.bad_magic"), carrying the reader's error code, offset and subject.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"
#include "gguf/format.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// How bad a diagnostic is (ordered: note < warning < error).
enum class severity : uint8_t { note, warning, error };
/// "note", "warning", "error".
std::string_view severity_name(severity s) noexcept;

/// One problem or fact found in a file.
struct diagnostic {
  severity level = severity::error;
  std::string rule;              ///< stable rule id, e.g. "key.type", "structure.bad_magic"
  std::string subject;           ///< key or tensor name, if any
  bool subject_is_tensor = false;
  uint64_t offset = no_offset;   ///< byte offset in the file, or no_offset
  std::string message;           ///< what is wrong and what is expected, one sentence
  errc code = errc::ok;          ///< the reader's code, for structure.* diagnostics
};

/// All diagnostics of one file, in file order within each rule group.
struct report {
  std::string path;
  uint32_t version = 0;               ///< GGUF version, 0 if the reader rejected the file
  std::optional<gguf::byte_order> byte_order;  ///< unset if the reader rejected the file
  std::vector<diagnostic> diagnostics;

  size_t count(severity s) const noexcept;
  bool has_errors() const noexcept { return count(severity::error) > 0; }
  /// No errors (and, when `strict`, no warnings either).
  bool passes(bool strict = false) const noexcept;
};

/// Checks an opened file with every rule (keys, architecture, tokenizer, tensors).
/// Cost: one pass over the metadata (each string read once) and over the padding bytes
/// between tensors; tensor data itself is not read.
report validate(const file& f);

/// Options of validate().
struct validate_options {
  /// Opens another shard of a split model (rule split.set opens the whole set); empty:
  /// file::open_any with default options. A caller reading over HTTP with headers,
  /// timeouts or a cache passes an opener that uses them.
  std::function<result<file>(const std::string& path)> open_shard;
  /// Where the file is (or will be) when f.path() does not say (an edit's probe of the
  /// new metadata): the split rules read the shard's name, and find the other shards, by
  /// it. Empty: f.path().
  std::string path;
};
/// validate() with options; the same rules.
report validate(const file& f, const validate_options& options);

/// Opens `path` and validates it. A file the reader rejects gives a report with one
/// structure.* error. Errors (as a result): io_error only — the file could not be read.
result<report> validate_file(const std::filesystem::path& path, const reader_limits& limits = {});

/// Same for bytes in memory (kept alive by the caller during the call).
report validate_bytes(std::span<const std::byte> bytes, std::string name = "<memory>",
                      const reader_limits& limits = {});

/// The errors of `after` that `before` has not (compared by rule and subject): what an
/// edit would add. Every editor (gguf edit, ggufkit.edit) refuses an edit that adds one
/// unless forced.
std::vector<diagnostic> new_errors(const report& before, const report& after);

/// The report for a file the reader rejected with `e` (one structure.* error).
report structure_report(std::string path, const gguf::error& e);

}  // namespace gguf
#pragma GCC visibility pop
