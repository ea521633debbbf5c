// gguf info FILE [--json]: a summary of a GGUF file that never walks the vocabulary.
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "info_json.h"

namespace gguf::cli::cmd_info {
namespace {

std::string human(double v, const char* const* units, double step) {
  int u = 0;
  while (v >= step && units[u + 1] != nullptr) {
    v /= step;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f%s" : "%.2f%s", v, units[u]);
  return buf;
}
std::string human_bytes(uint64_t b) {
  static const char* const units[] = {" B", " KiB", " MiB", " GiB", " TiB", nullptr};
  return human(static_cast<double>(b), units, 1024.0);
}
std::string human_count(uint64_t n) {
  static const char* const units[] = {"", "K", "M", "B", "T", nullptr};
  return human(static_cast<double>(n), units, 1000.0);
}

int run(int argc, char** argv) {
  CLI::App app{"Summarize a GGUF file: version, byte order, alignment, counts, architecture, name, "
               "file type, parameters and sizes.",
               "info"};
  std::string path;
  read_flags rf;
  app.add_option("FILE", path, "GGUF file ('-' for standard input)");
  add_read_options(app, rf, "one JSON document", "read the file from standard input");
  const auto& [json, use_stdin] = rf;
  if (auto rc = parse(app, argc, argv)) return *rc;
  if (path.empty() && !use_stdin) {
    std::cerr << "gguf info: FILE is required (see --help)\n";
    return exit_usage;
  }
  if (use_stdin && !path.empty()) {
    std::cerr << "gguf info: --stdin reads the file from standard input: give no FILE (" << path << ")\n";
    return exit_usage;
  }
  split_facts split;
  auto f = open_model(path, use_stdin, &split);
  if (!f) return report(input_name(path, use_stdin), f.error());
  // a shard of a split model: its own size; the model is the whole set
  const uint64_t file_size = split.count ? split.own_size : f->size();
  const auto j = info_json(*f, input_name(path, use_stdin), split);
  const uint64_t n_params = j["parameters"], data_bytes = j["data_size"], n_vocab = j["n_vocab"];
  if (json) {
    print_json(j);
    return exit_ok;
  }
  auto text = [](const nlohmann::ordered_json& v) { return v.is_null() ? std::string("-") : v.is_string() ? v.get<std::string>() : v.dump(); };
  if (split.count)
    std::printf("file:          %s (%s; shard %u of %u, %s in all)\n", j["file"].get<std::string>().c_str(),
                human_bytes(file_size).c_str(), unsigned(split.no) + 1, unsigned(split.count),
                human_bytes(split.total_size).c_str());
  else
    std::printf("file:          %s (%s)\n", j["file"].get<std::string>().c_str(), human_bytes(file_size).c_str());
  std::printf("format:        GGUF v%u, %s-endian, alignment %u\n", f->version(),
              std::string(byte_order_name(f->byte_order())).c_str(), f->alignment());
  std::printf("metadata:      %zu %s, %s\n", f->kv_count(), f->kv_count() == 1 ? "key" : "keys",
              human_bytes(f->metadata_end()).c_str());
  std::printf("tensors:       %zu, %s of data at byte %llu\n", f->tensor_count(), human_bytes(data_bytes).c_str(),
              static_cast<unsigned long long>(f->data_offset()));
  std::printf("architecture:  %s\n", text(j["architecture"]).c_str());
  std::printf("name:          %s\n", text(j["name"]).c_str());
  std::printf("file type:     %s%s\n", text(j["file_type_name"]).c_str(),
              j["file_type"].is_null() ? "" : (" (" + text(j["file_type"]) + ")").c_str());
  std::printf("parameters:    %s (%llu)\n", human_count(n_params).c_str(), static_cast<unsigned long long>(n_params));
  if (!j["hparams"].is_null()) {
    std::string line;
    for (const auto& [k, v] : j["hparams"].items()) line += " " + k + "=" + text(v);
    std::printf("hparams:      %s\n", line.c_str());
  } else {
    std::printf("hparams:       - (%s)\n", j["hparams_error"].get<std::string>().c_str());
  }
  if (!j["tokenizer_model"].is_null()) {
    std::printf("tokenizer:     %s, %llu tokens\n", text(j["tokenizer_model"]).c_str(),
                static_cast<unsigned long long>(n_vocab));
  }
  if (const auto& ct = j["chat_template"]; !ct.is_null()) {
    std::string line = std::to_string(ct["bytes"].get<uint64_t>()) + " bytes";
    if (ct.contains("error")) {
      line += ", does not parse: " + ct["error"].get<std::string>();
    } else {
      if (!ct["detected_builtin"].is_null()) line += ", llama.cpp detects " + ct["detected_builtin"].get<std::string>();
      std::string on;
      for (const auto& [k, v] : ct["caps"].items())
        if (v.get<bool>()) on += (on.empty() ? "" : " ") + k.substr(9);  // drop "supports_"
      line += "; supports: " + (on.empty() ? std::string("-") : on);
    }
    std::printf("chat template: %s\n", line.c_str());
  }
  if (!j["tensor_types"].empty()) {
    std::printf("tensor types: ");
    for (const auto& [name, cb] : j["tensor_types"].items()) {
      std::printf(" %s x%llu (%s)", name.c_str(), static_cast<unsigned long long>(cb["tensors"].get<uint64_t>()),
                  human_bytes(cb["bytes"].get<uint64_t>()).c_str());
    }
    std::printf("\n");
  }
  return exit_ok;
}

const registrar reg{"info", "summary: version, byte order, alignment, counts, architecture, sizes", run};

}  // namespace
}  // namespace gguf::cli::cmd_info
