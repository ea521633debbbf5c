// gguf name FILENAME... [--json]: parse file names by the GGUF naming convention and say
// why a name does not conform. gguf name --suggest FILE...: the conforming name of a
// file, built from its metadata. Exit: 0 all names conform, 1 one does not, 2 usage
// error or unreadable file (--suggest).
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "gguf/naming.h"

namespace gguf::cli::cmd_name {
namespace {

nlohmann::ordered_json opt(const std::string& s) {
  return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
}

nlohmann::ordered_json parts_json(const name_parts& p) {
  nlohmann::ordered_json j;
  j["sidecar"] = opt(p.sidecar);
  j["base_name"] = opt(p.base_name);
  j["size_label"] = opt(p.size_label);
  j["expert_count"] = p.expert_count;
  j["parameter_count"] = opt(p.parameter_count);
  j["fine_tune"] = opt(p.fine_tune);
  j["version"] = p.version;
  j["version_given"] = p.version_given;
  j["encoding"] = opt(p.encoding);
  j["type"] = opt(p.type);
  if (p.sharded) {
    j["shard"] = p.shard;
    j["shard_count"] = p.shard_count;
  } else {
    j["shard"] = nullptr;
    j["shard_count"] = nullptr;
  }
  return j;
}

int run(int argc, char** argv) {
  CLI::App app{"GGUF naming convention: parse and check file names, or --suggest the conforming name of a file.",
               "name"};
  std::vector<std::string> names;
  bool suggest = false;
  read_flags rf;
  app.add_option("FILENAME", names, "file names to check (with --suggest: GGUF files to read)");
  add_read_options(app, rf, "one JSON document: {\"names\": [...]}");
  const bool& json = rf.json;
  app.add_flag("--suggest", suggest, "read each FILE and print the conforming name from its metadata");
  if (auto rc = parse(app, argc, argv)) return *rc;
  if (names.empty()) {
    std::cerr << "gguf name: FILENAME is required (see --help)\n";
    return exit_usage;
  }
  int rc = exit_ok;
  auto all = nlohmann::ordered_json::array();
  for (const auto& n : names) {
    if (suggest) {
      auto f = open_input(n);
      if (!f) {
        rc = std::max(rc, cli::report(input_name(n), f.error()));
        continue;
      }
      std::vector<std::string> problems;
      std::string s = suggest_name(*f, &problems);
      if (json) {
        nlohmann::ordered_json j;
        j["file"] = input_name(n);
        j["suggested"] = s;
        j["conforms"] = problems.empty();
        j["problems"] = problems;
        all.push_back(std::move(j));
      } else {
        std::printf("%s\n", s.c_str());
        for (const auto& p : problems) std::fprintf(stderr, "gguf: %s: %s\n", input_name(n).c_str(), p.c_str());
      }
      if (!problems.empty()) rc = std::max(rc, exit_invalid);
      continue;
    }
    name_check c = parse_name(n);
    if (!c.conforms) rc = std::max(rc, exit_invalid);
    if (json) {
      nlohmann::ordered_json j;
      j["name"] = n;
      j["conforms"] = c.conforms;
      j["parts"] = c.parts ? parts_json(*c.parts) : nlohmann::ordered_json(nullptr);
      j["problems"] = c.problems;
      all.push_back(std::move(j));
      continue;
    }
    std::printf("%s: %s\n", n.c_str(), c.conforms ? "conforms" : "does not conform");
    for (const auto& p : c.problems) std::printf("  problem: %s\n", p.c_str());
    if (c.parts) {
      const auto& p = *c.parts;
      auto line = [](const char* k, const std::string& v) {
        if (!v.empty()) std::printf("  %-11s %s\n", k, v.c_str());
      };
      line("Sidecar", p.sidecar);
      line("BaseName", p.base_name);
      line("SizeLabel", p.size_label);
      if (p.expert_count) std::printf("  %-11s %u\n", "Experts", p.expert_count);
      line("Parameters", p.parameter_count);
      line("FineTune", p.fine_tune);
      line("Version", p.version + (p.version_given ? "" : " (default)"));
      line("Encoding", p.encoding);
      line("Type", p.type);
      if (p.sharded) std::printf("  %-11s %u of %u\n", "Shard", p.shard, p.shard_count);
    }
  }
  if (json) {
    nlohmann::ordered_json j;
    j[suggest ? "files" : "names"] = std::move(all);
    print_json(j);
  }
  return rc;
}

const registrar reg{"name", "GGUF naming convention: parse/check names, --suggest one", run};

}  // namespace
}  // namespace gguf::cli::cmd_name
