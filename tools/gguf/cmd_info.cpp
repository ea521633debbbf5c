// gguf info FILE [--json]: a summary of a GGUF file that never walks the vocabulary.
#include <cstdio>
#include <iostream>
#include <map>

#include "chat_json.h"
#include "commands.h"
#include "hparams_json.h"
#include "gguf/keys.h"
#include "gguf/model.h"

namespace gguf::cli {
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


// llama_ftype name of a general.file_type value, "unknown" for an id it does not know.
std::string ftype_name(uint64_t id) {
  auto name = id <= UINT32_MAX ? file_type_name(static_cast<uint32_t>(id)) : std::string_view{};
  return name.empty() ? std::string("unknown") : std::string(name);
}

int run(int argc, char** argv) {
  CLI::App app{"Summarize a GGUF file: version, byte order, alignment, counts, architecture, name, "
               "file type, parameters and sizes.",
               "info"};
  std::string path;
  bool json = false, use_stdin = false;
  app.add_option("FILE", path, "GGUF file ('-' for standard input)");
  app.add_flag("--stdin", use_stdin, "read the file from standard input");
  app.add_flag("--json", json, "one JSON document");
  add_remote_options(app);
  if (auto rc = parse(app, argc, argv)) return *rc;
  if (path.empty() && !use_stdin) {
    std::cerr << "gguf info: FILE is required (see --help)\n";
    return exit_usage;
  }
  split_facts split;
  auto f = open_model(path, use_stdin, &split);
  if (!f) return report(input_name(path, use_stdin), f.error());
  // a shard of a split model: its own size; the model is the whole set
  const uint64_t file_size = split.count ? split.own_size : f->size();

  uint64_t n_params = 0, data_bytes = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> by_type;  // name -> (tensors, bytes)
  for (const auto& t : f->tensors()) {
    n_params += t.nelements();
    data_bytes += t.nbytes;
    auto& slot = by_type[std::string(ggml_type_name(t.type))];
    slot.first += 1;
    slot.second += t.nbytes;
  }
  auto str_or_null = [&](std::string_view key) -> nlohmann::ordered_json {
    auto v = f->get_string(key);
    return v ? nlohmann::ordered_json(std::string(*v)) : nlohmann::ordered_json(nullptr);
  };
  auto uint_or_null = [&](std::string_view key) -> nlohmann::ordered_json {
    auto v = f->get_uint(key);
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
  };
  uint64_t n_vocab = 0;
  if (auto toks = f->get_array("tokenizer.ggml.tokens")) n_vocab = toks->size();

  nlohmann::ordered_json j;
  j["file"] = input_name(path, use_stdin);
  j["file_size"] = file_size;
  if (split.count) j["split"] = {{"count", split.count}, {"no", split.no}, {"total_size", split.total_size}};
  j["version"] = f->version();
  j["byte_order"] = std::string(byte_order_name(f->byte_order()));
  j["alignment"] = f->alignment();
  j["kv_count"] = f->kv_count();
  j["tensor_count"] = f->tensor_count();
  j["metadata_size"] = f->metadata_end();
  j["data_offset"] = f->data_offset();
  j["data_size"] = data_bytes;
  j["architecture"] = str_or_null("general.architecture");
  j["name"] = str_or_null("general.name");
  j["file_type"] = uint_or_null("general.file_type");
  j["file_type_name"] = j["file_type"].is_null()
                            ? nlohmann::ordered_json(nullptr)
                            : nlohmann::ordered_json(ftype_name(j["file_type"].get<uint64_t>()));
  j["quantization_version"] = uint_or_null("general.quantization_version");
  j["parameters"] = n_params;
  j["tokenizer_model"] = str_or_null("tokenizer.ggml.model");
  j["n_vocab"] = n_vocab;
  if (auto m = gguf::model::load(*f)) {
    j["hparams"] = hparams_json(m->hparams());
  } else {
    j["hparams"] = nullptr;
    j["hparams_error"] = m.error().message();
  }
  // the chat template: what llama.cpp detects it as and its capabilities (gguf/chat.h)
  if (auto src = f->get_string("tokenizer.chat_template")) {
    nlohmann::ordered_json ct;
    ct["bytes"] = src->size();
    auto t = chat_template::from_source(std::string(*src));
    if (t) {
      auto d = t->detected_builtin();
      ct["detected_builtin"] = d.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(std::string(d));
      ct["caps"] = chat_caps_json(t->caps());
    } else {
      ct["error"] = t.error().detail;
    }
    j["chat_template"] = std::move(ct);
  } else {
    j["chat_template"] = nullptr;
  }
  auto types = nlohmann::ordered_json::object();
  for (const auto& [name, cb] : by_type) types[name] = {{"tensors", cb.first}, {"bytes", cb.second}};
  j["tensor_types"] = types;

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
  std::printf("metadata:      %zu keys, %s\n", f->kv_count(), human_bytes(f->metadata_end()).c_str());
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
  if (!by_type.empty()) {
    std::printf("tensor types: ");
    for (const auto& [name, cb] : by_type) {
      std::printf(" %s x%llu (%s)", name.c_str(), static_cast<unsigned long long>(cb.first), human_bytes(cb.second).c_str());
    }
    std::printf("\n");
  }
  return exit_ok;
}

const registrar reg{"info", "summary: version, byte order, alignment, counts, architecture, sizes", run};

}  // namespace
}  // namespace gguf::cli
