// gguf dump FILE [--json] [--no-tensors] [--full-arrays]: every key/value and tensor info.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "commands.h"

namespace gguf::cli::cmd_dump {
namespace {

constexpr uint64_t short_array = 8;  // elements shown of a shortened array

nlohmann::ordered_json kv_json(const kv_ref& kv, bool full) {
  nlohmann::ordered_json j;
  j["key"] = std::string(kv.key);
  j["type"] = std::string(value_type_name(kv.value.type()));
  if (kv.value.type() != value_type::array) {
    j["value"] = value_json(kv.value);
    return j;
  }
  auto a = *kv.value.array();
  j["element_type"] = std::string(value_type_name(a.innermost_type()));
  j["nesting"] = a.nesting();
  j["length"] = a.size();
  if (full) {
    j["values"] = value_json(kv.value);
  } else {
    auto first = nlohmann::ordered_json::array();
    for (uint64_t i = 0; i < std::min(short_array, a.size()); ++i) first.push_back(value_json(*a.at(i), short_array));
    j["first"] = first;
    j["last"] = a.empty() ? nlohmann::ordered_json(nullptr) : value_json(*a.at(a.size() - 1), short_array);
  }
  return j;
}

nlohmann::ordered_json tensor_json(const tensor_info& t) {
  nlohmann::ordered_json j;
  j["name"] = std::string(t.name);
  j["type"] = std::string(ggml_type_name(t.type));
  auto ne = nlohmann::ordered_json::array();
  for (uint32_t d = 0; d < t.n_dims; ++d) ne.push_back(t.ne[d]);
  j["ne"] = ne;
  j["offset"] = t.offset;
  j["nbytes"] = t.nbytes;
  return j;
}

// JSON text, except that non-finite floats print as inf, -inf and nan (JSON has no
// spelling for them: nlohmann writes null, which reads as "no value").
std::string value_text(const value_ref& v, uint64_t limit) {
  auto non_finite = [](double d) -> std::string { return std::isnan(d) ? "nan" : d > 0 ? "inf" : "-inf"; };
  if (v.type() == value_type::float32 || v.type() == value_type::float64) {
    double d = *v.to_double();
    if (!std::isfinite(d)) return non_finite(d);
  }
  if (v.type() == value_type::array) {
    auto a = *v.array();
    auto e = a.element_type();
    if (e == value_type::float32 || e == value_type::float64 || e == value_type::array) {
      uint64_t n = limit ? std::min(limit, a.size()) : a.size();
      std::string s = "[";
      for (uint64_t i = 0; i < n; ++i) s += (i ? "," : "") + value_text(*a.at(i), limit);
      return s + "]";
    }
  }
  return value_json(v, limit).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string short_text(const value_ref& v, bool full) {
  std::string s = value_text(v, full ? 0 : short_array);
  if (v.type() == value_type::array) {
    auto a = *v.array();
    if (!full && a.size() > short_array) {
      s.pop_back();
      s += ", ... (" + std::to_string(a.size()) + " elements)]";
    }
  }
  return s;
}

int run(int argc, char** argv) {
  CLI::App app{"Print every metadata key/value and tensor info of a GGUF file.", "dump"};
  std::string path;
  bool no_tensors = false, full = false;
  read_flags rf;
  app.add_option("FILE", path, "GGUF file ('-' for standard input)");
  add_read_options(app, rf, "one JSON document (field names of shared/data/expected)", "read the file from standard input");
  const auto& [json, use_stdin] = rf;
  app.add_flag("--no-tensors", no_tensors, "leave out the tensor infos");
  app.add_flag("--full-arrays", full, "print every array element (default: first 8 and the last)");
  if (auto rc = parse(app, argc, argv)) return *rc;
  if (path.empty() && !use_stdin) {
    std::cerr << "gguf dump: FILE is required (see --help)\n";
    return exit_usage;
  }
  if (use_stdin && !path.empty()) {
    std::cerr << "gguf dump: --stdin reads the file from standard input: give no FILE (" << path << ")\n";
    return exit_usage;
  }
  auto f = open_model_or_file(path, use_stdin);  // (a file whose split.* keys are broken: read alone)
  if (!f) return report(input_name(path, use_stdin), f.error());

  if (json) {
    nlohmann::ordered_json j;
    j["file"] = input_name(path, use_stdin);
    j["version"] = f->version();
    j["byte_order"] = std::string(byte_order_name(f->byte_order()));
    j["alignment"] = f->alignment();
    j["data_offset"] = f->data_offset();
    j["kv_count"] = f->kv_count();
    j["tensor_count"] = f->tensor_count();
    auto kvs = nlohmann::ordered_json::array();
    for (const auto& kv : f->kvs()) kvs.push_back(kv_json(kv, full));
    j["kv"] = std::move(kvs);
    if (!no_tensors) {
      auto ts = nlohmann::ordered_json::array();
      for (const auto& t : f->tensors()) ts.push_back(tensor_json(t));
      j["tensors"] = std::move(ts);
    }
    print_json(j);
    return exit_ok;
  }

  std::printf("%s: GGUF v%u, %s-endian, alignment %u, %zu keys, %zu tensors, data at byte %llu\n",
              input_name(path, use_stdin).c_str(), f->version(), std::string(byte_order_name(f->byte_order())).c_str(),
              f->alignment(), f->kv_count(), f->tensor_count(), static_cast<unsigned long long>(f->data_offset()));
  size_t i = 0;
  for (const auto& kv : f->kvs()) {
    std::string type(value_type_name(kv.value.type()));
    if (kv.value.type() == value_type::array) {
      auto a = *kv.value.array();
      type = "[" + std::string(value_type_name(a.element_type())) + "]";
    }
    std::printf("%5zu: %-10s %s = %s\n", ++i, type.c_str(), std::string(kv.key).c_str(),
                short_text(kv.value, full).c_str());
  }
  if (!no_tensors) {
    i = 0;
    for (const auto& t : f->tensors()) {
      std::string shape;
      for (uint32_t d = 0; d < t.n_dims; ++d) shape += (d ? ", " : "") + std::to_string(t.ne[d]);
      std::printf("%5zu: %-8s %-40s [%s] @%llu, %llu bytes\n", ++i, std::string(ggml_type_name(t.type)).c_str(),
                  printable_name(t.name).c_str(), shape.c_str(), static_cast<unsigned long long>(t.offset),
                  static_cast<unsigned long long>(t.nbytes));
    }
  }
  return exit_ok;
}

const registrar reg{"dump", "print every key/value and tensor info", run};

}  // namespace
}  // namespace gguf::cli::cmd_dump
