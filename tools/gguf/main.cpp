// gguf — command-line tool over the gguf library. A dispatcher over one function per
// command (cmd_*.cpp); the command table is the only place a command is registered.
// Built twice from the same objects (CMakeLists.txt): gguf, linked statically, and
// gguf-dynamic, which can load libcurl and libcrypto at run time; gguf hands a command
// that needs them to gguf-dynamic (exec, same arguments).
#include <algorithm>
#include <cstring>
#include <iostream>
#include <string_view>

#include "commands.h"
#include "gguf/version.h"

namespace {
void usage(std::ostream& os) {
  os << "usage: gguf <command> [options] [args]\n\ncommands:\n";
  // the summaries in one column, two spaces past the longest name
  size_t width = 0;
  for (const auto& c : gguf::cli::commands()) width = std::max(width, c.name.size());
  for (const auto& c : gguf::cli::commands()) {
    os << "  " << c.name;
    for (size_t i = c.name.size(); i < width + 2; ++i) os << ' ';
    os << c.summary << "\n";
  }
  os << "\nRun 'gguf <command> --help' for a command's options.\n"
        "Exit codes: 0 success, 1 invalid input or failed check, 2 usage error or unreadable file.\n";
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(std::cerr);
    return 2;
  }
  std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    usage(std::cout);
    return gguf::cli::check_standard_output(0);
  }
  if (name == "--version") {
    std::cout << "gguf " << gguf::version() << "\n";
    return gguf::cli::check_standard_output(0);
  }
  gguf::cli::save_process_arguments(argc, argv);
  // The statically linked gguf cannot load libcurl: a command naming a URL or hub name
  // runs as gguf-dynamic, before anything is read (serve runs gguf-serve, dynamic too).
  if (name != "serve" && gguf::cli::is_static_build() && gguf::cli::names_remote_file(argc - 1, argv + 1))
    return gguf::cli::run_dynamic_build("reads remote files");
  for (const auto& c : gguf::cli::commands()) {
    if (c.name == name) return gguf::cli::check_standard_output(c.run(argc - 1, argv + 1));
  }
  std::cerr << "gguf: unknown command '" << name << "'\n";
  usage(std::cerr);
  return 2;
}
