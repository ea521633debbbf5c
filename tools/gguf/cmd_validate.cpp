// gguf validate FILE... [--json|--jsonl] [--strict] [--quiet]: every rule of the GGUF
// specification and of llama.cpp's loader, reported as diagnostics (gguf/schema.h).
// Exit: 0 every file valid, 1 a file has errors (or warnings with --strict),
// 2 usage error or a file could not be read.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "gguf/chat.h"
#include "gguf/model.h"
#include "gguf/schema.h"

namespace gguf::cli::cmd_validate {
namespace {

std::string where(const diagnostic& d) {
  std::string w;
  if (d.offset != no_offset) w = "at byte " + std::to_string(d.offset);
  if (!d.subject.empty()) {
    if (!w.empty()) w += ", ";
    w += (d.subject_is_tensor ? "tensor " : "key ") + printable_name(d.subject);
  }
  return w.empty() ? w : " (" + w + ")";
}

nlohmann::ordered_json report_json(const gguf::report& r, bool strict) {
  nlohmann::ordered_json j;
  j["file"] = r.path;
  j["valid"] = r.passes(strict);
  if (r.version) j["version"] = r.version;
  else j["version"] = nullptr;
  if (r.byte_order) j["byte_order"] = std::string(byte_order_name(*r.byte_order));
  else j["byte_order"] = nullptr;
  j["errors"] = r.count(severity::error);
  j["warnings"] = r.count(severity::warning);
  j["notes"] = r.count(severity::note);
  auto ds = nlohmann::ordered_json::array();
  for (const auto& d : r.diagnostics) {
    nlohmann::ordered_json o;
    o["severity"] = std::string(severity_name(d.level));
    o["rule"] = d.rule;
    if (d.subject.empty()) o["subject"] = nullptr;
    else o["subject"] = d.subject;
    o["subject_kind"] = d.subject.empty() ? "none" : (d.subject_is_tensor ? "tensor" : "key");
    if (d.offset == no_offset) o["offset"] = nullptr;
    else o["offset"] = d.offset;
    o["message"] = d.message;
    if (d.code != errc::ok) o["code"] = std::string(error_name(d.code));
    ds.push_back(std::move(o));
  }
  j["diagnostics"] = std::move(ds);
  return j;
}

std::string counted(size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// A file that could not be read at all: listed with its error (--json, --jsonl).
nlohmann::ordered_json unreadable_json(const std::string& name, const gguf::error& e) {
  nlohmann::ordered_json j;
  j["file"] = name;
  j["valid"] = false;
  j["readable"] = false;
  j["error"] = e.message();
  j["code"] = std::string(error_name(e.code));
  j["diagnostics"] = nlohmann::ordered_json::array();
  return j;
}

int run(int argc, char** argv) {
  CLI::App app{"Check GGUF files against the specification and llama.cpp's loader; report every problem.",
               "validate"};
  std::vector<std::string> paths;
  bool jsonl = false, strict = false, quiet = false;
  read_flags rf;
  app.add_option("FILE", paths, "GGUF files ('-' for standard input)");
  add_read_options(app, rf, "one JSON document: {\"files\": [report, ...]}", "read a file from standard input (as '-')");
  const auto& [json, use_stdin] = rf;
  app.add_flag("--jsonl", jsonl, "one JSON report per line, one line per file");
  app.add_flag("--strict", strict, "warnings fail the check too (exit 1)");
  app.add_flag("-q,--quiet", quiet, "print only the summary line of each file (text output)");
  if (auto rc = parse(app, argc, argv)) return *rc;
  if (use_stdin) paths.push_back("-");
  if (paths.empty()) {
    std::cerr << "gguf validate: FILE is required (see --help)\n";
    return exit_usage;
  }
  if (json && jsonl) {
    std::cerr << "gguf validate: --json and --jsonl exclude each other\n";
    return exit_usage;
  }

  int rc = exit_ok;
  auto all = nlohmann::ordered_json::array();
  for (const auto& path : paths) {
    std::string name = input_name(path);
    gguf::report r;
    auto f = open_input(path);
    if (!f) {
      if (f.error().code == errc::io_error) {
        rc = std::max(rc, cli::report(name, f.error()));
        if (json) all.push_back(unreadable_json(name, f.error()));
        if (jsonl) print_json(unreadable_json(name, f.error()), -1);
        continue;
      }
      r = structure_report(name, f.error());
    } else {
      // the other shards of a split model are opened with this command's remote options
      r = validate(*f, validate_options{[](const std::string& p) { return open_input(p); }, {}});
      add_loader_diagnostics(*f, r);  // what llama.cpp's loader refuses (issue 29, item 4)
      r.path = name;
      // the chat templates parse and render a plain exchange (gguf/chat.h, docs/validation-rules.md)
      for (auto& issue : check_chat_templates(*f)) {
        diagnostic d;
        d.level = issue.is_error ? severity::error : severity::warning;
        d.rule = std::move(issue.rule);
        d.subject = std::move(issue.key);
        d.offset = issue.offset;
        d.message = std::move(issue.message);
        d.code = issue.is_error ? errc::invalid_template : errc::template_error;
        r.diagnostics.push_back(std::move(d));
      }
    }
    if (!r.passes(strict)) rc = std::max(rc, exit_invalid);

    if (json) {
      all.push_back(report_json(r, strict));
    } else if (jsonl) {
      print_json(report_json(r, strict), -1);
    } else {
      if (!quiet)
        for (const auto& d : r.diagnostics)
          std::printf("%s: %s %s: %s%s\n", name.c_str(), std::string(severity_name(d.level)).c_str(), d.rule.c_str(),
                      d.message.c_str(), where(d).c_str());
      std::printf("%s: %s (%s, %s, %s)\n", name.c_str(), r.passes(strict) ? "valid" : "INVALID",
                  counted(r.count(severity::error), "error").c_str(),
                  counted(r.count(severity::warning), "warning").c_str(), counted(r.count(severity::note), "note").c_str());
    }
  }
  if (json) {
    nlohmann::ordered_json j;
    j["files"] = std::move(all);
    print_json(j);
  }
  return rc;
}

const registrar reg{"validate", "check files against the spec and llama.cpp's loader", run};

}  // namespace
}  // namespace gguf::cli::cmd_validate
