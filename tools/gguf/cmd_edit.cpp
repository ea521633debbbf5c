// gguf set FILE KEY VALUE [--type T] and gguf rm FILE KEY: edit metadata in place.
// The file is rewritten through gguf::writer: a temporary file beside it, renamed over
// it only once completely written, so an edit never leaves a half-written file.
#include <iostream>

#include "commands.h"
#include "gguf/writer.h"

namespace gguf::cli {
namespace {

int finish(const std::string& path, const gguf::writer& w) {
  if (auto r = w.write_file(path); !r) return report(path, r.error());
  return exit_ok;
}

int run_set(int argc, char** argv) {
  CLI::App app{"Set a metadata key of a GGUF file (rewritten atomically). An existing key keeps its type "
               "unless --type is given; a new key needs --type.",
               "set"};
  std::string path, key, text, type_name;
  app.add_option("FILE", path, "GGUF file to edit")->required();
  app.add_option("KEY", key, "metadata key, e.g. general.name")->required();
  app.add_option("VALUE", text, "new value as text (numbers in decimal, bool as true/false)")->required();
  app.add_option("--type", type_name,
                 "value type: uint8 int8 uint16 int16 uint32 int32 float32 bool string uint64 int64 float64");
  if (auto rc = parse(app, argc, argv)) return *rc;

  auto f = gguf::file::open(path);
  if (!f) return report(path, f.error());
  value_type type{};
  if (!type_name.empty()) {
    auto t = value_type_from_name(type_name);
    if (!t || *t == value_type::array) {
      std::cerr << "gguf set: unknown or unsupported --type '" << type_name << "' (see --help)\n";
      return exit_usage;
    }
    type = *t;
  } else if (auto existing = f->find(key)) {
    type = existing->type();
    if (type == value_type::array) {
      std::cerr << "gguf set: " << key << " is an array; arrays cannot be set from text\n";
      return exit_usage;
    }
  } else {
    std::cerr << "gguf set: " << key << " is not in " << path << "; give its --type (see --help)\n";
    return exit_usage;
  }
  auto v = gguf::value::parse(type, text);
  if (!v) {
    std::cerr << "gguf set: " << v.error().message() << "\n";
    return exit_usage;
  }
  auto w = gguf::writer::from_file(*f);
  if (auto r = w.set(key, std::move(*v)); !r) {
    std::cerr << "gguf set: " << r.error().message() << "\n";
    return exit_usage;
  }
  return finish(path, w);
}

int run_rm(int argc, char** argv) {
  CLI::App app{"Remove a metadata key from a GGUF file (rewritten atomically).", "rm"};
  std::string path, key;
  app.add_option("FILE", path, "GGUF file to edit")->required();
  app.add_option("KEY", key, "metadata key to remove")->required();
  if (auto rc = parse(app, argc, argv)) return *rc;
  auto f = gguf::file::open(path);
  if (!f) return report(path, f.error());
  auto w = gguf::writer::from_file(*f);
  if (!w.remove(key)) {
    return report(path, make_error(errc::key_not_found, no_offset, "no such key", key));
  }
  return finish(path, w);
}

const registrar reg_set{"set", "set a metadata key (atomic rewrite)", run_set};
const registrar reg_rm{"rm", "remove a metadata key (atomic rewrite)", run_rm};

}  // namespace
}  // namespace gguf::cli
