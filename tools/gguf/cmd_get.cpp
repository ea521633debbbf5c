// gguf get FILE KEY [--json]: one metadata value, raw (ready to pipe) or as JSON.
#include <charconv>
#include <iostream>

#include "commands.h"

namespace gguf::cli::cmd_get {
namespace {

template <class T>
std::string shortest(T x) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x);  // inf, -inf, nan; round-trips
  return std::string(buf, r.ptr);
}

int run_get(int argc, char** argv) {
  CLI::App app{"Print one metadata value. Raw: a string exactly as stored (no newline added: a chat template "
               "pipes as is), a number or bool as text with a newline, an array as JSON. --json: the value as "
               "a JSON document.",
               "get"};
  std::string path, key;
  read_flags rf;
  app.add_option("FILE", path, "GGUF file (- for standard input)");
  app.add_option("KEY", key, "metadata key, e.g. tokenizer.chat_template");
  add_read_options(app, rf, "print the value as JSON", "read the file from standard input (then KEY is the only argument)");
  const auto& [json, use_stdin] = rf;
  if (auto rc = parse(app, argc, argv)) return *rc;
  // Issue 29, item 11: `get --stdin KEY`: the one positional is the key.
  if (use_stdin && !key.empty()) {
    std::cerr << "gguf get: --stdin reads the file from standard input: give only KEY, no FILE (" << path << ")\n";
    return exit_usage;
  }
  if (use_stdin && key.empty() && !path.empty()) std::swap(path, key);
  if (key.empty()) {
    std::cerr << "gguf get: KEY is required (see --help)\n";
    return exit_usage;
  }
  if (path.empty() && !use_stdin) {
    std::cerr << "gguf get: FILE is required (or --stdin)\n";
    return exit_usage;
  }
  const std::string name = input_name(path, use_stdin);
  // The split.* keys say which shard this file is: read from the file named, not from the
  // set it belongs to (whose view holds the first shard's). (A file whose split.* keys are
  // broken is read alone either way.)
  auto f = key.starts_with("split.") ? open_input(path, use_stdin) : open_model_or_file(path, use_stdin);
  if (!f) return report(name, f.error());
  auto v = f->get(key);
  if (!v) return report(name, v.error());
  if (json) {
    print_json(value_json(*v), -1);
    return exit_ok;
  }
  switch (v->type()) {
    case value_type::string: {
      auto s = *v->get<std::string_view>();
      std::cout.write(s.data(), static_cast<std::streamsize>(s.size()));
      break;
    }
    case value_type::float32: std::cout << shortest(*v->get<float>()) << "\n"; break;
    case value_type::float64: std::cout << shortest(*v->get<double>()) << "\n"; break;
    case value_type::array: print_json(value_json(*v), -1); break;
    default: std::cout << value_json(*v).dump() << "\n"; break;
  }
  return exit_ok;
}

const registrar reg{"get", "print one metadata value (raw or --json)", run_get};

}  // namespace
}  // namespace gguf::cli::cmd_get
