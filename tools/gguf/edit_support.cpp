#include "edit_support.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <set>

#include "commands.h"
#include "gguf/model.h"
#include "gguf/schema.h"
#include "progress.h"
#include "gguf/writer.h"

namespace gguf::cli {

void add_edit_flags(CLI::App& app, edit_flags& flags, bool with_output) {
  if (with_output) {
    app.add_option("-o,--output", flags.output,
                   "write the edited file here (always a streamed rewrite; FILE is only read; an existing OUT other "
                   "than FILE is replaced only with --force)");
  }
  app.add_option("--in-place", flags.in_place,
                 "never | auto | always (default auto): rewrite only the metadata region when the new metadata "
                 "fits before the data section (tensor data untouched, no copy). Processes that have the file "
                 "mapped see an in-place edit at once: use never for a file in use (a streamed rewrite replaces "
                 "the file by rename, and readers of the old file keep the old bytes)")
      ->check(CLI::IsMember({"never", "auto", "always"}));
  app.add_flag("--dry-run", flags.dry_run, "check the edit and say what would be done; write nothing");
  app.add_flag("--force", flags.force, "write even if the edit makes the file invalid (new validate errors); replace an existing -o OUT");
  app.add_flag("--break-links", flags.break_links,
               "allow a streamed rewrite of a file with other hard links (they keep the old content)");
  app.add_flag("-q,--quiet", flags.quiet, "no progress bar and no summary line");
}

namespace {

bool looks_numeric(std::string_view t) {
  if (t.size() < 2 || t[0] != '-') return false;
  char c = t[1];
  if ((c >= '0' && c <= '9') || c == '.') return true;
  std::string rest(t.substr(1));
  std::transform(rest.begin(), rest.end(), rest.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return rest == "inf" || rest == "infinity" || rest == "nan";
}

const CLI::Option* find_option(const CLI::App& app, std::string_view name) {
  for (const CLI::Option* o : app.get_options()) {
    if (name.substr(0, 2) == "--") {
      for (const auto& l : o->get_lnames()) {
        if (name.substr(2) == l) return o;
      }
    } else if (name.size() == 2 && name[0] == '-') {
      for (const auto& s : o->get_snames()) {
        if (name.substr(1) == s) return o;
      }
    }
  }
  return nullptr;
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}

std::string diagnostic_line(const diagnostic& d) {
  std::string s = "  " + std::string(severity_name(d.level)) + " " + d.rule;
  if (!d.subject.empty()) s += " (" + std::string(d.subject_is_tensor ? "tensor " : "key ") + printable_name(d.subject) + ")";
  return s + ": " + d.message;
}

bool fs_exists(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::symlink_status(p, ec));
}

}  // namespace

std::vector<std::string> values_may_start_with_dash(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> opts, pos;
  bool after_dd = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view t = argv[i];
    if (t == "--" && !after_dd) {
      after_dd = true;
      continue;
    }
    if (t.size() > 1 && t[0] == '-') {
      auto eq = t.find('=');
      const CLI::Option* o = find_option(app, t.substr(0, eq));
      if (o != nullptr || (!after_dd && !looks_numeric(t))) {
        opts.emplace_back(t);
        int takes = o != nullptr && eq == std::string_view::npos ? std::max(0, o->get_items_expected_min()) : 0;
        for (int k = 0; k < takes; ++k) {
          // a value left out: never take the "--" inserted below, the next option or "--" as it
          const std::string_view next = i + 1 < argc ? std::string_view(argv[i + 1]) : std::string_view();
          if (i + 1 >= argc || next == "--" ||
              (next.size() > 1 && next[0] == '-' && find_option(app, next.substr(0, next.find('='))) != nullptr)) {
            throw CLI::ArgumentMismatch(std::string(t) + " needs " + std::to_string(takes) +
                                            (takes == 1 ? " value" : " values") +
                                            (i + 1 >= argc ? std::string()
                                             : next == "--" ? std::string(", found '--'")
                                                            : ", not the option " + std::string(next)),
                                        CLI::ExitCodes::ArgumentMismatch);
          }
          opts.emplace_back(argv[++i]);
        }
        continue;
      }
    }
    pos.emplace_back(t);
  }
  std::vector<std::string> out{argv[0]};
  out.insert(out.end(), opts.begin(), opts.end());
  if (!pos.empty()) out.emplace_back("--");
  out.insert(out.end(), pos.begin(), pos.end());
  return out;
}

value_shape shape_of(const value_ref& v) {
  if (v.type() != value_type::array) return {v.type(), 0};
  auto a = *v.array();
  return {a.innermost_type(), a.nesting()};
}

namespace {

result<value> convert(const nlohmann::json& j, value_shape s) {
  auto bad = [&](const std::string& why) {
    return make_error(errc::invalid_argument, no_offset, "JSON " + j.dump() + ": " + why);
  };
  if (s.depth == 0) {
    if (s.inner == value_type::string) {
      if (!j.is_string()) return bad("expected a string");
      return value::string(j.get<std::string>());
    }
    if (s.inner == value_type::boolean) {
      if (!j.is_boolean()) return bad("expected true or false");
      return value::boolean(j.get<bool>());
    }
    if (!j.is_number()) return bad("expected a number of type " + std::string(value_type_name(s.inner)));
    return value::parse(s.inner, j.dump());
  }
  if (!j.is_array()) return bad("expected an array");
  if (s.depth == 1 && s.inner == value_type::string) {
    std::vector<std::string> elems;
    for (const auto& e : j) {
      if (!e.is_string()) return bad("expected an array of strings");
      elems.push_back(e.get<std::string>());
    }
    return value::string_array(std::span<const std::string>(elems));
  }
  std::vector<value> elems;
  for (const auto& e : j) {
    auto v = convert(e, {s.inner, s.depth - 1});
    if (!v) return v.error();
    elems.push_back(std::move(*v));
  }
  if (s.depth > 1) return value::array_of_arrays(elems);
  std::string payload;
  for (const auto& e : elems) payload += e.payload();
  return value::raw_array(s.inner, elems.size(), std::move(payload));
}

// The leaves of a JSON value: their kinds decide the inferred element type (the library's
// rule, gguf::untyped_leaves); their depth, the array nesting.
struct json_leaves {
  untyped_leaves kinds;
  bool other = false;
  uint32_t depth = 0;
  bool ragged_depth = false;
  void walk(const nlohmann::json& j, uint32_t d) {
    if (j.is_array()) {
      if (j.empty() && d + 1 > depth) depth = d + 1;
      for (const auto& e : j) walk(e, d + 1);
      return;
    }
    if (depth != 0 && d != depth) ragged_depth = true;
    depth = d;
    if (j.is_string()) kinds.add_string();
    else if (j.is_boolean()) kinds.add_bool();
    else if (j.is_number_float()) kinds.add_float();
    else if (j.is_number_unsigned()) kinds.add_integer(j.get<uint64_t>());
    else if (j.is_number_integer()) kinds.add_integer(j.get<int64_t>());
    else other = true;
  }
};

}  // namespace

result<value> json_to_value(const nlohmann::json& j, std::optional<value_shape> shape) {
  if (shape) return convert(j, *shape);
  json_leaves k;
  k.walk(j, 0);
  auto bad = [&](const std::string& why) {
    return make_error(errc::invalid_argument, no_offset, "JSON " + j.dump() + ": " + why);
  };
  if (k.other || k.ragged_depth) return bad("expected strings, numbers, bools or arrays of them, equally nested");
  if (k.kinds.empty()) return bad("an empty array has no element type: give one as KEY:TYPE=[]");
  auto inner = k.kinds.element_type();
  if (!inner) return bad(inner.error().detail);
  return convert(j, value_shape{*inner, k.depth});
}

result<void> finish_interrupted_edit(const std::string& path) {
  if (path.empty() || path == "-" || path.find("://") != std::string::npos || !fs_exists(journal_path(path))) return {};
  auto r = recover_edit(path);
  if (!r) return r.error();
  if (*r == recovery::finished) std::cerr << "gguf: " << path << ": finished an interrupted in-place edit from its journal\n";
  return {};
}

std::optional<int> check_edit_paths(const std::string& command, const std::string& path, const edit_flags& flags) {
  if (auto rc = refuse_urls(command, {path, flags.output})) return rc;
  if (auto rc = refuse_stdout_output(command, flags.output)) return rc;
  if (path == "-") {
    std::cerr << "gguf " << command << ": standard input ('-') cannot be edited: give the file itself "
              << "(-o OUT writes the result elsewhere)\n";
    return exit_usage;
  }
  if (flags.in_place == "always" && !flags.output.empty()) {
    std::error_code ec;
    if (!std::filesystem::equivalent(path, flags.output, ec)) {
      std::cerr << "gguf " << command << ": --in-place=always edits FILE itself; -o " << flags.output
                << " writes another file (give one or the other)\n";
      return exit_usage;
    }
  }
  return std::nullopt;  // an existing OUT: gguf::edit applies the overwrite policy (edit_options::overwrite)
}

int run_edit(const std::string& path, const std::vector<edit_op>& ops, const edit_flags& flags,
             const std::string& command) {
  edit_options o;
  o.output = flags.output;
  o.dry_run = flags.dry_run;
  o.break_links = flags.break_links;
  o.overwrite = flags.force;
  o.in_place = flags.in_place == "never"    ? in_place_mode::never
               : flags.in_place == "always" ? in_place_mode::always
                                            : in_place_mode::automatic;
  // Refuse edits that add validation errors (the diagnostics are printed).
  std::vector<diagnostic> added;
  o.check = [&](const file& before, const file& after) -> result<void> {
    validate_options as_written;  // the new metadata as the file it becomes (its name: the split rules)
    as_written.path = flags.output.empty() ? path : flags.output;
    auto old_report = validate(before), new_report = validate(after, as_written);
    add_loader_diagnostics(before, old_report);  // e.g. an unknown tokenizer.ggml.pre (issue 29, item 4)
    add_loader_diagnostics(after, new_report);
    added = new_errors(old_report, new_report);
    if (added.empty() || flags.force) return {};
    return make_error(errc::invalid_model, no_offset,
                      "the edit would make the file invalid (" + std::to_string(added.size()) + " new error" +
                          (added.size() == 1 ? "" : "s") + "; --force writes it anyway)");
  };
  // Progress bar: a terminal, not --quiet, more than 256 MiB.
  using clock = std::chrono::steady_clock;
  auto start = clock::now();
  bool bar = !flags.quiet && ::isatty(2);
  bool drew = false;
  if (bar) {
    o.progress = [&](uint64_t done, uint64_t total) {
      if (total <= (256ull << 20)) return;
      double secs = std::chrono::duration<double>(clock::now() - start).count();
      std::fprintf(stderr, "\rgguf %s: %s / %s (%3.0f%%), %s/s   ", command.c_str(), human_bytes(double(done)).c_str(),
                   human_bytes(double(total)).c_str(), 100.0 * double(done) / double(total),
                   human_bytes(secs > 0 ? double(done) / secs : 0).c_str());
      drew = true;
    };
  }
  auto r = edit(path, ops, o);
  if (drew) std::fputc('\n', stderr);
  if (!r) {
    int rc = report(path, r.error());
    for (const auto& d : added) std::cerr << diagnostic_line(d) << "\n";
    return rc;
  }
  for (const auto& d : added) std::cerr << "gguf: " << path << ": written with --force:" << diagnostic_line(d) << "\n";
  const auto& rep = *r;
  say_removed_temp_files(path, rep.stale_temp_files, flags.dry_run);
  if (rep.recovered) std::cerr << "gguf: " << path << ": finished an interrupted in-place edit from its journal\n";
  if (rep.upgraded_from == 1) std::cerr << "gguf: " << path << ": note: GGUF v1 is written as v3\n";
  if (!flags.quiet) {
    std::string dest = rep.target.string();
    std::cout << dest << ": " << (flags.dry_run ? "would be " : "");
    if (rep.in_place) {
      std::cout << "edited in place (" << rep.metadata_needed << " bytes of metadata in the " << rep.metadata_room
                << " before the data section; tensor data untouched)\n";
    } else {
      // "was" is the size of the file being replaced only when it is the input; a separate -o
      // OUT (new or replaced) names the input it was written from instead.
      if (rep.over_input) {
        std::cout << "rewritten (" << rep.new_size << " bytes, was " << rep.old_size;
      } else {
        std::cout << "written from " << path << " (" << rep.new_size << " bytes; input " << rep.old_size
                  << " bytes";
      }
      std::cout << "; metadata " << rep.metadata_needed << " bytes, room in place " << rep.metadata_room << ")\n";
    }
  }
  return exit_ok;
}

}  // namespace gguf::cli
