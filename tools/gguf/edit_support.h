// What `gguf edit`, `gguf set` and `gguf rm` share: value parsing (text, typed text,
// JSON), arguments that look like options but are values (-1, -inf), the progress bar,
// the "no new validation errors" check, and running gguf::edit with its messages.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "gguf/edit.h"
#include "gguf/file.h"

namespace gguf::cli {

/// Options every editing command takes.
struct edit_flags {
  std::string output;
  std::string in_place = "auto";
  bool dry_run = false;
  bool force = false;
  bool break_links = false;
  bool quiet = false;
};

/// Registers --in-place, --dry-run, --force, --break-links, --quiet (and -o when
/// `with_output`) on `app`.
void add_edit_flags(CLI::App& app, edit_flags& flags, bool with_output);

/// Rewrites argv so that values that start with '-' but are not options of `app` (such
/// as -1, -0.5, -inf, -nan) reach the positionals, also after "--", while the options
/// (--type …) are recognized anywhere. Returns the new argument vector (argv[0] kept).
/// Throws CLI::ArgumentMismatch when an option is short of its values: at the end of the
/// line, or followed by "--" or another option of `app` (a forgotten value is never
/// taken from what follows).
std::vector<std::string> values_may_start_with_dash(const CLI::App& app, int argc, char** argv);

/// A value of type `type` from text (value::parse, plus inf/-inf/nan for floats).
result<value> parse_text_value(value_type type, std::string_view text);

/// Element shape for JSON values: innermost type and array depth (0 = scalar).
struct value_shape {
  value_type inner = value_type::string;
  uint32_t depth = 0;
};
/// The shape of an existing value.
value_shape shape_of(const value_ref& v);
/// A value from JSON: with `shape` as given (an existing key's, or KEY:TYPE), or inferred
/// from its leaves by the library's rule (gguf::untyped_leaves: int -> int32, int64 or
/// uint64 as they fit, float -> float32, string, bool), nested as the JSON arrays are.
/// Errors: invalid_argument naming the problem.
result<value> json_to_value(const nlohmann::json& j, std::optional<value_shape> shape);

/// Before an editing command reads a local FILE: finishes an in-place edit that was interrupted
/// (a journal beside it), saying so on stderr. Errors: io_error when a journal is there
/// and cannot be applied (the file may be half-edited: it is not read).
result<void> finish_interrupted_edit(const std::string& path);

/// What every editing command checks before it reads FILE (issue 29, items 7, 9, 11):
/// FILE and -o OUT are local files (a URL: "writing needs a local file"), FILE is not
/// standard input (an existing OUT other than FILE: gguf::edit refuses it without --force).
/// Prints the refusal and returns its exit code, else nullopt.
std::optional<int> check_edit_paths(const std::string& command, const std::string& path, const edit_flags& flags);

/// Runs gguf::edit on FILE with `ops`, refusing new validation errors unless --force,
/// printing what was done (stdout) and warnings (stderr). Returns the exit code.
int run_edit(const std::string& path, const std::vector<edit_op>& ops, const edit_flags& flags,
             const std::string& command);

}  // namespace gguf::cli
