// The command registry of the gguf tool, and helpers every command shares.
#pragma once

#include <filesystem>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "gguf/file.h"
#include "gguf/vocab.h"

namespace gguf::cli {

/// Exit codes of the command-line contract (DESIGN.md).
inline constexpr int exit_ok = 0;
inline constexpr int exit_invalid = 1;  ///< input invalid or a check failed
inline constexpr int exit_usage = 2;    ///< usage error or file unreadable

struct command {
  std::string_view name;
  std::string_view summary;
  int (*run)(int argc, char** argv);  ///< argv[0] is the command name
};

/// All registered commands, sorted by name.
const std::vector<command>& commands();

/// Registers a command at static-initialization time: one line per cmd_*.cpp. Each
/// cmd_NAME.cpp keeps its code in namespace gguf::cli::cmd_NAME: the CLI's sources are
/// compiled as one unity source (CMakeLists.txt), where two commands' `run` would collide.
struct registrar {
  registrar(std::string_view name, std::string_view summary, int (*run)(int, char**));
};

/// The whole command line of this process (`gguf CMD ...`), saved by main before the
/// command runs: run_dynamic_build passes it on unchanged.
void save_process_arguments(int argc, char** argv);

/// Replaces this process (execv: same pid, standard streams and environment) with the
/// executable `name` installed in this executable's folder, run with `args` (args[0]: its
/// name). Returns only when that failed, after the line `gguf: cannot run FOLDER/NAME
/// (installed beside gguf), which WHY: REASON` on stderr: exit_usage.
int exec_beside(const char* name, const std::vector<char*>& args, std::string_view why);

/// Whether this gguf is the statically linked build (gguf::shared_library::available()
/// false): it cannot load libcurl (remote files) or libcrypto (SHA hashes) at run time.
bool is_static_build() noexcept;

/// In the statically linked build: runs gguf-dynamic, the same commands linked
/// dynamically (CMakeLists.txt), with this process's whole command line (exec_beside;
/// `why` ends its error line, e.g. "reads remote files"). Returns exit_usage only when
/// that failed. Call it before anything is read or written.
int run_dynamic_build(std::string_view why);

/// Whether an argument after the command names a remote file (gguf::is_remote: a URL or
/// hub name), alone or as the value of `--option=VALUE`; `argv[0]` is the command.
bool names_remote_file(int argc, char** argv);

/// Parses a CLI11 app; returns an exit code to stop with (0 after --help), or nullopt
/// to go on. Usage errors print one line to stderr and give exit_usage.
std::optional<int> parse(CLI::App& app, int argc, char** argv);

/// Prints `gguf: FILE: message` to stderr; returns exit_usage for io_error (unreadable),
/// exit_invalid otherwise.
int report(std::string_view file, const gguf::error& e);

/// The line report prints: `gguf: FILE: message\n`, FILE said once where the message
/// already begins with it (a split set's errors name the shard they concern).
std::string error_line(std::string_view file, const gguf::error& e);

/// The exit code of a command whose output is complete: std::cout and C stdio flushed,
/// then `code`, or exit_usage after `gguf: standard output: cannot write: REASON; the
/// output is incomplete` (REASON when the last flush saw it) when
/// what was written to standard output did not all arrive (a full disk, an I/O error; a
/// closed pipe ends the process with SIGPIPE first, as it does `cat`). main applies it
/// to every command, so that `gguf dump F > out.txt` on a full disk does not exit 0.
int check_standard_output(int code);

/// Writes `n` bytes to C stdio's stdout; a short write records errno as the REASON
/// check_standard_output gives (a write that fails before the last flush would otherwise
/// leave none). Returns whether every byte was taken.
bool write_standard_output(const void* data, size_t n);
/// Records errno `e` (the first one wins) after a write to standard output failed.
void note_standard_output_error(int e);

/// Ends the process now with check_standard_output(code), without running any destructor
/// (the loaded vocabulary's tables, the command line, static objects): the kernel frees
/// all of it faster. `gguf tokenize -m llama-spm Hello` with the tokenizer cache, perf
/// stat: 1.19 -> 1.06 ms. Only for a command that has written everything it writes (to the
/// standard streams: no safe_output open), has no other thread at work (the idle workers
/// of gguf/workers.h may wait), and read a local file.
/// In a build with AddressSanitizer or ThreadSanitizer it returns the code instead, so
/// that their checks at exit still run.
int end_process(int code);

/// Says once per file on stderr what file::open found of an interrupted in-place edit
/// (gguf::pending_edit): that it awaits a writer, or that a foreign journal is ignored.
void note_interrupted_edit(const std::string& path, pending_edit state);

/// Opens FILE, an http(s):// URL or an hf:// hub name (with the options of
/// add_remote_options), or standard
/// input for "-" (or when `use_stdin`).
result<gguf::file> open_input(const std::string& path, bool use_stdin = false);

/// Opens FILE like open_input, and when it is a shard of a split model (any shard),
/// every shard of its set: the result is the merged view (gguf::model_files::merged:
/// the first shard's metadata, every shard's tensors). Errors name the shard concerned.
/// When `split` is given, it receives the set's facts (count 0: not a split model).
struct split_facts {
  uint16_t count = 0;        ///< shards in the set
  uint16_t no = 0;           ///< which one `path` is (0-based)
  uint64_t own_size = 0;     ///< bytes of `path` itself
  uint64_t total_size = 0;   ///< bytes of every shard
};
result<gguf::file> open_model(const std::string& path, bool use_stdin = false, split_facts* split = nullptr);

/// open_model for the commands that show a file's own metadata (dump, get): a file whose
/// split.* keys cannot be read (one missing, or of another type) is read alone, after one
/// line on stderr, `gguf: FILE: warning: MESSAGE; read as one file (gguf validate FILE
/// lists the problems)`. Every other error is open_model's.
result<gguf::file> open_model_or_file(const std::string& path, bool use_stdin = false);

/// Adds the options of reading a URL or hub name (--header, --hf-token, --timeout,
/// --retries, --verbose) and of the disk cache (--cache-dir DIR, older name --cache;
/// --no-cache) to a command that reads files; open_input and load_vocab use them.
void add_remote_options(CLI::App& app);

/// The options of a command that reads GGUF files: --json (`json_help`), --stdin (only
/// when `stdin_help` is given), then the remote and disk-cache options (add_remote_options).
struct read_flags {
  bool json = false;
  bool use_stdin = false;
};
void add_read_options(CLI::App& app, read_flags& f, const char* json_help, const char* stdin_help = nullptr);

/// The options of a command that writes OUT (split, merge, convert-endian): --dry-run
/// (`dry_run_help`), --force (`force_help`) and --break-links (allow replacing an OUT that
/// has other hard links; gguf::safe_output).
struct write_flags {
  bool dry_run = false;
  bool force = false;
  bool break_links = false;
};
void add_write_options(CLI::App& app, write_flags& f, const char* dry_run_help, const char* force_help);

/// Adds --tokenizer-cache DIR and --no-tokenizer-cache, the older names of --cache-dir
/// and --no-cache, to a command that loads a vocabulary (after add_remote_options).
void add_vocab_cache_options(CLI::App& app);

/// The preamble of the commands that work on text with a file's tokenizer (tokenize,
/// detokenize, embed, chat): -m/--model FILE (required; `model_help`), --jsonl
/// (`jsonl_help`), --threads N ("with --jsonl: VERB on N threads, ..."), then the remote
/// and disk-cache options (add_remote_options, add_vocab_cache_options).
struct text_options {
  std::string model;
  bool jsonl = false;
  unsigned threads = 1;
  CLI::Option* jsonl_flag = nullptr;  ///< --jsonl, for a command's excludes()
};
void add_text_options(CLI::App& app, text_options& o, const char* model_help, const char* jsonl_help,
                      const char* verb);

/// vocab::load with the compiled tokenizer cache of the options (default: the folder of
/// gguf::default_tokenizer_cache_dir()); with --verbose, a line on stderr says whether
/// the cache was used.
result<gguf::vocab> load_vocab(const gguf::file& f);

/// Write commands (edit, set, rm, split, merge, convert-endian, quantize) refuse a URL
/// as an input or output before anything else (issue 29, item 7): one line on stderr,
/// `gguf CMD: URL: writing needs a local file (download it first)`, nothing on stdout.
/// Returns exit_usage when one of `paths` is a URL, else nullopt.
std::optional<int> refuse_urls(std::string_view cmd, std::initializer_list<std::string_view> paths);

/// A GGUF OUT of `-`: refused in one line (the file is written through a temp file and a
/// rename, standard output cannot be; `./-` names a file called '-'), as `refuse_urls`.
std::optional<int> refuse_stdout_output(std::string_view cmd, std::string_view out);

/// The overwrite policy of every command that writes OUT (gguf::check_overwrite in
/// gguf/output.h; issue 29, item 9): an existing OUT that is not an input is refused
/// unless --force; OUT being an input is allowed only when `may_replace_input`; OUT's
/// folder must exist. Reports the refusal (`gguf: OUT: ...`) and returns its exit code
/// (exit_usage), else nullopt.
std::optional<int> check_output_path(const std::string& out, std::span<const std::filesystem::path> inputs,
                                     bool force, bool may_replace_input);

/// Display name of an input ("<stdin>" for "-").
std::string input_name(const std::string& path, bool use_stdin = false);

/// JSON of a metadata value: scalars as JSON scalars, strings as strings (invalid UTF-8
/// replaced when dumped), arrays as nested JSON arrays. `max_elems` limits each array
/// (0 = no limit).
nlohmann::ordered_json value_json(const value_ref& v, uint64_t max_elems = 0);

/// Dumps JSON to stdout with invalid UTF-8 replaced by U+FFFD.
void print_json(const nlohmann::ordered_json& j, int indent = 1);

}  // namespace gguf::cli
